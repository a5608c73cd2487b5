"""Recall (issue 27) on fixtures written by hand: names are not evidence, an answer rides
with the question it answers, the demo vault's headline question finds its decision note,
and a pack or a search says when nothing answers well."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents.context import context_pack
from librarian_gui.core.agents.ranking import NOT_ANSWERED
from librarian_gui.core.agents.search import search_notes
from librarian_gui.core.agents.speakers import line_label, speakers, unlabelled
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from tests.conftest import REPO, write

CHAT = (
    "# Chat\n"
    "\n"
    "**Ann:** Morning! The weather is lovely.\n"  # line 3: Ann, no word of the question
    "\n"
    "**Bob:** Hi Ann. I repaired the boat yesterday.\n"  # 5: Ann named, nothing else
    "\n"
    "**Ann:** I painted the fence blue.\n"  # 7: Ann, "painted"
    "\n"
    "**Bob:** Did you paint it alone?\n"  # 9: Bob, "paint", a question
    "\n"
    "**Ann:** Yes, my sister helped with the gate.\n"  # 11: the answer, no word asked
    "\n"
    "**Bob:** The harbour was quiet today.\n"  # 13: nothing
    # more turns of nothing asked, so the section is long and each turn a passage
    + "".join(
        f"\n**{who}:** The tide tables for week {n} list high water at noon and low water"
        " at six, and the ferry keeps its winter timetable until the spring equinox.\n"
        for n, who in enumerate(["Ann", "Bob"] * 3)
    )
)


def _index(root: Path) -> tuple[VaultIndex, object]:
    index = VaultIndex.scan(root, use_cache=False)
    return index, lambda rel: read_note(index.root, rel).text


def test_labels_opening_most_lines_are_speakers() -> None:
    lines = CHAT.split("\n")
    assert speakers(lines) == {"Ann", "Bob"}
    assert line_label("**Ann:** I painted") == ("Ann", 9)
    assert line_label("- Wren: shipped the loader") == ("Wren", 8)
    assert line_label("**Bold** text: not a label") is None
    # one label in a note of prose is not a speaker
    assert speakers(["Note: the oven ran hot.", "We baked.", "It rained.", "Fine."]) == set()
    text, said = unlabelled("**Ann:** I painted\n**Bob:** Did you?", frozenset({"Ann", "Bob"}))
    assert (text, said) == ("I painted\nDid you?", {"Ann", "Bob"})


@given(st.lists(st.text(alphabet="AB*: -x\t", max_size=12), max_size=6))
def test_unlabelled_keeps_every_line_and_its_rest(lines: list[str]) -> None:
    text = "\n".join(lines)
    known = speakers(lines) | {"A", "B"}
    out, _ = unlabelled(text, frozenset(known))
    kept = out.split("\n")
    assert len(kept) == len(text.split("\n"))
    for before, after in zip(text.split("\n"), kept, strict=True):
        assert before.endswith(after)


def test_a_name_alone_ranks_no_line_and_the_answer_rides_with_its_question(
    vault: Path,
) -> None:
    write(vault, "chat.md", CHAT)
    index, text_of = _index(vault)
    pack = context_pack(index, text_of, "What did Ann paint?", 2000, index_note="none")  # type: ignore[arg-type]
    got = {p.passage.first: p.reasons for p in pack.passages}
    # Ann's painted line: the word, and said by the person asked about
    assert got[7] == ("text match", "said by ann")
    # Bob's question matches "paint"; Ann's "Yes, …" answers it: in, though it shares no word
    assert got[9] == ("text match",)
    assert got[11] == ("answers a match", "said by ann")
    # Bob naming Ann is no match: he only sits next to Ann's matching line
    assert got[5] == ("next to a match",)
    # Ann's morning line has nothing but her name: last, to fill the budget
    assert got[3] == ("said by ann",)
    scores = {p.passage.first: p.score for p in pack.passages}
    assert scores[7] > scores[9] > scores[11] > scores[5] > scores[3]
    assert 13 not in got  # Bob, no word asked, next to nothing that matched


POTTERY = (
    "# Chat\n"
    "\n"
    "**Ann:** I signed up for a pottery class last week.\n"  # line 3: the match
    "\n"
    "**Bob:** Wow, good for you.\n"  # 5: Bob's reply, no word asked
    "\n"
    "**Ann:** Honestly the teacher showed me how to throw a bowl.\n"  # 7: Ann goes on
    "\n"
    "**Bob:** The harbour was quiet today.\n"  # 9: Bob, two after his own non-match
    + "".join(
        f"\n**{who}:** The tide tables for week {n} list high water at noon and low water"
        " at six, and the ferry keeps its winter timetable until the spring equinox.\n"
        for n, who in enumerate(["Ann", "Bob"] * 3)
    )
)


def test_a_speaker_going_on_after_the_reply_rides_with_the_match(vault: Path) -> None:
    write(vault, "chat.md", POTTERY)
    index, text_of = _index(vault)
    pack = context_pack(index, text_of, "What did Ann make at pottery?", 2000, index_note="none")  # type: ignore[arg-type]
    got = {p.passage.first: p.reasons for p in pack.passages}
    assert got[3] == ("text match", "said by ann")
    # no word of the question, but Ann saying more of what matched, one reply later: it
    # takes a neighbour's share (0.35) of the match's score, both said by the one asked about
    assert "its speaker goes on from a match" in got[7]
    scores = {p.passage.first: p.score for p in pack.passages}
    assert scores[7] == pytest.approx(0.35 * scores[3])


def test_only_a_name_asked_finds_that_speakers_lines(vault: Path) -> None:
    write(vault, "chat.md", CHAT)
    index, text_of = _index(vault)
    found = search_notes(index, text_of, "Bob", limit=5)  # type: ignore[arg-type]
    assert [h.note for h in found.hits] == ["chat.md"]
    assert found.answers_well


DEMO = REPO / "resources" / "demo-vault"


@pytest.fixture(scope="module")
def demo() -> tuple[VaultIndex, object]:
    return _index(DEMO)


@pytest.mark.parametrize("budget", [1000, 2000, 4000, 8000])
def test_the_demo_vaults_question_packs_its_decision(
    demo: tuple[VaultIndex, object], budget: int
) -> None:
    index, text_of = demo
    pack = context_pack(index, text_of, "what did we decide about the database?", budget)  # type: ignore[arg-type]
    # written by hand: the decision record for the staging database
    assert "decisions/use-duckdb-for-staging.md" in pack.notes
    assert "## Decision\nStage and transform in DuckDB" in pack.text
    assert pack.answers_well


def test_nothing_in_memory_says_so(demo: tuple[VaultIndex, object]) -> None:
    index, text_of = demo
    pack = context_pack(index, text_of, "quantum chromodynamics lecture", 1000)  # type: ignore[arg-type]
    assert not pack.answers_well
    data = pack.to_json()
    assert (data["answers_well"], data["warning"]) == (False, NOT_ANSWERED)
    assert f"Warning: {NOT_ANSWERED}" in pack.text
    # No word of it is in the demo vault: no passage follows, and the warning says so.
    assert pack.passages == ()
    assert f"Warning: {NOT_ANSWERED}; no passage matches it.\n" in pack.text
    found = search_notes(index, text_of, "quantum chromodynamics lecture")  # type: ignore[arg-type]
    assert found.to_json("q")["answers_well"] is False
    well = search_notes(index, text_of, "idempotent loaders")  # type: ignore[arg-type]
    assert well.answers_well and "warning" not in well.to_json("q")


def test_a_question_of_stop_words_only_is_not_answered(
    demo: tuple[VaultIndex, object],
) -> None:
    """Every word of "something during" is a stop word: nothing can match it, so neither
    the pack nor the search may say that memory answers it (they said so: no word left
    was read as "nothing asked")."""
    index, text_of = demo
    pack = context_pack(index, text_of, "something during", 2000)  # type: ignore[arg-type]
    assert (pack.passages, pack.answers_well) == ((), False)
    assert pack.to_json()["warning"] == NOT_ANSWERED
    found = search_notes(index, text_of, "something during")  # type: ignore[arg-type]
    assert (found.hits, found.to_json("q")["answers_well"]) == ((), False)
    # An empty question lists the newest notes, and that is an answer.
    assert search_notes(index, text_of, "").answers_well  # type: ignore[arg-type]


def test_search_json_says_whether_it_answers(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from librarian_gui.cli import main

    write(vault, "pie.md", "# Pie\n\nBaked an apple pie with cinnamon.\n")
    assert main(["search", str(vault), "cinnamon", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["answers_well"], data["hits"][0]["reasons"]) == (True, ["text match"])
    assert main(["search", str(vault), "cinnamon tornado warning", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # "cinnamon" is a third of what the words weigh: under the 0.4 that answers well
    assert (data["answers_well"], data["warning"]) == (False, NOT_ANSWERED)


def _diaries(root: Path, count: int) -> list[str]:
    """``count`` diaries, one a day from 2023-01-01, each about the garden; their paths,
    oldest first."""
    import datetime as dt

    paths = []
    for n in range(count):
        day = dt.date(2023, 1, 1) + dt.timedelta(days=n)
        rel = f"diary/{day.isoformat()}.md"
        write(root, rel, f"# {day.isoformat()}\n\nWatered the garden and read a book.\n")
        paths.append(rel)
    return paths


def test_a_question_of_stop_words_reads_only_the_newest_notes(tmp_path: Path) -> None:
    """Past PREFILTER_ABOVE notes a question with no searchable word (every word a stop
    word) splits the CANDIDATES newest notes, not every note (issue 30: "something during"
    split all 10,000 notes of a vault, 30 s)."""
    from librarian_gui.core.agents.bm25 import terms
    from librarian_gui.core.agents.corpus import CANDIDATES, PREFILTER_ABOVE, Corpus

    paths = _diaries(tmp_path, PREFILTER_ABOVE + 50)
    index = VaultIndex.scan(tmp_path, use_cache=False)
    assert terms("something during") == []
    corpus = Corpus.build(index, _text_of(index), sorted(index.notes), [])
    assert corpus.notes == paths[-CANDIDATES:]


def test_an_empty_search_lists_the_newest_notes_first_past_the_candidates(tmp_path: Path) -> None:
    paths = _diaries(tmp_path, 450)
    index = VaultIndex.scan(tmp_path, use_cache=False)
    found = search_notes(index, _text_of(index), "", limit=150)
    assert [h.note for h in found.hits] == paths[::-1][:150]


def _text_of(index: VaultIndex):  # type: ignore[no-untyped-def]
    return lambda rel: read_note(index.root, rel).text


def test_candidates_are_scored_with_the_whole_vaults_word_weights(tmp_path: Path) -> None:
    """Past PREFILTER_ABOVE notes only the candidates are split, but a word is weighed
    by how many notes of the vault hold it: "jelly" is in 300 of 460 notes and "quince"
    in 3, so among the few candidates (all holding a question word) "jelly" must not
    weigh as a rare word (it did: logseq-docs' known-item search fell 0.302 → 0.274)."""

    from librarian_gui.core.agents.bm25 import terms
    from librarian_gui.core.agents.corpus import Corpus

    for i in range(460):
        words = (
            ["filler", "text"] + (["jelly"] if i < 300 else []) + (["quince"] if i >= 457 else [])
        )
        write(tmp_path, f"n/{i:03}.md", " ".join(words) + "\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    corpus = Corpus.build(index, _text_of(index), sorted(index.notes), terms("quince jelly"))
    assert len(corpus.notes) == 100  # CANDIDATES: the three quince notes first
    assert {"n/457.md", "n/458.md", "n/459.md"} <= set(corpus.notes)
    bm25 = corpus.note_bm25
    assert bm25.size == 460
    assert math.isclose(bm25.idf("jelly"), math.log(1 + (460 - 300 + 0.5) / (300 + 0.5)))
    assert math.isclose(bm25.idf("quince"), math.log(1 + (460 - 3 + 0.5) / (3 + 0.5)))


def test_a_notes_new_name_or_alias_is_matched_at_the_next_question(tmp_path: Path) -> None:
    """The note names a question is matched against are kept per index: an alias added,
    a note renamed or deleted since the last question must show at the next one."""
    from librarian_gui.core.agents.ranking import name_scores

    write(tmp_path, "Quince jelly.md", "Sweet.\n")
    write(tmp_path, "Other.md", "Plain.\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    notes = sorted(index.notes)
    assert notes == ["Other.md", "Quince jelly.md"]
    assert name_scores(index, notes, "quince jelly") == {1: 1.0}
    assert name_scores(index, notes, "membrillo") == {}
    write(tmp_path, "Other.md", "---\naliases: [Membrillo]\n---\nPlain.\n")
    (tmp_path / "Quince jelly.md").rename(tmp_path / "Jam.md")
    index.update(["Other.md", "Quince jelly.md", "Jam.md"])
    notes = sorted(index.notes)
    assert notes == ["Jam.md", "Other.md"]
    assert name_scores(index, notes, "membrillo") == {1: 1.0}
    assert name_scores(index, notes, "quince jelly") == {}
    assert name_scores(index, notes, "jam") == {0: 1.0}


def test_names_as_long_as_the_floor_allows_are_matched_and_no_longer(tmp_path: Path) -> None:
    """Only names whose length lets fuzz.ratio reach the floor (80) are compared: the ratio
    is 2 × common letters / both lengths, so against an 8-letter query a 12-letter name
    holding it is at 2 × 8 / 20 = 80 (matched, score 0.5) and a 13-letter one at
    16 / 21 = 76 (not); a 10-letter one at 16 / 18 = 88.9 (score 0.5 + 0.5 × 8.9 / 20)."""
    from librarian_gui.core.agents.ranking import name_scores

    for title in ("abcdefgh", "abcdefghij", "abcdefghijkl", "abcdefghijklm", "abcd"):
        write(tmp_path, f"{title}.md", "Text.\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    notes = sorted(index.notes)
    found = name_scores(index, notes, "abcdefgh")
    assert {notes[i] for i in found} == {"abcdefgh.md", "abcdefghij.md", "abcdefghijkl.md"}
    assert found[notes.index("abcdefgh.md")] == 1.0
    assert math.isclose(found[notes.index("abcdefghij.md")], 0.5 + 0.5 * (16 / 18 - 0.8) / 0.2)
    assert math.isclose(found[notes.index("abcdefghijkl.md")], 0.5)
    # the other way: a 12-letter query reaches an 8-letter name at the floor, not a 4-letter one
    found = name_scores(index, notes, "abcdefghijkl")
    assert {notes[i] for i in found} == {
        "abcdefgh.md",
        "abcdefghij.md",
        "abcdefghijkl.md",
        "abcdefghijklm.md",
    }
    assert math.isclose(found[notes.index("abcdefgh.md")], 0.5)
