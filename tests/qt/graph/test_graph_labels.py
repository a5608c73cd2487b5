"""The graph's names: placed greedily by priority, never overlapping, the hubs, the focus and
the isolated concepts first, every node once the zoom gives it room; the fit frames the main
component."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from pytestqt.qtbot import QtBot

from librarian_gui.ui.graph.canvas import GraphCanvas
from librarian_gui.ui.graph.labels import place_labels


def _widths(value: float):  # type: ignore[no-untyped-def]
    return lambda rows: np.full(len(rows), value)


def test_a_name_with_no_room_under_its_dot_goes_above_it() -> None:
    x = np.array([100.0, 105.0, 300.0])
    y = np.array([100.0, 100.0, 100.0])
    radius = np.full(3, 3.0)
    rows, boxes = place_labels(
        x, y, radius, _widths(40), 10, np.array([1]), np.array([0, 1, 2]), (400, 300)
    )
    # Boxes are the name (40 × 10) plus 2 px inside each side; under a dot means 2 px below
    # its 3 px radius; node 1 is forced (first), node 0 then finds room only above its dot.
    assert rows.tolist() == [1, 0, 2]
    assert boxes.tolist() == [[83, 105, 44, 14], [78, 81, 44, 14], [278, 105, 44, 14]]


def test_close_nodes_are_thinned_to_the_best_ranked() -> None:
    x = np.array([100.0, 105.0, 300.0])
    y = np.array([100.0, 100.0, 100.0])
    rows, _boxes = place_labels(
        x,
        y,
        np.full(3, 3.0),
        _widths(40),
        10,
        np.array([], np.int64),
        np.array([1, 0, 2]),
        (400, 300),
    )
    assert rows.tolist() == [1, 2]  # 0 shares 1's screen cell and ranks after it


def test_nodes_off_screen_are_not_named() -> None:
    x = np.array([-5.0, 50.0, 450.0])
    y = np.array([50.0, 50.0, 50.0])
    rows, _boxes = place_labels(
        x,
        y,
        np.full(3, 3.0),
        _widths(20),
        10,
        np.array([0, 2]),
        np.array([0, 1, 2]),
        (400, 300),
    )
    assert rows.tolist() == [1]


def _overlapping(boxes: list[tuple[float, float, float, float]]) -> list[tuple[int, int]]:
    found = []
    for i, (l1, t1, w1, h1) in enumerate(boxes):
        for j, (l2, t2, w2, h2) in enumerate(boxes[:i]):
            if l1 < l2 + w2 and l2 < l1 + w1 and t1 < t2 + h2 and t2 < t1 + h1:
                found.append((j, i))
    return found


def _crowd(qtbot: QtBot) -> GraphCanvas:
    """900 nodes on a 30 × 30 grid one unit apart; node 0 links 40 others (the hub), node 1
    links 20, node 899 (a corner) none; the canvas shows all of it."""
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(600, 500)
    canvas.show()
    grid = np.arange(900)
    positions = np.column_stack([grid % 30, grid // 30]).astype(float)
    edges = [[0, i] for i in range(100, 140)] + [[1, i] for i in range(200, 220)]
    ids = [f"n{i}" for i in range(900)]
    canvas.set_graph(
        ids, ["note"] * 900, [f"name {i}" for i in range(900)], np.array(edges), positions
    )
    return canvas


def test_in_a_crowd_names_never_overlap_and_the_hubs_and_focus_are_named(qtbot: QtBot) -> None:
    canvas = _crowd(qtbot)
    rings = np.zeros(900, bool)
    rings[899] = True
    canvas.set_rings(rings)
    canvas.select("n450")
    canvas.grab()
    names = canvas.labelled()
    assert names[:3] == ["name 450", "name 0", "name 1"]  # selected, then the two hubs
    assert "name 899" in names  # ringed: isolated concepts are named
    assert len(names) < 900  # far from all: there is no room
    assert _overlapping(canvas.label_boxes()) == []


def test_the_hovered_node_and_its_neighbours_are_named_without_overlap(qtbot: QtBot) -> None:
    canvas = _crowd(qtbot)
    canvas.scene().sigMouseMoved.emit(canvas.view_box().mapViewToScene(QPointF(1, 0)))
    canvas.grab()
    names = canvas.labelled()
    assert names[:2] == ["name 1", "name 200"]  # hovered, then its neighbours by degree
    assert "name 219" in names
    assert _overlapping(canvas.label_boxes()) == []


def test_zooming_in_gives_every_node_on_screen_its_name(qtbot: QtBot) -> None:
    canvas = _crowd(qtbot)
    canvas.view_box().setRange(QRectF(10, 10, 3, 3), padding=0)  # 16 nodes, 4 × 4
    canvas.grab()
    names = sorted(canvas.labelled())
    expected = sorted(f"name {30 * row + col}" for row in range(10, 14) for col in range(10, 14))
    assert names == expected
    assert _overlapping(canvas.label_boxes()) == []


def test_fit_frames_the_main_component_not_the_outliers(qtbot: QtBot) -> None:
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(600, 500)
    canvas.show()
    positions = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [1000.0, 1000.0]])
    canvas.set_graph(
        ["a", "b", "c", "d"],
        ["note"] * 4,
        ["A", "B", "C", "D"],
        np.array([[0, 1], [2, 0]]),
        positions,
        fit=False,
    )
    canvas.set_main(np.array([True, True, True, False]))
    canvas.fit()
    (x0, x1), (y0, y1) = canvas.view_box().viewRange()
    assert x0 < 0 and x1 > 10 and y0 < 0 and y1 > 10
    assert x1 < 100 and y1 < 100  # d, far out, is not in the frame
