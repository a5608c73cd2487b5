"""Pairs of texts whose rapidfuzz ``fuzz.ratio`` reaches a cutoff, found without comparing
every pair: the concept linter's near-duplicate search over a hundred thousand names.

Exact, by three filters no close pair can fail (Pass-Join, Li et al., VLDB 2011):

- ``fuzz.ratio`` is ``100 * (1 - d / (la + lb))``, with ``d`` the indel distance (characters
  inserted or deleted), so a pair reaches ``score`` only if ``d <= tau``, with
  ``tau = (la + lb) * (100 - score) // 100``; and ``d >= |la - lb|``, which bounds the lengths
  compared, as before. ``d`` also has the parity of ``la + lb``.
- Split the longer text into ``tau + 1`` segments: ``d <= tau`` edits leave one intact, and
  some intact segment ``i`` has at most ``i`` edits before it and ``tau - i`` after it, so it
  is found in the shorter text shifted by at most that much. A candidate is a pair where
  the shorter text has such a segment in such a place (a join on hashes of substrings).
- Each edit changes the count of one character by one: the counts' L1 distance is at most
  ``d``. A candidate whose counts differ more is dropped; the rest are scored.

A block of lengths whose segments are so common that the candidates would outnumber a
fifth of its pairs ("adr-0001" … "adr-0900") is compared in full, as rapidfuzz's ``cdist``
does it fastest then. The linter imports this module only when it has names to compare:
numpy and rapidfuzz take a quarter of a second to load.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

_BASE = 0x9E3779B97F4A7C15  # odd: multiplier of the polynomial hash of substrings
_SALT = 0xD6E8FEB86659FD93  # tells the hashes of one segment number from another's
_BUCKETS = 32  # character counts kept per text (characters folded by code point)
_DENSE_SHARE = 5  # candidates above a fifth of a block's pairs: compare the block in full
_SMALL = 100_000  # pairs of a block compared in full rather than hashed (a millisecond)
_SERIES = 64  # texts of one class in a block: compared only with the texts outside it
_SERIES_BUDGET = 20_000_000  # pairs of two series (a second of rapidfuzz) past which: skipped
_CHUNK = 4_000_000  # candidates, or cells of a full comparison, held at once
_WORD = 1 << 64


def close_pairs(
    texts: Sequence[str],
    score: int,
    classes: Sequence[int] | None = None,
    skipped: set[tuple[int, int]] | None = None,
) -> Iterator[tuple[int, int, float]]:
    """Each unordered pair ``(i, j)`` of ``texts`` whose ``fuzz.ratio`` is at least
    ``score`` (an integer, 1 to 100), with the ratio; ``len(texts[i]) <= len(texts[j])``.

    ``classes`` (one number per text): pairs of one class are neither compared nor given.
    The linter puts the names of a numbered series in one class ("topic 00001" …): they
    are a series, not typos, and 90,000 of them alike would be compared pair by pair.
    Two such classes whose texts alike would make more than ``_SERIES_BUDGET`` pairs are
    not compared with each other either: their pair of classes is added to ``skipped``."""
    if len(texts) < 2:
        return
    of_class = None if classes is None else np.asarray(classes, dtype=np.int64)
    by_length: defaultdict[int, list[int]] = defaultdict(list)
    for index, text in enumerate(texts):
        by_length[len(text)].append(index)
    groups = {n: _Group(texts, ids) for n, ids in by_length.items()}
    counts = _Counts(texts)
    for length in sorted(groups):
        longest = length * (200 - score) // score
        for other in range(length, longest + 1):
            if other in groups:
                yield from _block(
                    texts, groups[length], groups[other], counts, score, of_class, skipped
                )


class _Group:
    """The texts of one length: their indices, and prefix hashes of their characters."""

    def __init__(self, texts: Sequence[str], ids: list[int]) -> None:
        self.texts = texts
        self.length = len(texts[ids[0]])
        self.ids = np.array(ids, dtype=np.int64)
        self._prefix: NDArray[np.uint64] | None = None
        self._segments: dict[int, _Segments] = {}

    def substring_hashes(self, start: int, size: int, salt: int) -> NDArray[np.uint64]:
        """The hash of each text's characters ``start`` to ``start + size``, salted."""
        prefix = self._prefix_hashes()
        power = np.uint64(pow(_BASE, size, _WORD))
        with np.errstate(over="ignore"):
            found = prefix[:, start + size] - prefix[:, start] * power
        return found ^ np.uint64(salt)

    def _prefix_hashes(self) -> NDArray[np.uint64]:
        """Column k: the hash of each text's first k characters (made when first needed)."""
        if self._prefix is None:
            n, rows = self.length, len(self.ids)
            joined = "".join([self.texts[i] for i in self.ids.tolist()])
            data = joined.encode("utf-32-le", "surrogatepass")
            codes = np.frombuffer(data, dtype=np.uint32).reshape(rows, n).astype(np.uint64)
            prefix = np.zeros((rows, n + 1), dtype=np.uint64)
            with np.errstate(over="ignore"):
                for column in range(n):
                    prefix[:, column + 1] = prefix[:, column] * np.uint64(_BASE) + (
                        codes[:, column] + np.uint64(1)
                    )
            self._prefix = prefix
        return self._prefix

    def segments(self, tau: int) -> _Segments:
        """The texts split into ``tau + 1`` segments, hashed and sorted for a join."""
        if tau not in self._segments:
            self._segments[tau] = _Segments(self, tau)
        return self._segments[tau]


class _Segments:
    """A group's texts cut into segments: the distinct salted hashes, sorted, and for each
    the run of texts (``text[first:first + count]``) that have it."""

    def __init__(self, group: _Group, tau: int) -> None:
        size, extra = divmod(group.length, tau + 1)
        self.bounds: list[tuple[int, int]] = []
        start = 0
        for number in range(tau + 1):
            width = size + (number >= tau + 1 - extra)
            self.bounds.append((start, width))
            start += width
        hashes = np.concatenate(
            [group.substring_hashes(p, m, _salt(i)) for i, (p, m) in enumerate(self.bounds)]
        )
        order = np.argsort(hashes, kind="stable")
        self.unique, self.first, self.count = np.unique(
            hashes[order], return_index=True, return_counts=True
        )
        self.text = order % len(group.ids)
        # A direct table on the hashes' top bits, 8 to 16 slots a hash: the place of the
        # one hash in a slot (+1), or -1 where several share it (those are bisected). Two
        # lookups a probe instead of a bisection's twenty.
        bits = max(1, (8 * len(self.unique)).bit_length())
        self._shift = np.uint64(64 - bits)
        slots, first, count = np.unique(
            (self.unique >> self._shift).astype(np.int64), return_index=True, return_counts=True
        )
        self._table = np.zeros(1 << bits, dtype=np.int32)
        self._table[slots] = np.where(count == 1, first + 1, -1)

    def find(self, probe: NDArray[np.uint64]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The places in ``probe`` of hashes some segment has, and for every place of
        ``probe`` the place in ``unique`` its hash would have."""
        entry = self._table[(probe >> self._shift).astype(np.int64)]
        at = np.maximum(entry - 1, 0)
        shared = np.flatnonzero(entry < 0)
        if len(shared):
            at[shared] = np.minimum(
                np.searchsorted(self.unique, probe[shared]), len(self.unique) - 1
            )
        return np.flatnonzero((entry != 0) & (self.unique[at] == probe)), at


def _salt(number: int) -> int:
    return ((number + 1) * _SALT) % _WORD


class _Counts:
    """Per text, how many of its characters fall in each of _BUCKETS (at most 255), and
    in each of 8 coarser buckets, packed in one 64-bit word: a first, cheaper test."""

    def __init__(self, texts: Sequence[str]) -> None:
        sizes = np.array([len(t) for t in texts], dtype=np.int64)
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
        joined = "".join(texts).encode("utf-32-le", "surrogatepass")
        codes = np.frombuffer(joined, dtype=np.uint32).astype(np.int64)
        fine = np.bincount(rows * _BUCKETS + codes % _BUCKETS, minlength=len(texts) * _BUCKETS)
        fine = fine.reshape(len(texts), _BUCKETS)
        # Merged buckets differ by no more than the buckets they merge: still a bound.
        coarse = fine.reshape(len(texts), 8, _BUCKETS // 8).sum(axis=2)
        self.fine = np.minimum(fine, 255).astype(np.uint8)
        self.coarse = np.minimum(coarse, 255).astype(np.uint8).view(np.uint64).ravel()

    def close(self, q: NDArray[np.int64], r: NDArray[np.int64], tau: int) -> NDArray[np.bool_]:
        """Which pairs (q[k], r[k]) have counts at most ``tau`` apart (L1)."""
        keep = _l1(self.coarse[q].view(np.uint8), self.coarse[r].view(np.uint8), 8) <= tau
        near = np.flatnonzero(keep)
        keep[near] = _l1(self.fine[q[near]], self.fine[r[near]], _BUCKETS) <= tau
        return keep


def _l1(a: NDArray[np.uint8], b: NDArray[np.uint8], width: int) -> NDArray[np.int32]:
    a, b = a.reshape(-1, width), b.reshape(-1, width)
    distance: NDArray[np.int32] = (np.maximum(a, b) - np.minimum(a, b)).sum(axis=1, dtype=np.int32)
    return distance


def _block(
    texts: Sequence[str],
    short: _Group,
    long: _Group,
    counts: _Counts,
    score: int,
    classes: NDArray[np.int64] | None,
    skipped: set[tuple[int, int]] | None,
) -> Iterator[tuple[int, int, float]]:
    """The close pairs of a text of ``short`` and a text of ``long`` (of equal or greater
    length; each pair once when they are the same group)."""
    delta = long.length - short.length
    tau = (short.length + long.length) * (100 - score) // 100
    tau -= (tau - delta) % 2  # the indel distance has the parity of the lengths' sum
    if tau < delta:
        return
    if len(short.ids) * len(long.ids) <= _SMALL:
        yield from _compare_all(texts, short, long, score, classes, skipped)
        return
    segments = long.segments(tau)
    probes = []
    for i, (start, size) in enumerate(segments.bounds):
        # Segment i intact, with at most i edits before it and tau - i after it.
        low = max(-i, -delta - (tau - i), -start)
        high = min(i, -delta + (tau - i), short.length - size - start)
        for shift in range(low, high + 1):
            probes.append(short.substring_hashes(start + shift, size, _salt(i)))
    if not probes:
        return
    hits, at = segments.find(np.concatenate(probes))
    per_hit = segments.count[at[hits]]
    ends = np.cumsum(per_hit)
    if len(hits) and int(ends[-1]) * _DENSE_SHARE > len(short.ids) * len(long.ids):
        yield from _compare_all(texts, short, long, score, classes, skipped)
        return
    found: set[tuple[int, int]] = set()
    begin = 0
    while begin < len(hits):
        # The next hits, holding at most _CHUNK candidates (one hit at least).
        base = int(ends[begin - 1]) if begin else 0
        end = max(begin + 1, int(np.searchsorted(ends, base + _CHUNK, side="right")))
        found.update(_candidates(short, long, counts, tau, hits[begin:end], at, per_hit[begin:end]))
        begin = end
    for q, r in sorted(found):
        if classes is not None and classes[q] == classes[r]:
            continue
        value = fuzz.ratio(texts[q], texts[r], score_cutoff=score)
        if value:
            yield q, r, value


def _candidates(
    short: _Group,
    long: _Group,
    counts: _Counts,
    tau: int,
    hits: NDArray[np.intp],
    at: NDArray[np.intp],
    per_hit: NDArray[np.intp],
) -> Iterator[tuple[int, int]]:
    """The pairs (text indices) of some segment hits whose character counts are close."""
    segments = long.segments(tau)
    total = int(per_hit.sum())
    queries = np.repeat(hits % len(short.ids), per_hit)
    offsets = np.arange(total) - np.repeat(np.cumsum(per_hit) - per_hit, per_hit)
    matches = segments.text[np.repeat(segments.first[at[hits]], per_hit) + offsets]
    if short is long:
        keep = queries < matches
        queries, matches = queries[keep], matches[keep]
    q, r = short.ids[queries], long.ids[matches]
    close = counts.close(q, r, tau)
    return zip(q[close].tolist(), r[close].tolist(), strict=True)


def _compare_all(
    texts: Sequence[str],
    short: _Group,
    long: _Group,
    score: int,
    classes: NDArray[np.int64] | None,
    skipped: set[tuple[int, int]] | None,
) -> Iterator[tuple[int, int, float]]:
    """Every pair of a block (of different classes), compared by rapidfuzz.

    The members of a class with many texts in the block (a series) are compared only with
    the texts outside it: the rest of the block's rows are compared with every column and
    their few same-class cells dropped. Within one group each pair is taken once, in the
    orientation whose row comes first in the group."""
    rows = np.arange(len(short.ids))
    if classes is None:
        yield from _compare_rows(texts, short, long, rows, None, score, None)
        return
    row_class = classes[short.ids]
    column_class = classes[long.ids]
    values, sizes = np.unique(row_class, return_counts=True)
    series = values[sizes >= _SERIES]
    in_series = np.isin(row_class, series)
    yield from _compare_rows(texts, short, long, rows[~in_series], None, score, classes)
    column_values, column_sizes = np.unique(column_class, return_counts=True)
    for value, size in zip(values.tolist(), sizes.tolist(), strict=True):
        if size < _SERIES:
            continue
        # Two big series alike ("topic 00001" and "topic-00001"): too many pairs to score.
        too_many = column_values[
            (column_sizes >= _SERIES)
            & (column_sizes * size > _SERIES_BUDGET)
            & (column_values != value)
        ]
        if skipped is not None:
            skipped.update((min(value, other), max(value, other)) for other in too_many.tolist())
        columns = np.flatnonzero((column_class != value) & ~np.isin(column_class, too_many))
        yield from _compare_rows(texts, short, long, rows[row_class == value], columns, score, None)


def _compare_rows(
    texts: Sequence[str],
    short: _Group,
    long: _Group,
    rows: NDArray[np.intp],
    columns: NDArray[np.intp] | None,
    score: int,
    classes: NDArray[np.int64] | None,
) -> Iterator[tuple[int, int, float]]:
    """The pairs of the given rows (places in ``short``) and columns (places in ``long``;
    None: all) that reach ``score``; with ``classes``, those of one class are dropped."""
    if len(rows) == 0:
        return
    picked = np.arange(len(long.ids)) if columns is None else columns
    if len(picked) == 0:
        return
    choice_ids = long.ids[picked]
    choices = [texts[j] for j in choice_ids.tolist()]
    step = max(1, _CHUNK // len(choices))
    for top in range(0, len(rows), step):
        places = rows[top : top + step]
        queries = short.ids[places].tolist()
        # Whole scores in one byte each: only "at least the cutoff or not" is read from
        # them; the few hits are scored again exactly.
        scores = process.cdist(
            [texts[i] for i in queries],
            choices,
            scorer=fuzz.ratio,
            score_cutoff=score,
            dtype=np.uint8,
            # Threads start at each call: worth it for big blocks only.
            workers=-1 if len(queries) * len(choices) > _SMALL else 1,
        )
        if short is long:  # each pair once: its row first in the group
            scores[places[:, None] >= picked[None, :]] = 0
        if classes is not None:
            scores[classes[short.ids[places]][:, None] == classes[choice_ids][None, :]] = 0
        for q, c in zip(*np.nonzero(scores), strict=True):
            i, j = queries[q], int(choice_ids[c])
            yield i, j, fuzz.ratio(texts[i], texts[j])
