"""The tagging preview on real files: accept and reject mentions, apply, undo; every
expected byte is written out by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem
from pytestqt.qtbot import QtBot

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.services.tagging import TaggingService
from librarian_gui.ui.tagging.view import TaggingView
from tests.conftest import write
from tests.qt.rows import rows_made_by_python

CONCEPTS = (
    Concept("prompt-injection", ("prompt injection",), "security"),
    Concept("sandboxing", ("sandbox", "sandboxing"), "security"),
    Concept("least-privilege", ("least privilege",), "security"),
)
ORIGINAL = {
    "a.md": b"# Notes\n\nA prompt injection hides in a sandbox.\n",
    "crlf.md": b"Run it in a sandbox.\r\nNo prompt injection here.\r\n",
    "bom.md": b"\xef\xbb\xbfleast privilege first\n",
    "table.md": b"| Risk | Fix |\n|---|---|\n| prompt injection | sandbox |\n",
    "linked.md": b"See [[sandboxing]]; a sandbox again.\n",  # linked already: first mention only
    "MEMORY.md": b"prompt injection\n",  # the index note, left out by default
    "bad.md": b"a prompt injection \xff\n",  # not UTF-8: listed, never edited
}
ALL_LINKED = {
    "a.md": (
        b"# Notes\n\nA [[prompt-injection|prompt injection]] hides in a [[sandboxing|sandbox]].\n"
    ),
    "crlf.md": (
        b"Run it in a [[sandboxing|sandbox]].\r\nNo [[prompt-injection|prompt injection]] here.\r\n"
    ),
    "bom.md": b"\xef\xbb\xbf[[least-privilege|least privilege]] first\n",
    "table.md": (
        b"| Risk | Fix |\n|---|---|\n"
        b"| [[prompt-injection\\|prompt injection]] | [[sandboxing\\|sandbox]] |\n"
    ),
}
CHANGED = (
    "changed on disk since Librarian read it; nothing was written. "
    "Look at the note again and retry."
)


@pytest.fixture
def view(qtbot: QtBot, vault: Path) -> Iterator[TaggingView]:
    for rel, data in ORIGINAL.items():
        write(vault, rel, data)
    widget = TaggingView(vault, TaggingService(vault))
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.set_concepts(CONCEPTS)
    widget.set_notes(sorted(ORIGINAL))
    widget.show()
    yield widget
    widget.service.close()


def on_disk(vault: Path) -> dict[str, bytes]:
    return {rel: (vault / rel).read_bytes() for rel in ORIGINAL}


def preview(view: TaggingView, qtbot: QtBot) -> None:
    with qtbot.waitSignal(view.previewed, timeout=10_000):
        view.preview_button.click()


def apply(view: TaggingView, qtbot: QtBot) -> object:
    assert view.apply_button.isEnabled()
    with qtbot.waitSignal(view.applied, timeout=10_000) as blocker:
        view.apply_button.click()
    return blocker.args[0]


def undo(view: TaggingView, qtbot: QtBot) -> object:
    with qtbot.waitSignal(view.undone, timeout=10_000) as blocker:
        view.undo_button.click()
    return blocker.args[0]


def mention(view: TaggingView, rel: str, concept: str) -> QModelIndex:
    model = view.model
    for row in range(model.rowCount()):
        note = model.index(row, 0)
        if model.note(row).rel == rel:
            for i, occ in enumerate(model.note(row).occurrences):
                if occ.concept == concept:
                    return model.index(i, 0, note)
    raise LookupError((rel, concept))


def note_index(view: TaggingView, rel: str) -> QModelIndex:
    return next(
        view.model.index(r, 0)
        for r in range(view.model.rowCount())
        if view.model.note(r).rel == rel
    )


def toggle(view: TaggingView, qtbot: QtBot, index: QModelIndex) -> None:
    """As the user does it from the keyboard: select the row, press Space."""
    view.tree.setCurrentIndex(index)
    qtbot.keyClick(view.tree, Qt.Key.Key_Space)


def cell(table: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    item = table.item(row, column)
    assert item is not None
    return item


def table_rows(view: TaggingView) -> list[tuple[str, str, str, Qt.CheckState]]:
    """The counts table as shown: concept, accepted, found, the concept's box."""
    t = view.counts
    return [
        (
            cell(t, r, 0).text(),
            cell(t, r, 1).text(),
            cell(t, r, 2).text(),
            cell(t, r, 0).checkState(),
        )
        for r in range(t.rowCount())
    ]


def test_a_rejected_mention_stays_plain_and_the_rest_is_written_byte_exact(
    view: TaggingView, qtbot: QtBot, vault: Path
) -> None:
    preview(view, qtbot)
    assert [view.model.note(r).rel for r in range(view.model.rowCount())] == [
        "a.md",
        "bom.md",
        "crlf.md",
        "table.md",
    ]
    assert view.model.index(0, 0).data() == "a.md  (2)"
    assert view.model.index(0, 0, view.model.index(0, 0)).data() == (
        "line 3: A «prompt injection» hides in a sandbox. → [[prompt-injection|prompt injection]]"
    )
    assert view.report.toPlainText() == (
        "Not read (1):\nbad.md — is not valid UTF-8 (first bad byte at offset 19); Librarian "
        "does not edit it, so no byte of it is lost. Convert it to UTF-8 to edit it here."
    )
    assert view.summary.text() == (
        "Accepting 7 of 7 mentions of 3 concepts in 4 notes; 6 notes read."
    )

    toggle(view, qtbot, mention(view, "a.md", "sandboxing"))
    assert view.model.index(0, 0).data() == "a.md  (1 of 2)"
    assert view.summary.text() == (
        "Accepting 6 of 7 mentions of 3 concepts in 4 notes; 6 notes read."
    )
    assert view.accepted() == {
        "a.md": frozenset({0}),
        "bom.md": frozenset({0}),
        "crlf.md": frozenset({0, 1}),
        "table.md": frozenset({0, 1}),
    }
    entry = apply(view, qtbot)

    assert on_disk(vault) == {
        **ORIGINAL,
        **ALL_LINKED,
        "a.md": b"# Notes\n\nA [[prompt-injection|prompt injection]] hides in a sandbox.\n",
    }
    assert entry.written == ("a.md", "bom.md", "crlf.md", "table.md")  # type: ignore[attr-defined]
    assert view.summary.text() == "Linked 6 mentions in 4 notes."
    assert view.report.isHidden()
    assert view.model.rowCount() == 0
    assert not view.apply_button.isEnabled()


def test_undo_last_run_gives_every_note_its_original_bytes(
    view: TaggingView, qtbot: QtBot, vault: Path
) -> None:
    preview(view, qtbot)
    apply(view, qtbot)
    assert on_disk(vault) == {**ORIGINAL, **ALL_LINKED}

    result = undo(view, qtbot)

    assert on_disk(vault) == ORIGINAL
    assert result.restored == ("a.md", "bom.md", "crlf.md", "table.md")  # type: ignore[attr-defined]
    assert view.summary.text() == "Undid the last tagging run: restored 4 notes."
    view.undo_button.click()  # nothing left to undo: said, not raised
    qtbot.waitUntil(lambda: view.summary.text() == "Nothing undone: no tagging run to undo.")
    assert on_disk(vault) == ORIGINAL


def test_a_note_edited_between_preview_and_apply_is_skipped_with_the_reason(
    view: TaggingView, qtbot: QtBot, vault: Path
) -> None:
    preview(view, qtbot)
    edited = b"Run it in a sandbox.\r\nEdited meanwhile: prompt injection.\r\n"
    write(vault, "crlf.md", edited)

    entry = apply(view, qtbot)

    assert on_disk(vault) == {**ORIGINAL, **ALL_LINKED, "crlf.md": edited}
    assert entry.skipped == (("crlf.md", CHANGED),)  # type: ignore[attr-defined]
    assert view.summary.text() == "Linked 5 mentions in 3 notes. 1 skipped (below)."
    assert view.report.toPlainText() == f"Skipped, not written (1):\ncrlf.md — {CHANGED}"


def test_counts_per_concept_and_the_diff_follow_the_checkboxes(
    view: TaggingView, qtbot: QtBot
) -> None:
    preview(view, qtbot)
    checked = Qt.CheckState.Checked
    assert table_rows(view) == [
        ("prompt-injection", "3", "3", checked),
        ("sandboxing", "3", "3", checked),
        ("least-privilege", "1", "1", checked),
    ]
    assert rows_made_by_python(view.counts) == []
    assert view.concept_counts() == {
        "prompt-injection": (3, 3),
        "sandboxing": (3, 3),
        "least-privilege": (1, 1),
    }

    toggle(view, qtbot, mention(view, "a.md", "sandboxing"))
    partly = Qt.CheckState.PartiallyChecked
    assert table_rows(view)[1] == ("sandboxing", "2", "3", partly)
    view.tree.setCurrentIndex(note_index(view, "a.md"))
    qtbot.waitUntil(
        lambda: (
            view.diff.toPlainText() == "--- a/a.md\n+++ b/a.md\n@@ -2,2 +2,2 @@\n \n"
            "-A prompt injection hides in a sandbox.\n"
            "+A [[prompt-injection|prompt injection]] hides in a sandbox."
        )
    )
    assert view.diff_title.text() == "a.md · 1 of 2 mentions"

    toggle(view, qtbot, note_index(view, "crlf.md"))  # the note's box: all its mentions
    assert view.model.index(2, 0).data() == "crlf.md  (0 of 2)"
    assert view.concept_counts() == {
        "prompt-injection": (2, 3),
        "sandboxing": (1, 3),
        "least-privilege": (1, 1),
    }
    cell(view.counts, 1, 0).setCheckState(Qt.CheckState.Unchecked)  # a concept's box
    unchecked = Qt.CheckState.Unchecked
    assert table_rows(view) == [
        ("prompt-injection", "2", "3", partly),
        ("sandboxing", "0", "3", unchecked),
        ("least-privilege", "1", "1", checked),
    ]
    view.reject_all.click()
    assert [row[1] for row in table_rows(view)] == ["0", "0", "0"]
    assert not view.apply_button.isEnabled()
    view.accept_all.click()
    assert [row[1] for row in table_rows(view)] == ["3", "3", "1"]
    assert view.apply_button.isEnabled()

    where = view.tree.visualRect(mention(view, "table.md", "sandboxing")).center()
    with qtbot.waitSignal(view.note_activated) as blocker:
        # QTest's double click alone leaves the view without a pressed row: click first.
        qtbot.mouseClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=where)
        qtbot.mouseDClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert blocker.args == ["table.md"]


def test_undo_refuses_a_note_changed_after_apply_and_restores_the_others(
    view: TaggingView, qtbot: QtBot, vault: Path
) -> None:
    preview(view, qtbot)
    apply(view, qtbot)
    edited = b"| Risk | Remedy |" + ALL_LINKED["table.md"][len(b"| Risk | Fix |") :]
    write(vault, "table.md", edited)

    result = undo(view, qtbot)

    reason = "changed since this write; left alone so no edit is lost"
    assert result.refused == (("table.md", reason),)  # type: ignore[attr-defined]
    assert on_disk(vault) == {**ORIGINAL, "table.md": edited}
    assert view.summary.text() == (
        "Undid the last tagging run: restored 3 notes. 1 refused (below)."
    )
    assert view.report.toPlainText() == f"Refused, left as they are (1):\ntable.md — {reason}"


def test_undo_keeps_a_row_appended_after_apply(
    view: TaggingView, qtbot: QtBot, vault: Path
) -> None:
    preview(view, qtbot)
    apply(view, qtbot)
    row = b"| least privilege | review |\n"
    write(vault, "table.md", ALL_LINKED["table.md"] + row)

    result = undo(view, qtbot)

    assert result.refused == ()  # type: ignore[attr-defined]
    assert on_disk(vault) == {**ORIGINAL, "table.md": ORIGINAL["table.md"] + row}


def test_a_newer_preview_replaces_one_still_running(view: TaggingView, qtbot: QtBot) -> None:
    shown: list[object] = []
    view.previewed.connect(shown.append)
    view.all_mentions.setChecked(True)
    with qtbot.waitSignal(view.previewed, timeout=10_000):
        view.preview(["least-privilege"])
        view.preview(["sandboxing"])
    assert len(shown) == 1
    assert view.concept_counts() == {"sandboxing": (4, 4)}  # linked.md's second mention too
    assert view.concept_filter.currentText() == "sandboxing"
    assert view.heading.text() == "sandboxing · all mentions"


def test_a_long_path_is_cut_in_the_middle_and_never_widens_the_view(
    qtbot: QtBot, vault: Path
) -> None:
    deep = "/".join(f"folder-number-{n}" for n in range(12)) + "/a very long note name.md"
    write(vault, deep, b"A prompt injection.\n")
    widget = TaggingView(vault, TaggingService(vault))
    qtbot.addWidget(widget)
    widget.resize(1000, 600)
    widget.set_concepts(CONCEPTS)
    widget.set_notes([deep])
    widget.show()
    try:
        least = widget.minimumSizeHint().width()
        preview(widget, qtbot)
        widget.tree.setCurrentIndex(note_index(widget, deep))
        full = f"{deep} · 1 of 1 mention"
        qtbot.waitUntil(lambda: widget.diff_title.toolTip() == full)
        shown = widget.diff_title.text()
        # the folder's start and the note's name stay, and the count whole
        assert shown.startswith("folder-number-0/")
        assert shown.endswith("/a very long note name.md · 1 of 1 mention")
        assert "…" in shown and len(shown) < len(full)
        assert widget.minimumSizeHint().width() == least
        assert widget.width() == 1000
    finally:
        widget.service.close()


def test_no_dictionary_and_no_index_note_say_so_and_start_nothing(
    qtbot: QtBot, vault: Path
) -> None:
    """Issue 28: with no dictionary a preview never answered (--screenshot --view
    tagging-preview waited 120 s), and "Include index note (MEMORY.md)" was offered in a
    vault without one."""
    write(vault, "a.md", "A prompt injection.\n")
    widget = TaggingView(vault, TaggingService(vault))
    qtbot.addWidget(widget)
    widget.set_notes(["a.md"])
    widget.show()
    try:
        assert widget.preview() is False
        assert widget.summary.text().startswith("This vault has no concept dictionary")
        assert widget.heading.text() == "Nothing to preview"
        assert widget.include_index.isHidden()
        widget.set_notes(["a.md", "MEMORY.md"])
        assert not widget.include_index.isHidden()
        widget.set_concepts(CONCEPTS)
        with qtbot.waitSignal(widget.previewed, timeout=10_000):
            assert widget.preview() is True
    finally:
        widget.service.close()
