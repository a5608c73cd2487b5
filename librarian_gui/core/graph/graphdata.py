"""The graph the canvas draws, as arrays: node ids, kinds, labels, categories, folders, and
edges as row pairs; and the display filters that choose its nodes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..concepts.dictionary import ConceptDictionary
from ..index.queries import concept_notes, is_index_note, neighbours, node_kind, node_label
from ..index.resolver import CONCEPT_PREFIX, TAG_PREFIX, is_file_node
from ..index.snapshot import IndexView
from ..parse.records import NoteRecord

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

DEFAULT_KINDS = ("note", "concept", "unresolved")


@dataclass(frozen=True, slots=True)
class GraphFilter:
    """What the graph view shows (immutable: it is handed to the job thread).

    ``category``: only concepts of that category (and concept pages) and the notes linking
    them. ``path``: only files whose path starts with it (case-insensitive), and the concepts,
    tags and unresolved targets they link. ``isolated_only``: only concepts found in at most
    ``isolated_max`` notes and the notes linking them. ``hide_orphans`` is applied last: a
    node with no edge in the graph as filtered is left out.
    """

    kinds: tuple[str, ...] = DEFAULT_KINDS
    category: str = ""
    path: str = ""
    hide_orphans: bool = False
    isolated_only: bool = False
    isolated_max: int = 2


@dataclass(frozen=True, slots=True)
class GraphData:
    """Immutable: it crosses from a worker thread to the GUI.

    ``categories`` is a concept's category (also for a note that is a concept's page), else
    "". ``folders`` is a file's top folder ("" at the vault root and for other nodes).
    ``degree`` counts edges in this graph; ``linked_by`` the distinct notes that link a
    concept anywhere in the vault (0 for other nodes); ``isolated`` marks concepts found in
    at most the filter's ``isolated_max`` notes. ``isolated_total`` counts those in the
    whole vault, ``unused`` the dictionary's concepts no note links at all.
    ``category_colours`` lists the dictionary's categories in file order, each with the
    first ``color`` one of its concepts gives ("" when none does).
    """

    ids: tuple[str, ...]
    kinds: tuple[str, ...]
    labels: tuple[str, ...]
    edges: IntArray  # (M, 2) rows into ``ids``: source → target, distinct, no self-loops
    categories: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    degree: IntArray | None = None
    linked_by: IntArray | None = None
    isolated: BoolArray | None = None
    isolated_total: int = 0
    unused: int = 0
    category_colours: tuple[tuple[str, str], ...] = ()
    # ``edges`` in a fixed random order, for drawing a fair sample of them while anything
    # moves: shuffled here, on the build's thread (in the GUI thread: 40 ms at 177,000).
    draw_edges: IntArray | None = None
    # Each id's row, made here too (a dict of 23,700 took the GUI thread 5-10 ms).
    rows: Mapping[str, int] | None = None
    # The rows of the largest connected component (of two nodes or more): the view's Fit
    # frames it. None: not worked out (see ``with_main_component``), or no edge at all.
    main: BoolArray | None = None

    def __post_init__(self) -> None:
        self.edges.setflags(write=False)
        if self.draw_edges is not None:
            self.draw_edges.setflags(write=False)
        for array in (self.degree, self.linked_by, self.isolated):
            if array is not None:
                array.setflags(write=False)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What a graph is built from, taken from the index under its lock in a few tens of
    milliseconds; the build itself (half a second at 10,000 notes) then runs without the
    lock, so the GUI thread and the updater never wait for it. Records are immutable and an
    update replaces a note's outgoing map rather than changing it, so shallow copies do;
    incoming maps change in place, so those the build reads (concepts, concept pages) are
    copied."""

    notes: Mapping[str, NoteRecord]
    out_edges: Mapping[str, Mapping[str, int]]
    in_edges: Mapping[str, Mapping[str, int]]  # concept nodes and concept pages only
    concepts: ConceptDictionary
    concept_of: Mapping[str, str]  # concept node or concept page → its category
    # A concept node → its concept's note: the two are one node, the note (DESIGN §2).
    page_of: Mapping[str, str]


def _snapshot(index: IndexView) -> _Snapshot:
    """Read from one snapshot of the index (``index.snapshot()``)."""
    page_of = {CONCEPT_PREFIX + cid: note for cid, note in concept_notes(index).items()}
    concept_of = _concept_of(index, page_of)
    in_edges = index.in_edges
    return _Snapshot(
        dict(index.notes),
        dict(index.out_edges),
        {node: dict(in_edges.get(node, {})) for node in concept_of},
        index.concepts,
        concept_of,
        page_of,
    )


def global_graph(
    index: IndexView, kinds: Iterable[str] | None = None, filters: GraphFilter | None = None
) -> GraphData:
    """Every node of the vault (of the given kinds, as filtered), with every distinct edge
    between them; every concept of the dictionary too, linked or not."""
    index = index.snapshot()
    nodes = set(index.notes) | set(index.attachments) | set(index.in_edges)
    nodes.update(CONCEPT_PREFIX + c.id for c in index.concepts.concepts)
    snapshot = _snapshot(index)
    return _build(snapshot, nodes, _merged(kinds, filters))


def local_graph(
    index: IndexView,
    centre: str,
    depth: int,
    kinds: Iterable[str] | None = None,
    filters: GraphFilter | None = None,
) -> GraphData:
    """The nodes within ``depth`` hops of ``centre`` (links followed both ways), filtered."""
    index = index.snapshot()
    snapshot = _snapshot(index)
    # A concept and its note are one node: around either, the neighbours of both.
    same = {centre} | {n for n, page in snapshot.page_of.items() if centre in (n, page)}
    same |= {snapshot.page_of[n] for n in same if n in snapshot.page_of}
    nodes = set(same)
    for node in same:
        nodes.update(neighbours(index, node, depth))
    return _build(snapshot, nodes, _merged(kinds, filters))


def category_colours(concepts: ConceptDictionary) -> tuple[tuple[str, str], ...]:
    """Each category in dictionary order, with the first colour one of its concepts gives."""
    colours: dict[str, str] = {}
    for concept in concepts.concepts:
        if concept.category and not colours.get(concept.category):
            colours[concept.category] = concept.color
    return tuple(colours.items())


def _merged(kinds: Iterable[str] | None, filters: GraphFilter | None) -> GraphFilter:
    if filters is None:
        filters = GraphFilter(kinds=("note", "concept", "unresolved", "attachment"))
    if kinds is not None:
        return GraphFilter(
            tuple(kinds),
            filters.category,
            filters.path,
            filters.hide_orphans,
            filters.isolated_only,
            filters.isolated_max,
        )
    return filters


def _concept_of(index: IndexView, page_of: Mapping[str, str]) -> dict[str, str]:
    """Concept node or concept page (see ``queries.concept_notes``) → its category; every
    concept of the dictionary has its node here, linked or not."""
    out: dict[str, str] = {}
    for concept in index.concepts.concepts:
        node = CONCEPT_PREFIX + concept.id
        out[node] = concept.category
        if node in page_of:
            out.setdefault(page_of[node], concept.category)
    for node in index.in_edges:  # a concept node the dictionary no longer holds
        if node.startswith(CONCEPT_PREFIX) and node not in out:
            out[node] = ""
    return out


def _linked_by(snapshot: _Snapshot, node: str) -> int:
    """Distinct notes linking ``node`` (for a concept with a note: the concept or its note),
    the index note and the node itself left out."""
    notes = snapshot.notes
    page = snapshot.page_of.get(node)
    sources = set(snapshot.in_edges.get(node, {}))
    if page is not None:
        sources.update(snapshot.in_edges.get(page, {}))
    return sum(
        1
        for source in sources
        if source in notes and source not in (node, page) and not is_index_note(source)
    )


def _build(index: _Snapshot, nodes: set[str], filters: GraphFilter) -> GraphData:
    wanted = set(filters.kinds)
    concept_of = index.concept_of
    page_of = index.page_of
    # A concept with a note is drawn as the note: its node is replaced by the note's, and
    # the links to it point at the note.
    nodes = {page_of.get(node, node) for node in nodes}
    linked: dict[str, int] = {}
    for node in concept_of:
        shown = page_of.get(node, node)
        if node.startswith(CONCEPT_PREFIX) or shown not in linked:
            linked[shown] = _linked_by(index, node)
    isolated_ids = {node for node, count in linked.items() if count <= filters.isolated_max}
    kind_of = {node: node_kind(index, node) for node in nodes}
    nodes = {n for n in nodes if kind_of[n] in wanted}

    if filters.category:
        chosen = {n for n in nodes if concept_of.get(n) == filters.category}
        nodes = chosen | (_notes_linking(index, chosen) & nodes)
    if filters.path:
        nodes = _under_path(index, nodes, filters.path)
    if filters.isolated_only:
        chosen = isolated_ids & nodes
        nodes = chosen | (_notes_linking(index, chosen) & nodes)

    tag_edges: list[tuple[str, str]] = []
    tag_labels: dict[str, str] = {}
    if "tag" in wanted:
        for rel in sorted(n for n in nodes if n in index.notes):
            for name in index.notes[rel].tag_names:
                node = TAG_PREFIX + name.lower()
                tag_labels.setdefault(node, name)
                tag_edges.append((rel, node))
        kind_of.update(dict.fromkeys(tag_labels, "tag"))
        nodes |= set(tag_labels)

    ids = tuple(sorted(nodes))
    row = {node: i for i, node in enumerate(ids)}
    pairs = list(
        dict.fromkeys(
            (row[source], row[target])
            for source in ids
            for target in (page_of.get(t, t) for t in index.out_edges.get(source, ()))
            if target != source and target in row
        )
    )
    pairs.extend(dict.fromkeys((row[s], row[t]) for s, t in tag_edges))
    edges = _pair_array(pairs)
    degree = np.bincount(edges.ravel(), minlength=len(ids)).astype(np.int64)

    if filters.hide_orphans and len(ids):
        keep = degree > 0
        new_row = np.cumsum(keep) - 1
        ids = tuple(node for node, k in zip(ids, keep, strict=True) if k)
        edges = new_row[edges].astype(np.int64).reshape(-1, 2)
        degree = degree[keep]

    def label(node: str) -> str:
        return tag_labels[node] if node in tag_labels else node_label(index, node)

    return GraphData(
        ids,
        tuple(kind_of[n] for n in ids),
        tuple(label(n) for n in ids),
        edges,
        categories=tuple(concept_of.get(n, "") for n in ids),
        folders=tuple(_top_folder(n) for n in ids),
        degree=degree,
        linked_by=np.array([linked.get(n, 0) for n in ids], np.int64),
        isolated=np.array([n in isolated_ids for n in ids], bool),
        isolated_total=len(isolated_ids),
        unused=sum(
            1
            for c in index.concepts.concepts
            if not linked.get(page_of.get(CONCEPT_PREFIX + c.id, CONCEPT_PREFIX + c.id))
        ),
        category_colours=category_colours(index.concepts),
        draw_edges=draw_order(edges),
        rows=dict(zip(ids, range(len(ids)), strict=True)),
    )


def with_main_component(graph: GraphData) -> GraphData:
    """``graph`` with ``main`` set: its largest connected component, edges taken both ways
    (scipy is imported here, not with the module: the command line never needs it)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n, edges = len(graph.ids), graph.edges
    if not len(edges):
        return graph
    matrix = sp.coo_array((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    labels = connected_components(matrix, directed=False)[1]
    main = labels == int(np.argmax(np.bincount(labels)))
    main.setflags(write=False)
    return replace(graph, main=main)


PAIR_CHUNK = 8_192


def _pair_array(pairs: list[tuple[int, int]]) -> IntArray:
    """(M, 2) int64 from a list of pairs, a chunk at a time: one np.array over 177,000
    tuples held the interpreter lock 45 ms, and the window's thread waited that long."""
    chunks = [
        np.array(pairs[start : start + PAIR_CHUNK], np.int64).reshape(-1, 2)
        for start in range(0, len(pairs), PAIR_CHUNK)
    ]
    return np.concatenate(chunks) if chunks else np.empty((0, 2), np.int64)


def draw_order(edges: IntArray) -> IntArray:
    """The edges in a fixed random order (the same for the same edges)."""
    order = np.random.default_rng(0).permutation(len(edges))
    return np.ascontiguousarray(edges[order])


def _notes_linking(index: _Snapshot, chosen: set[str]) -> set[str]:
    """The notes linking the chosen nodes; for a concept's note, those linking the concept
    too (they are one node)."""
    merged = {node for node, page in index.page_of.items() if page in chosen}
    return {
        source
        for node in chosen | merged
        for source in index.in_edges.get(node, {})
        if source in index.notes and not is_index_note(source)
    }


def _under_path(index: _Snapshot, nodes: set[str], prefix: str) -> set[str]:
    """Files under ``prefix`` and the non-file nodes they link."""
    prefix = prefix.strip().lstrip("/").lower()
    files = {n for n in nodes if is_file_node(n) and n.lower().startswith(prefix)}
    linked = {t for f in files for t in index.out_edges.get(f, ()) if not is_file_node(t)}
    return files | (linked & nodes)


def _top_folder(node: str) -> str:
    if not is_file_node(node):
        return ""
    folder, _, _ = node.partition("/")
    return folder if folder != node else ""
