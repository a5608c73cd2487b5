"""Contradiction candidates (issue 32 item 4): two notes about one concept that state
different values for the same thing. Without a language model these are *candidates*, not
truths: each says what differs, and they are ranked by how sure the evidence is.

Passages are paragraphs (as ``duplicates`` cuts them); a passage is about a concept when it
links it or writes one of its aliases. Between passages of different notes about the same
concept, in order of how sure the evidence is:

- **choice** (0.9): "chose / picked / selected / decided on / went with / switched to /
  settled on / adopted / migrated to X" with different X ("we chose Postgres" against "we
  chose DuckDB");
- **negation** (0.8): nearly the same sentence (three in four of its words shared), one of
  them negated ("not", "no", "never", "n't", "no longer", "without");
- **number** (0.6) and **date** (0.6): the same word before different numbers with the same
  unit ("timeout of 30 s" against "timeout 60 s"), or before different dates.

Newest first: by the later of the two notes' dates.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..concepts.dictionary import fold
from ..index.queries import concept_notes
from ..index.snapshot import IndexView
from ..parse.parser import mask_note
from ..tagging.matching import AliasMatcher
from ..text.analyzer import kept, word_set_of
from ..vault.files import read_note
from .paragraphs import PARAGRAPH
from .supersede import superseded_by

PASSAGE_LIMIT = 1_000  # characters of a side's paragraph kept to show
KINDS = {"choice": 0.9, "negation": 0.8, "number": 0.6, "date": 0.6}
_CHOICE = re.compile(
    r"\b(?i:chose|choose|chosen|picked|selected|decided\s+(?:on|to\s+use|for)|went\s+with|"
    r"switched\s+to|settled\s+on|adopted|migrated\s+to)\s+(?i:the\s+|a\s+|an\s+)?"
    r"([\w][\w.+#-]*(?:[ \t]+[A-Z][\w.+#-]*)*)"  # a name: capitalised words go on
)
# a word (not ending in "-": "mini-2" is a name), maybe "is"/"of"…, then a number and its unit
_NUMBER = re.compile(
    r"\b([A-Za-z][A-Za-z-]*[A-Za-z])(?:\s+(?:is|was|of|at|to|be|are|were|set\s+to))?"
    r"(?:\s*[:=]\s*|\s+)(\d+(?:[.,]\d+)?)(?![\d-])\s*(%|[A-Za-z]{1,12}\b)?"
)
_DATE = re.compile(r"\b([A-Za-z][\w-]{2,})\s*(?:is|was|on|by|:)?\s*(\d{4}-\d{2}-\d{2})\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_NEGATION = re.compile(r"\b(?:not|no|never|no\s+longer|without)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Side:
    note: str
    first: int
    last: int
    date: str  # the note's date (ISO)
    said: str  # what it states (the value, or the sentence)
    passage: str = ""  # the paragraph it is in, as written (trimmed to PASSAGE_LIMIT)

    def json(self) -> dict[str, Any]:
        return {
            "note": self.note,
            "lines": [self.first, self.last],
            "date": self.date,
            "says": self.said,
            "passage": self.passage,
        }


@dataclass(frozen=True, slots=True)
class Candidate:
    concept: str
    kind: str  # a key of KINDS
    about: str  # the thing they disagree on ("timeout", "chose", the sentence's words)
    newer: Side
    older: Side

    @property
    def sureness(self) -> float:
        return KINDS[self.kind]

    def json(self) -> dict[str, Any]:
        return {
            "concept": self.concept,
            "kind": self.kind,
            "about": self.about,
            "sureness": self.sureness,
            "newer": self.newer.json(),
            "older": self.older.json(),
        }


@dataclass(slots=True)
class _Passage:
    note: str
    first: int
    last: int
    text: str  # as masked (code and comments blank)
    date: str
    shown: str  # as written


def _facts(text: str) -> dict[tuple[str, str], str]:
    """(kind, what) → value, for choices, numbers and dates a passage states."""
    out: dict[tuple[str, str], str] = {}
    for m in _CHOICE.finditer(text):
        choice = m.group(1).rstrip(".")
        if kept(choice.split()[0].lower()):  # "chose them", "picked one": no name
            out[("choice", "chose")] = choice
    for m in _NUMBER.finditer(text):
        key, unit = m.group(1).lower(), (m.group(3) or "").lower()
        if unit and unit != "%" and not kept(unit):
            unit = ""  # "30 and …": no unit
        if kept(key):
            out[("number", f"{key} ({unit})" if unit else key)] = m.group(2).replace(",", ".")
    for m in _DATE.finditer(text):
        key = m.group(1).lower()
        if kept(key):
            out[("date", key)] = m.group(2)
    return out


def _sentences(text: str) -> list[tuple[str, frozenset[str], bool]]:
    out = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group().strip()
        words = frozenset(word_set_of(sentence))
        if len(words) >= 4:
            out.append((sentence, words, _NEGATION.search(sentence) is not None))
    return out


def find_contradictions(
    notes: Iterable[tuple[str, str, str]],
    concepts: Iterable[Any],
    concept_notes: Mapping[str, str] | None = None,
    settled: Collection[frozenset[str]] = (),
) -> list[Candidate]:
    """Candidates among ``notes`` ((path, text, ISO date)), about ``concepts`` (the
    dictionary's), most sure first, then newest first; none between two notes of
    ``settled`` (pairs of which one supersedes the other)."""
    matcher = AliasMatcher(list(concepts), concept_notes or {})
    by_concept: dict[str, list[_Passage]] = {}
    for rel, text, date in notes:
        masked = mask_note(text.removeprefix("\ufeff"))
        line, at = 0, 0
        for m in PARAGRAPH.finditer(masked):
            line += masked.count("\n", at, m.start())
            at = m.start()
            body = m.group()
            concerned = {c for _, _, c in matcher.candidates(body, fold(body))}
            concerned |= matcher.linked(body, matcher.concept_ids)
            if not concerned:
                continue
            shown = text.removeprefix("\ufeff")[m.start() : m.end()].strip()
            if len(shown) > PASSAGE_LIMIT:
                shown = shown[: PASSAGE_LIMIT - 1] + "…"
            passage = _Passage(rel, line + 1, line + 1 + body.count("\n"), body, date, shown)
            for concept in concerned:
                by_concept.setdefault(concept, []).append(passage)
    found: dict[tuple[str, str, str, int, str, int], Candidate] = {}
    for concept, passages in sorted(by_concept.items()):
        facts = [_facts(p.text) for p in passages]
        sentences = [_sentences(p.text) for p in passages]
        for i, a in enumerate(passages):
            for j in range(i + 1, len(passages)):
                b = passages[j]
                if a.note == b.note or frozenset((a.note, b.note)) in settled:
                    continue
                new, old = (a, b) if (a.date, a.note) >= (b.date, b.note) else (b, a)
                fn, fo = (facts[i], facts[j]) if new is a else (facts[j], facts[i])
                for key in sorted(fn.keys() & fo.keys()):
                    if fn[key].casefold() != fo[key].casefold():
                        kind, what = key
                        _add(found, concept, kind, what, new, fn[key], old, fo[key])
                sn, so = (sentences[i], sentences[j]) if new is a else (sentences[j], sentences[i])
                for s1, w1, neg1 in sn:
                    for s2, w2, neg2 in so:
                        if neg1 != neg2 and len(w1 & w2) >= 0.75 * len(w1 | w2):
                            shared = " ".join(sorted(w1 & w2)[:6])
                            _add(found, concept, "negation", shared, new, s1, old, s2)
    newest = sorted(found.values(), key=lambda c: (c.newer.date, c.newer.note), reverse=True)
    return sorted(newest, key=lambda c: -c.sureness)  # stable: newest first within each


def contradictions_in(index: IndexView) -> list[Candidate]:
    """``find_contradictions`` over every note of ``index`` that can be read, each dated
    as the index dates it; two notes of which one names the other in its ``supersedes``
    property are settled (no candidate between them)."""
    view = index.snapshot()
    settled: set[frozenset[str]] = set()

    def notes() -> Iterator[tuple[str, str, str]]:
        for rel in sorted(view.notes):
            text = read_note(view.root, rel).text
            if text is None:
                continue
            if "supersedes" in text:
                settled.update(frozenset((rel, old)) for old in superseded_by(view, rel, text))
            yield rel, text, view.notes[rel].date.isoformat()

    texts = list(notes())
    return find_contradictions(texts, view.concepts.concepts, concept_notes(view), settled)


def _add(
    found: dict[tuple[str, str, str, int, str, int], Candidate],
    concept: str,
    kind: str,
    about: str,
    new: _Passage,
    said_new: str,
    old: _Passage,
    said_old: str,
) -> None:
    key = (concept, new.note, old.note, new.first, kind, old.first)
    if key in found:
        return
    found[key] = Candidate(
        concept,
        kind,
        about,
        Side(new.note, new.first, new.last, new.date, said_new, new.shown),
        Side(old.note, old.first, old.last, old.date, said_old, old.shown),
    )
