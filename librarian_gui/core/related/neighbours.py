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

Ints = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]
Cosines = npt.NDArray[np.float32]  # the product in float32: half the memory to go through


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
        block = (vectors[start:end] @ transposed).toarray()
        own = np.arange(start, end, dtype=np.int32)
        cand_rows[start:end], cand_cos[start:end] = top_of(block, own, wide)

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
    the candidate's ``bonus`` (``mention_bonus``, in the candidates' shape) when given."""
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
