"""Which rows of an item view Python constructed (see ``librarian_gui/ui/items.py``: each
such row makes Qt take the interpreter lock when a view first lays it out or paints it)."""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QListWidget, QTableWidget, QTreeWidget, QTreeWidgetItem


def rows_made_by_python(view: Any) -> list[str]:
    """The texts of the rows (cells) of ``view`` whose item Python constructed."""
    found: list[str] = []
    if isinstance(view, QStandardItemModel):

        def walk_model(parent: QModelIndex) -> None:
            for row in range(view.rowCount(parent)):
                index = view.index(row, 0, parent)
                if shiboken6.createdByPython(view.itemFromIndex(index)):
                    found.append(index.data())
                walk_model(index)

        walk_model(QModelIndex())
    elif isinstance(view, QListWidget):
        for row in range(view.count()):
            item = view.item(row)
            if shiboken6.createdByPython(item):
                found.append(item.text())
    elif isinstance(view, QTreeWidget):

        def walk_tree(item: QTreeWidgetItem) -> None:  # the parent's handle lives meanwhile
            if shiboken6.createdByPython(item):
                found.append(item.text(0))
            for child in range(item.childCount()):
                walk_tree(item.child(child))

        for row in range(view.topLevelItemCount()):
            walk_tree(view.topLevelItem(row))
    elif isinstance(view, QTableWidget):
        for row in range(view.rowCount()):
            for column in range(view.columnCount()):
                cell = view.item(row, column)
                if cell is not None and shiboken6.createdByPython(cell):
                    found.append(cell.text())
    else:
        raise TypeError(f"not an item view: {view!r}")
    return found
