"""The graph canvas: hover and filter highlights, rings, colours, dragging a node, export, the
cached edge image and labels by degree."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.ui.graph.canvas import SETTLE_MS, GraphCanvas


def _canvas(qtbot: QtBot) -> GraphCanvas:
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(600, 500)
    canvas.show()
    positions = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [50.0, 50.0]])
    edges = np.array([[0, 1], [2, 0]])
    canvas.set_graph(
        ["a", "b", "c", "d"],
        ["note", "note", "concept", "unresolved"],
        ["A", "B", "C", "D"],
        edges,
        positions,
    )
    return canvas


def _scene_pos(canvas: GraphCanvas, x: float, y: float) -> QPointF:
    view = canvas.view_box()
    return view.mapViewToScene(QPointF(x, y))


def test_hover_highlights_the_node_and_its_neighbours(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    hovered: list[str] = []
    canvas.node_hovered.connect(hovered.append)
    canvas.scene().sigMouseMoved.emit(_scene_pos(canvas, 0.0, 0.0))
    assert hovered == ["a"]
    assert canvas._nodes.dimmed.tolist() == [False, False, False, True]  # d: no neighbour
    canvas.grab()
    assert canvas.labelled()[:3] == ["A", "B", "C"]  # the hovered node, then its neighbours
    canvas.scene().sigMouseMoved.emit(_scene_pos(canvas, 30.0, 30.0))  # empty space
    assert hovered == ["a", ""]
    assert canvas._nodes.dimmed.tolist() == [False, False, False, False]


def test_node_at_finds_only_what_is_under_the_pointer(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    assert canvas.node_at(_scene_pos(canvas, 50.0, 50.0)) == 3
    assert canvas.node_at(_scene_pos(canvas, 25.0, 25.0)) == -1


def test_moving_positions_in_place_moves_the_dots(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    moved = canvas.positions + 5.0
    canvas.set_positions(moved)
    assert canvas._nodes.positions.tolist() == [[5.0, 5.0], [15.0, 5.0], [5.0, 15.0], [55.0, 55.0]]


def test_node_colours_replace_the_kind_colours_until_cleared(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    canvas.set_node_colours([(1, 2, 3), (1, 2, 3), (9, 8, 7), (4, 5, 6)])
    assert canvas._nodes.colours.tolist() == [[1, 2, 3], [1, 2, 3], [9, 8, 7], [4, 5, 6]]
    canvas.set_node_colours(None)
    fills = canvas._nodes.colours.tolist()
    assert fills == [[88, 140, 230], [88, 140, 230], [236, 150, 40], [160, 160, 160]]


def test_rings_mark_exactly_the_masked_nodes_and_follow_them(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    canvas.set_rings(np.array([False, False, True, True]))
    assert canvas._nodes.ringed.tolist() == [False, False, True, True]
    canvas.set_positions(canvas.positions + 1.0)
    assert canvas._nodes.ringed.tolist() == [False, False, True, True]  # kept by a step
    canvas.set_rings(None)
    assert canvas._nodes.ringed.tolist() == [False, False, False, False]


def test_highlight_keeps_matches_bright_and_dims_the_rest(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    canvas.set_highlight(np.array([False, True, False, True]))
    assert canvas._nodes.dimmed.tolist() == [True, False, True, False]
    canvas.set_highlight(None)
    assert canvas._nodes.dimmed.tolist() == [False, False, False, False]


def _widget_pos(canvas: GraphCanvas, x: float, y: float) -> QPoint:
    return canvas.mapFromScene(_scene_pos(canvas, x, y))


def test_dragging_a_node_moves_it_and_not_the_view(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    view = canvas.view_box()
    before = view.viewRange()
    dragged: list[tuple[str, float, float]] = []
    released: list[str] = []
    canvas.node_dragged.connect(lambda n, x, y: dragged.append((n, x, y)))
    canvas.node_released.connect(released.append)
    viewport = canvas.viewport()
    start, end = _widget_pos(canvas, 10.0, 0.0), _widget_pos(canvas, 30.0, 20.0)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 11):
        qtbot.mouseMove(viewport, start + (end - start) * step / 10)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    assert dragged and {n for n, _x, _y in dragged} == {"b"}
    _node, x, y = dragged[-1]
    pixel = view.viewPixelSize()[0]
    assert abs(x - 30.0) <= 2 * pixel and abs(y - 20.0) <= 2 * pixel
    assert released == ["b"]
    assert view.viewRange() == before
    assert canvas.positions[1].tolist() == [x, y]


def test_dragging_empty_space_pans_the_view(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    view = canvas.view_box()
    before = view.viewRange()
    dragged: list[str] = []
    canvas.node_dragged.connect(lambda n, _x, _y: dragged.append(n))
    viewport = canvas.viewport()
    start, end = _widget_pos(canvas, 30.0, 30.0), _widget_pos(canvas, 40.0, 35.0)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 11):
        qtbot.mouseMove(viewport, start + (end - start) * step / 10)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    assert dragged == []
    assert view.viewRange() != before


def test_png_export_has_the_widgets_size(qtbot: QtBot, tmp_path: Path) -> None:
    canvas = _canvas(qtbot)
    path = tmp_path / "graph.png"
    assert canvas.export_png(str(path))
    image = QImage(str(path))
    assert (image.width(), image.height()) == (canvas.width(), canvas.height())


def test_svg_export_is_xml_with_the_edges_as_one_path(qtbot: QtBot, tmp_path: Path) -> None:
    canvas = _canvas(qtbot)
    path = tmp_path / "graph.svg"
    assert canvas.export_svg(str(path))
    root = ElementTree.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "<svg" in path.read_text(encoding="utf-8")
    paths = [p.get("d", "") for p in root.iter("{http://www.w3.org/2000/svg}path")]
    assert sum(d.count("M") for d in paths if d.count("M") == 2) >= 2  # the two edges


def test_the_edge_image_is_reused_until_positions_change(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    layer = canvas._edge_layer
    qtbot.waitUntil(layer.is_current, timeout=5_000)
    renders = layer.renders
    canvas.viewport().repaint()
    qtbot.wait(SETTLE_MS * 2)
    assert layer.renders == renders
    assert layer.is_current()
    canvas.set_positions(canvas.positions * 2.0)
    assert not layer.is_current()
    qtbot.waitUntil(layer.is_current, timeout=5_000)
    assert layer.renders == renders + 1


def test_every_node_is_named_when_the_zoom_gives_room_best_connected_first(
    qtbot: QtBot,
) -> None:
    canvas = _canvas(qtbot)
    canvas.grab()  # a paint places the names
    # a has two links, b and c one, d none: the hubs in that order (ties by row).
    assert canvas.labelled() == ["A", "B", "C", "D"]


def test_the_selected_node_is_named_first(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    canvas.select("d")
    canvas.grab()
    assert canvas.labelled() == ["D", "A", "B", "C"]


def test_clicking_a_node_with_the_mouse_emits_its_id(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    activated: list[str] = []
    canvas.node_activated.connect(activated.append)
    viewport = canvas.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_widget_pos(canvas, 0.0, 10.0))
    assert activated == ["c"]
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=_widget_pos(canvas, 30.0, 30.0))
    assert activated == ["c"]  # empty space: nothing opens
    canvas.grab()
    assert canvas.labelled()[0] == "C"  # the clicked node is named first


def test_a_big_graph_is_drawn_whole_in_its_first_paint(qtbot: QtBot) -> None:
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(600, 500)
    canvas.show()
    count = 30_000
    positions = np.column_stack([np.arange(count, dtype=float), np.zeros(count)])
    ids = [f"n{i}" for i in range(count)]
    canvas.set_graph(ids, ["note"] * count, ids, np.array([[0, 1]]), positions)
    assert len(canvas._nodes.positions) == count
    canvas.set_positions(positions + 1.0)
    assert canvas._nodes.positions[:3, 0].tolist() == [1.0, 2.0, 3.0]
    assert canvas._nodes.positions[-1, 0] == float(count)
    canvas.viewport().repaint()  # every dot at once, in one paint
