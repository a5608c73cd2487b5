"""Recent changes: notes modified since the previous session or within a period, newest first."""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QShowEvent, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QListView, QVBoxLayout, QWidget

from ...core.vault.urls import shown_path
from ..items import DISPLAY, TOOLTIP, path_data, path_of_data, standard_rows

PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 1
PERIODS = {  # key → (label, seconds; None = since the previous session)
    "session": ("Since the previous session", None),
    "day": ("Last 24 hours", 86_400.0),
    "week": ("Last 7 days", 7 * 86_400.0),
    "month": ("Last 30 days", 30 * 86_400.0),
}
MAX_SHOWN = 500


def _title(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].removesuffix(".md")


def _age(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    if seconds < 5400:
        return f"{round(seconds / 60)} min ago"
    if seconds < 36 * 3600:
        return f"{round(seconds / 3600)} h ago"
    return f"{round(seconds / 86400)} days ago"


class _RecentModel(QStandardItemModel):
    """(mtime, path) rows. The items are made by the model (``insertRows``): a model
    written in Python would take the interpreter lock for every cell of every paint, which
    waits behind the updater and job threads (see ``items``)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(0, 1, parent)
        self.rows: list[tuple[float, str]] = []

    def set_rows(self, rows: list[tuple[float, str]]) -> None:
        self.rows = rows
        now = time.time()
        self.removeRows(0, self.rowCount())
        if not rows:
            standard_rows(self, 0, [{DISPLAY: "Nothing changed in this period."}])
            self.itemFromIndex(self.index(0, 0)).setFlags(Qt.ItemFlag.NoItemFlags)
            return
        standard_rows(
            self,
            0,
            [
                {
                    DISPLAY: f"{shown_path(_title(rel))}  ·  {_age(now - mtime)}",
                    TOOLTIP: shown_path(rel),
                    PATH_ROLE: path_data(rel),
                }
                for mtime, rel in rows
            ],
        )


class RecentChanges(QWidget):
    """The period chooser and the list of notes changed within it.

    Signals:
        note_selected(str): the user chose a note.
    """

    note_selected = Signal(object)  # a path (see vault/tree.py)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.period = QComboBox()
        for key, (label, _) in PERIODS.items():
            self.period.addItem(label, key)
        self._model = _RecentModel(self)
        self.list = QListView()
        self.list.setModel(self._model)
        self.list.setAlternatingRowColors(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.period)
        layout.addWidget(self.list)
        self._since_session: float | None = None
        self._notes: dict[str, float] = {}
        self._stale = False  # the list waits to be shown to be made again
        self.period.currentIndexChanged.connect(self._on_period_changed)
        self.list.activated.connect(self._on_list_activated)
        self.list.clicked.connect(self._on_list_activated)

    def set_period(self, key: str) -> None:
        index = self.period.findData(key)
        if index >= 0:
            self.period.setCurrentIndex(index)

    def set_previous_session(self, ended: float | None) -> None:
        self._since_session = ended

    def show_notes(self, notes: Iterable[tuple[str, float]]) -> None:
        """(vault path, modification time in seconds) of every note."""
        self._notes = dict(notes)
        self._refresh()

    def notes_changed(self, changed: dict[str, float], removed: Iterable[str] = ()) -> None:
        """Notes written (path → mtime) or deleted since; one refresh for the lot."""
        self._notes.update(changed)
        for rel in removed:
            self._notes.pop(rel, None)
        self._refresh()

    def shown(self) -> list[str]:
        if self._stale:
            self._refresh(hidden_too=True)
        return [rel for _, rel in self._model.rows]

    def showEvent(self, event: QShowEvent) -> None:
        if self._stale:
            self._refresh(hidden_too=True)
        super().showEvent(event)

    def _cutoff(self) -> float:
        key = self.period.currentData()
        seconds = PERIODS.get(key, PERIODS["day"])[1]
        if seconds is None:  # since the previous session; the first one: the last day
            return self._since_session or time.time() - 86_400.0
        return time.time() - seconds

    def _refresh(self, *, hidden_too: bool = False) -> None:
        """Make the list again, once it is in sight: during a burst of changes (a git
        checkout) the hidden list cost 30-50 ms per update."""
        if not hidden_too and not self.isVisible():
            self._stale = True
            return
        self._stale = False
        cutoff = self._cutoff()
        recent = heapq.nlargest(
            MAX_SHOWN, ((m, rel) for rel, m in self._notes.items() if m >= cutoff)
        )
        self._model.set_rows(recent)

    @Slot(int)
    def _on_period_changed(self, _index: int) -> None:
        self._refresh()

    @Slot(QModelIndex)
    def _on_list_activated(self, index: QModelIndex) -> None:
        rel = path_of_data(index.data(PATH_ROLE))
        if rel:
            self.note_selected.emit(rel)
