"""The Review tab (issue 32 item 2): the desk in the window, a note marked reviewed leaves
it, a change after the mark comes back as its diff, Mark all empties it."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from librarian_gui.core.review.outside import outside_file
from librarian_gui.ui.window.main_window import MainWindow
from tests.windows import MakeWindow


def _desk(qtbot: QtBot, win: MainWindow) -> None:
    qtbot.waitUntil(lambda: win.review.pane.desk is not None, timeout=20_000)


def test_marking_reviewed(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    (vault / "a.md").write_text("# A\nfirst\n")
    (vault / "b.md").write_text("# B\n")
    win = window_on(vault)
    win.show_view("review")
    _desk(qtbot, win)
    pane = win.review.pane
    service = win.review.service
    assert service is not None
    assert sorted(pane.rows()) == [
        ("a", "outside Librarian", "not reviewed"),
        (
            "b",
            "outside Librarian",
            "not reviewed",
        ),
    ]
    # select a.md and mark it reviewed
    group = pane.tree.topLevelItem(0)
    row = next(group.child(k) for k in range(group.childCount()) if group.child(k).text(0) == "a")
    pane.tree.setCurrentItem(row)
    assert "+# A" in pane.diff.toPlainText()
    with qtbot.waitSignal(service.desk_found, timeout=10_000):
        qtbot.mouseClick(pane.mark_button, Qt.MouseButton.LeftButton)
    assert [r[0] for r in pane.rows()] == ["b"]
    # a.md changes again (another program): back, as its diff from the reviewed version
    with open(vault / "a.md", "a", encoding="utf-8") as note:
        note.write("second\n")
    qtbot.waitUntil(lambda: len(pane.rows()) == 2, timeout=20_000)
    assert ("a", "outside Librarian", "+1 −0 lines") in pane.rows()
    # the window's watcher logged it, with the file's time (core/review/outside)
    logged = outside_file(vault).read_text(encoding="utf-8")
    assert [json.loads(line)["note"] for line in logged.splitlines()] == ["a.md"]
    with qtbot.waitSignal(service.desk_found, timeout=10_000):
        qtbot.mouseClick(pane.mark_all_button, Qt.MouseButton.LeftButton)
    assert pane.rows() == []
    assert "every change is reviewed" in pane.summary.text()
