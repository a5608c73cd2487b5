"""The notes a question looks at, read once: their passages and terms, and BM25 over both
(what ``agent_search`` and ``context_pack`` share)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..index.index import VaultIndex
from .bm25 import BM25, terms
from .passages import Passage, split_passages

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

    @classmethod
    def build(cls, index: VaultIndex, text_of: TextOf, notes: Sequence[str]) -> Corpus:
        with index.lock:
            records = [index.notes[rel] for rel in notes if rel in index.notes]
        rels = [r.path for r in records]
        texts = [_read(text_of, rel) for rel in rels]
        passages: list[Passage] = []
        note_of: list[int] = []
        note_terms: list[list[str]] = []
        passage_terms: list[list[str]] = []
        for i, (record, text) in enumerate(zip(records, texts, strict=True)):
            title = terms(record.title)
            note_terms.append(title + title + terms(text))
            for p in split_passages(record.path, text):
                passages.append(p)
                note_of.append(i)
                passage_terms.append(terms(" ".join(p.heading)) + terms(p.text))
        return cls(
            rels,
            texts,
            [r.date for r in records],
            [r.date_source for r in records],
            passages,
            note_of,
            BM25(note_terms),
            BM25(passage_terms),
            passage_terms,
        )


def _read(text_of: TextOf, rel: str) -> str:
    try:
        return text_of(rel) or ""
    except (OSError, UnicodeError):  # a note gone or unreadable since the scan: no text
        return ""
