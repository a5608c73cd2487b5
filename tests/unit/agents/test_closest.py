"""The closest notes named when a NOTE argument names none (``answers.closest_notes``)."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.agents import answers
from librarian_gui.core.agents.answers import closest_notes
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write


def test_closest_notes_follow_the_vaults_names_and_are_kept_while_they_hold(
    tmp_path: Path,
) -> None:
    write(tmp_path, "alpha.md", "# Alpha\n\nabout the garden\n")
    write(tmp_path, "beta.md", "# Beta\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    assert closest_notes(index, "bta") == ["beta.md"]
    kept = answers._NAMES[index.identity]

    # A note rewritten with the same names: what was built is matched again.
    write(tmp_path, "alpha.md", "# Alpha\n\nabout the garden and the shed\n")
    index.update(["alpha.md"])
    assert closest_notes(index, "bta") == ["beta.md"]
    assert answers._NAMES[index.identity] is kept

    # A new note is a new name.
    write(tmp_path, "betamax.md", "# Tape\n")
    index.update(["betamax.md"])
    # "betamx" is one typo from "betama…"; "beta" follows by edit distance (ratio 80)
    assert closest_notes(index, "betamx") == ["betamax.md", "beta.md"]
    assert answers._NAMES[index.identity] is not kept

    # So is a new alias of a note that was there.
    kept = answers._NAMES[index.identity]
    write(tmp_path, "alpha.md", "---\naliases: [Gamma ray]\n---\n# Alpha\n")
    index.update(["alpha.md"])
    assert closest_notes(index, "gamma") == ["alpha.md"]
    assert answers._NAMES[index.identity] is not kept


def test_a_name_asked_once_is_not_kept(tmp_path: Path) -> None:
    write(tmp_path, "beta.md", "# Beta\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    assert closest_notes(index, "bta", keep=False) == ["beta.md"]
    assert index.identity not in answers._NAMES
