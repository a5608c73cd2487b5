"""The vault's file tree: folders first, natural sort, changed row by row from deltas."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTreeView, QWidget

from ..core.filetree import FileNode, FileTreeData, folder_of

Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()


class FileTreeModel(QAbstractItemModel):
    """Folders and files as a Qt model, without a Qt object per file: 10,000 notes load in
    a few tens of milliseconds, and a file added or removed is one row insert or removal."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._tree = FileTreeData()
        self._icons: dict[str, Any] = {}

    def set_icons(self, icons: dict[str, Any]) -> None:
        self._icons = icons

    @property
    def _root(self) -> FileNode:
        return self._tree.root

    # -- changes -----------------------------------------------------------------------

    def install(self, tree: FileTreeData) -> None:
        """Show a tree built elsewhere (on the linker thread: sorting 10,000 names takes
        longer than the GUI thread may be busy)."""
        self.beginResetModel()
        self._tree = tree
        self.endResetModel()

    def add(self, path: str, kind: str) -> None:
        if path in self._tree.nodes:
            return
        folder = folder_of(path)
        parent = self._folder(folder) if folder else self._root
        node = FileNode(path, kind, parent)
        row = bisect.bisect_left(parent.keys, node.sort_key)
        self.beginInsertRows(self._index_of(parent), row, row)
        parent.children.insert(row, node)
        parent.keys.insert(row, node.sort_key)
        self._tree.nodes[path] = node
        self.endInsertRows()

    def _folder(self, folder: str) -> FileNode:
        node = self._tree.nodes.get(folder)
        if node is None:
            self.add(folder, "folder")
            node = self._tree.nodes[folder]
        return node

    def remove(self, path: str) -> None:
        node = self._tree.nodes.get(path)
        while node is not None and node.parent is not None:
            parent = node.parent
            row = self._row(node)
            self.beginRemoveRows(self._index_of(parent), row, row)
            del parent.children[row]
            del parent.keys[row]
            del self._tree.nodes[node.path]
            self.endRemoveRows()
            node = parent if not parent.children and parent is not self._root else None

    # -- queries -----------------------------------------------------------------------

    def index_of(self, path: str) -> QModelIndex:
        node = self._tree.nodes.get(path)
        return self._index_of(node) if node is not None else QModelIndex()

    def paths(self) -> list[str]:
        """Every file in tree order."""
        out: list[str] = []

        def walk(node: FileNode) -> None:
            for child in node.children:
                if child.kind == "folder":
                    walk(child)
                else:
                    out.append(child.path)

        walk(self._root)
        return out

    def _index_of(self, node: FileNode) -> QModelIndex:
        if node is self._root or node.parent is None:
            return QModelIndex()
        return self.createIndex(self._row(node), 0, node)

    @staticmethod
    def _row(node: FileNode) -> int:
        assert node.parent is not None
        return bisect.bisect_left(node.parent.keys, node.sort_key)

    def _node(self, index: Index) -> FileNode:
        return index.internalPointer() if index.isValid() else self._root  # type: ignore[no-any-return]

    # -- QAbstractItemModel ------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = _NO_INDEX) -> QModelIndex:
        node = self._node(parent)
        if column != 0 or not 0 <= row < len(node.children):
            return QModelIndex()
        return self.createIndex(row, 0, node.children[row])

    def parent(self, index: Index = _NO_INDEX) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        node: FileNode = index.internalPointer()
        parent = node.parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self._index_of(parent)

    def rowCount(self, parent: Index = _NO_INDEX) -> int:
        return len(self._node(parent).children) if parent.column() <= 0 else 0

    def columnCount(self, parent: Index = _NO_INDEX) -> int:
        return 1

    def hasChildren(self, parent: Index = _NO_INDEX) -> bool:
        return bool(self._node(parent).children)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: FileNode = index.internalPointer()
        if role == Qt.ItemDataRole.DisplayRole:
            return node.label
        if role == Qt.ItemDataRole.ToolTipRole:
            return node.path.rstrip("/")
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icons.get(node.kind)
        if role == PATH_ROLE:
            return node.path
        if role == KIND_ROLE:
            return node.kind
        return None


PATH_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2


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
        self._model = FileTreeModel(self)
        style = self.style()
        self._model.set_icons(
            {
                "folder": style.standardIcon(QStyle.StandardPixmap.SP_DirIcon),
                "note": style.standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView),
                "attachment": style.standardIcon(QStyle.StandardPixmap.SP_FileIcon),
            }
        )
        self.setModel(self._model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAnimated(False)
        self.activated.connect(self._on_activated)
        self.clicked.connect(self._on_activated)

    def set_files(self, notes: Iterable[str], attachments: Iterable[str]) -> None:
        """Show these files (a new vault, or a rescan)."""
        self._model.install(FileTreeData.build(notes, attachments))

    def install(self, tree: FileTreeData) -> None:
        """Show a tree built on another thread."""
        self._model.install(tree)

    def add_files(self, paths: Iterable[str], kind: str) -> None:
        for path in paths:
            self._model.add(path, kind)

    def remove_files(self, paths: Iterable[str]) -> None:
        for path in paths:
            self._model.remove(path)

    def files(self) -> list[str]:
        """Every file shown, in tree order (for tests and the status bar)."""
        return self._model.paths()

    def select(self, path: str) -> None:
        """Show a file as the current one, without emitting a selection."""
        index = self._model.index_of(path)
        if not index.isValid():
            return
        self.blockSignals(True)
        try:
            self.setCurrentIndex(index)
        finally:
            self.blockSignals(False)
        self.scrollTo(index)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        kind = index.data(KIND_ROLE)
        path = index.data(PATH_ROLE)
        if kind == "note":
            self.note_selected.emit(path)
        elif kind == "attachment":
            self.attachment_selected.emit(path)
