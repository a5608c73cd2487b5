"""The concept editor's Suggestions panel: phrases the notes write that no concept covers,
each with "Add as concept". The phrases are found on a job thread (``ConceptTabs``); this
widget only shows them and reports the user's choice."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QTableWidget,
    QWidget,
)

from ...core.tagging.suggestions import Suggestion
from ..items import table_cells
from .widgets import box, button, label, list_table

_COLUMNS = ("Phrase", "Notes", "Mentions", "For example", "")


class SuggestionsPanel(QWidget):
    """Signals:
    refresh_requested(): find the suggestions (again).
    add_requested(str, str): add a concept with this id and this first alias.
    note_activated(str): a note of the examples column was double-clicked (vault path).
    """

    refresh_requested = Signal()
    add_requested = Signal(str, str)
    note_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suggestions: list[Suggestion] = []
        self.status = label(wrap=True)
        self.refresh_button = button(
            "Find again", "Look through the notes again (after edits to the dictionary)"
        )
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(_COLUMNS)
        list_table(self.table, (200, 60, 75, 0, 130), stretch=3, row_padding=12)
        title = label("Suggested concepts", bold=True)
        box(
            True,
            box(False, title, 12, (self.status, 1), self.refresh_button),
            (self.table, 1),
            parent=self,
        )
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.table.cellDoubleClicked.connect(self._on_table_cell_double_clicked)

    def show_searching(self) -> None:
        self.status.setText("Reading the notes…")
        self.refresh_button.setEnabled(False)

    def show_suggestions(self, suggestions: Sequence[Suggestion], read: int, total: int) -> None:
        self.suggestions = list(suggestions)
        self.refresh_button.setEnabled(True)
        sample = "" if read == total else f" (an even sample of {read:,} of them)"
        if suggestions:
            self.status.setText(
                f"Phrases written in several of {total:,} notes{sample} that no alias, "
                "concept id or note title covers, most widespread first."
            )
        else:
            self.status.setText(
                f"No phrase is written in enough of the {total:,} notes{sample} without a "
                "concept or note covering it."
            )
        self._fill()

    def show_failure(self, message: str) -> None:
        self.refresh_button.setEnabled(True)
        self.status.setText(f"Could not look for suggestions: {message}")

    def remove(self, phrase: str) -> None:
        self.suggestions = [s for s in self.suggestions if s.phrase != phrase]
        self._fill()

    def phrases(self) -> list[str]:
        return [s.phrase for s in self.suggestions]

    def _fill(self) -> None:
        table = self.table
        table.setRowCount(0)
        table.setRowCount(len(self.suggestions))
        for row, found in enumerate(self.suggestions):
            cells = (
                found.phrase,
                found.notes,
                found.mentions,
                ", ".join(e.removesuffix(".md") for e in found.examples),
            )
            table_cells(table, row, [str(value) for value in cells], numbers=(1, 2))
            table.item(row, 0).setToolTip(f"id: {found.concept_id}")
            table.item(row, 3).setToolTip("Double-click to open the first of these notes")
            add = button("Add as concept", f'Add the concept "{found.concept_id}"')
            add.clicked.connect(
                lambda _=False, s=found: self.add_requested.emit(s.concept_id, s.phrase)
            )
            table.setCellWidget(row, 4, add)

    @Slot(int, int)
    def _on_table_cell_double_clicked(self, row: int, column: int) -> None:
        if column == 3 and 0 <= row < len(self.suggestions) and self.suggestions[row].examples:
            self.note_activated.emit(self.suggestions[row].examples[0])
