"""Agent search (DESIGN §6, the MCP ``search`` tool and ``librarian search``): BM25 over
notes and their passages, fuzzy titles and aliases, with tag, folder, date and concept
filters; each hit with its best lines."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..search.search import has_tag
from ..text.analyzer import terms
from .corpus import CANDIDATES, SEARCH_CANDIDATES, Corpus, TextOf, newest_first, newest_notes
from .ranking import NOT_ANSWERED, answers_well, name_scores, ranked_notes

LINES_SHOWN = 3
LINE_CHARS = 200


class UnknownConcept(LookupError):
    """The ``concept`` filter names no concept of the dictionary."""

    def __init__(self, concept: str) -> None:
        super().__init__(f"no concept {concept!r} in the dictionary")
        self.concept = concept


@dataclass(frozen=True, slots=True)
class AgentHit:
    """One note found: its path and title, score (higher is better), date (and where the
    date comes from: "front-matter", "name" or "mtime"), and its best lines (1-based line
    number, the line shortened to ``LINE_CHARS``)."""

    note: str
    title: str
    score: float
    date: _dt.date
    date_source: str
    lines: tuple[tuple[int, str], ...]
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "note": self.note,
            "title": self.title,
            "score": round(self.score, 4),
            "date": self.date.isoformat(),
            "date_source": self.date_source,
            "lines": [{"line": n, "text": t} for n, t in self.lines],
            "reasons": list(self.reasons),
        }


def filtered_notes(
    index: IndexView,
    text_of: TextOf,
    *,
    tag: str | None = None,
    folder: str | None = None,
    since: _dt.date | None = None,
    until: _dt.date | None = None,
    concept: str | None = None,
) -> Sequence[str]:
    """The notes passing every filter given, sorted: ``tag`` (front matter or inline, ``#``
    optional, case-insensitive; a parent tag holds its nested tags), ``folder`` (a path
    prefix, whole folder names), ``since``/``until`` (the note's date, inclusive),
    ``concept`` (a concept id, or its node ``//concept/<id>``: notes linking the concept or
    its note, or mentioning one of its aliases where the tagger would link it)."""
    if (tag, folder, since, until, concept) == (None, None, None, None, None):
        return index.snapshot().sorted_notes()  # the snapshot's own: see newest_notes
    index = index.snapshot()
    records = sorted(index.notes.items())
    known = {c.id for c in index.concepts.concepts}
    if concept is not None and concept.startswith(CONCEPT_PREFIX):  # a node id, as --json gives
        concept = concept[len(CONCEPT_PREFIX) :]
    if concept is not None and concept not in known:
        raise UnknownConcept(concept)
    wanted_tag = tag.lstrip("#").lower() if tag else None
    prefix = folder.strip().strip("/").casefold() + "/" if folder and folder.strip("/ ") else None
    out = []
    for rel, record in records:
        if prefix is not None and not rel.casefold().startswith(prefix):
            continue
        if since is not None and record.date < since:
            continue
        if until is not None and record.date > until:
            continue
        if wanted_tag is not None and not has_tag(
            {name.lower() for name in record.tag_names}, wanted_tag
        ):
            continue
        out.append(rel)
    if concept is not None:
        from ..insight.timeline import concept_mentions  # numpy: only when asked

        mentioning = {m.note for m in concept_mentions(index, [concept], text_of)}
        out = [rel for rel in out if rel in mentioning]
    return out


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The ``hits`` of a search, and whether anything answers the query well (see
    ``ranking.answers_well``): an agent tells "not remembered" from "here is something"."""

    hits: tuple[AgentHit, ...]
    answers_well: bool

    def to_json(self, query: str) -> dict[str, Any]:
        out: dict[str, Any] = {"query": query, "answers_well": self.answers_well}
        if not self.answers_well:
            out["warning"] = NOT_ANSWERED
        out["hits"] = [h.to_json() for h in self.hits]
        return out


def agent_search(
    index: IndexView,
    text_of: TextOf,
    query: str,
    *,
    tag: str | None = None,
    folder: str | None = None,
    since: _dt.date | None = None,
    until: _dt.date | None = None,
    concept: str | None = None,
    limit: int = 10,
) -> list[AgentHit]:
    """The hits of ``search_notes``, best first."""
    found = search_notes(
        index,
        text_of,
        query,
        tag=tag,
        folder=folder,
        since=since,
        until=until,
        concept=concept,
        limit=limit,
    )
    return list(found.hits)


def search_notes(
    index: IndexView,
    text_of: TextOf,
    query: str,
    *,
    tag: str | None = None,
    folder: str | None = None,
    since: _dt.date | None = None,
    until: _dt.date | None = None,
    concept: str | None = None,
    limit: int = 10,
) -> SearchResult:
    """The notes best matching ``query`` among those passing the filters (see
    ``filtered_notes``), best first, at most ``limit``, ranked as context packs rank
    (``ranking.ranked_notes``: the whole note's BM25, its best passage, its name). An
    empty query lists the filtered notes newest first. Ties go to the path, so the order
    is always the same."""
    if limit <= 0:
        return SearchResult((), True)
    notes = filtered_notes(
        index, text_of, tag=tag, folder=folder, since=since, until=until, concept=concept
    )
    q_terms = terms(query)
    if not query.strip():  # the newest first: only they are read
        notes = newest_notes(index, notes)[:limit]
    named = {notes[i] for i in name_scores(index, notes, query)}
    wide = max(CANDIDATES // 2, SEARCH_CANDIDATES * limit)
    corpus = Corpus.build(index, text_of, notes, q_terms, keep=named, limit=wide)
    scores, tops = ranked_notes(index, corpus, query)
    evidence = corpus.split_names(corpus.in_vault(q_terms))[0]
    if not query.strip():
        row = {rel: i for i, rel in enumerate(corpus.notes)}
        order = [
            row[rel] for rel in newest_first(list(zip(corpus.dates, corpus.notes, strict=True)))
        ]
    else:
        order = sorted(
            (i for i in scores if scores[i] > 0), key=lambda i: (-scores[i], corpus.notes[i])
        )
    index = index.snapshot()
    titles = {rel: index.notes[rel].title for rel in corpus.notes}
    hits = []
    for i in order[:limit]:
        rel = corpus.notes[i]
        hits.append(
            AgentHit(
                rel,
                titles[rel],
                scores.get(i, 0.0),
                corpus.dates[i],
                corpus.date_sources[i],
                best_lines(corpus.texts[i], evidence, corpus) or _passage_lines(corpus, tops, i),
                tops[i][1] if i in tops else ("note named",) if rel in named else (),
            )
        )
    return SearchResult(tuple(hits), answers_well(index, corpus, query))


def _passage_lines(
    corpus: Corpus, tops: dict[int, tuple[int, tuple[str, ...]]], note: int
) -> tuple[tuple[int, str], ...]:
    """The first lines of a note's best passage, when no line holds a word of the query
    (a note found by the words of the best matches, a neighbour or a link)."""
    if note not in tops:
        return ()
    p = corpus.passages[tops[note][0]]
    lines = [(p.first + k, line.strip()) for k, line in enumerate(p.text.split("\n"))]
    return tuple((n, _short(line)) for n, line in lines if line)[:LINES_SHOWN]


def best_lines(
    text: str, q_terms: Sequence[str], corpus: Corpus, most: int = LINES_SHOWN
) -> tuple[tuple[int, str], ...]:
    """The note's lines holding the most of the query's weight (its terms' idf over the
    passages), at most ``most``, in line order."""
    wanted = {t: corpus.passage_bm25.idf(t) for t in q_terms}
    if not wanted:
        return ()
    ranked = []
    for number, line in enumerate(text.split("\n"), start=1):
        found = set(terms(line)) & wanted.keys()
        if found:
            ranked.append((-sum(wanted[t] for t in found), number, line.strip()))
    ranked.sort()
    return tuple(sorted((n, _short(line)) for _, n, line in ranked[:most]))


def _short(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1].rstrip() + "…"


__all__ = [
    "AgentHit",
    "SearchResult",
    "UnknownConcept",
    "agent_search",
    "filtered_notes",
    "search_notes",
]


def note_relevance(
    index: IndexView, text_of: TextOf, rels: list[str], words: str
) -> dict[str, float]:
    """How well each note of ``rels`` answers ``words``, as agent search ranks notes
    (``ranking.ranked_notes``): the window's search orders its matches by it, so the
    window, the command line and the MCP server rank alike. Past ``PREFILTER_ABOVE``
    notes only the ``CANDIDATES`` whose whole text matches best are scored."""
    corpus = Corpus.build(index, text_of, rels, terms(words))
    scores, _tops = ranked_notes(index, corpus, words)
    return {corpus.notes[i]: score for i, score in scores.items()}
