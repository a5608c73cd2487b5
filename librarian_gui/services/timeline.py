"""The concept timeline's state: the chosen concepts' dated mentions, gathered on the
model's slow job thread (every note is read), binned again on the quick one when only the
period changes, gathered again after the index changes while the timeline is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from .jobs import JobControl, JobHandle
from .model import VaultModel

if TYPE_CHECKING:
    from ..core.insight.timeline import DatedMention, Period

REBUILD_AFTER_UPDATE_MS = 800  # a burst of saves: one reading of the vault


class TimelineService(QObject):
    """The timeline of the concepts asked for (``set_query``), built only while it is shown
    (``set_active``); a change to the index while it is hidden builds it on the next showing.

    Signals:
        concepts_listed(object): the dictionary's concept ids, in its order (a tuple), once
            the index is ready and after each change.
        timeline_ready(object): a ``core.insight.timeline.Timeline``.
        timeline_failed(str): what to show instead.
    """

    concepts_listed = Signal(object)
    timeline_ready = Signal(object)
    timeline_failed = Signal(str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.active = False
        self.concepts: tuple[str, ...] = ()
        self.by: Period = "week"
        self.file_time = False
        self.current: Any = None  # the last Timeline delivered
        self.known: tuple[str, ...] = ()  # the dictionary's ids, as last listed
        self.listed = False  # the ids were listed once (an empty dictionary lists none)
        self._mentions: tuple[tuple[str, ...], list[DatedMention]] | None = None
        self._stale = True
        self._job: JobHandle | None = None
        self._bin_job: JobHandle | None = None
        self._rebuild_timer = QTimer(self, singleShot=True, interval=REBUILD_AFTER_UPDATE_MS)
        self._rebuild_timer.timeout.connect(self.rebuild)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)

    def stop(self) -> None:
        self._rebuild_timer.stop()
        for job in (self._job, self._bin_job):
            if job is not None:
                job.cancel()
        self._job = self._bin_job = None

    def set_active(self, active: bool) -> None:
        """The timeline is shown (built if the index changed since) or hidden."""
        self.active = active
        if active and self._stale:
            self.rebuild()

    def set_query(self, concepts: tuple[str, ...], by: Period, file_time: bool) -> None:
        """Plot these concepts (dictionary ids, in this order) by this period; the notes
        are read again only when the concepts change."""
        self.concepts, self.by, self.file_time = concepts, by, file_time
        gathered = self._mentions
        if (
            gathered is not None
            and gathered[0] == concepts
            and self._job is None  # else those being gathered may be another query's
            and not self._stale
        ):
            self._bin(gathered[1])
        else:
            self.rebuild()

    @Slot()
    def rebuild(self) -> None:
        """Gather the mentions again now if the timeline is shown, else on its next showing."""
        self._stale = True
        index = self.model.index
        if not self.active or index is None:
            return
        self._stale = False
        concepts, by, file_time = self.concepts, self.by, self.file_time
        root = self.model.root
        pause = self.model.pause_for_updates

        def gather(control: JobControl) -> tuple[tuple[str, ...], list[Any], Any]:
            from ..core.insight.timeline import bin_mentions, concept_mentions
            from ..core.vault.files import read_note

            def check() -> None:
                control.check()
                pause()

            mentions = concept_mentions(index, concepts, lambda r: read_note(root, r).text, check)
            return concepts, mentions, bin_mentions(mentions, concepts, by, file_time=file_time)

        for job in (self._job, self._bin_job):
            if job is not None:
                job.cancel()  # a newer timeline is on its way
        self._bin_job = None
        self._job = self.model.submit(gather, slow=True, name="timeline")
        self._job.finished.connect(self._on_job_finished)
        self._job.failed.connect(self._on_job_failed)

    def _bin(self, mentions: list[DatedMention]) -> None:
        """Bin the mentions gathered already by the period now chosen (quick job thread)."""
        concepts, by, file_time = self.concepts, self.by, self.file_time

        def bin_(_control: JobControl) -> Any:
            from ..core.insight.timeline import bin_mentions

            return bin_mentions(mentions, concepts, by, file_time=file_time)

        if self._bin_job is not None:
            self._bin_job.cancel()
        self._bin_job = self.model.submit(bin_, name="timeline bins")
        self._bin_job.finished.connect(self._on_bin_job_finished)
        self._bin_job.failed.connect(self._on_job_failed)

    def _list_concepts(self) -> None:
        index = self.model.index
        if index is None:
            return

        def ids(_control: JobControl) -> tuple[str, ...]:
            return tuple(c.id for c in index.concepts.concepts)

        self.model.submit(ids, name="timeline concepts").finished.connect(
            self._on_concepts_job_finished
        )

    @Slot(object)
    def _on_concepts_job_finished(self, ids: tuple[str, ...]) -> None:
        if ids != self.known or not self.listed:  # the first list, even an empty one
            self.known = ids
            self.listed = True
            self.concepts_listed.emit(ids)

    @Slot(object)
    def _on_job_finished(self, result: tuple[tuple[str, ...], list[Any], Any]) -> None:
        self._job = None
        concepts, mentions, timeline = result
        self._mentions = (concepts, mentions)
        self.current = timeline
        self.timeline_ready.emit(timeline)

    @Slot(object)
    def _on_bin_job_finished(self, timeline: object) -> None:
        self._bin_job = None
        self.current = timeline
        self.timeline_ready.emit(timeline)

    @Slot(object)
    def _on_job_failed(self, error: object) -> None:
        self._job = self._bin_job = None
        self.timeline_failed.emit(f"Could not build the timeline: {error}")

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        self._list_concepts()
        self.rebuild()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._stale = True
        self._list_concepts()
        if self.active:
            self._rebuild_timer.start()
