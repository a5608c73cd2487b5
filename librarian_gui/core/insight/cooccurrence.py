"""Co-occurrence of concepts (DESIGN §4): the notes each concept is found in, and for two
concepts the notes they share, with Jaccard and lift so hubs do not dominate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..index.index import VaultIndex
from ..index.queries import concept_notes, is_index_note
from ..index.resolver import CONCEPT_PREFIX


def found_in(index: VaultIndex, *, include_index: bool = False) -> dict[str, frozenset[str]]:
    """Concept id → the notes it is found in: those linking the concept, or its note (a
    link to the note is a link to the concept). Its own note is not one of them, nor the
    index note unless ``include_index`` (hold ``index.lock``)."""
    found: dict[str, frozenset[str]] = {}
    notes = concept_notes(index)
    for concept in index.concepts.concepts:
        note = notes.get(concept.id)
        targets = [CONCEPT_PREFIX + concept.id] + ([note] if note is not None else [])
        sources = {
            s
            for target in targets
            for s in index.in_edges.get(target, {})
            if s in index.notes and s != note and (include_index or not is_index_note(s))
        }
        found[concept.id] = frozenset(sources)
    return found


@dataclass(frozen=True, slots=True)
class Pair:
    """Two concepts and the notes they share. ``jaccard``: shared / in either; ``lift``:
    shared / expected if they were independent (``notes`` × shared / (|a| × |b|))."""

    a: str
    b: str
    count: int
    jaccard: float
    lift: float
    notes: tuple[str, ...]


def _pair(a: str, b: str, found: Mapping[str, frozenset[str]], total: int) -> Pair | None:
    shared = found[a] & found[b]
    if not shared:
        return None
    union = len(found[a] | found[b])
    lift = total * len(shared) / (len(found[a]) * len(found[b]))
    return Pair(a, b, len(shared), len(shared) / union, lift, tuple(sorted(shared)))


def cooccurring(found: Mapping[str, frozenset[str]], concept: str, total: int) -> list[Pair]:
    """The concepts sharing notes with ``concept``: most shared first, then by lift, id.
    ``total``: the notes counted (the vault's, less the index note when it is left out)."""
    pairs = [
        pair
        for other in found
        if other != concept and (pair := _pair(concept, other, found, total)) is not None
    ]
    return sorted(pairs, key=lambda p: (-p.count, -p.lift, p.b))


def all_pairs(found: Mapping[str, frozenset[str]], total: int, *, min_count: int = 1) -> list[Pair]:
    """Every pair of concepts sharing at least ``min_count`` notes, each once (``a`` before
    ``b`` in dictionary order): most shared first, then by lift, ids."""
    ids = list(found)
    by_note: dict[str, list[int]] = {}
    for i, concept in enumerate(ids):
        for note in found[concept]:
            by_note.setdefault(note, []).append(i)
    seen: set[tuple[int, int]] = set()
    for members in by_note.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                seen.add((min(members[x], members[y]), max(members[x], members[y])))
    pairs = []
    for i, j in seen:
        pair = _pair(ids[i], ids[j], found, total)
        if pair is not None and pair.count >= min_count:
            pairs.append(pair)
    return sorted(pairs, key=lambda p: (-p.count, -p.lift, p.a, p.b))


def counted_notes(index: VaultIndex, *, include_index: bool = False) -> int:
    """The notes co-occurrence counts over (hold ``index.lock``)."""
    return sum(1 for rel in index.notes if include_index or not is_index_note(rel))
