"""The arrays the graph canvas draws, on a small vault counted by hand."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.graphdata import global_graph, local_graph
from librarian_gui.core.index import VaultIndex
from tests.conftest import write


def _vault(root: Path) -> VaultIndex:
    write(root, "A.md", "[[B]] [[B]] [[Ghost]] [[A]] ![[pic.png]]\n")
    write(root, "B.md", "[[C]]\n")
    write(root, "C.md", "nothing\n")
    write(root, "far/D.md", "[[C]]\n")
    write(root, "pic.png", b"\x89PNG")
    return VaultIndex.scan(root, use_cache=False)


def test_global_graph_has_every_node_and_distinct_edges_without_self_loops(vault: Path) -> None:
    graph = global_graph(_vault(vault))
    assert graph.ids == ("//unresolved/ghost", "A.md", "B.md", "C.md", "far/D.md", "pic.png")
    assert graph.kinds == ("unresolved", "note", "note", "note", "note", "attachment")
    assert graph.labels == ("ghost", "A", "B", "C", "D", "pic.png")
    pairs = sorted((graph.ids[s], graph.ids[t]) for s, t in graph.edges.tolist())
    assert pairs == [
        ("A.md", "//unresolved/ghost"),
        ("A.md", "B.md"),
        ("A.md", "pic.png"),
        ("B.md", "C.md"),
        ("far/D.md", "C.md"),
    ]
    assert not graph.edges.flags.writeable


def test_local_graph_follows_links_both_ways_to_the_depth(vault: Path) -> None:
    index = _vault(vault)
    assert local_graph(index, "B.md", 1).ids == ("A.md", "B.md", "C.md")
    assert local_graph(index, "B.md", 2).ids == (
        "//unresolved/ghost",
        "A.md",
        "B.md",
        "C.md",
        "far/D.md",
        "pic.png",
    )
    only_notes = local_graph(index, "B.md", 2, kinds=["note"])
    assert only_notes.ids == ("A.md", "B.md", "C.md", "far/D.md")
    assert len(only_notes.edges) == 3
