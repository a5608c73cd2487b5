"""The Index note tab in the window, on the vault of tests/index_vault.py: the findings
known by hand, a click opens the note (or the index note at the line), and Fix shows the
diff, writes exactly those bytes through the journal, and Edit → Undo takes them back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from librarian_gui.ui.index_note.pane import DATED, DEAD, TEXT, UNLISTED, IndexNotePane
from librarian_gui.ui.window.main_window import MainWindow
from tests.index_vault import APPENDED, LONG, write_index_vault
from tests.windows import MakeWindow

# The window has no exclude patterns: the template is not listed either, and gets an entry.
TEMPLATE_ENTRY = "## templates/\n\n- [[daily]] — {{date}}\n\n"
APPENDED_ALL = APPENDED.replace("## topics/", TEMPLATE_ENTRY + "## topics/")


def _pane(qtbot: QtBot, win: MainWindow) -> IndexNotePane:
    pane = win.index_note.pane
    qtbot.waitUntil(lambda: pane.health is not None, timeout=20_000)
    return pane


def _click(qtbot: QtBot, pane: IndexNotePane, group: int, row: int) -> None:
    parent = pane.group(group)
    rect = pane.tree.visualItemRect(parent.child(row))
    qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_pane_lists_the_findings_and_a_click_opens(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    write_index_vault(vault)
    win = window_on(vault)
    win.show_view("index-health")
    pane = _pane(qtbot, win)
    assert win.centre.currentWidget() is pane
    assert pane.rows(UNLISTED) == [
        "old",
        "2023_05_14",
        "2023_05_15",
        "a#b",
        "omega",
        "delta",
        "daily",
        "epsilon",
    ]
    assert pane.rows(DEAD) == ["line 11: [[Missing Note]]"]
    assert pane.rows(TEXT) == [f"line 15: {len(LONG)} characters"]
    assert pane.rows(DATED) == [
        "diary/  ·  3 notes  ·  listed",
        "journal/  ·  2 notes  ·  not listed",
        "logs/  ·  2 notes  ·  listed",
    ]
    assert "19 lines" in pane.figures.text() and "9 of 17 notes listed" in pane.figures.text()
    assert pane.fix_button.isEnabled()
    assert win.session is not None
    with qtbot.waitSignal(win.place_rendered, timeout=10_000):
        _click(qtbot, pane, UNLISTED, 4)
    assert win.session.current is not None and win.session.current.node == "omega.md"
    assert win.centre.currentWidget() is win.preview_split  # where the note is shown
    win.show_view("index-health")
    with qtbot.waitSignal(win.place_rendered, timeout=10_000):
        _click(qtbot, pane, DEAD, 0)
    place = win.session.current
    assert place is not None and (place.node, place.line) == ("MEMORY.md", 11)


def test_fix_shows_the_diff_writes_and_undo_restores(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    before = write_index_vault(vault, newline="\r\n", bom=True)
    win = window_on(vault)
    pane = _pane(qtbot, win)
    tab = win.index_note
    assert tab.service is not None and win.session is not None
    with qtbot.waitSignal(tab.service.fix_planned, timeout=10_000):
        qtbot.mouseClick(pane.fix_button, Qt.MouseButton.LeftButton)
    dialog = tab.dialog
    assert dialog.isVisible()
    shown = dialog.diff.toPlainText()
    assert "+- [[omega]] — The last letter." in shown
    assert "+- [journal/](journal/) — 2 dated notes, 2023-05-14 to 2023-05-15" in shown
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    added = APPENDED_ALL.replace("\n", "\r\n").encode("utf-8")
    assert (vault / "MEMORY.md").read_bytes() == before + added
    # The write reaches the index like any other: nothing left unlisted.
    qtbot.waitUntil(lambda: pane.rows(UNLISTED) == ["Every note is listed."], timeout=20_000)
    assert not pane.fix_button.isEnabled()
    assert win.undo_action.isEnabled()
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        win.undo_action.trigger()
    assert (vault / "MEMORY.md").read_bytes() == before
    qtbot.waitUntil(lambda: len(pane.rows(UNLISTED)) == 8, timeout=20_000)


def test_fix_refused_when_the_index_changed_and_cancel_writes_nothing(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    write_index_vault(vault)
    win = window_on(vault)
    pane = _pane(qtbot, win)
    tab = win.index_note
    assert tab.service is not None and win.session is not None
    with qtbot.waitSignal(tab.service.fix_planned, timeout=10_000):
        pane.fix_button.click()
    tab.dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert not tab.dialog.isVisible() and not win.undo_action.isEnabled()
    with qtbot.waitSignal(tab.service.fix_planned, timeout=10_000):
        pane.fix_button.click()
    theirs = b"# Rewritten by the agent\n"
    (vault / "MEMORY.md").write_bytes(theirs)
    with qtbot.waitSignal(win.session.message, timeout=10_000) as said:
        tab.dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert str(said.args[0]).startswith("Index note not fixed: MEMORY.md")
    assert "changed on disk" in str(said.args[0])
    assert (vault / "MEMORY.md").read_bytes() == theirs


def test_leave_out_patterns_and_another_index_note_are_kept_per_vault(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    write_index_vault(vault)
    win = window_on(vault)
    pane = _pane(qtbot, win)
    tab = win.index_note
    assert tab.service is not None
    assert (pane.index_edit.text(), pane.exclude_edit.text()) == ("MEMORY.md", "")
    with qtbot.waitSignal(tab.service.health_found, timeout=10_000):
        pane.exclude_edit.setText(" templates ,, archive/* ")
        pane.exclude_edit.editingFinished.emit()
    assert pane.exclude_edit.text() == "templates, archive/*"
    assert pane.rows(UNLISTED) == ["2023_05_14", "2023_05_15", "a#b", "omega", "delta", "epsilon"]
    assert "(2 excluded)" in pane.figures.text()
    assert tab.settings.index_excludes(vault) == ("templates", "archive/*")
    with qtbot.waitSignal(tab.service.health_found, timeout=10_000):
        pane.index_edit.setText("hub/Index")
        pane.index_edit.editingFinished.emit()
    assert pane.index_edit.text() == "hub/Index.md"
    assert "hub/Index.md</b> does not exist" in pane.figures.text()
    assert tab.settings.index_note(vault, "MEMORY.md") == "hub/Index.md"
    with qtbot.waitSignal(tab.service.health_found, timeout=10_000):
        pane.index_edit.setText("../outside")
        pane.index_edit.editingFinished.emit()
    assert pane.index_edit.text() == "MEMORY.md"


def test_a_missing_index_note_is_created_and_undo_removes_it(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    (vault / "a.md").write_text("# Alpha\n")
    win = window_on(vault)
    pane = _pane(qtbot, win)
    tab = win.index_note
    assert tab.service is not None and win.session is not None
    assert "MEMORY.md</b> does not exist" in pane.figures.text()
    with qtbot.waitSignal(tab.service.fix_planned, timeout=10_000):
        pane.fix_button.click()
    assert tab.dialog.summary.text().startswith("Create <b>MEMORY.md</b> with 1 entry")
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        tab.dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert (vault / "MEMORY.md").read_text() == "# MEMORY\n\n## Notes\n\n- [[a]] — Alpha\n"
    qtbot.waitUntil(lambda: pane.health is not None and pane.health.exists, timeout=20_000)
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        win.undo_action.trigger()
    assert not (vault / "MEMORY.md").exists()


def test_a_hidden_pane_lays_out_its_rows_when_it_comes_into_sight(qtbot: QtBot) -> None:
    """A check handed to the pane while it is out of sight (another tab) shows its figures at
    once and lays out its rows when the pane is shown; asking for a group lays them out too."""
    from librarian_gui.core.insight.index_note import IndexNoteHealth

    pane = IndexNotePane()
    qtbot.addWidget(pane)
    pane.show_health(IndexNoteHealth("MEMORY.md", True, lines=3, notes=3, unlisted=("a.md",)))
    assert "3 lines" in pane.figures.text()
    assert pane.tree.topLevelItem(UNLISTED).text(0) == "Not listed"  # not laid out yet
    pane.show()
    qtbot.waitExposed(pane)
    assert pane.tree.topLevelItem(UNLISTED).text(0) == "Not listed  (1)"
    pane.hide()
    pane.show_health(IndexNoteHealth("MEMORY.md", True, notes=3, unlisted=("a.md", "b.md")))
    assert pane.tree.topLevelItem(UNLISTED).text(0) == "Not listed  (1)"
    assert pane.group(UNLISTED).text(0) == "Not listed  (2)"
    assert pane.rows(UNLISTED) == ["a", "b"]
