"""Related notes (DESIGN §5): each note as a pruned TF-IDF vector of its key terms, and its
nearest notes by cosine, re-ranked so that a hub does not sit in every list.

- Terms: ``tokens.words`` of the note's prose, lines that many notes repeat (a template's
  headings) left out; each concept a note is found in adds a term of its own, boosted.
- Weights: sublinear term frequency (1 + ln tf) times a smoothed idf; a term in one note
  only, or in more than half of them, explains no pair and is dropped. Each note keeps its
  ``max_terms`` heaviest terms, L2-normalised.
- Neighbours: the cosine of every pair (a sparse product, a block of rows at a time), then
  for each note its ``k`` best by cosine less ``hub_penalty`` times the candidate's own mean
  top-k cosine (a CSLS-style correction: a note close to everything is discounted), kept
  when the cosine is at least ``threshold``. The score given is the cosine.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .tokens import kept, plain_text, words

if TYPE_CHECKING:  # numpy and scipy load with the model, not with the package
    import numpy as np
    import numpy.typing as npt
    from scipy import sparse

CONCEPT_PREFIX = "\x00concept:"  # a concept's term: no word can look like it
CONCEPT_BOOST = 2.0
MAX_TERMS = 100
HUB_PENALTY = 0.5
CANDIDATES = 3  # times k: the cosine's best, re-ranked
BLOCK_ROWS = 1024
TEMPLATE_SHARE = 0.02  # a line in this share of the notes (and in 4 at least) is a template's
TEMPLATE_MIN = 4
TEMPLATE_LINE_MAX = 80  # only short lines count as a template's: headings, labels
_FAST_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Every ASCII character but letters, digits and the apostrophe, as a space.
_ASCII_SPACES = str.maketrans(
    {chr(c): " " for c in range(128) if not chr(c).isalnum() and chr(c) != "'"}
)
_DIGIT = frozenset("0123456789")


@dataclass(frozen=True, slots=True)
class RelatedModel:
    """The vectors and each note's neighbours. ``rows[i]`` / ``scores[i]``: note ``i``'s
    neighbours, best first, padded with -1 / 0."""

    notes: tuple[str, ...]
    terms: tuple[str, ...]
    vectors: sparse.csr_matrix
    rows: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float64]
    row_of: Mapping[str, int]

    def neighbours(self, rel: str) -> list[tuple[str, float]]:
        """The note's related notes, best first, with their cosine."""
        i = self.row_of.get(rel)
        if i is None:
            return []
        return [
            (self.notes[j], float(s))
            for j, s in zip(self.rows[i].tolist(), self.scores[i].tolist(), strict=True)
            if j >= 0
        ]

    def key_terms(self, rel: str, count: int = 10) -> list[tuple[str, float]]:
        """The note's heaviest terms (concepts as ``concept:ID``), heaviest first."""
        i = self.row_of.get(rel)
        if i is None:
            return []
        start, end = self.vectors.indptr[i], self.vectors.indptr[i + 1]
        cols, weights = self.vectors.indices[start:end], self.vectors.data[start:end]
        order = sorted(range(len(cols)), key=lambda n: (-weights[n], self.terms[cols[n]]))
        return [(_shown(self.terms[cols[n]]), float(weights[n])) for n in order[:count]]

    def shared_terms(self, a: str, b: str, count: int = 5) -> list[str]:
        """The terms that make two notes close: in both, by the product of their weights."""
        i, j = self.row_of.get(a), self.row_of.get(b)
        if i is None or j is None:
            return []
        mine = self._weights(i)
        theirs = self._weights(j)
        shared = sorted(mine.keys() & theirs.keys(), key=lambda t: (-mine[t] * theirs[t], t))
        return [_shown(self.terms[t]) for t in shared[:count]]

    def _weights(self, row: int) -> dict[int, float]:
        start, end = self.vectors.indptr[row], self.vectors.indptr[row + 1]
        return dict(
            zip(
                self.vectors.indices[start:end].tolist(),
                self.vectors.data[start:end].tolist(),
                strict=True,
            )
        )


def _shown(term: str) -> str:
    return "concept:" + term[len(CONCEPT_PREFIX) :] if term.startswith(CONCEPT_PREFIX) else term


def template_lines(texts: Mapping[str, str]) -> frozenset[str]:
    """The short lines so many notes hold that they come from a template, not the note."""
    seen: Counter[str] = Counter()
    for text in texts.values():
        lines = {line.strip().casefold() for line in text.splitlines()}
        seen.update(line for line in lines if line and len(line) <= TEMPLATE_LINE_MAX)
    least = max(TEMPLATE_MIN, math.ceil(TEMPLATE_SHARE * len(texts)))
    return frozenset(line for line, count in seen.items() if count >= least)


def note_counts(text: str, templates: frozenset[str] = frozenset()) -> Counter[str]:
    """How often each comparable word occurs in a note (``tokens.words``), the template's
    lines left out."""
    counts = raw_counts(text, templates)
    for word in [w for w in counts if not kept(w)]:
        del counts[word]
    return counts


def raw_counts(text: str, templates: frozenset[str] = frozenset()) -> Counter[str]:
    """``note_counts`` before stop words, one-letter words and numbers are taken out (the
    model takes them out of its vocabulary once, not out of every note)."""
    prose = plain_text(text)
    if templates:
        prose = "\n".join(
            line for line in prose.splitlines() if line.strip().casefold() not in templates
        )
    if not prose.isascii():  # case folding can change a word's length ("İ" is two)
        return Counter(words(prose))
    # The same words as ``tokens.words`` for ASCII, counted in C: split at everything but
    # letters, digits and apostrophes (a vault of 50 MB in about a second).
    counts = Counter(prose.lower().translate(_ASCII_SPACES).split())
    if "'" in prose:  # "don't" is a word, "'tis" and "dogs'" are "tis" and "dogs"
        for token in [t for t in counts if "'" in t]:
            times = counts.pop(token)
            for word in _FAST_WORD.findall(token):
                counts[word] += times
    return counts


def build_related(
    texts: Mapping[str, str],
    *,
    concepts: Mapping[str, Collection[str]] | None = None,
    k: int = 10,
    threshold: float = 0.0,
    max_terms: int = MAX_TERMS,
    hub_penalty: float = HUB_PENALTY,
) -> RelatedModel:
    """The model of the notes ``texts`` (vault path → Markdown); ``concepts``: the concept
    ids each note is found in, each a boosted term of that note."""
    import numpy as np
    from scipy import sparse

    notes = tuple(texts)
    templates = template_lines(texts)
    per_note = [raw_counts(texts[rel], templates) for rel in notes]
    if concepts:
        for counts, rel in zip(per_note, notes, strict=True):
            counts.update(CONCEPT_PREFIX + cid for cid in concepts.get(rel, ()))
    df: Counter[str] = Counter()
    for counts in per_note:
        df.update(counts.keys())
    total = len(notes)
    # A term in one note explains no pair; in more than half, hardly any.
    top_df = max(2, total // 2)
    kept_terms = sorted(
        t for t, d in df.items() if 2 <= d <= top_df and (t.startswith(CONCEPT_PREFIX) or kept(t))
    )
    column = dict.fromkeys(df, -1)
    column.update((t, i) for i, t in enumerate(kept_terms))
    idf = np.array([math.log((1 + total) / (1 + df[t])) + 1.0 for t in kept_terms])
    boost = np.array([CONCEPT_BOOST if t.startswith(CONCEPT_PREFIX) else 1.0 for t in kept_terms])
    # Every (note, term, count) of the vault as three arrays, then weighed, pruned and
    # normalised at once: per note, numpy's overhead was most of the time.
    terms: list[str] = []
    counts_flat: list[int] = []
    sizes = []
    for counts in per_note:
        terms.extend(counts.keys())
        counts_flat.extend(counts.values())
        sizes.append(len(counts))
    cols = np.fromiter(map(column.__getitem__, terms), dtype=np.int64, count=len(terms))
    tf = np.array(counts_flat, dtype=np.float64)
    owner = np.repeat(np.arange(total, dtype=np.int64), sizes)
    keep = cols >= 0
    cols, tf, owner = cols[keep], tf[keep], owner[keep]
    weights = (1.0 + np.log(tf)) * idf[cols] * boost[cols]
    # Each note's max_terms heaviest (ties by term): sorted by note, then weight.
    order = np.lexsort((cols, -weights, owner))
    cols, weights, owner = cols[order], weights[order], owner[order]
    starts = np.searchsorted(owner, np.arange(total))
    rank = np.arange(len(owner)) - starts[owner]
    top = rank < max_terms
    cols, weights, owner = cols[top], weights[top], owner[top]
    norms = np.sqrt(np.bincount(owner, weights * weights, minlength=total))
    weights = weights / np.where(norms > 0, norms, 1.0)[owner]
    vectors = sparse.csr_matrix((weights, (owner, cols)), shape=(total, len(kept_terms)))
    vectors.sort_indices()
    vocabulary = tuple(kept_terms)
    rows, scores = _neighbours(vectors, k, threshold, hub_penalty)
    return RelatedModel(
        notes, vocabulary, vectors, rows, scores, {rel: i for i, rel in enumerate(notes)}
    )


def _neighbours(
    vectors: sparse.csr_matrix, k: int, threshold: float, hub_penalty: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Each row's ``k`` neighbours and their cosines (see the module's docstring)."""
    import numpy as np

    total = vectors.shape[0]
    wide = min(max(k * CANDIDATES, k), max(total - 1, 0))
    cand_rows = np.full((total, wide), -1, dtype=np.int64)
    cand_cos = np.zeros((total, wide), dtype=np.float64)
    transposed = vectors.T.tocsc()
    for start in range(0, total, BLOCK_ROWS):
        end = min(start + BLOCK_ROWS, total)
        block = (vectors[start:end] @ transposed).toarray()
        block[np.arange(end - start), np.arange(start, end)] = -1.0  # not itself
        if wide == 0:
            continue
        top = np.argpartition(-block, wide - 1, axis=1)[:, :wide]
        cos = np.take_along_axis(block, top, axis=1)
        order = np.argsort(-cos, axis=1, kind="stable")
        cand_rows[start:end] = np.take_along_axis(top, order, axis=1)
        cand_cos[start:end] = np.take_along_axis(cos, order, axis=1)
    # A note's own closeness to everything: the mean of its k best cosines.
    reach = np.clip(cand_cos[:, :k], 0.0, None).mean(axis=1) if wide else np.zeros(total)
    valid = (cand_rows >= 0) & (cand_cos > 0) & (cand_cos >= threshold)
    ranked = np.where(valid, cand_cos - hub_penalty * reach[np.maximum(cand_rows, 0)], -np.inf)
    order = np.argsort(-ranked, axis=1, kind="stable")[:, :k]
    rows = np.take_along_axis(cand_rows, order, axis=1)
    scores = np.take_along_axis(cand_cos, order, axis=1)
    keep = np.take_along_axis(valid, order, axis=1)
    rows = np.where(keep, rows, -1)
    scores = np.where(keep, scores, 0.0)
    if rows.shape[1] < k:  # fewer notes than k
        pad = k - rows.shape[1]
        rows = np.pad(rows, ((0, 0), (0, pad)), constant_values=-1)
        scores = np.pad(scores, ((0, 0), (0, pad)), constant_values=0.0)
    return rows, scores
