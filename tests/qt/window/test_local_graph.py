"""The docked local graph follows the open note, is built only while shown, opens what is
clicked; the Graph tab opened from a note starts around it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write


@pytest.fixture
def window(tmp_path: Path, qtbot: QtBot) -> Iterator[MainWindow]:
    root = tmp_path / "vault"
    write(root, "A.md", "[[B]]\n")
    write(root, "B.md", "[[C]]\n")
    write(root, "C.md", "end\n")
    write(root, "D.md", "alone\n")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win = MainWindow(root, settings=settings, use_cache=False, open_note="A")
    qtbot.addWidget(win)
    win.resize(1300, 820)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    yield win
    win.close()


def _dock_ids(window: MainWindow) -> list[str]:
    view = window.local_graph.view
    assert view is not None
    return list(view.canvas.ids)


def test_the_dock_follows_the_open_note_and_its_depth(window: MainWindow, qtbot: QtBot) -> None:
    session = window.local_graph_service
    assert session is not None
    with qtbot.waitSignal(session.view_ready, timeout=30_000):
        window.show_view("local-graph")
    assert _dock_ids(window) == ["A.md", "B.md"]
    view = window.local_graph.view
    assert view is not None
    view.canvas.grab()
    assert view.canvas.labelled() == ["A", "B"]  # the note first, then its neighbour
    # The related notes' count follows once the related-notes pass has found them (on a single
    # CPU, sometimes before the dock's first view): the links' part is what this checks.
    assert view.status.text().split(" · ")[:2] == ["1 linked", "2 nodes"]
    assert window.session is not None
    with qtbot.waitSignal(session.view_ready, timeout=10_000):
        window.session.open_note("C.md")
    assert _dock_ids(window) == ["B.md", "C.md"]
    with qtbot.waitSignal(session.view_ready, timeout=10_000):
        view.depth_box.setValue(2)
    assert _dock_ids(window) == ["A.md", "B.md", "C.md"]
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        view.canvas.node_activated.emit("A.md")  # a click on a node opens it
    assert window.session.current is not None and window.session.current.node == "A.md"


def test_the_dock_builds_nothing_while_another_tab_is_in_front(
    window: MainWindow, qtbot: QtBot
) -> None:
    assert window.model is not None and window.session is not None
    jobs: list[str] = []
    window.model.quick_jobs.job_submitted.connect(jobs.append)
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("B.md")
    qtbot.wait(100)
    assert "local-graph" not in jobs
    assert window.local_graph.view is None  # not even made: its modules stay unloaded
    session = window.local_graph_service
    assert session is not None
    with qtbot.waitSignal(session.view_ready, timeout=30_000):
        window.show_view("local-graph")
    assert jobs.count("local-graph") == 1
    assert _dock_ids(window) == ["A.md", "B.md", "C.md"]  # around B, depth 1


def test_the_graph_tab_opened_from_a_note_starts_around_it(
    window: MainWindow, qtbot: QtBot
) -> None:
    assert window.graph_service is not None
    with qtbot.waitSignal(
        window.graph_service.positions_ready, timeout=30_000, check_params_cb=lambda p, s, r: s
    ):
        window.show_view("graph")
    assert window.graph is not None
    assert window.graph.scope()[0] == "local"
    assert sorted(window.graph.canvas.ids) == ["A.md", "B.md"]
    with qtbot.waitSignal(window.graph_service.graph_ready, timeout=30_000):
        window.graph.set_mode("global")  # the next graph built is the whole vault's
    assert sorted(window.graph.canvas.ids) == ["A.md", "B.md", "C.md", "D.md"]


def test_a_view_arriving_after_the_close_is_dropped(window: MainWindow, qtbot: QtBot) -> None:
    """The window closes the dock's canvas (its items deleted); a local view the session
    sent just before is not drawn on it."""
    session = window.local_graph_service
    assert session is not None
    with qtbot.waitSignal(session.view_ready, timeout=30_000) as blocker:
        window.show_view("local-graph")
    late = blocker.args[0]
    view = window.local_graph.view
    assert view is not None
    ids = list(view.canvas.ids)
    window.close()
    window.local_graph._on_session_view_ready(late)
    assert list(view.canvas.ids) == ids
