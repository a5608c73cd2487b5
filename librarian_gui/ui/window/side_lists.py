"""The main window's side lists that summarise the whole vault — recent changes, tag
counts, concepts — gathered on the job threads: a part of ``MainWindow``."""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot

from ...core.courtesy import gc_paused
from ..panes.concepts import ConceptsPane, concept_rows
from ..panes.recent import RecentChanges
from ..panes.tags import TagsPane, tag_counts

if TYPE_CHECKING:
    from ...services.model import VaultModel


class WindowLists:
    """Mixed into ``MainWindow``: Recent, Tags and Concepts in the left sidebar."""

    model: VaultModel | None
    recent: RecentChanges
    tags: TagsPane
    concepts: ConceptsPane

    def _init_lists(self) -> None:
        assert isinstance(self, QObject)
        self._tags_cancel = threading.Event()
        self._tags_timer = QTimer(self, singleShot=True, interval=1000)
        self._tags_timer.timeout.connect(self._on_tags_timer_timeout)

    def _refresh_lists(self) -> None:
        """Recent changes (every note's time, gathered on the job thread: 16 ms here at
        10,000 notes); then the tag counts."""
        model = self.model
        if model is None or not model.ready:
            return

        def mtimes(_cancel: threading.Event) -> list[tuple[str, float]]:
            with model.read() as index:
                return [(rel, r.stamp.mtime_ns / 1e9) for rel, r in index.notes.items()]

        model.submit(("recent", id(self)), mtimes, threading.Event())

    @Slot()
    def _on_tags_timer_timeout(self) -> None:
        """Tag counts decode every note's parse: on the background thread, and at most
        once a second while files keep changing."""
        model = self.model
        if model is None or not model.ready:
            return
        self._refresh_concepts()

        def count_tags(cancel: threading.Event) -> object:
            with model.read() as index:
                records = list(index.notes.values())
            tags = []
            # Each note's parse is decoded here and kept with its record (190,000 link
            # objects at 10,000 notes): frozen, full collections do not walk them again.
            with gc_paused():
                for i, record in enumerate(records):
                    if i % 500 == 0:
                        if cancel.is_set():
                            return None
                        model.pause_for_updates()
                    tags.append([t.name for t in record.parsed.tags])
            return tag_counts(tags)

        self._tags_cancel.set()
        self._tags_cancel = threading.Event()
        model.submit(("tags", id(self)), count_tags, self._tags_cancel, slow=True)

    def _refresh_concepts(self) -> None:
        """The concepts pane: a thousand concepts count their notes in a millisecond."""
        if self.model is None or not self.model.ready:
            return
        with self.model.read() as index:
            rows = concept_rows(index, index.concepts)
            error = index.concepts.error or ""
        self.concepts.show_concepts(rows, error)

    @Slot(object, object)
    def _on_model_job_finished(self, token: object, result: object) -> None:
        if token == ("tags", id(self)) and isinstance(result, Counter):
            self.tags.show_counts(result)
        elif token == ("recent", id(self)) and isinstance(result, list):
            self.recent.show_notes(result)
            self._tags_timer.start()  # a second later: the first note's jobs go first
