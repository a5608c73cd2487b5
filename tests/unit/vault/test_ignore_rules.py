"""Dot-entries are ignored at any depth: a path is ignored when any of its parts starts with a
dot (written here as the rule reads, part by part, against the index's faster test)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.vault.files import IgnoreRules

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
