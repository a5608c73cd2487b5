"""The vault's warnings: a status-bar count, and the list it opens (path and problem)."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLabel,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.vault.urls import shown_path
from ..items import path_data, path_of_data, tree_rows

if TYPE_CHECKING:
    from ...core.parse.records import ScanWarning

PATH_ROLE = Qt.ItemDataRole.UserRole + 1  # set on the rows the preview can open


def count_text(count: int) -> str:
    return f"⚠ {count} warning" if count == 1 else f"⚠ {count} warnings"


class WarningsIndicator(QToolButton):
    """ "⚠ 3 warnings" in the status bar; hidden while the vault has none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setToolTip("Files Librarian could not read as notes, and why: click for the list")
        self.hide()

    def set_count(self, count: int) -> None:
        self.setText(count_text(count))
        self.setVisible(count > 0)


class WarningsDialog(QDialog):
    """The list of the vault's warnings, one row per item: its path and the problem.
    A row of a note (or file) opens it; the list stays open to work through it.

    Signals:
        note_chosen(str): the user chose the row of a note or file: its vault path.
    """

    note_chosen = Signal(object)  # a path (see vault/tree.py)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Vault warnings")
        self.setModal(False)
        self.resize(860, 300)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["File", "Problem"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        # A long problem (a YAML error) wraps; a long path loses its middle, not its name.
        self.tree.setWordWrap(True)
        self.tree.setStyleSheet("QTreeWidget::item { padding: 2px 4px; }")
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        hint = QLabel(
            "Click a note (in link colour) to open it. The list follows the vault as files change."
        )
        hint.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree)
        layout.addWidget(hint)
        self._warnings: tuple[ScanWarning, ...] = ()
        self._files: frozenset[str] = frozenset()
        self._shown: tuple[ScanWarning, ...] | None = None  # what the rows show now
        self._sized = False  # fitted to its rows when first shown; the user's size after
        self.tree.itemClicked.connect(self._on_tree_item_activated)
        self.tree.itemActivated.connect(self._on_tree_item_activated)

    def set_warnings(self, warnings: Sequence[ScanWarning], files: AbstractSet[str]) -> None:
        """``files``: the warnings' paths that are notes or files the preview opens. The
        rows are made again only while the list is on screen (or when it is shown)."""
        self._warnings = tuple(warnings)
        self._files = frozenset(files)
        if self.isVisible():
            self._fill()

    def rows(self) -> list[tuple[str, str]]:
        """(path, problem) of each row, for tests."""
        self._fill()
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [(item.text(0), item.text(1)) for item in items if item is not None]

    def showEvent(self, event: QShowEvent) -> None:
        self._fill()
        if not self._sized:
            self._sized = True
            rows = self.tree.topLevelItemCount()
            height = self.tree.sizeHintForRow(0) if rows else 0
            self.resize(self.width(), min(520, 120 + self.tree.header().height() + rows * height))
        super().showEvent(event)

    def _fill(self) -> None:
        if self._shown == self._warnings:
            return
        self._shown = self._warnings
        count = len(self._warnings)
        self.summary.setText(
            f"Librarian found {count} problem{'' if count == 1 else 's'} in this vault; "
            "everything else is indexed."
            if count
            else "No problems: every file of this vault was read."
        )
        self.tree.clear()
        if not self._warnings:
            return
        rows = [(shown_path(w.path), w.message) for w in self._warnings]
        items = tree_rows(self.tree, None, rows)
        link = self.palette().link()
        for item, warning in zip(items, self._warnings, strict=True):
            item.setToolTip(1, warning.message)
            if warning.path in self._files:
                item.setData(0, PATH_ROLE, path_data(warning.path))
                item.setForeground(0, link)
                item.setToolTip(0, f"Open {shown_path(warning.path)}")
            else:
                item.setToolTip(0, shown_path(warning.path))
        width = self.tree.sizeHintForColumn(0) + 24
        self.tree.setColumnWidth(0, min(width, self.width() // 2))

    @Slot(QTreeWidgetItem, int)
    def _on_tree_item_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        path = path_of_data(item.data(0, PATH_ROLE))
        if path:
            self.note_chosen.emit(path)
