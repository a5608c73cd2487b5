"""The outline of the open note: its headings, nested by level; a click jumps to one."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from ...core.parse.records import Heading
from ..items import tree_rows

LINE_ROLE = Qt.ItemDataRole.UserRole + 1


class Outline(QTreeWidget):
    """Headings of one note.

    Signals:
        heading_activated(int): the user chose a heading; its 1-based source line.
    """

    heading_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.itemActivated.connect(self._on_item_activated)
        self.itemClicked.connect(self._on_item_activated)

    def show_headings(self, headings: Sequence[Heading]) -> None:
        self.clear()
        stack: list[tuple[int, QTreeWidgetItem]] = []
        for heading in headings:
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            parent = stack[-1][1] if stack else None
            (item,) = tree_rows(self, parent, [[heading.text or "(untitled)"]])
            item.setData(0, LINE_ROLE, heading.line)
            item.setToolTip(0, f"line {heading.line}")
            stack.append((heading.level, item))
        self.expandAll()

    def headings_shown(self) -> list[str]:
        out: list[str] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append("  " * depth + item.text(0))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.topLevelItemCount()):
            walk(self.topLevelItem(i), 0)
        return out

    @Slot(QTreeWidgetItem, int)
    def _on_item_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        self.heading_activated.emit(int(item.data(0, LINE_ROLE)))
