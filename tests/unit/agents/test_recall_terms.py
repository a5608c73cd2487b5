"""Recall in other words (issue 27, items 4 and 5), on fixtures written by hand: a concept
named by one alias finds the passages naming it by another, in any language."""

from __future__ import annotations

import json
from pathlib import Path

from librarian_gui.core.agents.context import context_pack
from librarian_gui.core.agents.search import search_notes
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from tests.conftest import write

CONCEPTS = {
    "prompt-injection": {
        "aliases": ["prompt injection", "提示注入", "Prompteinschleusung"],
        "category": "security",
    }
}


def _index(root: Path) -> tuple[VaultIndex, object]:
    index = VaultIndex.scan(root, use_cache=False)
    return index, lambda rel: read_note(index.root, rel).text


def _security_vault(vault: Path) -> None:
    write(vault, "concepts.json", json.dumps(CONCEPTS, ensure_ascii=False))
    # line 3: the concept by its Chinese alias, no English word of any question below
    write(vault, "zh.md", "# 安全笔记\n\n网页里的提示注入：页面文字被当成了指令。\n")
    # line 3: its German alias
    write(vault, "de.md", "# Sicherheit\n\nDie Prompteinschleusung kam über eine Webseite.\n")
    # line 3: its English alias
    write(vault, "en.md", "# Review\n\nA prompt injection hid in the fetched README.\n")
    # the words apart, never the concept
    write(
        vault,
        "di.md",
        "# Services\n\nDependency injection wires the container.\n\n"
        "The shell prompt shows the branch.\n",
    )


def test_a_concept_asked_by_one_alias_packs_its_other_aliases(vault: Path) -> None:
    _security_vault(vault)
    index, text_of = _index(vault)
    pack = context_pack(index, text_of, "what do we know about prompt injection?", 2000)  # type: ignore[arg-type]
    got = {(p.passage.note, p.passage.first): p.reasons for p in pack.passages}
    # by hand: zh.md and de.md hold none of the question's words; each names the concept
    assert got[("zh.md", 1)] == ("names a concept asked",)
    assert got[("de.md", 1)] == ("names a concept asked",)
    assert got[("en.md", 1)] == ("text match",)
    # the literal phrase and the concept: first; every passage of the vault is in
    best = max(pack.passages, key=lambda p: p.score)
    assert (best.passage.note, best.passage.first) == ("en.md", 1)
    assert len(pack.passages) == 4


def test_a_question_in_another_language_finds_the_english_note(vault: Path) -> None:
    _security_vault(vault)
    index, text_of = _index(vault)
    found = search_notes(index, text_of, "提示注入", limit=3)  # type: ignore[arg-type]
    # by hand: zh.md spells the alias itself; en.md and de.md name the concept otherwise,
    # di.md never does
    notes = [h.note for h in found.hits]
    assert notes[0] == "zh.md"
    assert sorted(notes[1:]) == ["de.md", "en.md"]
    assert all(h.reasons == ("names a concept asked",) for h in found.hits[1:])


FILLER = (
    "The compost bin needs turning, the shed door still sticks, and the rain gauge read"
    " twelve millimetres over the week, which is about average for the season here.\n"
)
JOURNAL = (
    "# Garden journal\n"
    "\n"
    "March 3, 2026\n"  # line 3: the day of the planting, two paragraphs above it
    "\n"
    "Rain all morning, so the seedlings stayed inside.\n"  # 5
    "\n"
    "Planted the tomatoes in the south bed after lunch.\n"  # 7: the event asked about
    "\n"
    f"{FILLER}"  # 9
    "\n"
    "**Fri 2026-03-06**\n"  # 11: another day, nothing asked happened on it
    "\n"
    "Sowed the beans along the fence.\n"  # 13
    "\n"
    f"{FILLER}"  # 15
    "\n"
    f"{FILLER}"  # 17
)


def test_a_when_question_packs_the_date_line_above_its_event(vault: Path) -> None:
    write(vault, "journal.md", JOURNAL)
    index, text_of = _index(vault)
    pack = context_pack(index, text_of, "When did I plant the tomatoes?", 2000, index_note="none")  # type: ignore[arg-type]
    got = {p.passage.first: p.reasons for p in pack.passages}
    # by hand: line 7 matches; line 3 is only a date and dates it (line 5 between says
    # no date); line 11 dates only the beans
    assert got[7] == ("text match",)
    assert got[3] == ("dates a match", "says when")
    assert 11 not in got
    assert "]\nMarch 3, 2026\n\nRain all morning" in pack.text
    # a question not about time leaves the date line out
    plain = context_pack(index, text_of, "Where are the tomatoes planted?", 2000, index_note="none")  # type: ignore[arg-type]
    assert 3 not in {p.passage.first for p in plain.passages}


def test_a_date_line_saying_the_notes_own_date_adds_nothing(vault: Path) -> None:
    # the note's date (from its name) is printed above its passages
    write(vault, "diary/2026-03-03.md", JOURNAL.replace("# Garden journal", "# Tuesday"))
    index, text_of = _index(vault)
    pack = context_pack(index, text_of, "When did I plant the tomatoes?", 2000, index_note="none")  # type: ignore[arg-type]
    got = {p.passage.first: p.reasons for p in pack.passages}
    assert got[7] == ("text match",)
    assert 3 not in got
    assert "## diary/2026-03-03.md\n" in pack.text  # its path says its date
