"""Contradiction candidates (issue 32 item 4): two notes about one concept that state
different values for the same thing. Without a language model these are *candidates*, not
truths: each says what differs, and they are ranked by how sure the evidence is.

Passages are paragraphs (as ``duplicates`` cuts them), read sentence by sentence. What a
sentence states is about the concepts it names (links, or writes an alias of); a sentence
that names none is about the paragraph's concept when the paragraph names only one. Between
passages of different notes about the same concept, in order of how sure the evidence is:

- **choice** (0.9): "chose / picked / selected / decided on / went with / switched to /
  settled on / adopted / migrated to X" with different X ("we chose Postgres" against "we
  chose DuckDB"); X is a name (capitalised words go on: "Bright Futures"), not a pronoun,
  and "the selected text" (after a determiner) is no choice;
- **negation** (0.8): nearly the same sentence (three in four of its stemmed words shared,
  the negation aside), one of them negated ("not", "no", "never", "n't", "no longer") where
  the other says what the negation is about (its next word: "is not shared" against "is
  shared", not "replaces it, never appends" against "replaces it");
- **number** (0.6) and **date** (0.6): the same word before different numbers with the same
  unit ("timeout of 30 s" against "timeout 60 s"; a quantity of bytes or time compared in
  one unit: "512 MB" against "2 GB", "2 GB" and "2000 MB" the same), a count of things ("8
  workers", "three replicas": the things are what is counted), or different dates after the
  same word (ISO, or written: "March 3, 2024"); an ordinal's "th" is no unit.

A passage that states several values for one thing ("the timeout is 30 s, the connect
timeout 5 s") conflicts with another only when they share none of them.

Newest first: by the later of the two notes' dates.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..concepts.dictionary import fold
from ..index.queries import concept_notes
from ..index.snapshot import IndexView
from ..parse.parser import mask_note, written_dates
from ..tagging.matching import AliasMatcher
from ..text.analyzer import kept, terms
from ..vault.files import read_note
from .paragraphs import PARAGRAPH
from .supersede import superseded_by

PASSAGE_LIMIT = 1_000  # characters of a side's paragraph kept to show
KINDS = {"choice": 0.9, "negation": 0.8, "number": 0.6, "date": 0.6}
ALIKE = 0.75  # of a sentence's words, the negation aside, shared with its negation
_CHOICE = re.compile(
    r"\b(?i:chose|chosen|picked|selected|decided\s+(?:on|to\s+use|for)|went\s+with|"
    r"switched\s+to|settled\s+on|adopted|migrated\s+to)\s+(?i:the\s+|a\s+|an\s+)?"
    r"([\w][\w.+#-]*(?:[ \t]+[A-Z][\w.+#-]*)*)"  # a name: capitalised words go on
)
_DETERMINER = re.compile(r"\b(?:the|a|an|this|that|these|those|its|your|my|our|their)\s+$", re.I)
# a word (not ending in "-": "mini-2" is a name), maybe "is"/"of"…, then a number and its unit
_NUMBER = re.compile(
    r"\b([A-Za-z][A-Za-z-]*[A-Za-z])(?:\s+(?:is|was|of|at|to|be|are|were|set\s+to))?"
    r"(?:\s*[:=]\s*|\s+)(\d+(?:[.,]\d+)?)(?![\d-])\s*(%|[A-Za-z]{1,12}\b)?"
)
_ORDINAL = frozenset({"st", "nd", "rd", "th"})
# units of one quantity, compared in one unit ("512 MB" against "2 GB")
_UNITS: dict[str, tuple[str, float]] = {}
for _names, _dimension, _factor in (
    (("b", "byte", "bytes"), "bytes", 1.0),
    (("kb", "kilobyte", "kilobytes"), "bytes", 1e3),
    (("mb", "megabyte", "megabytes"), "bytes", 1e6),
    (("gb", "gigabyte", "gigabytes"), "bytes", 1e9),
    (("tb", "terabyte", "terabytes"), "bytes", 1e12),
    (("kib",), "bytes", 1024.0),
    (("mib",), "bytes", 1024.0**2),
    (("gib",), "bytes", 1024.0**3),
    (("ms", "millisecond", "milliseconds"), "seconds", 1e-3),
    (("s", "sec", "secs", "second", "seconds"), "seconds", 1.0),
    (("min", "mins", "minute", "minutes"), "seconds", 60.0),
    (("h", "hr", "hrs", "hour", "hours"), "seconds", 3600.0),
    (("day", "days"), "seconds", 86400.0),
    (("week", "weeks"), "seconds", 604800.0),
):
    for _name in _names:
        _UNITS[_name] = (_dimension, _factor)
# a count of things: "8 workers", "three replicas"
_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        [
            *("zero", "one", "two", "three", "four", "five", "six"),
            *("seven", "eight", "nine", "ten", "eleven", "twelve"),
        ]
    )
}
_COUNT = re.compile(
    r"\b(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"([A-Za-z]{3,}s)\b",
    re.IGNORECASE,
)
_DATE = re.compile(r"\b([A-Za-z][\w-]{2,})\s*(?:is|was|on|by|for|until|:)?\s*(\d{4}-\d{2}-\d{2})\b")
# a sentence ends at . ! ? before a space or the end ("1.5 GB" and "e.g." go on)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*")
_NEGATION = re.compile(r"\b(?:not|no\s+longer|no|never|cannot)\b|n't\b", re.IGNORECASE)
_NEGATION_FORMS = (
    (re.compile(r"\bwon't\b", re.I), "will"),
    (re.compile(r"\b(can|shan)'t\b", re.I), r"\1"),
    (re.compile(r"\bcannot\b", re.I), "can"),
    (re.compile(r"n't\b", re.I), ""),
    (re.compile(r"\b(?:not|no\s+longer|never|no)\b", re.I), " "),
)
_MARKER = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])?\s*")


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
    date: str
    shown: str  # as written
    # what it states about each concept it is about: (kind, what) → values, in order
    facts: dict[str, dict[tuple[str, str], list[str]]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Claim:
    """A sentence, for negations: its words (stemmed, the negation aside)."""

    passage: _Passage
    said: str
    words: frozenset[str]
    negated: bool
    scope: str | None = None  # the negation's next word (stemmed): what it is about


def _facts(text: str) -> dict[tuple[str, str], list[str]]:
    """(kind, what) → values, for the choices, numbers and dates a sentence states."""
    out: dict[tuple[str, str], list[str]] = {}

    def add(key: tuple[str, str], value: str) -> None:
        values = out.setdefault(key, [])
        if value.casefold() not in (v.casefold() for v in values):
            values.append(value)

    for m in _CHOICE.finditer(text):
        choice = m.group(1).rstrip(".")
        if _DETERMINER.search(text, 0, m.start()):  # "the selected text": no choice
            continue
        if kept(choice.split()[0].lower()):  # "chose them", "picked one": no name
            add(("choice", "chose"), choice)
    dates = written_dates(text)
    for start, end, date in reversed(dates):  # "March 3, 2024" read as 2024-03-03
        text = text[:start] + date.isoformat() + text[end:]
    for m in _NUMBER.finditer(text):
        key, unit = m.group(1).lower(), (m.group(3) or "").lower()
        number = m.group(2).replace(",", ".")
        if unit in _UNITS:  # one quantity in one unit: "512 MB" and "2 GB" compare
            add(("number", f"{key} ({_UNITS[unit][0]})"), f"{number} {m.group(3)}")
            continue
        if unit and unit != "%" and (not kept(unit) or unit in _ORDINAL):
            unit = ""  # "30 and …", "30th": no unit
        if kept(key):
            add(("number", f"{key} ({unit})" if unit else key), number)
    for m in _COUNT.finditer(text):
        noun = m.group(2).lower()
        if kept(noun) and noun not in _UNITS:
            add(("number", noun), _NUMBER_WORDS.get(m.group(1).lower(), m.group(1)))
    for m in _DATE.finditer(text):
        key = m.group(1).lower()
        if kept(key):
            add(("date", key), m.group(2))
    return out


def _same(value: str) -> str:
    """A stated value as compared: a quantity in its dimension's one unit ("2 GB" as
    2e9), anything else case-folded."""
    number, _, unit = value.partition(" ")
    if unit.lower() in _UNITS:
        try:
            return f"{float(number) * _UNITS[unit.lower()][1]:g}"
        except ValueError:
            pass
    return value.casefold()


def _claim_words(sentence: str) -> frozenset[str]:
    for pattern, replacement in _NEGATION_FORMS:
        sentence = pattern.sub(replacement, sentence)
    return frozenset(terms(sentence))


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

    def named(text: str) -> set[str]:
        found = {c for _, _, c in matcher.candidates(text, fold(text))}
        return found | matcher.linked(text, matcher.concept_ids)

    passages: dict[str, list[_Passage]] = {}
    claims: dict[str, list[_Claim]] = {}
    for rel, text, date in notes:
        text = text.removeprefix("\ufeff")
        masked = mask_note(text)
        line, at = 0, 0
        for m in PARAGRAPH.finditer(masked):
            line += masked.count("\n", at, m.start())
            at = m.start()
            body = m.group()
            concerned = named(body)
            if not concerned:
                continue
            shown = text[m.start() : m.end()].strip()
            if len(shown) > PASSAGE_LIMIT:
                shown = shown[: PASSAGE_LIMIT - 1] + "…"
            passage = _Passage(rel, line + 1, line + 1 + body.count("\n"), date, shown)
            for s in _SENTENCE.finditer(body):
                sentence = s.group()
                about = named(sentence) or (concerned if len(concerned) == 1 else set())
                if not about:
                    continue
                facts = _facts(sentence)
                for concept in about:
                    own = passage.facts.setdefault(concept, {})
                    for key, values in facts.items():
                        kept_values = own.setdefault(key, [])
                        seen = {v.casefold() for v in kept_values}
                        kept_values.extend(v for v in values if v.casefold() not in seen)
                words = _claim_words(sentence)
                if len(words) >= 3:
                    said = _MARKER.sub("", text[m.start() + s.start() : m.start() + s.end()])
                    negation = _NEGATION.search(sentence)
                    scope = terms(sentence[negation.end() :])[:1] if negation else []
                    claim = _Claim(
                        passage, said.strip(), words, negation is not None, next(iter(scope), None)
                    )
                    for concept in about:
                        claims.setdefault(concept, []).append(claim)
            for concept in concerned:
                passages.setdefault(concept, []).append(passage)
    found: dict[tuple[str, str, str, int, str, int], Candidate] = {}

    def consider(
        concept: str, kind: str, about: str, a: tuple[_Passage, str], b: tuple[_Passage, str]
    ) -> None:
        if a[0].note == b[0].note or frozenset((a[0].note, b[0].note)) in settled:
            return
        new, old = (a, b) if (a[0].date, a[0].note) >= (b[0].date, b[0].note) else (b, a)
        _add(found, concept, kind, about, new[0], new[1], old[0], old[1])

    for concept in sorted(passages):
        by_key: dict[tuple[str, str], list[tuple[_Passage, list[str]]]] = {}
        for passage in passages[concept]:
            for key, values in passage.facts.get(concept, {}).items():
                by_key.setdefault(key, []).append((passage, values))
        for (kind, what), stated in sorted(by_key.items()):
            for i, (a, va) in enumerate(stated):
                folded = {_same(v) for v in va}
                for b, vb in stated[i + 1 :]:
                    if folded.isdisjoint(_same(v) for v in vb):
                        consider(concept, kind, what, (a, ", ".join(va)), (b, ", ".join(vb)))
        stated_claims = claims.get(concept, [])
        plain = [c for c in stated_claims if not c.negated]
        by_word: dict[str, list[int]] = {}
        for n, claim in enumerate(plain):
            for word in claim.words:
                by_word.setdefault(word, []).append(n)
        for claim in (c for c in stated_claims if c.negated):
            shared = Counter(n for word in claim.words for n in by_word.get(word, ()))
            for n, count in shared.items():
                other = plain[n]
                if count >= ALIKE * len(claim.words | other.words) and (
                    claim.scope is None or claim.scope in other.words
                ):
                    what = " ".join(sorted(claim.words & other.words)[:6])
                    consider(
                        concept,
                        "negation",
                        what,
                        (claim.passage, claim.said),
                        (other.passage, other.said),
                    )
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
