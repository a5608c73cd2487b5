"""Vault-wide counts the side lists show: notes per tag, notes linking each concept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..courtesy import gc_paused
from ..insight.cooccurrence import found_in
from .snapshot import IndexView


@dataclass(frozen=True, slots=True)
class ConceptLinks:
    """A concept of the dictionary and the number of notes linking it."""

    id: str
    category: str
    linked: int
    color: str = ""


def concept_links(index: IndexView) -> list[ConceptLinks]:
    """One row per concept of the dictionary, in dictionary order: the notes linking it or
    its note (DESIGN §2), the index note included (read from a snapshot)."""
    found = found_in(index, include_index=True)
    return [
        ConceptLinks(c.id, c.category, len(found[c.id]), c.color) for c in index.concepts.concepts
    ]


def tag_counts(tag_sets: Iterable[Iterable[str]]) -> Counter[str]:
    """Notes per tag; a nested tag ``a/b`` also counts for ``a``, as in Obsidian."""
    counts: Counter[str] = Counter()
    for tags in tag_sets:
        names: set[str] = set()
        for tag in tags:
            parts = tag.split("/")
            names.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        counts.update(names)
    return counts


def vault_tag_counts(index: IndexView, check: Callable[[], None]) -> Counter[str]:
    """Notes per tag over the whole vault. ``check`` is called every 500 notes (it may
    raise to stop, or wait for the GUI thread)."""
    index = index.snapshot()
    records = list(index.notes.values())
    tags = []
    # Each note's tag names are read from its parse's bytes and kept with its record (its
    # whole parse is not kept: 190,000 link objects at 10,000 notes): frozen, full
    # collections do not walk them again.
    with gc_paused():
        for i, record in enumerate(records):
            if i % 500 == 0:
                check()
            tags.append(record.tag_names)
    return tag_counts(tags)
