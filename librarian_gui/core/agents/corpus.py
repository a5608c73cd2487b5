"""The notes a question looks at, read once: their passages and terms, and BM25 over both
(what ``agent_search`` and ``context_pack`` share)."""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from ..index.index import VaultIndex
from ..text.analyzer import terms
from .bm25 import BM25, K1, B
from .passages import Passage, split_passages
from .speakers import speakers, unlabelled

# Past this many notes a question reads every note but splits and scores only the
# CANDIDATES that a quick count of its terms ranks first.
PREFILTER_ABOVE = 400
CANDIDATES = 100
KEPT_NOTES = 512  # notes whose passages and terms are kept for the next question

TextOf = Callable[[str], "str | None"]


@dataclass(slots=True)
class Corpus:
    """``notes`` (sorted paths) with their ``texts``, ``dates`` and ``passages`` (in note
    order, then file order); ``note_of[i]`` is the note index of passage ``i``. BM25 over
    whole notes (title counted twice) and over passages (heading path counted once)."""

    notes: list[str]
    texts: list[str]
    dates: list[_dt.date]
    date_sources: list[str]
    passages: list[Passage]
    note_of: list[int]
    note_bm25: BM25
    passage_bm25: BM25
    passage_terms: list[list[str]] = field(repr=False)
    # Who speaks in each passage: the terms of the speaker labels cut from its lines (see
    # ``speakers``), and every such term of the corpus.
    passage_speakers: list[frozenset[str]] = field(repr=False, default_factory=list)
    speaker_terms: frozenset[str] = frozenset()

    @classmethod
    def build(
        cls,
        index: VaultIndex,
        text_of: TextOf,
        notes: Sequence[str],
        query: Sequence[str] = (),
        keep: Collection[str] = (),
    ) -> Corpus:
        """The corpus of ``notes``; past ``PREFILTER_ABOVE`` notes and with query terms,
        only the ``CANDIDATES`` notes a quick count of the terms ranks first (and ``keep``,
        notes matched by name) are split and scored; without terms, the ``CANDIDATES``
        newest (and ``keep``)."""
        with index.lock:
            records = [index.notes[rel] for rel in notes if rel in index.notes]
        if len(records) > PREFILTER_ABOVE and not query:
            # No word to look for (none given, or stop words only): the newest notes, and
            # the ones named, as a reader of a diary would start; never the whole vault.
            newest = newest_first([(r.date, r.path) for r in records])[:CANDIDATES]
            wanted = set(newest) | set(keep)
            records = [r for r in records if r.path in wanted]
        texts = [_read(text_of, r.path) for r in records]
        if len(records) > PREFILTER_ABOVE and query:
            chosen = set(prefilter(texts, query, CANDIDATES))
            chosen.update(i for i, r in enumerate(records) if r.path in keep)
            records = [r for i, r in enumerate(records) if i in chosen]
            texts = [t for i, t in enumerate(texts) if i in chosen]
        rels = [r.path for r in records]
        passages: list[Passage] = []
        note_of: list[int] = []
        note_counts: list[Counter[str]] = []
        passage_terms: list[list[str]] = []
        passage_counts: list[Counter[str]] = []
        passage_speakers: list[frozenset[str]] = []
        for i, (record, text) in enumerate(zip(records, texts, strict=True)):
            note = analysed(record.path, record.title, text)
            passages.extend(note.passages)
            note_of.extend([i] * len(note.passages))
            passage_terms.extend(note.terms)
            passage_counts.extend(note.counts)
            passage_speakers.extend(note.speakers)
            note_counts.append(note.whole_counts)
        return cls(
            rels,
            texts,
            [r.date for r in records],
            [r.date_source for r in records],
            passages,
            note_of,
            BM25(note_counts),
            BM25(passage_counts),
            passage_terms,
            passage_speakers,
            frozenset().union(*passage_speakers),
        )

    def split_names(self, query: Sequence[str]) -> tuple[list[str], frozenset[str]]:
        """The query's terms that are evidence, and the speakers it names. Names are not
        evidence (``speakers``) unless the query is nothing but names."""
        named = frozenset(t for t in query if t in self.speaker_terms)
        rest = [t for t in query if t not in named]
        return (rest, named) if rest else (list(query), named)


@dataclass(frozen=True, slots=True)
class Analysed:
    """One note as a question reads it (see ``analysed``). Treat the lists as read-only."""

    passages: tuple[Passage, ...]
    terms: tuple[list[str], ...]  # each passage's: its heading's and its own, labels cut
    counts: tuple[Counter[str], ...]  # each passage's terms counted
    whole_counts: Counter[str]  # the note's terms: its title's twice, then its passages'
    speakers: tuple[frozenset[str], ...]  # who speaks in each passage: its labels' terms


@functools.lru_cache(maxsize=KEPT_NOTES)
def analysed(rel: str, title: str, text: str) -> Analysed:
    """A note's passages, their terms and who speaks in each, kept for the last
    ``KEPT_NOTES`` notes: an agent's questions read the same notes again, and counting
    their terms again was a third of a repeated question's time."""
    name = terms(title)
    whole = name + name
    split = tuple(split_passages(rel, text))
    known = speakers([line for p in split for line in p.text.split("\n")])
    split_terms = []
    said = []
    for p in split:
        body, labels = unlabelled(p.text, known)
        found = terms(body)
        whole += found
        split_terms.append(terms(" ".join(p.heading)) + found)
        said.append(frozenset(t for label in labels for t in terms(label)))
    return Analysed(
        split,
        tuple(split_terms),
        tuple(Counter(t) for t in split_terms),
        Counter(whole),
        tuple(said),
    )


def newest_first(dated: Sequence[tuple[_dt.date, str]]) -> list[str]:
    """The paths of (date, path) pairs, newest first, then by path (the same order always)."""
    return [rel for _, rel in sorted(dated, key=lambda d: (-d[0].toordinal(), d[1]))]


def prefilter(texts: Sequence[str], query: Sequence[str], limit: int) -> list[int]:
    """The ``limit`` texts (their indexes, in order) with the best BM25 by substring counts
    of the query's terms in the case-folded text — a pass in C over each text per term,
    where ``terms`` would cut every word of the vault in Python (10,000 notes: under a
    second, against most of a minute)."""
    stems = [t[:-1] if t.endswith("y") and len(t) > 4 else t for t in dict.fromkeys(query)]
    folded = [t.casefold() for t in texts]
    lengths = [len(t) / 6.0 + 1.0 for t in folded]  # about six characters a word
    mean = sum(lengths) / len(lengths)
    score = [0.0] * len(texts)
    for term in stems:
        counts = [t.count(term) for t in folded]
        df = sum(1 for c in counts if c)
        if not df:
            continue
        idf = math.log(1.0 + (len(texts) - df + 0.5) / (df + 0.5))
        for i, tf in enumerate(counts):
            if tf:
                norm = K1 * (1.0 - B + B * lengths[i] / mean)
                score[i] += idf * tf * (K1 + 1.0) / (tf + norm)
    ranked = sorted((i for i in range(len(texts)) if score[i] > 0), key=lambda i: -score[i])
    return sorted(ranked[:limit])


def _read(text_of: TextOf, rel: str) -> str:
    try:
        return text_of(rel) or ""
    except (OSError, UnicodeError):  # a note gone or unreadable since the scan: no text
        return ""
