"""The docked local graph's state: the open note and the depth; its graph built and laid out
in a job, only while the dock is shown."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.courtesy import gc_paused
from .jobs import JobControl, JobHandle
from .model import VaultModel

REBUILD_MS = 600  # after an index update: the vault's burst of changes comes to rest first


class LocalGraphService(QObject):
    """Builds the local graph of the open note (``core.graph.local.local_view``) on the
    model's job thread whenever the note, the depth or the index changes while active.

    Signals:
        view_ready(object): a LocalView, or None when the open place is no graph node.
    """

    view_ready = Signal(object)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.centre: str | None = None
        self.depth = 1
        self.active = False
        self._built_for: tuple[str | None, int] | None = None
        self._job: JobHandle | None = None
        self._soon = QTimer(self, singleShot=True, interval=0)
        self._soon.timeout.connect(self._on_soon_timeout)
        self._later = QTimer(self, singleShot=True, interval=REBUILD_MS)
        self._later.timeout.connect(self._on_later_timeout)
        model.index_ready.connect(self._on_model_index_changed)
        model.index_updated.connect(self._on_model_index_updated)

    def stop(self) -> None:
        self._soon.stop()
        self._later.stop()
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def set_centre(self, node: str | None) -> None:
        self.centre = node
        self._soon.start()

    @Slot(int)
    def set_depth(self, depth: int) -> None:
        self.depth = max(1, min(2, depth))
        self._soon.start()

    def set_active(self, active: bool) -> None:
        """The dock is shown (build now if the note changed meanwhile) or hidden."""
        self.active = active
        if active:
            self._soon.start()

    @Slot(object)
    def _on_model_index_changed(self, _index: object) -> None:
        self._built_for = None
        self._soon.start()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._built_for = None
        self._later.start()

    @Slot()
    def _on_later_timeout(self) -> None:
        self._soon.start()

    @Slot()
    def _on_soon_timeout(self) -> None:
        wanted = (self.centre, self.depth)
        if not self.active or not self.model.ready or wanted == self._built_for:
            return
        self._built_for = wanted
        centre, depth = wanted
        index = self.model.index
        if centre is None or index is None:
            self.view_ready.emit(None)
            return

        def build(_control: JobControl) -> Any:
            from ..core.graph.local import local_view

            with gc_paused():
                return local_view(index, centre, depth)

        if self._job is not None:
            self._job.cancel()
        self._job = self.model.submit(build, name="local-graph")
        self._job.finished.connect(self._on_job_finished)

    @Slot(object)
    def _on_job_finished(self, view: object) -> None:
        self.view_ready.emit(view)
