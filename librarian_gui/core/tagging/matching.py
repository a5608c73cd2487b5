"""The auto-tagger's matching: where a note mentions a concept's alias as plain text, and
the link that would replace each mention (DESIGN §3).

One Aho–Corasick pass (ahocorasick_rs) finds every alias in a note at once; the candidates
then pass the rules in order: case (short capital aliases match only as written), word
boundaries (except in scripts without spaces), plain text only (never in code, comments,
front matter, links, URLs, HTML, tags or headings), longest alias first where two overlap,
and, by default, only the first mention of each concept in a note — none at all when the
note already links the concept, so a second run changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import ahocorasick_rs

from ..backlinks.unlinked import Linkable
from ..concepts.dictionary import (
    Concept,
    bounded_ends,
    fold,
    is_case_sensitive,
)
from ..parse.parser import mask_note, split_front_matter
from ..text.analyzer import IS_SPACED_WORD_CHAR

# What a wiki link's target cannot hold, and what its label cannot: looked for with a regex
# (a ``frozenset.intersection`` with each alias took a quarter of ``AliasMatcher``'s build
# at 180,000 aliases).
_NOT_IN_ID = re.compile(r"[\[\]|#^\r\n]")
_NOT_IN_LABEL = re.compile(r"[\[\]|\r\n]")
WIKI_TARGET = re.compile(r"\[\[([^\[\]|#\\\r\n]*)")
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$")


class _Alias(NamedTuple):
    concept: str
    text: str
    exact: bool  # matched case-sensitively
    bounded_start: bool
    bounded_end: bool


# One folded key of the automaton: (concept, bounded start, bounded end) when it is a single
# alias matched in any case, else None; and its aliases.
Pattern = tuple[tuple[str, bool, bool] | None, tuple[_Alias, ...]]


class Occurrence(NamedTuple):
    """One mention that would become a link. ``start``/``end`` are offsets into the note's
    text as ``safewrite.Snapshot.text`` holds it (BOM dropped, ``\\r\\n`` kept); ``line``
    is 1-based, ``column`` 0-based."""

    concept: str
    start: int
    end: int
    text: str
    link: str
    line: int
    column: int


def link_for(concept_id: str, text: str, in_table: bool) -> str:
    """``[[id]]`` when the text is the id, else ``[[id|text]]`` (``\\|`` in a table row)."""
    if text == concept_id:
        return f"[[{concept_id}]]"
    bar = "\\|" if in_table else "|"
    return f"[[{concept_id}{bar}{text}]]"


class AliasMatcher:
    """Every alias of a dictionary in one automaton. An alias claimed by two concepts goes
    to the first in dictionary order (the linter reports the conflict); an alias the link
    syntax cannot carry, or of a concept whose id it cannot carry, is left out.

    ``notes`` maps a concept id to its note (``queries.concept_notes``): a link to that note
    is a link to the concept (so it is "already linked"), and the note itself is never
    tagged with its own concept (DESIGN §2)."""

    def __init__(self, concepts: Iterable[Concept], notes: Mapping[str, str] | None = None) -> None:
        self.concept_ids: tuple[str, ...] = ()
        keys: dict[str, list[_Alias]] = {}
        ids: list[str] = []
        claimed: set[tuple[str, bool]] = set()
        for concept in concepts:
            if not concept.id or _NOT_IN_ID.search(concept.id) or concept.id != concept.id.strip():
                continue
            usable = False
            for alias in concept.aliases:
                stripped = alias.strip()
                if not stripped or alias != stripped or _NOT_IN_LABEL.search(alias):
                    continue
                exact = is_case_sensitive(alias)
                key = fold(alias)
                mark = (alias if exact else key, exact)
                if mark in claimed:
                    continue
                claimed.add(mark)
                start, end = bounded_ends(alias)
                keys.setdefault(key, []).append(_Alias(concept.id, alias, exact, start, end))
                usable = True
            if usable:
                ids.append(concept.id)
        self.patterns: list[Pattern] = []
        for aliases in keys.values():
            simple = None
            if len(aliases) == 1 and not aliases[0].exact:
                one = aliases[0]
                simple = (one.concept, one.bounded_start, one.bounded_end)
            self.patterns.append((simple, tuple(aliases)))
        self.empty = not keys
        self.keys: tuple[str, ...] = tuple(keys)  # folded aliases, in the order of patterns
        self._automaton = ahocorasick_rs.AhoCorasick(list(keys)) if keys else None
        self.concept_ids = tuple(ids)
        notes = notes or {}
        # The link targets that name each concept: its id, and the names of its note.
        self.link_names: dict[str, frozenset[str]] = {
            i: frozenset({fold(i), *(note_link_names(notes[i]) if i in notes else ())}) for i in ids
        }
        # A note → the (lowercased) concept it is the page of, by the dictionary.
        self.page_of: dict[str, str] = {rel: i.lower() for i, rel in notes.items() if i in ids}

    def candidates(self, text: str, folded: str) -> list[tuple[int, int, str]]:
        """Every alias occurrence with its case and word boundaries right: (start, end,
        concept id), overlapping ones included, sorted by start, longest first."""
        if self._automaton is None:
            return []
        out = checked_matches(self._automaton, self.patterns, text, folded)
        out.sort(key=_by_start_longest)
        return out

    def linked(self, masked: str, concepts: Iterable[str]) -> set[str]:
        """Which of ``concepts`` the note links already (wiki links and embeds, any case;
        not in code)."""
        if "[[" not in masked:
            return set()
        targets = {fold(t).strip() for t in WIKI_TARGET.findall(masked)}
        return {c for c in concepts if not self.link_names[c].isdisjoint(targets)}

    def own_concepts(self, rel: str) -> tuple[str, ...]:
        """The lowercased concepts a note is the page of: the one it is named after, and
        the one whose note it is."""
        named = note_concept(rel)
        page = self.page_of.get(rel)
        return (named,) if page is None or page == named else (named, page)


def checked_matches(
    automaton: ahocorasick_rs.AhoCorasick, patterns: Sequence[Pattern], text: str, folded: str
) -> list[tuple[int, int, str]]:
    """The automaton's matches in ``folded`` (``text`` folded) that pass the case and word
    boundary rules of their alias: (start, end, concept id), in the automaton's order."""
    out = []
    is_word = is_word_char
    size = len(text)
    for index, start, end in automaton.find_matches_as_indexes(folded, overlapping=True):
        simple, aliases = patterns[index]
        if simple is not None:  # the common case: one alias, any case
            concept, bounded_start, bounded_end = simple
            if bounded_start and start > 0 and is_word(text[start - 1]):
                continue
            if bounded_end and end < size and is_word(text[end]):
                continue
            out.append((start, end, concept))
            continue
        concept_of = alias_at(aliases, text, start, end)
        if concept_of is not None:
            out.append((start, end, concept_of))
    return out


def alias_at(aliases: Sequence[_Alias], text: str, start: int, end: int) -> str | None:
    """The concept of the first alias (of one folded key) that ``text[start:end]`` is, its
    case and word boundaries included; None when none is."""
    is_word = is_word_char
    for alias in aliases:
        if alias.exact and text[start:end] != alias.text:
            continue
        if alias.bounded_start and start > 0 and is_word(text[start - 1]):
            continue
        if alias.bounded_end and end < len(text) and is_word(text[end]):
            continue
        return alias.concept
    return None


def find_occurrences(
    text: str,
    matcher: AliasMatcher,
    *,
    all_mentions: bool = False,
    only: Sequence[str] | None = None,
    source: str | None = None,
) -> list[Occurrence]:
    """The mentions in ``text`` the tagger would link, in text order. ``only`` limits it
    to some concept ids; ``source`` (the note's vault path) leaves out the concept the
    note is named after, which would link the note to itself."""
    folded = fold(text)
    found = matcher.candidates(text, folded)
    if only is not None:
        wanted = set(only)
        found = [c for c in found if c[2] in wanted]
    if source is not None:
        own = matcher.own_concepts(source)
        found = [c for c in found if c[2].lower() not in own]
    if not found:
        return []
    masked = mask_note(text)
    plain = Linkable(text, masked)
    chosen: list[tuple[int, int, str]] = []
    first_only = not all_mentions
    # First mention only: a concept the note links already gets no second link, so a
    # second run changes nothing.
    seen = (
        matcher.linked(with_front_matter_links(text, masked), {item[2] for item in found})
        if first_only
        else set()
    )
    # Overlapping candidates form clusters (on one line, as no alias holds a line break);
    # in a cluster the longest wins, then the leftmost. Most clusters hold one candidate.
    i = 0
    n = len(found)
    append = chosen.append
    while i < n:
        item = found[i]
        cluster_end = item[1]
        j = i + 1
        if j == n or found[j][0] >= cluster_end:
            if first_only:
                if item[2] in seen:
                    i = j
                    continue
                if plain(item[0], cluster_end):
                    seen.add(item[2])
                    append(item)
            elif plain(item[0], cluster_end):
                append(item)
            i = j
            continue
        while j < n and found[j][0] < cluster_end:
            cluster_end = max(cluster_end, found[j][1])
            j += 1
        for item in _resolve([c for c in found[i:j] if plain(c[0], c[1])]):
            if first_only:
                if item[2] in seen:
                    continue
                seen.add(item[2])
            append(item)
        i = j
    if not chosen:
        return []
    return occurrences_at(text, masked, chosen)


def occurrences_at(
    text: str, masked: str, chosen: Iterable[tuple[int, int, str]]
) -> list[Occurrence]:
    """The occurrences of these (start, end, concept id) spans of ``text``, in order, with
    their line, column and link (``masked`` is ``mask_note(text)``: it finds table rows)."""
    tables = _table_rows(masked) if _may_hold_table(masked) else None
    out = []
    line = 1
    counted = 0
    for start, end, concept in chosen:
        line += text.count("\n", counted, start)
        counted = start
        line_start = text.rfind("\n", 0, start) + 1
        mention = text[start:end]
        in_table = tables is not None and line_start in tables
        out.append(
            Occurrence(
                concept,
                start,
                end,
                mention,
                link_for(concept, mention, in_table),
                line,
                start - line_start,
            )
        )
    return out


def with_front_matter_links(text: str, masked: str) -> str:
    """``masked`` with the front matter's lines shown again, except YAML comment lines:
    property values hold links (the index counts them): a rename must follow them, and a
    note linking a concept there has it already."""
    _, front, offset = split_front_matter(text)
    if front is None:
        return masked
    lines = text[offset : offset + len(front)].splitlines(keepends=True)
    shown = "".join(
        " " * len(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")) :]
        if line.lstrip().startswith("#")
        else line
        for line in lines
    )
    return masked[:offset] + shown + masked[offset + len(shown) :]


def note_concept(rel: str) -> str:
    """The lowercased concept id a note would be the page of: its file name."""
    return rel.rsplit("/", 1)[-1].removesuffix(".md").lower()


def note_link_names(rel: str) -> tuple[str, ...]:
    """The folded wiki-link targets that can name the note at ``rel``: its path and every
    tail of it from a folder on (``b/c`` of ``a/b/c.md``), each with and without ``.md``."""
    path = fold(rel)
    bare = path.removesuffix(".md")
    parts = bare.split("/")
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return tuple(dict.fromkeys(name for tail in tails for name in (tail, tail + ".md")))


def apply_occurrences(text: str, occurrences: Iterable[Occurrence]) -> str:
    """``text`` with each occurrence replaced by its link."""
    parts = []
    at = 0
    for occ in sorted(occurrences, key=lambda o: o.start):
        parts.append(text[at : occ.start])
        parts.append(occ.link)
        at = occ.end
    parts.append(text[at:])
    return "".join(parts)


def _resolve(cluster: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Longest first, then leftmost: each taken span shuts out whatever overlaps it."""
    taken: list[tuple[int, int, str]] = []
    for item in sorted(cluster, key=lambda c: (c[0] - c[1], c[0])):
        if all(item[1] <= t[0] or t[1] <= item[0] for t in taken):
            taken.append(item)
    taken.sort()
    return taken


def _by_start_longest(c: tuple[int, int, str]) -> tuple[int, int]:
    return c[0], -c[1]


_WORD_CACHE: dict[str, bool] = {}


def is_word_char(char: str) -> bool:
    """A letter or digit of a script that spaces its words (memoised per character)."""
    known = _WORD_CACHE.get(char)
    if known is None:
        known = _WORD_CACHE[char] = IS_SPACED_WORD_CHAR.match(char) is not None
    return known


def _may_hold_table(masked: str) -> bool:
    """A cheap test before ``_table_rows``: a delimiter row has "-" or ":" next to "|"."""
    return "|" in masked and any(
        pair in masked for pair in ("-|", "|-", "- |", "| -", ":|", "|:", "-\t|", "|\t-")
    )


def _table_rows(masked: str) -> set[int]:
    """Line starts of table rows: a block of non-blank lines holding a delimiter row
    (``|---|---|``), from its header line down. In them an unescaped ``|`` splits a cell."""
    rows: set[int] = set()
    lines = masked.split("\n")
    offsets = []
    at = 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    i = 1
    while i < len(lines):
        if "-" in lines[i] and "|" in lines[i - 1] and _DELIMITER_ROW.match(lines[i]):
            rows.add(offsets[i - 1])
            j = i + 1
            while j < len(lines) and lines[j].strip() and "|" in lines[j]:
                rows.add(offsets[j])
                j += 1
            i = j
        else:
            i += 1
    return rows
