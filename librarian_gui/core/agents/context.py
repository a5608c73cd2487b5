"""Context packs (DESIGN §6): the index note and the passages most relevant to a question,
never over a token budget, each with its note path, heading and line range."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..index.index import VaultIndex
from ..index.resolver import CONCEPT_PREFIX
from ..parse.parser import split_front_matter
from .bm25 import terms
from .corpus import Corpus, TextOf
from .passages import Passage
from .search import name_scores, note_scores
from .tokens import estimate_tokens

if TYPE_CHECKING:
    from ..related.vault import RelatedIndex

INDEX_SHARE = 0.25
NOTE_WEIGHT = 0.5  # a passage's text match grows by up to half with its note's
NEIGHBOUR_WEIGHT = 0.35  # a passage next to a match takes this much of the match's score
TIME_BOOST = 0.3  # a question about time: passages saying when grow by this share
DATE_BOOST = 0.5  # … and the notes dated in the month or year it names, by this one
GRAPH_BOOST = 0.3  # notes linked to, sharing a concept with or related to the best notes
NAME_WEIGHT = 0.5  # a note named by the query: each of its passages scores this much at least
GRAPH_SEEDS = 3  # the best notes whose neighbours are boosted
REFILLS = 4  # rounds of packing passages into what the printed body left
QUERY_SHOWN = 200  # characters of the query repeated in the header

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
TIME_QUESTION = re.compile(
    rf"\b(?:when|what (?:year|month|day|date|time)|how long|ago|since|until|before|after|"
    rf"yesterday|today|tomorrow|last|next|recently|dates?|dated|{_MONTH}|{_WEEKDAY}|"
    r"(?:19|20)\d\d|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
TIME_WORDS = re.compile(
    rf"\b(?:yesterday|today|tomorrow|tonight|ago|last|next|this (?:morning|week|weekend|"
    rf"month|year|summer|winter|spring|fall)|recently|{_MONTH}|{_WEEKDAY}|weekend|"
    r"(?:19|20)\d\d|\d{1,2}(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_MONTH_NAME = re.compile(rf"\b({_MONTH})\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PackedPassage:
    """A passage in a pack: where it is, its score, why it was chosen, what it costs."""

    passage: Passage
    score: float
    reasons: tuple[str, ...]
    tokens: int

    def to_json(self) -> dict[str, Any]:
        p = self.passage
        return {
            "note": p.note,
            "heading": list(p.heading),
            "lines": [p.first, p.last],
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class ContextPack:
    """A pack's Markdown ``text`` (at most ``budget`` tokens by ``estimate_tokens``) and
    what it holds: the index note (``index_note``, None when absent; ``index_lines`` of its
    ``index_total`` lines kept) and the ``passages``, in the order they are printed."""

    query: str
    budget: int
    text: str
    tokens: int
    index_note: str | None
    index_lines: int
    index_total: int
    passages: tuple[PackedPassage, ...]
    time_question: bool = False
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """What ``librarian context --json`` prints: the notes and passages (path, heading,
        lines, score, reasons, tokens) and the ``text``; only the text is held to the
        budget, the rest describes it."""
        return {
            "query": self.query,
            "budget": self.budget,
            "tokens": self.tokens,
            "time_question": self.time_question,
            "index_note": None
            if self.index_note is None
            else {"note": self.index_note, "lines": self.index_lines, "of": self.index_total},
            "notes": list(self.notes),
            "passages": [p.to_json() for p in self.passages],
            "text": self.text,
        }


def context_pack(
    index: VaultIndex,
    text_of: TextOf,
    query: str,
    budget: int,
    *,
    index_note: str = "MEMORY.md",
    related: RelatedIndex | None = None,
    index_share: float = INDEX_SHARE,
) -> ContextPack:
    """The pack for ``query`` within ``budget`` tokens (see the module's docstring).

    The index note comes first, cut to its first lines when it would take more than
    ``index_share`` of the budget. Then passages by score, best first, while they fit:
    BM25 over the passages, raised by the note's own match (BM25 over whole notes, its
    name), by a matching passage next to it, by links and shared concepts with the best
    notes (and RELATED_TO similarity when ``related`` is given), and, for a question about
    time, by saying when (time words) or by the note's date falling in a month or year
    the question names. Printed grouped by note, in line order. Ties go to the path and
    line, so the same index and question always give the same pack."""
    budget = max(int(budget), 0)
    with index.lock:
        index_rel = _find(index, index_note)
        rels = sorted(r for r in index.notes if r != index_rel)
    named = name_scores(index, rels, query)
    corpus = Corpus.build(index, text_of, rels, terms(query), keep={rels[i] for i in named})
    timed = bool(TIME_QUESTION.search(query))
    scored = _score(index, corpus, query, timed, related)

    index_lines: list[str] = []
    if index_rel is not None:
        whole = (text_of(index_rel) or "").lstrip("\ufeff")
        body = whole[split_front_matter(whole)[0] :].strip("\n")  # its front matter: no pointer
        index_lines = body.split("\n") if body else []
    how = _how(timed, related is not None)
    return _assemble(corpus, query, budget, index_rel, index_lines, index_share, scored, timed, how)


def _find(index: VaultIndex, name: str) -> str | None:
    """The index note: its vault path, in any case, ``.md`` optional."""
    if name in index.notes:
        return name
    folded = name.strip().strip("/").casefold()
    wanted = {folded, folded + ".md"}
    matches = sorted(r for r in index.notes if r.casefold() in wanted)
    return matches[0] if matches else None


def _score(
    index: VaultIndex,
    corpus: Corpus,
    query: str,
    timed: bool,
    related: RelatedIndex | None,
) -> list[tuple[float, int, tuple[str, ...]]]:
    """(score, passage index, reasons) of every passage worth packing, best first."""
    q_terms = terms(query)
    base = corpus.passage_bm25.scores(q_terms)
    top = max(base.values(), default=0.0)
    base = {p: s / top for p, s in base.items()} if top > 0 else {}
    named = name_scores(index, corpus.notes, query)
    notes = note_scores(corpus, q_terms, named)
    top_note = max(notes.values(), default=0.0)
    if top_note > 0:
        notes = {n: s / top_note for n, s in notes.items()}
    near = _graph_neighbours(index, corpus, notes, related)
    dated = _dated_notes(corpus, query) if timed else set()
    out = []
    for p, passage in enumerate(corpus.passages):
        n = corpus.note_of[p]
        reasons = []
        score = 0.0
        own = base.get(p, 0.0)
        if own > 0:
            score = own * (1.0 + NOTE_WEIGHT * notes.get(n, 0.0))
            reasons.append("text match")
        beside = max(
            (
                base.get(q, 0.0)
                for q in (p - 1, p + 1)
                if 0 <= q < len(corpus.passages) and corpus.note_of[q] == n
            ),
            default=0.0,
        )
        lifted = NEIGHBOUR_WEIGHT * beside * (1.0 + NOTE_WEIGHT * notes.get(n, 0.0))
        if lifted > score:
            score = lifted
            reasons.append("next to a match")
        if n in named and NAME_WEIGHT * named[n] > score:
            score = NAME_WEIGHT * named[n]  # the query names the note: its passages too
            reasons.append("note named")
        if score <= 0:
            continue
        boost = 1.0
        if n in near:
            boost += GRAPH_BOOST
            reasons.append(near[n])
        if timed and TIME_WORDS.search(passage.text):
            boost += TIME_BOOST
            reasons.append("says when")
        if n in dated:
            boost += DATE_BOOST
            reasons.append("dated as asked")
        out.append((score * boost, p, tuple(reasons)))
    out.sort(
        key=lambda item: (-item[0], corpus.passages[item[1]].note, corpus.passages[item[1]].first)
    )
    return out


def _graph_neighbours(
    index: VaultIndex,
    corpus: Corpus,
    notes: dict[int, float],
    related: RelatedIndex | None,
) -> dict[int, str]:
    """Note index → why it is near the best notes: linked to one, sharing a concept with
    one, or related to one."""
    seeds = sorted(notes, key=lambda n: (-notes[n], corpus.notes[n]))[:GRAPH_SEEDS]
    row = {rel: i for i, rel in enumerate(corpus.notes)}
    near: dict[int, str] = {}
    with index.lock:
        for s in seeds:
            rel = corpus.notes[s]
            linked = set(index.out_edges.get(rel, {})) | set(index.in_edges.get(rel, {}))
            for other in sorted(linked):
                if other in row and row[other] not in seeds:
                    near.setdefault(row[other], f"linked with {rel}")
            concepts = {t for t in index.out_edges.get(rel, {}) if t.startswith(CONCEPT_PREFIX)}
            for c in sorted(concepts):
                for other in sorted(index.in_edges.get(c, {})):
                    if other in row and row[other] not in seeds:
                        near.setdefault(row[other], f"shares {c[len(CONCEPT_PREFIX) :]} with {rel}")
    if related is not None:
        for s in seeds:
            rel = corpus.notes[s]
            for found in related.related(rel, 0.15):
                if found.note in row and row[found.note] not in seeds:
                    near.setdefault(row[found.note], f"related to {rel}")
    return near


def _dated_notes(corpus: Corpus, query: str) -> set[int]:
    """Notes dated in a year, or a month (of that year when one is named) the query names."""
    years = {int(y) for y in _YEAR.findall(query)}
    months = set()
    for m in _MONTH_NAME.findall(query):
        if m == "may":
            continue  # the verb; the month is written May
        months.add(_MONTHS.index(m.casefold()[:3]) + 1)
    if not years and not months:
        return set()
    return {
        n
        for n, d in enumerate(corpus.dates)
        if (not years or d.year in years) and (not months or d.month in months)
    }


# ------------------------------------------------------------------ assembling


def _how(timed: bool, similar: bool) -> str:
    """What the passages were chosen by, as the header says it."""
    how = "text match (BM25) over passages and notes, neighbouring passages, links and shared "
    how += "concepts, similarity (related notes)" if similar else "concepts"
    if timed:
        how += ", and (a question about time) words saying when and the notes' dates"
    return how


def _header(
    query: str, budget: int, used: int, index_part: str, count: int, notes: int, how: str
) -> str:
    q = query if len(query) <= QUERY_SHOWN else query[: QUERY_SHOWN - 1] + "…"
    return (
        f"# Context for: {q}\n"
        f"Within {budget} tokens (estimated; {used} used): {index_part}; "
        f"{_plural(count, 'passage')} from {_plural(notes, 'note')}, chosen by {how}. "
        "Each passage: note path (date), heading, lines.\n"
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _index_block(rel: str, lines: Sequence[str], kept: int) -> str:
    body = "\n".join(lines[:kept])
    more = f"\n… ({len(lines) - kept} more lines)" if kept < len(lines) else ""
    return f"\n## {rel} (index note)\n{body}{more}\n"


def _note_block(corpus: Corpus, n: int) -> str:
    d = corpus.dates[n].isoformat()
    src = "" if corpus.date_sources[n] != "mtime" else ", file time"
    return f"\n## {corpus.notes[n]} ({d}{src})\n"


@functools.lru_cache(maxsize=1 << 16)
def _passage_cost(p: Passage) -> int:
    """A passage's block, label shown, as estimated (kept: questions reuse passages)."""
    return estimate_tokens(_passage_block(p, True))


def _passage_block(p: Passage, heading_shown: bool) -> str:
    where = f"lines {p.first}–{p.last}" if p.last != p.first else f"line {p.first}"
    label = f"{where} · {p.heading_text}" if heading_shown and p.heading else where
    return f"[{label}]\n{p.text}\n"


def _body(
    corpus: Corpus,
    index_rel: str | None,
    index_lines: Sequence[str],
    kept: int,
    chosen: Sequence[int],
) -> tuple[str, list[int], list[int]]:
    """The pack below its header, the passages in print order, and the notes in print
    order: notes in the order of their best passage; in a note, passages in line order,
    and neighbours (nothing but blank lines between, the same heading) under one label."""
    by_note: dict[int, list[int]] = {}
    for p in chosen:
        by_note.setdefault(corpus.note_of[p], []).append(p)
    parts = []
    if index_rel is not None and kept > 0:
        parts.append(_index_block(index_rel, index_lines, kept))
    order: list[int] = []
    for n, ps in by_note.items():
        parts.append(_note_block(corpus, n))
        runs: list[list[int]] = []
        for p in sorted(ps):  # passage order is file order within a note
            run = runs[-1] if runs else None
            if (
                run
                and p == run[-1] + 1
                and corpus.passages[p].heading == corpus.passages[run[-1]].heading
            ):
                run.append(p)
            else:
                runs.append([p])
        last_heading: tuple[str, ...] | None = None
        for run in runs:
            first, last = corpus.passages[run[0]], corpus.passages[run[-1]]
            parts.append(
                _run_block(
                    first,
                    last.last,
                    [corpus.passages[p].text for p in run],
                    first.heading != last_heading,
                )
            )
            last_heading = first.heading
            order.extend(run)
    return "".join(parts), order, list(by_note)


def _run_block(first: Passage, last_line: int, texts: Sequence[str], heading_shown: bool) -> str:
    where = (
        f"lines {first.first}–{last_line}" if last_line != first.first else f"line {first.first}"
    )
    label = f"{where} · {first.heading_text}" if heading_shown and first.heading else where
    body = "\n\n".join(texts)
    return f"[{label}]\n{body}\n"


def _assemble(
    corpus: Corpus,
    query: str,
    budget: int,
    index_rel: str | None,
    index_lines: list[str],
    index_share: float,
    scored: list[tuple[float, int, tuple[str, ...]]],
    timed: bool,
    how: str,
) -> ContextPack:
    """Reserve the header at its widest, then the index note within its share, then fill
    the rest with passages by score; the body printed is often shorter than reserved
    (neighbours share a label, a note its heading), so passages are added again into what
    is left until none fits. The header and the body meet at a newline, so their
    estimates add up to a bound of the whole (``tokens``)."""
    wide = 10 ** len(str(budget)) - 1 if budget else 9
    widest = f"the index note {index_rel} ({wide} of {wide} lines)"
    room = budget - estimate_tokens(_header(query, budget, wide, widest, wide, wide, how))
    if room < 0:
        return ContextPack(query, budget, "", 0, index_rel, 0, len(index_lines), (), timed)
    kept = 0
    if index_rel is not None and index_lines:
        share = min(room, int(budget * index_share))
        kept = len(index_lines)
        while kept > 0 and estimate_tokens(_index_block(index_rel, index_lines, kept)) > share:
            kept -= 1
    chosen: list[int] = []
    taken: set[int] = set()
    costs: dict[int, int] = {}  # passage → its block's estimate, label shown
    heads: dict[int, int] = {}  # note → its heading block's
    for _ in range(REFILLS):
        body, order, note_order = _body(corpus, index_rel, index_lines, kept, chosen)
        spare = room - estimate_tokens(body)
        notes = {corpus.note_of[p] for p in chosen}
        added = False
        for _, p, _ in scored:
            if p in taken:
                continue
            n = corpus.note_of[p]
            if p not in costs:
                costs[p] = _passage_cost(corpus.passages[p])
            cost = costs[p]
            if n not in notes:
                if n not in heads:
                    heads[n] = estimate_tokens(_note_block(corpus, n))
                cost += heads[n]
            if cost <= spare:
                spare -= cost
                chosen.append(p)
                taken.add(p)
                notes.add(n)
                added = True
        if not added:
            break
    reasons = {p: (s, r) for s, p, r in scored}
    while True:
        body, order, note_order = _body(corpus, index_rel, index_lines, kept, chosen)
        if index_rel is None:
            index_part = "no index note"
        elif kept == len(index_lines):
            index_part = f"the index note {index_rel} (whole)"
        else:
            index_part = f"the index note {index_rel} ({kept} of {len(index_lines)} lines)"
        used = 0
        for _ in range(4):  # the header prints what the text uses: settle the number
            header = _header(query, budget, used, index_part, len(order), len(note_order), how)
            text = header + body
            if estimate_tokens(text) == used:
                break
            used = estimate_tokens(text)
        used = estimate_tokens(text)
        if used <= budget:
            break
        if chosen:  # a safety net only: the reserved costs above already bound the text
            chosen.pop()
        elif kept:
            kept -= 1
        else:
            return ContextPack(query, budget, "", 0, index_rel, 0, len(index_lines), (), timed)
    packed = tuple(
        PackedPassage(
            corpus.passages[p],
            reasons[p][0],
            reasons[p][1],
            costs[p],
        )
        for p in order
    )
    return ContextPack(
        query,
        budget,
        text,
        used,
        index_rel,
        kept,
        len(index_lines),
        packed,
        timed,
        tuple(corpus.notes[n] for n in note_order),
    )
