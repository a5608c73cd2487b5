"""The worker's courtesy pauses also wait while a save is on its way to the panes, but never
while the worker holds the index's lock (the update it would wait for needs that lock).
Real threads and a real RLock; the worker's work is plain Python calls."""

from __future__ import annotations

import threading
import time

from librarian_gui.core.courtesy import courteous
from librarian_gui.services.related import YieldingCourtesy, _holds


def _step(n: int) -> int:
    return n + 1


def _busy(counter: list[int], stop: threading.Event, seconds: float | None = None) -> None:
    """Python calls (each one a chance for the courtesy hook) until ``stop`` or ``seconds``."""
    end = None if seconds is None else time.perf_counter() + seconds
    while not stop.is_set() and (end is None or time.perf_counter() < end):
        counter[0] = _step(counter[0])


def test_a_pause_waits_while_an_update_is_under_way() -> None:
    quiet = threading.Event()  # cleared: a save is on its way
    waiting = threading.Event()
    stop = threading.Event()
    lock = threading.RLock()
    counter = [0]

    def wait_for_updates() -> None:
        waiting.set()
        quiet.wait()

    def work() -> None:
        with courteous(YieldingCourtesy(wait_for_updates, _holds(lock))):
            _busy(counter, stop)

    worker = threading.Thread(target=work)
    worker.start()
    try:
        assert waiting.wait(10)  # at its first pause, it waits for the update
        held = counter[0]
        time.sleep(0.05)
        assert counter[0] == held  # and does nothing meanwhile
        quiet.set()  # the update is through: it goes on
        stop.set()
        worker.join(10)
        assert not worker.is_alive()
        assert counter[0] >= held
    finally:
        quiet.set()
        stop.set()
        worker.join(10)


def test_no_pause_waits_while_the_index_lock_is_held() -> None:
    quiet = threading.Event()  # never set while the worker runs
    waited = threading.Event()
    lock = threading.RLock()
    counter = [0]

    def wait_for_updates() -> None:
        waited.set()
        quiet.wait()

    courtesy = YieldingCourtesy(wait_for_updates, _holds(lock))

    def work() -> None:
        with lock, courteous(courtesy):
            _busy(counter, threading.Event(), seconds=0.1)  # some 25 turns of 4 ms

    worker = threading.Thread(target=work)
    worker.start()
    try:
        worker.join(10)
        assert not worker.is_alive()
        assert courtesy.pauses > 0  # it paused, as any background thread does
        assert not waited.is_set()  # but never for the update
    finally:
        quiet.set()
        worker.join(10)


def test_a_lock_that_cannot_tell_is_taken_as_held() -> None:
    assert _holds(threading.Lock())() is True
    rlock = threading.RLock()
    assert _holds(rlock)() is False
    with rlock:
        assert _holds(rlock)() is True
