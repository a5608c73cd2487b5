"""The token estimate: exact values worked by hand, and the properties budgets rely on."""

from __future__ import annotations

import math
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.agents.tokens import (
    estimate_tokens,
    from_tenths,
    joined_tenths,
    line_tenths,
    tenths,
)

REPO = Path(__file__).resolve().parents[3]


def test_empty_text_is_free() -> None:
    assert estimate_tokens("") == 0


def test_english_words() -> None:
    # a text's start reads as a line's: "hello" and "world" are words after a blank, five
    # letters, lower case: 1 + 1 = 2; × 1.05 = 2.1 → 3
    assert estimate_tokens("hello world") == 3
    # "understanding": 13 letters, lower case: 1 + 0.2 × 7 = 2.4; × 1.05 = 2.52 → 3
    assert estimate_tokens("understanding") == 3
    # with a capital: 1 + 0.5 × 9 = 5.5; × 1.05 = 5.775 → 6
    assert estimate_tokens("Understanding") == 6
    # after "[[" (1): a bare word, 1 + 0.4 × 10 = 5; 6 × 1.05 = 6.3 → 7
    assert estimate_tokens("[[understanding") == 7


def test_markdown_symbols_count() -> None:
    # "**Ann:** hi": "**" 1, "Ann" after "*" (3 letters) 1, ":" 1, "**" 1, "hi" 1 = 5;
    # × 1.05 = 5.25 → 6
    assert estimate_tokens("**Ann:** hi") == 6
    # a table rule: "|" "---" "|" "---" "|", each run of one character 1 = 5 → 5.25 → 6
    assert estimate_tokens("|---|---|") == 6
    # eight dashes: 1, and 1 for each 3 past the first (7 // 3 = 2) = 3 → 3.15 → 4
    assert estimate_tokens("--------") == 4
    # newlines right after punctuation cost nothing: "Done" 1, "." 1, "Next" 1 = 3 → 4
    assert estimate_tokens("Done.\n\nNext") == 4


def test_contractions_join_their_word() -> None:
    # "I" 1, "m" 1, "sure" 1, "they" 1, "ll" 1, "go" 1, "." 1 (the apostrophes and the
    # newlines after "." nothing) = 7; × 1.05 = 7.35 → 8
    assert estimate_tokens("I'm sure they'll go.\n\n") == 8
    # three letters after the apostrophe: it is a symbol (1): "o" 1, "'" 1, "neil" 1 = 3 → 4
    assert estimate_tokens("o'neil") == 4


def test_digits_by_three_and_newlines() -> None:
    # "2026" 2, "-" 1, "10" 1, "-" 1, "14" 1 = 6; "\n\n" (after a digit) 1; "  "
    # (indentation) 1; "x" 1 = 9 × 1.05 = 9.45 → 10
    assert estimate_tokens("2026-10-14\n\n  x") == 10
    # a space before a digit is a token of its own: "on" 1, " " 1, "2026" 2 = 4 → 4.2 → 5
    assert estimate_tokens("on 2026") == 5


def test_case_turns_cost_extra() -> None:
    # "VtBtEm": 6 letters with a capital, 1 + 0.5 × 2 = 2, two turns from lower to upper
    # case 2 = 4; × 1.05 = 4.2 → 5
    assert estimate_tokens("VtBtEm") == 5


def test_cjk() -> None:
    # 4 × 1.5 = 6 × 1.05 = 6.3 → 7
    assert estimate_tokens("提示注入") == 7
    # 6 + "AB" (a word after "示": bare, 2 letters) 1 = 7 × 1.05 = 7.35 → 8
    assert estimate_tokens("提示AB注入") == 8


def test_other_characters_by_class() -> None:
    # "L" 1, "ä" (a non-ASCII letter) 1, "uft" 1 = 3 → 3.15 → 4
    assert estimate_tokens("Läuft") == 4
    # general punctuation 1, another symbol (an arrow) 2, an emoji 3; each × 1.05, up
    assert [estimate_tokens(c) for c in "–→🎉"] == [2, 3, 4]
    # a no-break space is 1, not a plain space's nothing: 1 + "x" 1 = 2 → 2.1 → 3
    assert estimate_tokens("\u00a0x") == 3


text = st.text(
    alphabet=st.sampled_from(list("abc XYZ 1,.*#[]'\n\t-_中文日本語カナ한é–→🎉\u00a0")),
    max_size=200,
)


@given(text, text)
def test_texts_joined_at_a_newline_cost_at_most_their_parts(a: str, b: str) -> None:
    assert estimate_tokens(a + "\n" + b) <= estimate_tokens(a + "\n") + estimate_tokens(b)


@given(text, text)
def test_appending_never_lowers_it(a: str, b: str) -> None:
    assert estimate_tokens(a) <= estimate_tokens(a + b)


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=300))
def test_never_below_six_visible_characters_a_token(s: str) -> None:
    assert estimate_tokens(s) >= math.ceil(len(s.replace(" ", "")) / 6)


@given(st.text(alphabet="中文日本語漢字", max_size=100))
def test_cjk_never_below_one_a_character(s: str) -> None:
    assert estimate_tokens(s) >= len(s)


# The estimate as the module's docstring states it, piece by piece in document order: the
# fast version, counting each kind over the whole text, must agree with it on every text.
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_PUNCT = "!-/:-@\\[-`{-~"
_PIECE = re.compile(
    rf"(?P<word>[A-Za-z]+)|(?P<num>\d+)|(?P<punct>([{_PUNCT}])\4*)|(?P<nl>\n+)|(?P<tab>\t)"
    r"|(?P<spaces> {2,})|(?P<space> )|(?P<blank>\s)"
    rf"|(?P<cjk>[{_CJK}])|(?P<letter>[^\W\d_])|(?P<other>.)",
    re.DOTALL,
)


def _word_tenths(word: str, before: str) -> int:
    turns = len(re.findall("[a-z](?=[A-Z])", word))
    n = len(word)
    if before in " \t\n":  # a text's start reads as a newline
        extra = 2 * max(0, n - 6) if word.islower() else 5 * max(0, n - 4)
    else:
        extra = 4 * max(0, n - 3)
    return 10 + extra + 10 * turns


def _symbol_tenths(c: str) -> int:
    code = ord(c)
    if code < 0x100 or 0x2000 <= code <= 0x206F:
        return 10
    return 20 if code < 0x10000 else 30


def _by_pieces(text: str) -> int:
    tenths = 0
    for match in _PIECE.finditer(text):
        kind, piece, start = match.lastgroup, match.group(), match.start()
        before = text[start - 1] if start else "\n"
        after = text[match.end() :]
        if kind == "word":
            tenths += _word_tenths(piece, before)
        elif kind == "num":
            tenths += 10 * math.ceil(len(piece) / 3) + (10 if before == " " else 0)
        elif kind == "punct":
            joins = (
                piece == "'"
                and before.isascii()
                and before.isalpha()
                and re.match("[A-Za-z]{1,2}(?![A-Za-z])", after) is not None
            )
            tenths += 0 if joins else 10 + 10 * ((len(piece) - 1) // 3)
        elif kind == "nl":
            tenths += 0 if re.fullmatch(f"[{_PUNCT}]", before) else 10
        elif kind == "space":
            pass
        elif kind == "cjk":
            tenths += 15
        elif kind == "other":
            tenths += _symbol_tenths(piece)
        else:  # a tab, a run of spaces, another blank, a letter outside ASCII (or a digit-like one)
            tenths += 10
    return math.ceil(tenths * 105 / 1000)


TRICKY = "aZ Ab1_2 ３½ Ⅻ 日本語・ーｶ 한국어 é\u0301 \t\t\n\n\r\n  ** [[x]] __ İı ß"


@given(st.text(alphabet=st.sampled_from(TRICKY) | st.characters(), max_size=300))
def test_counting_by_kind_agrees_with_cutting_into_pieces(text: str) -> None:
    assert estimate_tokens(text) == _by_pieces(text)


def test_it_agrees_on_real_notes() -> None:
    demo = REPO / "resources" / "demo-vault"
    texts = [p.read_text("utf-8") for p in sorted(demo.rglob("*.md"))]
    assert len(texts) >= 40
    assert [estimate_tokens(t) for t in texts] == [_by_pieces(t) for t in texts]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_the_ascii_way_agrees_too(text: str) -> None:
    assert estimate_tokens(text) == _by_pieces(text)


@given(st.text(alphabet=st.sampled_from(TRICKY) | st.characters(), max_size=300))
def test_a_text_priced_line_by_line_costs_what_it_costs_whole(text: str) -> None:
    """Passages are cut by pricing each line once and summing (``joined_tenths``): the sum
    must be the whole text's price, newlines and all (blank lines, lines ending in
    punctuation, a text opening with a newline)."""
    lines = text.split("\n")
    assert from_tenths(joined_tenths(lines, [tenths(line) for line in lines])) == _by_pieces(text)


# Words of each length around the thresholds, cases, digits, punctuation runs, apostrophes,
# blanks and control characters: the pieces ``line_tenths`` finds with arrays.
LINE_BITS = st.sampled_from(
    ["a", "ab", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "Abcde", "aBcdefgh", "ABCDEFGHIJ",
     "camelCaseWord", "1", "12", "123", "1234", "1234567", " ", "  ", "   ", "\t", "\r", "\x00",
     "\x1f", "\x7f", "'", "'s", "'ll", "'abc", "-", "--", "----", "-------", "**", "[[", "]]",
     "...", ":", "(", "/", "_", "é", "東京", "\u00a0"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(LINE_BITS, max_size=25).map("".join), min_size=1, max_size=8))
def test_lines_priced_together_cost_what_each_costs_alone(lines: list[str]) -> None:
    """``line_tenths`` prices ASCII lines with array arithmetic over all of them: each
    line's price is exactly ``tenths`` of that line (lines with other characters are
    priced one by one), whatever the vector threshold."""
    from librarian_gui.core.agents import tokens

    expected = [tenths(line) for line in lines]
    saved = tokens.VECTOR_CHARS, tokens.VECTOR_LINES
    try:
        for chars, count in ((0, 0), saved):
            tokens.VECTOR_CHARS, tokens.VECTOR_LINES = chars, count
            assert line_tenths(lines) == expected
    finally:
        tokens.VECTOR_CHARS, tokens.VECTOR_LINES = saved
