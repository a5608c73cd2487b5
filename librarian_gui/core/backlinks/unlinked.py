"""Unlinked mentions (a note's title or alias written elsewhere without a link) and linking one."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterable
from typing import NamedTuple

from ..concepts.dictionary import bounded_ends
from ..index.snapshot import IndexView
from ..parse.parser import mask_note
from ..text.analyzer import IS_SPACED_WORD_CHAR, SPACED_WORD_CHAR
from ..writing.journal import Edit, Journal, JournalEntry
from ..writing.safewrite import FileChanged, WriteRefused, encode_like, read_snapshot

MIN_NAME_LENGTH = 2


# Text that is already a link, or that a link inside would break. Each pattern starts with
# a literal character (so the regex engine skips from one occurrence of it to the next) and
# runs only when the note holds its marker; they run over the masked text, where code,
# comments and front matter are blanks already. None of them crosses a line.
EXCLUDED_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "[",
        re.compile(
            r"\[\[[^\[\]\r\n]*\]\]"  # wiki links and embeds
            r"|\[(?:[^\[\]\r\n]|\[[^\[\]\r\n]*\])*\]\([^()\r\n]*(?:\([^()\r\n]*\)[^()\r\n]*)*\)"
            r"|\[[^\[\]\r\n]*\]\[[^\[\]\r\n]*\]"  # [label][reference]
            r"|\[[^\[\]\r\n]+\]:[^\r\n]*"  # [reference]: definition
        ),
    ),
    ("<", re.compile(r"<[A-Za-z/!?][^<>\r\n]*>")),  # HTML tags and <autolinks>
    ("://", re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>]*")),  # bare URLs
    ("www.", re.compile(r"www\.[^\s<>]*")),
    ("@", re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")),  # e-mail addresses
    ("#", re.compile(r"#[\w/\-]+")),  # tags, when after a space, "(", "," or ";"
    ("^", re.compile(r"\^[A-Za-z0-9\-]+(?=[ \t]*\r?$)", re.M)),  # block ids
)
Span = tuple[int, int]
_TABLE_ROW = re.compile(r"[ \t]*\|")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t\r\n]|$)")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*(?:\r?\n|\r?$)")
PATH_SEPARATORS = "/\\"
_NOT_IN_NAME = frozenset("[]|#^\r\n")  # Obsidian forbids these in link targets
_NOT_IN_LABEL = frozenset("[]|\r\n")


class Mention(NamedTuple):
    """A name written without a link. ``start``/``end`` are offsets into the source's
    decoded text without BOM (``Snapshot.text``: ``\\r\\n`` kept); ``line`` is 1-based,
    ``column`` 0-based; ``context`` is the whole line without its line ending."""

    source: str
    line: int
    column: int
    start: int
    end: int
    text: str
    context: str


def mention_names(index: IndexView, rel: str) -> tuple[str, ...]:
    """The names a note is mentioned by: its title, then its aliases (one per spelling
    ignoring case, at least MIN_NAME_LENGTH characters)."""
    record = index.notes[rel]
    seen: set[str] = set()
    names = []
    for name in (record.title, *record.aliases):
        name = name.strip()
        key = name.lower()
        if len(name) >= MIN_NAME_LENGTH and key not in seen:
            seen.add(key)
            names.append(name)
    return tuple(names)


def unlinked_mentions(
    index: IndexView,
    rel: str,
    read_text: Callable[[str], str | None],
    among: Collection[str] | None = None,
) -> list[Mention]:
    """Mentions of the note ``rel`` in every other note, by source path then offset.

    ``read_text(source)`` gives a note's decoded text (None: unreadable); a leading BOM is
    dropped. A name is found case-insensitively as a whole word (anywhere, in scripts
    without word spaces), never in code, comments, front matter, links, URLs or tags; where
    two names overlap, the longer wins. ``among``: only these notes can hold a mention
    (``word_index.WordIndex.holding``); None: every note is looked in.
    """
    names = mention_names(index, rel)
    if not names:
        return []
    matchers = [_Name(name) for name in names]
    out: list[Mention] = []
    for source in sorted(index.notes if among is None else among):
        if source == rel or source not in index.notes:
            continue
        text = read_text(source)
        if not text:
            continue
        if text[0] == "\ufeff":
            text = text[1:]
        # Most notes mention none of the names: a substring test of the lowercased text
        # costs far less than masking the note and looking for links.
        low = text.lower()
        if not any(m.lower in low for m in matchers):
            continue
        spans = _find(text, low, matchers)
        if spans:
            out.extend(_mentions(source, text, spans))
    return out


def link_name(index: IndexView, source: str, target_rel: str) -> str:
    """How ``source`` links to ``target_rel``: its title when that resolves to it from
    there, else its vault path without ``.md``."""
    stem = target_rel[:-3] if target_rel.lower().endswith(".md") else target_rel
    title = stem.rsplit("/", 1)[-1]
    if index.resolver.resolve_name(title, source) == target_rel:
        return title
    return stem


def linkable_name(index: IndexView, source: str, target_rel: str) -> str:
    """``link_name``, or ``WriteRefused`` when it holds a character a wiki link cannot hold.
    Reads the name from the index's latest snapshot."""
    index = index.snapshot()
    name = link_name(index, source, target_rel)
    if _NOT_IN_NAME.intersection(name):
        raise WriteRefused(
            target_rel, "its name holds a character a wiki link cannot hold ([ ] | # ^)"
        )
    return name


def link_mention(
    index: IndexView, journal: Journal, mention: Mention, target_rel: str
) -> JournalEntry:
    """Turn one mention into a link to ``target_rel`` that shows the same text, written
    through the journal as one entry. Every other byte of the file stays as it was.

    Raises ``FileChanged`` when the note no longer holds the mention where it was found, and
    ``WriteRefused`` when it cannot be edited or written. The index is not updated here: the
    watcher reports the write like any other.
    """
    snapshot = read_snapshot(index.root, mention.source)
    text = snapshot.text
    start, end = mention.start, mention.end
    if text[start:end] != mention.text:
        raise FileChanged(
            mention.source,
            f'changed since the mention of "{mention.text}" was found; nothing was written. '
            "Look for mentions again.",
        )
    if not Linkable(text, mask_note(text))(start, end):
        raise FileChanged(
            mention.source,
            f'"{mention.text}" at line {mention.line} is now inside a link, code, a heading '
            "or a file name; nothing was written",
        )
    name = linkable_name(index, mention.source, target_rel)
    if _NOT_IN_LABEL.intersection(mention.text):
        raise WriteRefused(mention.source, f'"{mention.text}" cannot be the text of a link')
    if mention.text == name:
        link = f"[[{name}]]"
    else:
        line_start = text.rfind("\n", 0, start) + 1
        # In a table row a bare "|" would end the cell, cutting the link in two: escape it.
        bar = "\\|" if _TABLE_ROW.match(text, line_start) else "|"
        link = f"[[{name}{bar}{mention.text}]]"
    after = encode_like(snapshot, text[:start] + link + text[end:])
    entry = journal.apply(
        f'Link "{mention.text}" → {name} in {mention.source}',
        [Edit(mention.source, snapshot, after)],
    )
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing was written"
        raise WriteRefused(mention.source, reason)
    return entry


class _Name:
    """One name to look for: lowercased for ``str.find`` over a lowercased note, and
    which of its ends need a word boundary (an end that is a letter or digit of a script
    that spaces its words)."""

    __slots__ = ("bounded_end", "bounded_start", "lower", "pattern")

    def __init__(self, name: str) -> None:
        self.lower = name.lower()
        self.bounded_start, self.bounded_end = bounded_ends(name)
        body = re.escape(name)
        if self.bounded_start:
            body = f"(?<!{SPACED_WORD_CHAR}){body}"
        if self.bounded_end:
            body = f"{body}(?!{SPACED_WORD_CHAR})"
        self.pattern = re.compile(body, re.IGNORECASE)

    def spans(self, text: str, low: str) -> list[Span]:
        """Non-overlapping whole-word occurrences in ``text`` (``low`` is its lowercase)."""
        if len(low) != len(text):
            # Lowercasing changed the length (a rare "İ"): offsets differ, use the pattern.
            return [m.span() for m in self.pattern.finditer(text)]
        out = []
        size = len(self.lower)
        word = IS_SPACED_WORD_CHAR.match
        find = low.find
        at = find(self.lower)
        while at >= 0:
            end = at + size
            if (not self.bounded_start or at == 0 or word(text, at - 1) is None) and (
                not self.bounded_end or end == len(text) or word(text, end) is None
            ):
                out.append((at, end))
                at = find(self.lower, end)
            else:
                at = find(self.lower, at + 1)
        return out


class Linkable:
    """Whether a span is text a link may replace — one rule for the auto-tagger and for
    unlinked mentions (where the tagger would not link, Link is not offered): not blanked
    by the mask (code, comments, front matter), not in a link, URL, tag or HTML tag, not on
    a heading line, not right after "!" or "[" or before "]" (an embed, or a broken link,
    would result), and not part of a file name or path (``in_file_name``). Called with
    spans in increasing start order."""

    def __init__(self, text: str, masked: str) -> None:
        self.text = text
        self.masked = masked
        self.unmasked = masked == text
        self.starts, self.ends = excluded_spans(masked)
        self.at = 0
        self.headings: dict[int, bool] = {}

    def __call__(self, start: int, end: int) -> bool:
        text = self.text
        if (start > 0 and text[start - 1] in "![") or text[end : end + 1] == "]":
            return False
        if in_file_name(text, start, end):
            return False
        if not self.unmasked and self.masked[start:end] != text[start:end]:
            return False
        ends = self.ends
        while self.at < len(ends) and ends[self.at] <= start:
            self.at += 1
        if self.at < len(ends) and self.starts[self.at] < end:
            return False
        line_start = text.rfind("\n", 0, start) + 1
        heading = self.headings.get(line_start)
        if heading is None:
            heading = self.headings[line_start] = is_heading(self.masked, line_start)
        return not heading


def in_file_name(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is part of a file name or a path, not a mention: right
    before an extension (a dot and an ASCII letter or digit: "MEMORY.md", "Node.js"; a
    sentence's full stop is followed by a space or nothing), or next to a path separator
    ("notes/MEMORY", "MEMORY/old", "C:\\vault\\MEMORY")."""
    if start > 0 and text[start - 1] in PATH_SEPARATORS:
        return True
    after = text[end : end + 2]
    if not after:
        return False
    if after[0] in PATH_SEPARATORS:
        return True
    return len(after) == 2 and after[0] == "." and after[1].isascii() and after[1].isalnum()


def is_heading(masked: str, line_start: int) -> bool:
    """Whether the line is a heading (ATX, or a setext heading's text): a link there
    would change the heading's anchor, which ``[[note#Heading]]`` links point at."""
    if _HEADING.match(masked, line_start):
        return True
    line_end = masked.find("\n", line_start)
    if line_end < 0 or not masked[line_start:line_end].strip():
        return False
    return _SETEXT.match(masked, line_end + 1) is not None


def excluded_spans(masked: str) -> tuple[list[int], list[int]]:
    """Sorted, disjoint spans of ``masked`` that are links, URLs, tags or HTML tags."""
    spans: list[Span] = []
    for marker, pattern in EXCLUDED_PATTERNS:
        if marker not in masked:
            continue
        for m in pattern.finditer(masked):
            start = m.start()
            before = masked[start - 1] if start else " "
            if marker == "#" and not (before.isspace() or before in "(,;"):
                continue  # "a#b" is no tag
            if marker == "^" and not before.isspace():
                continue  # nor "a^b" a block id
            spans.append((start, m.end()))
    spans.sort()
    starts: list[int] = []
    ends: list[int] = []
    for start, end in spans:  # merge: a URL may sit inside a link
        if ends and start < ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def _overlaps(starts: list[int], ends: list[int], start: int, end: int) -> bool:
    """Whether [start, end) meets one of the sorted, disjoint spans."""
    i = bisect.bisect_left(ends, start + 1)  # first span ending after ``start``
    return i < len(starts) and starts[i] < end


def _find(text: str, low: str, names: Iterable[_Name]) -> list[Span]:
    """Spans of unlinked mentions in ``text``, in order: where ``Linkable`` allows a link."""
    candidates = sorted({span for name in names for span in name.spans(text, low)})
    if not candidates:
        return []
    linkable = Linkable(text, mask_note(text))
    chosen_starts: list[int] = []
    chosen_ends: list[int] = []
    # Longest first, then leftmost: each taken span shuts out whatever overlaps it.
    plain = [span for span in candidates if linkable(*span)]
    for start, end in sorted(plain, key=lambda span: (span[0] - span[1], span[0])):
        if _overlaps(chosen_starts, chosen_ends, start, end):
            continue
        i = bisect.bisect_left(chosen_starts, start)
        chosen_starts.insert(i, start)
        chosen_ends.insert(i, end)
    return list(zip(chosen_starts, chosen_ends, strict=True))


def _mentions(source: str, text: str, spans: list[Span]) -> list[Mention]:
    out = []
    line = 1
    counted = 0  # ``line`` is the line number at offset ``counted``
    for start, end in spans:
        line += text.count("\n", counted, start)
        counted = start
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        context = text[line_start : len(text) if line_end < 0 else line_end].rstrip("\r")
        out.append(Mention(source, line, start - line_start, start, end, text[start:end], context))
    return out
