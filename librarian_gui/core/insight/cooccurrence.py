"""Co-occurrence of concepts (DESIGN §4): the notes each concept is found in, and for two
concepts the notes they share, with Jaccard and lift so hubs do not dominate."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..index.queries import concept_notes, is_index_note
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView

if TYPE_CHECKING:  # numpy loads when pairs are counted, not with the tagger's imports
    import numpy as np
    import numpy.typing as npt


def found_in(
    index: IndexView, *, include_index: bool = False, at_most: int | None = None
) -> dict[str, frozenset[str]]:
    """Concept id → the notes it is found in: those linking the concept, or its note (a
    link to the note is a link to the concept). Its own note is not one of them, nor the
    index note unless ``include_index`` (read from a snapshot). ``at_most``: only the
    concepts found in at most that many notes."""
    return {
        concept_id: frozenset(sources)
        for concept_id, sources in _linking(index, include_index)
        if at_most is None or len(sources) <= at_most
    }


def _linking(index: IndexView, include_index: bool) -> Iterator[tuple[str, Collection[str]]]:
    """Each concept (in dictionary order) with the notes it is found in, as ``found_in``
    counts them. Set operations only, and for most concepts none at all (the index's own
    map of the notes linking it is given as it is): 2 million memberships, 1,000 concepts
    tagged over 10,000 notes, in a fraction of a second."""
    notes = concept_notes(index)
    in_edges = index.in_edges
    left_out = set() if include_index else {rel for rel in index.notes if is_index_note(rel)}
    empty: dict[str, int] = {}
    for concept in index.concepts.concepts:
        note = notes.get(concept.id)
        linking = in_edges.get(CONCEPT_PREFIX + concept.id, empty)
        if note is None and not any(rel in linking for rel in left_out):
            yield concept.id, linking.keys()
            continue
        sources = set(linking)
        if note is not None:
            sources.update(in_edges.get(note, empty))
            sources.discard(note)
        yield concept.id, sources - left_out


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


# Shared notes of every pair as one dense product (BLAS, both cores) while the concepts ×
# notes matrix and the concepts × concepts result stay small; past that, a sparse product.
DENSE_CELLS = 50_000_000
DENSE_CONCEPTS = 5_000


@dataclass(frozen=True, slots=True)
class PairTable:
    """Pairs as columns: a tagged vault has hundreds of thousands of them, and half a
    million ``Pair`` objects took seconds to make. Row ``k`` joins ``ids[a[k]]`` and
    ``ids[b[k]]``; iterating makes the rows ``Pair``s (without the notes shared)."""

    ids: tuple[str, ...]
    a: npt.NDArray[np.int64]
    b: npt.NDArray[np.int64]
    count: npt.NDArray[np.int64]
    jaccard: npt.NDArray[np.float64]
    lift: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.count)

    def rows(self) -> Iterator[tuple[str, str, int, float, float]]:
        """(a, b, count, Jaccard, lift) per row, in order."""
        ids = self.ids
        names = zip(
            (ids[i] for i in self.a.tolist()), (ids[i] for i in self.b.tolist()), strict=True
        )
        columns = zip(self.count.tolist(), self.jaccard.tolist(), self.lift.tolist(), strict=True)
        for (x, y), (count, jaccard, lift) in zip(names, columns, strict=True):
            yield x, y, count, jaccard, lift

    def __iter__(self) -> Iterator[Pair]:
        for x, y, count, jaccard, lift in self.rows():
            yield Pair(x, y, count, jaccard, lift, ())


def all_pairs(found: Mapping[str, frozenset[str]], total: int, *, min_count: int = 1) -> PairTable:
    """Every pair of concepts sharing at least ``min_count`` notes, each once (``a`` before
    ``b`` in dictionary order): most shared first, then by lift, ids.

    The notes shared are counted as a matrix product (concepts × notes, times its
    transpose): 1,000 concepts found in 2 million places over 10,000 notes take a fraction
    of a second, where walking each note's pairs took minutes."""
    import numpy as np

    ids = tuple(found)
    everything: set[str] = set().union(*found.values()) if ids else set()
    column = {note: i for i, note in enumerate(sorted(everything))}
    where = column.__getitem__
    members = [np.fromiter(map(where, found[c]), dtype=np.int64, count=len(found[c])) for c in ids]
    return _table(ids, members, len(column), total, min_count)


def pair_table(index: IndexView, *, include_index: bool = False, min_count: int = 1) -> PairTable:
    """``all_pairs(found_in(index), counted_notes(index))`` straight from the index's edges,
    without sets of the notes' names in between (a fifth of the time at 2 million places)
    (read from a snapshot)."""
    import numpy as np

    column = {rel: i for i, rel in enumerate(index.notes)}
    where = column.__getitem__
    ids = []
    members = []
    for concept_id, sources in _linking(index, include_index):
        ids.append(concept_id)
        members.append(np.fromiter(map(where, sources), dtype=np.int64, count=len(sources)))
    total = counted_notes(index, include_index=include_index)
    return _table(tuple(ids), members, len(column), total, min_count)


def _table(
    ids: tuple[str, ...],
    members: list[npt.NDArray[np.int64]],
    columns: int,
    total: int,
    min_count: int,
) -> PairTable:
    """The pairs of concepts ``ids`` (``members[i]``: the columns of the notes ``ids[i]`` is
    found in, each once) sharing at least ``min_count`` notes, in order."""
    import numpy as np

    sizes = np.array([len(m) for m in members], dtype=np.int64)
    cols = np.concatenate(members) if members else np.empty(0, dtype=np.int64)
    rows = np.repeat(np.arange(len(ids), dtype=np.int64), sizes)
    a, b, count = _shared_counts(rows, cols, len(ids), columns, max(min_count, 1))
    union = sizes[a] + sizes[b] - count
    jaccard = count / np.maximum(union, 1)
    lift = (total * count) / np.maximum(sizes[a] * sizes[b], 1)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(np.array(ids, dtype=object), kind="stable")] = np.arange(len(ids))
    by_ids = rank[a] * len(ids) + rank[b]  # ties of count and lift: by the two ids
    order = np.lexsort((by_ids, -lift, -count))
    return PairTable(ids, a[order], b[order], count[order], jaccard[order], lift[order])


def _shared_counts(
    rows: npt.NDArray[np.int64],
    cols: npt.NDArray[np.int64],
    concepts: int,
    notes: int,
    least: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For the incidence (rows[i] is found in cols[i]): the pairs a < b sharing at least
    ``least`` notes, and how many each shares (int64 arrays)."""
    import numpy as np

    if not len(rows):
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty
    if concepts * notes <= DENSE_CELLS and concepts <= DENSE_CONCEPTS:
        matrix = np.zeros((concepts, notes), dtype=np.float32)  # counts < 2**24: exact
        matrix[rows, cols] = 1.0
        shared = matrix @ matrix.T
        a, b = np.nonzero(np.triu(shared, 1) >= least)
        return a, b, shared[a, b].astype(np.int64)
    from scipy import sparse

    ones = np.ones(len(rows), dtype=np.int32)
    incidence = sparse.csr_matrix((ones, (rows, cols)), shape=(concepts, notes))
    product = sparse.triu(incidence @ incidence.T, k=1).tocoo()
    keep = product.data >= least
    return (
        product.row[keep].astype(np.int64),
        product.col[keep].astype(np.int64),
        product.data[keep].astype(np.int64),
    )


def counted_notes(index: IndexView, *, include_index: bool = False) -> int:
    """The notes co-occurrence counts over (read from a snapshot)."""
    return sum(1 for rel in index.notes if include_index or not is_index_note(rel))
