"""Pages of long answers: each below its limit, and joined, the whole answer."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.agents.paging import (
    BadCursor,
    decode_cursor,
    encode_cursor,
    json_tokens,
    page_lines,
    page_list,
)

items = st.lists(
    st.fixed_dictionaries({"note": st.text(max_size=40), "line": st.integers(0, 10**6)}),
    max_size=200,
)


@settings(max_examples=150, deadline=None)
@given(items=items, limit=st.integers(60, 3000))
def test_list_pages_fit_and_reassemble(items: list[dict[str, object]], limit: int) -> None:
    answer = {"note": "hub.md", "rows": items}
    pages = [page_list(answer, "rows", None, limit)]
    while pages[-1]["next_cursor"] is not None:
        pages.append(page_list(answer, "rows", pages[-1]["next_cursor"], limit))
    joined = [row for page in pages for row in page["rows"]]
    assert joined == items
    for page in pages:
        assert page["total"] == len(items)
        assert page["note"] == "hub.md"
        # a page over the limit holds one item only (an item is never split)
        assert json_tokens(page) <= limit or len(page["rows"]) == 1


ascii_rows = st.lists(
    st.fixed_dictionaries(
        {
            "note": st.lists(
                st.sampled_from([*"abcXYZ 09-_/.#'", "ing", "Note ", "é"]), max_size=30
            ).map("".join),
            "via": st.lists(st.sampled_from([*"wikembd ", "related"]), max_size=8).map("".join),
            "hops": st.integers(1, 3),
        }
    ),
    min_size=40,
    max_size=200,
)


@settings(max_examples=100, deadline=None)
@given(items=ascii_rows, limit=st.integers(60, 1500))
def test_items_priced_together_cut_the_page_where_pricing_each_does(
    items: list[dict[str, object]], limit: int
) -> None:
    """Rows are priced a run at a time (``line_tenths``); the page ends where it ended when
    each row was priced alone with ``json_tokens``, as this loop does."""
    answer = {"note": "hub.md", "rows": items}
    base = {**answer, "rows": [], "total": len(items), "next_cursor": encode_cursor(len(items))}
    room = limit - json_tokens(base)
    end = 0
    while end < len(items):
        cost = json_tokens(items[end]) + 1
        if end > 0 and cost > room:
            break
        room -= cost
        end += 1
    while end > 1:  # the page gives back what joined rows price above the limit
        page = {**answer, "rows": items[:end], "total": len(items), "next_cursor": "?"}
        page["next_cursor"] = encode_cursor(end) if end < len(items) else None
        if json_tokens(page) <= limit:
            break
        end -= 1
    assert page_list(answer, "rows", None, limit)["rows"] == items[:end]


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec="utf-8"), max_size=3000), limit=st.integers(80, 800)
)
def test_line_pages_fit_and_reassemble(text: str, limit: int) -> None:
    pages = [page_lines({"note": "a.md"}, text, 10, None, limit)]
    while pages[-1]["next_cursor"] is not None:
        pages.append(page_lines({"note": "a.md"}, text, 10, pages[-1]["next_cursor"], limit))
    for page in pages:
        assert json_tokens(page) <= limit
    if not any(page.get("truncated") for page in pages):
        assert "".join(page["text"] for page in pages) == text


def test_line_numbers_of_pages() -> None:
    text = "".join(f"line {n} " + "x" * 50 + "\n" for n in range(1, 41))
    first = page_lines({}, text, 5, None, 200)
    second = page_lines({}, text, 5, first["next_cursor"], 200)
    assert first["lines"][0] == 5
    last = first["lines"][1]
    assert second["lines"][0] == last + 1
    count = last - 5 + 1
    assert first["text"] == "".join(text.splitlines(keepends=True)[:count])


def test_cursors() -> None:
    assert decode_cursor(None) == 0
    assert decode_cursor(encode_cursor(17)) == 17
    with pytest.raises(BadCursor):
        decode_cursor("bm9wZQ==")  # "nope"
    with pytest.raises(BadCursor):
        page_list({"rows": [1, 2]}, "rows", encode_cursor(3))
    assert json.loads(json.dumps(page_list({"rows": []}, "rows", None))) == {
        "rows": [],
        "total": 0,
        "next_cursor": None,
    }


def test_chinese_text_is_priced_a_token_a_character_at_least() -> None:
    """Tokenizers make a token or more of each Chinese character: 60,000 of them cannot
    fit in fewer than three pages of 20,000 tokens (a count of characters / 3 would send
    them in one)."""
    text = "".join("记忆" * 50 + "\n" for _ in range(600))  # 600 lines of 100 characters
    pages = [page_lines({"note": "zh.md"}, text, 1, None)]
    while pages[-1]["next_cursor"] is not None:
        pages.append(page_lines({"note": "zh.md"}, text, 1, pages[-1]["next_cursor"]))
    assert len(pages) >= 3
    assert "".join(page["text"] for page in pages) == text
    assert all(len(page["text"]) - page["text"].count("\n") <= 20_000 for page in pages)
