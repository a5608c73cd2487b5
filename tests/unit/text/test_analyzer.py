"""The one analyzer: hand-derived words, terms and the named splits beside them, and the
properties its fast paths and callers rely on (hypothesis)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.text import analyzer
from librarian_gui.core.text.analyzer import (
    apostrophe_words,
    ascii_words,
    counted_words,
    has_cjk,
    has_unspaced,
    kept,
    mention_words,
    phrase_runs,
    phrase_words,
    raw_words,
    stem,
    terms,
    word_set,
    word_spans,
    words,
)


def test_chinese_and_japanese_as_bigrams() -> None:
    assert words("向量索引 と 検索") == ["向量", "量索", "索引", "と", "検索"]
    assert words("Café Über ÉCOLE") == ["café", "über", "école"]


def test_stop_words_numbers_and_single_letters_are_left_out() -> None:
    # "The", "and" stop words; "42" digits only; "a", "x" one letter; ’ folded to '.
    assert words("The 42 cats and a Dog’s 3d x") == ["cats", "dog's", "3d"]


def test_underscores_part_words_and_one_apostrophe_joins() -> None:
    assert words("snake_case rock'n'roll") == ["snake", "case", "rock'n", "roll"]


def test_raw_words_fold_each_word_alone() -> None:
    assert raw_words("İstanbul STRASSE Straße ΣΟΦΟΣ don’t a 42") == [
        "i̇stanbul",
        "strasse",
        "strasse",
        "σοφοσ",
        "don't",
        "a",
        "42",
    ]


def test_kept() -> None:
    assert [kept(w) for w in ("a", "向", "the", "2024", "3d", "don't", "hnsw")] == [
        False,
        True,
        False,
        False,
        True,
        False,
        True,
    ]


def test_has_cjk() -> None:
    assert has_cjk("a 向 b") and has_cjk("カ") and not has_cjk("Café ภาษา")


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("paints", "paint"),
        ("painted", "paint"),
        ("painting", "paint"),
        ("stories", "story"),
        ("classes", "class"),
        ("running", "run"),
        ("hopped", "hop"),
        ("filled", "fill"),  # l, s and z stay doubled
        ("quickly", "quick"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("dog's", "dog"),
        ("bus", "bus"),  # three letters or fewer stay
        ("cafés", "cafés"),  # only ASCII words are folded
        # folded again until it stays: a plural of an -ing word meets the word
        ("paintings", "paint"),
        ("meetings", "meet"),
        ("feelings", "feel"),
        # "family" loses "ly"; "families" → "family" → "fami": the two still meet
        ("family", "fami"),
        ("families", "fami"),
    ],
)
def test_stem(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("abdegilnorsy'"), max_size=14))
def test_stem_is_idempotent(word: str) -> None:
    """A stem is its own stem, so a word and each of its forms fold to one term."""
    assert stem(stem(word)) == stem(word)


def test_terms_are_the_stemmed_words() -> None:
    assert terms("The painted Stories of Running Dogs, 向量") == [
        "paint",
        "story",
        "run",
        "dog",
        "向量",
    ]


def test_word_spans_fold_as_raw_words_and_say_where() -> None:
    assert word_spans("Don’t stop_now") == [("don't", 0, 5), ("stop", 6, 10), ("now", 11, 14)]


def test_mention_words_are_bounded_as_the_matcher_bounds_names() -> None:
    # Unlike ``words``: "_" inside a word, lowercased not case-folded (ß stays), and a
    # script without spaces no word at all.
    assert word_set("Alpha中文 beta_gamma, Straße alpha") == {"alpha", "beta_gamma", "straße"}
    assert mention_words("Beta_Gamma Straße") == ["beta_gamma", "straße"]
    assert has_unspaced("用Python写") and has_unspaced("ภาษา") and not has_unspaced("Python")


def test_phrase_runs_keep_hyphens_and_end_at_punctuation() -> None:
    text = "Follow-up with Wren’s team, then the vector store.\nNext 用Python写"
    assert phrase_runs(text) == [
        "Follow-up with Wren’s team",
        "then the vector store",
        "Next",
        "Python",
    ]
    assert phrase_words("Follow-up with Wren's team") == ["Follow-up", "with", "Wren's", "team"]


def test_ascii_fast_split() -> None:
    assert ascii_words("Snap_to-Grid's 'tis") == ["snap", "to", "grid's", "'tis"]
    assert apostrophe_words("'tis") == ["tis"]
    assert apostrophe_words("a'b'c") == ["a'b", "c"]
    counts, sequence = counted_words("Don't 'tis dogs' Dogs", sequence=True)
    assert counts == Counter({"dogs": 2, "don't": 1, "tis": 1})
    assert sequence == ["don't", "'tis", "dogs'", "dogs"]
    assert counted_words("Don't", sequence=False)[1] == []


ALPHABET = st.sampled_from(
    # ASCII, case-folding traps, CJK, digits of other scripts, no-break and other spaces,
    # a dash, a combining accent
    [
        *"abcXYZ019 '’_-.,#[]()!:/\n\tßİıǅΣσς",
        "向",
        "量",
        "検",
        "Å",
        "é",
        "²",
        "٣",
        "\u00a0",
        "\u3000",
        "\x1c",
        "—",
        "\u0301",
    ]
)
SPACED = ALPHABET.filter(lambda c: c not in "向量検")


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=80))
def test_terms_of_a_text_are_the_terms_of_its_pieces(text: str) -> None:
    """No word spans a blank: a text's terms are its blank-separated pieces' terms, in order
    (so a query's terms do not depend on how it was spaced or cut into lines)."""
    assert terms(text) == [t for piece in text.split() for t in terms(piece)]


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=80))
def test_the_fast_count_is_the_plain_count(text: str) -> None:
    plain = words(text) if has_cjk(text) else raw_words(text)
    assert counted_words(text)[0] == Counter(plain)


@settings(max_examples=300, deadline=None)
@given(st.text(SPACED, max_size=80))
def test_raw_words_are_the_words_before_the_filter(text: str) -> None:
    """Without Chinese or Japanese, the words folded all at once, filtered, are ``words``."""
    assert [w for w in raw_words(text) if kept(w)] == words(text)


@settings(max_examples=300, deadline=None)
@given(st.text(SPACED, max_size=80))
def test_word_spans_are_raw_words_where_they_stand(text: str) -> None:
    spans = word_spans(text)
    assert [w for w, _, _ in spans] == raw_words(text)
    assert [text[s:e].casefold().replace("’", "'") for _, s, e in spans] == raw_words(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=6), max_size=30).map(" ".join))
def test_terms_of_any_text_are_the_stemmed_words(text: str) -> None:
    """Text beyond ASCII is split as UTF-8 bytes and each piece's terms kept: still exactly
    the stemmed ``words``, Chinese bigrams, other blanks, dashes and case folding included."""
    assert terms(text) == [stem(w) for w in words(text)]
    assert terms(text) == [stem(w) for w in words(text)]  # the kept pieces, read back


def test_terms_beyond_ascii_past_the_pieces_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``_PIECES_KEPT`` the pieces' terms start again from none, and are right."""
    monkeypatch.setattr(analyzer, "_PIECES_KEPT", 3)
    monkeypatch.setattr(analyzer, "_BYTE_PIECE_TERMS", {})
    assert terms("Café crème brûlée") == ["café", "crème", "brûlée"]
    assert len(analyzer._BYTE_PIECE_TERMS) == 3
    # casefolded ("ß" is "ss"); the stemmer folds only ASCII words
    assert terms("Über Straße naïve cafés") == ["über", "strasse", "naïve", "cafés"]
    # each piece past the third empties the table first: "über" (1), "straße" (2), "naïve"
    # (3), then "cafés" alone
    kept = analyzer._BYTE_PIECE_TERMS
    assert kept == {"cafés".encode(): ("cafés",)}
    assert terms("Café crème") == ["café", "crème"]  # read again after they were let go


ASCII = st.sampled_from([*"aAzZ09 _'-.,\t\n\r#*[]|/\\`\"éé", "ing", "ies", "ed", "'s", "s"])


@settings(max_examples=500, deadline=None)
@given(st.lists(ASCII, max_size=40).map("".join))
def test_terms_of_ascii_split_in_c_are_the_stemmed_words(text: str) -> None:
    """The fast path (ASCII split in C, each piece's terms kept) gives exactly the stemmed
    ``words``, apostrophes, underscores and digits included; the "é" keeps some texts on
    the plain path, so both meet."""
    assert terms(text) == [stem(w) for w in words(text)]
    assert terms(text) == [stem(w) for w in words(text)]  # the kept pieces, read back


def test_terms_of_ascii_by_hand() -> None:
    # "don't" and "the" are stop words, "42" digits only, "c" one letter
    assert terms("Don't 'tis dogs' a'b'c snake_case 42 x2 The RUNNING") == [
        "tis",
        "dog",
        "a'b",
        "snake",
        "case",
        "x2",
        "run",
    ]
