"""The worker's courtesy pauses also wait while a save is on its way to the panes: at the
entry of the related-notes code's own functions only, never while the worker holds the index's lock
(the update it would wait for needs that lock), and never from within another wait (which
holds its Event's lock). Real threads, Events and an RLock; the worker's work is calls of a
real function of ``core.related``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from librarian_gui.core.courtesy import Courtesy
from librarian_gui.core.related.model import terms_for
from librarian_gui.services.related import _holds, yielding


def _busy(counter: list[int], stop: threading.Event, seconds: float | None = None) -> None:
    """Calls of a function of ``core.related`` until ``stop`` or ``seconds``."""
    end = None if seconds is None else time.perf_counter() + seconds
    while not stop.is_set() and (end is None or time.perf_counter() < end):
        terms_for(1000)  # a Python function of core.related (not a cached one)
        counter[0] += 1


def _plain(counter: list[int], seconds: float) -> None:
    """Python calls that are not the related-notes code's (a library's, the standard library's)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        threading.current_thread()
        counter[0] += 1


def _run(work: Callable[[], None]) -> threading.Thread:
    worker = threading.Thread(target=work, daemon=True)  # daemon: a deadlock cannot hang
    worker.start()
    return worker


def test_a_pause_waits_while_an_update_is_under_way() -> None:
    quiet = threading.Event()  # cleared: a save is on its way
    waiting = threading.Event()
    stop = threading.Event()
    counter = [0]

    def wait_for_updates() -> None:
        waiting.set()
        quiet.wait()

    def work() -> None:
        with yielding(wait_for_updates, _holds(threading.RLock())):
            _busy(counter, stop)

    worker = _run(work)
    try:
        assert waiting.wait(10)  # at its first pause, it waits for the update
        held = counter[0]
        time.sleep(0.05)
        assert counter[0] == held  # and does nothing meanwhile
    finally:
        quiet.set()  # the update is through: it goes on
        stop.set()
        worker.join(10)
    assert not worker.is_alive()


def test_no_pause_waits_while_the_index_lock_is_held() -> None:
    quiet = threading.Event()  # never set while the worker runs
    waited = threading.Event()
    lock = threading.RLock()

    def wait_for_updates() -> None:
        waited.set()
        quiet.wait()

    def work() -> None:
        with lock, yielding(wait_for_updates, _holds(lock)) as courtesy:
            _busy([0], threading.Event(), seconds=0.1)  # some 25 turns of 4 ms
            assert courtesy.pauses > 0  # it paused, as any background thread does

    worker = _run(work)
    worker.join(10)
    quiet.set()
    assert not worker.is_alive()
    assert not waited.is_set()  # but never for the update


def test_no_pause_waits_outside_the_related_notes_code() -> None:
    quiet = threading.Event()
    waited = threading.Event()

    def wait_for_updates() -> None:
        waited.set()
        quiet.wait()

    def work() -> None:
        with yielding(wait_for_updates, lambda: False) as courtesy:
            _plain([0], seconds=0.1)
            assert courtesy.pauses > 0

    worker = _run(work)
    worker.join(10)
    quiet.set()
    assert not worker.is_alive()
    assert not waited.is_set()


def test_a_check_waiting_on_the_event_is_not_waited_within() -> None:
    """The worker's own check waits on the window's Event (with a timeout) while a save is
    under way; the pauses within that wait, where it holds the Event's lock, must not wait
    on it again: the worker goes on once the waits time out. (A pause at every call, so
    one comes within the Event's wait.)"""
    quiet = threading.Event()  # a save under way all along: every wait times out

    def wait_for_updates() -> None:
        quiet.wait(0.002)

    def work() -> None:
        with yielding(wait_for_updates, lambda: False, Courtesy(turn_s=0.0, pause_s=0.0)):
            end = time.perf_counter() + 0.2
            while time.perf_counter() < end:
                wait_for_updates()  # as the worker's check does between chunks
                terms_for(1000)  # a Python function of core.related (not a cached one)

    worker = _run(work)
    worker.join(10)
    quiet.set()
    assert not worker.is_alive()


def test_a_lock_that_cannot_tell_is_taken_as_held() -> None:
    assert _holds(threading.Lock())() is True
    rlock = threading.RLock()
    assert _holds(rlock)() is False
    with rlock:
        assert _holds(rlock)() is True


def test_a_cancelled_pass_stops_waiting_for_updates_that_cannot_come(tmp_path: Path) -> None:
    """The window stops the related-notes pass from the GUI thread; an update on its way then never
    reaches the panes, so its wait never ends. Cancelled, the pass must stop waiting and
    end: it hung CI's run at a window's close (a pass took minutes of 0.3 s waits)."""
    from librarian_gui.core.index.index import VaultIndex
    from librarian_gui.services.related import RelatedRequest, RelatedWorker

    words = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "sloe", "quince", "medlar"]
    for n in range(2000):
        picked = " ".join(words[(n * k) % len(words)] + str(k) for k in range(1, 40))
        (tmp_path / f"n{n:04d}.md").write_text(f"note {n}: {picked}\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    cancel = threading.Event()
    read = [0]
    after_cancel = [0]

    def never_quiet() -> None:  # an update on its way that will not arrive
        if cancel.is_set():
            after_cancel[0] += 1
        elif read[0] == len(index.notes):  # every note read: the model is being built
            cancel.set()  # the window closes
        time.sleep(0.05)

    def reader(rel: str) -> str:
        read[0] += 1
        return (tmp_path / rel).read_text()

    worker = RelatedWorker()
    request = RelatedRequest(
        generation=1,
        index=index,
        previous=None,
        read=reader,
        cancel=cancel,
        wait_for_updates=never_quiet,
        use_cache=False,
        save=False,
    )
    thread = _run(lambda: worker.run(request))
    thread.join(120)
    assert not thread.is_alive()
    assert cancel.is_set()
    assert after_cancel[0] == 0  # not one wait once cancelled
