"""The graph canvas: hover dims all but a node and its neighbours; a click names the node."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF
from pytestqt.qtbot import QtBot

from librarian_gui.ui.graph_canvas import GraphCanvas


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
    view = canvas.getPlotItem().getViewBox()
    return view.mapViewToScene(QPointF(x, y))


def test_hover_highlights_the_node_and_its_neighbours(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    hovered: list[str] = []
    canvas.node_hovered.connect(hovered.append)
    canvas.scene().sigMouseMoved.emit(_scene_pos(canvas, 0.0, 0.0))
    assert hovered == ["a"]
    brushes = canvas._current_brushes()
    bright = [b is canvas._brushes[i] for i, b in enumerate(brushes)]
    assert bright == [True, True, True, False]  # d is no neighbour of a: dimmed
    assert canvas._label.textItem.toPlainText() == "A"
    canvas.scene().sigMouseMoved.emit(_scene_pos(canvas, 30.0, 30.0))  # empty space
    assert hovered == ["a", ""]


def test_node_at_finds_only_what_is_under_the_pointer(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    assert canvas.node_at(_scene_pos(canvas, 50.0, 50.0)) == 3
    assert canvas.node_at(_scene_pos(canvas, 25.0, 25.0)) == -1


def test_moving_positions_in_place_moves_the_spots(qtbot: QtBot) -> None:
    canvas = _canvas(qtbot)
    moved = canvas.positions + 5.0
    canvas.set_positions(moved)
    assert canvas._nodes.data["x"].tolist() == [5.0, 15.0, 5.0, 55.0]
    assert canvas._nodes.data["y"].tolist() == [5.0, 5.0, 15.0, 55.0]
