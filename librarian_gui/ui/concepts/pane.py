"""The concepts pane of the left sidebar: the dictionary's concepts grouped by category, each
with the number of notes linking it."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.index.summaries import ConceptLinks
from ..items import tree_rows
from ..swatch import swatch_icon, valid_colour

CONCEPT_ROLE = Qt.ItemDataRole.UserRole + 1
NO_CATEGORY = "(no category)"
NO_DICTIONARY = "No concepts yet: this vault has no concept dictionary, or an empty one."


class ConceptsPane(QWidget):
    """Concepts by category, with counts; a filter box on top.

    Signals:
        concept_activated(str): the user chose a concept (its id).
        dictionary_requested(): the vault has no dictionary and the user asked to start
            one (in the concept editor, with its starters).
    """

    concept_activated = Signal(str)
    dictionary_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter concepts")
        self.filter.setClearButtonEnabled(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Concept", "Notes"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, self.tree.header().ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, self.tree.header().ResizeMode.ResizeToContents)
        self.empty = QWidget()  # instead of the tree while there is no dictionary
        self.empty_label = QLabel(NO_DICTIONARY)
        self.empty_label.setWordWrap(True)
        self.start_button = QPushButton("Start one…")
        self.start_button.setToolTip("Open the concept editor: start from a starter dictionary")
        self.start_button.clicked.connect(self.dictionary_requested)
        empty = QVBoxLayout(self.empty)
        empty.setContentsMargins(6, 6, 6, 6)
        empty.addWidget(self.empty_label)
        empty.addWidget(self.start_button, 0, Qt.AlignmentFlag.AlignLeft)
        empty.addStretch(1)
        self.empty.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree)
        layout.addWidget(self.empty)
        self._rows: list[ConceptLinks] = []
        self._error = ""
        self._swatches: dict[str, QIcon] = {}
        self.filter.textChanged.connect(self._on_filter_text_changed)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.tree.itemClicked.connect(self._on_tree_item_activated)

    def show_concepts(self, rows: Iterable[ConceptLinks], error: str = "") -> None:
        self._rows = list(rows)
        self._error = error
        self._fill()

    def categories(self) -> list[tuple[str, int]]:
        """(category, concepts shown) as the tree shows them, for tests."""
        return [
            (self.tree.topLevelItem(i).text(0), self.tree.topLevelItem(i).childCount())
            for i in range(self.tree.topLevelItemCount())
        ]

    def _fill(self) -> None:
        self.tree.clear()
        if self._error:
            (item,) = tree_rows(self.tree, None, [[self._error, ""]])
            item.setForeground(0, QBrush(QColor("#c0392b")))
            return
        empty = not self._rows and not self._error
        self.empty.setVisible(empty)
        self.tree.setVisible(not empty)
        self.filter.setEnabled(not empty)
        if empty:
            return
        needle = self.filter.text().strip().casefold()
        coloured = any(valid_colour(r.color) for r in self._rows)
        groups: dict[str, list[ConceptLinks]] = {}
        for row in self._rows:
            if needle and needle not in row.id.casefold() and needle not in row.category.casefold():
                continue
            groups.setdefault(row.category or NO_CATEGORY, []).append(row)
        for category in sorted(groups, key=lambda c: (c == NO_CATEGORY, c.casefold())):
            rows = groups[category]
            notes = sum(r.linked for r in rows)
            (head,) = tree_rows(self.tree, None, [[f"{category}  ({len(rows)})", str(notes)]])
            font = head.font(0)
            font.setBold(True)
            head.setFont(0, font)
            head.setFlags(head.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            ordered = sorted(rows, key=lambda r: (-r.linked, r.id))
            children = tree_rows(self.tree, head, [[r.id, str(r.linked)] for r in ordered])
            for row, child in zip(ordered, children, strict=True):
                child.setData(0, CONCEPT_ROLE, row.id)
                child.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
                if row.linked <= 2:  # isolated: the graph's default threshold
                    child.setToolTip(0, f"{row.id}: linked from {row.linked} notes (isolated)")
                    child.setForeground(1, QBrush(QColor("#d35400")))
                if coloured:  # a swatch, never the name's colour: a red one read as an error
                    child.setIcon(0, self._swatch(row.color))
                head.addChild(child)
            head.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
            self.tree.addTopLevelItem(head)
            head.setExpanded(True)

    def _swatch(self, colour: str) -> QIcon:
        icon = self._swatches.get(colour)
        if icon is None:
            icon = self._swatches[colour] = swatch_icon(colour)
        return icon

    @Slot(str)
    def _on_filter_text_changed(self, _text: str) -> None:
        self._fill()

    @Slot(QTreeWidgetItem, int)
    def _on_tree_item_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        concept = item.data(0, CONCEPT_ROLE)
        if concept:
            self.concept_activated.emit(concept)
