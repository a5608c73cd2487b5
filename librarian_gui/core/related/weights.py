"""Notes as vectors: the vocabulary and idf a full build fixes, and each note's counts weighed,
pruned to its key terms and L2-normalised, the same way for one note as for a vault."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from scipy import sparse

from ..text.analyzer import kept
from .counting import CONCEPT_PREFIX, TITLE_PREFIX

CONCEPT_BOOST = 2.0
# A word in more than 5 √n of a large vault's n notes is as good as a stop word there, and
# the similarity's cost grows with the square of a word's notes: 10,000 notes (5 %, 500
# notes) 17 % less time and the largest hub 3.1 % to 1.3 % of the lists; 50,000 notes
# (2.2 %) 33 s to 18 s. Vaults under 500 notes keep half. (Measured for speed only: no
# labelled vault that large.)
COMMON_SQRT = 5.0
COMMON_MIN = 250
WEIGH_ROWS = 1000  # notes weighed between two calls of ``check`` (a few tens of ms)
TITLE_BOOST = 2.0
# 1 + ln(tf) read from one table computed once: numpy's vectorised log may round the last
# bit differently by an element's place in an array, and a note weighed alone (an update)
# must weigh exactly as it does among all notes (a full build).
_TF_MAX = 1 << 16
_SUBLINEAR = 1.0 + np.log(np.arange(1, _TF_MAX, dtype=np.float64))
# Plurals that add "es" to the singular ("classes", "boxes", "matches"); others add "s".
_ES_PLURALS = ("sses", "xes", "zzes", "ches", "shes")

Ints = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]


def singular(word: str) -> str | None:
    """What a word would be as an English plural's singular ("classes": "class", "queries":
    "query", "notes": "note"), by its suffix alone: None for a word that cannot be one
    (shorter than four, not ASCII letters, ending in "ss", "us" or "is"), whose singular
    is no comparable word (a stop word's plural), or could be a plural itself (so a fold
    is never folded again). One guess only: with a second ("times": "tim" when the vault
    lacks "time"), the terms alone (``term_columns``) would map a plural where the table
    did not group it, and a rare name would take in every note with the common word."""
    if len(word) <= 3 or word[-1] != "s" or not (word.isascii() and word.isalpha()):
        return None
    if word.endswith(("ss", "us", "is")):
        return None
    if word.endswith("ies"):
        found = word[:-3] + "y"
    elif word.endswith(_ES_PLURALS):
        found = word[:-2]
    else:
        found = word[:-1]
    return found if kept(found) and not _foldable(found) else None


def _foldable(word: str) -> bool:
    return word[-1:] == "s" and not word.endswith(("ss", "us", "is"))


def vocabulary(table: Sequence[str], counts: sparse.csr_matrix) -> tuple[tuple[str, ...], Floats]:
    """The terms worth comparing, sorted, and their idf: a word in one note explains no pair
    and one in more than half of them (or, in a large vault, in more than ``COMMON_SQRT``
    √n of its n notes and ``COMMON_MIN``) hardly any; stop words, numbers, single letters
    out. A plural whose singular is in the table too is that word's (see ``term_columns``),
    and a note holding both counts once in its document frequency."""
    total = counts.shape[0]
    df = np.bincount(counts.indices, minlength=len(table))
    place = {w: i for i, w in enumerate(table)}
    group = np.arange(len(table), dtype=np.int64)
    for i in [i for i, w in enumerate(table) if _foldable(w)]:  # only these can fold
        if kept(table[i]):
            single = singular(table[i])
            # A word of the table no note holds any more (an update's) is none of the
            # vault's: the grouping is the same as a build from the texts alone.
            at = None if single is None else place.get(single)
            if at is not None and df[at] > 0:
                group[i] = at
    folded = group != np.arange(len(table))
    if folded.any():
        shared = np.zeros(len(table), dtype=bool)
        shared[group[folded]] = True
        shared[folded] = True
        entry = np.flatnonzero(shared[counts.indices])
        owner = np.searchsorted(counts.indptr, entry, side="right") - 1
        # Each (note, group) pair once: sorted and compared with the one before (np.unique
        # took 50 times as long on the 10k vault's million pairs).
        pairs = np.sort((owner.astype(np.int64) << 32) | group[counts.indices[entry]])
        first = np.ones(len(pairs), dtype=bool)
        first[1:] = pairs[1:] != pairs[:-1]
        pairs = pairs[first]
        df[shared] = 0
        df += np.bincount((pairs & 0xFFFFFFFF).astype(np.int64), minlength=len(table))
    top_df = max(2, min(total // 2, max(COMMON_MIN, int(COMMON_SQRT * math.sqrt(total)))))
    heads = np.flatnonzero(~folded & (df >= 2) & (df <= top_df)).tolist()
    terms = sorted(
        (table[i], int(df[i])) for i in heads if table[i].startswith("\x00") or kept(table[i])
    )
    idf = [math.log((1 + total) / (1 + d)) + 1.0 for _, d in terms]
    return tuple(t for t, _ in terms), np.array(idf, dtype=np.float64)


def term_columns(table: Sequence[str], terms: Sequence[str]) -> Ints:
    """Each word of ``table``'s column among ``terms`` (sorted): its own, else that of its
    ``singular`` among them ("links" weighed as "link"), else -1. It depends on the terms
    alone: a note weighed against an earlier build's terms (an update) maps its words as a
    build given those terms does. A short table is looked up by bisection, not through a
    map of every term."""
    lookup = None if len(table) * 16 < len(terms) else {t: i for i, t in enumerate(terms)}

    def find(term: str) -> int:
        if lookup is not None:
            return lookup.get(term, -1)
        at = bisect.bisect_left(terms, term)
        return at if at < len(terms) and terms[at] == term else -1

    def column(word: str) -> int:
        at = find(word)
        if at < 0 and _foldable(word) and kept(word):
            single = singular(word)
            if single is not None:
                return find(single)
        return at

    return np.fromiter(map(column, table), dtype=np.int32, count=len(table))


def term_boost(terms: Sequence[str]) -> Floats:
    """Each term's factor: the concepts' and titles' boosts, 1 for words, 0 for a title of
    several words (it marks a mention, ``neighbours.mention_bonus``, and is left out of the
    vectors). Each kind sorts together (by its prefix): found by bisection, not by a pass
    over every term."""
    boost = np.ones(len(terms), dtype=np.float64)
    for prefix, factor in ((CONCEPT_PREFIX, CONCEPT_BOOST), (TITLE_PREFIX, TITLE_BOOST)):
        past = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        first, end = bisect.bisect_left(terms, prefix), bisect.bisect_left(terms, past)
        boost[first:end] = factor
        if prefix == TITLE_PREFIX:
            phrases = [first + i for i, term in enumerate(terms[first:end]) if " " in term]
            boost[phrases] = 0.0
    return boost


def weigh_all(
    counts: sparse.csr_matrix,
    columns: Ints,
    idf: Floats,
    boost: Floats,
    max_terms: int,
    check: Callable[[], None] | None = None,
) -> sparse.csr_matrix:
    """``weigh`` a block of ``WEIGH_ROWS`` rows at a time, ``check`` called between blocks
    (each row is weighed alone: the blocks change nothing)."""
    if counts.shape[0] <= WEIGH_ROWS:
        return weigh(counts, columns, idf, boost, max_terms)
    blocks = []
    for start in range(0, counts.shape[0], WEIGH_ROWS):
        if check is not None:
            check()
        blocks.append(weigh(counts[start : start + WEIGH_ROWS], columns, idf, boost, max_terms))
    stacked: sparse.csr_matrix = sparse.vstack(blocks, format="csr")
    return stacked


def weigh(
    counts: sparse.csr_matrix,
    columns: Ints,
    idf: Floats,
    boost: Floats,
    max_terms: int,
) -> sparse.csr_matrix:
    """Each row of ``counts`` as a unit vector over the terms: sublinear tf × idf (× the
    term's boost; a term of boost 0 left out), its ``max_terms`` heaviest terms kept (ties
    by column)."""
    total = counts.shape[0]
    sizes = np.diff(counts.indptr)
    owner = np.repeat(np.arange(total, dtype=np.int32), sizes)
    cols = columns[counts.indices]
    keep = cols >= 0
    keep[keep] = boost[cols[keep]] > 0  # a title of several words is no part of a vector
    cols, owner = cols[keep], owner[keep]
    cols, owner, tf = _merged(cols, owner, counts.data[keep], columns, len(idf))
    tf = np.minimum(tf, _TF_MAX - 1)
    weights = _SUBLINEAR[tf - 1] * idf[cols] * boost[cols]
    # Every (note, term, weight) at once, by note then weight descending: one stable sort
    # of one integer key (the note above a positive float32's bits, which order as the
    # floats do), a tenth of a three-key lexsort's time. Weights equal in float32 keep the
    # order of the note's counts, which follows its text: a note weighed alone (an update)
    # or among all (a full build) keeps the same terms.
    bits = (~weights.astype(np.float32).view(np.uint32)).astype(np.int64)
    order = np.argsort((owner.astype(np.int64) << 32) | bits, kind="stable")
    cols, weights, owner = cols[order], weights[order], owner[order]
    starts = np.searchsorted(owner, np.arange(total, dtype=np.int32))
    rank = np.arange(len(owner)) - starts[owner]
    top = rank < max_terms
    cols, weights, owner = cols[top], weights[top], owner[top]
    norms = np.sqrt(np.bincount(owner, weights * weights, minlength=total))
    weights = weights / np.where(norms > 0, norms, 1.0)[owner]
    # Columns ascending within a row: a dot product then adds its terms in one order
    # whichever side computes it, so cos(a, b) == cos(b, a) to the last bit.
    order = np.argsort((owner.astype(np.int64) << 32) | cols, kind="stable")
    cols, weights, owner = cols[order], weights[order], owner[order]
    indptr = np.zeros(total + 1, dtype=np.int32)
    np.cumsum(np.bincount(owner, minlength=total), out=indptr[1:])
    return sparse.csr_matrix((weights.astype(np.float32), cols, indptr), shape=(total, len(idf)))


def _merged(
    cols: Ints, owner: Ints, tf: Ints, columns: Ints, width: int
) -> tuple[Ints, Ints, Ints]:
    """A note's entries of one term (its singular and plural) as one: the counts added up at
    the first entry's place (so the order still follows the note's counts), the others out.
    Only terms of more than one word are looked at."""
    shared = np.bincount(columns[columns >= 0], minlength=width) > 1
    spots = np.flatnonzero(shared[cols])
    if len(spots) == 0:
        return cols, owner, tf
    key = (owner[spots].astype(np.int64) << 32) | cols[spots]
    order = np.argsort(key, kind="stable")
    key, spots = key[order], spots[order]
    first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    if len(first) == len(spots):
        return cols, owner, tf
    tf = tf.copy()
    tf[spots[first]] = np.add.reduceat(tf[spots], first)
    keep = np.ones(len(cols), dtype=bool)
    keep[spots] = False
    keep[spots[first]] = True
    return cols[keep], owner[keep], tf[keep]
