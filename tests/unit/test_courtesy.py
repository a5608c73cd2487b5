"""Background threads pause every few ms of Python so the GUI thread gets the lock, and a
bulk build leaves the garbage collector nothing to walk at once."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time

import pytest

from librarian_gui.core.courtesy import Courtesy, courteous, gc_paused


def test_a_tick_pauses_only_once_its_turn_is_over() -> None:
    courtesy = Courtesy(turn_s=10.0, pause_s=0.0)
    for _ in range(1000):
        courtesy.tick()
    assert courtesy.pauses == 0  # a long turn: no pause yet
    courtesy = Courtesy(turn_s=0.01, pause_s=0.0)
    time.sleep(0.02)  # the turn is measured on the clock: this lets it run out
    courtesy.tick()
    courtesy.tick()
    assert courtesy.pauses == 1  # the second tick starts a new turn


def _in_thread(work: object) -> list[object]:
    out: list[object] = []

    def run() -> None:
        try:
            out.append(work())  # type: ignore[operator]
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    return out


def test_courteous_pauses_inside_any_python_and_restores_the_profile() -> None:
    def work() -> tuple[int, object, object]:
        before = sys.getprofile()
        with courteous(Courtesy(turn_s=0.001, pause_s=0.0)) as courtesy:
            inside = sys.getprofile()
            end = time.perf_counter() + 0.05
            while time.perf_counter() < end:
                sorted(range(10), key=lambda v: -v)  # Python calls: the hook ticks
        return courtesy.pauses, inside is not before, sys.getprofile() is before

    [(pauses, hooked, restored)] = _in_thread(work)  # type: ignore[misc]
    assert pauses >= 10  # 50 ms of calls in turns of 1 ms
    assert hooked and restored


def test_courteous_is_refused_on_the_main_thread() -> None:
    with pytest.raises(AssertionError), courteous():
        pass


# ------------------------------------------------------------------ garbage collector


def test_a_bulk_build_leaves_the_collector_no_young_pile_to_walk() -> None:
    """After a build with the collector paused, what survived is frozen: the collector's
    young generation is empty instead of holding every object the build made (walked at
    once on the next allocation: a 120 ms stop of the window at 10,000 notes)."""
    gc.collect()
    frozen_before = gc.get_freeze_count()
    try:
        with gc_paused():
            kept = [[i] for i in range(50_000)]  # 50,001 tracked lists
            assert gc.get_count()[0] >= 50_000
        assert gc.get_count()[0] < 100
        assert gc.get_freeze_count() - frozen_before >= 50_001
        assert len(kept) == 50_000
    finally:
        gc.unfreeze()


_FREED_IN_A_THREAD = """
import threading
from librarian_gui.core.courtesy import give_back_memory

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024

kept = []
def work():
    blocks = [b"x" * 16384 for _ in range(4000)]  # 64 MB in this thread's malloc arena
    kept.extend(blocks[::2])  # every other one stays: the arena cannot shrink by itself
thread = threading.Thread(target=work)
thread.start()
thread.join()
before = rss()
give_back_memory()
print(before, rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_memory_a_thread_freed_is_handed_back() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _FREED_IN_A_THREAD], capture_output=True, text=True, check=True
    ).stdout
    before, after = map(int, out.split())
    # 32 MB were freed among the blocks kept: the whole pages inside them go back (three
    # of each freed block's four, at least); without the trim none did
    assert before - after >= 16, (before, after)
