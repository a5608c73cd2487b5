"""Questions asked of the index, on small vaults written by hand: unresolved targets."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import UnresolvedTarget, unresolved
from tests.conftest import write


def test_unresolved_targets_with_their_first_spelling_and_who_links_them(vault: Path) -> None:
    write(vault, "b.md", "[[Ghost]] [[ghost]] [[Other#x]] [[a]]\n")
    write(vault, "a.md", "[[Zed]] [[GHOST]]\n[g](ghost.md) [[ghost]] [[b]]\n")
    write(vault, "c/d.md", "[[other]] [[other]]\n[[Zed]] [[zed]]\n")
    write(vault, "e.md", "[o](../Other.md) [[Alpha ghost]]\n")
    expected = [
        # most links first; a.md is the first note (alphabetically) to link it, and spells
        # it "GHOST" in its first link to it
        UnresolvedTarget("//unresolved/ghost", "GHOST", 5, (("a.md", 3), ("b.md", 2))),
        UnresolvedTarget("//unresolved/other", "Other", 3, (("c/d.md", 2), ("b.md", 1))),
        UnresolvedTarget("//unresolved/zed", "Zed", 3, (("c/d.md", 2), ("a.md", 1))),
        # a link out of the vault; "." sorts before "a"
        UnresolvedTarget("//unresolved/../other", "../Other.md", 1, (("e.md", 1),)),
        UnresolvedTarget("//unresolved/alpha ghost", "Alpha ghost", 1, (("e.md", 1),)),
    ]
    index = VaultIndex.scan(vault, use_cache=False)
    assert unresolved(index) == expected
    # a.md linked again after b.md (the graph meets it second now): still the first by name
    write(vault, "a.md", "[[Zed]] [[GHOST]]\n[g](ghost.md) [[ghost]] [[b]]\nmore text\n")
    index.update(["a.md"])
    assert list(index.in_edges["//unresolved/ghost"]) == ["b.md", "a.md"]
    assert unresolved(index) == expected


def test_no_unresolved_targets(vault: Path) -> None:
    write(vault, "a.md", "[[b]] [[#Self]]\n")
    write(vault, "b.md", "[x](a.md)\n")
    assert unresolved(VaultIndex.scan(vault, use_cache=False)) == []


def _home(root: Path) -> str | None:
    from librarian_gui.core.index.queries import home_note

    return home_note(VaultIndex.scan(root, use_cache=False))


def test_the_home_note_is_memory_then_a_note_named_like_an_index_then_the_most_linked(
    tmp_path: Path,
) -> None:
    """Issue 28: a vault without MEMORY.md opened its alphabetically first note (on
    logseq-docs an empty journal page)."""
    root = tmp_path / "notes"
    write(root, "aaa.md", "first by path\n")
    write(root, "hub.md", "linked by two\n")
    write(root, "b.md", "[[hub]]\n")
    write(root, "c.md", "[[hub]] [[b]]\n")
    assert _home(root) == "hub.md"  # no note named like an index: the most linked
    write(root, "deep/Home.md", "a home, one folder down\n")
    assert _home(root) == "deep/Home.md"
    write(root, "README.md", "read me\n")
    assert _home(root) == "README.md"  # the shallower
    write(root, "Notes.md", "named like the vault's folder\n")
    assert _home(root) == "Notes.md"  # the vault's own name before the generic names
    write(root, "MEMORY.md", "the index note\n")
    assert _home(root) == "MEMORY.md"


def test_the_home_note_of_a_vault_with_no_links_is_its_first_note_and_of_none_none(
    tmp_path: Path,
) -> None:
    root = tmp_path / "v"
    root.mkdir()
    assert _home(root) is None
    write(root, "b.md", "x\n")
    write(root, "a.md", "y\n")
    assert _home(root) == "a.md"
    write(root, "Start Here.md", "z\n")
    write(root, "contents.md", "z\n")
    assert _home(root) == "Start Here.md"  # among the names, their order: start here first
