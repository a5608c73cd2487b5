"""Thin spots (issue 16): the places a vault is thin — notes with no related note above
the threshold, orphan notes (no link either way) and isolated concepts — in one snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cooccurrence import found_in
from .isolation import MAX_NOTES, IsolatedConcept, isolated_concepts

if TYPE_CHECKING:
    from ..index.snapshot import IndexView
    from ..related.vault import RelatedIndex


@dataclass(frozen=True, slots=True)
class ThinSpots:
    """``unrelated``: the notes with no related note at or above ``threshold`` (None: the
    related notes are not found yet); ``orphans``: notes with no link in or out;
    ``isolated``: concepts found in at most ``max_notes`` notes, least found first."""

    threshold: float
    unrelated: tuple[str, ...] | None
    orphans: tuple[str, ...]
    isolated: tuple[IsolatedConcept, ...]
    max_notes: int = MAX_NOTES


def thin_spots(
    index: IndexView,
    related: RelatedIndex | None,
    threshold: float,
    *,
    max_notes: int = MAX_NOTES,
) -> ThinSpots:
    """The vault's thin spots (read from one snapshot of the index). Concepts
    are counted by the notes they are found in only: telling "mentioned, never linked"
    apart means reading every note, which the concept editor's Isolated panel does."""
    index = index.snapshot()
    orphans = tuple(index.orphans())
    found = found_in(index)
    concepts = index.concepts.concepts
    isolated = isolated_concepts(concepts, found, {}, max_notes=max_notes)
    unrelated = None if related is None else tuple(related.without_related(threshold))
    return ThinSpots(threshold, unrelated, orphans, tuple(isolated), max_notes)
