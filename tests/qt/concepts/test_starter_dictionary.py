"""A vault without a concept dictionary is offered the starters: copied in on a click,
never over a file that is there."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.resources import concepts_dir, starter_dictionaries
from librarian_gui.ui.concepts.editor import ConceptEditor

pytestmark = pytest.mark.gui


def open_editor(qtbot: QtBot, vault: Path) -> ConceptEditor:
    editor = ConceptEditor(vault, vault / "concepts.json")
    qtbot.addWidget(editor)
    editor.resize(1000, 700)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def test_the_starters_are_the_repositorys_and_counted() -> None:
    # concept counts read from the files by hand: 35 and 16 top-level keys
    assert [(s.title, s.path.name, s.concepts) for s in starter_dictionaries()] == [
        ("AI agents", "starter-ai-agents.json", 35),
        ("Research", "starter-research.json", 16),
    ]
    assert all(s.path.parent == concepts_dir() for s in starter_dictionaries())


def test_a_vault_without_a_dictionary_gets_a_starter_copied_in(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path)
    banner = editor.starter_banner
    assert banner.isVisible()
    assert [b.text() for b in banner.buttons] == [
        "AI agents (35 concepts)",
        "Research (16 concepts)",
    ]
    with qtbot.waitSignal(editor.saved):
        banner.buttons[1].click()
    written = tmp_path / "concepts.json"
    starter = concepts_dir() / "starter-research.json"
    assert written.read_bytes() == starter.read_bytes()
    assert stat.S_IMODE(written.stat().st_mode) == 0o644
    assert not banner.isVisible()
    ids = list(json.loads(starter.read_bytes()))
    assert [r.concept.id for r in editor.model.rows] == ids
    assert not editor.dirty  # loaded from the file it is now: nothing left to save
    assert sorted(p.name for p in tmp_path.iterdir()) == ["concepts.json"]


def test_a_dictionary_that_appeared_meanwhile_is_kept_and_loaded(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path)
    assert editor.starter_banner.isVisible()
    theirs = b'{"mine": {"aliases": ["my own"]}}\n'
    (tmp_path / "concepts.json").write_bytes(theirs)  # an agent wrote one since
    assert editor.start_from(editor.starters[0]) is False
    assert (tmp_path / "concepts.json").read_bytes() == theirs
    assert [r.concept.id for r in editor.model.rows] == ["mine"]
    assert (
        "concepts.json exists already; it was left as it is" in editor.message_banner.label.text()
    )
    assert not editor.starter_banner.isVisible()


def test_no_offer_once_the_user_adds_a_concept_by_hand_or_when_a_dictionary_exists(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path)
    assert editor.add_concept("", "retry policy") is None
    assert not editor.starter_banner.isVisible()  # an unsaved new dictionary of their own
    editor.undo()
    assert editor.starter_banner.isVisible()
    other = tmp_path / "other"
    other.mkdir()
    (other / "concepts.json").write_bytes(b"{}\n")
    assert not open_editor(qtbot, other).starter_banner.isVisible()
