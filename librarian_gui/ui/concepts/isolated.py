"""The concept editor's Isolated panel: the concepts found in at most N notes, a curator's
worklist (DESIGN §4), each with its counts and what to do about it — Tag now, Add alias,
Merge into…, Delete. The counts come from a job (``ConceptService.found_counted``); the
actions go through the editor's undoable edits (``ConceptTabs`` wires them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QInputDialog, QSpinBox, QTableWidget, QWidget

from ...core.concepts.dictionary import Concept
from ...core.insight.isolation import (
    MAX_NOTES,
    MENTIONED_ONLY,
    NEVER_LINKED,
    IsolatedConcept,
    isolated_concepts,
)
from ..items import table_cells
from .widgets import box, button, label, list_table

_COLUMNS = ("Concept", "Category", "Status", "Notes", "Unlinked", "Found in")
_NUMBERS = (3, 4)
_STATUS_TIPS = {
    NEVER_LINKED: "No note links it, and no note writes one of its aliases",
    MENTIONED_ONLY: "Notes write its aliases without linking it: Tag now links them",
}


class IsolatedPanel(QWidget):
    """Signals (each with the selected concept's id):
    tag_requested(str): preview the links its unlinked mentions would get.
    add_alias_requested(str, str): add this alias to it.
    merge_requested(str, str): merge it into the other concept.
    delete_requested(str): delete it.
    concept_activated(str): it was double-clicked (select it in the editor).

    ``ask_text`` and ``ask_item`` ask the user (replaceable, for tests); None is "cancel".
    """

    tag_requested = Signal(str)
    add_alias_requested = Signal(str, str)
    merge_requested = Signal(str, str)
    delete_requested = Signal(str)
    concept_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[IsolatedConcept] = []
        self._concepts: tuple[Concept, ...] = ()
        self._found: Mapping[str, frozenset[str]] | None = None
        self._mentioned: Mapping[str, int] = {}
        self.ask_text: Callable[[str, str], str | None] = self._ask_text
        self.ask_item: Callable[[str, str, list[str]], str | None] = self._ask_item
        self.max_notes = QSpinBox()
        self.max_notes.setRange(0, 99)
        self.max_notes.setValue(MAX_NOTES)
        self.max_notes.setPrefix("in ≤ ")
        self.max_notes.setSuffix(" notes")
        self.max_notes.setToolTip("List the concepts found in at most this many notes")
        self.status = label(wrap=True)
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(_COLUMNS)
        list_table(self.table, (170, 110, 170, 55, 70, 0), stretch=5, row_padding=12)
        self.tag_button = button("Tag now", "Preview the links its unlinked mentions would get")
        self.alias_button = button("Add alias…", "Give it another name the tagger finds")
        self.merge_button = button("Merge into…", "Fold it into another concept")
        self.delete_button = button("Delete", "Remove it from the dictionary (undoable)")
        title = label("Isolated concepts", bold=True)
        box(
            True,
            box(False, title, self.max_notes, 12, (self.status, 1)),
            (self.table, 1),
            box(
                False,
                self.tag_button,
                self.alias_button,
                self.merge_button,
                self.delete_button,
                1,
            ),
            parent=self,
        )
        self.max_notes.valueChanged.connect(self._on_max_notes_value_changed)
        self.table.itemSelectionChanged.connect(self._show_buttons)
        self.table.cellDoubleClicked.connect(self._on_table_cell_double_clicked)
        self.tag_button.clicked.connect(self._on_tag_clicked)
        self.alias_button.clicked.connect(self._on_alias_clicked)
        self.merge_button.clicked.connect(self._on_merge_clicked)
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self._fill()

    # ------------------------------------------------------------ input

    def set_concepts(self, concepts: Sequence[Concept]) -> None:
        """The dictionary as the editor holds it (unsaved edits included)."""
        self._concepts = tuple(concepts)
        self._fill()

    def set_found(self, found: Mapping[str, frozenset[str]], mentioned: Mapping[str, int]) -> None:
        """Per concept id, the notes it is found in (the index note left out) and the notes
        mentioning it without a link."""
        self._found = dict(found)
        self._mentioned = dict(mentioned)
        self._fill()

    def show_counts(
        self,
        concepts: Sequence[Concept],
        found: Mapping[str, frozenset[str]] | None,
        mentioned: Mapping[str, int],
    ) -> None:
        """``set_concepts`` and ``set_found`` at once (``found`` None: not counted yet)."""
        self._concepts = tuple(concepts)
        self._found = None if found is None else dict(found)
        self._mentioned = dict(mentioned)
        self._fill()

    def selected(self) -> IsolatedConcept | None:
        row = self.table.currentRow()
        chosen = self.table.selectionModel().hasSelection()
        return self.rows[row] if chosen and 0 <= row < len(self.rows) else None

    # ------------------------------------------------------------ showing

    def _fill(self) -> None:
        chosen = self.selected()
        table = self.table
        if self._found is None:
            self.rows = []
            self.status.setText("Counting the notes each concept is found in…")
        else:
            # A concept added since the count is found in no note yet.
            found = {c.id: self._found.get(c.id, frozenset()) for c in self._concepts}
            self.rows = isolated_concepts(
                self._concepts, found, self._mentioned, max_notes=self.max_notes.value()
            )
            self.status.setText(self._summary())
        table.setRowCount(0)
        table.setRowCount(len(self.rows))
        for row, item in enumerate(self.rows):
            cells = (
                item.id,
                item.category,
                item.status,
                str(len(item.notes)),
                str(item.mentioned),
                ", ".join(n.removesuffix(".md") for n in item.notes),
            )
            made = table_cells(table, row, cells, numbers=_NUMBERS)
            made[2].setToolTip(_STATUS_TIPS.get(item.status, "Found in few notes"))
            made[5].setToolTip("\n".join(item.notes))
            if chosen is not None and item.id == chosen.id:
                table.selectRow(row)
        self._show_buttons()

    def _summary(self) -> str:
        count = len(self.rows)
        total = len(self._concepts)
        if not total:
            return "The dictionary has no concepts yet."
        if not count:
            return f"None of the {total} concepts is found in so few notes."
        unlinked = [r for r in self.rows if not r.notes]
        mentioned = sum(1 for r in unlinked if r.status == MENTIONED_ONLY)
        rare = count - len(unlinked)
        limit = self.max_notes.value()
        return (
            f"{count} of {total} concepts: {len(unlinked)} never linked ({mentioned} of them "
            f"mentioned, which Tag now links), {rare} in 1 to {limit} notes. The index note is "
            "left out; least found first."
            if limit
            else f"{count} of {total} concepts never linked ({mentioned} of them mentioned, "
            "which Tag now links). The index note is left out."
        )

    @Slot()
    def _show_buttons(self) -> None:
        item = self.selected()
        for widget in (self.alias_button, self.merge_button, self.delete_button):
            widget.setEnabled(item is not None)
        self.tag_button.setEnabled(item is not None and item.mentioned > 0)

    # ------------------------------------------------------------ actions

    @Slot(int)
    def _on_max_notes_value_changed(self, _value: int) -> None:
        self._fill()

    @Slot(int, int)
    def _on_table_cell_double_clicked(self, row: int, _column: int) -> None:
        if 0 <= row < len(self.rows):
            self.concept_activated.emit(self.rows[row].id)

    @Slot()
    def _on_tag_clicked(self) -> None:
        item = self.selected()
        if item is not None:
            self.tag_requested.emit(item.id)

    @Slot()
    def _on_alias_clicked(self) -> None:
        item = self.selected()
        if item is None:
            return
        alias = self.ask_text("Add alias", f'Another name for "{item.id}":')
        if alias is not None and alias.strip():
            self.add_alias_requested.emit(item.id, alias.strip())

    @Slot()
    def _on_merge_clicked(self) -> None:
        item = self.selected()
        if item is None:
            return
        others = sorted((c.id for c in self._concepts if c.id != item.id), key=str.casefold)
        into = self.ask_item("Merge into", f'Merge "{item.id}" into:', others)
        if into:
            self.merge_requested.emit(item.id, into)

    @Slot()
    def _on_delete_clicked(self) -> None:
        item = self.selected()
        if item is not None:
            self.delete_requested.emit(item.id)

    def _ask_text(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt)
        return text if ok else None

    def _ask_item(self, title: str, prompt: str, items: list[str]) -> str | None:
        if not items:
            return None
        chosen, ok = QInputDialog.getItem(self, title, prompt, items, 0, False)
        return chosen if ok else None
