"""Isolated concepts (DESIGN §4): concepts found in at most N notes, a curator's worklist;
those never linked and those mentioned but never linked told apart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..concepts.dictionary import Concept

MAX_NOTES = 2  # DESIGN §4's default N

NEVER_LINKED = "never linked"  # found in no note, its aliases nowhere in the text either
MENTIONED_ONLY = "mentioned, never linked"  # the tagger would link it
RARE = "rarely linked"  # found in 1..N notes


@dataclass(frozen=True, slots=True)
class IsolatedConcept:
    id: str
    category: str
    notes: tuple[str, ...]  # the notes it is found in, sorted
    mentioned: int  # notes mentioning an alias without a link

    @property
    def status(self) -> str:
        if self.notes:
            return RARE
        return MENTIONED_ONLY if self.mentioned else NEVER_LINKED


def isolated_concepts(
    concepts: Sequence[Concept],
    found: Mapping[str, frozenset[str]],
    mentioned: Mapping[str, int],
    *,
    max_notes: int = MAX_NOTES,
) -> list[IsolatedConcept]:
    """The concepts found in at most ``max_notes`` notes: the least found first, then the
    most mentioned (the cheapest to link), then by id."""
    rows = [
        IsolatedConcept(c.id, c.category, tuple(sorted(found[c.id])), mentioned.get(c.id, 0))
        for c in concepts
        if len(found.get(c.id, ())) <= max_notes
    ]
    return sorted(rows, key=lambda r: (len(r.notes), -r.mentioned, r.id))
