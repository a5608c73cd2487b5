"""The concept map's state: the map of the open vault's dictionary, built and laid out on the
model's slow job thread while the map is shown, and again when the index changes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.courtesy import gc_paused
from .jobs import JobControl, JobHandle
from .model import VaultModel

REBUILD_AFTER_UPDATE_MS = 600  # a burst of saves: one map


class ConceptMapService(QObject):
    """Builds the concept map (``core.insight.concept_map``) from the index on a job thread,
    only while it is shown; a change to the index while it is hidden builds it on the next
    showing. A rebuilt map starts from the positions of the last one.

    Signals:
        map_ready(object): a laid-out ConceptMap.
        map_failed(str): the build failed (what to show instead).
    """

    map_ready = Signal(object)
    map_failed = Signal(str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.active = False
        self.current: Any = None  # the last ConceptMap delivered
        self._stale = True
        self._job: JobHandle | None = None
        self._rebuild_timer = QTimer(self, singleShot=True, interval=REBUILD_AFTER_UPDATE_MS)
        self._rebuild_timer.timeout.connect(self.rebuild)
        model.index_ready.connect(self._on_model_index_changed)
        model.index_updated.connect(self._on_model_index_updated)

    def stop(self) -> None:
        self._rebuild_timer.stop()
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def set_active(self, active: bool) -> None:
        """The map is shown (build it if the index changed since) or hidden."""
        self.active = active
        if active and self._stale:
            self.rebuild()

    @Slot()
    def rebuild(self) -> None:
        """Build the map again now if it is shown, else on its next showing."""
        self._stale = True
        if not self.active or not self.model.ready or self.model.index is None:
            return
        self._stale = False
        index = self.model.index
        previous = (
            None
            if self.current is None
            else {
                node: (float(x), float(y))
                for node, (x, y) in zip(self.current.ids, self.current.positions, strict=True)
            }
        )

        def build(control: JobControl) -> Any:
            from ..core.insight.concept_map import concept_map, lay_out

            with gc_paused():
                return lay_out(concept_map(index), check=control.check, previous=previous)

        if self._job is not None:
            self._job.cancel()  # a newer map is on its way
        self._job = self.model.submit(build, slow=True, name="concept map")
        self._job.finished.connect(self._on_job_finished)
        self._job.failed.connect(self._on_job_failed)

    @Slot(object)
    def _on_job_finished(self, cmap: object) -> None:
        self._job = None
        self.current = cmap
        self.map_ready.emit(cmap)

    @Slot(object)
    def _on_job_failed(self, error: object) -> None:
        self._job = None
        self.map_failed.emit(f"Could not build the concept map: {error}")

    @Slot(object)
    def _on_model_index_changed(self, _index: object) -> None:
        self.rebuild()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._stale = True
        if self.active:
            self._rebuild_timer.start()
