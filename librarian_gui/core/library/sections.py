"""A note cut into its sections: what a split moves and what stays.

- **Lines** are the note's text cut after each ``\\n``, each keeping its line ending (``\\r\\n``
  stays): joined again they are the text, character for character. The last line may have
  no ending.
- **Front matter** (the lines up to ``parsed.body_start``) stays with the note.
- **The split level** is the shallowest heading level with at least ``MIN_SECTIONS``
  headings; failing that, the shallowest with two or more. A dump of ``## 2024-03-01`` entries
  under one ``# Memory`` title splits at level 2; one whose ``## Log`` and ``## Decisions``
  hold ``###`` entries splits at level 3.
- **A section** starts at a heading of the split level or shallower (outside code and front
  matter: the parser's headings) and runs to the line before the next such heading. The first
  section starts at the first heading of the split level: the lines between the front matter
  and it (a ``# Memory`` title, a line saying what the note is for) are the *preamble*. A
  section whose lines below the heading are all blank (``## Log`` right above its ``###``
  entries) is a *grouping heading*: it stays with the note, as structure of the new index.
- **Dated**: a section whose heading names a date: as notes are dated (``parse_date_text``:
  ``2024-03-01``, ``2024_03_01``, ``20240301``, ``2024-03``), or written out in English
  (``Sep 14th, 2020``, ``14 September 2020``, ``Monday 8 May 2023``), as diaries and
  journals title their days.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from ..parse.parser import parse_date_text, parse_note, written_dates
from ..parse.records import Heading, ParsedNote

MIN_SECTIONS = 5


@dataclass(frozen=True, slots=True)
class Section:
    """Lines ``first`` to ``end`` (0-based, ``end`` excluded) of the note; ``first`` is the
    heading's line."""

    number: int  # 1-based, in the note's order
    first: int
    end: int
    level: int
    title: str
    date: _dt.date | None
    grouping: bool  # nothing but blank lines below the heading: it stays with the note
    headings: tuple[Heading, ...]  # every heading inside it (its own first), lines 0-based


@dataclass(frozen=True, slots=True)
class NoteShape:
    lines: tuple[str, ...]
    front_matter_end: int  # lines before it are the front matter (0 when there is none)
    preamble_end: int  # the preamble is front_matter_end up to here
    level: int  # the split level (0: no heading repeats, nothing to split)
    sections: tuple[Section, ...]
    starts: tuple[int, ...] = ()  # each section's first line, in order (for a bisection)

    @property
    def dated(self) -> int:
        return sum(1 for s in self.sections if s.date is not None and not s.grouping)

    @property
    def topics(self) -> int:
        return sum(1 for s in self.sections if s.date is None and not s.grouping)


def heading_date(text: str) -> _dt.date | None:
    """The date a heading names (see the module's docstring), or None."""
    found = parse_date_text(text)
    if found is not None:
        return found
    return next((date for _, _, date in written_dates(text)), None)


def split_lines(text: str) -> tuple[str, ...]:
    """``text`` cut after each ``\\n`` (see the module's docstring); ``""`` has no lines."""
    if not text:
        return ()
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return tuple(lines)


def split_level(headings: list[Heading] | tuple[Heading, ...]) -> int:
    counts: dict[int, int] = {}
    for heading in headings:
        counts[heading.level] = counts.get(heading.level, 0) + 1
    for least in (MIN_SECTIONS, 2):
        for level in sorted(counts):
            if counts[level] >= least:
                return level
    return 0


def shape_of(text: str, parsed: ParsedNote | None = None) -> NoteShape:
    """``text`` (a note's text, BOM removed) as front matter, preamble and sections;
    ``parsed``: ``parse_note(text)``, when the caller has it."""
    lines = split_lines(text)
    parsed = parse_note(text) if parsed is None else parsed
    front_end = text.count("\n", 0, parsed.body_start) if parsed.body_start else 0
    # Parser headings are 1-based lines; those in front matter are not headings of the note.
    headings = [
        Heading(h.level, h.text, h.line - 1) for h in parsed.headings if h.line - 1 >= front_end
    ]
    level = split_level(headings)
    if level == 0:
        return NoteShape(lines, front_end, len(lines), 0, ())
    # The first section starts at the first heading of the split level: a title above it
    # (``# Memory``) and what follows the title are the preamble.
    first = next(h.line for h in headings if h.level == level)
    starts = [h for h in headings if h.level <= level and h.line >= first]
    sections: list[Section] = []
    at = 0  # the first heading not in an earlier section (both run in line order)
    for number, heading in enumerate(starts, 1):
        end = starts[number].line if number < len(starts) else len(lines)
        while headings[at].line < heading.line:
            at += 1
        stop = at
        while stop < len(headings) and headings[stop].line < end:
            stop += 1
        inside = tuple(headings[at:stop])
        below = lines[heading.line + 1 : end]
        sections.append(
            Section(
                number,
                heading.line,
                end,
                heading.level,
                heading.text,
                heading_date(heading.text),
                grouping=all(not line.strip() for line in below),
                headings=inside,
            )
        )
    firsts = tuple(s.first for s in sections)
    return NoteShape(lines, front_end, starts[0].line, level, tuple(sections), firsts)
