"""The token estimate: exact values worked by hand, and the properties budgets rely on."""

from __future__ import annotations

import math
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents.tokens import estimate_tokens

REPO = Path(__file__).resolve().parents[3]


def test_empty_text_is_free() -> None:
    assert estimate_tokens("") == 0


def test_english_words() -> None:
    # two short words: 2 × 1.1 = 2.2 → 3
    assert estimate_tokens("hello world") == 3
    # "understanding": 13 letters, 1 + 12 // 6 = 3; × 1.1 = 3.3 → 4
    assert estimate_tokens("understanding") == 4


def test_markdown_symbols_count() -> None:
    # "**Ann:** hi": 5 symbols, 2 words = 7; × 1.1 = 7.7 → 8
    assert estimate_tokens("**Ann:** hi") == 8


def test_digits_by_three_and_newlines() -> None:
    # "2026" 2, "-" 1, "10" 1, "-" 1, "14" 1 = 6; "\n\n" 1; "  " (indentation) 1; "x" 1
    # = 9 × 1.1 = 9.9 → 10
    assert estimate_tokens("2026-10-14\n\n  x") == 10


def test_case_turns_cost_extra() -> None:
    # "VtBtEm": 1 word, two turns from lower to upper case: 3 × 1.1 = 3.3 → 4
    assert estimate_tokens("VtBtEm") == 4


def test_cjk() -> None:
    # 4 × 1.2 = 4.8 × 1.1 = 5.28 → 6
    assert estimate_tokens("提示注入") == 6
    # 4.8 + "AB" 1 = 5.8 × 1.1 = 6.38 → 7
    assert estimate_tokens("提示AB注入") == 7


text = st.text(
    alphabet=st.sampled_from(list("abc XYZ 1,.*#[]\n\t-_中文日本語カナ한")), max_size=200
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


# The estimate as the module's docstring states it, piece by piece in document order (how
# it was first written): the fast version, counting each kind over the whole text, must
# agree with it on every text.
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_PIECE = re.compile(
    rf"(?P<cjk>[{_CJK}])|(?P<word>[^\W\d_{_CJK}]+)|(?P<num>\d+)|(?P<sym>[^\w\s]|_)"
    r"|(?P<nl>\n+)|(?P<tab>\t)|(?P<spaces> {2,})"
)
_CASE_TURN = re.compile(r"[^\W\d_A-Z](?=[A-Z])")


def _by_pieces(text: str) -> int:
    tenths = 0
    for match in _PIECE.finditer(text):
        kind = match.lastgroup
        if kind == "word":
            word = match.group()
            tenths += 10 * (1 + (len(word) - 1) // 6 + len(_CASE_TURN.findall(word)))
        elif kind == "num":
            tenths += 10 * math.ceil(len(match.group()) / 3)
        elif kind == "cjk":
            tenths += 12
        else:
            tenths += 10
    return math.ceil(tenths * 11 / 100)


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
