"""Plurals weighed as their singulars: which words fold, to what, and a note holding both
forms counted once."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.related.counting import counts_matrix
from librarian_gui.core.related.weights import singular, term_columns, vocabulary, weigh


def test_the_singular_of_a_plural_is_one_guess_by_its_suffix() -> None:
    assert [singular(w) for w in ("links", "queries", "classes", "notes", "boxes")] == [
        "link",
        "query",
        "class",
        "note",
        "box",
    ]
    assert singular("times") == "time"  # never "tim", whatever the vault holds
    for word in ("class", "status", "analysis", "bus", "its", "was", "naïves", "data", "x"):
        assert singular(word) is None


@given(st.text(alphabet="abcdeilnorsuxyz", max_size=12))
def test_a_singular_is_never_folded_again(word: str) -> None:
    single = singular(word)
    if single is not None:
        assert singular(single) is None
        assert len(single) < len(word)


def test_a_plural_is_its_singulars_term_only_when_the_singular_is_a_word_of_the_vault() -> None:
    table = ["link", "links", "kubernetes", "pods", "alpha"]
    # Six notes: "link" in 0 and 1, "links" in 1 and 2; "kubernetes" in 0 and 3, whose
    # singular is no word of the table; "pods" in 2 and 3 alone; two notes of other words.
    rows = [[0, 2], [0, 1], [1, 3, 4], [2, 3, 4], [], []]
    ids = [np.array(r, dtype=np.int32) for r in rows]
    counts = counts_matrix((ids, [np.ones(len(r), dtype=np.int32) for r in rows]), len(table))
    terms, idf = vocabulary(table, counts)
    assert terms == ("alpha", "kubernetes", "link", "pods")
    # "link" or "links" is in notes 0, 1 and 2: three notes (note 1 holds both, once).
    assert idf[2] == np.log(7 / 4) + 1.0
    columns = term_columns(table, terms)
    assert columns.tolist() == [2, 2, 1, 3, 0]
    # The map depends on the terms alone: a word met later ("alphas") finds its singular.
    assert term_columns(["alphas", "links", "kubernete"], terms).tolist() == [0, 2, -1]


def test_both_forms_in_one_note_weigh_as_one_term_of_their_summed_count() -> None:
    table = ["links", "alpha", "link"]
    terms = ("alpha", "link")
    columns = term_columns(table, terms)
    idf = np.ones(2)
    one = [np.array([0, 1, 2], dtype=np.int32)]
    counts = counts_matrix((one, [np.array([2, 1, 3], dtype=np.int32)]), 3)
    row = weigh(counts, columns, idf, np.ones(2), 10)
    assert row.indices.tolist() == [0, 1]
    expected = np.array([1.0, 1.0 + np.log(5.0)])  # alpha once, link 2 + 3 times
    assert np.allclose(row.data, expected / np.linalg.norm(expected))
