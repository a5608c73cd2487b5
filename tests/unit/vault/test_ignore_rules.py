"""Dot-entries are ignored at any depth: a path is ignored when any of its parts starts with a
dot (written here as the rule reads, part by part, against the index's faster test)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.vault.files import IgnoreRules, is_note_name

NO_VAULT = Path("/nonexistent-librarian-vault")
PART = st.text(alphabet="a.-_ é", min_size=1, max_size=4)


@given(parts=st.lists(PART, min_size=1, max_size=4))
def test_a_path_is_ignored_when_any_part_starts_with_a_dot(parts: list[str]) -> None:
    rules = IgnoreRules(NO_VAULT)  # no .librarianignore: the dot rule alone
    rel = "/".join(parts)
    expected = any(part[0] == "." for part in parts)
    assert rules.ignored(rel, is_dir=False) is expected
    assert rules.ignored(rel, is_dir=True) is expected


def test_known_paths() -> None:
    rules = IgnoreRules(NO_VAULT)
    assert rules.ignored(".obsidian/app.json", False)
    assert rules.ignored("notes/.trash/a.md", False)
    assert not rules.ignored("notes/a.b.md", False)
    assert not rules.ignored("notes/a./b.md", False)


# Names ending in anything, and in the characters near ".md" that lowering could confuse:
# other cases, the Roman numerals Ⅿ ⅿ Ⅾ ⅾ, the dotted capital İ (lowered to two characters).
_ENDINGS = st.text(alphabet=".mdMDⅯⅿⅮⅾİi\u0307x", max_size=4)


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=6), _ENDINGS)
def test_a_note_is_a_name_whose_lowered_form_ends_in_md(stem: str, ending: str) -> None:
    name = stem + ending
    # the rule as written before (the whole name lowered by the interpreter)
    assert is_note_name(name) is name.lower().endswith(".md")
