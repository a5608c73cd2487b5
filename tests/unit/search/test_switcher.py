"""The quick switcher: prefix, inner and typo matches over titles, aliases and concepts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.resolver import CONCEPT_PREFIX
from librarian_gui.core.search import switcher
from librarian_gui.core.search.switcher import Candidate, SwitcherIndex, match_key
from tests.conftest import write

CONCEPTS = {
    "prompt-injection": {"aliases": ["prompt injection", "提示注入"], "category": "security"},
    "retrieval": {"aliases": ["RAG"], "category": "methods"},
}
AGENT = Candidate("Agent memory", "note", "Agent memory.md", "Agent memory.md")
DESIGN = Candidate(
    "Agent memory design", "note", "notes/Agent memory design.md", "notes/Agent memory design.md"
)
REAGENT = Candidate("Reagent list", "note", "notes/Reagent list.md", "notes/Reagent list.md")
RETRIEVAL = Candidate("retrieval", "note", "retrieval.md", "retrieval.md")
DIARY = Candidate("2024-05-01", "note", "diary/2024-05-01.md", "diary/2024-05-01.md")
INJECTION = CONCEPT_PREFIX + "prompt-injection"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SwitcherIndex:
    root = tmp_path_factory.mktemp("switcher") / "vault"
    write(root, "Agent memory.md", "---\naliases: [long-term memory, LTM]\n---\nBody.\n", age=300)
    write(root, "notes/Agent memory design.md", "Design.\n", age=200)
    write(root, "notes/Reagent list.md", "Chemistry.\n", age=100)
    write(root, "retrieval.md", "The retrieval concept's own page.\n", age=50)
    write(root, "diary/2024-05-01.md", "A day.\n", age=10)
    write(root, "concepts.json", json.dumps(CONCEPTS, ensure_ascii=False))
    return SwitcherIndex.build(VaultIndex.scan(root, use_cache=False))


def test_every_name_is_a_candidate_once(index: SwitcherIndex) -> None:
    assert set(index.candidates) == {
        DIARY,
        RETRIEVAL,
        REAGENT,
        DESIGN,
        AGENT,
        Candidate("long-term memory", "alias", "Agent memory.md", "Agent memory.md"),
        Candidate("LTM", "alias", "Agent memory.md", "Agent memory.md"),
        # "prompt injection" is the same name as the id once punctuation is set aside
        Candidate("prompt-injection", "concept", INJECTION, "security"),
        Candidate("提示注入", "concept", INJECTION, "security"),
        # retrieval.md is the concept's page: its names lead to the note
        Candidate("RAG", "alias", "retrieval.md", "retrieval.md"),
    }
    assert all((c.kind == "concept") == c.node.startswith(CONCEPT_PREFIX) for c in index.candidates)


def test_an_empty_query_lists_recently_modified_notes(index: SwitcherIndex) -> None:
    assert index.query("") == [(c, 0.0) for c in (DIARY, RETRIEVAL, REAGENT, DESIGN, AGENT)]
    assert index.query("  ", limit=2) == [(DIARY, 0.0), (RETRIEVAL, 0.0)]


def test_prefixes_first_shorter_names_higher_then_names_holding_the_query(
    index: SwitcherIndex,
) -> None:
    # name prefix: 90 + 9 * 5/12 and 90 + 9 * 5/19; inside "reagent": 70 + 9 * 5/12
    assert index.query("agent") == [(AGENT, 93.75), (DESIGN, 92.368), (REAGENT, 73.75)]
    assert index.query("agent", limit=1) == [(AGENT, 93.75)]
    assert index.query("agent", limit=0) == []


def test_one_row_per_node_with_its_best_name(index: SwitcherIndex) -> None:
    # "Agent memory" (80 + 9 * 6/12) beats the same note's alias "long-term memory".
    assert index.query("memory") == [(AGENT, 84.5), (DESIGN, 82.842)]


def test_a_typo_still_finds_the_note(index: SwitcherIndex) -> None:
    # Indel cost 2 (one swap): 60 + 5 (whole query's length) + 4 (name start) - 2.5 * 2
    assert index.query("agnet memory") == [(AGENT, 64.0), (DESIGN, 62.158)]
    assert index.query("anget memory")[0] == (AGENT, 64.0)  # the second letter too


def test_an_alias_with_one_wrong_letter_finds_its_note(index: SwitcherIndex) -> None:
    alias = Candidate("long-term memory", "alias", "Agent memory.md", "Agent memory.md")
    assert index.query("long-tern memory") == [(alias, 63.999)]


def test_concepts_by_id_alias_and_inside_chinese_text(index: SwitcherIndex) -> None:
    concept = Candidate("prompt-injection", "concept", INJECTION, "security")
    assert index.query("prompt-injection") == [(concept, 99.998)]
    assert index.query("Prompt inj") == [(concept, 95.623)]  # 90 + 9 * 10/16
    chinese = Candidate("提示注入", "concept", INJECTION, "security")
    assert index.query("提示注入") == [(chinese, 99.998)]
    assert index.query("注入") == [(chinese, 74.498)]  # inside a run: 70 + 9 * 2/4


def test_a_concept_with_a_page_is_that_note(index: SwitcherIndex) -> None:
    assert index.query("retrieval") == [(RETRIEVAL, 100.0)]
    assert index.query("rag") == [
        (Candidate("RAG", "alias", "retrieval.md", "retrieval.md"), 99.999)
    ]


def test_short_queries_allow_no_typo(index: SwitcherIndex) -> None:
    assert index.query("agn") == []
    assert index.query("zzz") == []


def test_match_key_sets_punctuation_and_case_aside() -> None:
    assert match_key("Prompt-Injection: 提示注入!  x_y") == "prompt injection 提示注入 x y"
    assert match_key("🚀") == "🚀"  # nothing but symbols: kept as it is
    assert match_key("   ") == ""


def many(first_letter_words: int) -> list[Candidate]:
    cands = [Candidate(f"c{i:04d}", "note", f"c{i:04d}.md", "") for i in range(first_letter_words)]
    cands.append(Candidate("contain countries", "note", "cc.md", "cc.md"))
    return cands


def test_with_many_words_of_one_letter_the_first_two_letters_must_be_right() -> None:
    big = SwitcherIndex(many(switcher._SCAN + 500))
    found = Candidate("contain countries", "note", "cc.md", "cc.md")
    assert big.query("contian countries") == [(found, 64.0)]
    assert big.query("ocntain countries") == [(found, 64.0)]  # the first two swapped
    assert big.query("cnotain countries") == []  # the second letter wrong: not looked for
    small = SwitcherIndex(many(10))
    assert small.query("cnotain countries") == [(found, 64.0)]
    assert small.query("ocntain countries") == [(found, 64.0)]
    assert small.query("dontain countries") == []  # the first letter wrong: not looked for


_WORDS = (
    *("agent", "memory", "prompt", "injection", "retrieval"),
    *("graph", "context", "concept", "contain", "count"),
)
_rnd = random.Random(3)
_NAMES = sorted(
    {" ".join(_rnd.sample(_WORDS, _rnd.randint(1, 3))) for _ in range(150)}
    | {f"{w}{i}" for w in _WORDS for i in range(3)}
)
_CANDS = [Candidate(name, "note", f"{i}.md", "") for i, name in enumerate(_NAMES)]
# Shared on purpose, one per scope rule: their caches carry over between examples.
_TYPED = {narrow: SwitcherIndex(_CANDS) for narrow in (False, True)}
_FRESH = SwitcherIndex(_CANDS)


@settings(max_examples=150)
@given(
    st.sampled_from(_NAMES),
    st.integers(0, 40),
    st.sampled_from(["as written", "swap", "drop", "double", "wrong"]),
    st.booleans(),
)
def test_typing_letter_by_letter_answers_like_a_fresh_index(
    name: str, at: int, edit: str, narrow_scope: bool
) -> None:
    i = at % len(name)
    typed = {
        "as written": name,
        "swap": name[:i] + name[i + 1 : i + 2] + name[i : i + 1] + name[i + 2 :],
        "drop": name[:i] + name[i + 1 :],
        "double": name[:i] + name[i] + name[i:],
        "wrong": name[:i] + "x" + name[i + 1 :],
    }[edit]
    with patch.object(switcher, "_SCAN", 5 if narrow_scope else switcher._SCAN):
        for end in range(1, len(typed) + 1):
            _FRESH._typo_cache.clear()
            assert _TYPED[narrow_scope].query(typed[:end]) == _FRESH.query(typed[:end])


def test_a_rewritten_note_shares_the_names_and_only_moves_up_the_recent_list(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a/Plan.md", "---\naliases: [roadmap]\n---\nOld plan.\n", age=300)
    write(tmp_path, "b/Plan.md", "Other plan.\n", age=200)
    write(tmp_path, "Notes.md", "Notes.\n", age=100)
    vault = VaultIndex.scan(tmp_path, use_cache=False)
    first = SwitcherIndex.build(vault)
    a_plan = Candidate("Plan", "note", "a/Plan.md", "a/Plan.md")
    b_plan = Candidate("Plan", "note", "b/Plan.md", "b/Plan.md")
    notes = Candidate("Notes", "note", "Notes.md", "Notes.md")
    assert [c for c, _ in first.query("")] == [notes, b_plan, a_plan]
    # Two names alike: the newer note first.
    assert first.query("plan") == [(b_plan, 100.0), (a_plan, 100.0)]

    write(tmp_path, "a/Plan.md", "---\naliases: [roadmap]\n---\nNew plan.\n", age=10)
    vault.update(["a/Plan.md"])
    second = SwitcherIndex.build(vault, first)
    assert second._suffixes is first._suffixes  # shared, not built again
    assert [c for c, _ in second.query("")] == [a_plan, notes, b_plan]
    assert second.query("plan") == [(a_plan, 100.0), (b_plan, 100.0)]
    assert second.query("roadmap") == [
        (Candidate("roadmap", "alias", "a/Plan.md", "a/Plan.md"), 100.0 - 1e-3)
    ]
    assert [c for c, _ in first.query("")] == [notes, b_plan, a_plan]  # the first unchanged

    # An alias changed: built again, and found by its new name only.
    write(tmp_path, "a/Plan.md", "---\naliases: [schedule]\n---\nNew plan.\n", age=5)
    vault.update(["a/Plan.md"])
    third = SwitcherIndex.build(vault, second)
    assert third._suffixes is not second._suffixes
    assert [c.node for c, _ in third.query("schedule")] == ["a/Plan.md"]
    assert third.query("roadmap") == []

    # So is a note added.
    write(tmp_path, "Planet.md", "Mars.\n", age=1)
    vault.update(["Planet.md"])
    fourth = SwitcherIndex.build(vault, third)
    assert fourth._suffixes is not third._suffixes
    assert [c.node for c, _ in fourth.query("")][:1] == ["Planet.md"]
