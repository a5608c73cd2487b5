"""Linked mentions for the backlinks pane: each linking line, with the link's span in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..index.snapshot import IndexView


@dataclass(frozen=True, slots=True)
class ContextLine:
    line: int  # 1-based
    text: str  # the whole line, without its line ending
    spans: tuple[tuple[int, int], ...]  # the links to the note, as offsets into ``text``


@dataclass(frozen=True, slots=True)
class MentionGroup:
    source: str
    title: str
    lines: tuple[ContextLine, ...]

    @property
    def count(self) -> int:
        return sum(len(line.spans) for line in self.lines)


def linked_mentions(
    index: IndexView,
    node: str,
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> list[MentionGroup]:
    """Every note linking to ``node`` (itself excluded), sorted by path, with the lines that
    hold the links. Link positions come from the index; the lines from ``read_text`` (the
    file as it is now). A file that changed since it was indexed may show shifted lines
    until the updater catches up; spans are clipped to the line."""
    index = index.snapshot()
    sources = sorted(s for s in index.in_edges.get(node, {}) if s != node and s in index.notes)
    wanted = {
        source: [link for link, target in index.links_of(source) if target == node]
        for source in sources
    }
    titles = {source: index.notes[source].title for source in sources}
    groups = []
    for source in sources:
        if cancelled():
            break
        text = read_text(source)
        if text is None:
            continue
        starts = _line_starts(text)
        by_line: dict[int, list[tuple[int, int]]] = {}
        for link in wanted[source]:
            if not 1 <= link.line <= len(starts):
                continue
            line_start = starts[link.line - 1]
            begin = link.start - line_start
            by_line.setdefault(link.line, []).append((begin, begin + link.end - link.start))
        lines = []
        for number, spans in sorted(by_line.items()):
            begin = starts[number - 1]
            end = starts[number] - 1 if number < len(starts) else len(text)
            line_text = text[begin:end].rstrip("\r\n")
            clipped = tuple(
                sorted((max(0, a), min(len(line_text), b)) for a, b in spans if a < len(line_text))
            )
            lines.append(ContextLine(number, line_text, clipped))
        groups.append(MentionGroup(source, titles[source], tuple(lines)))
    return groups


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    return starts
