"""Graph export: exact JSON nodes and edges, GraphML read back the same, the export command."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.core.graph.export import (
    LIST_SEPARATOR,
    dump_graphml,
    graph_document,
    graphml_text,
    json_text,
    write_graphml,
    write_json,
)
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import REPO, shared_vault, write

NOON = dt.datetime(2024, 6, 1, 12, 0, tzinfo=dt.UTC)
GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"
LIST_KEYS = ("tags", "aliases", "concept_aliases")

CONCEPTS = {
    "prompt-injection": {"aliases": ["prompt injection", "提示注入"], "category": "security"},
    "rag": {
        "aliases": ["retrieval"],
        "category": "ml",
        "description": "Retrieval-augmented generation",
        "color": "#ff8800",
    },
    "unused": {"aliases": []},
}
FILES = {
    "Alpha.md": (
        "---\n"
        "aliases: [First]\n"
        "tags: [project/alpha]\n"
        'up: "[[Beta]]"\n'
        "date: 2024-03-05\n"
        "---\n"
        "See [[Beta|b]] and [[Beta#Top]], ![[img.png]] and [md](sub/2024-01-02%20Gamma.md).\n"
        "Also ![pic](img.png), [[rag]], [[Prompt-Injection]], [[Nowhere]], [[Nowhere]]."
        " #Idea #project\n"
    ),
    "Beta.md": "Back to [[alpha]], [[nowhere]] and [[#Local]].\n\n#idea #IDEA\n",
    "sub/2024-01-02 Gamma.md": "Deep, [[Beta]] and [x](../Alpha.md) and [y](../../Outside.md).\n",
    "prompt-injection.md": "The concept's page. #security/LLM\n",
    "Lonely.md": "",
    "concepts.json": json.dumps(CONCEPTS, ensure_ascii=False),
}
PNG = b"\x89PNG\r\n"
MTIME = dt.datetime(2023, 6, 15, 12, 0).timestamp()  # local noon: the same local date anywhere


@pytest.fixture
def graph_vault(vault: Path) -> Path:
    """Every node kind (note, attachment, concept, tag, unresolved) and every link kind."""
    for rel, text in FILES.items():
        os.utime(write(vault, rel, text), (MTIME, MTIME))
    os.utime(write(vault, "img.png", PNG), (MTIME, MTIME))
    return vault


def size(rel: str) -> int:
    return len(FILES[rel].encode("utf-8"))


def total_links(stats: dict[str, object]) -> int:
    links = stats["links"]
    assert isinstance(links, dict)
    return sum(links.values())


def document(root: Path, **kwargs: Any) -> dict[str, Any]:
    return graph_document(VaultIndex.scan(root, use_cache=False, **kwargs), generated=NOON)


def note(
    rel: str,
    label: str,
    date: str,
    source: str,
    degree: tuple[int, int],
    tags: list[str] | None = None,
    aliases: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "id": rel,
        "kind": "note",
        "label": label,
        "path": rel,
        "date": date,
        "date_source": source,
        "size": size(rel),
        "tags": tags or [],
        "aliases": aliases or [],
        "in_degree": degree[0],
        "out_degree": degree[1],
        "orphan": degree == (0, 0),
    }


def link(source: str, target: str, **kinds: int) -> dict[str, Any]:
    embeds = kinds.pop("embeds", 0)
    return {
        "source": source,
        "target": target,
        "kind": "link",
        "count": sum(kinds.values()),
        "link_kinds": kinds,
        "embeds": embeds,
    }


def edge(source: str, target: str, kind: str, count: int = 1) -> dict[str, Any]:
    return {"source": source, "target": target, "kind": kind, "count": count}


GAMMA = "sub/2024-01-02 Gamma.md"
EXPECTED_NODES = [
    note(
        "Alpha.md",
        "Alpha",
        "2024-03-05",
        "front-matter",
        (2, 6),
        tags=["project/alpha", "Idea", "project"],
        aliases=["First"],
    ),
    note("Beta.md", "Beta", "2023-06-15", "mtime", (2, 2), tags=["idea"]),
    note("Lonely.md", "Lonely", "2023-06-15", "mtime", (0, 0)),
    {
        **note("prompt-injection.md", "prompt-injection", "2023-06-15", "mtime", (1, 0)),
        "tags": ["security/LLM"],
        # a note titled like a concept is that concept's page: one node, not two
        "concept": "prompt-injection",
        "category": "security",
        "concept_aliases": ["prompt injection", "提示注入"],
        "description": "",
        "color": "",
    },
    note(GAMMA, "2024-01-02 Gamma", "2024-01-02", "name", (1, 3)),
    {
        "id": "concepts.json",
        "kind": "attachment",
        "label": "concepts.json",
        "path": "concepts.json",
        "size": size("concepts.json"),
        "in_degree": 0,
        "out_degree": 0,
    },
    {
        "id": "img.png",
        "kind": "attachment",
        "label": "img.png",
        "path": "img.png",
        "size": len(PNG),
        "in_degree": 1,
        "out_degree": 0,
    },
    {
        "id": "//concept/rag",
        "kind": "concept",
        "label": "rag",
        "in_degree": 1,
        "out_degree": 0,
        "concept": "rag",
        "category": "ml",
        "concept_aliases": ["retrieval"],
        "description": "Retrieval-augmented generation",
        "color": "#ff8800",
    },
    {
        "id": "//concept/unused",
        "kind": "concept",
        "label": "unused",
        "in_degree": 0,
        "out_degree": 0,
        "concept": "unused",
        "category": "",
        "concept_aliases": [],
        "description": "",
        "color": "",
    },
    {"id": "//tag/idea", "kind": "tag", "label": "Idea", "notes": 2},
    {"id": "//tag/project", "kind": "tag", "label": "project", "notes": 1},
    {"id": "//tag/project/alpha", "kind": "tag", "label": "project/alpha", "notes": 1},
    {"id": "//tag/security", "kind": "tag", "label": "security", "notes": 1},
    {"id": "//tag/security/llm", "kind": "tag", "label": "security/LLM", "notes": 1},
    {
        "id": "//unresolved/../outside",
        "kind": "unresolved",
        "label": "../../Outside.md",
        "in_degree": 1,
        "out_degree": 0,
    },
    {
        "id": "//unresolved/nowhere",
        "kind": "unresolved",
        "label": "Nowhere",
        "in_degree": 2,
        "out_degree": 0,
    },
]
EXPECTED_EDGES = [
    edge("//tag/project/alpha", "//tag/project", "parent"),
    edge("//tag/security/llm", "//tag/security", "parent"),
    link("Alpha.md", "//concept/rag", wiki=1),
    edge("Alpha.md", "//tag/idea", "tagged"),
    edge("Alpha.md", "//tag/project", "tagged"),
    edge("Alpha.md", "//tag/project/alpha", "tagged"),
    link("Alpha.md", "//unresolved/nowhere", wiki=2),
    link("Alpha.md", "Beta.md", wiki=2, property=1),
    link("Alpha.md", "img.png", embed=1, markdown=1, embeds=2),
    link("Alpha.md", "prompt-injection.md", wiki=1),
    link("Alpha.md", GAMMA, markdown=1),
    edge("Beta.md", "//tag/idea", "tagged", 2),
    link("Beta.md", "//unresolved/nowhere", wiki=1),
    link("Beta.md", "Alpha.md", wiki=1),
    link("Beta.md", "Beta.md", wiki=1),  # [[#Local]]: a link to itself
    edge("prompt-injection.md", "//tag/security/llm", "tagged"),
    link(GAMMA, "//unresolved/../outside", markdown=1),
    link(GAMMA, "Alpha.md", markdown=1),
    link(GAMMA, "Beta.md", wiki=1),
]


# ------------------------------------------------------------------ the document


def test_document_header(graph_vault: Path) -> None:
    doc = document(graph_vault)
    assert list(doc) == ["format", "version", "vault", "dictionary", "generated", "nodes", "edges"]
    assert doc["format"] == "librarian-graph"
    assert doc["version"] == 1
    assert doc["vault"] == str(graph_vault.resolve())
    assert doc["dictionary"] == str(graph_vault.resolve() / "concepts.json")
    assert doc["generated"] == "2024-06-01T12:00:00Z"
    empty = graph_document(VaultIndex.scan(graph_vault / "sub", use_cache=False))
    assert empty["dictionary"] is None
    assert empty["generated"].endswith("Z") and len(empty["generated"]) == 20


def test_every_node_kind_exactly(graph_vault: Path) -> None:
    assert document(graph_vault)["nodes"] == EXPECTED_NODES


def test_every_edge_kind_exactly(graph_vault: Path) -> None:
    assert document(graph_vault)["edges"] == EXPECTED_EDGES


def test_counts_agree_with_the_index(graph_vault: Path) -> None:
    index = VaultIndex.scan(graph_vault, use_cache=False)
    stats = index.stats()
    doc = graph_document(index)
    links = [e for e in doc["edges"] if e["kind"] == "link"]
    assert len(links) == stats["edges"] == 12
    assert sum(e["count"] for e in links) == total_links(stats) == 16
    ghosts = [n["id"] for n in doc["nodes"] if n["kind"] == "unresolved"]
    assert len(ghosts) == stats["unresolved_targets"]
    assert sum(e["count"] for e in links if e["target"] in ghosts) == stats["unresolved"] == 4
    orphans = [n["id"] for n in doc["nodes"] if n.get("orphan")]
    assert orphans == index.orphans() == ["Lonely.md"]


def test_same_document_from_the_cache(graph_vault: Path) -> None:
    cold = VaultIndex.scan(graph_vault, use_cache=True)
    cold.wait_saved()
    warm = VaultIndex.scan(graph_vault, use_cache=True)
    assert warm.last_parsed == 0  # really from the cache
    assert graph_document(warm, generated=NOON) == graph_document(cold, generated=NOON)


# ------------------------------------------------------------------ JSON


def test_json_round_trips_one_record_per_line(graph_vault: Path) -> None:
    doc = document(graph_vault)
    text = json_text(doc)
    assert json.loads(text) == doc
    lines = text.splitlines()
    assert lines[:3] == ["{", ' "format": "librarian-graph",', ' "version": 1,']
    assert lines[7] == (
        '  {"id": "Alpha.md", "kind": "note", "label": "Alpha", "path": "Alpha.md",'
        ' "date": "2024-03-05", "date_source": "front-matter", "size": 256,'
        ' "tags": ["project/alpha", "Idea", "project"], "aliases": ["First"],'
        ' "in_degree": 2, "out_degree": 6, "orphan": false},'
    )
    assert len(lines) == 7 + len(EXPECTED_NODES) + 2 + len(EXPECTED_EDGES) + 2


def test_json_written_to_a_path_and_to_streams(graph_vault: Path, tmp_path: Path) -> None:
    index = VaultIndex.scan(graph_vault, use_cache=False)
    out = tmp_path / "graph.json"
    write_json(index, out)
    text_stream = io.StringIO()
    write_json(index, text_stream)
    binary_stream = io.BytesIO()
    write_json(index, binary_stream)
    from_file = json.loads(out.read_bytes().decode("utf-8"))
    assert json.loads(text_stream.getvalue()) == from_file
    assert json.loads(binary_stream.getvalue().decode("utf-8")) == from_file
    assert from_file["nodes"] == EXPECTED_NODES


# ------------------------------------------------------------------ GraphML


def without_empty(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The JSON as GraphML carries it: empty strings and lists are not written."""

    def clean(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if v not in ("", [], None)}

    return [clean(n) for n in doc["nodes"]], [clean(e) for e in doc["edges"]]


def from_attributes(row: dict[str, Any], *, edge: bool) -> dict[str, Any]:
    """GraphML attributes back into the JSON's shape (lists split, link_kinds regrouped)."""
    out = dict(row)
    for key in LIST_KEYS:
        if key in out:
            out[key] = out[key].split(LIST_SEPARATOR)
    if edge:
        assert out.pop("weight") == float(out["count"])
        kinds = {k[len("link_") :]: out.pop(k) for k in list(out) if k.startswith("link_")}
        if out["kind"] == "link":
            out["link_kinds"] = kinds
    return out


def parse_with_elementtree(text: str) -> tuple[dict[str, Any], list[Any], list[Any]]:
    root = ET.fromstring(text.encode("utf-8"))
    types: dict[str, Callable[[str], Any]] = {
        "string": str,
        "int": int,
        "long": int,
        "double": float,
        "boolean": {"true": True, "false": False}.__getitem__,
    }
    keys = {}
    for key in root.iter(GRAPHML + "key"):
        keys[key.get("id")] = (
            key.get("for"),
            key.get("attr.name"),
            types[key.get("attr.type", "")],
        )

    def data(element: ET.Element, domain: str) -> dict[str, Any]:
        out = {}
        for d in element.findall(GRAPHML + "data"):
            where, name, convert = keys[d.get("key")]
            assert where == domain and name is not None
            out[name] = convert(d.text or "")
        return out

    graph = root.find(GRAPHML + "graph")
    assert graph is not None and graph.get("edgedefault") == "directed"
    nodes = [{"id": n.get("id"), **data(n, "node")} for n in graph.findall(GRAPHML + "node")]
    edges = [
        {
            "source": e.get("source"),
            "target": e.get("target"),
            **from_attributes(data(e, "edge"), edge=True),
        }
        for e in graph.findall(GRAPHML + "edge")
    ]
    nodes = [from_attributes(n, edge=False) for n in nodes]
    return data(graph, "graph"), nodes, edges


def test_graphml_parses_to_the_json(graph_vault: Path) -> None:
    doc = document(graph_vault)
    text = graphml_text(doc)
    header, nodes, edges = parse_with_elementtree(text)
    assert header == {
        "format": "librarian-graph",
        "version": 1,
        "vault": doc["vault"],
        "dictionary": doc["dictionary"],
        "generated": "2024-06-01T12:00:00Z",
    }
    assert (nodes, edges) == without_empty(doc)
    assert len(nodes) == 16 and len(edges) == 19


def test_graphml_written_to_a_path_and_a_stream(graph_vault: Path, tmp_path: Path) -> None:
    index = VaultIndex.scan(graph_vault, use_cache=False)
    out = tmp_path / "graph.graphml"
    write_graphml(index, out)
    stream = io.BytesIO()
    dump_graphml(graph_document(index), stream)
    for raw in (out.read_bytes(), stream.getvalue()):
        assert raw.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<graphml ')
        _, nodes, edges = parse_with_elementtree(raw.decode("utf-8"))
        assert len(nodes) == len(EXPECTED_NODES) and len(edges) == len(EXPECTED_EDGES)


def networkx_as_json(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nx = pytest.importorskip("networkx")
    graph = nx.read_graphml(io.BytesIO(text.encode("utf-8")))
    assert graph.is_directed() and not graph.is_multigraph()
    nodes = [from_attributes({"id": n, **attrs}, edge=False) for n, attrs in graph.nodes(data=True)]
    edges = [
        {"source": s, "target": t, **from_attributes(attrs, edge=True)}
        for s, t, attrs in graph.edges(data=True)
    ]
    edges.sort(key=lambda e: (e["source"], e["target"]))  # networkx groups by source node
    return nodes, edges


def test_graphml_loads_in_networkx(graph_vault: Path) -> None:
    doc = document(graph_vault)
    nodes, edges = networkx_as_json(graphml_text(doc))
    expected_nodes, expected_edges = without_empty(doc)
    assert nodes == expected_nodes
    assert edges == sorted(expected_edges, key=lambda e: (e["source"], e["target"]))


# ------------------------------------------------------------------ tricky names


@pytest.fixture
def tricky_vault(vault: Path) -> Path:
    write(
        vault,
        "concepts.json",
        json.dumps({"rag": {"aliases": ["x|y", "two\nlines"], "category": "ml & ai"}}),
    )
    write(vault, "A & B.md", '[[x <y>]] [[Café 日本]] [[rag]] [[Quote "q"]] #İstanbul/Merkez\n')
    write(vault, "x <y>.md", "[[A & B]] [t](with%20space/Note%20one.md) [[Ghost & <Co>]]\n")
    write(vault, "Café 日本.md", "---\naliases: ['a, b', 'ü']\n---\n[[#Ü]] #日本/東京\n")
    write(vault, 'Quote "q".md', "\t[[A & B|tab\tlabel]]\n")
    write(vault, "with space/Note one.md", "![[pic & <1>.png]]\n")
    write(vault, "with space/pic & <1>.png", b"\x89PNG")
    write(vault, "rag.md", "The page of the concept rag.\n")
    (vault / b"bad\xff.md".decode("utf-8", "surrogateescape")).write_bytes(b"[[rag]]\n")
    return vault


def test_tricky_names_survive_both_formats(tricky_vault: Path) -> None:
    doc = document(tricky_vault)
    ids = [n["id"] for n in doc["nodes"]]
    assert ids == [
        "A & B.md",
        "Café 日本.md",
        'Quote "q".md',
        "bad\udcff.md",
        "rag.md",
        "with space/Note one.md",
        "x <y>.md",
        "concepts.json",
        "with space/pic & <1>.png",
        "//tag/i̇stanbul",
        "//tag/i̇stanbul/merkez",
        "//tag/日本",
        "//tag/日本/東京",
        "//unresolved/ghost & <co>",
    ]
    by_id = {n["id"]: n for n in doc["nodes"]}
    assert by_id["rag.md"]["concept"] == "rag"  # the concept is its page: no //concept/rag
    assert by_id["rag.md"]["in_degree"] == 2
    assert by_id["//tag/i̇stanbul"]["label"] == "İstanbul"  # lower() made the key longer
    assert by_id["//unresolved/ghost & <co>"]["label"] == "Ghost & <Co>"
    assert by_id["Café 日本.md"]["aliases"] == ["a, b", "ü"]
    assert json.loads(json_text(doc)) == doc

    text = graphml_text(doc)
    # XML cannot hold a lone surrogate (a file name that is not UTF-8): it becomes U+FFFD
    readable = [i.replace("\udcff", "\ufffd") for i in ids]
    _, nodes, edges = parse_with_elementtree(text)
    assert [n["id"] for n in nodes] == readable
    assert len(edges) == len(doc["edges"])
    assert by_id["rag.md"]["concept_aliases"] == ["x|y", "two\nlines"]
    rag = next(n for n in nodes if n["id"] == "rag.md")
    assert rag["concept_aliases"] == ["x|y", "two lines"]  # an item's line feed: a space
    assert rag["category"] == "ml & ai"
    nx_nodes, nx_edges = networkx_as_json(text)
    assert [n["id"] for n in nx_nodes] == readable
    assert len(nx_edges) == len(doc["edges"])


def test_tabs_and_line_breaks_in_ids_are_kept(vault: Path) -> None:
    names = ["cr\rname.md", "line\nbreak.md", "tab\tname.md"]
    for name in names:
        write(vault, name, "[[#Self]] [[Ghost\twith tab]]\n")
    doc = document(vault)
    ids = [*names, "//unresolved/ghost\twith tab"]
    assert [n["id"] for n in doc["nodes"]] == ids
    _, nodes, edges = parse_with_elementtree(graphml_text(doc))
    assert [n["id"] for n in nodes] == ids
    assert [(e["source"], e["target"]) for e in edges] == [
        (e["source"], e["target"]) for e in doc["edges"]
    ]
    assert len(edges) == 6


# ------------------------------------------------------------------ command line


def librarian(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "librarian_gui.cli", *args],
        cwd=REPO,
        capture_output=True,
        check=False,
    )


def test_command_exports_json_to_stdout(graph_vault: Path) -> None:
    result = librarian("export", str(graph_vault), "--no-cache")
    assert (result.returncode, result.stderr) == (0, b"")
    data = json.loads(result.stdout.decode("utf-8"))
    assert (data["nodes"], data["edges"]) == (EXPECTED_NODES, EXPECTED_EDGES)


def test_command_exports_graphml_to_a_file(graph_vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "graph.graphml"
    out.parent.mkdir()
    result = librarian(
        "export", str(graph_vault), "--format", "graphml", "--output", str(out), "--no-cache"
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == f"exported 16 nodes and 19 edges to {out}\n"
    _, nodes, edges = parse_with_elementtree(out.read_text(encoding="utf-8"))
    assert (len(nodes), len(edges)) == (16, 19)


def test_command_honours_exclude_and_concepts(graph_vault: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"nowhere": {"category": "found"}}', encoding="utf-8")
    out = tmp_path / "graph.json"
    result = librarian(
        "export",
        str(graph_vault),
        "--output",
        str(out),
        "--exclude",
        "sub",
        "--concepts",
        str(other),
        "--no-cache",
    )
    assert result.returncode == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["dictionary"] == str(other)
    ids = [n["id"] for n in data["nodes"]]
    assert GAMMA not in ids and "//unresolved/nowhere" not in ids
    assert [n for n in data["nodes"] if n["kind"] == "concept"] == [
        {
            "id": "//concept/nowhere",
            "kind": "concept",
            "label": "nowhere",
            "in_degree": 2,
            "out_degree": 0,
            "concept": "nowhere",
            "category": "found",
            "concept_aliases": [],
            "description": "",
            "color": "",
        }
    ]


def test_command_exit_codes(graph_vault: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    result = librarian("export", str(missing))
    assert (result.returncode, result.stdout) == (3, b"")
    assert result.stderr.decode() == f"librarian: {missing}: no such vault folder\n"
    result = librarian("export", str(graph_vault), "--output", str(missing / "g.json"))
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode() == f"librarian: {missing}: no such folder for --output\n"
    result = librarian("export", str(graph_vault), "--output", str(tmp_path), "--no-cache")
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"librarian: {tmp_path}: cannot be written (")
    result = librarian("export", str(graph_vault), "--format", "csv")
    assert result.returncode == 2
    assert b"invalid choice: 'csv'" in result.stderr


# ------------------------------------------------------------------ a real vault


def test_foam_docs_counts_match_the_index() -> None:
    index = VaultIndex.scan(shared_vault("foam-docs"), use_cache=False)
    stats = index.stats()
    doc = graph_document(index)
    kinds: dict[str, int] = {}
    for node in doc["nodes"]:
        kinds[node["kind"]] = kinds.get(node["kind"], 0) + 1
    links = [e for e in doc["edges"] if e["kind"] == "link"]
    assert kinds["note"] == stats["notes"] == 86
    assert kinds["attachment"] == stats["attachments"]
    assert kinds["unresolved"] == stats["unresolved_targets"]
    assert len(links) == stats["edges"]
    assert sum(e["count"] for e in links) == total_links(stats)
    ghosts = {n["id"] for n in doc["nodes"] if n["kind"] == "unresolved"}
    assert sum(e["count"] for e in links if e["target"] in ghosts) == stats["unresolved"]
    for e in links:
        assert e["count"] == index.out_edges[e["source"]][e["target"]]
        assert sum(e["link_kinds"].values()) == e["count"]
    ids = {n["id"] for n in doc["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in doc["edges"])
    _, nodes, edges = parse_with_elementtree(graphml_text(doc))
    assert (len(nodes), len(edges)) == (len(doc["nodes"]), len(doc["edges"]))
