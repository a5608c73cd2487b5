"""The token estimate: exact values worked by hand, and the properties budgets rely on."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents.tokens import estimate_tokens


def test_empty_text_is_free() -> None:
    assert estimate_tokens("") == 0


def test_english_words() -> None:
    # 11 characters / 3.5 = 3.14; 2 words × 1.3 = 2.6; the larger, rounded up: 4
    assert estimate_tokens("hello world") == 4


def test_markdown_symbols_count() -> None:
    # "**Ann:** hi": 11 characters / 3.5 = 3.14; 2 words × 1.3 + 5 symbols × 0.5 = 5.1 → 6
    assert estimate_tokens("**Ann:** hi") == 6


def test_cjk_one_token_a_character() -> None:
    assert estimate_tokens("提示注入") == 4
    # 4 CJK + "AB" (2 characters / 3.5 = 0.57; 1 word × 1.3 = 1.3 → 2)
    assert estimate_tokens("提示AB注入") == 6


text = st.text(
    alphabet=st.sampled_from(list("abc XYZ 1,.*#[]\n\t-_中文日本語カナ한")), max_size=200
)


@given(text, text)
def test_joined_text_costs_at_most_its_parts(a: str, b: str) -> None:
    assert estimate_tokens(a + b) <= estimate_tokens(a) + estimate_tokens(b)


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=300))
def test_never_below_four_characters_a_token(s: str) -> None:
    assert estimate_tokens(s) >= math.ceil(len(s) / 4)


@given(st.text(alphabet="中文日本語漢字", max_size=100))
def test_cjk_never_below_one_a_character(s: str) -> None:
    assert estimate_tokens(s) >= len(s)
