"""Outgoing links of the open note: resolved ones first, then unresolved targets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from ..items import list_row

if TYPE_CHECKING:
    from ...core.index.queries import OutgoingLink

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
# Made at import: the first QBrush of a process creates PySide's Python enums for its
# arguments, 20-30 ms that once landed in the first note's turn of the event loop.
_GREY = QBrush(QColor(128, 128, 128))


class OutgoingPane(QListWidget):
    """Where the open note links to.

    Signals:
        target_activated(str, str): the user chose a target: its kind and node id.
    """

    target_activated = Signal(str, object)  # kind, node (see vault/tree.py)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Rows with room around their text, cut with "…" in the middle when the sidebar is
        # narrow (the whole target is each row's tooltip), never scrolled sideways.
        self.setStyleSheet("QListWidget::item { padding: 2px 4px; }")
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.itemActivated.connect(self._on_item_activated)
        self.itemClicked.connect(self._on_item_activated)

    def show_links(self, links: Sequence[OutgoingLink]) -> None:
        self.clear()
        order = {"note": 0, "concept": 1, "attachment": 2, "unresolved": 3}
        for link in sorted(links, key=lambda x: (order.get(x.kind, 4), x.label.casefold())):
            suffix = {
                "concept": "  · concept",
                "attachment": "  · file",
                "unresolved": "  · not created yet",
            }.get(link.kind, "")
            times = f"  ×{link.count}" if link.count > 1 else ""
            item = list_row(self, f"{link.label}{suffix}{times}")
            item.setData(NODE_ROLE, link.node)
            item.setData(KIND_ROLE, link.kind)
            if link.kind == "unresolved":
                font = QFont(self.font())
                font.setItalic(True)
                item.setFont(font)
                item.setForeground(_GREY)
                item.setToolTip(f"{link.label}: unresolved, no note of this name exists")
            else:
                item.setToolTip(link.node)
        if not links:
            list_row(self, "This note links nowhere.").setFlags(Qt.ItemFlag.NoItemFlags)

    @Slot(QListWidgetItem)
    def _on_item_activated(self, item: QListWidgetItem) -> None:
        node = item.data(NODE_ROLE)
        if node:
            self.target_activated.emit(item.data(KIND_ROLE), node)
