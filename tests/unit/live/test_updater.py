"""When the updater applies what came: a burst once, after the debounce; a stream that never
pauses every ``max_wait``, in order, nothing lost or repeated. The real thread; changes are
handed over as watchdog's handler hands them (``put``), so their timing is the test's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from librarian_gui.core.live.batches import FileBatch
from librarian_gui.core.live.updater import Listener, VaultUpdater


class Taken(Listener):
    def __init__(self) -> None:
        self.batches: list[FileBatch] = []
        self.done = threading.Event()

    def batch_taken(self, batch: FileBatch) -> None:
        self.batches.append(batch)
        self.done.set()


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.01)


@pytest.fixture
def taken() -> Taken:
    return Taken()


def _updater(root: Path, taken: Taken, debounce: float, max_wait: float) -> VaultUpdater:
    updater = VaultUpdater(root, taken, use_cache=False, debounce=debounce, max_wait=max_wait)
    updater.scan()  # scanned here, not watched: only what the test hands over comes
    updater.start()
    return updater


@pytest.fixture
def burst_updater(tmp_path: Path, taken: Taken) -> Iterator[VaultUpdater]:
    updater = _updater(tmp_path, taken, debounce=0.05, max_wait=5.0)
    yield updater
    updater.close()


def test_a_burst_is_one_batch_after_the_debounce(burst_updater: VaultUpdater, taken: Taken) -> None:
    for n in range(10):
        burst_updater.put([f"n{n}.md"])
    assert taken.done.wait(5)
    time.sleep(0.2)  # nothing more comes of it
    assert [b.paths for b in taken.batches] == [tuple(f"n{n}.md" for n in range(10))]
    assert taken.batches[0].events == 10


def test_a_stream_that_never_pauses_is_applied_every_max_wait(tmp_path: Path, taken: Taken) -> None:
    """16 changes every 50 ms restart a 300 ms debounce before it can end: without the
    deadline no batch would be applied while the stream lasts."""
    updater = _updater(tmp_path, taken, debounce=0.3, max_wait=0.4)
    fed: list[str] = []
    stop = threading.Event()

    def feed() -> None:
        while not stop.is_set():
            for _ in range(16):
                fed.append(f"n{len(fed)}.md")
                updater.put([fed[-1]])
            stop.wait(0.05)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:  # the stream runs until the end: these batches can only come from the deadline
        eventually(lambda: len(taken.batches) >= 2)
    finally:
        stop.set()
        feeder.join()
        updater.close()
    handed = [p for b in taken.batches for p in b.paths]
    assert handed == fed[: len(handed)]  # in order, nothing lost or repeated


def test_flush_applies_at_once_and_moves_stay_with_their_batch(
    tmp_path: Path, taken: Taken
) -> None:
    updater = _updater(tmp_path, taken, debounce=60.0, max_wait=60.0)
    try:
        updater.put(["a.md", "b.md"], ("a.md", "b.md"))
        updater.put(["c.md"])
        updater.flush()  # no minute-long debounce
        assert taken.done.wait(5)
    finally:
        updater.close()
    assert taken.batches == [FileBatch(("a.md", "b.md", "c.md"), (("a.md", "b.md"),), 2)]
