"""The related-notes worker of an open vault, for the window and the MCP server alike: one
thread that finds the vault's related notes once the index is there and again a moment
after changes stop (``REDO_AFTER_CHANGES``), never in the way of an update on its way.

``RelatedRunner`` runs the passes (``core.related.cached.vault_related``: from the cache or
the last pass, only what changed is redone) and tells a ``RelatedListener`` from its
thread: a pass started, its progress, its answer or its failure. A pass under way when
more changes come finishes (its answer is the base of the next, incremental pass), and the
next one follows once the changes stop; ``refresh()`` cancels the pass under way and starts
anew (the user asked), ``close()`` cancels it for good. Between chunks of notes, and
through ``yielding`` at every few milliseconds of its Python when the window asks for it
(``courteous``), a pass waits while an update is on its way to the index and the panes.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from .. import related as related_package
from ..courtesy import Courtesy, gc_paused
from ..related.vault import REDO_AFTER_CHANGES

if TYPE_CHECKING:  # numpy and scipy load on the worker
    from ..index.snapshot import IndexView
    from ..related.vault import RelatedIndex

_log = logging.getLogger(__name__)

CHUNK = 64  # notes read between checks for cancellation and for updates under way
PROGRESS_EVERY_S = 0.2

# The worker's own code: where a pause may also wait for an update (see ``yielding``).
_RELATED_CODE = str(Path(related_package.__file__).resolve().parent) + os.sep


class RelatedListener:
    """What a ``RelatedRunner`` tells, on its own thread (every method does nothing here).
    ``generation`` counts the passes: a listener can drop what a cancelled one said."""

    def related_started(self, generation: int, first: bool) -> None: ...

    def related_progressed(self, generation: int, done: int, total: int) -> None: ...

    def related_ready(self, generation: int, related: RelatedIndex) -> None: ...

    def related_failed(self, generation: int, message: str) -> None: ...


class _Cancelled(Exception):
    """The pass under way was cancelled (``refresh``, ``close``)."""


class RelatedRunner:
    """One open vault's related-notes worker (see the module's docstring).

    ``index()`` gives the index to read (None before the first scan: nothing is done);
    ``read(rel)`` a note's text; ``wait_for_updates()`` waits while an update is on its
    way (``UpdateQuiet.pause``, or the window's model's, which also waits for the panes).
    ``save_every``: seconds between two writes of the model's cache (None: every pass
    that changed it). ``courteous``: the pass yields to the GUI thread every few ms.
    ``running``: the event set while a pass runs (the window's model has one)."""

    def __init__(
        self,
        index: Callable[[], IndexView | None],
        read: Callable[[str], str | None],
        listener: RelatedListener,
        *,
        wait_for_updates: Callable[[], None],
        use_cache: bool = True,
        save_every: float | None = None,
        courteous: bool = False,
        running: threading.Event | None = None,
        name: str = "related",
    ) -> None:
        self._index = index
        self._read = read
        self._listener = listener
        self._wait_for_updates = wait_for_updates
        self._use_cache = use_cache
        self._save_every = save_every
        self._courteous = courteous
        self._saved_at: float | None = None
        self._wish = threading.Condition()
        self._due: float | None = None  # monotonic time of the next pass; None: none wanted
        self._stopped = False
        self._cancel = threading.Event()  # the pass under way's
        self._generation = 0
        self.current: RelatedIndex | None = None
        self.running = running or threading.Event()  # set while a pass runs
        self.ready = threading.Event()  # set once a first pass is done (or failed)
        self._thread = threading.Thread(target=self._run, name=f"{name}-related", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ wishes

    def want(self, after: float = 0.0) -> None:
        """A pass ``after`` seconds from now, or when the one wanted already is due if
        that is later (a burst of changes: one pass, once they stop)."""
        with self._wish:
            due = time.monotonic() + after
            self._due = due if self._due is None else max(self._due, due)
            self._wish.notify_all()

    def changed(self) -> None:
        """Notes changed: a pass once no change came for ``REDO_AFTER_CHANGES``."""
        self.want(REDO_AFTER_CHANGES)

    def refresh(self) -> None:
        """Cancel the pass under way (its answer is dropped) and start one now."""
        with self._wish:
            self._cancel.set()
            self._due = time.monotonic()
            self._wish.notify_all()

    def close(self, timeout: float = 30.0) -> None:
        """Cancel the pass under way and stop the thread (waits for its current chunk)."""
        with self._wish:
            self._stopped = True
            self._cancel.set()
            self._wish.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # ------------------------------------------------------------ the thread

    def _next(self) -> int | None:
        """Wait for a pass to be due; its generation, None once closed."""
        with self._wish:
            while not self._stopped:
                now = time.monotonic()
                if self._due is not None and self._due <= now:
                    self._due = None
                    self._cancel = threading.Event()
                    self._generation += 1
                    return self._generation
                self._wish.wait(None if self._due is None else self._due - now)
            return None

    def _run(self) -> None:
        while (generation := self._next()) is not None:
            index = self._index()
            if index is None:
                continue  # wanted again once the scan is done
            cancel = self._cancel
            self.running.set()
            try:
                self._listener.related_started(generation, self.current is None)
                related = self._pass(index.snapshot(), generation, cancel)
            except _Cancelled:
                continue
            except Exception as exc:
                _log.exception("finding related notes failed")
                if not cancel.is_set():
                    self._listener.related_failed(
                        generation, f"Related notes could not be found: {exc}"
                    )
                    self.ready.set()
                continue
            finally:
                self.running.clear()
            if cancel.is_set():
                continue
            self.current = related
            self.ready.set()
            self._listener.related_ready(generation, related)

    def _pass(self, index: IndexView, generation: int, cancel: threading.Event) -> RelatedIndex:
        from ..related.cached import vault_related

        total = len(index.notes)
        done = 0
        last = 0.0

        def check() -> None:
            if cancel.is_set():
                raise _Cancelled
            self._wait_for_updates()  # a change on its way to the index goes first

        def read(rel: str) -> str | None:
            nonlocal done, last
            done += 1
            if done % CHUNK == 0:
                check()
                now = time.monotonic()
                if now - last > PROGRESS_EVERY_S:
                    last = now
                    self._listener.related_progressed(generation, done, total)
            return self._read(rel)

        def pause() -> None:
            # Cancelled (a new pass, the vault closing): no more waiting for the panes. The
            # window stops this thread from the GUI thread, which is then not there to let
            # an update through: the wait would come back at every pause, for minutes.
            if not cancel.is_set():
                self._wait_for_updates()

        now = time.monotonic()
        save = (
            self._save_every is None
            or self._saved_at is None
            or now - self._saved_at >= self._save_every
        )
        if save:
            self._saved_at = now
        courtesy = yielding(pause) if self._courteous else nullcontext()
        with courtesy, gc_paused():
            return vault_related(
                index,
                read,
                previous=self.current,
                use_cache=self._use_cache,
                save=save,
                check=check,
                # On two cores a second process took the GUI thread's: a 76-81 ms stall
                # in bench_gui, 45 ms at worst without (the pass 7 s → 10 s).
                second_process=False,
            )


@contextmanager
def yielding(
    wait_for_updates: Callable[[], None],
    courtesy: Courtesy | None = None,
) -> Iterator[Courtesy]:
    """``courteous`` for the worker: every few ms of Python it pauses, whatever it runs, and
    at a pause as it enters a function of ``core.related`` it also waits while a saved
    note is on its way to the index and the panes (``wait_for_updates``), as its checks
    between chunks do (an incremental pass is a few chunks of tens of ms each, and ran
    through a save's whole way to the backlinks). Only there: elsewhere it may hold a lock
    the update needs (an Event's own, within the very wait for updates; the import lock).
    Readers take no lock of the index (they read a snapshot): none can be held there."""
    assert threading.current_thread() is not threading.main_thread(), "not in the GUI thread"
    courtesy = courtesy or Courtesy()
    previous = sys.getprofile()

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call":
            before = courtesy.pauses
            courtesy.tick()
            if courtesy.pauses != before and frame.f_code.co_filename.startswith(_RELATED_CODE):
                wait_for_updates()

    sys.setprofile(hook)
    try:
        yield courtesy
    finally:
        sys.setprofile(previous)
