"""The tagging preview: what a run would link, mention by mention; Apply and Undo last run."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ...core.concepts.dictionary import Concept
from ...core.tagging.run import INDEX_NOTE, TagPlan, tag_candidates
from ...services.jobs import JobHandle
from ...services.tagging import failure_text
from ..elided import ElidedLabel
from .diff import ConceptCounts, DiffView, PlanModel

if TYPE_CHECKING:
    from ...services.tagging import JournalEntry, TaggingService, UndoResult

HINT = (
    "Press Preview to see, note by note, the links a run would add.\n"
    "Nothing is written until you press Apply."
)
NO_CONCEPTS = (
    "This vault has no concept dictionary, or an empty one: there is nothing to tag. "
    "Start one in the Dictionary tab (a starter, or New concept…)."
)
REPORT_CSS = "p { margin: 0 0 2px 0; } .reason { color: palette(mid); }"
REPORT_LINES = 6
EXPAND_UP_TO = 400  # mentions: a bigger plan opens with its notes collapsed


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class TaggingView(QWidget):
    """Preview a tagging run, accept or reject each mention, apply, undo (DESIGN §3).

    Reading the notes, writing them and undoing run on the ``TaggingService``'s thread,
    one job at a time; a newer preview cancels the one running. Nothing is written before
    Apply.

    Signals:
        previewed(TagPlan): a plan is shown (from ``preview`` or ``show_plan``).
        applied(JournalEntry): Apply finished: ``written``, ``skipped`` with reasons.
        undone(UndoResult): Undo last run finished: ``restored``, ``refused`` with reasons.
        note_activated(str): the user double-clicked a note (vault-relative path): open it.
    """

    previewed = Signal(object)
    applied = Signal(object)
    undone = Signal(object)
    note_activated = Signal(str)

    def __init__(
        self,
        vault_root: Path,
        service: TaggingService,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.root = Path(vault_root)
        self._concepts: tuple[Concept, ...] = ()
        self._notes: tuple[str, ...] = ()
        self.service = service  # the open vault's (``services.open_vault``), closed by it
        self._generation = 0
        self._pending: dict[int, str] = {}  # generation → kind, submitted and not finished
        self._preview_generation = -1
        self._preview_title = ""
        self._applying: Mapping[str, frozenset[int]] = {}
        self.model = PlanModel(self)
        self.model.accepted_changed.connect(self._on_model_accepted_changed)
        self._diff_timer = QTimer(self, singleShot=True, interval=0)
        self._diff_timer.timeout.connect(self._refresh_diff)
        self._build()

    # ------------------------------------------------------------ layout

    def _build(self) -> None:
        self.concept_filter = QComboBox()
        self.concept_filter.setMinimumContentsLength(18)
        self.concept_filter.setToolTip("Link the mentions of every concept, or of one")
        self.all_mentions = QCheckBox("All mentions")
        self.all_mentions.setToolTip("Link every mention, not only the first one in each note")
        self.include_index = QCheckBox(f"Include index note ({INDEX_NOTE})")
        self.preview_button = QPushButton("Preview")
        self.preview_button.setToolTip("Find what a run would link; nothing is written")
        self.preview_button.clicked.connect(self._on_preview_button_clicked)
        top = QHBoxLayout()
        top.setSpacing(12)
        top.addWidget(QLabel("Concepts:"))
        top.addWidget(self.concept_filter)
        top.addWidget(self.all_mentions)
        top.addWidget(self.include_index)
        top.addStretch(1)
        top.addWidget(self.preview_button)

        self.heading = QLabel("No preview yet")
        self.heading.setObjectName("sectionHeader")
        self.accept_all = QPushButton("Accept all")
        self.reject_all = QPushButton("Reject all")
        self.accept_all.clicked.connect(self._on_accept_all_clicked)
        self.reject_all.clicked.connect(self._on_reject_all_clicked)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.heading, 1)
        bar.addWidget(self.accept_all)
        bar.addWidget(self.reject_all)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.doubleClicked.connect(self._on_tree_double_clicked)
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)
        self.counts = ConceptCounts(self.model)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(bar)
        left_splitter = QSplitter(Qt.Orientation.Vertical)
        left_splitter.addWidget(self.tree)
        left_splitter.addWidget(self.counts)
        left_splitter.setSizes([500, 200])
        left_layout.addWidget(left_splitter)

        self.diff_title = ElidedLabel()  # a note's path: a long one must not widen the window
        self.diff_title.setObjectName("sectionHeader")
        self.diff_title.setMinimumHeight(self.accept_all.sizeHint().height())
        self.diff = DiffView()
        self._idle_message = HINT  # the diff pane's text while no plan is shown
        self.diff.setPlaceholderText(HINT)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.diff_title)
        right_layout.addWidget(self.diff)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([480, 520])

        self.report = QTextBrowser()
        self.report.document().setDefaultStyleSheet(REPORT_CSS)
        self.report.hide()
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.hide()
        self.undo_button = QPushButton("Undo last run")
        self.undo_button.setToolTip("Give the notes of the last tagging run their bytes back")
        self.undo_button.clicked.connect(self.undo_last_run)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(self.apply)
        bottom = QHBoxLayout()
        bottom.setSpacing(8)
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.progress)
        bottom.addWidget(self.undo_button)
        bottom.addWidget(self.apply_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.report)
        layout.addLayout(bottom)
        self.set_concepts(())
        self._update_buttons()

    # ------------------------------------------------------------ inputs

    def set_concepts(self, concepts: Sequence[Concept]) -> None:
        """The dictionary's concepts (the filter lists their ids)."""
        self._concepts = tuple(concepts)
        chosen = self.concept_filter.currentData()
        self.concept_filter.clear()
        self.concept_filter.addItem("All concepts", None)
        for concept in sorted(self._concepts, key=lambda c: c.id.casefold()):
            self.concept_filter.addItem(concept.id, concept.id)
            tip = ", ".join(concept.aliases)
            self.concept_filter.setItemData(
                self.concept_filter.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        self.concept_filter.setCurrentIndex(max(0, self.concept_filter.findData(chosen)))

    def set_notes(self, rels: Sequence[str]) -> None:
        """The vault's notes (vault-relative paths). "Include index note" is offered only
        when the vault has one."""
        self._notes = tuple(rels)
        index_note = INDEX_NOTE.lower()
        self.include_index.setVisible(any(r.lower() == index_note for r in self._notes))

    def accepted(self) -> dict[str, frozenset[int]]:
        """Per note of the shown plan, the indexes of its accepted occurrences."""
        return self.model.accepted_map()

    def concept_counts(self) -> dict[str, tuple[int, int]]:
        """Per concept of the shown plan: (mentions accepted, mentions found)."""
        return {c: (self.model.accepted_per_concept[c], n) for c, n in self.model.found.items()}

    # ------------------------------------------------------------ preview

    def preview(self, only: Sequence[str] | None = None) -> bool:
        """Read the notes on the worker and show what a run would link (of the concepts
        ``only``, or of all). A preview still running is cancelled. False, with the reason
        shown at once, when there is nothing to preview (no concepts, no notes): no
        ``previewed`` follows."""
        if only is None:
            self.concept_filter.setCurrentIndex(0)
        elif len(only) == 1 and self.concept_filter.findData(only[0]) > 0:
            self.concept_filter.setCurrentIndex(self.concept_filter.findData(only[0]))
        if not self._concepts:
            self._nothing_to_preview(NO_CONCEPTS)
            return False
        rels = tuple(tag_candidates(self._notes, include_index=self.include_index.isChecked()))
        if not rels:
            self._nothing_to_preview("There are no notes to tag.")
            return False
        all_mentions = self.all_mentions.isChecked()
        wanted = None if only is None else tuple(only)
        what = "all concepts" if wanted is None else ", ".join(wanted)
        how = "all mentions" if all_mentions else "first mention per note"
        self._preview_title = f"{what.capitalize() if wanted is None else what} · {how}"
        self._pending.pop(self._preview_generation, None)  # the service cancels it
        handle = self.service.preview(rels, self._concepts, all_mentions=all_mentions, only=wanted)
        self._preview_generation = self._track("preview", handle)
        self._say(f"Reading {_plural(len(rels), 'note')}…")
        return True

    def _nothing_to_preview(self, why: str) -> None:
        self.heading.setText("Nothing to preview")
        self._say(why)
        self._idle_message = why
        self.diff.setPlaceholderText(why)

    def show_plan(self, plan: TagPlan, title: str) -> None:
        """Show a plan computed elsewhere (a concept rename's link rewrites, say); Apply and
        Undo work on it as on a preview. A preview still running is dropped."""
        self.service.cancel_preview()
        self._pending.pop(self._preview_generation, None)
        self._preview_generation = self._next_generation()
        self._show(plan, title)
        self._update_buttons()

    def _show(self, plan: TagPlan, title: str) -> None:
        self._idle_message = "Nothing to link: no note mentions a concept it does not link yet."
        self.model.set_plan(plan)
        self.heading.setText(title)
        if plan.total <= EXPAND_UP_TO:
            self.tree.expandAll()
        if plan.notes:
            self.tree.setCurrentIndex(self.model.index(0, 0))
        else:
            self._refresh_diff()
        self._say(self._plan_summary())
        self._set_report("Not read", plan.warnings)
        self.previewed.emit(plan)

    def _plan_summary(self) -> str:
        plan = self.model.plan
        if plan is None or not plan.notes:
            return f"Nothing to link in {_plural(plan.scanned if plan else 0, 'note')}."
        return (
            f"Accepting {self.model.total_accepted:,} of {_plural(plan.total, 'mention')} "
            f"of {_plural(len(self.model.found), 'concept')} in {_plural(len(plan.notes), 'note')}"
            f"; {_plural(plan.scanned, 'note')} read."
        )

    # ------------------------------------------------------------ apply and undo

    @Slot()
    def apply(self) -> None:
        """Write the accepted mentions of the shown plan (on the worker)."""
        plan = self.model.plan
        if plan is None or self._pending or self.model.total_accepted == 0:
            return
        accepted = self._applying = self.model.accepted_map()
        self._track("apply", self.service.apply(plan, accepted))
        self._say(f"Linking {_plural(self.model.total_accepted, 'mention')}…")

    @Slot()
    def undo_last_run(self) -> None:
        """Undo the newest tagging run not undone yet (on the worker)."""
        if self._pending:
            return
        self._track("undo", self.service.undo_last_run())
        self._say("Undoing the last tagging run…")

    def _show_applied(self, entry: JournalEntry) -> None:
        linked = sum(len(self._applying.get(rel, ())) for rel in entry.written)
        text = f"Linked {_plural(linked, 'mention')} in {_plural(len(entry.written), 'note')}."
        if entry.skipped:
            text += f" {len(entry.skipped):,} skipped (below)."
        self._clear_plan(
            "Applied",
            f"{text}\nBacklinks and the graph follow as the notes change on disk.\n"
            "Preview again to see what is left; Undo last run gives the notes back.",
        )
        self._say(text)
        self._set_report("Skipped, not written", entry.skipped)
        self.applied.emit(entry)

    def _show_undone(self, result: UndoResult) -> None:
        text = f"Undid the last tagging run: restored {_plural(len(result.restored), 'note')}."
        if result.refused:
            text += f" {len(result.refused):,} refused (below)."
        self._clear_plan("Undone", f"{text}\nPreview again to see what a run would link.")
        self._say(text)
        self._set_report("Refused, left as they are", result.refused)
        self.undone.emit(result)

    def _clear_plan(self, heading: str, message: str) -> None:
        self._idle_message = message
        self.model.set_plan(None)
        self.heading.setText(heading)
        self._refresh_diff()

    # ------------------------------------------------------------ the service's jobs

    def _next_generation(self) -> int:
        self._generation += 1
        return self._generation

    def _track(self, kind: str, handle: JobHandle) -> int:
        """Show the job busy until its answer comes; the generation it is known by."""
        generation = self._next_generation()
        self._pending[generation] = kind
        handle.progressed.connect(self._on_job_progressed)
        handle.finished.connect(partial(self._on_job_finished, generation, kind))
        handle.failed.connect(partial(self._on_job_failed, generation, kind))
        self._update_buttons()
        return generation

    @Slot(int, int)
    def _on_job_progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_job_finished(self, generation: int, kind: str, result: object) -> None:
        self._pending.pop(generation, None)
        if kind == "preview" and isinstance(result, TagPlan):
            if generation == self._preview_generation:  # else replaced meanwhile
                self._show(result, self._preview_title)
        elif kind == "apply":
            self._show_applied(result)  # type: ignore[arg-type]
        elif kind == "undo":
            self._show_undone(result)  # type: ignore[arg-type]
        self._update_buttons()

    def _on_job_failed(self, generation: int, kind: str, error: object) -> None:
        self._pending.pop(generation, None)
        if kind != "preview" or generation == self._preview_generation:
            self._say(failure_text(kind, error))
        self._update_buttons()

    # ------------------------------------------------------------ reacting

    def _update_buttons(self) -> None:
        busy = bool(self._pending)
        writing = any(kind != "preview" for kind in self._pending.values())
        has_plan = self.model.plan is not None and bool(self.model.plan.notes)
        self.apply_button.setEnabled(not busy and has_plan and self.model.total_accepted > 0)
        self.undo_button.setEnabled(not busy)
        self.preview_button.setEnabled(not writing)
        for widget in (self.tree, self.counts, self.accept_all, self.reject_all):
            widget.setEnabled(not writing and has_plan)
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)  # indeterminate until the first progress report

    def _say(self, text: str) -> None:
        self.summary.setText(text)

    def _set_report(self, title: str, items: Sequence[tuple[str, str]]) -> None:
        if not items:
            self.report.clear()
            self.report.hide()
            return
        lines = [f"<p><b>{html.escape(title)} ({len(items):,}):</b></p>"]
        lines += [
            f'<p>{html.escape(rel)} — <span class="reason">{html.escape(reason)}</span></p>'
            for rel, reason in items
        ]
        self.report.setHtml("".join(lines))
        # As tall as its lines, up to REPORT_LINES; a longer list scrolls.
        shown = min(len(lines), REPORT_LINES)
        margins = 2 * (self.report.frameWidth() + int(self.report.document().documentMargin()))
        self.report.setFixedHeight(shown * (self.fontMetrics().lineSpacing() + 2) + margins)
        self.report.show()

    @Slot()
    def _on_preview_button_clicked(self) -> None:
        concept = self.concept_filter.currentData()
        self.preview(None if concept is None else [concept])

    @Slot()
    def _on_accept_all_clicked(self) -> None:
        self.model.set_all(True)

    @Slot()
    def _on_reject_all_clicked(self) -> None:
        self.model.set_all(False)

    @Slot()
    def _on_model_accepted_changed(self) -> None:
        if self.model.plan is not None and not self._pending:
            self._say(self._plan_summary())
        self._update_buttons()
        self._diff_timer.start()

    @Slot(QModelIndex, QModelIndex)
    def _on_tree_current_changed(self, _current: QModelIndex, _previous: QModelIndex) -> None:
        self._refresh_diff()

    @Slot(QModelIndex)
    def _on_tree_double_clicked(self, index: QModelIndex) -> None:
        row = index.row() if index.internalId() == 0 else index.internalId() - 1
        self.note_activated.emit(self.model.note(row).rel)

    @Slot()
    def _refresh_diff(self) -> None:
        index = self.tree.currentIndex()
        if self.model.plan is None or not index.isValid():
            self.diff_title.setText("")
            self.diff.clear()
            self.diff.setPlaceholderText(self._idle_message)
            return
        row = index.row() if index.internalId() == 0 else index.internalId() - 1
        note = self.model.note(row)
        accepted = self.model.accepted_in(row)
        focus = note.occurrences[index.row()].line if index.internalId() else None
        self.diff_title.set_path(
            note.rel, f" · {len(accepted)} of {_plural(note.count, 'mention')}"
        )
        if accepted:
            self.diff.show_diff(note.diff(accepted), focus)
        else:
            self.diff.clear()
            self.diff.setPlaceholderText(
                "Every mention of this note is rejected: it stays as it is."
            )
