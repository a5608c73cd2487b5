"""Every hostile input in the window, offscreen, with the real watcher and linker thread: the
vault opens, the good notes show with their backlinks, the hostile note (if any) shows a
page instead of freezing the window, and not one byte of the vault changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.core.vault.urls import shown_path
from librarian_gui.ui.window.main_window import MainWindow
from tests.faults.cases import CASES, Case, base_vault, write
from tests.faults.conftest import fingerprint, without_own_files
from tests.windows import MakeWindow

pytestmark = pytest.mark.gui


def show(window: MainWindow, qtbot: QtBot, rel: str) -> str:
    """Open ``rel`` and wait for its page, or for the reason it cannot be shown."""
    session = window.session
    assert session is not None
    answered: list[object] = []
    window.place_rendered.connect(answered.append)
    session.note_missing.connect(lambda rel_, reason: answered.append(reason))
    session.open_note(rel)
    qtbot.waitUntil(lambda: bool(answered), timeout=30_000)
    return window.preview.toPlainText()


WINDOW_CASES = [case for case in CASES if case.window]


@pytest.mark.parametrize("case", WINDOW_CASES, ids=[case.name for case in WINDOW_CASES])
def test_the_window_on_the_hostile_vault(
    hostile: Path, case: Case, qtbot: QtBot, window_on: MakeWindow
) -> None:
    top = hostile.parent
    before = without_own_files(fingerprint(top), hostile)
    window = window_on(hostile)
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=60_000)
    try:
        # The warnings list names each hostile item with the scan's message.
        expected = sorted(
            [shown_path(path) for path, _, _ in case.warnings]
            + (["concepts.json"] if case.dictionary_error is not None else [])
        )
        qtbot.waitUntil(
            lambda: sorted(path for path, _ in window.warnings.rows()) == expected,
            timeout=20_000,
        )
        assert window.warnings_button.isVisible() is bool(expected)
        said = dict(window.warnings.rows())
        for path, _, words in case.warnings:
            assert words in said[shown_path(path)]
        assert "We use RAG here." in show(window, qtbot, "good/A.md")
        qtbot.waitUntil(
            lambda: "Back to" in window.backlinks.linked.browser.toPlainText(), timeout=20_000
        )
        if case.note is not None:
            assert show(window, qtbot, case.note).strip()
        if case.undo_error is not None:  # Edit → Undo says why, and undoes nothing
            session = window.session
            assert session is not None
            told: list[str] = []
            session.message.connect(told.append)
            with qtbot.waitSignal(session.write_finished, timeout=20_000):
                session.undo_last()
            assert case.undo_error in told[-1]
    finally:
        window.close()  # before the check: a window closing must write nothing either
    assert without_own_files(fingerprint(top), hostile) == before


def test_a_burst_of_2000_files_at_once_reaches_the_window(
    tmp_path: Path, qtbot: QtBot, window_on: MakeWindow
) -> None:
    """A git checkout's storm of events: every new note arrives, linked, and nothing else
    in the vault changes."""
    root = tmp_path / "vault"
    root.mkdir()
    base_vault(root)
    before = fingerprint(root)
    window = window_on(root)
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=60_000)
    try:
        assert "We use RAG here." in show(window, qtbot, "good/A.md")
        for n in range(2000):
            write(root, f"burst/n{n:04d}.md", f"note {n} links [[good/A]]\n")
        model = window.model
        assert model is not None

        def all_arrived() -> bool:
            index = model.snapshot()
            return len(index.in_edges.get("good/A.md", {})) == 2001  # good/B and 2,000

        qtbot.waitUntil(all_arrived, timeout=60_000)
        # The open note's backlinks follow: one linking line in each of 2,001 notes.
        header = window.backlinks.linked.header
        qtbot.waitUntil(
            lambda: header.text() == "Linked mentions (2001 in 2001 notes)", timeout=30_000
        )
    finally:
        window.close()
    after = fingerprint(root)
    assert {p: v for p, v in after.items() if b"/burst" not in p} == before
