"""The Review tab's Contradictions page (issue 32 item 4): the candidates listed, the two
passages side by side with their dates, "Newer supersedes older…" previewed, written through
the journal, the pair leaving the list, and Edit → Undo bringing it back."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.windows import MakeWindow

CONCEPTS = {"staging-database": {"aliases": ["staging database"], "category": "decision"}}
OLD = b"---\ndate: 2024-03-01\n---\n# DB\n\nFor the staging database we chose Postgres.\n"
NEW = (
    b"---\ndate: 2024-05-02\n---\n# Diary\n\n"
    b"Revisited the staging database: we chose DuckDB instead.\n"
)


def test_supersede_from_the_page(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    (vault / "concepts.json").write_text(json.dumps(CONCEPTS))
    (vault / "decisions").mkdir()
    (vault / "decisions/db.md").write_bytes(OLD)
    (vault / "diary").mkdir()
    (vault / "diary/2024-05-02.md").write_bytes(NEW)
    win = window_on(vault)
    win.show_view("contradictions")
    page = win.review.contradictions
    qtbot.waitUntil(lambda: bool(page.candidates), timeout=20_000)
    assert page.rows() == [
        (
            "staging-database",
            "chose DuckDB / Postgres",
            "likely (a choice)",
            "2024-05-02  diary/2024-05-02",
            "2024-03-01  decisions/db",
        )
    ]
    assert "candidates, not truths" in page.summary.text()
    newer, older = page.newer.toPlainText(), page.older.toPlainText()
    assert newer.startswith("Newer · 2024-05-02\ndiary/2024-05-02.md, line 6")
    assert "we chose DuckDB instead." in newer
    assert older.startswith("Older · 2024-03-01\ndecisions/db.md, line 6")
    # the mark, previewed: nothing written until Mark
    service = win.review.service
    assert service is not None
    with qtbot.waitSignal(service.supersede_planned, timeout=10_000):
        qtbot.mouseClick(page.supersede_button, Qt.MouseButton.LeftButton)
    dialog = win.review.dialog
    assert dialog.isVisible()
    assert '+supersedes: "[[db]]"' in dialog.diff.toPlainText()
    assert (vault / "diary/2024-05-02.md").read_bytes() == NEW
    session = win.session
    assert session is not None
    with qtbot.waitSignal(session.write_finished, timeout=10_000):
        dialog.buttons.accepted.emit()
    assert (vault / "diary/2024-05-02.md").read_bytes() == NEW.replace(
        b"date: 2024-05-02\n", b'date: 2024-05-02\nsupersedes: "[[db]]"\n'
    )
    qtbot.waitUntil(lambda: page.candidates == [], timeout=20_000)  # settled
    assert "No contradiction candidates" in page.summary.text()
    with qtbot.waitSignal(session.write_finished, timeout=10_000):
        win.undo_action.trigger()
    assert (vault / "diary/2024-05-02.md").read_bytes() == NEW
    qtbot.waitUntil(lambda: len(page.rows()) == 1, timeout=20_000)
