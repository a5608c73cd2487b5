"""The resolver's tables as files come and go: paths that differ only in case, the order
files arrive in, and the memo of resolutions."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.resolver import Resolver
from tests.conftest import snapshot, write

# Files that differ only in case, in folders that differ only in case, notes and attachments.
UNIVERSE = tuple(
    f"{folder}{stem}{ext}"
    for folder in ("", "a/", "A/")
    for stem in ("note", "Note", "NOTE")
    for ext in (".md", ".MD", ".png")
)
NAMES = (
    "note",
    "Note",
    "NOTE",
    "nOTE",
    "note.md",
    "Note.MD",
    "a/note",
    "A/Note",
    "a/NOTE.md",
    "note.png",
    "NOTE.PNG",
    "A/note.png",
)
MARKDOWN = ("note.md", "Note.md", "NOTE.MD", "../A/note.md", "/a/Note.md", "note.png", "Note")
SOURCES = ("s.md", "a/s.md", "A/s.md", "b/s.md")


def resolutions(resolver: Resolver) -> dict[tuple[bool, str, str], str]:
    return {
        (markdown, target, source): resolver.resolve_target(markdown, target, source)
        for markdown, targets in ((False, NAMES), (True, MARKDOWN))
        for target in targets
        for source in SOURCES
    }


def built(paths: list[str]) -> Resolver:
    resolver = Resolver()
    resolver.add(paths)
    return resolver


def test_a_pair_resolves_the_same_whichever_was_added_first() -> None:
    for order in (["note.md", "Note.md"], ["Note.md", "note.md"]):
        resolver = built(order)
        assert resolver.resolve_name("NOTE", "s.md") == "Note.md"
        assert resolver.resolve_name("nOTE", "s.md") == "note.md"
        assert resolver.resolve_target(True, "NOTE.md", "s.md") == "Note.md"


def test_removing_one_of_a_pair_leaves_the_other_by_path() -> None:
    resolver = built(["Note.md", "note.md", "sub/Twin.md", "sub/twin.md"])
    assert resolver.resolve_name("note", "s.md") == "note.md"  # memoised now
    resolver.remove(["note.md", "sub/Twin.md"])
    assert resolver.resolve_name("note", "s.md") == "Note.md"
    assert resolver.resolve_target(True, "note.md", "s.md") == "Note.md"
    assert resolver.resolve_target(True, "Note.md", "s.md") == "Note.md"
    assert resolver.resolve_name("sub/Twin", "s.md") == "sub/twin.md"
    assert resolver.resolve_target(True, "Twin.md", "sub/s.md") == "sub/twin.md"


def test_the_memo_holds_each_spelling_apart() -> None:
    resolver = built(["Note.md", "note.md"])
    assert resolver.resolve_name("Note") == "Note.md"
    assert resolver.resolve_name("note") == "note.md"
    assert resolver.memo == {"Note": "Note.md", "note": "note.md"}


@given(
    st.lists(st.lists(st.sampled_from(UNIVERSE), unique=True, max_size=5), max_size=8),
)
def test_adds_and_removes_keep_the_resolver_equal_to_a_fresh_one(
    batches: list[list[str]],
) -> None:
    live = Resolver()
    present: set[str] = set()
    for batch in batches:
        # As the index does: one call for the files gone, one for the files new.
        gone = [p for p in batch if p in present]
        new = [p for p in batch if p not in present]
        live.remove(gone)
        live.add(new)
        present.difference_update(gone)
        present.update(new)
        got = resolutions(live)  # through the memo, filled by the steps before
        assert got == resolutions(built(sorted(present)))
        assert got == resolutions(built(sorted(present, reverse=True)))


LINKS = " ".join(f"[[{t}]]" for t in NAMES) + " " + " ".join(f"[m]({t})" for t in MARKDOWN)


@settings(max_examples=100)
@given(
    st.lists(st.lists(st.sampled_from(UNIVERSE), unique=True, min_size=1, max_size=4), max_size=5)
)
def test_the_live_index_stays_equal_to_a_fresh_scan(batches: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for source in SOURCES:
            write(root, source, LINKS + "\n")
        index = VaultIndex.scan(root, use_cache=False)
        index.prepare_updates()
        for batch in batches:
            for rel in batch:
                path = root / rel
                if path.exists():
                    os.remove(path)
                else:
                    write(root, rel, "[[NOTE]]\n" if rel.lower().endswith(".md") else b"\x89PNG")
            index.update(batch)
            fresh = VaultIndex.scan(root, use_cache=False)
            assert snapshot(index) == snapshot(fresh)
