"""The concept map's arrays on a small vault: sizes, edges with both weights, the threshold,
never-linked and isolated concepts, and the never-linked block set apart. Worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.concept_map import concept_map, lay_out, layout_edges
from tests.conftest import write

DICTIONARY = {
    "alpha": {"aliases": ["Alpha"], "category": "greek"},
    "beta": {"aliases": ["B-thing"], "category": "greek", "color": "#123456"},
    "gamma": {"aliases": [], "category": "letters"},
    "delta": {"aliases": ["Delta Note"]},
    "epsilon": {"aliases": ["Epsilon"], "category": "greek"},
}


@pytest.fixture
def map_vault(vault: Path) -> Path:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "MEMORY.md", "[[alpha]] [[beta]] [[gamma]] [[delta]] [[epsilon]]\n")
    write(vault, "alpha.md", "The note of alpha (its title is the id); see [[beta]].\n")
    write(vault, "Delta Note.md", "The note of delta, by its alias.\n")
    write(vault, "n1.md", "[[alpha]] and [[beta]]\n")
    write(vault, "n2.md", "[[alpha]] and [[gamma]]\n")
    write(vault, "n3.md", "[[beta]] and [[gamma]]\n")
    write(vault, "n4.md", "[[Delta Note]] and [[beta]]\n")
    write(vault, "n5.md", "Epsilon is mentioned here, never linked.\n")
    return vault


# Found in (MEMORY.md, the index note, left out; a concept's own note is not one of its notes):
#   alpha {n1, n2}   beta {alpha.md, n1, n3, n4}   gamma {n2, n3}   delta {n4}   epsilon {}
# 7 notes counted (8 less MEMORY.md). Lift = 7 × shared / (|a| × |b|); rows a < b.
#   alpha+gamma (0, 2): 1 shared (n2), union 3, Jaccard 1/3, lift 7/4 = 1.75
#   beta+delta  (1, 3): 1 shared (n4), union 4, Jaccard 1/4, lift 7/4 = 1.75
#   alpha+beta  (0, 1): 1 shared (n1), union 5, Jaccard 1/5, lift 7/8 = 0.875
#   beta+gamma  (1, 2): 1 shared (n3), union 5, Jaccard 1/5, lift 7/8 = 0.875
# (most shared first, then by lift, then by ids: the order of all_pairs)


def _map(vault: Path):  # type: ignore[no-untyped-def]
    index = VaultIndex.scan(vault, use_cache=False)
    return concept_map(index)


def test_every_concept_is_a_node_sized_by_the_notes_it_is_found_in(map_vault: Path) -> None:
    cmap = _map(map_vault)
    assert cmap.ids == ("alpha", "beta", "gamma", "delta", "epsilon")
    assert cmap.found.tolist() == [2, 4, 2, 1, 0]
    assert cmap.categories == ("greek", "greek", "letters", "", "greek")
    assert cmap.category_colours == (("greek", "#123456"), ("letters", ""))
    assert cmap.total == 7


def test_edges_join_concepts_sharing_notes_with_count_jaccard_and_lift(map_vault: Path) -> None:
    cmap = _map(map_vault)
    assert cmap.edges.tolist() == [[0, 2], [1, 3], [0, 1], [1, 2]]
    assert cmap.counts.tolist() == [1, 1, 1, 1]
    assert cmap.jaccard.tolist() == pytest.approx([1 / 3, 1 / 4, 1 / 5, 1 / 5])
    assert cmap.lift.tolist() == pytest.approx([1.75, 1.75, 0.875, 0.875])


def test_the_threshold_keeps_exactly_the_edges_at_least_that_strong(map_vault: Path) -> None:
    cmap = _map(map_vault)
    assert cmap.edges_at("jaccard", 0.25).tolist() == [True, True, False, False]
    assert cmap.edges_at("jaccard", 0.3).tolist() == [True, False, False, False]
    assert cmap.edges_at("lift", 1.5).tolist() == [True, True, False, False]
    assert cmap.edges_at("lift", 1.0).tolist() == [True, True, False, False]
    assert cmap.edges_at("lift", 0.875).tolist() == [True, True, True, True]
    assert cmap.edges_at("lift", 1.76).tolist() == [False, False, False, False]
    with pytest.raises(ValueError, match="weight must be one of"):
        cmap.edges_at("count", 1)


def test_never_linked_and_isolated_concepts_are_marked(map_vault: Path) -> None:
    cmap = _map(map_vault)
    assert cmap.never_linked.tolist() == [False, False, False, False, True]
    assert cmap.isolated.tolist() == [True, False, True, True, True]  # found in ≤ 2 notes


def test_a_concepts_partners_come_most_shared_first(map_vault: Path) -> None:
    cmap = _map(map_vault)
    assert cmap.cooccurring(1) == [(0, 1), (2, 1), (3, 1)]  # beta: alpha, gamma, delta
    assert cmap.cooccurring(3) == [(1, 1)]  # delta: beta
    assert cmap.cooccurring(4) == []  # epsilon: never linked


def test_the_layout_pulls_along_each_concepts_strongest_partners(map_vault: Path) -> None:
    cmap = _map(map_vault)
    # Jaccard order: alpha+gamma, beta+delta, then alpha+beta and beta+gamma (tie, edge order).
    # One partner each: alpha takes gamma, beta takes delta; then alpha+beta and beta+gamma
    # are wanted by neither end.
    assert layout_edges(cmap, neighbours=1).tolist() == [True, True, False, False]
    assert layout_edges(cmap, neighbours=2).tolist() == [True, True, True, True]


def test_never_linked_concepts_stand_apart_right_of_the_map(map_vault: Path) -> None:
    cmap = lay_out(_map(map_vault))
    positions = cmap.positions
    assert positions.shape == (5, 2)
    assert np.isfinite(positions).all()
    # BLOCK_GAP (60) right of the rightmost label: its dot (24) and 8.5 a letter of its id
    ends = [positions[i, 0] + 24 + 8.5 * len(cmap.ids[i]) for i in range(4)]
    assert positions[4, 0] == pytest.approx(max(ends) + 60.0)
    assert not positions.flags.writeable


def test_a_map_with_no_links_is_only_the_block(vault: Path) -> None:
    write(vault, "concepts.json", json.dumps({"b": {"aliases": []}, "a": {"aliases": []}}))
    write(vault, "n.md", "nothing\n")
    cmap = lay_out(_map(vault))
    assert cmap.edges.shape == (0, 2)
    assert cmap.never_linked.tolist() == [True, True]
    # Sorted by category then id: a first (top), b a line (22) below it, one column.
    assert cmap.positions.tolist() == [[0.0, -22.0], [0.0, 0.0]]


def test_no_two_labels_of_the_demo_map_overlap() -> None:
    """Issue 28: on the demo the 11 linked concepts were packed into about 120 px, dots on
    each other and labels on dots. Laid out 400 units across (a view gives it about 0.8 px
    a unit), each node takes a box: its dot (d pixels: d / 0.8 units, centred on it), then
    8.5 units a letter of its label (the canvas's 8.5 pt font, about 7 px a letter), as
    tall as the dot or a line of text (22 units, 17 px) — by hand. No two boxes overlap."""
    from tests.conftest import REPO

    cmap = lay_out(concept_map(VaultIndex.scan(REPO / "resources/demo-vault", use_cache=False)))
    linked = np.flatnonzero(~cmap.never_linked).tolist()
    assert len(linked) == 11
    xs, ys = cmap.positions[linked, 0], cmap.positions[linked, 1]
    assert max(np.ptp(xs), np.ptp(ys)) >= 400.0 - 1e-6
    boxes = []
    for i, x, y in zip(linked, xs.tolist(), ys.tolist(), strict=True):
        r = cmap.dots[i] / 0.8 / 2
        half = max(22.0, 2 * r) / 2
        boxes.append((x - r, x + r + 8.5 * len(cmap.ids[i]), y - half, y + half))
    for a, (l1, r1, t1, b1) in enumerate(boxes):
        for l2, r2, t2, b2 in boxes[a + 1 :]:
            assert not (l1 < r2 and l2 < r1 and t1 < b2 and t2 < b1)
