"""Batches of changed paths, as the watcher hands them over: merged, and split for applying.

A ``git checkout`` changes thousands of files at once. A big batch is applied in pieces of
``CHUNK_PATHS`` paths, each published as a snapshot of its own: readers (a pane, an agent's
question) see the first files of a checkout in a fraction of a second, not after the whole,
and the updater lets other threads run between pieces.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CHUNK_PATHS = 150


@dataclass(frozen=True, slots=True)
class FileBatch:
    """Vault-relative paths that changed (files or folders), and the moves among them."""

    paths: tuple[str, ...]
    moves: tuple[tuple[str, str], ...] = ()
    events: int = 0  # raw events coalesced into this batch


def chunks(batch: FileBatch) -> list[tuple[str, ...]]:
    """``batch``'s paths in pieces of about ``CHUNK_PATHS``. Both ends of a move stay in one
    piece, so the index still sees it as a rename."""
    if len(batch.paths) <= CHUNK_PATHS:
        return [batch.paths]
    partner = {}
    for src, dest in batch.moves:
        partner[src], partner[dest] = dest, src
    out: list[tuple[str, ...]] = []
    current: list[str] = []
    placed: set[str] = set()
    for path in batch.paths:
        if path in placed:
            continue
        group = [path]
        other = partner.get(path)
        if other is not None and other not in placed:
            group.append(other)
        placed.update(group)
        current.extend(group)
        if len(current) >= CHUNK_PATHS:
            out.append(tuple(current))
            current = []
    if current:
        out.append(tuple(current))
    return out


def merge(batches: Iterable[FileBatch]) -> FileBatch:
    """One batch of several, each path once, in the order first seen."""
    paths: dict[str, None] = {}
    moves: list[tuple[str, str]] = []
    events = 0
    for batch in batches:
        paths.update(dict.fromkeys(batch.paths))
        moves.extend(batch.moves)
        events += batch.events
    return FileBatch(tuple(paths), tuple(moves), events)
