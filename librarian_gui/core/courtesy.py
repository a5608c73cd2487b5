"""Courtesy to the GUI thread: background threads that hand it the interpreter lock every
few ms, and bulk builds that keep the garbage collector from stalling it; and to the
machine: memory freed is handed back (``give_back_memory``).

CPython's lock is not fair: with one or two threads busy in Python, the GUI thread waiting
for it lost it for 50-70 ms at a time (graph tab, idle after indexing). ``time.sleep(0)``
does not help: the sleeper takes the lock straight back. A short real sleep every few
milliseconds of work does: the waiting thread has it before the sleeper wakes.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

TURN_S = 0.004  # a background thread's run between pauses, at most (as far as it checks)
PAUSE_S = 0.0005  # each pause: long enough for a waiting thread to take the lock


class Courtesy:
    """``tick()`` in a loop: sleeps ``pause_s`` once ``turn_s`` have passed since the last
    pause. Cheap between pauses (a clock read). One per thread."""

    def __init__(self, turn_s: float = TURN_S, pause_s: float = PAUSE_S) -> None:
        self.turn_s = turn_s
        self.pause_s = pause_s
        self.pauses = 0
        self._turn = time.perf_counter()

    def tick(self) -> None:
        now = time.perf_counter()
        if now - self._turn >= self.turn_s:
            time.sleep(self.pause_s)
            self.pauses += 1
            self._turn = time.perf_counter()


@contextmanager
def courteous(courtesy: Courtesy | None = None) -> Iterator[Courtesy]:
    """Within the block, this thread pauses every few ms of Python whatever it runs (an
    import, a library's loop): a profile hook ticks at every Python call. It slows the
    thread (a hook call per function call): for background work only."""
    assert threading.current_thread() is not threading.main_thread(), "not in the GUI thread"
    courtesy = courtesy or Courtesy()
    previous = sys.getprofile()

    def hook(_frame: FrameType, event: str, _arg: object) -> None:
        if event == "call":
            courtesy.tick()

    sys.setprofile(hook)
    try:
        yield courtesy
    finally:
        sys.setprofile(previous)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk build: the index allocates millions
    of small tuples that hold no cycles, and each collection pass re-walks all of them
    (measured: a third of a warm start). Afterwards what survived is frozen (``gc.freeze``):
    cycles in it are freed only once the model lets go of its index (``gc.unfreeze``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What the build made is young: re-enabled as it is, the collector's next pass
        # would walk all of it at once (120 ms at 10,000 notes, holding the GIL, so the
        # window froze). Frozen, it is out of the collector's sight, as the model freezes
        # the index after every scan and update anyway.
        gc.freeze()
        if enabled:
            gc.enable()


def _trim() -> Callable[[int], object] | None:
    """glibc's ``malloc_trim``, or None where there is none (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], object] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_MALLOC_TRIM = _trim()


def give_back_memory() -> None:
    """Hand the memory freed since back to the system (glibc's ``malloc_trim``). Memory a
    worker thread freed stays in that thread's arena otherwise, counted in the process's
    resident size: after the warm-up of 20,000 notes the MCP server held 58 MB it no longer
    used (575 → 517 MB); trimming took 7 ms."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
