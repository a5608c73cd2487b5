"""Where nodes without a position start: near their placed neighbours, else on a spiral."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]

# A new node lands uniformly in a disc around its placed neighbours' mean, of radius
# SPREAD * link distance * sqrt(nodes landing around the same neighbours), the disc moved
# outwards (away from where the growth began) by its radius. A single new node lands
# within one link distance; a hub's thousand new leaves spread out at about the spacing
# the forces will settle them at, instead of starting in one heap that then explodes.
SPREAD = 0.5
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
NUDGE = 0.1  # coincident cached nodes are parted by up to this share of the spread


def adjacency(n: int, src: IntArray, dst: IntArray) -> sp.csr_array:
    """The symmetric 0/1 adjacency of the graph, without self-loops."""
    keep = src != dst
    rows = np.concatenate([src[keep], dst[keep]])
    cols = np.concatenate([dst[keep], src[keep]])
    matrix = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    matrix.data[:] = 1.0  # duplicate edges were summed
    return matrix


def place(
    pos: FloatArray,
    placed: BoolArray,
    src: IntArray,
    dst: IntArray,
    rng: np.random.Generator,
    distance: float,
    loose: BoolArray | None = None,
) -> FloatArray:
    """``pos`` with every row not ``placed`` given a start: grown outwards, a ring of
    neighbours at a time, from the placed rows; a component with no placed row grows from
    its best-linked node, put on a spiral around what is already placed (the largest
    components innermost). Placed rows that are ``loose`` (read from a cache) and sit
    exactly on another placed row are nudged off it: no force could part them."""
    n = len(pos)
    pos = pos.copy()
    placed = placed.copy()
    spread = SPREAD * max(distance, 1.0)
    if loose is not None and loose.any():
        _part_coincident(pos, placed, loose, rng, spread * NUDGE)
    if placed.all():
        return pos
    graph = adjacency(n, src, dst)
    if placed.any():
        origin = np.broadcast_to(pos[placed].mean(axis=0), pos.shape)
        _grow(graph, pos, placed, origin, rng, spread)
        if placed.all():
            return pos
    labels = connected_components(graph, directed=False)[1]
    seeds, sizes = _seeds(graph, labels, placed)
    _put_on_spiral(pos, placed, seeds, sizes, spread)
    # Each component grows outwards from its own seed.
    seed_of = np.zeros(labels.max() + 1, dtype=np.intp)
    seed_of[labels[seeds]] = seeds
    _grow(graph, pos, placed, pos[seed_of[labels]], rng, spread)
    return pos


def _part_coincident(
    pos: FloatArray, placed: BoolArray, loose: BoolArray, rng: np.random.Generator, radius: float
) -> None:
    rows = np.flatnonzero(placed)
    _, first = np.unique(pos[rows], axis=0, return_index=True)
    repeated = np.ones(len(rows), dtype=bool)
    repeated[first] = False
    moving = rows[repeated & loose[rows]]
    if len(moving):
        r = radius * np.sqrt(rng.random(len(moving)))
        angle = rng.random(len(moving)) * (2 * math.pi)
        pos[moving, 0] += r * np.cos(angle)
        pos[moving, 1] += r * np.sin(angle)


def _grow(
    graph: sp.csr_array,
    pos: FloatArray,
    placed: BoolArray,
    origin: FloatArray,
    rng: np.random.Generator,
    spread: float,
) -> None:
    while True:
        mask = placed.astype(np.float64)
        touching = graph @ mask
        frontier = np.flatnonzero((touching > 0) & ~placed)
        if len(frontier) == 0:
            return
        centre = (graph @ (pos * mask[:, None]))[frontier] / touching[frontier, None]
        # How many frontier nodes land around each placed node, averaged over a frontier
        # node's placed neighbours: that many share the disc.
        is_frontier = np.zeros(len(pos))
        is_frontier[frontier] = 1.0
        crowd = (graph @ ((graph @ is_frontier) * mask))[frontier] / touching[frontier]
        disc = spread * np.sqrt(np.maximum(crowd, 1.0))
        radius = disc * np.sqrt(rng.random(len(frontier)))
        angle = rng.random(len(frontier)) * (2 * math.pi)
        # The disc is moved outwards, away from where the growth began, by its radius:
        # rings of neighbours then unfold instead of heaping up on each other.
        outwards = centre - origin[frontier]
        length = np.sqrt(np.einsum("ij,ij->i", outwards, outwards))
        shift = np.where(length > 0, disc / np.maximum(length, 1e-300), 0.0)
        pos[frontier, 0] = centre[:, 0] + radius * np.cos(angle) + shift * outwards[:, 0]
        pos[frontier, 1] = centre[:, 1] + radius * np.sin(angle) + shift * outwards[:, 1]
        placed[frontier] = True


def _seeds(graph: sp.csr_array, labels: IntArray, placed: BoolArray) -> tuple[IntArray, IntArray]:
    """One row per component with nothing placed (its best-linked, lowest row first), and
    the component's size; largest components first."""
    rows = np.flatnonzero(~placed)
    degree = np.diff(graph.indptr)[rows]
    order = np.lexsort((rows, -degree, labels[rows]))
    ranked = rows[order]
    first = np.ones(len(ranked), dtype=bool)
    first[1:] = labels[ranked[1:]] != labels[ranked[:-1]]
    seeds = ranked[first]
    sizes = np.bincount(labels[rows])[labels[seeds]]
    by_size = np.lexsort((seeds, -sizes))
    return seeds[by_size], sizes[by_size]


def _put_on_spiral(
    pos: FloatArray,
    placed: BoolArray,
    rows: IntArray,
    sizes: IntArray,
    spread: float,
) -> None:
    """Each seed in the middle of a ring wide enough for its component, around the placed
    rows' centre (the origin when none are placed)."""
    if placed.any():
        centre = pos[placed].mean(axis=0)
        inner = float(np.sqrt(((pos[placed] - centre) ** 2).sum(axis=1)).max())
    else:
        centre, inner = np.zeros(2), 0.0
    before = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.float64)
    # The first component of an empty layout sits at the centre; every other one halfway
    # through the ring its nodes will take.
    middle = before + np.where((before > 0) | (inner > 0), sizes / 2, 0.0)
    radius = np.sqrt(inner * inner + spread * spread * middle)
    angle = np.arange(len(rows)) * GOLDEN_ANGLE
    pos[rows, 0] = centre[0] + radius * np.cos(angle)
    pos[rows, 1] = centre[1] + radius * np.sin(angle)
    placed[rows] = True


BLOCK_GAP = 3  # the orphans' block starts this many spacings right of the linked nodes


def orphan_block(linked: FloatArray, count: int, spacing: float) -> FloatArray:
    """``count`` positions in a grid, ``spacing`` apart, filled left to right and top to
    bottom (y up): right of the box the ``linked`` positions span and centred on its
    height, about square but no taller than that box; centred on the origin when nothing is
    linked. Nodes with no edge stand apart there instead of in a ring around the graph."""
    if count <= 0:
        return np.empty((0, 2))
    side = math.ceil(math.sqrt(count))
    if len(linked):
        y_min = float(linked[:, 1].min())
        x_max, y_max = float(linked[:, 0].max()), float(linked[:, 1].max())
        rows = max(1, min(side, int((y_max - y_min) // spacing) + 1))
    else:
        rows = side
    cols = math.ceil(count / rows)
    i = np.arange(count)
    col, row = i % cols, i // cols
    if len(linked):
        x = x_max + BLOCK_GAP * spacing + col * spacing
        y = (y_min + y_max) / 2 + ((rows - 1) / 2 - row) * spacing
    else:
        x = (col - (cols - 1) / 2) * spacing
        y = ((rows - 1) / 2 - row) * spacing
    return np.column_stack([x, y]).astype(np.float64)
