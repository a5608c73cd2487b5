"""Agent search (DESIGN §6, the MCP ``search`` tool and ``librarian search``): BM25 over
notes and their passages, fuzzy titles and aliases, with tag, folder, date and concept
filters; each hit with its best lines."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from ..index.index import VaultIndex
from ..index.resolver import CONCEPT_PREFIX
from ..search.search import has_tag
from .bm25 import terms
from .corpus import Corpus, TextOf

LINES_SHOWN = 3
LINE_CHARS = 200
# Weights of a note's score: its whole text's BM25, its best passage's, its name's fuzzy
# match (each scaled to 0..1 over the hits first).
NOTE_WEIGHT = 0.5
PASSAGE_WEIGHT = 0.5
NAME_WEIGHT = 1.0
NAME_FLOOR = 80.0  # rapidfuzz ratio below which a name does not count as matched


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

    def to_json(self) -> dict[str, Any]:
        return {
            "note": self.note,
            "title": self.title,
            "score": round(self.score, 4),
            "date": self.date.isoformat(),
            "date_source": self.date_source,
            "lines": [{"line": n, "text": t} for n, t in self.lines],
        }


def filtered_notes(
    index: VaultIndex,
    text_of: TextOf,
    *,
    tag: str | None = None,
    folder: str | None = None,
    since: _dt.date | None = None,
    until: _dt.date | None = None,
    concept: str | None = None,
) -> list[str]:
    """The notes passing every filter given, sorted: ``tag`` (front matter or inline, ``#``
    optional, case-insensitive; a parent tag holds its nested tags), ``folder`` (a path
    prefix, whole folder names), ``since``/``until`` (the note's date, inclusive),
    ``concept`` (a concept id, or its node ``//concept/<id>``: notes linking the concept or
    its note, or mentioning one of its aliases where the tagger would link it)."""
    with index.lock:
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
            {t.name.lower() for t in record.parsed.tags}, wanted_tag
        ):
            continue
        out.append(rel)
    if concept is not None:
        from ..insight.timeline import concept_mentions  # numpy: only when asked

        mentioning = {m.note for m in concept_mentions(index, [concept], text_of)}
        out = [rel for rel in out if rel in mentioning]
    return out


def agent_search(
    index: VaultIndex,
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
    """The notes best matching ``query`` among those passing the filters (see
    ``filtered_notes``), best first, at most ``limit``. A note's score adds its BM25 over
    the whole note, its best passage's BM25 (each scaled by the best hit's) and how well
    its title or an alias matches the query (rapidfuzz, from ``NAME_FLOOR``). An empty
    query lists the filtered notes newest first. Ties go to the path, so the order is
    always the same."""
    if limit <= 0:
        return []
    notes = filtered_notes(
        index, text_of, tag=tag, folder=folder, since=since, until=until, concept=concept
    )
    q_terms = terms(query)
    named = name_scores(index, notes, query)
    corpus = Corpus.build(index, text_of, notes, q_terms, keep={notes[i] for i in named})
    scores = note_scores(corpus, q_terms, name_scores(index, corpus.notes, query))
    if not query.strip():
        order = sorted(
            range(len(corpus.notes)), key=lambda i: (-corpus.dates[i].toordinal(), corpus.notes[i])
        )
    else:
        order = sorted(
            (i for i in scores if scores[i] > 0), key=lambda i: (-scores[i], corpus.notes[i])
        )
    with index.lock:
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
                best_lines(corpus.texts[i], q_terms, corpus),
            )
        )
    return hits


def note_scores(
    corpus: Corpus, q_terms: Sequence[str], names: dict[int, float]
) -> dict[int, float]:
    """Note index → its score (see ``agent_search``)."""
    whole = _scaled(corpus.note_bm25.scores(q_terms))
    best: dict[int, float] = {}
    for p, s in corpus.passage_bm25.scores(q_terms).items():
        n = corpus.note_of[p]
        if s > best.get(n, 0.0):
            best[n] = s
    best = _scaled(best)
    out: dict[int, float] = {}
    for n in set(whole) | set(best) | set(names):
        out[n] = (
            NOTE_WEIGHT * whole.get(n, 0.0)
            + PASSAGE_WEIGHT * best.get(n, 0.0)
            + NAME_WEIGHT * names.get(n, 0.0)
        )
    return out


def _scaled(scores: dict[int, float]) -> dict[int, float]:
    top = max(scores.values(), default=0.0)
    return {k: v / top for k, v in scores.items()} if top > 0 else {}


def name_scores(index: VaultIndex, notes: Sequence[str], query: str) -> dict[int, float]:
    """Note index → 0..1 for a title or alias close to the whole query (a query naming a
    note: "token bucket", "tokenizer quirks"), from rapidfuzz's ratio at ``NAME_FLOOR``."""
    from ..search.switcher import match_key  # numpy with it: not at the command line's start

    q = match_key(query)
    if not q:
        return {}
    with index.lock:
        names = [(index.notes[rel].title, *index.notes[rel].parsed.aliases) for rel in notes]
    out = {}
    for i, found in enumerate(names):
        best = max((fuzz.ratio(q, match_key(name)) for name in found if name), default=0.0)
        if best >= NAME_FLOOR:
            out[i] = (best - NAME_FLOOR) / (100.0 - NAME_FLOOR) * 0.5 + 0.5
    return out


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


__all__ = ["AgentHit", "UnknownConcept", "agent_search", "filtered_notes"]
