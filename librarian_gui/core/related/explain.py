"""Where the terms that relate two notes occur: for each related note, the line of it that
holds most of them, with their places in it (what the Related pane highlights); or, where
the two share a passage, the line holding it and the passage."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..parse.parser import mask_note
from .passages import common_passage
from .prose import LINK_DEFINITION, MARKDOWN_LINK, URL, WIKI_LINK
from .vault import RelatedNote

LINE_MAX = 160  # characters of a context line shown; a longer one is cut around its terms
# What the model never counts (link syntax, URLs): a term inside it is not what relates
# the notes, so it is not highlighted there.
_NOT_PROSE = (WIKI_LINK, MARKDOWN_LINK, LINK_DEFINITION, URL)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")


@dataclass(frozen=True, slots=True)
class Explained:
    """A related note with the line of it where the shared terms occur (1-based; 0 when
    none of them is on one line, e.g. only concepts relate the two) and their spans; or,
    with ``passage`` (the words the two notes share, as this one writes them), the line
    where that passage starts and its span."""

    related: RelatedNote
    line: int
    text: str
    spans: tuple[tuple[int, int], ...]
    passage: str = ""


def term_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    """One pattern finding any of ``terms`` as a whole word, in any case, or its plural (the
    model weighs "links" as "link"); a Chinese or Japanese bigram anywhere: those scripts
    put no spaces between words."""
    parts = []
    for term in sorted(set(terms), key=lambda t: (-len(t), t)):
        escaped = re.escape(term).replace("'", "['’]")
        if _CJK.search(term):
            parts.append(escaped)
            continue
        if term.isascii() and term.isalpha():
            plural = f"{re.escape(term[:-1])}ies|" if term.endswith("y") else ""
            escaped = f"(?:{plural}{escaped}(?:e?s)?)"
        parts.append(rf"(?<!\w){escaped}(?!\w)")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def best_line(text: str, terms: Sequence[str]) -> tuple[int, str, tuple[tuple[int, int], ...]]:
    """The line of ``text`` holding the most distinct ``terms`` (the first such line), cut
    to ``LINE_MAX`` characters around them (with "…" where cut), and the terms' spans in
    what is returned."""
    pattern = term_pattern(terms)
    if pattern is None:
        return 0, "", ()
    best: tuple[int, int, str, str] = (0, 0, "", "")  # distinct terms, number, line, prose
    # The prose as the model reads it (code, comments, links and URLs blanked; as long as
    # the text, line for line): a term is highlighted only where it was counted.
    lines = zip(text.splitlines(), _prose(mask_note(text)).splitlines(), strict=False)
    for number, (line, prose) in enumerate(lines, 1):
        found = {m.group(0).casefold() for m in pattern.finditer(prose)}
        if len(found) > best[0]:
            best = (len(found), number, line, prose)
    count, number, line, prose = best
    if not count:
        return 0, "", ()
    indent = len(line) - len(line.lstrip())
    stripped = line.strip()
    spans = [m.span() for m in pattern.finditer(prose[indent : indent + len(stripped)])]
    shown, kept = _cut(stripped, spans)
    return number, shown, kept


def passage_line(text: str, other: str) -> tuple[int, str, tuple[tuple[int, int], ...], str] | None:
    """The passage ``text`` shares with ``other`` (``passages.common_passage`` of their
    prose: code, comments and link syntax blanked): the line of ``text`` where it starts,
    that line (cut to ``LINE_MAX`` around it), the passage's span there, and the passage
    as ``text`` writes it; None when they share none."""
    found = common_passage(_prose(mask_note(text)), _prose(mask_note(other)))
    if found is None:
        return None
    start, end = found
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    raw = text[line_start:line_end]
    indent = len(raw) - len(raw.lstrip())
    stripped = raw.strip()
    span = (start - line_start - indent, min(end, line_end) - line_start - indent)
    shown, kept = _cut(stripped, [span])
    number = text.count("\n", 0, start) + 1
    return number, shown, kept, " ".join(text[start:end].split())


def _cut(line: str, spans: Sequence[tuple[int, int]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``line`` cut to ``LINE_MAX`` characters around its first span (with "…" where cut),
    and the spans inside what is kept, moved to match."""
    if len(line) <= LINE_MAX:
        return line, tuple(spans)
    start = max(0, min(spans[0][0] - LINE_MAX // 4, len(line) - LINE_MAX))
    end = start + LINE_MAX
    prefix = "…" if start else ""
    suffix = "…" if end < len(line) else ""
    shift = start - len(prefix)
    shown = tuple((a - shift, min(b, end) - shift) for a, b in spans if a >= start and a < end)
    return prefix + line[start:end] + suffix, shown


def _prose(line: str) -> str:
    """``line`` with its links and URLs blanked (same length: offsets stay valid)."""
    if "[" in line or "://" in line.casefold() or "www." in line.casefold():  # "]:" too
        for pattern in _NOT_PROSE:
            line = pattern.sub(lambda m: " " * len(m.group(0)), line)
    return line


def explain(
    found: Sequence[RelatedNote], read: Callable[[str], str | None], source: str | None = None
) -> list[Explained]:
    """Each related note with its context line (``read``: a note's text, None if it
    cannot be read: then no line). ``source``: the note they are related to, whose text a
    shared passage is looked for in (each related note that shares one)."""
    explained = []
    own: str | None = None
    for related in found:
        text = read(related.note) if related.terms or related.passage else None
        if related.passage and text and source is not None:
            own = read(source) if own is None else own
            shared = passage_line(text, own) if own else None
            if shared is not None:
                number, line, spans, passage = shared
                explained.append(Explained(related, number, line, spans, passage))
                continue
        number, line, spans = best_line(text, related.terms) if text else (0, "", ())
        explained.append(Explained(related, number, line, spans))
    return explained
