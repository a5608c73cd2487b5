"""Resolution, graph queries and incremental update on small vaults written by hand."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.core.concepts.dictionary import ConceptDictionary, load_dictionary
from librarian_gui.core.index.delta import IndexDelta
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import (
    AmbiguousNote,
    NoteNotFound,
    backlinks,
    degree,
    find_note,
    neighbours,
    unresolved,
)
from tests.conftest import assert_same_as_fresh_scan, snapshot, write


def targets_of(index: VaultIndex, rel: str) -> list[str]:
    return list(index.targets[rel])


# ------------------------------------------------------------------ resolution


def test_resolution_rules(vault: Path) -> None:
    write(vault, "a/Dup.md", "")
    write(vault, "b/Dup.md", "")
    write(vault, "b/c/Deep.md", "")
    write(vault, "x/y/Deep.md", "")
    write(vault, "Top.md", "")
    write(vault, "long/folder/Same.md", "")
    write(vault, "zz/Same.md", "")
    write(vault, "img/pic.png", b"\x89PNG")
    write(
        vault,
        "a/src.md",
        "[[dup]] [[Dup.md]] [[top]] [[c/Deep]] [[y/deep]] [[Same]] [[b/Dup]] [[pic.png]]"
        " [[img/pic.png]] [[Ghost]] [[ghost.md]]\n"
        "[r](../Top.md) [s](<../b/Dup.md>) [t](/b/c/Deep.md) [u](../../outside.md) [v](Dup)\n",
    )
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "a/src.md") == [
        "a/Dup.md",  # same folder first
        "a/Dup.md",
        "Top.md",  # case-insensitive
        "b/c/Deep.md",  # path-qualified suffix
        "x/y/Deep.md",
        "zz/Same.md",  # shortest path
        "b/Dup.md",
        "img/pic.png",
        "img/pic.png",
        "//unresolved/ghost",
        "//unresolved/ghost",
        "Top.md",
        "b/Dup.md",
        "b/c/Deep.md",
        "//unresolved/../outside",  # never outside the vault
        "a/Dup.md",  # relative, .md added
    ]


def test_tie_on_length_is_alphabetical(vault: Path) -> None:
    write(vault, "b/N.md", "")
    write(vault, "a/N.md", "")
    write(vault, "src/s.md", "[[n]]")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "src/s.md") == ["a/N.md"]


def test_concepts_and_concept_pages(vault: Path) -> None:
    write(
        vault,
        "concepts.json",
        '{"rag": {"aliases": ["RAG"], "category": "ai"},'
        ' "memory": {"aliases": [], "category": "ai"}}',
    )
    write(vault, "research/memory.md", "")
    write(vault, "n.md", "[[RAG]] [[memory]] [[other]]")
    index = VaultIndex.scan(vault, use_cache=False)
    assert targets_of(index, "n.md") == [
        "//concept/rag",
        "research/memory.md",  # a note titled like the concept is its page
        "//unresolved/other",
    ]
    assert index.stats()["concepts"] == 2


def test_stats_and_queries(vault: Path) -> None:
    write(vault, "A.md", "to [[B]] and [[B]] and [[Missing]]\nsecond line [[C#x]]\n")
    write(vault, "B.md", "back to [[A]] and [[#Self]]\n")
    write(vault, "C.md", "nothing\n")
    write(vault, "D.md", "alone [[D]]\n")
    write(vault, "E.md", "[[missing]] ![[B]]\n")
    write(vault, "file.pdf", b"%PDF")
    index = VaultIndex.scan(vault, use_cache=False)
    assert index.stats() == {
        "notes": 5,
        "attachments": 1,
        "links": {"wiki": 8, "embed": 1, "markdown": 0, "property": 0},
        "resolved": 7,
        "unresolved": 2,
        "unresolved_targets": 1,
        # A→B, A→ghost, A→C, B→A, B→B, D→D, E→ghost, E→B
        "edges": 8,
        "orphans": 1,
        "concepts": 0,
        "warnings": 0,
    }
    assert index.orphans() == ["D.md"]
    found = backlinks(index, "B.md")
    assert [(b.source, b.link.line, b.context) for b in found] == [
        ("A.md", 1, "to [[B]] and [[B]] and [[Missing]]"),
        ("A.md", 1, "to [[B]] and [[B]] and [[Missing]]"),
        ("E.md", 1, "[[missing]] ![[B]]"),
    ]
    assert neighbours(index, "C.md", 1) == {"A.md": 1}
    assert neighbours(index, "C.md", 2) == {"A.md": 1, "B.md": 2, "//unresolved/missing": 2}
    assert neighbours(index, "C.md", 3) == {
        "A.md": 1,
        "B.md": 2,
        "//unresolved/missing": 2,
        "E.md": 3,
    }
    assert degree(index, "B.md") == (2, 1)
    ghosts = unresolved(index)
    assert [(u.target, u.count, u.sources) for u in ghosts] == [
        ("Missing", 2, (("A.md", 1), ("E.md", 1)))
    ]


def test_find_note(vault: Path) -> None:
    write(vault, "x/Same.md", "")
    write(vault, "y/Same.md", "")
    write(vault, "Only One.md", "")
    index = VaultIndex.scan(vault, use_cache=False, concepts=ConceptDictionary(None))
    assert find_note(index, "only one") == "Only One.md"
    assert find_note(index, "Only One.md") == "Only One.md"
    assert find_note(index, "x/Same") == "x/Same.md"
    with pytest.raises(AmbiguousNote) as info:
        find_note(index, "Same")
    assert info.value.candidates == ["x/Same.md", "y/Same.md"]
    with pytest.raises(NoteNotFound):
        find_note(index, "nothing")


def test_ignore_rules(vault: Path) -> None:
    write(vault, ".librarianignore", "templates/\n*.draft.md\n")
    write(vault, "templates/t.md", "[[A]]")
    write(vault, "x.draft.md", "[[A]]")
    write(vault, ".obsidian/y.md", "[[A]]")
    write(vault, "archive/old.md", "[[A]]")
    write(vault, "A.md", "")
    index = VaultIndex.scan(vault, use_cache=False, excluded=["archive"])
    assert sorted(index.notes) == ["A.md"]


def test_dates(vault: Path) -> None:
    write(vault, "diary/2024-05-06.md", "")
    write(vault, "journals/2021_05_14.md", "")
    write(vault, "d.md", "---\ncreated: 2020-01-02\n---\n")
    write(vault, "plain.md", "")
    index = VaultIndex.scan(vault, use_cache=False)
    got = {p: (r.date.isoformat(), r.date_source) for p, r in index.notes.items()}
    assert got["diary/2024-05-06.md"] == ("2024-05-06", "name")
    assert got["journals/2021_05_14.md"] == ("2021-05-14", "name")
    assert got["d.md"] == ("2020-01-02", "front-matter")
    assert got["plain.md"][1] == "mtime"


# ------------------------------------------------------------------ incremental update


@pytest.fixture
def small(vault: Path) -> VaultIndex:
    write(vault, "A.md", "[[B]] [[New]]\n")
    write(vault, "B.md", "[[A]]\n")
    write(vault, "sub/C.md", "[[B]]\n")
    return VaultIndex.scan(vault, use_cache=False)


def test_create_resolves_links_elsewhere(small: VaultIndex) -> None:
    write(small.root, "New.md", "[[C]]\n")
    delta = small.update([small.root / "New.md"])
    assert delta == IndexDelta(
        notes_added=("New.md",),
        edges_added=(("A.md", "New.md"), ("New.md", "sub/C.md")),
        edges_removed=(("A.md", "//unresolved/new"),),
        parsed=1,
    )
    assert_same_as_fresh_scan(small)


def test_the_map_for_updates_is_built_before_the_first_update(small: VaultIndex) -> None:
    small.prepare_updates()  # the updater's thread does it soon after its scan
    # Who links each name, written out from the fixture's notes by hand.
    assert small._dependents == {"b": {"A.md", "sub/C.md"}, "new": {"A.md"}, "a": {"B.md"}}
    write(small.root, "New.md", "[[C]]\n")
    small.update([small.root / "New.md"])
    assert small._dependents["c"] == {"New.md"}
    assert_same_as_fresh_scan(small)


def test_the_summary_is_counted_after_the_scan_and_every_update(small: VaultIndex) -> None:
    # A: [[B]] [[New]], B: [[A]], sub/C: [[B]] — 3 notes, 4 links, "New" missing, no concepts
    assert small.summary == (3, 4, 1, 0)
    write(small.root, "New.md", "[[C]] [[Gone]] [[Gone]]\n")
    small.update([small.root / "New.md"])
    assert small.summary == (4, 7, 1, 0)  # "New" exists now, "Gone" is missing
    (small.root / "New.md").unlink()
    small.update([small.root / "New.md"])
    assert small.summary == (3, 4, 1, 0)


def test_modify_and_delete(small: VaultIndex) -> None:
    write(small.root, "B.md", "[[sub/C]]\n")
    delta = small.update(["B.md"])
    assert delta.notes_changed == ("B.md",)
    assert delta.edges_added == (("B.md", "sub/C.md"),)
    assert delta.edges_removed == (("B.md", "A.md"),)
    assert delta.parsed == 1
    assert_same_as_fresh_scan(small)
    os.remove(small.root / "B.md")
    delta = small.update(["B.md"])
    assert delta.notes_removed == ("B.md",)
    assert set(delta.edges_removed) == {
        ("B.md", "sub/C.md"),
        ("A.md", "B.md"),
        ("sub/C.md", "B.md"),
    }
    assert set(delta.edges_added) == {("A.md", "//unresolved/b"), ("sub/C.md", "//unresolved/b")}
    assert_same_as_fresh_scan(small)


def test_unchanged_file_event_changes_nothing(small: VaultIndex) -> None:
    delta = small.update(["A.md", "B.md"])
    assert delta.empty and delta.parsed == 0


def test_move_to_another_folder_keeps_backlinks(small: VaultIndex) -> None:
    root = small.root
    (root / "archive").mkdir()
    os.rename(root / "B.md", root / "archive" / "B.md")
    delta = small.update(["B.md", "archive/B.md"])
    assert delta.notes_added == ("archive/B.md",) and delta.notes_removed == ("B.md",)
    assert delta.notes_renamed == (("B.md", "archive/B.md"),)
    assert sorted(small.in_edges["archive/B.md"]) == ["A.md", "sub/C.md"]
    assert "//unresolved/b" not in small.in_edges
    assert_same_as_fresh_scan(small)


def test_folder_events(small: VaultIndex) -> None:
    root = small.root
    write(root, "new/one.md", "[[A]]")
    write(root, "new/deeper/two.md", "[[one]]")
    delta = small.update([root / "new"])
    assert delta.notes_added == ("new/deeper/two.md", "new/one.md")
    assert_same_as_fresh_scan(small)
    for p in ("new/deeper/two.md", "new/one.md"):
        os.remove(root / p)
    os.rmdir(root / "new/deeper")
    os.rmdir(root / "new")
    delta = small.update(["new"])
    assert delta.notes_removed == ("new/deeper/two.md", "new/one.md")
    assert_same_as_fresh_scan(small)


def test_ignore_file_change_rescans(small: VaultIndex) -> None:
    write(small.root, ".librarianignore", "sub/\n")
    delta = small.update([".librarianignore"])
    assert delta.notes_removed == ("sub/C.md",)
    assert_same_as_fresh_scan(small)


def test_dictionary_change_reresolves(small: VaultIndex) -> None:
    write(small.root, "concepts.json", '{"new": {"aliases": ["new"], "category": "x"}}')
    delta = small.update(["concepts.json"])
    assert delta.edges_added == (("A.md", "//concept/new"),)
    assert delta.edges_removed == (("A.md", "//unresolved/new"),)
    assert delta.parsed == 0
    assert delta.concepts_changed
    assert_same_as_fresh_scan(small)


def test_a_dictionary_change_that_moves_no_edge_is_still_a_change(vault: Path) -> None:
    write(vault, "concepts.json", '{"a": {"aliases": ["x"], "category": "c"}}')
    write(vault, "n.md", "no links")
    index = VaultIndex.scan(vault, use_cache=False)
    write(vault, "concepts.json", '{"a": {"aliases": ["x"], "category": "c"}, "b": {}}')
    delta = index.update(["concepts.json"])
    assert (delta.edges_added, delta.edges_removed, delta.concepts_changed) == ((), (), True)
    assert not delta.empty  # the window refreshes its concept list and the graph on it
    assert [c.id for c in index.concepts.concepts] == ["a", "b"]
    assert not index.update(["n.md"]).concepts_changed


def test_a_dictionary_outside_the_vault_is_used_and_reloaded_on_request(
    vault: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "my-concepts.json"
    write(outside.parent, outside.name, '{"rag": {"aliases": ["RAG"], "category": "x"}}')
    write(vault, "concepts.json", '{"crdt": {"aliases": ["CRDT"], "category": "y"}}')
    write(vault, "A.md", "[[rag]] and [[crdt]]")
    index = VaultIndex.scan(vault, use_cache=False, dictionary=outside)
    assert index.dictionary_path == outside.resolve()
    assert targets_of(index, "A.md") == ["//concept/rag", "//unresolved/crdt"]
    # the vault's own concepts.json is not the dictionary now: its changes are a file's
    write(vault, "concepts.json", '{"rag": {"aliases": [], "category": "y"}}')
    assert index.update(["concepts.json"]).edges_added == ()
    write(outside.parent, outside.name, '{"crdt": {"aliases": [], "category": "x"}}')
    delta = index.reload_dictionary()
    assert sorted(delta.edges_added) == [("A.md", "//concept/crdt"), ("A.md", "//unresolved/rag")]
    assert sorted(delta.edges_removed) == [("A.md", "//concept/rag"), ("A.md", "//unresolved/crdt")]
    assert delta.parsed == 0
    assert_same_as_fresh_scan(index)


def test_a_dictionary_elsewhere_in_the_vault_reloads_with_its_file_event(vault: Path) -> None:
    write(vault, "meta/dictionary.json", '{"rag": {"aliases": ["RAG"], "category": "x"}}')
    write(vault, "A.md", "[[rag]] [[crdt]]")
    index = VaultIndex.scan(vault, use_cache=False, dictionary=vault / "meta/dictionary.json")
    assert targets_of(index, "A.md") == ["//concept/rag", "//unresolved/crdt"]
    write(vault, "meta/dictionary.json", '{"crdt": {"aliases": [], "category": "x"}}')
    delta = index.update(["meta/dictionary.json"])
    assert sorted(delta.edges_added) == [("A.md", "//concept/crdt"), ("A.md", "//unresolved/rag")]
    assert_same_as_fresh_scan(index)


def test_broken_dictionary_is_reported_not_fatal(vault: Path) -> None:
    write(vault, "concepts.json", '{"a": {"aliases": ["x"],}\n')
    write(vault, "n.md", "[[a]]")
    index = VaultIndex.scan(vault, use_cache=False)
    assert load_dictionary(vault / "concepts.json").error == (
        "concepts.json: line 1, column 25: Expecting property name enclosed in double quotes"
    )
    assert [w.kind for w in index.warnings()] == ["dictionary"]
    assert targets_of(index, "n.md") == ["//unresolved/a"]


# ------------------------------------------------------------------ worker processes


def _many_notes(root: Path, count: int) -> None:
    for i in range(count):
        write(
            root,
            f"f{i % 7}/n{i}.md",
            f"# N{i}\n[[n{(i * 7 + 3) % count}]] [[gone{i % 5}]] #t{i % 3}\n",
        )
    write(root, "bad.md", b"\xff\xfe not utf-8 [[n1]]")


@pytest.mark.parametrize("alone", [True, False], ids=["forked", "interpreters"])
def test_worker_processes_build_the_same_index(
    vault: Path, monkeypatch: pytest.MonkeyPatch, alone: bool
) -> None:
    # Forked where the scanning process runs no other thread (the command line), else
    # started as interpreters (a window, an MCP server's index process).
    from librarian_gui.core.vault import reading

    _many_notes(vault, 120)
    monkeypatch.setattr(reading, "POOL_THRESHOLD", 10**9)
    here = VaultIndex.scan(vault, use_cache=False)
    monkeypatch.setattr(reading, "POOL_THRESHOLD", 10)
    monkeypatch.setattr(reading, "_alone", lambda: alone)
    spawned: list[object] = []
    forked: list[object] = []
    real_popen = reading.subprocess.Popen
    real_fork = reading.ForkedWorker.start

    def counting_popen(*args: object, **kwargs: object) -> object:
        spawned.append(args)
        return real_popen(*args, **kwargs)  # type: ignore[arg-type]

    def counting_fork(*args: Any) -> object:
        forked.append(args)
        return real_fork(*args)

    monkeypatch.setattr(reading.subprocess, "Popen", counting_popen)
    monkeypatch.setattr(reading.ForkedWorker, "start", counting_fork)
    pooled = VaultIndex.scan(vault, use_cache=False)
    assert len(forked if alone else spawned) >= 2
    assert not (spawned if alone else forked)
    assert snapshot(pooled) == snapshot(here)
    assert pooled.warnings() == here.warnings()
    assert pooled.notes["bad.md"].lossy is True


def test_the_strings_parse_workers_send_are_held_once(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each worker's answer is its own copy of every string: a key many notes link by is
    # interned as it arrives, so the index holds it once and the cache writes it once.
    from librarian_gui.core.vault import reading

    for i in range(40):
        write(vault, f"n{i}.md", f"# N{i}\nSee [[Common Ground]] and [[n{(i + 1) % 40}]].\n")
    monkeypatch.setattr(reading, "POOL_THRESHOLD", 10)
    index = VaultIndex.scan(vault, use_cache=False)
    keys = [key for r in index.notes.values() for key in r.link_keys if key == "common ground"]
    assert len(keys) == 40
    assert len({id(key) for key in keys}) == 1
    # and a note's path is one string: its key, its record's path, the node links reach
    paths = {id(rel) for rel in index.notes if rel == "n1.md"}
    paths |= {id(r.path) for r in index.notes.values() if r.path == "n1.md"}
    paths |= {id(t) for targets in index.targets.values() for t in targets if t == "n1.md"}
    assert len(paths) == 1


def test_workers_that_cannot_start_fall_back_to_reading_here(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from librarian_gui.core.vault import reading

    _many_notes(vault, 40)
    expected = snapshot(VaultIndex.scan(vault, use_cache=False))
    monkeypatch.setattr(reading, "POOL_THRESHOLD", 10)
    monkeypatch.setattr(reading.sys, "executable", str(vault / "no-such-python"))
    assert snapshot(VaultIndex.scan(vault, use_cache=False)) == expected


def test_rename_by_copy_and_delete_is_recognised_by_content(small: VaultIndex) -> None:
    root = small.root
    data = (root / "B.md").read_bytes()
    (root / "Bee.md").write_bytes(data)  # a new file (new inode), as git or a sync tool does
    (root / "B.md").unlink()
    write(small.root, "other.md", "unrelated text that is not B")
    delta = small.update(["B.md", "Bee.md", "other.md"])
    assert delta.notes_renamed == (("B.md", "Bee.md"),)
    assert delta.notes_added == ("Bee.md", "other.md")


def test_delete_and_unrelated_create_is_no_rename(small: VaultIndex) -> None:
    (small.root / "B.md").unlink()
    write(small.root, "new.md", "something else entirely, with [[A]]")
    delta = small.update(["B.md", "new.md"])
    assert delta.notes_renamed == ()
    assert delta.notes_removed == ("B.md",) and delta.notes_added == ("new.md",)


def test_a_note_of_many_names_is_resolved_as_a_fresh_scan_resolves_it(vault: Path) -> None:
    """An agent's note of 6,000 links: the index is as a fresh scan makes it: names of
    notes created in the same update, ambiguous names, concepts, nothing."""
    write(vault, "concepts.json", '{"rag": {"aliases": ["RAG"], "category": "x"}}\n')
    write(vault, "a/twin.md", "# one\n")
    write(vault, "b/twin.md", "# two\n")
    write(vault, "old.md", "# Old\n")
    index = VaultIndex.scan(vault, use_cache=False)
    names = ["old", "twin", "rag", "fresh", "Fresh", *(f"gone {n}" for n in range(6_000))]
    write(vault, "many.md", "".join(f"[[{name}]]\n" for name in names))
    write(vault, "fresh.md", "# Fresh\n[[many]]\n")
    index.update(["many.md", "fresh.md"])
    assert index.targets["many.md"][:5] == (
        "old.md",
        "a/twin.md",
        "//concept/rag",
        "fresh.md",
        "fresh.md",
    )
    assert_same_as_fresh_scan(index)


def test_an_update_walks_only_the_outermost_of_nested_new_folders(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher reports each of 300 nested folders an agent made at once: the update
    walked every one of them again (the walks of 1,100 such folders took minutes)."""
    from librarian_gui.core.index import index as index_module

    write(vault, "a.md", "[[deep]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    folders = ["/".join(["d"] * depth) for depth in range(1, 301)]
    write(vault, folders[-1] + "/deep.md", "# Deep\n")
    walks: list[str] = []
    real_walk = index_module.walk_vault

    def counted(*args: object, **kwargs: object) -> object:
        walks.append(str(kwargs.get("start")))
        return real_walk(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index_module, "walk_vault", counted)
    index.update(reversed(folders))
    assert walks == ["d"]
    assert index.targets["a.md"] == (folders[-1] + "/deep.md",)
    monkeypatch.undo()
    assert_same_as_fresh_scan(index)
