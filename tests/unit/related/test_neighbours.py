"""Candidates in their one canonical order (cosine descending, then note ascending), ties at
the last place kept going to the first notes, and the re-ranking against hubs, by hand."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from librarian_gui.core.related import neighbours
from librarian_gui.core.related.neighbours import rank, reach, top_of


def test_ties_at_the_last_place_go_to_the_first_notes() -> None:
    block = np.array(
        [
            [0.0, 0.2, 0.2, 0.5, 0.2, 0.2, 0.2],  # note 0: five 0.2s tie for the last two places
            [0.3, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0],  # note 1 itself (0.9) left out; one positive
        ],
        dtype=np.float32,
    )
    rows, cos = top_of(block.copy(), np.array([0, 1], dtype=np.int32), 3)
    assert rows.tolist() == [[3, 1, 2], [0, -1, -1]]
    assert cos.tolist() == [[0.5, np.float32(0.2), np.float32(0.2)], [np.float32(0.3), 0, 0]]


def test_a_row_wider_than_the_vault_is_padded() -> None:
    block = np.array([[1.0, 0.4], [0.4, 1.0]], dtype=np.float32)
    rows, cos = top_of(block, np.array([0, 1], dtype=np.int32), 4)
    assert rows.tolist() == [[1, -1, -1, -1], [0, -1, -1, -1]]
    assert cos[:, 0].tolist() == [np.float32(0.4)] * 2


def test_a_hub_is_passed_over_for_a_note_close_to_fewer() -> None:
    # Note 0's candidates: 1 (cosine 0.5, a hub: its reach 0.6) and 2 (0.45, reach 0.1).
    cand_rows = np.array([[1, 2], [0, 2], [0, 1]], dtype=np.int32)
    cand_cos = np.array([[0.5, 0.45], [0.5, 0.7], [0.45, 0.7]], dtype=np.float32)
    reaches = np.array([0.3, 0.6, 0.1])
    rows, scores = rank(cand_rows, cand_cos, reaches, 2, 0.0, 0.5)
    # 0.5 - 0.5 × 0.6 = 0.2 < 0.45 - 0.5 × 0.1 = 0.4: note 2 first, scored by its cosine
    assert rows[0].tolist() == [2, 1]
    assert scores[0].tolist() == [float(np.float32(0.45)), 0.5]
    # reach: the mean of each row's k best cosines, added column by column
    assert reach(cand_cos, 2).tolist() == [
        (float(np.float32(0.5)) + float(np.float32(0.45))) / 2,
        (float(np.float32(0.5)) + float(np.float32(0.7))) / 2,
        (float(np.float32(0.45)) + float(np.float32(0.7))) / 2,
    ]


def _wide_block() -> np.ndarray:
    """Two notes against 10,000: wide enough for the bound taken from a sample of columns.
    Note 0: 0.9 at its own column (0, left out), 0.7 at 9,999, three 0.5s (5, 4,000, 8,000)
    tied for the last two places, 0.1 at every column from 100 to 599 (its cosines
    beyond its best few). Note 1: positive at two columns only (fewer than k)."""
    block = np.zeros((2, 10_000), dtype=np.float32)
    block[0, 100:600] = 0.1
    block[0, [0, 9_999, 5, 4_000, 8_000]] = [0.9, 0.7, 0.5, 0.5, 0.5]
    block[1, [1, 3, 7]] = [1.0, 0.25, 0.75]  # its own column, 1, left out
    return block


def test_a_wide_block_keeps_the_best_and_the_first_tied() -> None:
    rows, cos = top_of(_wide_block(), np.array([0, 1], dtype=np.int32), 3)
    assert rows.tolist() == [[9_999, 5, 4_000], [7, 3, -1]]
    assert cos.tolist() == [
        [np.float32(0.7), 0.5, 0.5],
        [0.75, 0.25, 0.0],
    ]


def test_a_wide_block_of_ties_everywhere_gives_the_first_columns() -> None:
    # Every column 0.5 but the note's own: the bound lets every cell through, and the
    # whole block is partitioned instead; the first columns win the tie either way.
    block = np.full((2, 10_000), 0.5, dtype=np.float32)
    rows, cos = top_of(block, np.array([0, 1], dtype=np.int32), 4)
    assert rows.tolist() == [[1, 2, 3, 4], [0, 2, 3, 4]]
    assert cos.tolist() == [[0.5] * 4] * 2


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 40),
    st.sampled_from([0.0005, 0.01, 0.3, 1.0]),
    st.integers(1, 8),
)
def test_a_wide_block_selects_as_a_narrow_one(
    seed: int, wide: int, density: float, levels: int
) -> None:
    """The bound's way and the whole partition's give the same candidates (few cosines,
    many, many tied): the same block with the bound's way switched off by a sample as
    wide as the block."""
    rng = np.random.default_rng(seed)
    height, total = 5, 8_500
    values = (rng.integers(1, levels + 1, (height, total)) / levels).astype(np.float32)
    block = np.where(rng.random((height, total)) < density, values, 0).astype(np.float32)
    own = rng.integers(0, total, height).astype(np.int32)
    fast = top_of(block.copy(), own, wide)
    with _sample(total):
        slow = top_of(block.copy(), own, wide)
    assert fast[0].tolist() == slow[0].tolist()
    assert fast[1].tolist() == slow[1].tolist()


@contextmanager
def _sample(size: int) -> Iterator[None]:
    saved = neighbours.SAMPLE
    neighbours.SAMPLE = size
    try:
        yield
    finally:
        neighbours.SAMPLE = saved


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.02, 0.1, 0.5]), st.sampled_from([1.0, 0.05]))
def test_candidates_of_a_wide_vault_are_each_notes_best(
    seed: int, density: float, sample_pass: float
) -> None:
    """Every note's candidates, with the product's blocks cut down by a sampled bound (a
    sample of 16 makes 300 notes wide enough), are its best cosines with the other notes:
    cosine descending, then note ascending, none ≤ 0, picked here from the whole product
    note by note."""
    rng = np.random.default_rng(seed)
    notes, terms, wide = 300, 40, 6
    weights = rng.integers(1, 4, (notes, terms)) * (rng.random((notes, terms)) < density)
    vectors = sparse.csr_matrix(weights.astype(np.float32))  # few levels: many ties
    full = (vectors @ vectors.T).toarray()
    with _sample(16), _sample_pass(sample_pass):
        rows, cos, _ = neighbours.candidates(vectors, wide)
    for i in range(notes):
        best = sorted(
            (j for j in range(notes) if j != i and full[i, j] > 0), key=lambda j: (-full[i, j], j)
        )[:wide]
        assert rows[i].tolist() == best + [-1] * (wide - len(best))
        assert cos[i].tolist() == [float(full[i, j]) for j in best] + [0.0] * (wide - len(best))


@contextmanager
def _sample_pass(share: float) -> Iterator[None]:
    saved = neighbours.SAMPLE_PASS
    neighbours.SAMPLE_PASS = share
    try:
        yield
    finally:
        neighbours.SAMPLE_PASS = saved
