"""The Review tab's data: the review desk (``core/review/desk``), gathered on the slow job
thread once the index is ready and again after changes, and the marks the user sets; the
contradiction candidates (``core/review/contradictions``), gathered when asked, and the plan
of a "supersedes" mark (the session writes it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from .model import VaultModel

if TYPE_CHECKING:
    from .jobs import JobControl, JobHandle

REFRESH_DELAY_MS = 500  # a burst of saves asks once


class ReviewService(QObject):
    """The desk of the vault: ``refresh`` gathers it (a newer one cancels the one still
    running), and from then on again after each change; ``mark`` and ``mark_all`` record
    what the user reviewed, then gather again. Nothing is gathered before it is asked for
    (the Review tab shown): on a vault never reviewed the desk reads every note, and its
    repeats compare all their passages.

    ``find_contradictions`` gathers the candidates (once asked, again after changes);
    ``plan_supersede`` makes the plan of a mark, to preview.

    Signals:
        desk_found(object): a Desk.
        contradictions_found(object): the candidates (a list of Candidate).
        supersede_planned(object): a SupersedePlan.
        failed(str): what to tell the user when marks could not be written or planned.
    """

    desk_found = Signal(object)
    contradictions_found = Signal(object)
    supersede_planned = Signal(object)
    failed = Signal(str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.desk: Any = None
        self._job: JobHandle | None = None
        self._contradictions_job: JobHandle | None = None
        self.contradictions: Any = None
        self._watch_desk = False  # asked once: gathered again after changes
        self._watch_contradictions = False
        self._closed = False
        self._store: Any = None  # each note's passages, kept for the next look (slow thread)
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self._contradictions_timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._contradictions_timer.timeout.connect(self.find_contradictions)
        model.index_updated.connect(self._on_model_index_updated)

    @property
    def desk_watched(self) -> bool:
        return self._watch_desk

    @Slot()
    def refresh(self) -> None:
        """Gather the desk (``desk_found``); from now on, again after each change."""
        index = self.model.index
        self._watch_desk = True
        if self._closed or index is None:
            return
        self._timer.stop()

        use_cache = self.model.use_cache

        def gather(_control: JobControl) -> Any:
            from ..core.review.desk import review_desk
            from ..core.review.duplicates import PassageStore
            from ..core.review.passage_cache import load_store, save_store

            first = self._store is None
            if first:  # the passages the last look at this vault kept
                self._store = load_store(index.root) if use_cache else PassageStore()
            desk = review_desk(index, store=self._store)
            if first and use_cache:
                # Kept after the first look, which read what changed since the last one;
                # the notes that change after it are few, and read again next time.
                save_store(index.root, self._store)
            return desk

        if self._job is not None:
            self._job.cancel()
        self._job = self.model.submit(gather, slow=True, name="review-desk")
        self._job.finished.connect(self._on_gather_finished)

    @Slot()
    def find_contradictions(self) -> None:
        """Gather the contradiction candidates (``contradictions_found``); from now on,
        again after each change."""
        index = self.model.index
        self._watch_contradictions = True
        if self._closed or index is None:
            return

        def gather(_control: JobControl) -> Any:
            from ..core.review.contradictions import contradictions_in

            return contradictions_in(index)

        if self._contradictions_job is not None:
            self._contradictions_job.cancel()
        self._contradictions_job = self.model.submit(gather, slow=True, name="contradictions")
        self._contradictions_job.finished.connect(self._on_contradictions_finished)

    def plan_supersede(self, note: str, older: str) -> None:
        """Make the plan marking ``note`` as superseding ``older`` (``supersede_planned``)."""
        index = self.model.index
        if self._closed or index is None:
            return

        def plan(_control: JobControl) -> Any:
            from ..core.review.supersede import plan_supersede

            return plan_supersede(index, note, older)

        handle = self.model.submit(plan, name="supersede plan")
        handle.finished.connect(self.supersede_planned)
        handle.failed.connect(self._on_plan_failed)

    def mark(self, notes: Sequence[str]) -> None:
        """Mark the versions on disk of ``notes`` (vault paths) reviewed."""
        root, wanted = self.model.root, list(notes)

        def write(_control: JobControl) -> Any:
            from ..core.review.desk import mark_notes

            return mark_notes(root, wanted)

        self._write(write)

    def mark_all(self) -> None:
        """Mark everything changed up to now reviewed."""
        root, index = self.model.root, self.model.index

        def write(_control: JobControl) -> Any:
            import datetime as dt

            from ..core.review.desk import mark_up_to

            notes = sorted(index.snapshot().notes) if index is not None else []
            mark_up_to(root, dt.datetime.now(dt.UTC), notes)

        self._write(write, slow=True)  # every note read: the slow thread, as scans are

    def _write(self, job: Any, *, slow: bool = False) -> None:
        if self._closed:
            return
        handle = self.model.submit(job, slow=slow, name="review-mark")
        handle.finished.connect(self.refresh)
        handle.failed.connect(self._on_mark_failed)

    def close(self) -> None:
        self._closed = True
        self._timer.stop()
        self._contradictions_timer.stop()
        for job in (self._job, self._contradictions_job):
            if job is not None:
                job.cancel()

    @Slot(object)
    def _on_contradictions_finished(self, found: object) -> None:
        self.contradictions = found
        self.contradictions_found.emit(found)

    @Slot(object)
    def _on_plan_failed(self, error: object) -> None:
        self.failed.emit(f"Not marked: {error}")

    @Slot(object)
    def _on_gather_finished(self, desk: object) -> None:
        self.desk = desk
        self.desk_found.emit(desk)

    @Slot(object)
    def _on_mark_failed(self, error: object) -> None:
        self.failed.emit(f"Not marked reviewed: {error}")

    @Slot()
    def refresh_watched(self) -> None:
        """After a scan: gather again what was asked for (nothing, before anything was)."""
        if self._watch_desk:
            self.refresh()
        if self._watch_contradictions:
            self.find_contradictions()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        if self._watch_desk:
            self._timer.start()
        if self._watch_contradictions:
            self._contradictions_timer.start()
