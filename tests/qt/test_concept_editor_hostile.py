"""The concept editor on a dictionary holding lone surrogates: it shows the concepts it
can, says what is wrong where, and refuses a save that would write a surrogate."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.ui.concept_editor import ConceptEditor
from tests.unit.test_dictionary_hostile import (
    ALIAS_ISSUE,
    FIELD_ISSUE,
    ID_ISSUE,
    SAVE_REFUSED,
    SURROGATES,
)

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
