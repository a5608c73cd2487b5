"""The docked local graph: the open note's neighbourhood, trimmed to what a sidebar can show,
laid out to rest with the note pinned at the centre (small enough to finish in a job)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ..index.snapshot import IndexView
from .graphdata import GraphData, GraphFilter, local_graph
from .layout import Layout

FloatArray = npt.NDArray[np.float64]
T = TypeVar("T", bound=np.generic)

LOCAL_LIMIT = 200  # nodes at most: past it, the best-linked neighbours are kept
LOCAL_STEPS = 300  # the layout's steps at most (d3's whole schedule)
LOCAL_KINDS = ("note", "concept", "unresolved")


@dataclass(frozen=True, slots=True)
class LocalView:
    """A local graph ready to draw: the graph, its positions (the centre at the origin),
    the centre's row, the rows one hop from it, and how many nodes the depth reached before
    trimming (``total``)."""

    graph: GraphData
    positions: FloatArray
    centre: int
    near: tuple[int, ...]
    total: int


def local_view(
    index: IndexView, centre: str, depth: int, limit: int = LOCAL_LIMIT
) -> LocalView | None:
    """The graph within ``depth`` (1 or 2) hops of ``centre``, laid out; None when
    ``centre`` is not a node of the vault."""
    graph = local_graph(index, centre, depth, filters=GraphFilter(kinds=LOCAL_KINDS))
    rows = graph.rows or {node: i for i, node in enumerate(graph.ids)}
    if centre not in rows:
        return None
    total = len(graph.ids)
    if total > limit:
        graph = _trimmed(graph, rows[centre], limit)
        rows = graph.rows or {}
    row = rows[centre]
    edges = graph.edges
    near = sorted(
        {int(t) for s, t in edges.tolist() if s == row}
        | {int(s) for s, t in edges.tolist() if t == row}
    )
    layout = Layout(seed=1, orphan_block=True)
    layout.set_graph(graph.ids, edges)
    layout.pin(centre, (0.0, 0.0))
    steps = 0
    while not layout.settled and steps < LOCAL_STEPS:
        layout.step()
        steps += 1
    return LocalView(graph, np.array(layout.positions), row, tuple(near), total)


def _trimmed(graph: GraphData, centre: int, limit: int) -> GraphData:
    """The centre, its direct neighbours and then the others, best-linked first, up to
    ``limit`` nodes, with the edges between them."""
    n = len(graph.ids)
    edges = graph.edges
    degree = np.bincount(edges.ravel(), minlength=n)
    direct = np.zeros(n, bool)
    direct[edges[edges[:, 0] == centre, 1]] = True
    direct[edges[edges[:, 1] == centre, 0]] = True
    order = np.lexsort((np.arange(n), -degree, ~direct))  # direct first, then by degree
    order = order[order != centre]
    keep = np.zeros(n, bool)
    keep[centre] = True
    keep[order[: limit - 1]] = True
    new_row = np.cumsum(keep) - 1
    inside = keep[edges[:, 0]] & keep[edges[:, 1]]
    kept = new_row[edges[inside]].astype(np.int64).reshape(-1, 2)
    ids = tuple(node for node, k in zip(graph.ids, keep.tolist(), strict=True) if k)

    def pick(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(v for v, k in zip(values, keep.tolist(), strict=True) if k) if values else ()

    def part(array: npt.NDArray[T] | None) -> npt.NDArray[T] | None:
        return None if array is None else np.array(array[keep])

    return replace(
        graph,
        ids=ids,
        kinds=pick(graph.kinds),
        labels=pick(graph.labels),
        edges=kept,
        categories=pick(graph.categories),
        folders=pick(graph.folders),
        degree=part(graph.degree),
        linked_by=part(graph.linked_by),
        isolated=part(graph.isolated),
        draw_edges=None,
        rows=dict(zip(ids, range(len(ids)), strict=True)),
        main=None,
    )
