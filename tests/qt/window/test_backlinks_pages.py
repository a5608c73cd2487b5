"""The backlinks pane lays out a long list a page at a time: a note with 540 unlinked
mentions froze the window for 65 ms as it opened. "Show more" doubles what is laid out, and
opening another note starts again from the first page.

The fixture (written here, counted by hand): ``Hub.md``; 130 notes each naming "Hub" on
two lines without a link (260 unlinked mentions); 30 notes each linking ``[[Hub]]`` on 5
lines (150 linked lines in 30 notes, 5 a note, none past the 20 a note shows)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.windows import MakeWindow


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "Hub.md", "# Hub\n\nThe hub note.\n")
    write(root, "Other.md", "# Other\n\nNothing here.\n")
    for i in range(130):
        write(root, f"mention-{i:03}.md", f"# M{i}\n\nFirst Hub line.\n\nSecond Hub line.\n")
    for i in range(30):
        body = "".join(f"Line {j} links [[Hub]].\n\n" for j in range(5))
        write(root, f"link-{i:02}.md", f"# L{i}\n\n{body}")
    return root


@pytest.fixture
def window(vault: Path, window_on: MakeWindow) -> MainWindow:
    return window_on(vault)


def open_note(window: MainWindow, qtbot: QtBot, rel: str) -> None:
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note(rel)


def link_buttons(window: MainWindow) -> int:
    return window.backlinks.unlinked.browser.toHtml().count('href="link:///')


def linked_notes(window: MainWindow) -> int:
    return window.backlinks.linked.browser.toPlainText().count("(5) ")


def more(window: MainWindow, section: str) -> None:
    browser = getattr(window.backlinks, section).browser
    browser.anchorClicked.emit(QUrl(f"more:///{section}"))


def test_long_lists_are_laid_out_a_page_at_a_time(window: MainWindow, qtbot: QtBot) -> None:
    open_note(window, qtbot, "Hub.md")
    pane = window.backlinks
    qtbot.waitUntil(lambda: pane.unlinked_count == 260 and pane.linked_count == 150, timeout=10_000)
    assert pane.unlinked.header.text() == "Unlinked mentions (260 in 130 notes)"
    assert pane.linked.header.text() == "Linked mentions (150 in 30 notes)"
    # Unlinked: 100 mentions, then the link for the 160 others.
    assert link_buttons(window) == 100
    assert "Show more (160 more mentions)" in pane.unlinked.browser.toPlainText()
    # Linked: whole notes until 100 lines are laid out: 20 notes of 5 lines.
    assert linked_notes(window) == 20
    assert "Show more (10 more notes)" in pane.linked.browser.toPlainText()

    more(window, "unlinked")
    assert link_buttons(window) == 200
    assert "Show more (60 more mentions)" in pane.unlinked.browser.toPlainText()
    more(window, "unlinked")
    assert link_buttons(window) == 260
    assert "Show more" not in pane.unlinked.browser.toPlainText()
    more(window, "linked")
    assert linked_notes(window) == 30
    assert "Show more" not in pane.linked.browser.toPlainText()

    # The Link button of a mention past the first page still links that mention.
    assert window.backlinks._mentions[150].source == "mention-075.md"

    # Another note and back: the first page again.
    open_note(window, qtbot, "Other.md")
    open_note(window, qtbot, "Hub.md")
    # Both lists come back, each in its own time: wait for both.
    qtbot.waitUntil(lambda: pane.unlinked_count == 260 and pane.linked_count == 150, timeout=10_000)
    assert link_buttons(window) == 100
    assert linked_notes(window) == 20


def test_a_live_update_keeps_the_pages_shown(window: MainWindow, qtbot: QtBot, vault: Path) -> None:
    open_note(window, qtbot, "Hub.md")
    pane = window.backlinks
    qtbot.waitUntil(lambda: pane.unlinked_count == 260, timeout=10_000)
    more(window, "unlinked")
    assert link_buttons(window) == 200
    write(vault, "mention-new.md", "# New\n\nA Hub line.\n")
    qtbot.waitUntil(lambda: pane.unlinked_count == 261, timeout=10_000)
    assert link_buttons(window) == 200
    assert "Show more (61 more mentions)" in pane.unlinked.browser.toPlainText()
