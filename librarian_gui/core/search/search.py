"""Full-text search over the vault's notes: the query language, matching, ranking, snippets."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from ..index.snapshot import IndexView
from ..parse.records import NoteRecord
from ..vault.textstore import TextStore

ClauseKind = Literal["term", "phrase", "tag", "path", "file"]
SNIPPET_CHARS = 160  # a snippet line is cut to about this many characters around its match
SNIPPET_LEAD = 40  # characters kept before the first match when a line is cut
MAX_SNIPPETS = 3
_TITLE_WEIGHT = 10_000  # one more query word in the title outranks any number of matches
RERANK = 30  # matches (the first by count) ranked again by relevance
_OPERATOR = re.compile(r"(tag|path|file):", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Clause:
    """One part of a query. ``value`` is as typed (``#`` removed from a tag)."""

    kind: ClauseKind
    value: str
    negated: bool = False

    def __str__(self) -> str:
        sign = "-" if self.negated else ""
        if self.kind == "term":
            return sign + self.value
        if self.kind == "phrase":
            return f'{sign}"{self.value}"'
        quoted = any(ch.isspace() for ch in self.value)
        return f'{sign}{self.kind}:"{self.value}"' if quoted else f"{sign}{self.kind}:{self.value}"


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: its clauses in the order typed. ``str(query)`` parses back to it."""

    clauses: tuple[Clause, ...] = ()

    def values(self, kind: ClauseKind, *, negated: bool = False) -> tuple[str, ...]:
        return tuple(c.value for c in self.clauses if c.kind == kind and c.negated == negated)

    @property
    def terms(self) -> tuple[str, ...]:
        return self.values("term")

    @property
    def phrases(self) -> tuple[str, ...]:
        return self.values("phrase")

    @property
    def tags(self) -> tuple[str, ...]:
        return self.values("tag")

    @property
    def paths(self) -> tuple[str, ...]:
        return self.values("path")

    @property
    def files(self) -> tuple[str, ...]:
        return self.values("file")

    @property
    def empty(self) -> bool:
        return not self.clauses

    def __str__(self) -> str:
        return " ".join(map(str, self.clauses))


def parse_query(text: str) -> Query:
    """Parse the search box's text; never raises.

    Words must all match; ``"a phrase"``; ``tag:name`` (``#`` optional, nested tags
    included); ``path:part``; ``file:part``; a leading ``-`` negates any of them. A quote
    with no closing quote, and an operator with nothing after it, are plain text.
    """
    clauses: list[Clause] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        negated = text[i] == "-" and i + 1 < n and not text[i + 1].isspace()
        if negated:
            i += 1
        token_start = i
        operator = _OPERATOR.match(text, i)
        if operator is not None:
            i = operator.end()
        close = text.find('"', i + 1) if i < n and text[i] == '"' else -1
        if close != -1:
            value, i, quoted = text[i + 1 : close], close + 1, True
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            value, i, quoted = text[i:j], j, False
        if operator is not None:
            kind: ClauseKind = operator.group(1).lower()  # type: ignore[assignment]
            if kind == "tag":
                value = value.lstrip("#")
        else:
            kind = "phrase" if quoted else "term"
        if not value:  # `tag:`, `""`: nothing to look for, so the typed text is the term
            kind, value = "term", text[token_start:i]
        clauses.append(Clause(kind, value, negated))
    return Query(tuple(clauses))


@dataclass(frozen=True, slots=True)
class Snippet:
    """One matching line: ``line`` is 1-based in the file; ``highlights`` are
    (start, end) offsets into ``text``, which may be cut with "…" at either end."""

    line: int
    text: str
    highlights: tuple[tuple[int, int], ...]


def plain_words(query: Query) -> bool:
    """Whether ``query`` is words alone: no phrase, operator or negation, whose meaning
    a ranking by how well notes answer the words would drop."""
    return not query.empty and all(c.kind == "term" and not c.negated for c in query.clauses)


# How well each note (paths) answers the words of a query (text): higher is better.
Relevance = Callable[[list[str], str], dict[str, float]]


@dataclass(frozen=True, slots=True)
class SearchHit:
    rel: str
    score: float
    match_count: int  # occurrences of the query's words and phrases in the note's text
    snippets: tuple[Snippet, ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """A query prepared for matching: everything lowercased once."""

    needles: tuple[str, ...]  # words and phrases that must occur (text or title)
    banned: tuple[str, ...]  # negated words and phrases
    tags: tuple[str, ...]
    banned_tags: tuple[str, ...]
    paths: tuple[str, ...]
    banned_paths: tuple[str, ...]
    files: tuple[str, ...]
    banned_files: tuple[str, ...]

    @classmethod
    def of(cls, q: Query) -> _Plan:
        def low(kinds: tuple[ClauseKind, ...], negated: bool) -> tuple[str, ...]:
            found = (c.value.lower() for c in q.clauses if c.kind in kinds and c.negated == negated)
            return tuple(dict.fromkeys(found))

        text: tuple[ClauseKind, ...] = ("term", "phrase")
        return cls(
            low(text, False),
            low(text, True),
            low(("tag",), False),
            low(("tag",), True),
            low(("path",), False),
            low(("path",), True),
            low(("file",), False),
            low(("file",), True),
        )

    def passes_names(self, rel: str) -> bool:
        if not (self.paths or self.banned_paths or self.files or self.banned_files):
            return True
        path = rel.lower()
        name = path.rsplit("/", 1)[-1]
        return (
            all(p in path for p in self.paths)
            and not any(p in path for p in self.banned_paths)
            and all(f in name for f in self.files)
            and not any(f in name for f in self.banned_files)
        )

    def passes_tags(self, record: NoteRecord) -> bool:
        if not (self.tags or self.banned_tags):
            return True
        names = {name.lower() for name in record.tag_names}
        return all(has_tag(names, t) for t in self.tags) and not any(
            has_tag(names, t) for t in self.banned_tags
        )


def has_tag(names: set[str], wanted: str) -> bool:
    """``wanted`` itself or a tag nested under it (``project`` has ``project/alpha``)."""
    wanted = wanted.rstrip("/")  # "tag:project/" means the same
    prefix = wanted + "/"
    return wanted in names or any(name.startswith(prefix) for name in names)


def search(
    index: IndexView,
    store: TextStore,
    query: Query | str,
    *,
    limit: int = 200,
    cancelled: Callable[[], bool] | None = None,
    relevance: Relevance | None = None,
) -> list[SearchHit]:
    """The notes matching ``query``, best first, at most ``limit``.

    Ranking: notes whose title holds more of the query's words first (an exact title
    first of all), then by how often the words occur in the text, then by path; given
    ``relevance`` (the agents' ranking: whole note, best passage, name), the first
    ``RERANK`` are ordered again by how well each answers the query's words, within
    their title tier. ``cancelled`` is polled between notes;
    once it returns True the search stops and returns an empty list, since the caller
    has moved on to a newer query.
    """
    q = parse_query(query) if isinstance(query, str) else query
    if q.empty or limit <= 0:
        return []
    plan = _Plan.of(q)
    exact_title = " ".join(plan.needles)
    ranked: list[tuple[float, str, int, NoteRecord]] = []
    index = index.snapshot()  # a consistent snapshot; the updater's thread may update the index
    notes = list(index.notes.items())
    for rel, record in notes:
        if cancelled is not None and cancelled():
            return []
        if not plan.passes_names(rel) or not plan.passes_tags(record):
            continue
        if not (plan.needles or plan.banned):
            ranked.append((0.0, rel, 0, record))
            continue
        title = record.title.lower()
        # Lowered per note and dropped at once: keeping 40 MB of lowered copies costs
        # more (allocation, page faults) than lowering again.
        low = (store.get(rel, record.stamp) or "").lower()
        if any(b in low or b in title for b in plan.banned):
            continue
        count = 0
        in_title = 0
        for needle in plan.needles:
            found = low.count(needle)
            titled = needle in title
            if not (found or titled):
                break
            count += found
            in_title += titled
        else:
            title_rank = len(plan.needles) + 1 if title == exact_title else in_title
            ranked.append(
                (title_rank * _TITLE_WEIGHT + min(count, _TITLE_WEIGHT - 1), rel, count, record)
            )
    ranked.sort(key=lambda hit: (-hit[0], hit[1]))
    if relevance is not None and plan.needles and len(ranked) > 1:
        # The first RERANK matches by count, ranked again by relevance within their title
        # tier: what a reader sees first, at the cost of splitting that many notes (on
        # interconnected-10k's long notes 80 ms for the count, up to ~350 ms with it the
        # first time; every match of a common word would be seconds).
        head = ranked[:RERANK]
        scores = relevance([rel for _s, rel, _c, _r in head], " ".join(plan.needles))
        if cancelled is not None and cancelled():
            return []
        head.sort(
            key=lambda hit: (
                -(hit[0] // _TITLE_WEIGHT),
                -scores.get(hit[1], 0.0),
                -hit[0],
                hit[1],
            )
        )
        ranked[:RERANK] = head
    marks = plan.needles or tuple("#" + tag for tag in plan.tags)
    hits = []
    for score, rel, count, record in ranked[:limit]:
        if cancelled is not None and cancelled():
            return []
        text = store.get(rel, record.stamp) or ""
        hits.append(SearchHit(rel, float(score), count, snippets(text, marks)))
    return hits


def snippets(text: str, needles: Iterable[str], most: int = MAX_SNIPPETS) -> tuple[Snippet, ...]:
    """Up to ``most`` lines of ``text`` holding the (lowercase) needles: the lines with the
    most different needles first, shown in file order."""
    wanted = tuple(n for n in needles if n)
    if not wanted:
        return ()
    found: list[tuple[int, int, str]] = []  # (-needles on the line, line number, line)
    complete = 0
    for number, line in enumerate(text.split("\n"), 1):
        folded = line.lower()
        kinds = sum(1 for n in wanted if n in folded)
        if kinds:
            found.append((-kinds, number, line))
            complete += kinds == len(wanted)
            if complete >= most:  # nothing later can beat these
                break
    best = sorted(sorted(found)[:most], key=lambda entry: entry[1])
    return tuple(_snippet(number, line, wanted) for _, number, line in best)


def marked_line(number: int, line: str, needles: Iterable[str]) -> Snippet:
    """Line ``number``, ``line``, as a snippet with each of the (lowercase) needles marked
    where it occurs: a line chosen by another ranking (the agents' search), shown as the
    search shows its own."""
    return _snippet(number, line, tuple(n for n in dict.fromkeys(needles) if n))


def _fold(line: str) -> tuple[str, list[int] | None]:
    """The line lowercased, and, when lowering changed its length (``İ`` becomes two
    characters), which original character each lowered one came from."""
    folded = line.lower()
    if len(folded) == len(line):
        return folded, None
    owner: list[int] = []
    for i, ch in enumerate(line):
        owner.extend([i] * len(ch.lower()))
    return folded, owner


def _snippet(number: int, line: str, needles: tuple[str, ...]) -> Snippet:
    folded, owner = _fold(line)
    spans: list[tuple[int, int]] = []
    for needle in needles:
        start = folded.find(needle)
        while start != -1:
            end = start + len(needle)
            if owner is None:
                spans.append((start, end))
            else:
                spans.append((owner[start], owner[end - 1] + 1))
            start = folded.find(needle, end)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    body = line.rstrip()
    lead = len(body) - len(body.lstrip())
    body = body[lead:]
    cut_from, cut_to = 0, len(body)
    if len(body) > SNIPPET_CHARS:
        first = merged[0][0] - lead if merged else 0
        cut_from = max(0, min(first - SNIPPET_LEAD, len(body) - SNIPPET_CHARS))
        cut_to = cut_from + SNIPPET_CHARS
    prefix = "…" if cut_from > 0 else ""
    suffix = "…" if cut_to < len(body) else ""
    shift = lead + cut_from - len(prefix)
    highlights = tuple(
        (max(start - shift, len(prefix)), min(end - shift, len(prefix) + cut_to - cut_from))
        for start, end in merged
        if start - lead < cut_to and end - lead > cut_from
    )
    return Snippet(number, prefix + body[cut_from:cut_to] + suffix, highlights)
