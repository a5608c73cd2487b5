"""Okapi BM25 over a handful of documents (notes, or passages), in plain Python: the text
match behind agent search and context packs."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ..related.tokens import words

K1 = 1.2
B = 0.75

_SUFFIXES = ("ies", "sses", "ing", "ed", "es", "s", "ly")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix fold, the same for the query and the text ("paints",
    "painted", "painting" → "paint"; "stories" → "story"); short words stay as they are."""
    if len(word) <= 3 or not word.isascii():
        return word
    if word.endswith("'s"):
        word = word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        return _undouble(word[:-3])
    if word.endswith("ed") and len(word) > 4:
        return _undouble(word[:-2])
    if word.endswith("ly") and len(word) > 5:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _undouble(base: str) -> str:
    if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
        return base[:-1]
    return base


def terms(text: str) -> list[str]:
    """The searchable terms of a text: ``related.tokens.words`` (case-folded, stop words
    out, Chinese and Japanese as bigrams), each folded by ``stem``."""
    return [stem(w) for w in words(text)]


class BM25:
    """BM25 scores of a query against fixed documents (each given as its terms)."""

    def __init__(
        self, docs: Sequence[Sequence[str]], counts: Sequence[Mapping[str, int]] | None = None
    ) -> None:
        """``docs`` as their terms; ``counts``, when given, are each doc's term counts
        (``Counter(doc)``), counted once where the docs are kept."""
        self.size = len(docs)
        self.lengths = [len(d) for d in docs]
        self.mean_length = (sum(self.lengths) / self.size) if self.size else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            for term, tf in (Counter(doc) if counts is None else counts[i]).items():
                self.postings.setdefault(term, []).append((i, tf))

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def scores(
        self, query: Iterable[str], weights: dict[str, float] | None = None
    ) -> dict[int, float]:
        """Document → score, for the documents holding at least one query term; each
        term's part times its weight in ``weights`` (1 when absent)."""
        out: dict[int, float] = {}
        mean = self.mean_length or 1.0
        for term in dict.fromkeys(query):  # each distinct term once, in query order
            found = self.postings.get(term)
            if not found:
                continue
            idf = self.idf(term) * (weights.get(term, 1.0) if weights else 1.0)
            for doc, tf in found:
                norm = K1 * (1.0 - B + B * self.lengths[doc] / mean)
                out[doc] = out.get(doc, 0.0) + idf * tf * (K1 + 1.0) / (tf + norm)
        return out
