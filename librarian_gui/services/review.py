"""The Review tab's data: the review desk (``core/review/desk``), gathered on the slow job
thread once the index is ready and again after changes, and the marks the user sets."""

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
    running); ``mark`` and ``mark_all`` record what the user reviewed, then gather again.

    Signals:
        desk_found(object): a Desk.
        failed(str): what to tell the user when marks could not be written.
    """

    desk_found = Signal(object)
    failed = Signal(str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.desk: Any = None
        self._job: JobHandle | None = None
        self._closed = False
        self._store: Any = None  # each note's passages, kept for the next look (slow thread)
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        model.index_updated.connect(self._on_model_index_updated)

    @Slot()
    def refresh(self) -> None:
        index = self.model.index
        if self._closed or index is None:
            return
        self._timer.stop()

        def gather(_control: JobControl) -> Any:
            from ..core.review.desk import review_desk
            from ..core.review.duplicates import PassageStore

            if self._store is None:
                self._store = PassageStore()
            return review_desk(index, store=self._store)

        if self._job is not None:
            self._job.cancel()
        self._job = self.model.submit(gather, slow=True, name="review-desk")
        self._job.finished.connect(self._on_gather_finished)

    def mark(self, notes: Sequence[str]) -> None:
        """Mark the versions on disk of ``notes`` (vault paths) reviewed."""
        root, wanted = self.model.root, list(notes)

        def write(_control: JobControl) -> Any:
            from ..core.review.desk import mark_notes

            return mark_notes(root, wanted)

        self._write(write)

    def mark_all(self) -> None:
        """Mark everything changed up to now reviewed."""
        root = self.model.root

        def write(_control: JobControl) -> Any:
            import datetime as dt

            from ..core.review.desk import mark_up_to

            mark_up_to(root, dt.datetime.now(dt.UTC))

        self._write(write)

    def _write(self, job: Any) -> None:
        if self._closed:
            return
        handle = self.model.submit(job, name="review-mark")
        handle.finished.connect(self.refresh)
        handle.failed.connect(self._on_mark_failed)

    def close(self) -> None:
        self._closed = True
        self._timer.stop()
        if self._job is not None:
            self._job.cancel()

    @Slot(object)
    def _on_gather_finished(self, desk: object) -> None:
        self.desk = desk
        self.desk_found.emit(desk)

    @Slot(object)
    def _on_mark_failed(self, error: object) -> None:
        self.failed.emit(f"Not marked reviewed: {error}")

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._timer.start()
