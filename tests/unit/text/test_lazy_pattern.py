"""Patterns compiled at their first use (``core/text/lazy_pattern.py``)."""

from __future__ import annotations

import re
import subprocess
import sys

from librarian_gui.core.text.lazy_pattern import lazy_pattern


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    lazy = lazy_pattern(r"[^\W\d]+(?:'[^\W\d]+)?", re.IGNORECASE)
    text = "Don't stop: 42 naïve Öl-Tanks, it's 東京"
    assert lazy.pattern == r"[^\W\d]+(?:'[^\W\d]+)?"
    assert lazy.findall(text) == ["Don't", "stop", "naïve", "Öl", "Tanks", "it's", "東京"]
    assert [m.span() for m in lazy.finditer(text)][:2] == [(0, 5), (6, 10)]
    assert lazy.match("42") is None
    match = lazy.search("  Zed")
    assert match is not None and match.group() == "Zed"
    assert lazy.fullmatch("naïve") is not None
    assert lazy.sub("_", "a1b") == "_1_"
    assert lazy.subn("_", "a1b") == ("_1_", 2)
    assert lazy.split("a1b") == ["", "1", ""]
    assert lazy.groups == 0  # any other attribute of a compiled pattern


def test_nothing_is_compiled_before_the_first_use() -> None:
    lazy = lazy_pattern(r"\w+")
    assert "findall" not in vars(lazy)  # type: ignore[arg-type]
    assert lazy.findall("two words") == ["two", "words"]
    assert "findall" in vars(lazy)  # type: ignore[arg-type]  # bound: no lookup again


def test_importing_the_analyzer_and_the_token_estimate_compiles_none_of_their_unicode_classes() -> (
    None
):
    # A fresh interpreter (this one may have used them): ``re`` keeps every pattern it
    # compiled; after the imports none of the wide Unicode classes may be among them.
    script = (
        "import re\n"
        "import librarian_gui.core.text.analyzer, librarian_gui.core.agents.tokens\n"
        "print(sum('\\u4e00' in key[1] for key in re._cache if isinstance(key[1], str)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == "0\n"


def test_the_analyzers_lazy_patterns_find_what_the_compiled_ones_find() -> None:
    from librarian_gui.core.agents import tokens
    from librarian_gui.core.text import analyzer

    text = "Don’t 用Python写 ทดสอบ 東京タワー naïve ½ ™ ✓ 😀 x_y 42 한국어 ｶﾀｶﾅ"
    for lazy in (
        analyzer.IS_SPACED_WORD_CHAR,
        analyzer._WORD,
        analyzer._IS_CJK,
        analyzer._MENTION_WORD,
        analyzer._UNSPACED,
        analyzer._PHRASE_WORD,
        analyzer._PHRASE_RUN,
        tokens._CJK_CHAR,
        tokens._LETTER,
        tokens._SYMBOL_1,
        tokens._SYMBOL_2,
        tokens._SYMBOL_3,
    ):
        assert lazy.findall(text) == re.compile(lazy.pattern).findall(text), lazy.pattern
