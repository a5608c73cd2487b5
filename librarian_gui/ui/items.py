"""Rows for Qt's item views, made by Qt rather than by Python.

An item constructed from Python (``QListWidgetItem("x")``, ``QStandardItem(...)``) is a
Shiboken wrapper class. The first time Qt calls each of its virtual methods — ``data()``,
which a view's layout and paint call for every row — the wrapper takes the interpreter lock
to look for a Python override. The event loop runs without the lock, so while the updater,
the layout or a job thread holds it, each of those calls waits up to the switch interval
(5 ms): 3,000 tree rows took 2.4 s to paint next to one busy Python thread, against 80 ms
for rows the model made itself.

So rows are inserted through the model (``insertRows``, or ``setData`` on an empty table
cell), which makes plain C++ items: ``standard_rows`` gives them their data by role, the
handles the other helpers return set their text and data.
Do not keep these handles after filling: nothing tells them when Qt deletes their items.
A child's handle stays valid only while its parent's handle lives.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
)

from ..core.vault.urls import path_of_url, url_path

DISPLAY = int(Qt.ItemDataRole.DisplayRole)
DECORATION = int(Qt.ItemDataRole.DecorationRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)


def standard_rows(
    model: QStandardItemModel,
    first: int,
    rows: Sequence[dict[int, object]],
    parent: QModelIndex | None = None,
) -> None:
    """Rows inserted at ``first`` under ``parent`` (top level: None), each given its data
    by role at once. A parent's first rows get it its column too."""
    where = QModelIndex() if parent is None else parent
    if model.columnCount(where) == 0:
        model.insertColumns(0, 1, where)
    model.insertRows(first, len(rows), where)
    for row, roles in enumerate(rows, first):
        model.setItemData(model.index(row, 0, where), roles)


def list_rows(widget: QListWidget, count: int) -> list[QListWidgetItem]:
    """``count`` new rows at the end of ``widget``."""
    first = widget.count()
    widget.model().insertRows(first, count)
    return [widget.item(row) for row in range(first, first + count)]


def list_row(widget: QListWidget, text: str) -> QListWidgetItem:
    """One new row at the end of ``widget``, showing ``text``."""
    item = list_rows(widget, 1)[0]
    item.setText(text)
    return item


def tree_rows(
    widget: QTreeWidget, parent: QTreeWidgetItem | None, texts: Sequence[Sequence[str]]
) -> list[QTreeWidgetItem]:
    """New last children of ``parent`` (top level: None), one per sequence of column texts."""
    model = widget.model()
    where = QModelIndex() if parent is None else widget.indexFromItem(parent)
    first = model.rowCount(where)
    model.insertRows(first, len(texts), where)
    items = []
    for row, columns in enumerate(texts, first):
        item = widget.topLevelItem(row) if parent is None else parent.child(row)
        for column, text in enumerate(columns):
            item.setText(column, text)
        items.append(item)
    return items


def table_cells(
    table: QTableWidget, row: int, texts: Sequence[str], numbers: Collection[int] = ()
) -> list[QTableWidgetItem]:
    """Items for the cells of an existing, empty ``row``, one per text; the columns
    ``numbers`` hold counts, aligned right."""
    model = table.model()
    for column, text in enumerate(texts):
        model.setData(model.index(row, column), text)
    items = [table.item(row, column) for column in range(len(texts))]
    for column in numbers:
        items[column].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return items


def path_data(rel: str) -> str:
    """A vault path as item data: percent-encoded, since a Qt string drops the lone
    surrogates of a file name that is not UTF-8 (``path_of_data`` gives it back)."""
    return url_path(rel)


def path_of_data(data: object) -> str:
    """The vault path stored by ``path_data`` ('' when there is none)."""
    return path_of_url(data) if isinstance(data, str) and data else ""
