"""Related notes in the background: found on a thread of their own after the
first index and again after changes, never in the way of indexing or the window; and the
open note's related notes, explained, for the Related pane."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from ..core import related as related_package
from ..core.courtesy import Courtesy, gc_paused
from ..core.related.vault import DEFAULT_THRESHOLD, REDO_AFTER_CHANGES
from ..core.vault.textstore import TextStore
from .jobs import JobCancelled, JobControl, JobHandle
from .model import VaultModel

if TYPE_CHECKING:  # numpy and scipy load on the worker
    from ..core.index.index import VaultIndex
    from ..core.related.vault import RelatedIndex

_log = logging.getLogger(__name__)

START_AFTER_INDEX_MS = 1200  # the window fills its panes first
# The cache is written after the first pass, then at most this often: writing 10,000 notes'
# model (50 MB, checksummed in one call that holds the interpreter lock) after every saved
# note stalled the window; a restart reads the notes changed since the last save.
SAVE_EVERY_S = 120.0
REDO_AFTER_UPDATE_MS = round(REDO_AFTER_CHANGES * 1000)  # a burst of saves: one pass
CHUNK = 64  # notes read between checks for cancellation and for updates under way


# The worker's own code: where a pause may also wait for an update (see ``yielding``).
_RELATED_CODE = str(Path(related_package.__file__).resolve().parent) + os.sep


@contextmanager
def yielding(
    wait_for_updates: Callable[[], None],
    holds: Callable[[], bool],
    courtesy: Courtesy | None = None,
) -> Iterator[Courtesy]:
    """``courteous`` for the worker: every few ms of Python it pauses, whatever it runs, and
    at a pause as it enters a function of ``core.related`` it also waits while a saved
    note is on its way to the index and the panes (``wait_for_updates``), as its checks
    between chunks do (an incremental pass is a few chunks of tens of ms each, and ran
    through a save's whole way to the backlinks). Only there: elsewhere it may hold a lock
    the update needs (an Event's own, within the very wait for updates; the import lock);
    and never while it holds the index's lock (``holds``)."""
    assert threading.current_thread() is not threading.main_thread(), "not in the GUI thread"
    courtesy = courtesy or Courtesy()
    previous = sys.getprofile()

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call":
            before = courtesy.pauses
            courtesy.tick()
            if (
                courtesy.pauses != before
                and frame.f_code.co_filename.startswith(_RELATED_CODE)
                and not holds()
            ):
                wait_for_updates()

    sys.setprofile(hook)
    try:
        yield courtesy
    finally:
        sys.setprofile(previous)


def _holds(lock: object) -> Callable[[], bool]:
    """Whether the calling thread holds ``lock`` (an RLock: its ``_is_owned``, the test
    ``threading.Condition`` uses too); always, for a lock that cannot tell."""
    owned = getattr(lock, "_is_owned", None)
    return owned if callable(owned) else lambda: True


@dataclass(frozen=True, slots=True)
class RelatedRequest:
    """One pass of the worker: the index to read, how, and the event that cancels it."""

    generation: int
    index: VaultIndex
    previous: RelatedIndex | None  # the last pass's answer: only what changed is redone
    read: Callable[[str], str | None]
    cancel: threading.Event
    wait_for_updates: Callable[[], None]
    use_cache: bool
    save: bool


class RelatedWorker(QObject):
    """Builds the vault's RelatedIndex; lives on its own QThread (``RelatedThread``) or, in
    tests, in the calling thread (call ``run`` directly).

    Signals:
        progressed(int, int, int): generation, notes read, notes in the vault.
        finished(int, object): generation, the RelatedIndex.
        failed(int, str): generation, what went wrong.
    """

    progressed = Signal(int, int, int)
    finished = Signal(int, object)
    failed = Signal(int, str)

    @Slot(object)
    def run(self, request: RelatedRequest) -> None:
        from ..core.related.cached import vault_related

        if request.cancel.is_set():
            return
        with request.index.lock:
            total = len(request.index.notes)
        done = 0
        last = 0.0

        def check() -> None:
            if request.cancel.is_set():
                raise JobCancelled
            request.wait_for_updates()  # a save on its way to the panes goes first

        def read(rel: str) -> str | None:
            nonlocal done, last
            done += 1
            if done % CHUNK == 0:
                check()
                now = time.monotonic()
                if now - last > 0.2:
                    last = now
                    self.progressed.emit(request.generation, done, total)
            return request.read(rel)

        def pause() -> None:
            # Cancelled (a new pass, the vault closing): no more waiting for the panes. The
            # window stops this thread from the GUI thread, which is then not there to let
            # an update through: the wait would come back at every pause, for minutes.
            if not request.cancel.is_set():
                request.wait_for_updates()

        try:
            waits = yielding(pause, _holds(request.index.lock))
            with waits, gc_paused():
                related = vault_related(
                    request.index,
                    read,
                    previous=request.previous,
                    use_cache=request.use_cache,
                    save=request.save,
                    check=check,
                    # On two cores a second process took the GUI thread's: a 76-81 ms
                    # stall in bench_gui, 45 ms at worst without (the pass 7 s → 10 s).
                    second_process=False,
                )
        except JobCancelled:
            return
        except Exception as exc:
            _log.exception("related notes failed")
            self.failed.emit(request.generation, f"Related notes could not be found: {exc}")
            return
        if not request.cancel.is_set():
            self.finished.emit(request.generation, related)


class RelatedThread(QObject):
    """A RelatedWorker on a QThread of its own, driven by a queued signal.

    Signals:
        run_requested(RelatedRequest): internal, to the worker.
    """

    run_requested = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thread = QThread()
        self.thread.setObjectName("librarian-related")
        self.worker = RelatedWorker()
        self.worker.moveToThread(self.thread)
        self.run_requested.connect(self.worker.run)
        self.thread.start()

    def stop(self) -> None:
        self.thread.quit()
        self.thread.wait()


class RelatedService(QObject):
    """Related notes of the open vault: found on ``RelatedThread`` once the index is ready
    and again after changes (a newer pass cancels the one under way), and the open note's
    related notes at the user's threshold, explained, made on the quick job thread.

    Signals:
        related_ready(object): the vault's RelatedIndex, new or updated.
        progressed(int, int): notes read, notes in the vault (for the status bar).
        state_changed(str): what the related-notes pass is doing, for the status bar ("" when idle).
        note_related(str, object): a note and its related notes (a list of Explained).
        threshold_changed(float): the threshold every view shows related notes at.
        link_planned(object): the previewed write of a Link click (a RelatedLinkPlan).
        failed(str): a pass failed, or a Link cannot be made (what to tell the user).
    """

    related_ready = Signal(object)
    progressed = Signal(int, int)
    state_changed = Signal(str)
    note_related = Signal(str, object)
    threshold_changed = Signal(float)
    link_planned = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        model: VaultModel,
        store: TextStore,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        use_cache: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.store = store
        self.threshold = threshold
        self.current: RelatedIndex | None = None
        self.running = False
        self._use_cache = use_cache
        self._saved_at: float | None = None  # when a pass last wrote the cache
        self._generation = 0
        self._cancel = threading.Event()
        self._note: str | None = None  # the note the pane shows
        self._note_job: JobHandle | None = None
        self._thread = RelatedThread(self)
        worker = self._thread.worker
        worker.progressed.connect(self._on_worker_progressed)
        worker.finished.connect(self._on_worker_finished)
        worker.failed.connect(self._on_worker_failed)
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.refresh)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        if model.ready:
            self._timer.start(0)

    def stop(self) -> None:
        """Cancel the pass under way and stop the thread (waits for its current chunk)."""
        self._timer.stop()
        self._cancel.set()
        self.model.related_running.clear()
        if self._note_job is not None:
            self._note_job.cancel()
        self._thread.stop()

    @Slot()
    def refresh(self) -> None:
        """Find the vault's related notes again now (cancelling a pass under way)."""
        index = self.model.index
        if index is None:
            return
        self._cancel.set()
        self._cancel = threading.Event()
        self._generation += 1
        self.running = True
        self.model.related_running.set()
        self.state_changed.emit(
            "Finding related notes…" if self.current is None else "Updating related notes…"
        )
        store = self.store
        records = index.notes
        now = time.monotonic()
        save = self._saved_at is None or now - self._saved_at >= SAVE_EVERY_S
        if save:
            self._saved_at = now

        def read(rel: str) -> str | None:
            record = records.get(rel)
            return None if record is None else store.get(rel, record.stamp)

        self._thread.run_requested.emit(
            RelatedRequest(
                self._generation,
                index,
                self.current,
                read,
                self._cancel,
                self.model.pause_for_updates,
                self._use_cache,
                save,
            )
        )

    @Slot(float)
    def set_threshold(self, threshold: float) -> None:
        if threshold == self.threshold:
            return
        self.threshold = threshold
        self.threshold_changed.emit(threshold)
        self._explain()

    @Slot(str)
    def show_note(self, rel: str | None) -> None:
        """The open note (None: no note is open): its related notes come on
        ``note_related``."""
        self._note = rel
        self._explain()

    @Slot(str, str)
    def plan_link(self, source: str, target: str) -> None:
        """Read ``source`` and make the edit that links ``target`` under its "Related"
        heading, for the user to see before anything is written (``link_planned``)."""
        index = self.model.index
        if index is None:
            return

        def job(_control: JobControl) -> Any:
            from ..core.related.linking import plan_related_link

            return plan_related_link(index, source, target)

        handle = self.model.submit(job, name="related link")
        handle.finished.connect(self.link_planned)
        handle.failed.connect(self._on_plan_job_failed)

    @Slot(object)
    def _on_plan_job_failed(self, error: object) -> None:
        self.failed.emit(f"Not linked: {error}")

    def _explain(self, background: bool = False) -> None:
        """The open note's related notes, explained, on the quick job thread; ``background``
        (a pass's new answer, nothing the user asked for): on the slow one, so it never
        holds up a save's backlinks queued behind it."""
        if self._note_job is not None:
            self._note_job.cancel()
            self._note_job = None
        rel, related = self._note, self.current
        if rel is None or related is None:
            return
        threshold, store = self.threshold, self.store
        index = self.model.index

        def job(_control: JobControl) -> Any:
            from ..core.related.explain import explain

            def read(other: str) -> str | None:
                record = None if index is None else index.notes.get(other)
                return None if record is None else store.get(other, record.stamp)

            return explain(related.related(rel, threshold), read, rel)

        self._note_job = self.model.submit(job, slow=background, name="related notes")
        self._note_job.finished.connect(self._on_note_job_finished)
        self._note_job.failed.connect(self._on_note_job_failed)

    @Slot(object)
    def _on_note_job_finished(self, found: object) -> None:
        self._note_job = None
        if self._note is not None:
            self.note_related.emit(self._note, found)

    @Slot(object)
    def _on_note_job_failed(self, error: object) -> None:
        self._note_job = None
        self.failed.emit(f"Related notes of {self._note}: {error}")

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        self._timer.start(START_AFTER_INDEX_MS)

    @Slot(object)
    def _on_model_index_updated(self, update: Any) -> None:
        delta = update.delta
        if delta.notes_added or delta.notes_changed or delta.notes_removed or update.concepts:
            self._timer.start(REDO_AFTER_UPDATE_MS)

    @Slot(int, int, int)
    def _on_worker_progressed(self, generation: int, done: int, total: int) -> None:
        if generation == self._generation:
            self.progressed.emit(done, total)

    @Slot(int, object)
    def _on_worker_finished(self, generation: int, related: object) -> None:
        if generation != self._generation:
            return
        self.running = False
        self.model.related_running.clear()
        self.current = related  # type: ignore[assignment]
        self.state_changed.emit("")
        self.related_ready.emit(related)
        self._explain(background=True)

    @Slot(int, str)
    def _on_worker_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self.running = False
        self.model.related_running.clear()
        self.state_changed.emit("")
        self.failed.emit(message)
