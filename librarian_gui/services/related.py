"""Related notes in the background, for the window: the vault's ``RelatedRunner``
(``core/live/related.py``, the MCP server's worker too) finds them on its own thread after
the first index and again after changes, never in the way of indexing or the window; this
service re-emits what it tells on the GUI thread, and makes the open note's related notes,
explained, for the Related pane."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from ..core.index.queries import is_index_note
from ..core.live.related import RelatedListener, RelatedRunner
from ..core.related.vault import DEFAULT_THRESHOLD
from ..core.vault.textstore import TextStore
from .jobs import JobControl, JobHandle
from .model import VaultModel

if TYPE_CHECKING:  # numpy and scipy load on the worker
    from ..core.related.vault import RelatedIndex

_log = logging.getLogger(__name__)

START_AFTER_INDEX_S = 1.2  # the window fills its panes first
# The cache is written after the first pass, then at most this often: writing 10,000 notes'
# model (50 MB, checksummed in one call that holds the interpreter lock) after every saved
# note stalled the window; a restart reads the notes changed since the last save.
SAVE_EVERY_S = 120.0


class _Signals(QObject):
    """The runner's news as Qt signals: emitted on its thread, received on the GUI's."""

    started = Signal(int, bool)
    progressed = Signal(int, int, int)
    ready = Signal(int, object)
    failed = Signal(int, str)


class _Relay(RelatedListener):
    def __init__(self, signals: _Signals) -> None:
        self._signals = signals

    def related_started(self, generation: int, first: bool) -> None:
        self._signals.started.emit(generation, first)

    def related_progressed(self, generation: int, done: int, total: int) -> None:
        self._signals.progressed.emit(generation, done, total)

    def related_ready(self, generation: int, related: RelatedIndex) -> None:
        self._signals.ready.emit(generation, related)

    def related_failed(self, generation: int, message: str) -> None:
        self._signals.failed.emit(generation, message)


class RelatedService(QObject):
    """Related notes of the open vault: found by its ``RelatedRunner`` once the index is
    ready and again once changes stop (a pass under way finishes first; ``refresh``
    cancels it), and the open note's related notes at the user's threshold, explained,
    made on the quick job thread.

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
        self._closed = False
        self._note: str | None = None  # the note the pane shows
        self._note_job: JobHandle | None = None
        self._signals = _Signals(self)
        self._signals.started.connect(self._on_runner_started)
        self._signals.progressed.connect(self._on_runner_progressed)
        self._signals.ready.connect(self._on_runner_ready)
        self._signals.failed.connect(self._on_runner_failed)
        self.runner = RelatedRunner(
            lambda: model.index,
            self._read,
            _Relay(self._signals),
            wait_for_updates=model.pause_for_updates,
            use_cache=use_cache,
            save_every=SAVE_EVERY_S,
            courteous=True,
            running=model.related_running,
            name="window",
        )
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        if model.ready:
            self.runner.want()

    @property
    def running(self) -> bool:
        """Whether a pass runs now."""
        return self.runner.running.is_set()

    def _read(self, rel: str) -> str | None:
        """A note's text as the index last saw it (on the runner's thread)."""
        index = self.model.index
        record = None if index is None else index.notes.get(rel)
        return None if record is None else self.store.get(rel, record.stamp)

    def stop(self) -> None:
        """Cancel the pass under way and stop the thread (waits for its current chunk)."""
        self._closed = True
        if self._note_job is not None:
            self._note_job.cancel()
        self.runner.close()
        self.model.related_running.clear()

    @Slot()
    def refresh(self) -> None:
        """Find the vault's related notes again now (cancelling a pass under way)."""
        if not self._closed:
            self.runner.refresh()

    @Slot(float)
    def set_threshold(self, threshold: float) -> None:
        if threshold == self.threshold:
            return
        self.threshold = threshold
        self.threshold_changed.emit(threshold)
        self._explain()

    @staticmethod
    def compares(rel: str) -> bool:
        """Whether the model compares note ``rel`` with the others: all but the index note,
        which links every note and so is like none of them."""
        return not is_index_note(rel)

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
        self.runner.want(START_AFTER_INDEX_S)

    @Slot(object)
    def _on_model_index_updated(self, update: Any) -> None:
        delta = update.delta
        if delta.notes_added or delta.notes_changed or delta.notes_removed or update.concepts:
            self.runner.changed()  # a burst of saves: one pass, once they stop

    @Slot(int, bool)
    def _on_runner_started(self, _generation: int, first: bool) -> None:
        if not self._closed:
            self.state_changed.emit(
                "Finding related notes…" if first else "Updating related notes…"
            )

    @Slot(int, int, int)
    def _on_runner_progressed(self, _generation: int, done: int, total: int) -> None:
        if not self._closed:
            self.progressed.emit(done, total)

    @Slot(int, object)
    def _on_runner_ready(self, _generation: int, related: object) -> None:
        if self._closed:
            return
        self.current = related  # type: ignore[assignment]
        self.state_changed.emit("")
        self.related_ready.emit(related)
        self._explain(background=True)

    @Slot(int, str)
    def _on_runner_failed(self, _generation: int, message: str) -> None:
        if self._closed:
            return
        self.state_changed.emit("")
        self.failed.emit(message)
