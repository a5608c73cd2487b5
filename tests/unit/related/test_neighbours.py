"""Candidates in their one canonical order (cosine descending, then note ascending), ties at
the last place kept going to the first notes, and the re-ranking against hubs, by hand."""

from __future__ import annotations

import numpy as np

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
