"""The graph tab on a copy of the demo vault: the layout runs on its thread and settles, a
click opens the note, and a note written outside joins the graph without moving the camera."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from librarian_gui.resources import bundled_demo_vault
from librarian_gui.services.settings import Settings
from librarian_gui.ui.main_window import MainWindow
from tests.conftest import write


@pytest.fixture
def window(tmp_path: Path, qtbot: QtBot) -> Iterator[MainWindow]:
    root = tmp_path / "demo"
    shutil.copytree(bundled_demo_vault(), root)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win = MainWindow(root, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.resize(1300, 820)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    assert win.graph_session is not None
    with qtbot.waitSignal(
        win.graph_session.positions_ready, timeout=30_000, check_params_cb=lambda p, s, r: s
    ):
        win.centre.setCurrentWidget(win.graph)
    yield win
    win.close()


def test_the_graph_shows_notes_concepts_and_ghosts_and_settles(window: MainWindow) -> None:
    ids = set(window.graph.canvas.ids)
    assert window.model is not None
    with window.model.read() as index:
        expected = set(index.notes) | {
            n for n in index.in_edges if n.startswith(("//concept/", "//unresolved/"))
        }
    assert ids == expected
    assert len([n for n in ids if n.startswith("//unresolved/")]) == 4  # the demo's ghosts
    assert "settled" in window.graph.status.text()


def test_clicking_a_node_opens_its_note(window: MainWindow, qtbot: QtBot) -> None:
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.graph.canvas.node_activated.emit("projects/homelab-ops.md")
    assert window.session is not None and window.session.current is not None
    assert window.session.current.node == "projects/homelab-ops.md"
    assert window.centre.currentWidget() is window.preview


def test_a_new_note_joins_the_graph_without_moving_the_camera(
    window: MainWindow, qtbot: QtBot
) -> None:
    view = window.graph.canvas.getPlotItem().getViewBox()
    before = view.viewRange()
    assert window.model is not None
    write(window.model.root, "diary/2026-11-30.md", "Linked to [[MEMORY]] and [[homelab-ops]].\n")
    qtbot.waitUntil(lambda: "diary/2026-11-30.md" in window.graph.canvas.ids, timeout=15_000)
    assert view.viewRange() == before
