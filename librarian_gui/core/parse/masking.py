"""Blanking what cannot hold links (front matter, fenced and indented code, inline code,
HTML and ``%%`` comments) in a copy of a note of the same length, so every offset found in
the copy is an offset into the note. The scanner in ``parser`` runs its patterns over it."""

from __future__ import annotations

import bisect
import re

# Shared with the parser: list items and thematic breaks decide where blocks start.
ITEM_MARKER = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
THEMATIC_BREAK = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\r?$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+([^\r\n]*?))?(?:[ \t]+#+)?[ \t]*\r?$", re.M)
# Indented code cannot interrupt a paragraph: it starts at the top of the body or after a
# line that is no paragraph text (blank, an ATX heading, a rule or setext underline). A note
# without such an indented line needs no block pass for it; over-matching only costs time.
_NON_PARAGRAPH_THEN_INDENTED = (
    r"(?:[ \t]*| {0,3}#{1,6}(?:[ \t][^\r\n]*)?"
    r"| {0,3}(?:(?:[-*_][ \t]*){3,}|=+[ \t]*|-{2,}[ \t]*))\r?\n(?: {4}|\t)"
)
_INDENTED_AFTER_NON_PARAGRAPH = re.compile("\n" + _NON_PARAGRAPH_THEN_INDENTED)
_BODY_OPENS_THEN_INDENTED = re.compile(_NON_PARAGRAPH_THEN_INDENTED)
_INDENTED_LINE = re.compile(r"\n(?: {4}|\t)")
_PERCENTS = re.compile("%%")
_FENCE_OPEN_LINE = re.compile(r"(`{3,}|~{3,})(.*)$")
# The first characters of a line's content that can open anything but paragraph text: a
# fence, heading, HTML or comment, quote, rule or list item (digits too). Lines starting
# otherwise skip those checks: in notes with code, a third of _mask_code_blocks.
_BLOCK_FIRST = frozenset("`~#<>%-*_+")
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_BACKTICKS = re.compile(r"`+")
_LINE_END = re.compile(r"([\r\n])")


def _blank(segment: str) -> str:
    """``segment`` with every character but its line ends as a space. Line by line, a
    run of spaces each: a pattern replacing one character at a time was a fifth of parsing
    notes full of code."""
    if "\r" not in segment:
        if "\n" not in segment:
            return " " * len(segment)
        return "\n".join([" " * len(line) for line in segment.split("\n")])
    parts = _LINE_END.split(segment)  # the ends at odd places
    parts[::2] = [" " * len(part) for part in parts[::2]]
    return "".join(parts)


def mask_text(text: str, body_start: int) -> str:
    """A copy of ``text`` with front matter, code and comments replaced by spaces."""
    masked = _blank(text[:body_start]) + text[body_start:] if body_start else text
    # Single characters first: most notes hold none of them, and looking for one character
    # is much faster than for a string or a pattern.
    tick = "`" in masked
    # "%%" and the indented line by pattern: for a needle of two characters or more, a
    # pattern's literal-prefix search is twice as fast as ``in`` (39 MB without them:
    # 0.016 s against 0.035); "%" alone is frequent (percent-encoded link paths).
    comment = ("<" in masked and "<!--" in masked) or (
        "%" in masked and _PERCENTS.search(masked) is not None
    )
    if (
        (tick and "```" in masked)
        or ("~" in masked and "~~~" in masked)
        or masked.startswith(("    ", "\t"), body_start)
        or (
            _INDENTED_LINE.search(masked, body_start) is not None  # any indented line
            and (
                _BODY_OPENS_THEN_INDENTED.match(masked, body_start) is not None
                or _INDENTED_AFTER_NON_PARAGRAPH.search(masked, body_start) is not None
                # the line after an HTML or %% comment is no paragraph text either
                or comment
            )
        )
    ):
        masked = _mask_code_blocks(masked, body_start)
    if tick or comment:
        masked = _mask_inline(masked)
    return masked


def _indent_width(line: str) -> int:
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _opens_block(content: str) -> bool:
    """A line that starts a block of its own, so it can be no lazy continuation of a list
    item's paragraph (CommonMark): a fence, heading, rule, HTML, quote or comment. A table
    row is not one: in a list item it continues the paragraph, as markdown-it reads it."""
    return bool(
        content.startswith(("```", "~~~", "#", "<", ">", "%%"))
        and (not content.startswith("#") or _ATX.match(content))
    ) or bool(THEMATIC_BREAK.match(content))


def _mask_code_blocks(text: str, body_start: int) -> str:
    """Blank fenced and indented code blocks, following CommonMark's block structure for
    list items: an item's content is indented to its content column; a less indented line
    leaves the item unless it lazily continues the item's paragraph; indented code is four
    columns past the current item's content column and cannot interrupt a paragraph."""
    spans: list[tuple[int, int]] = []
    pos = body_start
    fence: tuple[str, int] | None = None
    fence_start = 0
    fence_quotes = 0  # how many "> " levels the open fence sits in
    last_end = body_start  # where the line before this one ends
    items: list[int] = []  # content columns of the open list items, innermost last
    in_para = False
    html_comment = False
    length = len(text)
    while pos < length:
        end = text.find("\n", pos)
        line_end = length if end < 0 else end
        nxt = length if end < 0 else end + 1
        line = text[pos:line_end].rstrip("\r")
        stripped = line.strip()
        if fence is not None:
            closing = stripped
            if fence_quotes:
                inner = _unquote(line, fence_quotes)
                if inner is None:  # the quote ended, and the fence with it
                    spans.append((fence_start, last_end))
                    fence = None
                else:
                    closing = inner.strip()
            if fence is not None:
                char, size = fence
                if len(closing) >= size and closing == char * len(closing):
                    spans.append((fence_start, line_end))
                    fence = None
                last_end = line_end
                pos = nxt
                continue
        last_end = line_end
        if html_comment:
            html_comment = "-->" not in line
            pos = nxt
            continue
        if not stripped:
            in_para = False
            pos = nxt
            continue
        if line[0].isalpha():
            # Paragraph text, by far the most common line: no indentation, marker, fence,
            # rule or heading. It lazily continues an open item's paragraph, or, after a
            # blank line, ends the open items (its width 0 is left of every content column).
            if items and not in_para:
                items.clear()
            in_para = True
            pos = nxt
            continue
        width = _indent_width(line) if line[0] in " \t" else 0
        content = line.lstrip(" \t")
        if items and width < items[-1]:
            lazy = in_para and not ITEM_MARKER.match(line) and not _opens_block(content)
            if not lazy:
                while items and width < items[-1]:
                    items.pop()
        base = items[-1] if items else 0
        if width - base >= 4 and not in_para:
            spans.append((pos, line_end))
            pos = nxt
            continue
        first = content[0]
        if first not in _BLOCK_FIRST and not first.isdecimal():
            in_para = True  # paragraph text (a table row, a link): no rule, item or block
            pos = nxt
            continue
        if first == "#":  # a heading, or paragraph text starting with a tag
            in_para = _ATX.match(content) is None
            pos = nxt
            continue
        if first == ">" and "`" not in content and "~" not in content:
            in_para = True  # a quote without a fence in it holds a paragraph
            pos = nxt
            continue
        if THEMATIC_BREAK.match(content):  # "- - -" is a rule, not three list items
            in_para = False
            pos = nxt
            continue
        item = ITEM_MARKER.match(line) if width - base < 4 else None
        if item is not None:
            # a list item; "- - x" opens two, each content column past the last
            rest = line
            col = 0
            while item is not None:
                col += _indent_width(rest) + len(item.group(2))
                after = rest[item.end() :]
                gap = item.end() - len(item.group(1)) - len(item.group(2))
                col += gap if 1 <= gap <= 4 and after else 1
                items.append(col)
                rest = after
                item = ITEM_MARKER.match(rest) if rest else None
            content = rest.lstrip(" \t")
            first = content[:1]
            if first and first not in _BLOCK_FIRST and not first.isdecimal():
                # the item's paragraph text, the usual list item
                in_para = True
                pos = nxt
                continue
            in_para = False
        m = _FENCE_OPEN_LINE.match(content)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)))
            fence_quotes = 0
            fence_start = pos
            in_para = False
            pos = nxt
            continue
        if content.startswith(">") and width - base < 4:
            quoted = _quoted_fence(content)
            if quoted is not None:  # a fence in a block quote ends with the quote at latest
                fence, fence_quotes = quoted
                fence_start = pos
                in_para = False
                pos = nxt
                continue
        if content.startswith("<!--") and "-->" not in content[4:]:
            html_comment = True
            in_para = False
        elif _opens_block(content):
            in_para = content.startswith(">")  # a quote holds a paragraph
        else:
            in_para = True
        pos = nxt
    if fence is not None:  # an unclosed fence runs to the end of the document
        spans.append((fence_start, length))
    return blank_spans(text, spans)


_QUOTE_MARKER = re.compile(r" {0,3}> ?")


def _unquote(line: str, levels: int) -> str | None:
    """``line`` without ``levels`` block-quote markers ("> "), or None when it has fewer."""
    for _ in range(levels):
        m = _QUOTE_MARKER.match(line)
        if m is None:
            return None
        line = line[m.end() :]
    return line


def _quoted_fence(content: str) -> tuple[tuple[str, int], int] | None:
    """The fence a block-quote line opens, and in how many quotes it sits."""
    levels = 0
    while (m := _QUOTE_MARKER.match(content)) is not None:
        content = content[m.end() :]
        levels += 1
    m = (
        _FENCE_OPEN_LINE.match(content.lstrip(" "))
        if len(content) - len(content.lstrip(" ")) < 4
        else None
    )
    if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    return (m.group(1)[0], len(m.group(1))), levels


def _mask_inline(text: str) -> str:
    """Blank inline code spans, HTML comments and ``%% comments %%``, left to right,
    so whichever opens first wins (a ``%%`` inside backticks is code, and vice versa)."""
    spans: list[tuple[int, int]] = []
    find = text.find
    closes = _CodeCloses(text)
    # The next occurrence of each opener, found with str.find (several times faster than
    # one regex alternation) and looked for again only once the scan has passed it.
    tick, comment, percent = find("`"), find("<!--"), find("%%")
    pos = 0
    while True:
        if 0 <= tick < pos:
            tick = find("`", pos)
        if 0 <= comment < pos:
            comment = find("<!--", pos)
        if 0 <= percent < pos:
            percent = find("%%", pos)
        found = [at for at in (tick, comment, percent) if at >= 0]
        if not found:
            break
        start = min(found)
        if start == tick:
            run_end = start + 1
            while run_end < len(text) and text[run_end] == "`":
                run_end += 1
            if is_escaped(text, start):
                pos = start + 1
                continue
            close = closes.close(run_end, run_end - start)
            if close < 0:
                pos = run_end
                continue
            spans.append((start, close))
            pos = close
        elif start == comment:
            close = find("-->", start + 4)
            if close < 0:
                pos = start + 4
                continue
            spans.append((start, close + 3))
            pos = close + 3
        else:  # %%
            close = find("%%", start + 2)
            end = len(text) if close < 0 else close + 2
            spans.append((start, end))
            pos = end
    return blank_spans(text, spans)


class _CodeCloses:
    """Where the code spans of one text close: the backtick runs of the paragraph being
    scanned, by length, found once per paragraph. Looking for each opening run's close
    afresh (the paragraph's end, then every run after it) was quadratic: a 2 MB paragraph
    of inline code took 52 s to index."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = self.limit = -1
        self.runs: dict[int, tuple[list[int], list[int]]] = {}  # length → (starts, ends)

    def close(self, pos: int, size: int) -> int:
        """End offset of the first run of exactly ``size`` backticks at or after ``pos``
        in ``pos``'s paragraph (a code span does not cross a blank line), or -1."""
        if not self.start <= pos <= self.limit:
            self._paragraph(pos)
        found = self.runs.get(size)
        if found is None:
            return -1
        starts, ends = found
        i = bisect.bisect_left(starts, pos)
        return ends[i] if i < len(starts) else -1

    def _paragraph(self, pos: int) -> None:
        para_end = _BLANK_LINE.search(self.text, pos)
        self.start, self.limit = pos, para_end.start() if para_end else len(self.text)
        self.runs = {}
        for m in _BACKTICKS.finditer(self.text, pos, self.limit):
            starts, ends = self.runs.setdefault(m.end() - m.start(), ([], []))
            starts.append(m.start())
            ends.append(m.end())


def is_escaped(text: str, pos: int) -> bool:
    """Whether ``text[pos]`` follows an odd number of backslashes."""
    count = 0
    while pos - count - 1 >= 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (any order, overlaps allowed) blanked, newlines kept."""
    if not spans:
        return text
    parts = []
    last = 0
    for start, end in sorted(spans):
        if start < last:
            start = last
        if end <= start:
            continue
        parts.append(text[last:start])
        parts.append(_blank(text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)
