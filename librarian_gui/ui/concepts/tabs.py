"""The concept editor and the tagging preview of one open vault, wired to its model: the
centre's "Dictionary" and "Tagging" tabs (the left pane's "Concepts" lists the concepts to
read by; this tab edits them)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtWidgets import QTabWidget

from ...core.concepts.dictionary import Concept
from ...core.tagging.run import TagPlan, tag_candidates
from ...services.model import Update
from ...services.open_vault import OpenVault
from ..tagging.view import TaggingView
from .editor import ConceptEditor

USAGE_DELAY_MS = 1500  # usage reads every note: at most once per quiet second and a half


class ConceptTabs(QObject):
    """Owns the two tabs while a vault is open; ``close()`` removes them.

    The editor's counts (notes linking each concept, notes mentioning it unlinked),
    suggestions and link rewrites come from a ``ConceptService`` (on the model's slow job
    thread) after the index changes; the tagging preview gets the vault's notes and the
    dictionary's concepts as they change.
    """

    def __init__(
        self,
        vault: OpenVault,
        centre: QTabWidget,
        open_concept: Callable[[str], None],
        open_note: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model = vault.model
        self.centre = centre
        self._open_concept = open_concept
        root = model.root
        self.editor = ConceptEditor(root, model.dictionary_path, load=False)
        self.tagging = TaggingView(root, vault.tagging)
        self.service = vault.concepts
        centre.addTab(self.editor, "Dictionary")
        centre.addTab(self.tagging, "Tagging")
        self._usage_timer = QTimer(self, singleShot=True, interval=USAGE_DELAY_MS)
        self._usage_timer.timeout.connect(self._on_usage_timer_timeout)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        model.dictionary_changed.connect(self.editor.file_changed_on_disk)
        self.service.usage_counted.connect(self.editor.set_usage)
        self.service.found_counted.connect(self.editor.set_found)
        self.service.suggestions_found.connect(self.editor.show_suggestions)
        self.service.suggestions_failed.connect(self.editor.show_suggestions_failed)
        self.service.relink_planned.connect(self._on_service_relink_planned)
        self.editor.first_shown.connect(self._on_editor_first_shown)
        self.editor.concept_activated.connect(self._on_editor_concept_activated)
        self.editor.tag_requested.connect(self.tag_concept)
        self.editor.relink_requested.connect(self._on_editor_relink_requested)
        self.tagging.note_activated.connect(open_note)
        self.editor.note_activated.connect(open_note)
        self.editor.suggestions_requested.connect(self._on_editor_suggestions_requested)

    def close(self) -> None:
        """Take the tabs away (the vault closes the services)."""
        self._usage_timer.stop()
        for widget in (self.editor, self.tagging):
            index = self.centre.indexOf(widget)
            if index >= 0:
                self.centre.removeTab(index)
            widget.deleteLater()

    @Slot(str)
    def tag_concept(self, concept_id: str) -> None:
        """Preview the links one concept would get, in the Tagging tab."""
        self.centre.setCurrentWidget(self.tagging)
        self.tagging.preview(only=[concept_id])

    def show_editor(self) -> None:
        self.centre.setCurrentWidget(self.editor)

    def show_tagging(self) -> None:
        self.centre.setCurrentWidget(self.tagging)

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        """Once per scan (every later change comes with its update): the notes, sorted on
        a job thread (10,000 paths are a few ms of the GUI thread's), and the concepts."""
        if self.model.closed or self.model.index is None:
            return
        index = self.model.snapshot()

        def listed(_control: object) -> tuple[int, list[str], tuple[Concept, ...]]:
            notes = tag_candidates(index.notes, include_index=True)
            return index.generation, notes, index.concepts.concepts

        self.model.submit(listed, name="tagging notes").finished.connect(self._on_listed)

    @Slot(object)
    def _on_listed(self, listed: tuple[int, list[str], tuple[Concept, ...]]) -> None:
        generation, notes, concepts = listed
        if self.model.closed or self.model.index is None:
            return
        if self.model.snapshot().generation != generation:  # an update came meanwhile
            self._on_model_index_ready(None)
            return
        self.tagging.set_notes(notes)
        self.tagging.set_concepts(concepts)
        self._usage_timer.start()

    @Slot(object)
    def _on_model_index_updated(self, update: Update) -> None:
        """Only what changed, as the update carries it: refilling the tagging tab's concept
        list costs 10 ms at 1,000 concepts, and most updates are a note written, not the
        dictionary."""
        if update.notes is not None:
            self.tagging.set_notes(update.notes)
        if update.concepts is not None:
            self.tagging.set_concepts(update.concepts)
        self._usage_timer.start()

    @Slot()
    def _on_editor_first_shown(self) -> None:
        QTimer.singleShot(0, self._on_usage_timer_timeout)

    @Slot()
    def _on_usage_timer_timeout(self) -> None:
        """Counts for the editor's table: read every note, so only once the editor has been
        shown (a window that never shows it never pays for them)."""
        if self.editor.loaded:
            self.service.count_usage()

    @Slot()
    def _on_editor_suggestions_requested(self) -> None:
        """Candidate concepts; the editor's concepts count as they are now, unsaved edits
        included."""
        doc = self.editor.document
        self.service.find_suggestions(doc.concepts() if doc is not None else [])

    @Slot(str)
    def _on_editor_concept_activated(self, concept_id: str) -> None:
        self._open_concept(concept_id)

    @Slot(str, str)
    def _on_editor_relink_requested(self, old: str, new: str) -> None:
        """Links to the old id, rewritten to the new one: previewed in the Tagging tab,
        written only when the user applies them (and undoable like any tagging run)."""
        self.service.plan_relink(old, new)

    @Slot(object, str)
    def _on_service_relink_planned(self, plan: TagPlan, title: str) -> None:
        self.centre.setCurrentWidget(self.tagging)
        self.tagging.show_plan(plan, title)
