"""The concept map (issue 15): every concept of the dictionary as a node sized by the notes it
is found in, edges between concepts that share notes (count, Jaccard, lift), and where each
is drawn: a force layout of the linked concepts, the never-linked ones in a block beside it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ..concepts.dictionary import Concept
from ..graph.graphdata import category_colours
from ..index.snapshot import IndexView
from .cooccurrence import all_pairs, counted_notes, found_in
from .isolation import MAX_NOTES

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
_Array = TypeVar("_Array", bound=npt.NDArray[np.generic])

WEIGHTS = ("lift", "jaccard")  # what an edge's strength is read as, the view's choice
# The layout pulls each concept towards its few strongest partners only: at 1,000 concepts
# over 10,000 notes nearly every pair shares a note, and all of them would pull the map
# into one ball.
LAYOUT_NEIGHBOURS = 6
LAYOUT_MAX_STEPS = 500
LINK_DISTANCE = 30.0  # the layout's rest length (Forces' default): the map's unit
BLOCK_GAP = 60.0  # units between the rightmost label and the never-linked block
# The linked concepts are laid out SPREAD_SIZE units across, and the never-linked block
# beside them in rows of a label's line: a view framing the map gives about 0.8 pixel a
# unit, so a label's box is known in units (a dot, letters, a line of 8.5 pt text, with
# room to spare).
SPREAD_SIZE = 400.0
PIXELS_PER_UNIT = 0.8
MIN_DOT, MAX_DOT = 6, 26  # a concept's dot, in pixels (``dot_diameters``)
LABEL_DOT = 24.0
LABEL_LETTER = 8.5
LABEL_LINE = 22.0
SPREAD_ROUNDS = 60
SPREAD_MAX_NODES = 400


@dataclass(frozen=True, slots=True, eq=False)
class ConceptMap:
    """The map's arrays, row ``i`` being concept ``ids[i]`` (dictionary order).

    ``found``: the notes each is found in; ``edges`` (M, 2) rows ``a < b`` of concepts that
    share notes, with ``counts`` (notes shared), ``jaccard`` and ``lift`` per edge;
    ``never_linked``: found in no note; ``isolated``: found in at most ``max_notes``;
    ``positions`` (N, 2) once laid out (``lay_out``), else empty. Read-only arrays: safe to
    hand from the job thread to the window."""

    ids: tuple[str, ...]
    categories: tuple[str, ...]
    category_colours: tuple[tuple[str, str], ...]
    found: IntArray
    edges: IntArray
    counts: IntArray
    jaccard: FloatArray
    lift: FloatArray
    never_linked: BoolArray
    isolated: BoolArray
    max_notes: int
    total: int
    positions: FloatArray

    @property
    def dots(self) -> IntArray:
        """Each concept's dot, in pixels: bigger as it is found in more notes."""
        return dot_diameters(self.found)

    def weights(self, weight: str) -> FloatArray:
        """Each edge's strength as ``weight`` ("lift" or "jaccard") measures it."""
        if weight not in WEIGHTS:
            raise ValueError(f"weight must be one of {WEIGHTS}, not {weight!r}")
        return self.lift if weight == "lift" else self.jaccard

    def edges_at(self, weight: str, threshold: float) -> BoolArray:
        """Which edges are at least ``threshold`` strong by ``weight`` (the slider)."""
        return self.weights(weight) >= threshold

    def cooccurring(self, row: int) -> list[tuple[int, int]]:
        """The concepts sharing notes with concept ``row``, each with the notes shared: most
        shared first, then in dictionary order."""
        edges = self.edges
        touching = np.flatnonzero((edges[:, 0] == row) | (edges[:, 1] == row))
        others = edges[touching].sum(axis=1) - row  # the end that is not ``row``
        pairs = zip(others.tolist(), self.counts[touching].tolist(), strict=True)
        return sorted(pairs, key=lambda p: (-p[1], p[0]))


def concept_map(
    index: IndexView, *, include_index: bool = False, max_notes: int = MAX_NOTES
) -> ConceptMap:
    """The map of the index's dictionary, not laid out, from one snapshot of the index
    (the pairs take a second on a densely tagged vault; the updater never waits)."""
    index = index.snapshot()
    found = found_in(index, include_index=include_index)
    total = counted_notes(index, include_index=include_index)
    dictionary = index.concepts
    colours = category_colours(dictionary)
    return build(dictionary.concepts, found, total, colours, max_notes=max_notes)


def build(
    concepts: Sequence[Concept],
    found: Mapping[str, frozenset[str]],
    total: int,
    colours: tuple[tuple[str, str], ...] = (),
    *,
    max_notes: int = MAX_NOTES,
) -> ConceptMap:
    """The map's arrays from the notes each concept is found in (``cooccurrence.found_in``)
    over ``total`` notes."""
    ids = tuple(c.id for c in concepts)
    sizes = np.array([len(found.get(c, ())) for c in ids], np.int64)
    # Its rows index ``ids``: the table is made from a mapping in that order.
    pairs = all_pairs({c: found.get(c, frozenset()) for c in ids}, total)
    edges = np.stack([pairs.a, pairs.b], axis=1).astype(np.int64).reshape(-1, 2)
    return ConceptMap(
        ids=ids,
        categories=tuple(c.category for c in concepts),
        category_colours=colours,
        found=_frozen(sizes),
        edges=_frozen(edges),
        counts=_frozen(pairs.count.astype(np.int64)),
        jaccard=_frozen(pairs.jaccard.astype(np.float64)),
        lift=_frozen(pairs.lift.astype(np.float64)),
        never_linked=_frozen(sizes == 0),
        isolated=_frozen(sizes <= max_notes),
        max_notes=max_notes,
        total=total,
        positions=_frozen(np.empty((0, 2))),
    )


def layout_edges(cmap: ConceptMap, neighbours: int = LAYOUT_NEIGHBOURS) -> BoolArray:
    """The edges the layout pulls along: each concept's ``neighbours`` strongest by Jaccard
    (ties by more notes shared, then edge order), kept if either end chose it."""
    chosen = np.zeros(len(cmap.edges), bool)
    if not len(cmap.edges):
        return chosen
    order = np.lexsort((np.arange(len(cmap.edges)), -cmap.counts, -cmap.jaccard))
    taken = np.zeros(len(cmap.ids), np.int64)
    for edge in order.tolist():
        a, b = cmap.edges[edge]
        if taken[a] < neighbours or taken[b] < neighbours:
            chosen[edge] = True
            taken[a] += 1
            taken[b] += 1
    return chosen


def lay_out(
    cmap: ConceptMap,
    *,
    check: Callable[[], None] | None = None,
    previous: Mapping[str, tuple[float, float]] | None = None,
    seed: int = 1,
) -> ConceptMap:
    """The map with positions: the linked concepts by a force layout (``check`` is called
    between steps: it may raise to stop), started from ``previous`` positions where it has
    them (a map rebuilt after a change keeps its shape); the never-linked ones in a block to
    its right, sorted by category and id."""
    from ..graph.layout import Layout  # scipy's modules: only once a map is laid out

    n = len(cmap.ids)
    positions = np.zeros((n, 2))
    linked = np.flatnonzero(~cmap.never_linked)
    if len(linked):
        local = np.full(n, -1, np.int64)
        local[linked] = np.arange(len(linked))
        pulled = layout_edges(cmap)
        edges = local[cmap.edges[pulled]]
        jaccard = cmap.jaccard[pulled]
        weights = np.maximum(jaccard / jaccard.max(), 0.1) if len(jaccard) else None
        layout = Layout(seed=seed)
        ids = [cmap.ids[i] for i in linked.tolist()]
        layout.set_graph(ids, edges, weights, positions=previous)
        for _ in range(LAYOUT_MAX_STEPS):
            if check is not None:
                check()
            layout.step()
            if layout.settled:
                break
        rows = linked.tolist()
        letters = [len(cmap.ids[i]) for i in rows]
        positions[linked] = _spread(layout.positions, letters, cmap.dots[linked])
    apart = np.flatnonzero(cmap.never_linked)
    if len(apart):
        positions[apart] = _block(cmap, apart, positions[linked])
    return replace(cmap, positions=_frozen(positions))


def dot_diameters(found: IntArray) -> IntArray:
    """Dots from ``MIN_DOT`` to ``MAX_DOT`` pixels across, by the square root of the notes
    found in over the most any concept is found in."""
    counts = np.asarray(found, np.float64)
    top = float(counts.max()) if len(counts) and counts.max() > 0 else 1.0
    out: IntArray = np.rint(MIN_DOT + (MAX_DOT - MIN_DOT) * np.sqrt(counts / top)).astype(np.int64)
    return out


def label_box(letters: int) -> tuple[float, float]:
    """Width and height, in layout units, of a node with its label to the right, as a view
    framing the map draws them (see ``SPREAD_SIZE``)."""
    return LABEL_DOT + LABEL_LETTER * letters, LABEL_LINE


def _spread(positions: FloatArray, letters: Sequence[int], dots: IntArray) -> FloatArray:
    """The force layout made ``SPREAD_SIZE`` units across, then nodes pushed apart up and
    down until no node's box — its dot (``dots``, pixels) and its label right of it
    (``label_box``) — overlaps another's: a force layout packs a few concepts into a
    fraction of the view, dots on dots and labels on dots. Past ``SPREAD_MAX_NODES`` only
    the size is set (a big map labels what has room)."""
    n = len(positions)
    if n < 2:
        return positions
    centre = positions.mean(axis=0)
    across = float(np.ptp(positions, axis=0).max()) or 1.0
    pos: FloatArray = (positions - centre) * (SPREAD_SIZE / across)
    pos += centre
    if n > SPREAD_MAX_NODES:
        return pos
    radius = np.asarray(dots, np.float64) / 2.0 / PIXELS_PER_UNIT
    width = np.array([label_box(k)[0] for k in letters]) - LABEL_DOT + 2 * radius
    tall = np.maximum(LABEL_LINE, 2 * radius)
    others = ~np.eye(n, dtype=bool)
    order = np.arange(n)
    for _ in range(SPREAD_ROUNDS):
        x, y = pos[:, 0], pos[:, 1]
        left, right = x - radius, x - radius + width
        top, bottom = y - tall / 2.0, y + tall / 2.0
        wide = np.minimum(right[:, None], right[None, :]) - np.maximum(left[:, None], left[None, :])
        high = np.minimum(bottom[:, None], bottom[None, :]) - np.maximum(top[:, None], top[None, :])
        hit = (wide > 0) & (high > 0) & others
        if not hit.any():
            break
        # Each of a pair moves half the overlap away from the other (the later row down
        # when level), so a round parts every pair it meets.
        away = np.sign(y[:, None] - y[None, :])
        away = np.where(away == 0, np.sign(order[:, None] - order[None, :]), away)
        pos[:, 1] += np.where(hit, away * (high / 2.0 + 0.5), 0.0).sum(axis=1)
    return pos


def _block(cmap: ConceptMap, rows: IntArray, placed: FloatArray) -> FloatArray:
    """A grid of columns right of the placed nodes, top to bottom, then the next column;
    columns far enough apart for a label each."""
    order = sorted(rows.tolist(), key=lambda r: (cmap.categories[r], cmap.ids[r]))
    if len(placed):
        ends = placed[:, 0] + [
            label_box(len(cmap.ids[r]))[0] for r in np.flatnonzero(~cmap.never_linked)
        ]
        left = float(ends.max()) + BLOCK_GAP  # right of the rightmost label
        top = float(placed[:, 1].max())
        height = float(placed[:, 1].max() - placed[:, 1].min())
    else:
        left, top, height = 0.0, 0.0, 0.0
    # A label's line a row, as many rows as the map is tall (eight at least), in columns
    # of even length a label wide.
    step = LABEL_LINE
    per_column = max(8, int(height // step) + 1, math.ceil(math.sqrt(len(order) * 2)))
    per_column = math.ceil(len(order) / math.ceil(len(order) / per_column))
    widest = max(len(cmap.ids[r]) for r in order)
    column = label_box(widest)[0] + LABEL_DOT
    out = np.zeros((len(rows), 2))
    where = {r: i for i, r in enumerate(rows.tolist())}
    for k, r in enumerate(order):
        out[where[r]] = (left + (k // per_column) * column, top - (k % per_column) * step)
    return out


def _frozen(a: _Array) -> _Array:
    a.setflags(write=False)
    return a
