"""RELATED_TO neighbours for the MCP ``neighbors`` tool, held in arrays: the same lists, in
the same order, as reading the pass's pairs one by one."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.agents.answers import related_adjacency
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
