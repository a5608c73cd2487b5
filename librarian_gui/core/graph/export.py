"""The graph as one document: every node and edge of the index, written as JSON or GraphML.

The format is described in ``docs/graph-format.md``; keep the two in step.
"""

from __future__ import annotations

import datetime as _dt
import io
import itertools
import json
import os
import re
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from ..concepts.dictionary import Concept
from ..courtesy import gc_paused
from ..index.queries import concept_pages, degree
from ..index.resolver import CONCEPT_PREFIX, TAG_PREFIX, UNRESOLVED_PREFIX
from ..index.snapshot import IndexView
from ..parse.records import KIND_CODES, LINK_KINDS

if TYPE_CHECKING:
    from ..insight.cooccurrence import PairTable
    from ..related.vault import RelatedIndex

FORMAT = "librarian-graph"
VERSION = 1
# GraphML has no list type: list attributes are joined with a line feed, the one character
# no tag and (practically) no alias holds; an item's own line feeds become spaces.
LIST_SEPARATOR = "\n"

NODE_KINDS = ("note", "attachment", "concept", "tag", "unresolved")
EDGE_KINDS = ("link", "tagged", "parent", "related", "cooccurs")
RELATED_TERMS = 5  # shared key terms per RELATED_TO edge, as the Related pane shows them

Target = str | os.PathLike[str] | TextIO | BinaryIO
Document = dict[str, Any]
_NODE_RANK = {kind: i for i, kind in enumerate(NODE_KINDS)}
_EDGE_RANK = {kind: i for i, kind in enumerate(EDGE_KINDS)}
_KIND_SLOT = {kind: i for i, kind in enumerate(LINK_KINDS)}
_KIND_NAMES = {code: kind for kind, code in KIND_CODES.items()}


# ------------------------------------------------------------------ the document


def graph_document(
    index: IndexView,
    *,
    generated: _dt.datetime | None = None,
    related: RelatedIndex | None = None,
    related_threshold: float = 0.15,  # related.vault.DEFAULT_THRESHOLD (it loads numpy)
    cooccurrence: PairTable | None = None,
) -> Document:
    """The whole graph as plain JSON-ready values, nodes and edges in a stable order.

    ``related``: the vault's related notes, whose pairs at ``related_threshold`` or more
    become ``related`` edges (RELATED_TO: weight, the shared key terms and concepts);
    ``cooccurrence``: pairs of concepts found in the same notes, as ``cooccurs`` edges.
    Without them the document has neither kind."""
    when = generated or _dt.datetime.now(_dt.UTC)
    # a snapshot: consistent while the updater's thread updates the index; the collector
    # paused: hundreds of thousands of new dicts would make it re-walk the index
    index = index.snapshot()
    with gc_paused():
        nodes, edges = _nodes_and_edges(index)
        if cooccurrence is not None:
            edges.extend(_cooccurrence_edges(index, cooccurrence))
    if related is not None:
        edges.extend(_related_edges(related, related_threshold, {n["id"] for n in nodes}))
    if related is not None or cooccurrence is not None:
        edges.sort(key=lambda e: (e["source"], e["target"], _EDGE_RANK[e["kind"]]))
    dictionary = index.concepts.path
    return {
        "format": FORMAT,
        "version": VERSION,
        "vault": str(index.root),
        "dictionary": str(dictionary) if dictionary is not None else None,
        "generated": when.astimezone(_dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "nodes": nodes,
        "edges": edges,
    }


def _nodes_and_edges(index: IndexView) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    ghost_labels: dict[str, str] = {}
    tag_labels: dict[str, str] = {}
    tag_notes: dict[str, int] = {}
    pages = concept_pages(index)

    for rel in sorted(index.notes):
        record = index.notes[rel]
        parsed = record.parsed
        edges.extend(_link_edges(index, rel, ghost_labels))

        written: dict[str, str] = {}  # tag key → the name as this note first wrote it
        tag_count: dict[str, int] = {}
        for tag in parsed.tags:
            key = tag.name.lower()  # tags are case-insensitive, as in Obsidian
            written.setdefault(key, tag.name)
            tag_count[key] = tag_count.get(key, 0) + 1
        carried: set[str] = set()
        for key, name in written.items():
            edges.append(
                {
                    "source": rel,
                    "target": TAG_PREFIX + key,
                    "kind": "tagged",
                    "count": tag_count[key],
                }
            )
            for ancestor_key, ancestor_name in _with_ancestors(key, name):
                tag_labels.setdefault(ancestor_key, ancestor_name)
                carried.add(ancestor_key)
        for key in carried:
            tag_notes[key] = tag_notes.get(key, 0) + 1

        incoming, outgoing = degree(index, rel)
        entry: dict[str, Any] = {
            "id": rel,
            "kind": "note",
            "label": record.title,
            "path": rel,
            "date": record.date.isoformat(),
            "date_source": record.date_source,
            "size": record.stamp.size,
            "tags": list(written.values()),
            "aliases": list(parsed.aliases),
            "in_degree": incoming,
            "out_degree": outgoing,
            "orphan": incoming == 0 and outgoing == 0,
        }
        if rel in pages:
            entry.update(_concept_fields(pages[rel]))
        nodes[rel] = entry

    for rel, stamp in index.attachments.items():
        incoming, outgoing = degree(index, rel)
        label = rel.rsplit("/", 1)[-1]
        nodes[rel] = {
            "id": rel,
            "kind": "attachment",
            "label": label,
            "path": rel,
            "size": stamp.size,
            "in_degree": incoming,
            "out_degree": outgoing,
        }

    paged = {c.id for c in pages.values()}
    for concept in index.concepts.concepts:
        node_id = CONCEPT_PREFIX + concept.id
        # A note titled like the concept *is* its page (DESIGN §2): one node, not two; a
        # concept node that links still reach (never expected) is kept so no edge dangles.
        if concept.id in paged and node_id not in index.in_edges:
            continue
        incoming, outgoing = degree(index, node_id)
        nodes[node_id] = {
            "id": node_id,
            "kind": "concept",
            "label": concept.id,
            "in_degree": incoming,
            "out_degree": outgoing,
            **_concept_fields(concept),
        }

    for key, label in tag_labels.items():
        tag_id = TAG_PREFIX + key
        nodes[tag_id] = {"id": tag_id, "kind": "tag", "label": label, "notes": tag_notes[key]}
        parent = _parent_tag(key)
        if parent is not None:
            edges.append(
                {"source": tag_id, "target": TAG_PREFIX + parent, "kind": "parent", "count": 1}
            )

    for node_id in index.in_edges:
        if node_id in nodes:
            continue
        # unresolved targets, and any concept the dictionary no longer lists
        kind = "concept" if node_id.startswith(CONCEPT_PREFIX) else "unresolved"
        prefix = CONCEPT_PREFIX if kind == "concept" else UNRESOLVED_PREFIX
        incoming, outgoing = degree(index, node_id)
        nodes[node_id] = {
            "id": node_id,
            "kind": kind,
            "label": ghost_labels.get(node_id) or node_id[len(prefix) :],
            "in_degree": incoming,
            "out_degree": outgoing,
        }

    ordered = sorted(nodes.values(), key=lambda n: (_NODE_RANK[n["kind"]], n["id"]))
    edges.sort(key=lambda e: (e["source"], e["target"], _EDGE_RANK[e["kind"]]))
    return ordered, edges


def _link_edges(index: IndexView, rel: str, ghost_labels: dict[str, str]) -> list[dict[str, Any]]:
    """The link edges out of one note; labels unresolved targets as first written."""
    record = index.notes[rel]
    out = index.out_edges.get(rel, {})
    links = record.parsed.links
    targets = index.targets.get(rel, ())
    if any(n.startswith(UNRESOLVED_PREFIX) and n not in ghost_labels for n in out):
        for link, node in zip(links, targets, strict=True):
            if node.startswith(UNRESOLVED_PREFIX) and link.target and node not in ghost_labels:
                ghost_labels[node] = link.target  # notes come in path order
    letters = record.link_kinds
    if "m" not in letters and len(set(letters)) == 1:
        # one kind of link, and no Markdown image to tell apart: the index's counts suffice
        # (most notes; counting link by link is most of the export's time otherwise)
        kind = _KIND_NAMES[letters[0]]
        embed = kind == "embed"
        return [
            {
                "source": rel,
                "target": node,
                "kind": "link",
                "count": count,
                "link_kinds": {kind: count},
                "embeds": count if embed else 0,
            }
            for node, count in out.items()
        ]
    # target node → occurrences per link kind (LINK_KINDS order), then embeds
    per_target: dict[str, list[int]] = {}
    for link, node in zip(links, targets, strict=True):
        counts = per_target.get(node)
        if counts is None:
            counts = per_target[node] = [0] * (len(LINK_KINDS) + 1)
        counts[_KIND_SLOT[link.kind]] += 1
        if link.embed or link.kind == "embed":
            counts[-1] += 1
    return [
        {
            "source": rel,
            "target": node,
            "kind": "link",
            "count": sum(counts[:-1]),
            "link_kinds": {k: counts[i] for k, i in _KIND_SLOT.items() if counts[i]},
            "embeds": counts[-1],
        }
        for node, counts in per_target.items()
    ]


def _related_edges(
    related: RelatedIndex, threshold: float, nodes: set[str]
) -> list[dict[str, Any]]:
    """One ``related`` edge per RELATED_TO pair at ``threshold`` or more, from the note
    first in path order (the relation has no direction); pairs of notes the index no
    longer holds are left out."""
    out = []
    kept = [p for p in related.pairs_at(threshold) if p.a in nodes and p.b in nodes]
    # The pairs come by their first note: each note's terms read once for all its pairs.
    explained: list[list[str]] = []
    for a, group in itertools.groupby(kept, key=lambda p: p.a):
        others = [p.b for p in group]
        explained.extend(related.model.shared_terms_of(a, others, count=RELATED_TERMS * 2))
    for pair, shared in zip(kept, explained, strict=True):
        terms = [t for t in shared if not t.startswith("concept:")][:RELATED_TERMS]
        concepts = [t[len("concept:") :] for t in shared if t.startswith("concept:")]
        out.append(
            {
                "source": pair.a,
                "target": pair.b,
                "kind": "related",
                "count": 1,
                "weight": round(pair.score, 4),
                "terms": terms,
                "concepts": concepts,
            }
        )
    return out


def _cooccurrence_edges(index: IndexView, table: PairTable) -> list[dict[str, Any]]:
    """One ``cooccurs`` edge per pair of concepts sharing notes, between their nodes (a
    concept's page note when it has one), from the first in dictionary order."""
    node_of = {concept.id: rel for rel, concept in concept_pages(index).items()}
    out = []
    for a, b, count, jaccard, lift in table.rows():
        out.append(
            {
                "source": node_of.get(a, CONCEPT_PREFIX + a),
                "target": node_of.get(b, CONCEPT_PREFIX + b),
                "kind": "cooccurs",
                "count": count,
                "jaccard": round(jaccard, 4),
                "lift": round(lift, 4),
            }
        )
    return out


def _concept_fields(concept: Concept) -> dict[str, Any]:
    return {
        "concept": concept.id,
        "category": concept.category,
        "concept_aliases": list(concept.aliases),
        "description": concept.description,
        "color": concept.color,
    }


def _parent_tag(key: str) -> str | None:
    """``a/b`` is nested in ``a``; empty segments (``a//b``, ``a/``) are skipped."""
    head = key.rpartition("/")[0].rstrip("/")
    return head or None


def _with_ancestors(key: str, name: str) -> list[tuple[str, str]]:
    """The tag and every tag it is nested in, as (key, name as written)."""
    out = [(key, name)]
    while (parent := _parent_tag(key)) is not None:
        # the written name has its slashes where the key has them (lower() keeps them)
        key, name = parent, _parent_tag(name) or parent
        out.append((key, name))
    return out


# ------------------------------------------------------------------ JSON


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(document: Document) -> str:
    """The document as JSON text: one node or edge per line, so it diffs and greps well.
    A file name that is not valid UTF-8 keeps its lone surrogates as ``\\udcXX`` escapes,
    which ``json.loads`` turns back into the same string."""
    row_json = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
    parts = ["{"]
    items = list(document.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        head = f"\n {json.dumps(key)}: "
        if isinstance(value, list) and value:
            rows = ",\n  ".join(map(row_json, value))
            parts.append(f"{head}[\n  {rows}\n ]{comma}")
        else:
            parts.append(f"{head}{json.dumps(value, ensure_ascii=False)}{comma}")
    parts.append("\n}\n")
    text = "".join(parts)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def dump_json(document: Document, target: Target) -> None:
    _write(json_text(document), target)


def write_json(index: IndexView, target: Target) -> None:
    """Write the graph of ``index`` as JSON to a path or an open (text or binary) stream."""
    dump_json(graph_document(index), target)


# ------------------------------------------------------------------ GraphML

# (attribute, GraphML type) in declaration order. A value that is empty ("" or []) or
# absent is written as no <data> at all: readers (networkx) drop empty <data> anyway.
_GRAPH_KEYS = (
    ("format", "string"),
    ("version", "int"),
    ("vault", "string"),
    ("dictionary", "string"),
    ("generated", "string"),
)
_NODE_KEYS = (
    ("kind", "string"),
    ("label", "string"),
    ("path", "string"),
    ("date", "string"),
    ("date_source", "string"),
    ("size", "long"),  # attachments may pass 2 GiB, the limit of GraphML's int
    ("tags", "string"),
    ("aliases", "string"),
    ("in_degree", "int"),
    ("out_degree", "int"),
    ("orphan", "boolean"),
    ("concept", "string"),
    ("category", "string"),
    ("concept_aliases", "string"),
    ("description", "string"),
    ("color", "string"),
    ("notes", "int"),
)
_EDGE_KEYS = (
    ("kind", "string"),
    ("count", "int"),
    # = count (a related edge's own: its cosine): the attribute Gephi reads as a weight
    ("weight", "double"),
    *((f"link_{kind}", "int") for kind in LINK_KINDS),  # the JSON link_kinds map, flattened
    ("embeds", "int"),
    ("terms", "string"),
    ("concepts", "string"),
    ("jaccard", "double"),
    ("lift", "double"),
)

# XML 1.0 cannot hold these even as character references (lone surrogates: file names that
# are not UTF-8): they become U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
# In attributes a parser turns raw tabs and line breaks into spaces: keep them as references.
_ATTR_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\t": "&#9;",
        "\n": "&#10;",
        "\r": "&#13;",
    }
)


# Most strings need no escaping: one search spares a translate (measured: 40% of the
# GraphML time at 10,000 notes).
_SPECIAL = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _xml(text: str, table: dict[int, str]) -> str:
    if not _SPECIAL.search(text):
        return text
    if _NOT_XML.search(text):
        text = _NOT_XML.sub("\ufffd", text)
    return text.translate(table)


def _data(prefix: str, names: frozenset[str], values: dict[str, Any]) -> str:
    """The <data> elements of one row, in the row's order."""
    out: list[str] = []
    for name, value in values.items():
        if name == "link_kinds":  # flattened: one int per link kind
            out.extend(f'<data key="e_link_{k}">{n}</data>' for k, n in value.items())
            continue
        if name not in names or value is None or value == "" or value == []:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, list):
            text = _xml(
                LIST_SEPARATOR.join(str(v).replace("\n", " ") for v in value), _TEXT_ESCAPES
            )
        else:
            text = _xml(str(value), _TEXT_ESCAPES)
        out.append(f'<data key="{prefix}_{name}">{text}</data>')
        if name == "count" and prefix == "e" and "weight" not in values:
            out.append(f'<data key="e_weight">{float(value)}</data>')
    return "".join(out)


def graphml_text(document: Document) -> str:
    """The document as GraphML 1.0: a directed graph, node ids as in the JSON."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns'
        ' http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
    ]
    for prefix, domain, keys in (
        ("g", "graph", _GRAPH_KEYS),
        ("n", "node", _NODE_KEYS),
        ("e", "edge", _EDGE_KEYS),
    ):
        parts.extend(
            f'  <key id="{prefix}_{name}" for="{domain}" attr.name="{name}" attr.type="{type_}"/>\n'
            for name, type_ in keys
        )
    parts.append('  <graph id="G" edgedefault="directed">\n')
    graph_keys, node_keys, edge_keys = (
        frozenset(name for name, _ in keys) for keys in (_GRAPH_KEYS, _NODE_KEYS, _EDGE_KEYS)
    )
    parts.append(f"    {_data('g', graph_keys, document)}\n")
    for node in document["nodes"]:
        node_id = _xml(node["id"], _ATTR_ESCAPES)
        parts.append(f'    <node id="{node_id}">{_data("n", node_keys, node)}</node>\n')
    for edge in document["edges"]:
        source = _xml(edge["source"], _ATTR_ESCAPES)
        target = _xml(edge["target"], _ATTR_ESCAPES)
        data = _data("e", edge_keys, edge)
        parts.append(f'    <edge source="{source}" target="{target}">{data}</edge>\n')
    parts.append("  </graph>\n</graphml>\n")
    return "".join(parts)


def dump_graphml(document: Document, target: Target) -> None:
    _write(graphml_text(document), target)


def write_graphml(index: IndexView, target: Target) -> None:
    """Write the graph of ``index`` as GraphML to a path or an open (text or binary) stream."""
    dump_graphml(graph_document(index), target)


# ------------------------------------------------------------------ output


def _write(text: str, target: Target) -> None:
    """UTF-8 to a path; as it is to a text stream; encoded to a binary stream."""
    if isinstance(target, str | os.PathLike):
        with open(target, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    elif isinstance(target, io.TextIOBase) or hasattr(target, "encoding"):
        cast(TextIO, target).write(text)
    else:
        target.write(text.encode("utf-8"))
