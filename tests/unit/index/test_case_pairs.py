"""Files whose paths differ only in case (``Note.md`` and ``note.md``): each is reachable by
its own path from links, from the command line and after the other comes or goes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import AmbiguousNote, concept_page_path, find_note
from tests.conftest import assert_same_as_fresh_scan, write


@pytest.fixture(autouse=True)
def case_sensitive_files(tmp_path: Path) -> None:
    """These tests need a file system that keeps ``a`` and ``A`` apart (Linux does)."""
    (tmp_path / "case-probe").write_bytes(b"")
    if (tmp_path / "CASE-PROBE").exists():
        pytest.skip("this file system does not tell file names apart by case")


def targets_of(index: VaultIndex, rel: str) -> list[str]:
    return list(index.targets[rel])


@pytest.fixture
def pair(vault: Path) -> Path:
    write(vault, "Note.md", "[[Alpha]]\n")
    write(vault, "note.md", "[[Beta]]\n")
    return vault


# ------------------------------------------------------------------ links


def test_each_of_a_pair_is_reached_by_its_own_spelling(pair: Path) -> None:
    write(
        pair,
        "src.md",
        "[y](Note.md) [z](note.md) [[Note]] [[note]] [[Note.md]] [[note.md]]"
        " [[NOTE]] [w](NOTE.md) [[nOTE]]\n",
    )
    index = VaultIndex.scan(pair, use_cache=False)
    assert targets_of(index, "src.md") == [
        "Note.md",
        "note.md",
        "Note.md",
        "note.md",
        "Note.md",
        "note.md",
        # neither spelled so: read from the left, "NOTE" first differs from "Note" at its
        # second letter and from "note" at its first
        "Note.md",
        "Note.md",
        "note.md",  # "nOTE" agrees with "note" on its first letter
    ]


def test_a_pair_in_a_subfolder_reached_by_name(vault: Path) -> None:
    write(vault, "sub/Note.md", "")
    write(vault, "sub/note.md", "")
    write(vault, "x/s.md", "[[Note]] [[note]] [[NOTE]] [[sub/note]] [[SUB/Note]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "x/s.md") == [
        "sub/Note.md",  # same folder, same length, same letters: the spelling decides
        "sub/note.md",
        "sub/Note.md",
        "sub/note.md",  # an exact path
        "sub/Note.md",  # a path up to case; "SUB/Note" first differs from both at "S"
    ]


def test_folders_that_differ_only_in_case(vault: Path) -> None:
    write(vault, "A/x.md", "")
    write(vault, "a/x.md", "")
    write(vault, "a/s.md", "[[x]] [m](x.md) [n](../A/x.md) [[A/X]] [o](X.md)\n")
    write(vault, "s.md", "[[x]] [m](a/X.md) [[a/x]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "a/s.md") == [
        "a/x.md",  # a bare name: the linking note's folder first
        "a/x.md",
        "A/x.md",
        "A/x.md",  # "A/X" agrees with "A/x" on its folder
        "a/x.md",  # relative: "a/X.md" agrees with "a/x.md" on its folder
    ]
    assert targets_of(index, "s.md") == [
        "A/x.md",  # neither in the root folder; equal but for case: code-point order
        "a/x.md",
        "a/x.md",
    ]


def test_only_a_case_variant_exists(vault: Path) -> None:
    write(vault, "Note.md", "")
    write(vault, "src.md", "[[note]] [y](NOTE.md) [[NOTE.MD]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "src.md") == ["Note.md", "Note.md", "Note.md"]


# ------------------------------------------------------------------ incremental update


def test_removing_one_of_a_pair_keeps_the_other_reachable(pair: Path) -> None:
    write(pair, "src.md", "[y](Note.md) [z](note.md) [[Note]] [[note]]\n")
    write(pair, "sub/s.md", "[y](../Note.md) [z](/note.md)\n")
    index = VaultIndex.scan(pair, use_cache=False)
    index.prepare_updates()
    os.remove(pair / "note.md")
    index.update([pair / "note.md"])
    assert targets_of(index, "src.md") == ["Note.md", "Note.md", "Note.md", "Note.md"]
    assert targets_of(index, "sub/s.md") == ["Note.md", "Note.md"]
    assert_same_as_fresh_scan(index)
    write(pair, "note.md", "[[Beta]]\n")
    index.update([pair / "note.md"])
    assert targets_of(index, "src.md") == ["Note.md", "note.md", "Note.md", "note.md"]
    assert targets_of(index, "sub/s.md") == ["Note.md", "note.md"]
    assert_same_as_fresh_scan(index)


def test_adding_the_other_of_a_pair_takes_only_its_own_links(vault: Path) -> None:
    write(vault, "note.md", "")
    write(vault, "src.md", "[z](note.md) [[note]] [y](Note.md) [[Note]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "src.md") == ["note.md"] * 4
    write(vault, "Note.md", "")
    index.update([vault / "Note.md"])
    assert targets_of(index, "src.md") == ["note.md", "note.md", "Note.md", "Note.md"]
    assert_same_as_fresh_scan(index)
    os.remove(vault / "Note.md")
    index.update(["Note.md"])
    assert targets_of(index, "src.md") == ["note.md"] * 4
    assert_same_as_fresh_scan(index)


def test_a_resolution_does_not_depend_on_which_of_a_pair_came_first(vault: Path) -> None:
    # Written in one order, then the first one removed and written again: the live index
    # has met them in the other order; a fresh scan must agree with it.
    write(vault, "sub/Note.md", "")
    write(vault, "sub/note.md", "")
    write(vault, "sub/s.md", "[[NOTE]] [o](NOTE.md)\n")
    write(vault, "t.md", "[[NOTE]] [[sub/NOTE]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    for rel in ("sub/Note.md", "sub/note.md"):
        os.remove(vault / rel)
        index.update([rel])
        write(vault, rel, "")
        index.update([rel])
        assert targets_of(index, "sub/s.md") == ["sub/Note.md", "sub/Note.md"]
        assert targets_of(index, "t.md") == ["sub/Note.md", "sub/Note.md"]
        assert_same_as_fresh_scan(index)


# ------------------------------------------------------------------ NOTE arguments


def test_find_note_prefers_the_exact_spelling_and_refuses_to_guess(pair: Path) -> None:
    write(pair, "sub/Twin.md", "")
    write(pair, "sub/twin.md", "")
    index = VaultIndex.scan(pair, use_cache=False)
    assert find_note(index, "Note.md") == "Note.md"
    assert find_note(index, "note.md") == "note.md"
    assert find_note(index, "Note") == "Note.md"
    assert find_note(index, "note") == "note.md"
    assert find_note(index, "sub/twin") == "sub/twin.md"
    with pytest.raises(AmbiguousNote) as info:
        find_note(index, "NOTE.md")
    assert info.value.candidates == ["Note.md", "note.md"]
    with pytest.raises(AmbiguousNote) as info:
        find_note(index, "twin")  # a bare name of two notes: ambiguous, case or not
    assert info.value.candidates == ["sub/Twin.md", "sub/twin.md"]


def test_cli_links_of_each_of_a_pair(pair: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, target in (("Note.md", "Alpha"), ("note.md", "Beta"), ("Note", "Alpha")):
        assert main(["links", str(pair), name, "--json", "--no-cache"]) == 0
        out, _ = capsys.readouterr()
        assert [r["target"] for r in json.loads(out)] == [target]
    assert main(["links", str(pair), "NOTE.md", "--no-cache"]) == 5
    _, err = capsys.readouterr()
    assert err == (
        "librarian: 'NOTE.md' matches 2 notes: Note.md, note.md; give the path to choose one\n"
    )


def test_the_page_of_a_concept_among_case_variants(vault: Path) -> None:
    write(vault, "concepts.json", '{"rag": {"aliases": []}, "memory": {"aliases": []}}')
    write(vault, "RAG.md", "")
    write(vault, "Rag.md", "")
    write(vault, "Memory.md", "")
    write(vault, "memory.md", "")
    write(vault, "s.md", "[[rag]] [[memory]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    # "rag" first differs from "Rag" at its first letter only, from "RAG" at every letter
    assert concept_page_path(index, "rag") == "Rag.md"
    assert concept_page_path(index, "memory") == "memory.md"
    assert targets_of(index, "s.md") == ["Rag.md", "memory.md"]
