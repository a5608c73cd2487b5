"""The quick switcher (Ctrl+O): fuzzy over note titles, aliases and concept ids."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..items import list_row

if TYPE_CHECKING:  # rapidfuzz and numpy load when the first index is built, not at start-up
    from ...core.search.switcher import Candidate, SwitcherIndex

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
_KIND_TEXT = {"note": "", "alias": "alias", "concept": "concept"}


class QuickSwitcher(QDialog):
    """Type to find; arrows choose; Enter opens; Esc closes.

    Signals:
        node_chosen(str, str): the kind ("note" or "concept") and node id chosen.
    """

    node_chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Quick switcher")
        self.setModal(True)
        self.resize(620, 420)
        self.input = QLineEdit()
        self.input.setPlaceholderText("Find a note, alias or concept…")
        self.input.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setUniformItemSizes(False)
        self.hint = QLabel("↑↓ to choose · Enter to open · Esc to close")
        self.hint.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.addWidget(self.input)
        layout.addWidget(self.results)
        layout.addWidget(self.hint)
        self._index: SwitcherIndex | None = None
        self.input.textChanged.connect(self._on_input_text_changed)
        self.input.returnPressed.connect(self._on_input_return_pressed)
        self.results.itemActivated.connect(self._on_results_item_activated)
        self.input.installEventFilter(self)

    @property
    def has_index(self) -> bool:
        """Whether the names to search are here (they come once the vault is indexed)."""
        return self._index is not None

    def set_index(self, index: SwitcherIndex | None) -> None:
        self._index = index
        self._on_input_text_changed(self.input.text())

    def open_switcher(self) -> None:
        self.input.clear()
        self._on_input_text_changed("")
        self.show()
        self.raise_()
        self.input.setFocus()

    def shown(self) -> list[tuple[str, str, str]]:
        """(label, kind, node) of each row, for tests."""
        return [
            (
                self.results.item(i).data(Qt.ItemDataRole.UserRole + 3),
                self.results.item(i).data(KIND_ROLE),
                self.results.item(i).data(NODE_ROLE),
            )
            for i in range(self.results.count())
        ]

    @Slot(str)
    def _on_input_text_changed(self, text: str) -> None:
        self.results.clear()
        if self._index is None:
            self.results.addItem("The vault is still being indexed…")
            return
        for candidate, _score in self._index.query(text, limit=30):
            self._add_row(candidate)
        if self.results.count():
            self.results.setCurrentRow(0)

    def _add_row(self, candidate: Candidate) -> None:
        kind = _KIND_TEXT.get(candidate.kind, candidate.kind)
        first = f"{candidate.label}   ·  {kind}" if kind else candidate.label
        item = list_row(self.results, f"{first}\n    {candidate.detail}")
        item.setData(NODE_ROLE, candidate.node)
        item.setData(KIND_ROLE, "concept" if candidate.kind == "concept" else "note")
        item.setData(Qt.ItemDataRole.UserRole + 3, candidate.label)
        item.setToolTip(candidate.node)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                step = {
                    Qt.Key.Key_Down: 1,
                    Qt.Key.Key_Up: -1,
                    Qt.Key.Key_PageDown: 8,
                    Qt.Key.Key_PageUp: -8,
                }[Qt.Key(key)]
                row = max(0, min(self.results.count() - 1, self.results.currentRow() + step))
                self.results.setCurrentRow(row)
                return True
        return super().eventFilter(watched, event)

    @Slot()
    def _on_input_return_pressed(self) -> None:
        item = self.results.currentItem()
        if item is not None:
            self._on_results_item_activated(item)

    @Slot(QListWidgetItem)
    def _on_results_item_activated(self, item: QListWidgetItem) -> None:
        node = item.data(NODE_ROLE)
        if node:
            self.accept()
            self.node_chosen.emit(item.data(KIND_ROLE), node)
