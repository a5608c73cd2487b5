"""The prose related notes compare: code, front matter, links, URLs and tags left out; and
the model's counting equal to the analyzer's words of that prose (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.related.model import note_counts
from librarian_gui.core.related.prose import plain_text
from librarian_gui.core.text.analyzer import words


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


ALPHABET = st.sampled_from(
    # ASCII, case-folding traps, CJK, digits of other scripts, a no-break space, a dash, a
    # combining accent, link and tag syntax
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
def test_the_models_count_is_the_analyzers_words_of_the_prose(text: str) -> None:
    assert note_counts(text) == Counter(words(plain_text(text)))
