"""Each note's nearest notes: its candidates (the best cosines, in one canonical order so an
update can redo a few rows and match a full build exactly), and their re-ranking against
hubs (a note close to everything is discounted by its own mean closeness)."""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import numpy.typing as npt
from scipy import sparse

CANDIDATES = 3  # times k: the cosine's best, re-ranked
# Added to a candidate's rank when one of the two notes names the other (its file name, one
# word or several in a row), times the name's idf over the largest: a mention is the
# plainest sign of a link. P@10 at 0 and 0.05 (0.08): foam-docs 0.400 and 0.406 (0.389),
# logseq-docs 0.166 and 0.179 (0.185); hub share about the same.
MENTION_BONUS = 0.05
BLOCK_ROWS = 256  # rows of the similarity computed at once: a few tens of ms each
THREADS = 2  # scipy's sparse product and numpy's partition let go of the GIL
# A block of 4 × SAMPLE notes or more is cut down before it is sorted: each row's best
# cosines among SAMPLE of its cosines (evenly apart) give a bound its best reach, and only
# the cosines at or above it are sorted (50,000 notes: about 700 cosines a row of 24,000
# stored; the block's top in 17 ms, not 50 ms for a full partition of its dense form).
SAMPLE = 2048
# ... unless the bound lets more than this share of the block through (many cosines tied):
# then the whole block is partitioned as a narrower one is.
SAMPLE_PASS = 0.05
_TINY = np.nextafter(np.float32(0), np.float32(1))  # the least positive float32
try:  # scipy's product of two CSR matrices, its second pass (see ``_product``)
    from scipy.sparse._sparsetools import csr_matmat as _MATMAT
except ImportError:  # pragma: no cover - another scipy
    _MATMAT = None

Ints = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]
Cosines = npt.NDArray[np.float32]  # the product in float32: half the memory to go through
Keys = npt.NDArray[np.int64]  # pairs of notes, (note << 32) | other


def width(k: int) -> int:
    """How many candidates each note keeps (whatever the vault's size, so an update that
    adds or removes notes keeps the shape a full build would have)."""
    return k * CANDIDATES


def top_of(block: Cosines, own: Ints, wide: int) -> tuple[Ints, Cosines]:
    """Each row's ``wide`` best columns by cosine, cosine descending then column ascending,
    without the row's ``own`` column and without cosines ≤ 0 (-1 and 0 in their place).
    ``block`` is overwritten."""
    height, total = block.shape
    rows = np.full((height, wide), -1, dtype=np.int32)
    cos = np.zeros((height, wide), dtype=np.float32)
    take = min(wide, total)
    if take == 0 or height == 0:
        return rows, cos
    block[np.arange(height), own] = -1.0
    if total >= 4 * SAMPLE and take < SAMPLE:
        found = _top_above_bound(block, take)
        if found is not None:
            at, place, column, value = found
            rows[at, place] = column
            cos[at, place] = value
            return rows, cos
    # Negated, so the best are the smallest: numpy selects the first few of a row three
    # times faster than the last few. (Negation is exact: negated again, each value is
    # itself.)
    np.negative(block, out=block)
    if take < total:
        # Partitioned at the first place left out: the best kept come before it, and the
        # best left out is known without another pass over the block. (One place, not
        # two: partitioning at two places took five times as long.)
        parted = np.argpartition(block, take, axis=1)
        part = parted[:, :take]
        left_out = -np.take_along_axis(block, parted[:, take : take + 1], axis=1)[:, 0]
    else:
        part = np.broadcast_to(np.arange(total), (height, total)).copy()
    vals = -np.take_along_axis(block, part, axis=1)
    order = np.lexsort((part, -vals), axis=1)
    part = np.take_along_axis(part, order, axis=1)
    vals = np.take_along_axis(vals, order, axis=1)
    if take < total:
        # The partition keeps any of the notes tied at the last place: keep the first ones.
        tied = (vals[:, -1] > 0) & (left_out == vals[:, -1])
        for r in np.flatnonzero(tied).tolist():
            best = np.lexsort((np.arange(total), block[r]))[:take]  # block[r] is negated
            part[r], vals[r] = best, -block[r, best]
    positive = vals > 0
    rows[:, :take] = np.where(positive, part, -1)
    cos[:, :take] = np.where(positive, vals, 0.0)
    return rows, cos


def _top_above_bound(block: Cosines, take: int) -> tuple[Ints, Ints, Ints, Cosines] | None:
    """``top_of``'s best ``take`` positive cosines of each row, found among the cosines at or
    above a bound no greater than the row's ``take``-th best: the ``take``-th best of a
    sample of its columns. As (row, place, column, cosine) arrays; None when the bound lets
    too many through."""
    height, total = block.shape
    step = total // SAMPLE
    sample = np.partition(block[:, ::step], -take, axis=1)[:, -take]
    bound = np.maximum(sample, _TINY)  # and positive: a cosine of 0 is no candidate
    passed = block >= bound[:, None]
    if np.count_nonzero(passed) > SAMPLE_PASS * block.size:
        return None
    cells = np.flatnonzero(passed)  # row by row, columns ascending
    at, part = np.divmod(cells, total)
    vals = block.ravel()[cells]
    # By row, then cosine descending (a positive float32's bits order as it does, so their
    # complement orders the other way), then column ascending (the stable sort keeps
    # ``nonzero``'s order among equal keys).
    bits = (~vals.view(np.uint32)).astype(np.int64)
    order = np.argsort((at.astype(np.int64) << 32) | bits, kind="stable")
    at, part, vals = at[order], part[order], vals[order]
    starts = np.searchsorted(at, np.arange(height))
    rank = np.arange(len(at)) - starts[at]
    kept = rank < take
    return at[kept], rank[kept], part[kept].astype(np.int32), vals[kept]


def _product(rows: sparse.csr_matrix, transposed: sparse.csr_matrix) -> sparse.csr_matrix:
    """``rows @ transposed``, the same numbers: where it can, by scipy's own routine for its
    second pass alone, into arrays large enough for a dense result. (scipy first counts the
    product's entries in a pass as long as a third of the product's time; a block of a
    large vault's cosines is half full anyway.)"""
    height, width = rows.shape[0], transposed.shape[1]
    cells = height * width
    arrays = (rows.indptr, rows.indices, transposed.indptr, transposed.indices)
    if (
        _MATMAT is None
        or cells >= 2**31
        or rows.data.dtype != np.float32
        or transposed.data.dtype != np.float32
        or any(a.dtype != np.int32 for a in arrays)
    ):
        return rows @ transposed
    indptr = np.empty(height + 1, dtype=np.int32)
    indices = np.empty(cells, dtype=np.int32)
    data = np.empty(cells, dtype=np.float32)
    try:
        _MATMAT(
            height,
            width,
            rows.indptr,
            rows.indices,
            rows.data,
            transposed.indptr,
            transposed.indices,
            transposed.data,
            indptr,
            indices,
            data,
        )
    except (TypeError, ValueError):  # a scipy whose routine is not what it was
        return rows @ transposed
    end = int(indptr[-1])
    return sparse.csr_matrix((data[:end], indices[:end], indptr), shape=(height, width))


def _top_of_sparse(product: sparse.csr_matrix, own: Ints, wide: int) -> tuple[Ints, Cosines] | None:
    """``top_of`` of a block of cosines as it comes from the product (no dense block made):
    only the cosines at or above each row's bound, from an even sample of its stored
    cosines as in ``_top_above_bound``, are sorted; None when the block is too narrow or
    the bound lets too many through."""
    height, total = product.shape
    take = min(wide, total)
    if total < 4 * SAMPLE or take + 1 >= SAMPLE or take == 0 or height == 0:
        return None
    data = product.data
    if len(data) == 0:
        return np.full((height, wide), -1, dtype=np.int32), np.zeros((height, wide), np.float32)
    indptr = product.indptr.astype(np.int64)
    lengths = np.diff(indptr)
    # Each row's sample: SAMPLE of its stored cosines, an even stride apart (all of them
    # when fewer, the rest of the sample -1). The row's own cosine may be one of them: the
    # sample's (take + 1)-th best is no more than the row's take-th best without it.
    offsets = np.arange(SAMPLE, dtype=np.int64)[None, :] * np.maximum(lengths // SAMPLE, 1)[:, None]
    valid = offsets < lengths[:, None]
    sample = np.where(valid, data[np.where(valid, indptr[:-1, None] + offsets, 0)], np.float32(-1))
    bound = np.maximum(np.partition(sample, -(take + 1), axis=1)[:, -(take + 1)], _TINY)
    passed = np.flatnonzero(data >= np.repeat(bound, lengths))
    if len(passed) > SAMPLE_PASS * height * total:
        return None
    at = np.searchsorted(indptr, passed, side="right") - 1
    columns, vals = product.indices[passed], data[passed]
    mine = columns != own[at]  # never itself
    at, columns, vals = at[mine], columns[mine], vals[mine]
    # By row, cosine descending (a positive float32's bits order as it does: their
    # complement the other way), column ascending: one integer key where they fit in one.
    if height <= 1 << 8 and total <= 1 << 23:
        bits = (~vals.view(np.uint32)).astype(np.int64)
        order = np.argsort((at.astype(np.int64) << 55) | (bits << 23) | columns)
    else:
        order = np.lexsort((columns, -vals, at))
    at, columns, vals = at[order], columns[order], vals[order]
    starts = np.searchsorted(at, np.arange(height))
    place = np.arange(len(at)) - starts[at]
    kept = place < take
    rows = np.full((height, wide), -1, dtype=np.int32)
    cos = np.zeros((height, wide), dtype=np.float32)
    rows[at[kept], place[kept]] = columns[kept]
    cos[at[kept], place[kept]] = vals[kept]
    return rows, cos


def candidates(
    vectors: sparse.csr_matrix, wide: int, check: Callable[[], None] | None = None
) -> tuple[Ints, Cosines, sparse.csr_matrix]:
    """Every row's candidates (``top_of`` over the cosine with every other row), a block of
    rows at a time on ``THREADS`` threads; ``check`` is called between blocks. And the
    transposed vectors (term by term: each term's notes), which an update reads again."""
    total = vectors.shape[0]
    cand_rows = np.full((total, wide), -1, dtype=np.int32)
    cand_cos = np.zeros((total, wide), dtype=np.float32)
    transposed = vectors.T.tocsr()

    def one(start: int) -> None:
        end = min(start + BLOCK_ROWS, total)
        own = np.arange(start, end, dtype=np.int32)
        product = _product(vectors[start:end], transposed)
        found = _top_of_sparse(product, own, wide)
        if found is None:
            found = top_of(product.toarray(), own, wide)
        cand_rows[start:end], cand_cos[start:end] = found

    if total <= BLOCK_ROWS:  # one block: no threads to start
        one(0)
        return cand_rows, cand_cos, transposed
    with ThreadPoolExecutor(THREADS) as pool:
        pending: deque[Future[None]] = deque()
        try:
            for start in range(0, total, BLOCK_ROWS):
                pending.append(pool.submit(one, start))
                if len(pending) > THREADS:
                    pending.popleft().result()
                    if check is not None:
                        check()
            while pending:
                pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
    return cand_rows, cand_cos, transposed


def reach(cand_cos: Cosines, k: int) -> Floats:
    """Each note's closeness to everything: the mean of its ``k`` best cosines (added column
    by column, so one row gives the same sum alone as among all)."""
    total = np.zeros(cand_cos.shape[0], dtype=np.float64)
    for j in range(min(k, cand_cos.shape[1])):
        total = total + cand_cos[:, j]
    return total / k


def rank(
    cand_rows: Ints,
    cand_cos: Cosines,
    reaches: Floats,
    k: int,
    threshold: float,
    hub_penalty: float,
    bonus: Floats | None = None,
) -> tuple[npt.NDArray[np.int64], Floats]:
    """Each row's ``k`` neighbours and their cosines: its candidates at or above
    ``threshold``, best by cosine less ``hub_penalty`` times the candidate's reach, plus
    the candidate's ``bonus`` (``bonus_of``, in the candidates' shape) when given."""
    valid = (cand_rows >= 0) & (cand_cos >= threshold)
    penalty = hub_penalty * reaches[np.maximum(cand_rows, 0)]
    ranked = np.where(valid, cand_cos - penalty, -np.inf)
    if bonus is not None:
        ranked = ranked + bonus
    order = np.argsort(-ranked, axis=1, kind="stable")[:, :k]
    keep = np.take_along_axis(valid, order, axis=1)
    rows = np.where(keep, np.take_along_axis(cand_rows, order, axis=1), -1).astype(np.int64)
    scores = np.where(keep, np.take_along_axis(cand_cos, order, axis=1), 0.0).astype(np.float64)
    if rows.shape[1] < k:  # fewer candidates than k
        pad = k - rows.shape[1]
        rows = np.pad(rows, ((0, 0), (0, pad)), constant_values=-1)
        scores = np.pad(scores, ((0, 0), (0, pad)), constant_values=0.0)
    return rows, scores


def named_of(counts: sparse.csr_matrix, columns: Ints, terms: Sequence[str]) -> sparse.csr_matrix:
    """Each note's title terms (notes × terms; ``counting.TITLE_SELF`` for its own name, 1
    for a name it mentions): its counts of the words whose term is a title (those sort
    together), a plural's and its singular's never being one."""
    from .counting import TITLE_PREFIX

    first = bisect.bisect_left(terms, TITLE_PREFIX)
    end = bisect.bisect_left(terms, TITLE_PREFIX[:-1] + chr(ord(TITLE_PREFIX[-1]) + 1))
    # Which words are titles, then which counts are of those: one pass over the counts,
    # of a byte an entry.
    hit = np.flatnonzero(((columns >= first) & (columns < end))[counts.indices])
    owner = np.searchsorted(counts.indptr, hit, side="right") - 1
    named: sparse.csr_matrix = sparse.csr_matrix(
        (counts.data[hit].astype(np.int32), (owner, columns[counts.indices[hit]])),
        shape=(counts.shape[0], len(terms)),
    )
    return named


def mention_bonus(rows: Ints, cand_rows: Ints, named: sparse.csr_matrix, idf: Floats) -> Floats:
    """For the candidates ``cand_rows`` of the notes ``rows``: ``MENTION_BONUS`` times the
    name's weight when one of the two notes mentions the other's name (``named``: each
    note's title terms, its own name's counted ``counting.TITLE_SELF`` times), either way,
    the larger of the two; else 0. A name's weight is its title term's ``idf`` over the
    largest (a name too common or too rare to be a term is none)."""
    from .counting import TITLE_SELF

    bonus = np.zeros(cand_rows.shape, dtype=np.float64)
    valid = cand_rows >= 0
    if named.nnz == 0 or not valid.any():
        return bonus
    owner = np.repeat(np.arange(named.shape[0], dtype=np.int64), np.diff(named.indptr))
    term = named.indices.astype(np.int64)
    own = np.full(named.shape[0], -1, dtype=np.int64)  # each note's own title term
    mine_at = named.data == TITLE_SELF
    own[owner[mine_at]] = term[mine_at]
    weight = np.where(own >= 0, idf[np.maximum(own, 0)], 0.0) / idf.max()
    keys = np.sort((owner << 32) | term)  # (note, title term) held
    # Each pair flat: the note, its candidate.
    mine = np.repeat(rows.astype(np.int64), cand_rows.shape[1])
    theirs = np.maximum(cand_rows, 0).ravel().astype(np.int64)
    live = valid.ravel()

    def holds(reader: npt.NDArray[np.int64], named_one: npt.NDArray[np.int64]) -> Floats:
        """The named one's weight where the reader holds its name, else 0: looked up only
        for pairs whose named one has a name (most have none)."""
        name = own[named_one]
        at = np.flatnonzero(live & (name >= 0))
        key = (reader[at] << 32) | name[at]
        found = at[keys[np.minimum(np.searchsorted(keys, key), len(keys) - 1)] == key]
        out = np.zeros(len(live), dtype=np.float64)
        out[found] = weight[named_one[found]]
        return out

    # The note mentions its candidate's name, or the candidate mentions the note's.
    bonus = np.maximum(holds(mine, theirs), holds(theirs, mine)).reshape(cand_rows.shape)
    return MENTION_BONUS * bonus


def bonus_of(
    rows: Ints, cand_rows: Ints, named: sparse.csr_matrix, idf: Floats, shared: Keys
) -> Floats:
    """Each candidate's bonus in the ranking: ``mention_bonus``, plus ``MENTION_BONUS``
    again when the two notes share a passage (``passages``; ``shared``: the pairs that do)."""
    from .passages import passage_bonus

    mention = mention_bonus(rows, cand_rows, named, idf)
    return mention + passage_bonus(rows, cand_rows, shared, MENTION_BONUS)
