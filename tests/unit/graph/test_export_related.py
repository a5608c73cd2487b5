"""The export's optional edges: RELATED_TO pairs (``related``: weight, terms) on the vault
whose related notes are known by hand, and concept co-occurrence (``cooccurs``) on a vault
counted by hand; both in JSON and in GraphML that networkx reads."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.graph.export import graph_document, graphml_text
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.cooccurrence import pair_table
from librarian_gui.core.related.vault import DEFAULT_THRESHOLD
from tests.conftest import write
from tests.related_vault import HIGH_THRESHOLD, TOPIC_PAIRS, build_related, write_related_vault

# a = {n1, n2}, b = {n1, n2}, c = {n2, n3} (c's page is c.md); 4 notes counted
COOCCURS = [
    {
        "source": "//concept/a",
        "target": "//concept/b",
        "kind": "cooccurs",
        "count": 2,
        "jaccard": 1.0,
        "lift": 2.0,
    },
    {
        "source": "//concept/a",
        "target": "c.md",
        "kind": "cooccurs",
        "count": 1,
        "jaccard": 0.3333,
        "lift": 1.0,
    },
    {
        "source": "//concept/b",
        "target": "c.md",
        "kind": "cooccurs",
        "count": 1,
        "jaccard": 0.3333,
        "lift": 1.0,
    },
]


@pytest.fixture
def concept_vault(vault: Path) -> Path:
    write(vault, "concepts.json", json.dumps({k: {"category": "x"} for k in "abc"}))
    write(vault, "n1.md", "[[a]] [[b]]\n")
    write(vault, "n2.md", "[[a]] [[b]] [[c]]\n")
    write(vault, "n3.md", "[[c]]\n")
    write(vault, "c.md", "The page of c.\n")
    return vault


def test_related_edges_are_the_pairs_known_by_hand(vault: Path) -> None:
    write_related_vault(vault)
    index, related = build_related(vault)
    doc = graph_document(index, related=related, related_threshold=HIGH_THRESHOLD)
    found = [e for e in doc["edges"] if e["kind"] == "related"]
    assert {(e["source"], e["target"]) for e in found} == TOPIC_PAIRS
    assert len(found) == len(TOPIC_PAIRS)
    scores = {(p.a, p.b): p.score for p in related.pairs_at(HIGH_THRESHOLD)}
    for edge in found:
        assert list(edge) == ["source", "target", "kind", "count", "weight", "terms", "concepts"]
        assert edge["count"] == 1
        assert edge["weight"] == round(scores[edge["source"], edge["target"]], 4) > 0.5
        shown = next(r for r in related.related(edge["source"], 0.5) if r.note == edge["target"])
        assert edge["terms"] == list(shown.terms) and 1 <= len(edge["terms"]) <= 5
        assert edge["concepts"] == list(shown.concepts)
    # the edges sit among the others in the document's order
    keys = [(e["source"], e["target"]) for e in doc["edges"]]
    assert keys == sorted(keys)


def test_without_related_or_cooccurrence_neither_kind(vault: Path) -> None:
    write_related_vault(vault)
    index, _ = build_related(vault)
    kinds = {e["kind"] for e in graph_document(index)["edges"]}
    assert kinds <= {"link", "tagged", "parent"}


def test_cooccurrence_edges_exactly(concept_vault: Path) -> None:
    index = VaultIndex.scan(concept_vault, use_cache=False)
    doc = graph_document(index, cooccurrence=pair_table(index))
    assert [e for e in doc["edges"] if e["kind"] == "cooccurs"] == COOCCURS
    categories = {n["id"]: n.get("category") for n in doc["nodes"] if "concept" in n}
    assert categories == {"//concept/a": "x", "//concept/b": "x", "c.md": "x"}


def test_graphml_with_related_edges_loads_in_networkx(vault: Path) -> None:
    nx = pytest.importorskip("networkx")
    write_related_vault(vault)
    index, related = build_related(vault)
    doc = graph_document(index, related=related, related_threshold=HIGH_THRESHOLD)
    graph = nx.read_graphml(io.BytesIO(graphml_text(doc).encode("utf-8")))
    loaded = {(s, t): attrs for s, t, attrs in graph.edges(data=True) if attrs["kind"] == "related"}
    expected = {(e["source"], e["target"]): e for e in doc["edges"] if e["kind"] == "related"}
    assert set(loaded) == set(expected) == TOPIC_PAIRS
    for key, attrs in loaded.items():
        assert attrs["weight"] == expected[key]["weight"]
        assert attrs["terms"].split("\n") == expected[key]["terms"]
        assert attrs["count"] == 1


def test_graphml_with_cooccurrence_loads_in_networkx(concept_vault: Path) -> None:
    nx = pytest.importorskip("networkx")
    index = VaultIndex.scan(concept_vault, use_cache=False)
    doc = graph_document(index, cooccurrence=pair_table(index))
    graph = nx.read_graphml(io.BytesIO(graphml_text(doc).encode("utf-8")))
    found = sorted(
        (s, t, a["count"], a["jaccard"], a["lift"], a["weight"])
        for s, t, a in graph.edges(data=True)
        if a["kind"] == "cooccurs"
    )
    assert found == [
        ("//concept/a", "//concept/b", 2, 1.0, 2.0, 2.0),
        ("//concept/a", "c.md", 1, 0.3333, 1.0, 1.0),
        ("//concept/b", "c.md", 1, 0.3333, 1.0, 1.0),
    ]


def test_default_threshold_is_the_related_notes_default() -> None:
    import inspect

    default = inspect.signature(graph_document).parameters["related_threshold"].default
    assert default == DEFAULT_THRESHOLD


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main(["export", *args, "--no-cache"]) == 0
    return json.loads(capsys.readouterr().out)


def test_command_related_and_cooccurrence_flags(
    concept_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = run_json(capsys, str(concept_vault), "--cooccurrence")
    assert [e for e in doc["edges"] if e["kind"] == "cooccurs"] == COOCCURS
    doc = run_json(capsys, str(concept_vault))
    assert not [e for e in doc["edges"] if e["kind"] == "cooccurs"]


def test_command_related_threshold(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_related_vault(vault)
    doc = run_json(capsys, str(vault), "--related-threshold", str(HIGH_THRESHOLD))
    found = {(e["source"], e["target"]) for e in doc["edges"] if e["kind"] == "related"}
    assert found == TOPIC_PAIRS
    doc = run_json(capsys, str(vault), "--no-related")
    assert not [e for e in doc["edges"] if e["kind"] == "related"]
    assert main(["export", str(vault), "--related-threshold", "2"]) == 2
