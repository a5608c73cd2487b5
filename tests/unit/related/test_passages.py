"""Passages two notes share: runs of five words, hashed alike wherever the words are alike;
the pairs that share one (boilerplate, held by more than five notes, left out); the bonus in
the ranking; the passage shown to explain a pair."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.related.model import build_related
from librarian_gui.core.related.passages import (
    WordCodes,
    common_passage,
    passage_bonus,
    passage_hashes,
    postings,
    shared_pairs,
)

WORDS = st.lists(st.sampled_from(["apple", "river", "stone", "cloud"]), max_size=12)


def hashes(text: str) -> set[int]:
    return set(passage_hashes(text.split(), WordCodes()).tolist())


def test_a_run_of_five_words_hashes_alike_wherever_it_stands() -> None:
    first = hashes("the helm chart raised memory limits")  # two runs
    second = hashes("so the helm chart raised memory")  # two runs, one of them the same
    assert len(first) == 2 and len(second) == 2
    assert len(first & second) == 1
    assert hashes("four words only here") == set()
    # A run of stop words, or of one word worth comparing among them, is no passage.
    assert hashes("it is what it is") == set()
    assert hashes("and then there was rain") == set()
    assert len(hashes("and then rain was rain")) == 1
    # The order of the words counts: the same five words in another order are another run.
    assert hashes("memory raised chart helm the").isdisjoint(hashes("the helm chart raised memory"))


@given(WORDS, WORDS)
def test_two_sequences_share_a_hash_where_they_share_a_run(one: list[str], two: list[str]) -> None:
    runs_one = {tuple(one[i : i + 5]) for i in range(len(one) - 4)}
    runs_two = {tuple(two[i : i + 5]) for i in range(len(two) - 4)}
    found_one = passage_hashes(one, WordCodes())
    found_two = passage_hashes(two, WordCodes())
    assert len(set(found_one.tolist())) == len(runs_one)  # no two runs alike
    common = set(found_one.tolist()) & set(found_two.tolist())
    assert len(common) == len(runs_one & runs_two)


def test_the_pairs_that_share_a_passage_leave_boilerplate_out() -> None:
    # Notes 0 and 1 share hash 7; notes 2 to 7 (six) share hash 9: boilerplate; notes 3, 4
    # and 5 also share hash 8 (three notes: three pairs).
    per_note = [
        np.array([7], np.uint64),
        np.array([1, 7], np.uint64),
        np.array([9], np.uint64),
        np.array([8, 9], np.uint64),
        np.array([8, 9], np.uint64),
        np.array([8, 9], np.uint64),
        np.array([9], np.uint64),
        np.array([2, 9], np.uint64),
    ]
    keys, owner = postings(per_note)
    assert keys.tolist() == sorted(keys.tolist())
    found, support = shared_pairs(keys, owner)
    pairs = {(int(k) >> 32, int(k) & 0xFFFFFFFF) for k in found}
    assert pairs == {(0, 1), (1, 0), (3, 4), (4, 3), (3, 5), (5, 3), (4, 5), (5, 4)}
    assert support.tolist() == [1] * 8  # one passage each


def test_a_passage_a_note_repeats_is_held_once() -> None:
    keys, owner = postings([np.array([5, 3, 5], np.uint64), np.array([5], np.uint64)])
    assert (keys.tolist(), owner.tolist()) == ([3, 5, 5], [0, 0, 1])
    found, support = shared_pairs(keys, owner)
    assert found.tolist() == [1, 1 << 32] and support.tolist() == [1, 1]


def test_the_bonus_goes_to_candidates_that_share_a_passage() -> None:
    shared = np.array([(0 << 32) | 2, (2 << 32) | 0], dtype=np.int64)
    cand_rows = np.array([[1, 2, -1], [0, 2, -1]], dtype=np.int32)
    bonus = passage_bonus(np.array([0, 1], np.int32), cand_rows, shared, 0.05)
    assert bonus.tolist() == [[0.0, 0.05, 0.0], [0.0, 0.0, 0.0]]


def test_an_index_line_quoting_a_note_ranks_it_first() -> None:
    """The index's first line repeats the first sentence of "alpha"; "beta" holds the
    words of the second line, not in that order, and is the closer by cosine (0.70 and 0.65
    here): the shared passage puts "alpha" first. The notes' names are no words of the
    others (a mention would count too)."""
    notes = {
        "tools.md": "Commands of the tool.\n\n- Show or create the daily note for a date.\n"
        "- Review the weekly journal pages for each month and year.",
        "alpha.md": "Show or create the daily note for a date. Without an option it shows "
        "the note of today.",
        "beta.md": "The weekly journal pages: a review of each month and year, journal by journal.",
        "other.md": "Gardens, rivers and old maps.",
    }
    with_passages = build_related(notes, k=3)
    assert with_passages.shares_passage("tools.md", "alpha.md")
    assert with_passages.shares_passage("alpha.md", "tools.md")
    assert not with_passages.shares_passage("tools.md", "beta.md")
    assert [n for n, _ in with_passages.neighbours("tools.md")] == ["alpha.md", "beta.md"]
    without = build_related(notes, k=3, passages=False)
    assert not without.shares_passage("tools.md", "alpha.md")
    assert [n for n, _ in without.neighbours("tools.md")] == ["beta.md", "alpha.md"]


def test_the_passage_shown_is_the_longest_run_as_the_note_writes_it() -> None:
    text = "Intro. Show or Create the DAILY note for a date, then go."
    other = "- show or create the daily note for a date\n- show or create the daily"
    assert common_passage(text, other) == (7, 47)
    assert text[7:47] == "Show or Create the DAILY note for a date"
    assert common_passage("four words only here", "four words only here") is None
    assert common_passage("one two three four five", "one two three four six") is None
    assert common_passage("so it is what it is", "and it is what it is") is None
