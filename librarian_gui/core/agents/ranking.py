"""The ranking context packs and agent search share (issue 27): every passage of the notes a
question looks at, scored, with the reasons it is there.

A passage's score is its BM25 match (the query's words, grown by pseudo-relevance feedback
from the best passages' words, and the concepts it names spelled by any of their aliases),
half its own and half that of the runs of adjacent passages holding it (proximity: a
question's words spread over consecutive turns count together), raised by its note's match
(whole note, name); a passage next to a match takes part of the match's score, more when it
answers the match's question or points back to it; speaker names are not evidence but
prefer that speaker's lines; the best notes lift the notes they link, share a concept with
or are related to; and a question about time lifts passages saying when, the lines that
are only a date above a match, and notes dated as asked (the month or year it names, and
most the notes dated nearest a day it names)."""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexIdentity, IndexView
from ..text.analyzer import terms
from .aliases import concept_scores
from .bm25 import K1, B
from .corpus import Corpus
from .passages import Passage
from .speakers import line_label

if TYPE_CHECKING:
    from ..parse.records import NoteRecord
    from ..related.vault import RelatedIndex

WELL_COVERED = 0.4  # the share of a question's word weight one passage or note must hold
NOT_ANSWERED = "nothing in memory answers this well"

# Weights of a note's score: its whole text's BM25, its best passage's, its name's fuzzy
# match (each scaled to 0..1 over the hits first).
NOTE_SEARCH_WEIGHT = 0.5
PASSAGE_SEARCH_WEIGHT = 0.5
NAME_SEARCH_WEIGHT = 1.0
NAME_FLOOR = 80.0  # rapidfuzz ratio below which a name does not count as matched

NOTE_WEIGHT = 0.5  # a passage's text match grows by up to half with its note's
NEIGHBOUR_WEIGHT = 0.35  # a passage next to a match takes this much of the match's score
ANSWER_WEIGHT = 0.7  # … and one answering its question or pointing back to it, this much
TIME_BOOST = 0.3  # a question about time: passages saying when grow by this share
DATELINE_WEIGHT = 0.7  # … and a line that is only a date takes this much of a match it dates
DATE_BOOST = 0.5  # … and the notes dated in the month or year it names, by this one
DAY_BOOST = 0.5  # … and the notes dated nearest a day it names (within DAY_SPAN), by this one
DAY_SPAN = 7
DATELINE_CHARS = 100  # a dateline is a passage this long at most
GRAPH_BOOST = 0.3  # notes linked to, sharing a concept with or related to the best notes
NAME_WEIGHT = 0.5  # a note named by the query: each of its passages scores this much at least
FEEDBACK_PASSAGES = 5  # pseudo-relevance feedback: the best passages whose words join the query
FEEDBACK_TERMS = 10  # … how many of their words (by tf × idf)
FEEDBACK_WEIGHT = 0.3  # … each weighing this much of a query's word at most
CONCEPT_WEIGHT = 1.0  # a concept the query names, spelled by any alias, weighs as its words
SPEAKER_BOOST = 0.3  # a question naming a speaker: that speaker's passages grow by this share
SPEAKER_ONLY = 0.05  # … and those matching by the name alone, this much, to fill a budget
GRAPH_SEEDS = 3  # the best notes whose neighbours are boosted
# Proximity: a matching passage's score is half its own BM25 and half the mean, over these
# sizes, of the best BM25 of a window of that many adjacent passages holding it (same note,
# same heading, no date line), the window scored as one text: the words of a question
# spread over two or three turns of a conversation count together.
WINDOW_SIZES = (2, 3)
WINDOW_WEIGHT = 0.5

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
TIME_QUESTION = re.compile(
    rf"\b(?:when|what (?:year|month|day|date|time)|how long|ago|since|until|before|after|"
    r"first time|"
    rf"yesterday|today|tomorrow|last|next|recently|dates?|dated|{_MONTH}|{_WEEKDAY}|"
    r"(?:19|20)\d\d|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
TIME_WORDS = re.compile(
    rf"\b(?:yesterday|today|tomorrow|tonight|ago|last|next|this (?:morning|week|weekend|"
    rf"month|year|summer|winter|spring|fall)|recently|{_MONTH}|{_WEEKDAY}|weekend|"
    r"(?:19|20)\d\d|\d{1,2}(?:st|nd|rd|th)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple of)"
    r"\s+(?:days?|weeks?|months?|years?))\b",
    re.IGNORECASE,
)
_TIME_WORDS_LOWER = re.compile(TIME_WORDS.pattern)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_DAY_MONTH = re.compile(
    rf"\b(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH})|"
    rf"(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?)\b,?(?:\s+(?P<y>(?:19|20)\d\d))?",
    re.IGNORECASE,
)
_DAY_SHORT = re.compile(r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b", re.IGNORECASE)
# A calendar date written with a month name or in digits ("3 March", "2026-03-03", "3/14")
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|"
    r"(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)?\d\d|"
    r"\d{1,2}/\d{1,2})\b",
    re.IGNORECASE,
)
_MONTH_NAME = re.compile(rf"\b({_MONTH})\b", re.IGNORECASE)


def score_passages(
    index: IndexView,
    corpus: Corpus,
    query: str,
    timed: bool,
    related: RelatedIndex | None,
) -> list[tuple[float, int, tuple[str, ...]]]:
    """(score, passage index, reasons) of every passage worth packing, best first."""
    q_terms, people = corpus.split_names(corpus.in_vault(terms(query)))
    spelled = {
        p: CONCEPT_WEIGHT * s
        for p, s in concept_scores(
            index.concepts, query, [p.text for p in corpus.passages], corpus.passage_bm25
        ).items()
    }
    plain = corpus.passage_bm25.scores(q_terms)
    asked = _added(plain, spelled)
    grown, words, weights = _feedback(corpus, q_terms, asked)
    matched = _added(grown, spelled)
    base = _windowed(corpus, matched, words, weights)
    top = max(base.values(), default=0.0)
    base = {p: s / top for p, s in base.items()} if top > 0 else {}
    named = name_scores(index, corpus.notes, query)
    notes = note_scores(corpus, q_terms, named, spelled, _note_concepts(index, corpus, query))
    top_note = max(notes.values(), default=0.0)
    if top_note > 0:
        notes = {n: s / top_note for n, s in notes.items()}
    near = _graph_neighbours(index, corpus, notes, related)
    dated = _dated_notes(corpus, query) if timed else set()
    on_day = _day_notes(corpus, query) if timed else set()
    dating = _datelines(corpus, base) if timed else {}
    out = []
    for p, passage in enumerate(corpus.passages):
        n = corpus.note_of[p]
        reasons = []
        score = 0.0
        own = base.get(p, 0.0)
        if own > 0:
            score = own * (1.0 + NOTE_WEIGHT * notes.get(n, 0.0))
            if p in plain:
                reasons.append("text match")
            elif p in spelled:
                reasons.append("names a concept asked")
            else:
                reasons.append("words of the best matches")
        beside, why = 0.0, "next to a match"
        for q in (p - 1, p + 1):
            if 0 <= q < len(corpus.passages) and corpus.note_of[q] == n and q in base:
                weight, said = _continues(corpus.passages[min(p, q)], corpus.passages[max(p, q)])
                if q < p and weight * base[q] > beside:
                    beside, why = weight * base[q], said or why
                elif q > p and _ANAPHOR.match(_opening(corpus.passages[q].text)):
                    if ANSWER_WEIGHT * base[q] > beside:
                        beside, why = ANSWER_WEIGHT * base[q], "a match points back to it"
                elif q > p and NEIGHBOUR_WEIGHT * base[q] > beside:
                    beside, why = NEIGHBOUR_WEIGHT * base[q], why
        q = p - 2
        if q in base and NEIGHBOUR_WEIGHT * base[q] > beside and _goes_on(corpus, q, p):
            beside, why = NEIGHBOUR_WEIGHT * base[q], "its speaker goes on from a match"
        if DATELINE_WEIGHT * dating.get(p, 0.0) > beside:
            beside, why = DATELINE_WEIGHT * dating[p], "dates a match"
        lifted = beside * (1.0 + NOTE_WEIGHT * notes.get(n, 0.0))
        if lifted > score:
            score = lifted
            reasons.append(why)
        by = people & corpus.passage_speakers[p]
        if by and score <= 0:  # the name alone: last, best notes first, to fill the budget
            score = SPEAKER_ONLY * (1.0 + NOTE_WEIGHT * notes.get(n, 0.0))
        if n in named and NAME_WEIGHT * named[n] > score:
            score = NAME_WEIGHT * named[n]  # the query names the note: its passages too
            reasons.append("note named")
        if score <= 0:
            continue
        boost = 1.0
        if by:
            boost += SPEAKER_BOOST
            reasons.append("said by " + ", ".join(sorted(by)))
        if n in near:
            boost += GRAPH_BOOST
            reasons.append(near[n])
        if timed and says_when(passage.text):
            boost += TIME_BOOST
            reasons.append("says when")
        if n in dated:
            boost += DATE_BOOST
            reasons.append("dated as asked")
        if n in on_day:
            boost += DAY_BOOST
            reasons.append("dated nearest the day asked")
        out.append((score * boost, p, tuple(reasons)))
    out.sort(
        key=lambda item: (-item[0], corpus.passages[item[1]].note, corpus.passages[item[1]].first)
    )
    return out


_ANAPHOR = re.compile(
    r"(?:it|its|it's|that|this|these|those|they|them|their|she|her|he|him|his|there|"
    r"yes|yeah|yep|no|nope|sure|so|and|but|also|then)\b",
    re.IGNORECASE,
)


def answers_well(index: IndexView, corpus: Corpus, query: str) -> bool:
    """Whether anything in ``corpus`` answers ``query`` well: a query naming only speakers,
    a note named by it, or one passage or note holding ``WELL_COVERED`` of what its words
    weigh (their idf over the passages, each word as the vault writes it: ``in_vault``; a
    word the vault uses in no form weighs the most). An empty query lists notes: well. A
    query of stop words only matches nothing, unless it names a note."""
    if not query.strip():
        return True  # nothing asked: the newest notes are the answer
    evidence, people = corpus.split_names(corpus.in_vault(terms(query)))
    q_terms = list(dict.fromkeys(evidence))
    if not q_terms:
        return bool(name_scores(index, corpus.notes, query))
    if set(q_terms) <= people:
        return True  # only who: their lines are the answer
    if name_scores(index, corpus.notes, query):
        return True
    bm25 = corpus.passage_bm25
    weight = {t: bm25.idf(t) for t in q_terms}
    total = sum(weight.values())
    if total <= 0:
        return True  # every word in every passage: nothing to tell apart
    held: dict[int, float] = {}
    for t in q_terms:
        for doc, _ in bm25.postings(t):
            held[doc] = held.get(doc, 0.0) + weight[t]
    best = max(held.values(), default=0.0)
    if best >= WELL_COVERED * total:
        return True
    by_note: dict[int, float] = {}
    for t in q_terms:
        for doc, _ in corpus.note_bm25.postings(t):
            by_note[doc] = by_note.get(doc, 0.0) + weight[t]
    return max(by_note.values(), default=0.0) >= WELL_COVERED * total


def _added(scores: dict[int, float], more: dict[int, float]) -> dict[int, float]:
    if not more:
        return scores
    out = dict(scores)
    for k, v in more.items():
        out[k] = out.get(k, 0.0) + v
    return out


def _note_concepts(index: IndexView, corpus: Corpus, query: str) -> dict[int, float]:
    """Whole notes' BM25 part of the concepts the query names (``concept_scores``)."""
    found = concept_scores(index.concepts, query, corpus.texts, corpus.note_bm25)
    return {n: CONCEPT_WEIGHT * s for n, s in found.items()}


def _feedback(
    corpus: Corpus, q_terms: list[str], base: dict[int, float]
) -> tuple[dict[int, float], list[str], dict[str, float]]:
    """Pseudo-relevance feedback: when no passage holds every word of the query (the
    answer may say it in other words), the query grown by the words that weigh most in
    its best passages (tf × idf), each at most ``FEEDBACK_WEIGHT`` of a query word. The
    scores returned are the words' alone (a caller adds what else it matched), with the
    words and their weights (1 when absent)."""
    best = sorted(base, key=lambda p: (-base[p], p))[:FEEDBACK_PASSAGES]
    wanted = set(q_terms)
    if not best or any(wanted <= set(corpus.passage_terms[p]) for p in best):
        return corpus.passage_bm25.scores(q_terms), list(q_terms), {}
    weight: dict[str, float] = {}
    asked = set(q_terms)
    top = base[best[0]]
    for p in best:
        share = base[p] / top
        for t in set(corpus.passage_terms[p]):
            if t not in asked and t not in corpus.speaker_terms:
                weight[t] = weight.get(t, 0.0) + share * corpus.passage_bm25.idf(t)
    grown = sorted(weight, key=lambda t: (-weight[t], t))[:FEEDBACK_TERMS]
    if not grown:
        return corpus.passage_bm25.scores(q_terms), list(q_terms), {}
    most = weight[grown[0]]
    weights = {t: FEEDBACK_WEIGHT * weight[t] / most for t in grown}
    words = [*q_terms, *grown]
    return corpus.passage_bm25.scores(words, weights), words, weights


def _windowed(
    corpus: Corpus, own: dict[int, float], words: list[str], weights: dict[str, float]
) -> dict[int, float]:
    """Passage → its match with proximity, for the passages that match (``own``):
    ``1 - WINDOW_WEIGHT`` of its own score and ``WINDOW_WEIGHT`` of the mean, over
    ``WINDOW_SIZES``, of the best window of that size holding it (``_windows``). A passage
    without a whole window of a size (a short note or section) takes its own score for it.
    A passage matching nothing gets nothing here: only the neighbour rules bring it in."""
    if not WINDOW_SIZES or WINDOW_WEIGHT <= 0:
        return own
    found = [_windows(corpus, words, weights, size) for size in WINDOW_SIZES]
    out: dict[int, float] = {}
    for p, mine in own.items():
        near = sum(f.get(p, mine) for f in found) / len(found)
        out[p] = (1.0 - WINDOW_WEIGHT) * mine + WINDOW_WEIGHT * near
    return out


def _windows(
    corpus: Corpus, words: list[str], weights: dict[str, float], size: int
) -> dict[int, float]:
    """Passage → the best BM25 of ``words`` over a window of ``size`` adjacent passages
    holding it, all of one note and heading, scored as one text (term counts and lengths
    added, the mean length ``size`` times the passages'). Only windows holding a word;
    a passage without a whole window of that size is left out."""
    bm25 = corpus.passage_bm25
    held: dict[int, dict[str, int]] = {}
    for t in dict.fromkeys(words):
        for doc, times in bm25.postings(t):
            held.setdefault(doc, {})[t] = times
    idf = {t: bm25.idf(t) * weights.get(t, 1.0) for t in dict.fromkeys(words)}
    mean = size * (bm25.mean_length or 1.0)
    count = len(corpus.passages)
    starts = {a for p in held for a in range(max(0, p - size + 1), p + 1)}
    out: dict[int, float] = {}
    for a in sorted(starts):
        b = a + size  # the window: passages a .. b - 1
        if b > count or not _one_unit(corpus, a, b):
            continue
        counts: dict[str, int] = {}
        for q in range(a, b):
            for t, n in held.get(q, {}).items():
                counts[t] = counts.get(t, 0) + n
        length = sum(bm25.lengths[a:b])
        norm = K1 * (1.0 - B + B * length / mean)
        score = sum(idf[t] * n * (K1 + 1.0) / (n + norm) for t, n in counts.items())
        for q in range(a, b):
            if score > out.get(q, 0.0):
                out[q] = score
    return out


def _one_unit(corpus: Corpus, a: int, b: int) -> bool:
    """Whether passages ``a`` .. ``b - 1`` are all of one note and under one heading, and
    none is a line that is only a date (``_is_dateline``): such a line opens the next
    entry of a journal, and whether it joins a pack is for a question about time to say."""
    note, heading = corpus.note_of[a], corpus.passages[a].heading
    return all(
        corpus.note_of[q] == note
        and corpus.passages[q].heading == heading
        and not _is_dateline(corpus.passages[q].text)
        for q in range(a, b)
    )


def _goes_on(corpus: Corpus, match: int, p: int) -> bool:
    """Whether passage ``p``, two after ``match`` under one heading of one note, is its
    speaker going on after the other's reply: in a conversation a turn that matches is
    often followed, one reply later, by the same person saying more of it ("I went to a
    support group" · "What happened?" · "The stories were so inspiring"). Not after a
    question: the turn between answers it, and the asker's next turn is about the answer."""
    said = corpus.passage_speakers[p]
    return (
        bool(said)
        and not corpus.passages[match].text.rstrip().endswith("?")
        and corpus.passage_speakers[match] == said
        and corpus.passage_speakers[match + 1] != said
        and _one_unit(corpus, match, p + 1)
    )


def _continues(before: Passage, after: Passage) -> tuple[float, str | None]:
    """How much of ``before``'s match ``after``, the passage that follows it, takes: an
    answer to the question ``before`` ends with, or a passage that opens by pointing back
    (a pronoun, "yes", "and"), takes more than a plain neighbour."""
    if before.text.rstrip().endswith("?"):
        return ANSWER_WEIGHT, "answers a match"
    body = _opening(after.text)
    if _ANAPHOR.match(body):
        return ANSWER_WEIGHT, "continues a match"
    return NEIGHBOUR_WEIGHT, None


def _opening(text: str) -> str:
    """The first words of a passage past its speaker label and markup."""
    line = text.lstrip()
    found = line_label(line)
    if found is not None:
        line = line[found[1] :]
    return line.lstrip(" \t*_>-")


def _datelines(corpus: Corpus, base: dict[int, float]) -> dict[int, float]:
    """Dateline passage → the best match it dates. A passage that is nothing but a date
    ("March 3, 2026", "**Tue 2026-03-03**") dates the passages after it under the same
    heading, up to the next such line: a journal writes the day once, above its events.
    A match that says when itself needs no dateline."""
    out: dict[int, float] = {}
    line: int | None = None
    for p, passage in enumerate(corpus.passages):
        if line is not None and (
            corpus.note_of[line] != corpus.note_of[p]
            or corpus.passages[line].heading != passage.heading
        ):
            line = None
        if _is_dateline(passage.text):
            # the note's own date is printed above its passages: that line adds nothing
            line = None if _date_in(passage.text, corpus.dates[corpus.note_of[p]]) else p
        elif line is not None and p in base and not says_when(passage.text):
            out[line] = max(out.get(line, 0.0), base[p])
    return out


def says_when(text: str) -> bool:
    """Whether ``text`` holds a time word or a date (``TIME_WORDS``). Matched on the text
    in lower case, where the pattern needs no case folding: three times faster than
    ``TIME_WORDS`` itself, which a question about time runs over every passage it scores."""
    return _TIME_WORDS_LOWER.search(text.lower()) is not None


def _is_dateline(text: str) -> bool:
    """Whether ``text`` says a date and nothing else (markup and punctuation aside): a
    short passage (``DATELINE_CHARS`` at most; looking for a date in every long one was a
    fifth of a question about time)."""
    if len(text) > DATELINE_CHARS or not _DATE.search(text):
        return False
    rest = _DAY_SHORT.sub(" ", TIME_WORDS.sub(" ", _DATE.sub(" ", text)))
    return not any(c.isalpha() for c in rest)


def _date_in(text: str, day: _dt.date) -> bool:
    """Whether ``text`` writes ``day`` (ISO, or day and month by name, in either order,
    with the year or without)."""
    if day.isoformat() in text:
        return True
    month = _MONTHS[day.month - 1]
    for m in _DAY_MONTH.finditer(text):
        d, name, d2, year = m.group("d"), m.group("m"), m.group("d2"), m.group("y")
        name = name or m.group("m2")
        if (
            name.casefold()[:3] == month
            and int(d or d2) == day.day
            and (year is None or int(year) == day.year)
        ):
            return True
    return False


def _graph_neighbours(
    index: IndexView,
    corpus: Corpus,
    notes: dict[int, float],
    related: RelatedIndex | None,
) -> dict[int, str]:
    """Note index → why it is near the best notes: linked to one, sharing a concept with
    one, or related to one."""
    seeds = sorted(notes, key=lambda n: (-notes[n], corpus.notes[n]))[:GRAPH_SEEDS]
    row = {rel: i for i, rel in enumerate(corpus.notes)}
    near: dict[int, str] = {}
    index = index.snapshot()
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


def _day_notes(corpus: Corpus, query: str) -> set[int]:
    """The notes dated nearest a day the query names ("on 3 June, 2023", "May 23"), at
    most ``DAY_SPAN`` days from it: a diary's entry of that day, or the first written
    about it. A day named without its year is looked for in each year the notes span."""
    out: set[int] = set()
    years = sorted({d.year for d in corpus.dates})
    for m in _DAY_MONTH.finditer(query):
        written = m.group("m") or m.group("m2")
        if written == "may":
            continue  # the verb ("they may 2 …"); the month is written May
        day = int(m.group("d") or m.group("d2"))
        month = _MONTHS.index(written.casefold()[:3]) + 1
        asked = []
        for year in [int(m.group("y"))] if m.group("y") else years:
            try:
                asked.append(_dt.date(year, month, day))
            except ValueError:
                continue
        for when in asked:
            gaps = {n: abs((d - when).days) for n, d in enumerate(corpus.dates)}
            near = min(gaps.values(), default=DAY_SPAN + 1)
            if near <= DAY_SPAN:
                out.update(n for n, gap in gaps.items() if gap == near)
    return out


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


def ranked_notes(
    index: IndexView, corpus: Corpus, query: str, related: RelatedIndex | None = None
) -> tuple[dict[int, float], dict[int, tuple[int, tuple[str, ...]]]]:
    """Note index → its score in agent search: its whole text's BM25 (speaker names out)
    and its best passage by ``score_passages`` (each scaled to 0..1 over the hits), and how
    well its name matches the query (``name_scores``); and the best passage of each (its
    index, for the lines and reasons a hit shows)."""
    timed = bool(TIME_QUESTION.search(query))
    best: dict[int, float] = {}
    top_passage: dict[int, tuple[int, tuple[str, ...]]] = {}
    for score, p, reasons in score_passages(index, corpus, query, timed, related):
        n = corpus.note_of[p]
        if score > best.get(n, 0.0):
            best[n] = score
            top_passage[n] = (p, reasons)
    whole = _scaled(
        _added(
            corpus.note_bm25.scores(corpus.split_names(corpus.in_vault(terms(query)))[0]),
            _note_concepts(index, corpus, query),
        )
    )
    best = _scaled(best)
    names = name_scores(index, corpus.notes, query)
    return {
        n: NOTE_SEARCH_WEIGHT * whole.get(n, 0.0)
        + PASSAGE_SEARCH_WEIGHT * best.get(n, 0.0)
        + NAME_SEARCH_WEIGHT * names.get(n, 0.0)
        for n in set(whole) | set(best) | set(names)
    }, top_passage


def note_scores(
    corpus: Corpus,
    q_terms: Sequence[str],
    names: dict[int, float],
    passage_concepts: dict[int, float] | None = None,
    note_concepts: dict[int, float] | None = None,
) -> dict[int, float]:
    """Note index → its score (see ``agent_search``); the concepts the query names add
    their part (``concept_scores``) to the passages' and whole notes' BM25."""
    whole = _scaled(_added(corpus.note_bm25.scores(q_terms), note_concepts or {}))
    best: dict[int, float] = {}
    for p, s in _added(corpus.passage_bm25.scores(q_terms), passage_concepts or {}).items():
        n = corpus.note_of[p]
        if s > best.get(n, 0.0):
            best[n] = s
    best = _scaled(best)
    out: dict[int, float] = {}
    for n in set(whole) | set(best) | set(names):
        out[n] = (
            NOTE_SEARCH_WEIGHT * whole.get(n, 0.0)
            + PASSAGE_SEARCH_WEIGHT * best.get(n, 0.0)
            + NAME_SEARCH_WEIGHT * names.get(n, 0.0)
        )
    return out


def _scaled(scores: dict[int, float]) -> dict[int, float]:
    top = max(scores.values(), default=0.0)
    return {k: v / top for k, v in scores.items()} if top > 0 else {}


def name_scores(index: IndexView, notes: Sequence[str], query: str) -> dict[int, float]:
    """Note index → 0..1 for a title or alias close to the whole query (a query naming a
    note: "token bucket", "tokenizer quirks"), from rapidfuzz's ratio at ``NAME_FLOOR``."""
    q = _name_key(query)
    if not q:
        return {}
    owners, keys, lengths = _names_of(index, notes)
    # fuzz.ratio is 2 × matches / (both lengths): past the floor, a name's length is within
    # these bounds of the query's, so only those names (a slice: sorted by length) are
    # compared.
    share = NAME_FLOOR / 100.0
    low = bisect.bisect_left(lengths, len(q) * share / (2.0 - share) - 1e-9)
    high = bisect.bisect_right(lengths, len(q) * (2.0 - share) / share + 1e-9)
    out: dict[int, float] = {}
    # One pass in C over the names left, keeping only the names at the floor.
    for _, best, k in process.extract(
        q, keys[low:high], scorer=fuzz.ratio, score_cutoff=NAME_FLOOR, limit=None
    ):
        score = (best - NAME_FLOOR) / (100.0 - NAME_FLOOR) * 0.5 + 0.5
        owner = owners[low + k]
        if score > out.get(owner, 0.0):
            out[owner] = score
    return out


def learn_names(index: IndexView) -> None:
    """Find the match keys of every note's names now (``_names_of`` over the whole vault,
    sorted, as a search without filters asks), ahead of the first question, which would
    otherwise read them all (10,000 notes: 0.2 s)."""
    index = index.snapshot()
    _names_of(index, index.sorted_notes())


def _names_of(index: IndexView, notes: Sequence[str]) -> tuple[list[int], list[str], list[int]]:
    """The match keys of the names (title, aliases) of ``notes``, shortest first: their
    owners (an index into ``notes``), the keys, and their lengths. Kept per open index for
    every note of the vault (a search without filters asks about them all): when those
    notes' records are the same objects, the lists are reused, checked in C, not rebuilt in
    a loop over the vault (10,000 notes: 10 ms a question)."""
    wanted = tuple(notes)
    index = index.snapshot()
    records = list(map(index.notes.get, wanted))
    whole = len(wanted) == len(index.notes)
    with _NAMES_LOCK:
        kept = _NAMES.get(index.identity)
    if whole and kept is not None and kept[0] == wanted and kept[1] == records:
        return kept[2], kept[3], kept[4]
    # The first time in this process, the keys the last process kept (``names_cache``).
    stored = _stored_names(index) if whole and kept is None else None
    if stored is None:
        found = sorted(
            (len(key), i, key)
            for i, record in enumerate(records)
            if record is not None
            for key in _record_keys(record.title, record.aliases)
        )
    else:
        found = sorted(
            (len(key), i, key)
            for i, record in enumerate(records)
            if record is not None
            for key in _stored_keys(stored, record)
        )
        if stored.missed:
            _keep_names(index, records)
    owners = [i for _, i, _ in found]
    keys = [key for _, _, key in found]
    lengths = [n for n, _, _ in found]
    if whole:
        with _NAMES_LOCK:
            _NAMES[index.identity] = (wanted, records, owners, keys, lengths)
    return owners, keys, lengths


@functools.lru_cache(maxsize=65536)
def _record_keys(title: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_name_key(n) for n in (title, *aliases) if n)


class _Stored(dict[str, tuple[object, tuple[str, ...]]]):
    """The keys a last process kept (note → its file's stamp, its keys), and how many
    notes they did not answer for (``missed``: worked out again)."""

    missed = 0


def _stored_names(index: IndexView) -> _Stored | None:
    """The keys the last process kept for this vault (none kept: empty), or None when the
    index keeps no cache."""
    if not index.identity.use_cache:
        return None
    from .names_cache import load_names

    return _Stored(load_names(index.root, _name_key))


def _stored_keys(stored: _Stored, record: NoteRecord) -> tuple[str, ...]:
    got = stored.get(record.path)
    if got is not None and got[0] == record.stamp:
        return got[1]
    stored.missed += 1
    return _record_keys(record.title, record.aliases)


def _keep_names(index: IndexView, records: Sequence[NoteRecord | None]) -> None:
    """Keep every note's keys for the next process (``names_cache``)."""
    from .names_cache import save_names

    kept = {r.path: (r.stamp, _record_keys(r.title, r.aliases)) for r in records if r is not None}
    save_names(index.root, kept, _name_key)


# Each open index's last list of notes asked about, with their records and the keys of
# their names (``_names_of``): a question matches every name of the vault, and reading them
# again (titles, aliases, their keys) was a tenth of a pack at 10,000 notes.
_NAMES: weakref.WeakKeyDictionary[
    IndexIdentity,
    tuple[tuple[str, ...], list[NoteRecord | None], list[int], list[str], list[int]],
] = weakref.WeakKeyDictionary()
_NAMES_LOCK = threading.Lock()


@functools.lru_cache(maxsize=65536)
def _name_key(name: str) -> str:
    return _match_key()(name)


@functools.cache
def _match_key() -> Callable[[str], str]:
    """The switcher's ``match_key``, imported at the first name (numpy comes with it: not
    at the command line's start); once, not at each of a vault's names (an import
    statement is a few µs: at 50,000 notes 0.2 s of a command line's search)."""
    from ..search.switcher import match_key

    return match_key
