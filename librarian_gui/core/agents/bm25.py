"""Okapi BM25 over a handful of documents (notes, or passages), in plain Python: the text
match behind agent search and context packs."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Protocol

# Re-exported: agents code written before the analyzer moved to core/text imports them here.
from ..text.analyzer import stem, terms

__all__ = ["BM25", "K1", "B", "DocumentStats", "stem", "terms"]


class DocumentStats(Protocol):
    """A larger set of documents, for BM25 over a few of them (see ``BM25``)."""

    size: int
    mean_length: float

    def df(self, term: str) -> int: ...


K1 = 1.2
B = 0.75


class BM25:
    """BM25 scores of a query against fixed documents, each given as its terms counted
    (``Counter(terms)``: counted once where the documents are kept)."""

    def __init__(
        self, counts: Sequence[Mapping[str, int]], vault: DocumentStats | None = None
    ) -> None:
        """``vault``: the documents are some of a larger set, scored as in it (its size,
        mean length and document frequencies), not as if they were all there is."""
        self._counts = counts
        self.lengths = [sum(c.values()) for c in counts]
        self.size = len(counts)
        self.mean_length = (sum(self.lengths) / self.size) if self.size else 0.0
        # Document frequencies counted in C; a term's postings listed when first asked
        # (a question asks a few dozen of the thousands of terms its corpus holds).
        self._held = Counter(chain.from_iterable(counts))
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._vault = vault
        self._vault_df: dict[str, int] = {}
        self._vocabulary: list[str] | None = None
        if vault is not None and vault.size >= self.size:
            self.size, self.mean_length = vault.size, vault.mean_length
        else:
            self._vault = None

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(document, term frequency) of the documents holding ``term``, in order."""
        found = self._postings.get(term)
        if found is None:
            found = (
                [(i, c[term]) for i, c in enumerate(self._counts) if term in c]
                if term in self._held
                else []
            )
            self._postings[term] = found
        return found

    def held(self, term: str) -> int:
        """How many documents hold ``term``: of these, or of the larger set when given."""
        df = self._held.get(term, 0)
        if df or self._vault is None:
            return df
        known = self._vault_df.get(term)
        if known is None:
            known = self._vault_df[term] = self._vault.df(term)
        return known

    def vocabulary(self) -> list[str]:
        """Every term these documents hold, sorted (made once, when first asked)."""
        if self._vocabulary is None:
            self._vocabulary = sorted(self._held)
        return self._vocabulary

    def idf(self, term: str) -> float:
        df = self._held.get(term, 0)
        if self._vault is not None:
            known = self._vault_df.get(term)
            if known is None:
                known = self._vault_df[term] = self._vault.df(term)
            df = max(df, known)
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def scores(
        self, query: Iterable[str], weights: dict[str, float] | None = None
    ) -> dict[int, float]:
        """Document → score, for the documents holding at least one query term; each
        term's part times its weight in ``weights`` (1 when absent)."""
        out: dict[int, float] = {}
        mean = self.mean_length or 1.0
        for term in dict.fromkeys(query):  # each distinct term once, in query order
            found = self.postings(term)
            if not found:
                continue
            idf = self.idf(term) * (weights.get(term, 1.0) if weights else 1.0)
            for doc, tf in found:
                norm = K1 * (1.0 - B + B * self.lengths[doc] / mean)
                out[doc] = out.get(doc, 0.0) + idf * tf * (K1 + 1.0) / (tf + norm)
        return out
