"""The vault's file tree: folders first, natural sort, changed row by row from deltas.

The rows are QStandardItems made by the model itself (``insertRows``; see ``items`` for why
never from Python), so painting the tree runs no Python: while the updater and job
threads hold the GIL, a model implemented in Python would make every paint wait for it once
per visible cell. A new tree's items are created a few milliseconds' worth per event-loop
turn, in a model the view does not show yet: shown, every batch of rows made the view lay
out all its rows again (35-55 ms per turn at 10,000 notes, while the vault indexed). The
view takes the model once it is full. The order and the rows of changes come from
``core.filetree`` (built on the updater's thread).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTreeView, QWidget

from ...core.vault.filetree import FileNode, FileTreeData
from ...core.vault.urls import shown_path
from ..items import DECORATION, DISPLAY, TOOLTIP, path_data, path_of_data, standard_rows

PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 1
KIND_ROLE = int(Qt.ItemDataRole.UserRole) + 2
SLICE_S = 0.008  # item creation per event-loop turn


class FileTree(QTreeView):
    """Notes and attachments of the vault as folders.

    Signals:
        note_selected(str): the user chose a note (vault path).
        attachment_selected(str): the user chose an attachment.
        filled(): every file of the last installed tree has its row.
    """

    note_selected = Signal(object)  # a path: a str signal would drop a name's non-UTF-8 bytes
    attachment_selected = Signal(object)
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
        self._pending: Iterator[tuple[FileNode, FileNode]] | None = None
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
        self._pending = self._walk(tree.root)
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
            for node, row in inserted:  # outermost first: each parent row exists
                assert node.parent is not None
                standard_rows(self._model, row, [self._roles(node)], self._index_of(node.parent))
        if filling:  # the filler walks the lists just changed: start it over
            self.install(self._tree)

    def remove_files(self, paths: Iterable[str]) -> None:
        filling = self._pending is not None
        for path in paths:
            removed = self._tree.remove(path)
            if removed and not filling:
                # Innermost first: the last is the outermost row to go; its parent stays.
                node, row = removed[-1]
                assert node.parent is not None
                self._model.removeRows(row, 1, self._index_of(node.parent))
        if filling:
            self.install(self._tree)

    def files(self) -> list[str]:
        """Every file shown, in tree order (for tests and the status bar)."""
        self._fill(None)
        model = self._model
        out: list[str] = []

        def walk(parent: QModelIndex) -> None:
            for row in range(model.rowCount(parent)):
                child = model.index(row, 0, parent)
                if child.data(KIND_ROLE) == "folder":
                    walk(child)
                else:
                    out.append(path_of_data(child.data(PATH_ROLE)))

        walk(QModelIndex())
        return out

    def select(self, path: str) -> None:
        """Show a file as the current one, without emitting a selection."""
        self._selected = path
        node = self._tree.nodes.get(path)
        if node is None or self._pending is not None:
            return  # selected once its row exists and is shown
        index = self._index_of(node)
        self.blockSignals(True)
        try:
            self.setCurrentIndex(index)
        finally:
            self.blockSignals(False)
        self.scrollTo(index)

    # ------------------------------------------------------------ internals

    def _walk(self, node: FileNode) -> Iterator[tuple[FileNode, FileNode]]:
        for child in node.children:
            yield node, child
            if child.kind == "folder":
                yield from self._walk(child)

    @Slot()
    def _on_filler_timeout(self) -> None:
        self._fill(SLICE_S)

    def _fill(self, seconds: float | None) -> None:
        """Create rows for ``seconds`` (all of them: None); once all exist, show them."""
        pending = self._pending
        if pending is None:
            return
        deadline = None if seconds is None else time.perf_counter() + seconds
        while self._pending is not None:
            self._fill_some(pending, 64)
            if deadline is not None and time.perf_counter() > deadline:
                break
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

    def _fill_some(self, pending: Iterator[tuple[FileNode, FileNode]], count: int) -> None:
        """The next ``count`` rows, grouped by parent; ``_pending`` is None after the last."""
        batch = list(itertools.islice(pending, count))
        if len(batch) < count:
            self._pending = None
        by_parent: dict[FileNode, list[FileNode]] = {}
        for parent, node in batch:
            by_parent.setdefault(parent, []).append(node)
        for parent, nodes in by_parent.items():  # outer folders first: they were met first
            where = self._index_of(parent)
            rows = [self._roles(node) for node in nodes]
            standard_rows(self._model, self._model.rowCount(where), rows, where)

    def _roles(self, node: FileNode) -> dict[int, object]:
        return {
            DISPLAY: shown_path(node.label),
            DECORATION: self._icons[node.kind],
            TOOLTIP: shown_path(node.path.rstrip("/")),
            PATH_ROLE: path_data(node.path),
            KIND_ROLE: node.kind,
        }

    def _index_of(self, node: FileNode) -> QModelIndex:
        """The model index of a node the model holds (the root: an invalid index)."""
        rows: list[int] = []
        while node.parent is not None:
            rows.append(FileTreeData.row_of(node))
            node = node.parent
        index = QModelIndex()
        for row in reversed(rows):
            index = self._model.index(row, 0, index)
        return index

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        kind = index.data(KIND_ROLE)
        path = path_of_data(index.data(PATH_ROLE))
        if kind == "note":
            self.note_selected.emit(path)
        elif kind == "attachment":
            self.attachment_selected.emit(path)
