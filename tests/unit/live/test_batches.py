"""Batches of changed paths: a big one applied in pieces, moves kept whole; merged in order."""

from __future__ import annotations

from librarian_gui.core.live.batches import CHUNK_PATHS, FileBatch, chunks, merge


def test_big_batches_are_applied_in_pieces_that_keep_moves_whole() -> None:
    paths = tuple(f"n{i:04}.md" for i in range(2 * CHUNK_PATHS))
    moves = ((paths[CHUNK_PATHS - 1], paths[-1]),)  # the two ends fall in different halves
    pieces = chunks(FileBatch(paths, moves, events=len(paths)))
    assert sorted(p for c in pieces for p in c) == list(paths)  # each path once
    assert all(len(c) <= CHUNK_PATHS + 1 for c in pieces)
    holder = next(c for c in pieces if paths[-1] in c)
    assert paths[CHUNK_PATHS - 1] in holder
    assert chunks(FileBatch(paths[:3])) == [paths[:3]]


def test_batches_merge_each_path_once_in_the_order_first_seen() -> None:
    first = FileBatch(("b.md", "a.md"), (("x.md", "b.md"),), events=3)
    second = FileBatch(("a.md", "c.md"), (), events=2)
    assert merge([first, second]) == FileBatch(
        ("b.md", "a.md", "c.md"), (("x.md", "b.md"),), events=5
    )
