"""The Review tab: what changed since the last review, by day, who wrote each version, and
the diff from the version reviewed; buttons that mark a note, a day, or everything reviewed."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.vault.urls import shown_path
from ..items import path_data, path_of_data
from ..tagging.diff import DiffView

if TYPE_CHECKING:
    from ...core.review.desk import Desk, DeskItem
    from ...core.review.provenance import Writer

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
# Notes listed, the newest first; the summary says how many there are. Made in the GUI
# thread at each look after a change: 2,000 rows took 55-110 ms, 500 take a quarter.
MAX_ROWS = 500


def who(item: DeskItem) -> str:
    """Who wrote the note since the review, one after another ("night-agent 3.0, then
    outside Librarian")."""
    return ", then ".join(_writer(w) for w in item.writers or (item.by,))


def _writer(by: Writer) -> str:
    if by.kind == "agent":
        return f"{by.client} {by.version}".strip() or "an agent"
    return by.kind


class ReviewPane(QWidget):
    """The desk as a tree (days, then notes) beside the selected note's diff.

    Signals:
        mark_requested(object): mark these notes reviewed (a list of vault paths).
        mark_all_requested(): mark everything changed up to now reviewed.
        note_opened(object): a note's row was double-clicked (its vault path).
    """

    mark_requested = Signal(object)
    mark_all_requested = Signal()
    note_opened = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk: Desk | None = None
        self._items: dict[str, DeskItem] = {}
        self.summary = QLabel("The review desk: gathering…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setContentsMargins(4, 4, 4, 2)
        self.mark_button = QPushButton("Mark reviewed")
        self.mark_button.setToolTip("The selected note, or every note of the selected day")
        self.mark_all_button = QPushButton("Mark all reviewed")
        self.mark_all_button.setToolTip("Everything changed up to now")
        buttons = QHBoxLayout()
        buttons.setContentsMargins(4, 0, 4, 0)
        buttons.addWidget(self.mark_button)
        buttons.addWidget(self.mark_all_button)
        buttons.addStretch(1)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Changed", "Written by", "Since review"])
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumWidth(300)
        self.diff = DiffView()
        self.diff_title = QLabel()
        self.diff_title.setContentsMargins(4, 2, 4, 2)
        self.diff_title.setWordWrap(True)  # a long title must not take the tree's room
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.diff_title)
        right_layout.addWidget(self.diff, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.tree)
        split.addWidget(right)
        split.setSizes([400, 330])
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        layout.addWidget(split, 1)
        self.mark_button.clicked.connect(self._on_mark_button_clicked)
        self.mark_all_button.clicked.connect(self.mark_all_requested)
        self.tree.currentItemChanged.connect(self._on_tree_current_item_changed)
        self.tree.itemDoubleClicked.connect(self._on_tree_item_double_clicked)
        self._enable()

    def show_desk(self, desk: Desk) -> None:
        self.desk = desk
        current = self._current_note()
        self.tree.clear()
        self._items = {}
        count = sum(len(items) for _, items in desk.days)
        bold = QFont(self.tree.font())
        bold.setBold(True)
        shown = 0
        select: QTreeWidgetItem | None = None
        groups = []
        texts: tuple[list[str], list[str], list[str]] = ([], [], [self.tree.headerItem().text(2)])
        # Each group made whole before the tree holds it: rows added to a group in the tree
        # tell its model one by one (2,000 rows: 56 ms of the GUI thread, against 20).
        for day, items in desk.days:
            group = QTreeWidgetItem([f"{day}  ({len(items)})"])
            group.setFont(0, bold)
            group.setData(0, PATH_ROLE, None)
            rows = []
            for item in items[: max(0, MAX_ROWS - shown)]:
                name = shown_path(item.note.removesuffix(".md"))
                status = "not reviewed" if item.status == "unreviewed" else _changed(item)
                writers = who(item)
                row = QTreeWidgetItem([name, writers, status])
                for column, text in enumerate((name, writers, status)):
                    texts[column].append(text)
                row.setData(0, PATH_ROLE, path_data(item.note))
                row.setToolTip(0, shown_path(item.note))
                row.setToolTip(1, writers)  # everyone since the review, in full
                self._items[item.note] = item
                if item.note == current:
                    select = row
                rows.append(row)
                shown += 1
            group.addChildren(rows)
            groups.append(group)
        self.tree.addTopLevelItems(groups)
        for group in groups:
            group.setExpanded(True)
        # Each column as wide as its widest text, the first two at most 190 and 120 pixels:
        # the status stays in sight. Measured here (``resizeColumnToContents`` asks every
        # row's size of the view: 20 ms at 500 rows).
        metrics = self.tree.fontMetrics()
        days = max((QFontMetrics(bold).horizontalAdvance(g.text(0)) for g in groups), default=0)
        width = [max(map(metrics.horizontalAdvance, t), default=0) + 8 for t in texts]
        width[0] = min(max(width[0] + self.tree.indentation(), days + 8), 190)
        width[1] = min(width[1], 120)
        # The note's column gives way (down to 100 pixels) before the status would scroll
        # out of sight: the list's own scroll bar takes its share of the width.
        room = self.tree.viewport().width() - self.tree.verticalScrollBar().sizeHint().width()
        width[0] = max(100, min(width[0], room - width[1] - width[2]))
        for column, pixels in enumerate(width):
            self.tree.setColumnWidth(column, pixels)
        since = html.escape(desk.since[:16].replace("T", " "))
        listed = f" (the newest {MAX_ROWS:,} listed)" if count > MAX_ROWS else ""
        self.summary.setText(
            f"<b>{count:,} notes</b> changed since {since} UTC and not reviewed yet"
            + (" — every change is reviewed." if not count else f", newest day first{listed}.")
        )
        if select is not None:
            self.tree.setCurrentItem(select)
        elif self.tree.topLevelItemCount() and self.tree.topLevelItem(0).childCount():
            self.tree.setCurrentItem(self.tree.topLevelItem(0).child(0))
        else:
            self._show_diff(None)
        self._enable()

    def rows(self) -> list[tuple[str, str, str]]:
        """(note, written by, status) per note row, in order (tests)."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for k in range(group.childCount()):
                row = group.child(k)
                out.append((row.text(0), row.text(1), row.text(2)))
        return out

    def _current_note(self) -> str | None:
        item = self.tree.currentItem()
        data = item.data(0, PATH_ROLE) if item is not None else None
        return path_of_data(data) if data is not None else None

    def _enable(self) -> None:
        has = bool(self.desk and self.desk.days)
        self.mark_button.setEnabled(has and self.tree.currentItem() is not None)
        self.mark_all_button.setEnabled(has)

    def _show_diff(self, item: DeskItem | None) -> None:
        if item is None:
            self.diff_title.setText("")
            self.diff.show_diff("")
            return
        what = (
            "the whole note: no reviewed version of it is kept"
            if item.status == "unreviewed"
            else "changes since your review"
        )
        repeats = ", ".join(
            f"{shown_path(r.other)} L{r.at[0]}–{r.at[1]} ({r.similarity:.2f})"
            for r in item.repeats[:3]
        )
        more = f" and {len(item.repeats) - 3} more" if len(item.repeats) > 3 else ""
        self.diff_title.setText(
            f"{shown_path(item.note)} · by {who(item)} · {item.changed[:16].replace('T', ' ')}"
            + (f" · ⚠ repeats {repeats}{more}" if repeats else "")
            + f" · {what}"
            + (f" · {item.backlinks} backlinks" if item.backlinks else "")
            + (f" · concepts: {', '.join(item.concepts)}" if item.concepts else "")
        )
        self.diff.show_diff(item.diff or "")

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_tree_current_item_changed(
        self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None
    ) -> None:
        data = current.data(0, PATH_ROLE) if current is not None else None
        self._show_diff(self._items.get(path_of_data(data)) if data is not None else None)
        self._enable()

    @Slot(QTreeWidgetItem, int)
    def _on_tree_item_double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        data = item.data(0, PATH_ROLE)
        if data is not None:
            self.note_opened.emit(path_of_data(data))

    @Slot()
    def _on_mark_button_clicked(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        data = item.data(0, PATH_ROLE)
        if data is not None:
            self.mark_requested.emit([path_of_data(data)])
            return
        rows = [item.child(k).data(0, PATH_ROLE) for k in range(item.childCount())]
        self.mark_requested.emit([path_of_data(d) for d in rows if d is not None])


def _changed(item: DeskItem) -> str:
    if not item.diff:
        return "changed"
    added = sum(
        1 for line in item.diff.split("\n") if line.startswith("+") and not line.startswith("+++")
    )
    removed = sum(
        1 for line in item.diff.split("\n") if line.startswith("-") and not line.startswith("---")
    )
    return f"+{added} −{removed} lines"
