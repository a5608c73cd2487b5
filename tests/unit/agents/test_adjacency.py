"""RELATED_TO neighbours for the MCP ``neighbors`` tool, held in arrays: the same lists, in
the same order, as reading the pass's pairs one by one."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.agents.answers import neighbour_steps, related_adjacency
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.cached import vault_related
from librarian_gui.core.vault.files import read_note
from tests.conftest import write

TOPICS = {
    "boats/keel.md": "keel hull sailing boat repair varnish",
    "boats/hull.md": "hull keel boat sailing mast",
    "boats/mast.md": "mast sailing rigging boat hull",
    "garden/roses.md": "roses pruning garden soil compost",
    "garden/soil.md": "soil compost garden worms roses",
    "garden/worms.md": "worms compost soil garden",
    "alone.md": "quantum chromodynamics lattice",
}


def test_each_notes_neighbours_are_the_pairs_that_hold_it(tmp_path: Path) -> None:
    for rel, words in TOPICS.items():
        write(tmp_path, rel, f"# {rel}\n\n{words} {words}\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    related = vault_related(
        index, lambda rel: read_note(index.root, rel).text, use_cache=False, save=False
    )
    expected: dict[str, list[tuple[str, float]]] = {}
    notes = related.notes
    for i, j, score in zip(related.a, related.b, related.scores, strict=True):
        expected.setdefault(notes[i], []).append((notes[j], float(score)))
        expected.setdefault(notes[j], []).append((notes[i], float(score)))
    assert len(expected) >= 6  # the two topics' notes are related among themselves
    adjacency = related_adjacency(related)
    assert dict(adjacency) == expected
    assert adjacency.get("nowhere.md", ()) == ()


@settings(max_examples=25, deadline=None)
@given(
    links=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20),
    depth=st.integers(1, 3),
)
def test_neighbour_steps_are_the_breadth_first_layers(
    tmp_path_factory: pytest.TempPathFactory, links: list[tuple[int, int]], depth: int
) -> None:
    root = tmp_path_factory.mktemp("v")
    for n in range(8):
        targets = "".join(f"[[n{b}]]\n" for a, b in links if a == n and b != n)
        write(root, f"n{n}.md", f"# n{n}\n{targets}")
    index = VaultIndex.scan(root, use_cache=False).snapshot()
    edges = {(f"n{a}.md", f"n{b}.md") for a, b in links if a != b}
    # distances by hand: the layers of a breadth-first walk over links either way
    near = {"n0.md": 0}
    for d in range(1, depth + 1):
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if near.get(x) == d - 1 and y not in near:
                    near[y] = d
    steps = neighbour_steps(index, "n0.md", depth)
    assert {s[0]: s[1] for s in steps} == {n: d for n, d in near.items() if d > 0}
    assert [(s[1], s[0]) for s in steps] == sorted((s[1], s[0]) for s in steps)
    for other, distance, via, kinds in steps:
        assert near[via] == distance - 1
        pairs = (("links_to", (via, other)), ("linked_from", (other, via)))
        assert list(kinds) == [kind for kind, pair in pairs if pair in edges]
