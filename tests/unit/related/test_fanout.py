"""Counting in two processes gives what counting in one gives: the same rows, the words
numbered in the same order (a second process really started, on a handful of notes)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from librarian_gui.core.related import fanout
from librarian_gui.core.related.counting import count_rows

TEXTS = [
    "Apple river stone, apple.",
    "Straße und Fluss: der Fluss.",
    "向量索引 と 検索",
    "River cloud maple; engine's violin.",
    "Harbor quartz apple",
]
CONCEPTS = [(), ("rag",), (), ("rag", "ml"), ()]
OWN = ["apple", None, None, "river", None]
BASIS = (frozenset(), frozenset({"apple", "river"}))


def test_two_processes_count_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout, "PROCESS_NOTES", 2)
    ids, values, index = fanout.count_all(TEXTS, CONCEPTS, OWN, BASIS)
    one_ids, one_values, one_index = count_rows(TEXTS, CONCEPTS, OWN, BASIS, {})
    assert list(index) == list(one_index)  # the same words, numbered alike
    assert [row.tolist() for row in ids] == [row.tolist() for row in one_ids]
    assert [row.tolist() for row in values] == [row.tolist() for row in one_values]
    # "apple" twice in the first note, and once more as a word of its name, "apple"; the
    # second half's own words numbered after the first half's
    first = dict(zip(ids[0].tolist(), values[0].tolist(), strict=True))
    assert first[index["apple"]] == 3
    assert index["harbor"] > index["straße".casefold()]
    assert all(row.dtype == np.int32 for row in ids)


def test_two_processes_find_the_passages_one_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each note's passage hashes, the second process's after the first's, as one process
    finds them: the same words give the same hashes in every process."""
    texts = [*TEXTS, "one two three four five six", "zero one two three four five"]
    monkeypatch.setattr(fanout, "PROCESS_NOTES", 2)
    found: list[np.ndarray] = []
    fanout.count_all(texts, [()] * 7, [None] * 7, BASIS, passages=found)
    alone: list[np.ndarray] = []
    count_rows(texts, [()] * 7, [None] * 7, BASIS, {}, passages=alone)
    assert [row.tolist() for row in found] == [row.tolist() for row in alone]
    # Runs of five words: one in each note of five words (the second; the fourth, where
    # "engine's" is one), none in shorter ones (the Japanese note is three words), two in
    # each of the last two, one of them in both.
    assert [len(row) for row in found] == [0, 1, 0, 1, 0, 2, 2]
    assert len(set(found[5].tolist()) & set(found[6].tolist())) == 1


class Cancelled(Exception):
    pass


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The processes count_all starts (real ones, noted as they start), on any vault of two
    notes or more."""
    monkeypatch.setattr(fanout, "PROCESS_NOTES", 2)
    processes: list[object] = []
    real = fanout.subprocess.Popen

    def popen(*args: object, **kwargs: object) -> object:
        processes.append(real(*args, **kwargs))  # type: ignore[call-overload]
        return processes[-1]

    monkeypatch.setattr(fanout.subprocess, "Popen", popen)
    return processes


def test_a_cancel_stops_the_other_process(started: list[object]) -> None:
    def cancel() -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        fanout.count_all(TEXTS, CONCEPTS, OWN, BASIS, cancel)
    assert len(started) == 1
    assert started[0].poll() is not None  # type: ignore[attr-defined]


def test_without_a_second_process_none_is_started(started: list[object]) -> None:
    """The window's background pass leaves the second core to the window."""
    ids, _values, index = fanout.count_all(TEXTS, CONCEPTS, OWN, BASIS, second_process=False)
    one_ids, _one_values, one_index = count_rows(TEXTS, CONCEPTS, OWN, BASIS, {})
    assert started == []
    assert list(index) == list(one_index)
    assert [row.tolist() for row in ids] == [row.tolist() for row in one_ids]


def test_a_share_too_small_for_the_other_process_counts_as_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two notes: the other process's share rounds down to none, and it hands back no rows."""
    monkeypatch.setattr(fanout, "PROCESS_NOTES", 2)
    ids, values, index = fanout.count_all(TEXTS[:2], CONCEPTS[:2], OWN[:2], BASIS)
    assert len(ids) == len(values) == 2
    # "Apple river stone, apple." (named "apple": once more) and "Straße und Fluss: der
    # Fluss.", by hand
    words = {w: i for i, w in enumerate(index)}
    assert dict(zip(ids[0].tolist(), values[0].tolist(), strict=True))[words["apple"]] == 3
    assert dict(zip(ids[1].tolist(), values[1].tolist(), strict=True))[words["fluss"]] == 2


def test_packed_rows_come_back_as_they_were() -> None:
    rows = (
        [np.array([0, 2], dtype=np.int32), np.array([], dtype=np.int32), np.array([1], np.int32)],
        [np.array([3, 1], dtype=np.int32), np.array([], dtype=np.int32), np.array([7], np.int32)],
        {"a": 0, "b": 1, "c": 2},
    )
    ids, values, table = fanout.unpacked(fanout.packed(rows))
    assert [row.tolist() for row in ids] == [[0, 2], [], [1]]
    assert [row.tolist() for row in values] == [[3, 1], [], [7]]
    assert table == {"a": 0, "b": 1, "c": 2}
    assert fanout.unpacked(fanout.packed(([], [], {}))) == ([], [], {})


def test_the_collector_is_paused_while_a_model_is_built_and_as_it_was_after() -> None:
    from librarian_gui.core.related.model import build_related

    texts = {f"n{i}.md": f"apple river stone {i}" for i in range(5)}
    seen: list[bool] = []
    assert gc.isenabled()
    build_related(texts, check=lambda: seen.append(gc.isenabled()))
    assert seen and not any(seen)  # paused at every check between chunks
    assert gc.isenabled()
    gc.disable()
    try:
        build_related(texts)
        assert not gc.isenabled()  # disabled before: left disabled
    finally:
        gc.enable()
