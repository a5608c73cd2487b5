"""The Index note panel's data: the index note's health, gathered on the slow job thread
once the index is ready and again after every change, and the Fix's plan, made on a job
thread for the user to see before anything is written (the write is the session's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.index.queries import INDEX_NOTE, home_note
from .model import VaultModel

if TYPE_CHECKING:
    from .jobs import JobControl, JobHandle

REFRESH_DELAY_MS = 300  # a burst of saves asks once


def _home(index: Any) -> str:
    """The index note when none was chosen: the vault's, as ``librarian index`` finds it."""
    return home_note(index, named_only=True) or INDEX_NOTE


class IndexNoteService(QObject):
    """Checks the index note ``index_note`` ("": the vault's own, ``_home``) once the
    index is ready (``refresh``) and after changes; a newer check cancels the one still
    running. ``plan_fix`` makes the Fix's plan (an IndexNoteFixPlan) from the index note as it
    is now.

    Signals:
        health_found(object): an IndexNoteHealth.
        fix_planned(object): an IndexNoteFixPlan, to preview.
        split_planned(object): a SplitPlan of a dump, to preview (``plan_split``).
        failed(str): a plan could not be made; what to tell the user.
    """

    health_found = Signal(object)
    fix_planned = Signal(object)
    split_planned = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        model: VaultModel,
        index_note: str = INDEX_NOTE,
        exclude: Sequence[str] = (),
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.index_note = index_note
        self.exclude = tuple(exclude)
        self.health: Any = None  # the last IndexNoteHealth found
        self._job: JobHandle | None = None
        self._closed = False
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        model.index_updated.connect(self._on_model_index_updated)

    @Slot()
    def refresh(self) -> None:
        """Check now (the index must be ready; before it is, nothing happens)."""
        index = self.model.index
        if self._closed or index is None:
            return
        self._timer.stop()
        note, exclude = self.index_note, self.exclude

        def check(_control: JobControl) -> Any:
            from ..core.insight.index_note import index_note_health

            return index_note_health(index, index_note=note or _home(index), exclude=exclude)

        if self._job is not None:
            self._job.cancel()
        self._job = self.model.submit(check, slow=True, name="index-health")
        self._job.finished.connect(self._on_check_finished)

    def set_scope(self, index_note: str, exclude: Sequence[str]) -> None:
        """Check another index note, or leave out other notes: checked again now."""
        self.index_note, self.exclude = index_note, tuple(exclude)
        self.refresh()

    @Slot()
    def plan_fix(self) -> None:
        """Make the Fix's plan from the index note as it is now (``fix_planned``)."""
        index = self.model.index
        if self._closed or index is None:
            return
        note, exclude = self.index_note, self.exclude

        def plan(_control: JobControl) -> Any:
            from ..core.insight.index_note_fix import plan_index_note_fix

            return plan_index_note_fix(index, index_note=note or _home(index), exclude=exclude)

        handle = self.model.submit(plan, slow=True, name="index-fix plan")  # reads notes
        handle.finished.connect(self.fix_planned)
        handle.failed.connect(self._on_plan_failed)

    def plan_split(
        self,
        note: str,
        keep: Sequence[int] = (),
        to: dict[int, str] | None = None,
        logs: str = "day",
    ) -> None:
        """Make the plan to split the dump ``note`` (a vault path) from it as it is now,
        sections ``keep`` left in it, ``to`` sending sections to the notes the user named,
        ``logs`` "day" or "month" (``split_planned``)."""
        index = self.model.index
        if self._closed or index is None:
            return
        kept, sent = frozenset(keep), dict(to or {})
        span: Any = "month" if logs == "month" else "day"

        def plan(_control: JobControl) -> Any:
            from ..core.library.split import SplitOptions, plan_split

            return plan_split(index, note, SplitOptions(logs=span, keep=kept, to=sent))

        handle = self.model.submit(plan, slow=True, name="split plan")  # reads the dump
        handle.finished.connect(self.split_planned)
        handle.failed.connect(self._on_split_plan_failed)

    def close(self) -> None:
        """Before the model closes: nothing more is asked of it."""
        self._closed = True
        self._timer.stop()
        if self._job is not None:
            self._job.cancel()

    @Slot(object)
    def _on_check_finished(self, health: object) -> None:
        self.health = health
        self.health_found.emit(health)

    @Slot(object)
    def _on_plan_failed(self, error: object) -> None:
        self.failed.emit(f"Index note not fixed: {error}")

    @Slot(object)
    def _on_split_plan_failed(self, error: object) -> None:
        self.failed.emit(f"Not split: {error}")

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._timer.start()
