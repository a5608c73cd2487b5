"""The vault's file tree: folders first, natural sort, changed row by row from deltas.

The rows are QStandardItems, so painting the tree runs no Python: while the linker and job
threads hold the GIL, a model implemented in Python would make every paint wait for it once
per visible cell. A new tree's items are created a few milliseconds' worth per event-loop
turn, in a model the view does not show yet: shown, every batch of rows made the view lay
out all its rows again (35-55 ms per turn at 10,000 notes, while the vault indexed). The
view takes the model once it is full. The order and the rows of changes come from
``core.filetree`` (built on the linker thread).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTreeView, QWidget

from ..core.filetree import FileNode, FileTreeData

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
SLICE_S = 0.008  # item creation per event-loop turn


class FileTree(QTreeView):
    """Notes and attachments of the vault as folders.

    Signals:
        note_selected(str): the user chose a note (vault path).
        attachment_selected(str): the user chose an attachment.
        filled(): every file of the last installed tree has its row.
    """

    note_selected = Signal(str)
    attachment_selected = Signal(str)
    filled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAnimated(False)
        style = self.style()
        self._icons = {
            "folder": style.standardIcon(QStyle.StandardPixmap.SP_DirIcon),
            "note": style.standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView),
            "attachment": style.standardIcon(QStyle.StandardPixmap.SP_FileIcon),
        }
        self._tree = FileTreeData()
        self._items: dict[str, QStandardItem] = {}
        self._pending: Iterator[tuple[QStandardItem, FileNode]] | None = None
        self._selected: str | None = None
        self._filler = QTimer(self, interval=0)
        self._filler.timeout.connect(self._on_filler_timeout)
        self.activated.connect(self._on_activated)
        self.clicked.connect(self._on_activated)

    # ------------------------------------------------------------ changes

    def install(self, tree: FileTreeData) -> None:
        """Show a tree built on another thread; its rows appear over the next moments."""
        self._tree = tree
        if self._pending is not None:  # a fill under way: its model is dropped
            self._model.deleteLater()
        self._model = QStandardItemModel(self)
        self._items = {}
        self._pending = self._walk(self._model.invisibleRootItem(), tree.root)
        self._filler.start()
        self._on_filler_timeout()

    def set_files(self, notes: Iterable[str], attachments: Iterable[str]) -> None:
        """Show these files (small vaults and tests: all rows at once)."""
        self.install(FileTreeData.build(notes, attachments))
        self._fill(None)

    def add_files(self, paths: Iterable[str], kind: str) -> None:
        filling = self._pending is not None
        for path in paths:
            inserted = self._tree.add(path, kind)
            if filling:
                continue
            for node, row in inserted:
                parent = self._item_of(node.parent)
                if parent is not None:
                    parent.insertRow(row, self._new_item(node))
        if filling:  # the filler walks the lists just changed: start it over
            self.install(self._tree)

    def remove_files(self, paths: Iterable[str]) -> None:
        filling = self._pending is not None
        for path in paths:
            for node, _row in self._tree.remove(path):
                item = self._items.pop(node.path, None)
                if item is not None and not filling:
                    parent = item.parent() or self._model.invisibleRootItem()
                    parent.removeRow(item.row())
        if filling:
            self.install(self._tree)

    def files(self) -> list[str]:
        """Every file shown, in tree order (for tests and the status bar)."""
        self._fill(None)
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
        self._selected = path
        item = self._items.get(path)
        if item is None or self._pending is not None:
            return  # selected once its row exists and is shown
        index = item.index()
        self.blockSignals(True)
        try:
            self.setCurrentIndex(index)
        finally:
            self.blockSignals(False)
        self.scrollTo(index)

    # ------------------------------------------------------------ internals

    def _walk(
        self, parent: QStandardItem, node: FileNode
    ) -> Iterator[tuple[QStandardItem, FileNode]]:
        for child in node.children:
            yield parent, child
            if child.kind == "folder":
                yield from self._walk(self._items[child.path], child)

    @Slot()
    def _on_filler_timeout(self) -> None:
        self._fill(SLICE_S)

    def _fill(self, seconds: float | None) -> None:
        """Create rows for ``seconds`` (all of them: None); once all exist, show them."""
        pending = self._pending
        if pending is None:
            return
        deadline = None if seconds is None else time.perf_counter() + seconds
        rows: dict[int, tuple[QStandardItem, list[QStandardItem]]] = {}
        for count, (parent, node) in enumerate(pending, 1):
            rows.setdefault(id(parent), (parent, []))[1].append(self._new_item(node))
            if deadline is not None and count % 32 == 0 and time.perf_counter() > deadline:
                break
        else:
            self._pending = None
        for parent, items in rows.values():  # outer folders first: they were met first
            parent.appendRows(items)
        if self._pending is not None:
            return
        self._filler.stop()
        shown, selection = self.model(), self.selectionModel()
        self.setModel(self._model)
        if shown is not self._model:
            shown.deleteLater()
            selection.deleteLater()
        if self._selected is not None:
            self.select(self._selected)
        self.filled.emit()

    def _new_item(self, node: FileNode) -> QStandardItem:
        item = QStandardItem(self._icons[node.kind], node.label)
        item.setData(node.path, PATH_ROLE)
        item.setData(node.kind, KIND_ROLE)
        item.setToolTip(node.path.rstrip("/"))
        self._items[node.path] = item
        return item

    def _item_of(self, node: FileNode | None) -> QStandardItem | None:
        if node is None or node.parent is None:
            return self._model.invisibleRootItem()
        return self._items.get(node.path)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        kind = index.data(KIND_ROLE)
        path = index.data(PATH_ROLE)
        if kind == "note":
            self.note_selected.emit(path)
        elif kind == "attachment":
            self.attachment_selected.emit(path)
