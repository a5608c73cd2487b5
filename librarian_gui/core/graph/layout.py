"""The graph view's force layout: an incremental, seeded simulation keyed by node id."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .forces import Repulsion, link_forces
from .layout_cache import layout_file, load_positions, save_positions
from .place import orphan_block, place

__all__ = ["Forces", "Layout", "layout_file", "load_positions", "save_positions"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

# d3-force's schedule: alpha falls from 1 to ALPHA_MIN in 300 steps, each step keeps
# 1 - VELOCITY_DECAY of the velocity.
ALPHA_MIN = 0.001
ALPHA_DECAY = 1 - ALPHA_MIN ** (1 / 300)
VELOCITY_DECAY = 0.4
# A change to a laid-out graph raises alpha to at least this (plus the share of nodes that
# are new): enough to make room, small enough that the rest keeps its shape.
REHEAT = 0.1
# DESIGN §4: settled once no node moves more than this fraction of the bounding box's
# diagonal, for this many steps in a row.
SETTLE_FRACTION = 0.005
SETTLE_STEPS = 10
# No node moves more than this many link distances in one step: a node dropped into a
# crowd, or a slider pulled to its end, must not fling the layout apart.
MAX_SPEED = 10.0
ORPHAN_SPACING = 0.75  # link distances between neighbours of the orphans' block


@dataclass(frozen=True, slots=True)
class Forces:
    """The strengths the graph view's sliders set (d3-force's meanings and defaults)."""

    repel: float = 30.0  # many-body strength: pairs repel with repel / distance
    link_strength: float = 1.0  # times d3's 1 / min(degree of either end), at most 1
    link_distance: float = 30.0  # a link's rest length
    centre: float = 0.01  # pull towards the origin, as d3's forceX/forceY strength

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{field.name} must be a finite number ≥ 0, not {value}")


class Layout:
    """Positions of a graph's nodes under a force simulation, advanced a step at a time.

    Nodes are id strings; ``ids`` gives their rows in ``positions`` and edges are (M, 2)
    arrays of rows. Every change keeps the other nodes where they are and reheats a little.
    The same graph, changes and seed give the same positions, bit for bit. Not thread-safe:
    one thread drives it; ``positions`` is never written after it is returned, so it can
    be handed to another thread as it is.

    With ``orphan_block``, nodes with no edge (and not pinned) take no part in the
    simulation: they stand in a tidy grid right of the others (``place.orphan_block``, in
    row order), rather than in the ring the repulsion and the centring push them into.
    """

    def __init__(
        self, seed: int = 0, forces: Forces | None = None, *, orphan_block: bool = False
    ) -> None:
        self._orphan_block = orphan_block
        self._linked: IntArray | None = None  # rows simulated with orphan_block; None: all
        self._sub_src: IntArray = np.zeros(0, dtype=np.intp)
        self._sub_dst: IntArray = np.zeros(0, dtype=np.intp)
        self._rng = np.random.default_rng(seed)
        self._forces = forces or Forces()
        self._repulsion = Repulsion()
        self._ids: tuple[str, ...] = ()
        self._row: dict[str, int] = {}
        self._pos: FloatArray = _frozen(np.zeros((0, 2)))
        self._vel: FloatArray = np.zeros((0, 2))
        self._pinned = np.zeros(0, dtype=bool)
        self._src: IntArray = np.zeros(0, dtype=np.intp)
        self._dst: IntArray = np.zeros(0, dtype=np.intp)
        self._weight: FloatArray = np.zeros(0)
        self._strength: FloatArray = np.zeros(0)
        self._bias: FloatArray = np.zeros(0)
        self.alpha = 0.0
        self.alpha_target = 0.0  # the view holds it above 0 while a node is dragged
        self._last_fraction = math.inf
        self._calm = 0

    # ------------------------------------------------------------------ reading

    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    @property
    def positions(self) -> FloatArray:
        """(N, 2), read-only, never changed afterwards: each step makes a new array."""
        return self._pos

    @property
    def edges(self) -> IntArray:
        return np.stack([self._src, self._dst], axis=1)

    @property
    def forces(self) -> Forces:
        return self._forces

    def row(self, node: str) -> int:
        return self._row[node]

    def position(self, node: str) -> tuple[float, float]:
        x, y = self._pos[self._row[node]]
        return float(x), float(y)

    def bounds(self) -> tuple[float, float, float, float]:
        """(x min, y min, x max, y max); all zero for an empty graph."""
        if not len(self._pos):
            return 0.0, 0.0, 0.0, 0.0
        lo, hi = self._pos.min(axis=0), self._pos.max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])

    def max_step_fraction(self) -> float:
        """The largest distance a node moved in the last step over the diagonal of the
        bounding box (at least one link distance); inf before the first step after a
        change."""
        return self._last_fraction

    @property
    def settled(self) -> bool:
        """DESIGN §4's rule: the last SETTLE_STEPS steps each moved no node more than
        SETTLE_FRACTION of the bounding box's diagonal."""
        return self._calm >= SETTLE_STEPS

    def is_pinned(self, node: str) -> bool:
        return bool(self._pinned[self._row[node]])

    # ------------------------------------------------------------------ changing

    def set_graph(
        self,
        ids: Sequence[str],
        edges: npt.ArrayLike,
        weights: npt.ArrayLike | None = None,
        *,
        positions: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        """Make the graph these nodes and edges ((M, 2) rows into ``ids``; ``weights``
        scale each link's pull, from 0 to 1). A node already here keeps its position, pin
        and velocity; else it starts at its entry in ``positions`` (a cache), else near
        its placed neighbours."""
        ids = tuple(ids)
        if len(set(ids)) != len(ids):
            raise ValueError("node ids must be distinct")
        n = len(ids)
        src, dst, weight = _checked_edges(edges, weights, n)
        pos = np.zeros((n, 2))
        vel = np.zeros((n, 2))
        pinned = np.zeros(n, dtype=bool)
        known = np.zeros(n, dtype=bool)
        cached = np.zeros(n, dtype=bool)
        for i, node in enumerate(ids):
            old = self._row.get(node)
            if old is not None:
                pos[i], vel[i], pinned[i] = self._pos[old], self._vel[old], self._pinned[old]
                known[i] = True
            elif positions is not None and node in positions:
                x, y = positions[node]
                if math.isfinite(x) and math.isfinite(y):
                    pos[i] = x, y
                    cached[i] = True
        placed = place(
            pos, known | cached, src, dst, self._rng, self._forces.link_distance, loose=cached
        )
        self._ids, self._row = ids, {node: i for i, node in enumerate(ids)}
        self._pos, self._vel, self._pinned = _frozen(placed), vel, pinned
        self._use_edges(src, dst, weight)
        if self._linked is not None:
            self._pos = _frozen(self._with_orphans_placed(placed.copy()))
        new = n - int((known | cached).sum())
        self.reheat(min(1.0, REHEAT + (1 - REHEAT) * new / n) if new else REHEAT)

    def set_edges(self, edges: npt.ArrayLike, weights: npt.ArrayLike | None = None) -> None:
        """New edges between the same nodes; nothing moves until the next step."""
        self._use_edges(*_checked_edges(edges, weights, len(self._ids)))
        self.reheat()

    def add_nodes(
        self, ids: Sequence[str], neighbours: Mapping[str, Iterable[str]] | None = None
    ) -> None:
        """Add nodes, each linked to its ``neighbours`` (nodes here or added with it),
        started near those already placed."""
        ids = [node for node in ids if node not in self._row]
        if not ids:
            return
        neighbours = neighbours or {}
        all_ids = self._ids + tuple(ids)
        row = {node: i for i, node in enumerate(all_ids)}
        pairs = [
            (row[node], row[other])
            for node in ids
            for other in neighbours.get(node, ())
            if other in row and other != node
        ]
        new = np.array(pairs, dtype=np.intp).reshape(-1, 2)
        edges = np.concatenate([self.edges, new])
        weights = np.concatenate([self._weight, np.ones(len(new))])
        self.set_graph(all_ids, edges, weights)

    def remove_nodes(self, ids: Iterable[str]) -> None:
        """Drop nodes and their edges; the others stay exactly where they are."""
        gone = {self._row[node] for node in ids if node in self._row}
        if not gone:
            return
        keep = np.ones(len(self._ids), dtype=bool)
        keep[list(gone)] = False
        new_row = np.cumsum(keep) - 1
        links = keep[self._src] & keep[self._dst]
        edges = np.stack([new_row[self._src[links]], new_row[self._dst[links]]], axis=1)
        weights = self._weight[links]
        self._ids = tuple(node for node, k in zip(self._ids, keep, strict=True) if k)
        self._row = {node: i for i, node in enumerate(self._ids)}
        self._pos = _frozen(self._pos[keep])
        self._vel, self._pinned = self._vel[keep], self._pinned[keep]
        self._use_edges(*_checked_edges(edges, weights, len(self._ids)))
        self.reheat()

    def pin(self, node: str, xy: tuple[float, float]) -> None:
        """Hold a node at ``xy`` (a drag, or the user placing it) until ``unpin``."""
        i = self._row[node]
        x, y = float(xy[0]), float(xy[1])
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"cannot pin {node!r} at a non-finite position {xy!r}")
        moved = bool((self._pos[i] != (x, y)).any())
        self._pinned[i] = True
        self._vel[i] = 0.0
        if self._orphan_block:  # a pinned orphan leaves the block while it is held
            self._use_edges(self._src, self._dst, self._weight)
        if moved:
            pos = self._pos.copy()
            pos[i] = x, y
            self._pos = _frozen(pos)
            self.reheat()

    def unpin(self, node: str) -> None:
        self._pinned[self._row[node]] = False
        if self._orphan_block:
            self._use_edges(self._src, self._dst, self._weight)
            if self._linked is not None:
                self._pos = _frozen(self._with_orphans_placed(self._pos.copy()))

    def set_forces(
        self,
        *,
        repel: float | None = None,
        link_strength: float | None = None,
        link_distance: float | None = None,
        centre: float | None = None,
    ) -> None:
        """Change strengths (a slider moved); takes effect from the next step."""
        changes = {
            name: float(value)
            for name, value in (
                ("repel", repel),
                ("link_strength", link_strength),
                ("link_distance", link_distance),
                ("centre", centre),
            )
            if value is not None
        }
        self._forces = dataclasses.replace(self._forces, **changes)
        self._strength, self._bias = self._link_terms()
        self.reheat()

    def reheat(self, alpha: float = REHEAT) -> None:
        """Wake the layout for a change: alpha becomes ``alpha`` if it had settled (however
        warm it stopped), else at least ``alpha``; calm steps are counted afresh."""
        self.alpha = alpha if self.settled else max(self.alpha, alpha)
        self._calm = 0
        self._last_fraction = math.inf

    # ------------------------------------------------------------------ simulating

    def step(self, n: int = 1) -> None:
        """Advance the simulation ``n`` steps."""
        for _ in range(n):
            self._step()

    def _step(self) -> None:
        rows = self._linked
        if not len(self._ids) or (rows is not None and not len(rows)):
            self._last_fraction, self._calm = 0.0, self._calm + 1
            return
        forces = self._forces
        self.alpha += (self.alpha_target - self.alpha) * ALPHA_DECAY
        alpha = self.alpha
        if rows is None:
            pos, old_vel, pinned = self._pos, self._vel, self._pinned
            src, dst = self._src, self._dst
        else:
            pos, old_vel, pinned = self._pos[rows], self._vel[rows], self._pinned[rows]
            src, dst = self._sub_src, self._sub_dst
        push = self._repulsion(pos)
        push *= forces.repel * alpha
        push += alpha * link_forces(
            pos, old_vel, src, dst, self._strength, self._bias, forces.link_distance
        )
        push -= (forces.centre * alpha) * pos
        vel = old_vel + push
        vel *= 1 - VELOCITY_DECAY
        speed = np.sqrt(np.einsum("ij,ij->i", vel, vel))
        limit = MAX_SPEED * max(forces.link_distance, 1.0)
        if speed.max() > limit:
            vel *= (limit / np.maximum(speed, limit))[:, None]
            speed = np.minimum(speed, limit)
        vel[pinned] = 0.0
        speed[pinned] = 0.0
        moved = pos + vel
        if rows is None:
            self._vel = vel
            self._pos = _frozen(moved)
        else:
            self._vel = self._vel.copy()
            self._vel[rows] = vel
            full = self._pos.copy()
            full[rows] = moved
            self._pos = _frozen(self._with_orphans_placed(full))
        lo, hi = moved.min(axis=0), moved.max(axis=0)
        diagonal = max(math.hypot(*(hi - lo)), forces.link_distance, 1.0)
        self._last_fraction = float(speed.max()) / diagonal
        self._calm = self._calm + 1 if self._last_fraction < SETTLE_FRACTION else 0

    # ------------------------------------------------------------------ internals

    def _use_edges(self, src: IntArray, dst: IntArray, weight: FloatArray) -> None:
        self._src, self._dst, self._weight = src, dst, weight
        self._strength, self._bias = self._link_terms()
        self._linked = None
        if self._orphan_block:
            n = len(self._ids)
            simulated = np.zeros(n, dtype=bool)
            simulated[src] = True
            simulated[dst] = True
            simulated |= self._pinned
            if not simulated.all():
                rows = np.flatnonzero(simulated)
                sub_row = np.cumsum(simulated) - 1
                self._linked = rows
                self._sub_src, self._sub_dst = sub_row[src], sub_row[dst]

    def _with_orphans_placed(self, pos: FloatArray) -> FloatArray:
        """``pos`` with the rows left out of the simulation moved into their block."""
        rows = self._linked
        assert rows is not None
        orphans = np.ones(len(pos), dtype=bool)
        orphans[rows] = False
        spacing = ORPHAN_SPACING * max(self._forces.link_distance, 1.0)
        pos[orphans] = orphan_block(pos[rows], int(orphans.sum()), spacing)
        return pos

    def _link_terms(self) -> tuple[FloatArray, FloatArray]:
        """d3's defaults: a link's pull is 1 / the smaller degree of its ends, and the
        better-linked end moves less (its share is the other's degree over the sum)."""
        n = len(self._ids)
        degree = (np.bincount(self._src, minlength=n) + np.bincount(self._dst, minlength=n)).astype(
            np.float64
        )
        ds, dt = degree[self._src], degree[self._dst]
        strength = np.minimum(self._forces.link_strength * self._weight / np.minimum(ds, dt), 1)
        return strength, ds / (ds + dt)


def _checked_edges(
    edges: npt.ArrayLike, weights: npt.ArrayLike | None, n: int
) -> tuple[IntArray, IntArray, FloatArray]:
    """Sources, targets and weights (clipped to 0..1) of the edges, less self-links (which
    pull nothing); ValueError if a row is out of range or the weights do not match."""
    pairs = np.asarray(edges, dtype=np.intp).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
        raise ValueError(f"edge rows must be in 0..{n - 1}")
    w = np.ones(len(pairs)) if weights is None else np.asarray(weights, np.float64)
    if w.shape != (len(pairs),):
        raise ValueError(f"{len(pairs)} edges but {w.size} weights")
    keep = pairs[:, 0] != pairs[:, 1]
    return (
        np.ascontiguousarray(pairs[keep, 0]),
        np.ascontiguousarray(pairs[keep, 1]),
        np.clip(np.nan_to_num(w[keep]), 0.0, 1.0),
    )


def _frozen(a: FloatArray) -> FloatArray:
    a.setflags(write=False)
    return a
