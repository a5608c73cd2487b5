"""A note cut into passages (DESIGN §6, context packs): sections under their heading, and a
section too long for one passage cut into its paragraphs; each with its line range."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..parse.parser import split_front_matter
from .tokens import from_tenths, joined_tenths, line_tenths

# A section up to this many tokens stays one passage; a longer one is cut into paragraphs.
SECTION_TOKENS = 160
# A paragraph (a list, a table) past this many tokens is cut at line boundaries; a fenced
# code block is never cut.
PARAGRAPH_TOKENS = 400

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Passage:
    """Lines ``first``..``last`` (1-based, inclusive, counted in the whole file, front matter
    included) of note ``note``, under the headings ``heading`` (outermost first; empty before
    the first heading). ``text`` is those lines joined by newlines."""

    note: str
    heading: tuple[str, ...]
    first: int
    last: int
    text: str
    # ``tokens.tenths(text)``, from the lines priced when the note was cut (None: unknown)
    tenths: int | None = field(default=None, compare=False, repr=False)

    @property
    def heading_text(self) -> str:
        return " › ".join(self.heading)


@dataclass(slots=True)
class _Block:
    first: int  # 0-based line index
    lines: list[str]
    code: bool = False


def split_passages(note: str, text: str) -> list[Passage]:
    """The passages of a note's text, in file order (see the module's docstring). Front
    matter is skipped; blank lines separate paragraphs; a fenced code block is one block,
    blank lines and all; heading lines belong to their section's passage when the section
    is one passage, and otherwise to none (the heading path names them)."""
    text = text.lstrip("\ufeff")
    body_start, _, _ = split_front_matter(text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    start_line = text.count("\n", 0, body_start) if body_start else 0
    out: list[Passage] = []
    path: list[tuple[int, str]] = []  # (level, title) of the headings we are under
    section: list[_Block] = []
    heading_line: int | None = None
    block: _Block | None = None
    fence: str | None = None

    def close_section() -> None:
        nonlocal section, heading_line
        out.extend(_section_passages(note, tuple(t for _, t in path), heading_line, section, lines))
        section = []
        heading_line = None

    for i in range(start_line, len(lines)):
        line = lines[i]
        if fence is not None:
            assert block is not None
            block.lines.append(line)
            stripped = line.strip()
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                fence = None
                section.append(block)
                block = None
            continue
        opened = _FENCE.match(line)
        if opened:
            if block is not None:
                section.append(block)
            block = _Block(i, [line], code=True)
            fence = opened.group(1)
            continue
        heading = _ATX.match(line)
        if heading:
            if block is not None:
                section.append(block)
                block = None
            close_section()
            level = len(heading.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, (heading.group(2) or "").strip()))
            heading_line = i
            continue
        if not line.strip():
            if block is not None:
                section.append(block)
                block = None
            continue
        if block is None:
            block = _Block(i, [line])
        else:
            block.lines.append(line)
    if block is not None:
        section.append(block)  # an unclosed fence runs to the end, as Markdown reads it
    close_section()
    return out


def _section_passages(
    note: str,
    heading: tuple[str, ...],
    heading_line: int | None,
    blocks: list[_Block],
    lines: list[str],
) -> list[Passage]:
    if not blocks:
        return []
    first = heading_line if heading_line is not None else blocks[0].first
    last = blocks[-1].first + len(blocks[-1].lines) - 1
    # Each line priced once: the section's, its blocks' and its lines' estimates are sums
    # of these (``joined_tenths``), exactly as if each text were priced whole.
    priced = line_tenths(lines[first : last + 1])
    whole = joined_tenths(lines[first : last + 1], priced)
    if from_tenths(whole) <= SECTION_TOKENS:
        text = "\n".join(lines[first : last + 1])
        return [Passage(note, heading, first + 1, last + 1, text, whole)]
    out: list[Passage] = []
    for block in blocks:
        start = block.first - first
        for begin, chunk in _cut(block, priced[start : start + len(block.lines)]):
            own = priced[begin - first : begin - first + len(chunk)]
            text = "\n".join(chunk)
            out.append(
                Passage(
                    note, heading, begin + 1, begin + len(chunk), text, joined_tenths(chunk, own)
                )
            )
    return out


def _cut(block: _Block, priced: list[int]) -> list[tuple[int, list[str]]]:
    """A block as one piece, or a long paragraph as runs of whole lines (a code block and
    a single long line stay whole). ``priced``: each line's ``tenths``."""
    if block.code or from_tenths(joined_tenths(block.lines, priced)) <= PARAGRAPH_TOKENS:
        return [(block.first, block.lines)]
    pieces: list[tuple[int, list[str]]] = []
    run: list[str] = []
    run_start = block.first
    size = 0
    for offset, line in enumerate(block.lines):
        cost = from_tenths(priced[offset]) + 1
        if run and size + cost > PARAGRAPH_TOKENS:
            pieces.append((run_start, run))
            run, size, run_start = [], 0, block.first + offset
        run.append(line)
        size += cost
    pieces.append((run_start, run))
    return pieces
