"""The vault's file tree: folders first, natural sort, updated item by item from deltas."""

from __future__ import annotations

import re
from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTreeView, QWidget

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2  # "folder", "note", "attachment"
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[object, ...]:
    """ "note 2" before "note 10"; case-insensitive."""
    return tuple(int(p) if p.isdigit() else p.casefold() for p in _DIGITS.split(name))


def _sort_key(kind: str, name: str) -> tuple[object, ...]:
    return (0 if kind == "folder" else 1, natural_key(name))


class FileTree(QTreeView):
    """Notes and attachments of the vault as folders.

    Signals:
        note_selected(str): the user chose a note (vault path).
        attachment_selected(str): the user chose an attachment.
    """

    note_selected = Signal(str)
    attachment_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAnimated(False)
        self._items: dict[str, QStandardItem] = {}  # path (file or folder) → item
        style = self.style()
        self._icons = {
            "folder": style.standardIcon(QStyle.StandardPixmap.SP_DirIcon),
            "note": style.standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView),
            "attachment": style.standardIcon(QStyle.StandardPixmap.SP_FileIcon),
        }
        self.activated.connect(self._on_activated)
        self.clicked.connect(self._on_activated)

    def set_files(self, notes: Iterable[str], attachments: Iterable[str]) -> None:
        """Show these files (a new vault, or a rescan)."""
        self._model.clear()
        self._items.clear()
        entries = [(p, "note") for p in notes] + [(p, "attachment") for p in attachments]
        for path, kind in sorted(entries, key=lambda e: natural_key(e[0])):
            self._add(path, kind)
        self._sort_all(self._model.invisibleRootItem())

    def add_files(self, paths: Iterable[str], kind: str) -> None:
        for path in paths:
            if path not in self._items:
                item = self._add(path, kind)
                parent = item.parent() or self._model.invisibleRootItem()
                self._place(parent, item)

    def remove_files(self, paths: Iterable[str]) -> None:
        for path in paths:
            item = self._items.pop(path, None)
            if item is None:
                continue
            parent = item.parent() or self._model.invisibleRootItem()
            parent.removeRow(item.row())
            self._prune(parent)

    def files(self) -> list[str]:
        """Every file shown, in tree order (for tests and the status bar)."""
        out: list[str] = []

        def walk(parent: QStandardItem) -> None:
            for row in range(parent.rowCount()):
                child = parent.child(row)
                if child.data(KIND_ROLE) == "folder":
                    walk(child)
                else:
                    out.append(child.data(PATH_ROLE))

        walk(self._model.invisibleRootItem())
        return out

    def select(self, path: str) -> None:
        """Show a file as the current one, without emitting a selection."""
        item = self._items.get(path)
        if item is None:
            return
        index = item.index()
        self.blockSignals(True)
        try:
            self.setCurrentIndex(index)
        finally:
            self.blockSignals(False)
        self.scrollTo(index)

    # ------------------------------------------------------------------ internals

    def _add(self, path: str, kind: str) -> QStandardItem:
        parent = self._folder(path.rsplit("/", 1)[0]) if "/" in path else None
        name = path.rsplit("/", 1)[-1]
        label = name[:-3] if kind == "note" and name.lower().endswith(".md") else name
        item = QStandardItem(self._icons[kind], label)
        item.setData(path, PATH_ROLE)
        item.setData(kind, KIND_ROLE)
        item.setToolTip(path)
        (parent or self._model.invisibleRootItem()).appendRow(item)
        self._items[path] = item
        return item

    def _folder(self, folder: str) -> QStandardItem:
        key = folder + "/"
        item = self._items.get(key)
        if item is not None:
            return item
        parent = self._folder(folder.rsplit("/", 1)[0]) if "/" in folder else None
        item = QStandardItem(self._icons["folder"], folder.rsplit("/", 1)[-1])
        item.setData(key, PATH_ROLE)
        item.setData("folder", KIND_ROLE)
        container = parent or self._model.invisibleRootItem()
        self._items[key] = item
        self._place(container, item)
        return item

    def _place(self, parent: QStandardItem, item: QStandardItem) -> None:
        """Move ``item`` (already a child of ``parent``, or new) to its sorted row."""
        if item.index().isValid():  # already shown (appended): take it out first
            parent.takeRow(item.row())
        key = _sort_key(item.data(KIND_ROLE), item.text())
        row = 0
        while row < parent.rowCount():
            other = parent.child(row)
            if _sort_key(other.data(KIND_ROLE), other.text()) > key:
                break
            row += 1
        parent.insertRow(row, item)

    def _sort_all(self, parent: QStandardItem) -> None:
        items = [parent.takeChild(row) for row in range(parent.rowCount())]
        parent.setRowCount(0)
        items.sort(key=lambda i: _sort_key(i.data(KIND_ROLE), i.text()))
        for item in items:
            parent.appendRow(item)
            if item.data(KIND_ROLE) == "folder":
                self._sort_all(item)

    def _prune(self, folder: QStandardItem) -> None:
        """Drop folders that became empty."""
        while folder is not self._model.invisibleRootItem() and folder.rowCount() == 0:
            self._items.pop(folder.data(PATH_ROLE), None)
            parent = folder.parent() or self._model.invisibleRootItem()
            parent.removeRow(folder.row())
            folder = parent

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        kind = index.data(KIND_ROLE)
        path = index.data(PATH_ROLE)
        if kind == "note":
            self.note_selected.emit(path)
        elif kind == "attachment":
            self.attachment_selected.emit(path)
