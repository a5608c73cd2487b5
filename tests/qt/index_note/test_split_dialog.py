"""Split into a library, in the window: the Index note tab lists a dump, Split previews the
plan, unticking a section keeps it, confirming writes one journal entry, Edit → Undo takes
it back, and a dump rewritten meanwhile is refused with a fresh plan shown."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from librarian_gui.core.writing.journal import Journal
from librarian_gui.ui.index_note.pane import DUMPS, IndexNotePane
from librarian_gui.ui.index_note.split_dialog import SplitDialog
from librarian_gui.ui.window.index_note_tab import IndexNoteTab
from librarian_gui.ui.window.main_window import MainWindow
from tests.windows import MakeWindow

LINE = "the agent kept a note about the crawler and its queue\n"


def write_dump(vault: Path) -> bytes:
    """Six dated days and two topics of 80 lines each: past every limit of a dump (200
    lines, 25 KB, 6,400 tokens)."""
    days = "".join(f"## 2024-05-0{day}\n{LINE * 80}\n" for day in range(1, 7))
    topics = f"## Crawler\n{LINE * 80}\n## Queue\n{LINE * 80}\n"
    data = f"# Memory\n\nWhat the agent keeps.\n\n{days}{topics}".encode()
    (vault / "MEMORY.md").write_bytes(data)
    return data


def _pane(qtbot: QtBot, win: MainWindow) -> IndexNotePane:
    pane = win.index_note.pane
    qtbot.waitUntil(lambda: pane.health is not None, timeout=20_000)
    return pane


def _planned(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> tuple[IndexNoteTab, SplitDialog]:
    """A window on the dump of ``write_dump``, its split planned and shown."""
    write_dump(vault)
    win = window_on(vault)
    pane = _pane(qtbot, win)
    tab = win.index_note
    assert tab.service is not None and win.session is not None
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        pane.split_button.click()
    return tab, tab.split_dialog


def test_split_previews_writes_and_undo_restores(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    before = write_dump(vault)
    win = window_on(vault)
    win.show_view("index-health")
    pane = _pane(qtbot, win)
    assert pane.rows(DUMPS) == ["MEMORY  ·  660 lines  ·  8 sections"]
    assert pane.split_button.isEnabled()
    tab = win.index_note
    assert tab.service is not None and win.session is not None
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        qtbot.mouseClick(pane.split_button, Qt.MouseButton.LeftButton)
    dialog = tab.split_dialog
    assert dialog.isVisible()
    assert dialog.rows() == [
        *((True, f"{day}. 2024-05-0{day}", f"logs/2024-05-0{day}.md") for day in range(1, 7)),
        (True, "7. Crawler", "notes/Crawler.md"),
        (True, "8. Queue", "notes/Queue.md"),
    ]
    # keep "Queue" in the note: a fresh plan says so
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        dialog.sections.topLevelItem(7).setCheckState(0, Qt.CheckState.Unchecked)
    assert dialog.rows()[7] == (False, "8. Queue", "stays in MEMORY.md")
    index_text = dialog.index_text.toPlainText()
    assert index_text.startswith(
        "# Memory\n\nWhat the agent keeps.\n\n"
        "- [logs/](logs/) — 6 logs, 2024-05-01 to 2024-05-06\n"
        "- [[notes/Crawler|Crawler]] — the agent kept a note about the crawler and its queue\n"
        "## Queue\n"
    )
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert (vault / "MEMORY.md").read_text() == index_text
    assert (vault / "logs" / "2024-05-03.md").read_text() == f"## 2024-05-03\n{LINE * 80}\n"
    assert not (vault / "notes" / "Queue.md").exists()
    # the journal says the window wrote it (issue 32: provenance)
    assert [dict(e.by) for e in Journal(vault).entries()] == [{"kind": "window"}]
    assert win.undo_action.isEnabled()
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        win.undo_action.trigger()
    assert (vault / "MEMORY.md").read_bytes() == before
    assert not (vault / "logs" / "2024-05-03.md").exists()


def test_a_dump_rewritten_after_the_plan_gets_a_fresh_plan(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    tab, dialog = _planned(vault, window_on, qtbot)
    rewritten = (vault / "MEMORY.md").read_bytes().replace(b"## Queue", b"## Queues")
    (vault / "MEMORY.md").write_bytes(rewritten)
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert (vault / "MEMORY.md").read_bytes() == rewritten  # nothing written
    assert not (vault / "logs").exists()
    assert dialog.isVisible()
    assert "changed since the plan you confirmed: this is a fresh plan" in dialog.summary.text()
    assert dialog.rows()[7] == (True, "8. Queues", "notes/Queues.md")


def test_monthly_logs(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    tab, dialog = _planned(vault, window_on, qtbot)
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        dialog.logs.setCurrentIndex(dialog.logs.findData("month"))
    assert [target for _, _, target in dialog.rows()] == [
        *(["logs/2024-05.md"] * 6),
        "notes/Crawler.md",
        "notes/Queue.md",
    ]
    assert "- [logs/](logs/) — 1 log, 2024-05-01 to 2024-05-06\n" in dialog.index_text.toPlainText()


def test_renaming_a_new_note_merges_sections_sent_to_one(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    tab, dialog = _planned(vault, window_on, qtbot)
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        dialog.sections.topLevelItem(7).setText(2, "projects/Crawler")
    with qtbot.waitSignal(tab.service.split_planned, timeout=10_000):
        dialog.sections.topLevelItem(6).setText(2, "projects/Crawler")
    assert dialog.rows()[6:] == [
        (True, "7. Crawler", "projects/Crawler.md"),
        (True, "8. Queue", "projects/Crawler.md"),
    ]
    plan = dialog.plan
    assert plan is not None
    merged = [t for t in plan.targets if t.path == "projects/Crawler.md"]
    assert [t.sections for t in merged] == [(7, 8)]
