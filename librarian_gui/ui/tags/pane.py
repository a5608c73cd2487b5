"""The tags pane: every tag of the vault with the number of notes carrying it."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from ..items import list_row, list_rows

TAG_ROLE = Qt.ItemDataRole.UserRole + 1


class TagsPane(QListWidget):
    """Tags with counts, most used first.

    Signals:
        tag_activated(str): the user chose a tag (without ``#``).
        counts_shown(): the list shows the counts ``show_counts`` was given.
    """

    tag_activated = Signal(str)
    counts_shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.itemActivated.connect(self._on_item_activated)
        self.itemClicked.connect(self._on_item_activated)

    def show_counts(self, counts: Counter[str]) -> None:
        self.clear()
        ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].casefold()))
        for item, (tag, count) in zip(list_rows(self, len(ordered)), ordered, strict=True):
            item.setText(f"#{tag}  ({count})")
            item.setData(TAG_ROLE, tag)
        if not counts:
            list_row(self, "No tags in this vault.")
        self.counts_shown.emit()

    @Slot(QListWidgetItem)
    def _on_item_activated(self, item: QListWidgetItem) -> None:
        tag = item.data(TAG_ROLE)
        if tag:
            self.tag_activated.emit(tag)
