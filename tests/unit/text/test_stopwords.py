"""The stop-word lists: folded as the words they are compared with are."""

from __future__ import annotations

from librarian_gui.core.text.analyzer import raw_words
from librarian_gui.core.text.stopwords import STOP_WORDS, STOP_WORDS_BY_LANGUAGE


def test_language_lists_are_modest_and_casefolded() -> None:
    assert [name for name, _ in STOP_WORDS_BY_LANGUAGE] == [
        "English",
        "German",
        "French",
        "Spanish",
    ]
    for _, words in STOP_WORDS_BY_LANGUAGE:
        assert 90 <= len(words) <= 160
        assert all(w == w.casefold() and w == w.strip() for w in words)


def test_the_scorers_stop_words_are_single_analyzer_words() -> None:
    """Each is one word as ``raw_words`` folds it, or ``kept`` could never drop it."""
    assert [w for w in sorted(STOP_WORDS) if raw_words(w) != [w]] == []
