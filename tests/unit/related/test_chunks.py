"""The model built in chunks (the background worker's courtesy): a ``check`` called between
them cancels by raising, and blocks and threads change no bit of the result."""

from __future__ import annotations

import numpy as np
import pytest

from librarian_gui.core.related import neighbours, weights
from librarian_gui.core.related.incremental import update_related
from librarian_gui.core.related.model import RelatedModel, build_related

WORDS = ["apple", "river", "stone", "cloud", "maple", "engine", "violin", "harbor", "quartz"]
# Sixty notes, each of three words from a ring of nine: near notes share words.
NOTES = {f"n{i:02}.md": " ".join(WORDS[(i + j) % 9] for j in range(3)) for i in range(60)}


class Cancelled(Exception):
    pass


def cancel() -> None:
    raise Cancelled


def test_a_check_that_raises_cancels_a_build_and_an_update() -> None:
    with pytest.raises(Cancelled):
        build_related(NOTES, k=3, check=cancel)
    model = build_related(NOTES, k=3)
    with pytest.raises(Cancelled):
        update_related(model, {"n00.md": "apple apple"}, check=cancel)


def same(a: RelatedModel, b: RelatedModel) -> None:
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(a.vectors, name), getattr(b.vectors, name))
    for name in ("cand_rows", "cand_cos", "rows", "scores"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_blocks_and_threads_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = build_related(NOTES, k=3)
    monkeypatch.setattr(weights, "WEIGH_ROWS", 7)
    monkeypatch.setattr(neighbours, "BLOCK_ROWS", 8)  # 8 blocks on 2 threads
    calls: list[int] = []
    blocked = build_related(NOTES, k=3, check=lambda: calls.append(1))
    same(blocked, whole)
    # template lines and counting (a chunk each), weighing (9 blocks of 7 rows), the
    # similarities (8 blocks of 8 rows: a call as each finishes but the last 2, waited out)
    assert len(calls) == 1 + 1 + 9 + 6
