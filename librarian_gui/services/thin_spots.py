"""The Thin spots panel's data, gathered on the slow job thread: notes without related notes
at the user's threshold, orphan notes and isolated concepts, again after every change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from .model import VaultModel

if TYPE_CHECKING:
    from ..core.insight.thin_spots import ThinSpots
    from ..core.related.vault import RelatedIndex
    from .jobs import JobControl, JobHandle

REFRESH_DELAY_MS = 300  # a burst of saves, or a slider being dragged, asks once


class ThinSpotsService(QObject):
    """Counts the thin spots once the index is ready (``refresh``), after changes, when the
    related notes come (``set_related``) and when the threshold moves (``set_threshold``);
    a newer count cancels the one still running.

    Signals:
        thin_spots_found(object): a ThinSpots.
    """

    thin_spots_found = Signal(object)

    def __init__(self, model: VaultModel, threshold: float, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.threshold = threshold
        self.related: RelatedIndex | None = None
        self._job: JobHandle | None = None
        self._closed = False
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        model.index_updated.connect(self._on_model_index_updated)

    @Slot(object)
    def set_related(self, related: RelatedIndex | None) -> None:
        """The vault's related notes (a RelatedIndex; None: not found yet)."""
        self.related = related
        self._timer.start()

    @Slot(float)
    def set_threshold(self, threshold: float) -> None:
        self.threshold = threshold
        self._timer.start()

    @Slot()
    def refresh(self) -> None:
        """Count now (the index must be ready; before it is, nothing happens)."""
        model = self.model
        index = model.index
        if self._closed or index is None:
            return
        self._timer.stop()
        related, threshold = self.related, self.threshold

        def count(_control: JobControl) -> ThinSpots:
            from ..core.insight.thin_spots import thin_spots

            return thin_spots(index, related, threshold)

        if self._job is not None:
            self._job.cancel()
        self._job = model.submit(count, slow=True, name="thin-spots")
        self._job.finished.connect(self.thin_spots_found)

    def close(self) -> None:
        """Before the model closes: nothing more is asked of it."""
        self._closed = True
        self._timer.stop()
        if self._job is not None:
            self._job.cancel()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._timer.start()
