"""The graph the canvas draws, as arrays: node ids, kinds, labels, and edges as row pairs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .index import VaultIndex
from .queries import neighbours, node_kind, node_label

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class GraphData:
    """Immutable: it crosses from a worker thread to the GUI."""

    ids: tuple[str, ...]
    kinds: tuple[str, ...]
    labels: tuple[str, ...]
    edges: IntArray  # (M, 2) rows into ``ids``: source → target, distinct, no self-loops

    def __post_init__(self) -> None:
        self.edges.setflags(write=False)


def global_graph(index: VaultIndex, kinds: Iterable[str] | None = None) -> GraphData:
    """Every node of the vault (of the given kinds), with every distinct edge between them."""
    with index.lock:
        nodes = set(index.notes) | set(index.attachments) | set(index.in_edges)
        return _build(index, nodes, kinds)


def local_graph(
    index: VaultIndex, centre: str, depth: int, kinds: Iterable[str] | None = None
) -> GraphData:
    """The nodes within ``depth`` hops of ``centre`` (links followed both ways)."""
    with index.lock:
        nodes = set(neighbours(index, centre, depth)) | {centre}
        return _build(index, nodes, kinds)


def _build(index: VaultIndex, nodes: set[str], kinds: Iterable[str] | None) -> GraphData:
    wanted = set(kinds) if kinds is not None else None
    kind_of = {node: node_kind(index, node) for node in nodes}
    if wanted is not None:
        nodes = {n for n in nodes if kind_of[n] in wanted}
    ids = tuple(sorted(nodes))
    row = {node: i for i, node in enumerate(ids)}
    pairs = [
        (row[source], row[target])
        for source in ids
        for target in index.out_edges.get(source, ())
        if target != source and target in row
    ]
    edges = np.array(pairs, np.int64).reshape(-1, 2)
    return GraphData(
        ids,
        tuple(kind_of[n] for n in ids),
        tuple(node_label(index, n) for n in ids),
        edges,
    )
