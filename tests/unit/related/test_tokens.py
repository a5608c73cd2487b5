"""The words notes are compared by: hand-written cases, and the fast counting path equal
to the plain one on generated text (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.related.model import note_counts
from librarian_gui.core.related.tokens import kept, plain_text, raw_words, words


def test_code_front_matter_links_urls_and_tags_are_left_out() -> None:
    text = (
        "---\ntitle: Secret Title\n---\n"
        "Vector indexes speed [[Some Note|up the]] search; see [docs](https://x.io/y) or\n"
        "https://example.com/path and ![[img.png]] #project/alpha.\n"
        "```\ncode_words here\n```\n"
        "It's the HNSW graph, not the HNSW's rival. Dogs' bowls, 'tis 42 times 3d.\n"
    )
    assert words(plain_text(text)) == [
        "vector",
        "indexes",
        "speed",
        "search",
        "see",
        "hnsw",
        "graph",
        "hnsw's",
        "rival",
        "dogs",
        "bowls",
        "tis",
        "times",
        "3d",
    ]


def test_link_reference_definitions_are_left_out() -> None:
    text = (
        "The daily command.\n\n[daily]: cli/daily.md 'foam daily'\n"
        "   [x y]: <a b.md>\nA line [not]: a definition.\n"
    )
    # Up to three spaces before the label; not in the middle of a line.
    assert words(plain_text(text)) == ["daily", "command", "line", "definition"]


def test_chinese_and_japanese_as_bigrams() -> None:
    assert words("向量索引 と 検索") == ["向量", "量索", "索引", "と", "検索"]
    assert words("Café Über ÉCOLE") == ["café", "über", "école"]


ALPHABET = st.sampled_from(
    # ASCII, case-folding traps, CJK, digits of other scripts, a no-break space, a dash, a
    # combining accent
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
        "—",
        "\u0301",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=80))
def test_the_fast_count_is_the_plain_count(text: str) -> None:
    assert note_counts(text) == Counter(words(plain_text(text)))


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET.filter(lambda c: c not in "向量検"), max_size=80))
def test_raw_words_are_the_words_before_the_filter(text: str) -> None:
    """Without Chinese or Japanese, the words folded all at once, filtered, are ``words``."""
    assert [w for w in raw_words(text) if kept(w)] == words(text)


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
