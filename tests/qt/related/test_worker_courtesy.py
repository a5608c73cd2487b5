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
from librarian_gui.core.live.related import yielding
from librarian_gui.core.related.model import terms_for


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
        with yielding(wait_for_updates):
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


def test_no_pause_waits_outside_the_related_notes_code() -> None:
    quiet = threading.Event()
    waited = threading.Event()

    def wait_for_updates() -> None:
        waited.set()
        quiet.wait()

    def work() -> None:
        with yielding(wait_for_updates) as courtesy:
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
        with yielding(wait_for_updates, Courtesy(turn_s=0.0, pause_s=0.0)):
            end = time.perf_counter() + 0.2
            while time.perf_counter() < end:
                wait_for_updates()  # as the worker's check does between chunks
                terms_for(1000)  # a Python function of core.related (not a cached one)

    worker = _run(work)
    worker.join(10)
    quiet.set()
    assert not worker.is_alive()


def test_a_cancelled_pass_stops_waiting_for_updates_that_cannot_come(tmp_path: Path) -> None:
    """The window stops the related-notes pass from the GUI thread; an update on its way then never
    reaches the panes, so its wait never ends. Cancelled, the pass must stop waiting and
    end: it hung CI's run at a window's close (a pass took minutes of 0.3 s waits)."""
    from librarian_gui.core.index.index import VaultIndex
    from librarian_gui.core.live.related import RelatedListener, RelatedRunner

    words = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "sloe", "quince", "medlar"]
    for n in range(2000):
        picked = " ".join(words[(n * k) % len(words)] + str(k) for k in range(1, 40))
        (tmp_path / f"n{n:04d}.md").write_text(f"note {n}: {picked}\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    closing = threading.Event()
    read = [0]
    after_close = [0]
    runners: list[RelatedRunner] = []

    def never_quiet() -> None:  # an update on its way that will not arrive
        if closing.is_set():
            after_close[0] += 1
        elif read[0] == len(index.notes):  # every note read: the model is being built
            closing.set()
            runners[0].close()  # the window closes (from the pass's own thread: no join)
        time.sleep(0.05)

    def reader(rel: str) -> str:
        read[0] += 1
        return (tmp_path / rel).read_text()

    told: list[str] = []

    class Told(RelatedListener):
        def related_ready(self, generation: int, related: object) -> None:
            told.append("ready")

    runner = RelatedRunner(
        lambda: index,
        reader,
        Told(),
        wait_for_updates=never_quiet,
        use_cache=False,
        courteous=True,
    )
    runners.append(runner)
    runner.want()
    assert closing.wait(120)
    runner._thread.join(120)
    assert not runner._thread.is_alive()
    assert after_close[0] == 0  # not one wait once cancelled
    assert told == []  # a cancelled pass tells nothing
