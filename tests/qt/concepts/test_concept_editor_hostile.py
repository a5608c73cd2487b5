"""The concept editor on a dictionary holding lone surrogates: it shows the concepts it
can, says what is wrong where, and refuses a save that would write a surrogate; and on one
too large to read."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.ui.concepts.editor import ConceptEditor
from tests.unit.concepts.test_dictionary_hostile import (
    ALIAS_ISSUE,
    DEEP_LISTS,
    DEEP_MESSAGE,
    FIELD_ISSUE,
    ID_ISSUE,
    SAVE_REFUSED,
    SURROGATES,
)
from tests.unit.concepts.test_dictionary_size import TOO_LARGE, gigabyte

pytestmark = pytest.mark.gui


def test_the_editor_shows_lone_surrogates_and_refuses_to_write_one(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "concepts.json"
    path.write_bytes(SURROGATES)
    editor = ConceptEditor(tmp_path, path)
    qtbot.addWidget(editor)
    editor.show()
    qtbot.waitExposed(editor)
    assert [r.concept.id for r in editor.model.rows] == ["a", "b"]
    assert [r.issues for r in editor.model.rows] == [(ALIAS_ISSUE,), (FIELD_ISSUE,)]
    assert editor.file_issues.isVisible()
    assert editor.file_issues.text() == ID_ISSUE
    editor.select_concept("a")
    assert editor.detail.alias_texts() == ["good alias"]
    editor.detail.category.setEditText("letters")
    editor.detail.category_edit.editingFinished.emit()
    assert editor.dirty
    assert editor.save() is False
    assert editor.message_banner.isVisible()
    assert editor.message_banner.label.text() == (
        "Not saved — " + SAVE_REFUSED  # nothing in it to escape as HTML
    )
    assert path.read_bytes() == SURROGATES


def test_a_dictionary_nested_too_deeply_on_one_line_is_shown_in_a_narrow_excerpt(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "concepts.json"
    path.write_text(DEEP_LISTS, encoding="utf-8")
    editor = ConceptEditor(tmp_path, path)
    qtbot.addWidget(editor)
    editor.resize(1000, 700)
    editor.show()
    qtbot.waitExposed(editor)
    assert editor.document is None
    # The line is 2,018 characters long: the excerpt shows 40 before the column and 40
    # after, not the whole line, and the editor keeps its width.
    start = 115 - 1 - 40
    shown = DEEP_LISTS[start : start + 80]
    assert editor.parse_banner.label.text() == (
        f"<b>concepts.json does not parse: line 1, column 115</b> — {DEEP_MESSAGE}."
        f"<pre>    1 │ …{shown}…\n      │ {' ' * 41}^</pre>"
        f"Fix {tmp_path / 'concepts.json'} in a text editor, then Reload. Librarian will not "
        "write over it while it is broken."
    )
    assert editor.width() == 1000


def test_a_gigabyte_dictionary_is_not_read_and_says_why(qtbot: QtBot, tmp_path: Path) -> None:
    path = gigabyte(tmp_path / "concepts.json")
    editor = ConceptEditor(tmp_path, path)
    qtbot.addWidget(editor)
    editor.show()
    qtbot.waitExposed(editor)
    assert editor.document is None
    assert editor.parse_banner.label.text() == (
        f"<b>concepts.json cannot be read</b> — {TOO_LARGE}. Check the file, then Reload."
    )
