"""The vault-wide lists of the left sidebar, gathered on the job threads: every note's time
(Recent), notes per tag (Tags), notes linking each concept (Concepts)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from .model import VaultModel

if TYPE_CHECKING:
    from ..core.index.summaries import ConceptLinks
    from .jobs import JobControl, JobHandle

TAGS_DELAY_MS = 1000  # tag counts decode every note's parse: at most once a second


class VaultLists(QObject):
    """Gathers the lists once the index is ready (``refresh``) and again after changes.

    Signals:
        recent_listed(list): (note, modification time in seconds) for every note.
        tags_counted(Counter): notes per tag (a nested tag also counts for its parents).
        concepts_counted(list, str): a ConceptLinks per concept in dictionary order, and
            the dictionary's error ("" when it was read).
    """

    recent_listed = Signal(object)
    tags_counted = Signal(object)
    concepts_counted = Signal(object, str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._tags_job: JobHandle | None = None
        self._closed = False
        self._tags_timer = QTimer(self, singleShot=True, interval=TAGS_DELAY_MS)
        self._tags_timer.timeout.connect(self._on_tags_timer_timeout)
        model.index_updated.connect(self._on_model_index_updated)

    def refresh(self) -> None:
        """Recent changes (every note's time: 16 ms at 10,000 notes); then the counts."""
        model = self.model
        if self._closed or not model.ready:
            return

        def mtimes(_control: JobControl) -> list[tuple[str, float]]:
            index = model.snapshot()
            return [(rel, r.stamp.mtime_ns / 1e9) for rel, r in index.notes.items()]

        model.submit(mtimes, name="recent").finished.connect(self._on_recent_job_finished)

    def close(self) -> None:
        """Before the model closes: nothing more is asked of it."""
        self._closed = True
        self._tags_timer.stop()
        if self._tags_job is not None:
            self._tags_job.cancel()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._tags_timer.start()

    @Slot(object)
    def _on_recent_job_finished(self, notes: list[tuple[str, float]]) -> None:
        self.recent_listed.emit(notes)
        self._tags_timer.start()  # a second later: the first note's jobs go first

    @Slot()
    def _on_tags_timer_timeout(self) -> None:
        """The concepts' counts on the quick job thread (a thousand concepts count their
        notes in a millisecond); the tags' on the slow one, pausing for a file change on
        its way to the panes."""
        model = self.model
        index = model.index
        if self._closed or index is None:
            return

        def count_concepts(_control: JobControl) -> tuple[list[ConceptLinks], str]:
            from ..core.index.summaries import concept_links

            view = index.snapshot()
            return concept_links(view), view.concepts.error or ""

        def count_tags(control: JobControl) -> Counter[str]:
            from ..core.index.summaries import vault_tag_counts

            def check() -> None:
                control.check()
                model.pause_for_updates()

            return vault_tag_counts(index, check)

        concepts = model.submit(count_concepts, name="concept-links")
        concepts.finished.connect(self._on_concepts_job_finished)
        if self._tags_job is not None:
            self._tags_job.cancel()
        self._tags_job = model.submit(count_tags, slow=True, name="tags")
        self._tags_job.finished.connect(self.tags_counted)

    @Slot(object)
    def _on_concepts_job_finished(self, result: tuple[list[ConceptLinks], str]) -> None:
        self.concepts_counted.emit(*result)
