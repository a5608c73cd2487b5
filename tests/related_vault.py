"""A small vault whose related notes are known by hand: the six topics of the related-notes
fixture (two notes each, in different words), a few links, three concepts and one note
about nothing else in the vault, with its RelatedIndex built as the services build it."""

from __future__ import annotations

import json
from pathlib import Path

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.vault import RelatedIndex, related_index
from librarian_gui.core.vault.files import read_note
from tests.conftest import write
from tests.unit.related.test_model import NOTES, RELATED

# Same-topic pairs score above 0.7 here, every cross-topic pair below 0.2 (the concept links
# and the shared kitchen words make a few faint ones): at 0.5 exactly the six topics' pairs.
HIGH_THRESHOLD = 0.5
TOPIC_PAIRS = {tuple(sorted(pair)) for pair in RELATED}
LONELY = "lonely.md"  # links nothing, linked by nothing, like no other note
ORPHANS = {  # no link in or out: every note but the bread and birds notes that link
    "birds/garden-feeder.md",
    "chess/blitz.md",
    "chess/sicilian.md",
    "garden/compost.md",
    "garden/tomatoes.md",
    LONELY,
    "money/receipts.md",
    "money/tax-return.md",
    "ops/incident.md",
    "ops/rollout.md",
}
ISOLATED = {"heron": 1, "kubernetes": 0, "sourdough": 2}  # concept → notes it is found in


def write_related_vault(root: Path) -> None:
    extra = {
        "bread/starter.md": "\nSee [[loaf]] and [[sourdough]].\n",
        "bread/loaf.md": "\nAbout [[sourdough]].\n",
        "birds/marsh.md": "\nA [[heron]].\n",
    }
    for rel, text in NOTES.items():
        write(root, rel, text + extra.get(rel, ""))
    write(root, LONELY, "Quarterly violin rehearsal schedule: scales, etudes, bowing drills.\n")
    concepts = {
        "sourdough": {"aliases": [], "category": "food"},
        "heron": {"aliases": [], "category": "nature"},
        "kubernetes": {"aliases": [], "category": "tech"},
    }
    write(root, "concepts.json", json.dumps(concepts))


def build_related(root: Path) -> tuple[VaultIndex, RelatedIndex]:
    index = VaultIndex.scan(root)
    return index, related_index(index, lambda rel: read_note(root, rel).text)
