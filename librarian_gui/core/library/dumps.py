"""Dump candidates: notes too long for an agent to load, made of many sections.

A note is a **dump candidate** when it is long — past every one of the limits: lines,
bytes and tokens; by default what coding agents load of a memory file (the first 200 lines,
25 KB) and the tokens of 25 KB of prose — and has at least ``sections`` sections to move
(dated entries, topic sections, or both). Past the limits, the rest of the note is silently
not loaded; many sections say it can become a library (``split``). A long page of a few
sections, or a long list of short lines, is not a dump: the index note's health already
says when it is too long.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..agents.tokens import estimate_tokens
from ..index.snapshot import IndexView
from ..vault.files import read_note
from .sections import MIN_SECTIONS, NoteShape, shape_of

MAX_LINES = 200
MAX_BYTES = 25 * 1024
MAX_TOKENS = 6_400  # 25 KB of English prose, at about four characters a token


@dataclass(frozen=True, slots=True)
class DumpLimits:
    lines: int = MAX_LINES
    bytes: int = MAX_BYTES
    tokens: int = MAX_TOKENS
    sections: int = MIN_SECTIONS


@dataclass(frozen=True, slots=True)
class DumpReport:
    """One note's figures against ``DumpLimits``."""

    path: str
    lines: int
    bytes: int
    tokens: int
    sections: int  # sections a split would move (grouping headings not counted)
    dated: int
    topics: int
    level: int  # the heading level it splits at (0: none)
    past: tuple[str, ...]  # the limits it is past: "lines", "bytes", "tokens" (a dump: all)
    candidate: bool
    first_date: str | None = None
    last_date: str | None = None

    def json(self) -> dict[str, Any]:
        return {
            "note": self.path,
            "candidate": self.candidate,
            "lines": self.lines,
            "bytes": self.bytes,
            "tokens": self.tokens,
            "sections": self.sections,
            "dated_sections": self.dated,
            "topic_sections": self.topics,
            "heading_level": self.level,
            "past_limits": list(self.past),
            "first_date": self.first_date,
            "last_date": self.last_date,
            "command": f'librarian split VAULT "{self.path}"' if self.candidate else None,
        }

    def sentence(self) -> str:
        """What a person reads: why it is (or is not) a dump candidate."""
        made = f"{self.sections} sections ({self.dated} dated, {self.topics} by topic)"
        size = f"{self.lines:,} lines, {self.bytes / 1024:.1f} KB, ~{self.tokens:,} tokens"
        if self.candidate:
            return f"{self.path} is a dump: {size}, {made}; split it into a library"
        return f"{self.path}: {size}, {made}"


DEFAULT_LIMITS = DumpLimits()


def report_of(path: str, text: str, size: int, limits: DumpLimits) -> DumpReport:
    return report_of_shape(path, shape_of(text), text, size, limits)


def report_of_shape(
    path: str, shape: NoteShape, text: str, size: int, limits: DumpLimits
) -> DumpReport:
    lines = len(shape.lines)
    tokens = estimate_tokens(text)
    past = tuple(
        name
        for name, value, limit in (
            ("lines", lines, limits.lines),
            ("bytes", size, limits.bytes),
            ("tokens", tokens, limits.tokens),
        )
        if value > limit
    )
    moved = shape.dated + shape.topics
    dates = sorted(s.date for s in shape.sections if s.date is not None and not s.grouping)
    return DumpReport(
        path,
        lines,
        size,
        tokens,
        moved,
        shape.dated,
        shape.topics,
        shape.level,
        past,
        len(past) == 3 and moved >= limits.sections,
        dates[0].isoformat() if dates else None,
        dates[-1].isoformat() if dates else None,
    )


def find_dumps(index: IndexView, limits: DumpLimits = DEFAULT_LIMITS) -> list[DumpReport]:
    """Every dump candidate of the vault, longest first. Only notes past the byte limit
    (and past as many bytes as the line limit has lines) with enough headings are read."""
    index = index.snapshot()
    smallest = max(limits.lines, limits.bytes)  # a line is at least one byte
    found: list[DumpReport] = []
    for rel, record in index.notes.items():
        if record.stamp.size <= smallest or len(record.parsed.headings) < limits.sections:
            continue
        result = read_note(index.root, rel)
        if result.text is None or result.stamp is None:
            continue
        report = report_of(rel, result.text.removeprefix("\ufeff"), result.stamp.size, limits)
        if report.candidate:
            found.append(report)
    found.sort(key=lambda r: (-r.lines, r.path))
    return found
