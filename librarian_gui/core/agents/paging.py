"""Pages of a long answer, each below the size an agent's client accepts.

Claude Code refuses a tool result over 25,000 tokens; a page holds at most ``PAGE_TOKENS``
by ``json_tokens``: the packs' upper estimate (``tokens.estimate_tokens``) of the JSON text,
which prices a Chinese character as a token where a count of characters would not. A page
says where the next one starts with an opaque ``next_cursor``: the position of the next
page's first item, so asking again with the same arguments and the cursor gives the next
page; the pages of one answer, joined, are the whole answer (while the vault does not change
between the calls).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .tokens import estimate_tokens, from_tenths, line_tenths

PAGE_TOKENS = 20_000


class BadCursor(ValueError):
    pass


def json_tokens(data: Any) -> int:
    """An upper estimate of the tokens of ``data`` as JSON text."""
    return estimate_tokens(json.dumps(data, ensure_ascii=False))


def encode_cursor(position: int) -> str:
    return base64.urlsafe_b64encode(f"librarian:{position}".encode()).decode("ascii")


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8")
        tag, number = text.split(":")
        position = int(number)
        if tag != "librarian" or position < 0:
            raise ValueError(text)
    except (ValueError, UnicodeError) as exc:
        raise BadCursor(
            f"{cursor!r} is not a cursor this server gave; leave it out for the first page"
        ) from exc
    return position


def page_list(
    answer: dict[str, Any],
    key: str,
    cursor: str | None,
    limit: int = PAGE_TOKENS,
    render: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """``answer`` with its list ``answer[key]`` cut to the page starting at ``cursor``:
    as many items as fit in ``limit`` tokens with the rest of the answer (at least one),
    plus ``total`` (items in the whole list) and ``next_cursor`` (None on the last page).
    ``render``: what each item is sent as, made only for the items of the page."""
    items = answer[key]
    if render is not None:
        items = _Rendered(items, render)
    start = decode_cursor(cursor)
    if start > len(items):
        raise BadCursor(f"the cursor points past the end ({len(items)} items)")
    base = {**answer, key: [], "total": len(items), "next_cursor": encode_cursor(len(items))}
    room = limit - json_tokens(base)
    end = start
    for price in _prices(items, start):
        cost = price + 1  # the comma and space between items
        if end > start and cost > room:
            break
        room -= cost
        end += 1
    while True:  # items priced one by one can join into a little more: the page decides
        page = {
            **answer,
            key: [items[i] for i in range(start, end)],
            "total": len(items),
            "next_cursor": encode_cursor(end) if end < len(items) else None,
        }
        if end <= start + 1 or json_tokens(page) <= limit:
            return page
        end -= 1


# Items priced together (``_prices``): a page of 200 small rows (``neighbors`` at depth 2)
# took 11 ms to price one row at a time, a dozen patterns each.
PRICED_TOGETHER = 64


def _prices(items: Sequence[Any], start: int) -> Iterator[int]:
    """``json_tokens`` of each item from ``start`` on, in order: a run of them at a time,
    as lines (JSON text without an indent holds no line end) priced together
    (``tokens.line_tenths``, exact to the tenth)."""
    for first in range(start, len(items), PRICED_TOGETHER):
        texts = [
            json.dumps(items[i], ensure_ascii=False)
            for i in range(first, min(first + PRICED_TOGETHER, len(items)))
        ]
        yield from map(from_tenths, line_tenths(texts))


def page_lines(
    answer: dict[str, Any], text: str, first_line: int, cursor: str | None, limit: int = PAGE_TOKENS
) -> dict[str, Any]:
    """``answer`` with ``text`` (lines numbered from ``first_line``) cut to the lines of the
    page starting at ``cursor`` (a line offset into ``text``): ``text``, ``lines`` [first,
    last] (1-based, inclusive), ``next_cursor``. A single line longer than a page is cut
    at a character (and ``truncated`` set), never sent whole."""
    lines = text.splitlines(keepends=True)
    start = decode_cursor(cursor)
    if start > len(lines):
        raise BadCursor(f"the cursor points past the end ({len(lines)} lines)")
    base = {**answer, "text": "", "lines": [0, 0], "next_cursor": encode_cursor(len(lines))}
    room = limit - json_tokens(base)
    end = start
    used = 0
    while end < len(lines):
        cost = json_tokens(lines[end])
        if used + cost > room:
            break
        used += cost
        end += 1

    def page(end: int, chunk: str | None = None) -> dict[str, Any]:
        out = {
            **answer,
            "text": "".join(lines[start:end]) if chunk is None else chunk,
            "lines": [first_line + start, first_line + end - 1] if end > start else [],
            "next_cursor": encode_cursor(end) if end < len(lines) else None,
        }
        if chunk is not None:
            out["truncated"] = True
        return out

    while end > start:  # lines priced one by one can join into a little more
        out = page(end)
        if json_tokens(out) <= limit:
            return out
        end -= 1
    if start == len(lines):
        return page(end)
    line = lines[start]
    if json_tokens(page(start + 1)) <= limit:
        return page(start + 1)
    # One line longer than a page: the longest start of it that fits, marked truncated.
    low, high = 0, len(line)
    while low < high:
        middle = (low + high + 1) // 2
        if json_tokens(page(start + 1, line[:middle])) <= limit:
            low = middle
        else:
            high = middle - 1
    return page(start + 1, line[:low])


class _Rendered:
    """A list whose items are rendered when first read (each once)."""

    def __init__(self, items: Sequence[Any], render: Callable[[Any], Any]) -> None:
        self._items = items
        self._render = render
        self._done: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: int) -> Any:
        if i not in self._done:
            self._done[i] = self._render(self._items[i])
        return self._done[i]
