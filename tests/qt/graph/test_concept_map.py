"""The graph tab's concept map on a small vault: built on a job when its mode is chosen,
hover lights exactly the co-occurring concepts with their counts, a click opens the concept's
page, the threshold hides exactly the weaker edges (remembered), the never-linked stand apart,
and a new note rebuilds the map."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from librarian_gui.services.settings import Settings
from librarian_gui.ui.graph.concept_map import ConceptMapView
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write

DICTIONARY = {
    "alpha": {"aliases": ["Alpha"], "category": "greek"},
    "beta": {"aliases": ["B-thing"], "category": "greek"},
    "gamma": {"aliases": [], "category": "letters"},
    "delta": {"aliases": ["Delta Note"]},
    "epsilon": {"aliases": ["Epsilon"], "category": "greek"},
}
# As tests/unit/insight/test_concept_map.py works out: found in alpha 2, beta 4, gamma 2,
# delta 1, epsilon 0; edges (rows) alpha+gamma, beta+delta, alpha+beta, beta+gamma, each one
# note shared; Jaccard 1/3, 1/4, 1/5, 1/5; lift 1.75, 1.75, 0.875, 0.875.
ALPHA, BETA, GAMMA, DELTA, EPSILON = range(5)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def window(vault: Path, settings: Settings, qtbot: QtBot) -> Iterator[MainWindow]:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "MEMORY.md", "[[alpha]] [[beta]] [[gamma]] [[delta]] [[epsilon]]\n")
    write(vault, "alpha.md", "The note of alpha; see [[beta]].\n")
    write(vault, "Delta Note.md", "The note of delta.\n")
    write(vault, "n1.md", "[[alpha]] and [[beta]]\n")
    write(vault, "n2.md", "[[alpha]] and [[gamma]]\n")
    write(vault, "n3.md", "[[beta]] and [[gamma]]\n")
    write(vault, "n4.md", "[[Delta Note]] and [[beta]]\n")
    write(vault, "n5.md", "Epsilon is mentioned here, never linked.\n")
    win = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.resize(1300, 820)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    assert win.graph_service is not None
    with qtbot.waitSignal(win.graph_service.positions_ready, timeout=30_000):
        win.show_view("graph")  # the tab is built when first shown
    maps = win.graph_service.concept_map
    with qtbot.waitSignal(maps.map_ready, timeout=30_000):
        win.graph.mode.setCurrentIndex(win.graph.mode.findData("conceptmap"))
    yield win
    win.close()


def _map_view(window: MainWindow) -> ConceptMapView:
    return window.graph.concept_map


def _point_of(view: ConceptMapView, row: int) -> QPoint:
    QApplication.processEvents()  # a pending resize would move the camera after this
    x, y = view.canvas.positions[row]
    scene = view.canvas.view_box().mapViewToScene(QPointF(float(x), float(y)))
    return view.canvas.mapFromScene(scene)


def _hover(qtbot: QtBot, view: ConceptMapView, row: int) -> None:
    """The pointer moved over ``row``'s dot: mouse moves sent to the viewport until the
    canvas has one (pyqtgraph's scene drops moves closer than 1/60 s to the last)."""
    point = QPointF(_point_of(view, row))
    viewport = view.canvas.viewport()
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        point,
        QPointF(viewport.mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )

    def over() -> None:
        QApplication.sendEvent(viewport, move)
        assert view.canvas.hovered == row

    qtbot.waitUntil(over, timeout=5_000)


def test_the_map_mode_shows_every_concept_and_hides_the_graphs_controls(
    window: MainWindow,
) -> None:
    view = _map_view(window)
    assert view.isVisible() and view.controls.isVisible()
    assert not window.graph.canvas.isVisible()
    assert not window.graph.pause.isVisible() and not window.graph.depth_box.isVisible()
    assert view.canvas.names == ["alpha", "beta", "gamma", "delta", "epsilon"]
    assert window.graph_service is not None and window.graph_service.concept_map.active


def test_never_linked_concepts_stand_apart_and_marked(window: MainWindow) -> None:
    view = _map_view(window)
    positions = view.canvas.positions
    assert positions[EPSILON, 0] > positions[:EPSILON, 0].max()
    assert view.canvas.dimmed().tolist() == [False, False, False, False, True]
    assert view.canvas._caption.textItem.toPlainText() == "Never linked (1)"


def test_hovering_a_concept_lights_exactly_its_partners_with_counts(
    window: MainWindow, qtbot: QtBot
) -> None:
    view = _map_view(window)
    canvas = view.canvas
    _hover(qtbot, view, BETA)
    # beta shares a note with alpha, gamma and delta; not with epsilon.
    assert canvas.dimmed().tolist() == [False, False, False, False, True]
    lit = [(row, text) for row, text, bright, _always in canvas.label_order() if bright]
    assert lit[:4] == [
        (BETA, "beta"),
        (ALPHA, "alpha · 1"),
        (GAMMA, "gamma · 1"),
        (DELTA, "delta · 1"),
    ]
    _hover(qtbot, view, DELTA)
    assert canvas.dimmed().tolist() == [True, False, True, False, True]  # delta: beta only


def test_clicking_a_concept_opens_its_page(window: MainWindow, qtbot: QtBot) -> None:
    view = _map_view(window)
    with qtbot.waitSignal(view.concept_activated) as clicked:
        qtbot.mouseClick(
            view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_point_of(view, GAMMA)
        )
    assert clicked.args == ["//concept/gamma"]
    assert window.session is not None and window.session.current is not None
    assert window.session.current.node == "//concept/gamma"


def test_the_threshold_hides_exactly_the_weaker_edges_and_is_remembered(
    window: MainWindow, settings: Settings, qtbot: QtBot
) -> None:
    view = _map_view(window)
    assert view.chosen_weight() == "lift" and view.threshold.value() == 10  # lift ≥ 1.0
    assert view.shown.tolist() == [True, True, False, False]
    view.threshold.setValue(8)  # lift ≥ 0.8
    assert view.shown.tolist() == [True, True, True, True]
    view.weight.setCurrentIndex(view.weight.findData("jaccard"))
    assert view.threshold.value() == 10  # jaccard ≥ 0.10: its own default
    assert view.shown.tolist() == [True, True, True, True]
    view.threshold.setValue(25)  # jaccard ≥ 0.25: alpha+gamma (1/3) and beta+delta (1/4)
    assert view.shown.tolist() == [True, True, False, False]
    assert view.threshold_label.text() == "≥ 0.25"
    view.threshold.setValue(30)
    assert view.shown.tolist() == [True, False, False, False]
    assert view.canvas.drawn_edges() == 1
    again = ConceptMapView(settings=settings)
    qtbot.addWidget(again)
    assert again.chosen_weight() == "jaccard" and again.threshold.value() == 30
    again.weight.setCurrentIndex(again.weight.findData("lift"))
    assert again.threshold.value() == 8


def test_a_new_note_rebuilds_the_map(window: MainWindow, qtbot: QtBot) -> None:
    assert window.graph_service is not None and window.model is not None
    maps = window.graph_service.concept_map
    with qtbot.waitSignal(maps.map_ready, timeout=20_000) as ready:
        write(window.model.root, "n6.md", "[[epsilon]] with [[delta]]\n")
    cmap = ready.args[0]
    assert cmap.found.tolist() == [2, 4, 2, 2, 1]
    assert not cmap.never_linked.any()
    assert np.array_equal(_map_view(window).canvas.positions, cmap.positions)


def test_edges_drawn_from_a_cache_still_follow_the_threshold(
    window: MainWindow, qtbot: QtBot
) -> None:
    """The edges are cached as pixmaps (panning moves them): a new threshold must draw
    them again, not show the cached ones."""
    view = _map_view(window)
    canvas = view.canvas
    view.threshold.setValue(8)  # all four edges
    qtbot.wait(50)
    canvas.viewport().repaint()
    four = canvas.grab().toImage()
    view.threshold.setValue(30)  # one edge left
    qtbot.wait(50)
    canvas.viewport().repaint()
    one = canvas.grab().toImage()
    assert four != one
    view.threshold.setValue(8)
    qtbot.wait(50)
    canvas.viewport().repaint()
    assert canvas.grab().toImage() == four
