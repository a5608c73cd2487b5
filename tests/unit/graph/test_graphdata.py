"""The arrays the graph canvas draws, on a small vault counted by hand."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.graph.graphdata import GraphFilter, global_graph, local_graph
from librarian_gui.core.index.index import VaultIndex
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
    # The same edges in the drawing order, made with the graph (not in the GUI thread).
    assert graph.draw_edges is not None
    assert sorted(map(tuple, graph.draw_edges.tolist())) == sorted(map(tuple, graph.edges.tolist()))
    again = global_graph(_vault(vault))
    assert again.draw_edges is not None and again.draw_edges.tolist() == graph.draw_edges.tolist()


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


def _concept_vault(root: Path) -> VaultIndex:
    """Concepts alpha (3 notes), beta (2 notes) and gamma (its page notes/gamma.md, 1 note);
    delta is never linked. MEMORY.md, the index note, links everything and never counts."""
    write(
        root,
        "concepts.json",
        '{"alpha": {"category": "sec"}, "beta": {"category": "ret", "color": "#112233"},'
        ' "gamma": {"category": "sec"}, "delta": {"category": "ops"}}',
    )
    write(root, "MEMORY.md", "[[alpha]] [[beta]] [[gamma]] [[A]]\n")
    write(root, "A.md", "---\ntags: [Project]\n---\n[[alpha]] [[beta]] #todo\n")
    write(root, "B.md", "[[alpha]] [[gamma]] #todo #project\n")
    write(root, "docs/C.md", "[[alpha]] [[beta]] [[A]]\n")
    write(root, "docs/deep/E.md", "[[Ghost]]\n")
    write(root, "notes/gamma.md", "The page of gamma.\n")
    write(root, "lonely.md", "nothing\n")
    return VaultIndex.scan(root, use_cache=False)


NOTES = ("note", "concept", "unresolved")


def test_categories_folders_degrees_and_notes_linking_each_concept(vault: Path) -> None:
    graph = global_graph(_concept_vault(vault), filters=GraphFilter(kinds=NOTES))
    assert graph.ids == (
        "//concept/alpha",
        "//concept/beta",
        "//concept/delta",  # never linked, drawn all the same
        "//unresolved/ghost",
        "A.md",
        "B.md",
        "MEMORY.md",
        "docs/C.md",
        "docs/deep/E.md",
        "lonely.md",
        "notes/gamma.md",
    )
    assert graph.categories == ("sec", "ret", "ops", "", "", "", "", "", "", "", "sec")
    assert graph.folders == ("", "", "", "", "", "", "", "docs", "docs", "", "notes")
    assert graph.degree is not None
    assert graph.degree.tolist() == [4, 3, 0, 1, 4, 2, 4, 3, 1, 0, 2]
    assert graph.linked_by is not None
    assert graph.linked_by.tolist() == [3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert graph.isolated is not None
    assert [n for n, i in zip(graph.ids, graph.isolated, strict=True) if i] == [
        "//concept/beta",
        "//concept/delta",
        "notes/gamma.md",
    ]
    assert (graph.isolated_total, graph.unused) == (3, 1)
    assert graph.category_colours == (("sec", ""), ("ret", "#112233"), ("ops", ""))


def test_filter_by_category_keeps_its_concepts_and_the_notes_linking_them(vault: Path) -> None:
    index = _concept_vault(vault)
    sec = global_graph(index, filters=GraphFilter(kinds=NOTES, category="sec"))
    assert sec.ids == ("//concept/alpha", "A.md", "B.md", "docs/C.md", "notes/gamma.md")
    ret = global_graph(index, filters=GraphFilter(kinds=NOTES, category="ret"))
    assert ret.ids == ("//concept/beta", "A.md", "docs/C.md")


def test_filter_by_path_keeps_those_files_and_what_they_link(vault: Path) -> None:
    index = _concept_vault(vault)
    docs = global_graph(index, filters=GraphFilter(kinds=NOTES, path="docs/"))
    assert docs.ids == (
        "//concept/alpha",
        "//concept/beta",
        "//unresolved/ghost",
        "docs/C.md",
        "docs/deep/E.md",
    )
    deep = global_graph(index, filters=GraphFilter(kinds=("note",), path="/Docs/deep"))
    assert deep.ids == ("docs/deep/E.md",)


def test_hide_orphans_drops_nodes_without_an_edge_in_the_graph_shown(vault: Path) -> None:
    index = _concept_vault(vault)
    graph = global_graph(index, filters=GraphFilter(kinds=("note",), hide_orphans=True))
    assert graph.ids == ("A.md", "B.md", "MEMORY.md", "docs/C.md", "notes/gamma.md")
    pairs = sorted((graph.ids[s], graph.ids[t]) for s, t in graph.edges.tolist())
    assert pairs == [
        ("B.md", "notes/gamma.md"),
        ("MEMORY.md", "A.md"),
        ("MEMORY.md", "notes/gamma.md"),
        ("docs/C.md", "A.md"),
    ]
    assert graph.degree is not None and graph.degree.tolist() == [2, 1, 2, 1, 2]


def test_only_isolated_concepts_with_n_1_and_n_2(vault: Path) -> None:
    index = _concept_vault(vault)
    one = global_graph(index, filters=GraphFilter(kinds=NOTES, isolated_only=True, isolated_max=1))
    assert one.ids == ("//concept/delta", "B.md", "notes/gamma.md")
    assert one.isolated_total == 2
    two = global_graph(index, filters=GraphFilter(kinds=NOTES, isolated_only=True))
    assert two.ids == (
        "//concept/beta",
        "//concept/delta",
        "A.md",
        "B.md",
        "docs/C.md",
        "notes/gamma.md",
    )
    assert two.isolated is not None
    assert two.isolated.tolist() == [True, True, False, False, False, True]
    assert two.isolated_total == 3


def test_tags_become_nodes_linked_from_their_notes(vault: Path) -> None:
    index = _concept_vault(vault)
    graph = global_graph(index, filters=GraphFilter(kinds=("note", "tag"), path="A.md"))
    assert graph.ids == ("//tag/project", "//tag/todo", "A.md")
    assert graph.kinds == ("tag", "tag", "note")
    assert graph.labels == ("Project", "todo", "A")
    every = global_graph(index, filters=GraphFilter(kinds=("note", "tag")))
    tagged = sorted(
        (every.ids[s], every.ids[t]) for s, t in every.edges.tolist() if every.kinds[t] == "tag"
    )
    assert tagged == [
        ("A.md", "//tag/project"),
        ("A.md", "//tag/todo"),
        ("B.md", "//tag/project"),
        ("B.md", "//tag/todo"),
    ]
    assert "//tag/todo" not in global_graph(index).ids  # tags only when asked for


def _noted_vault(root: Path) -> VaultIndex:
    """rag's note is found by its alias, ops's by its ``note`` key; X links rag, Y its note,
    Z both; W links ops, V its note (by a tail of its path), U neither."""
    write(
        root,
        "concepts.json",
        '{"rag": {"aliases": ["Retrieval Augmented Generation"], "category": "ret"},'
        ' "ops": {"aliases": ["operations"], "category": "ops", "note": "misc/runbook"}}',
    )
    write(root, "notes/Retrieval Augmented Generation.md", "What RAG is.\n")
    write(root, "misc/runbook.md", "How we run things.\n")
    write(root, "X.md", "[[rag]]\n")
    write(root, "Y.md", "[[Retrieval Augmented Generation]]\n")
    write(root, "Z.md", "[[rag]] and [[notes/Retrieval Augmented Generation|RAG]]\n")
    write(root, "W.md", "[[ops]]\n")
    write(root, "V.md", "[[misc/runbook]]\n")
    write(root, "U.md", "nothing\n")
    return VaultIndex.scan(root, use_cache=False)


def test_a_concept_and_its_note_are_one_node(vault: Path) -> None:
    graph = global_graph(_noted_vault(vault), filters=GraphFilter(kinds=NOTES))
    assert graph.ids == (
        "U.md",
        "V.md",
        "W.md",
        "X.md",
        "Y.md",
        "Z.md",
        "misc/runbook.md",
        "notes/Retrieval Augmented Generation.md",
    )
    pairs = sorted((graph.ids[s], graph.ids[t]) for s, t in graph.edges.tolist())
    assert pairs == [
        ("V.md", "misc/runbook.md"),
        ("W.md", "misc/runbook.md"),
        ("X.md", "notes/Retrieval Augmented Generation.md"),
        ("Y.md", "notes/Retrieval Augmented Generation.md"),
        ("Z.md", "notes/Retrieval Augmented Generation.md"),  # one edge for its two links
    ]
    assert graph.categories == ("", "", "", "", "", "", "ops", "ret")
    assert graph.linked_by is not None
    assert graph.linked_by.tolist() == [0, 0, 0, 0, 0, 0, 2, 3]
    assert graph.isolated is not None
    assert [n for n, i in zip(graph.ids, graph.isolated, strict=True) if i] == ["misc/runbook.md"]
    assert (graph.isolated_total, graph.unused) == (1, 0)


def test_the_local_graph_of_a_concept_is_that_of_its_note(vault: Path) -> None:
    index = _noted_vault(vault)
    expected = ("X.md", "Y.md", "Z.md", "notes/Retrieval Augmented Generation.md")
    assert local_graph(index, "//concept/rag", 1).ids == expected
    assert local_graph(index, "notes/Retrieval Augmented Generation.md", 1).ids == expected
    ops = local_graph(index, "//concept/ops", 1, filters=GraphFilter(kinds=NOTES))
    assert ops.ids == ("V.md", "W.md", "misc/runbook.md")


def test_the_main_component_is_the_largest_set_of_linked_nodes() -> None:
    import numpy as np

    from librarian_gui.core.graph.graphdata import GraphData, with_main_component

    ids = ("a", "b", "c", "d", "e", "f")
    # a-b-c linked (c → a too), d-e linked, f alone: the main component is a, b, c.
    edges = np.array([[0, 1], [1, 2], [2, 0], [3, 4]], np.int64)
    graph = with_main_component(GraphData(ids, ("note",) * 6, ids, edges))
    assert graph.main is not None
    assert graph.main.tolist() == [True, True, True, False, False, False]
    alone = with_main_component(GraphData(ids, ("note",) * 6, ids, np.empty((0, 2), np.int64)))
    assert alone.main is None
