"""Recent changes: notes modified since the previous session or within a period, newest first."""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
PERIODS = {  # key → (label, seconds; None = since the previous session)
    "session": ("Since the previous session", None),
    "day": ("Last 24 hours", 86_400.0),
    "week": ("Last 7 days", 7 * 86_400.0),
    "month": ("Last 30 days", 30 * 86_400.0),
}
MAX_SHOWN = 500


def _age(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    if seconds < 5400:
        return f"{round(seconds / 60)} min ago"
    if seconds < 36 * 3600:
        return f"{round(seconds / 3600)} h ago"
    return f"{round(seconds / 86400)} days ago"


class RecentChanges(QWidget):
    """The period chooser and the list of notes changed within it.

    Signals:
        note_selected(str): the user chose a note.
        period_changed(str): the user chose another period (a key of PERIODS).
    """

    note_selected = Signal(str)
    period_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.period = QComboBox()
        for key, (label, _) in PERIODS.items():
            self.period.addItem(label, key)
        self.list = QListWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.period)
        layout.addWidget(self.list)
        self._since_session: float | None = None
        self._notes: dict[str, float] = {}
        self.period.currentIndexChanged.connect(self._on_period_changed)
        self.list.itemActivated.connect(self._on_item_activated)
        self.list.itemClicked.connect(self._on_item_activated)

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

    def note_changed(self, rel: str, mtime: float) -> None:
        self._notes[rel] = mtime
        self._refresh()

    def note_removed(self, rel: str) -> None:
        if self._notes.pop(rel, None) is not None:
            self._refresh()

    def shown(self) -> list[str]:
        return [self.list.item(i).data(PATH_ROLE) for i in range(self.list.count())]

    def _cutoff(self) -> float:
        key = self.period.currentData()
        seconds = PERIODS.get(key, PERIODS["day"])[1]
        if seconds is None:  # since the previous session; the first one: the last day
            return self._since_session or time.time() - 86_400.0
        return time.time() - seconds

    def _refresh(self) -> None:
        cutoff = self._cutoff()
        now = time.time()
        recent = sorted(((m, rel) for rel, m in self._notes.items() if m >= cutoff), reverse=True)[
            :MAX_SHOWN
        ]
        self.list.clear()
        for mtime, rel in recent:
            title = rel.rsplit("/", 1)[-1].removesuffix(".md")
            folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
            text = f"{title}\n{folder + ' · ' if folder else ''}{_age(now - mtime)}"
            item = QListWidgetItem(text)
            item.setData(PATH_ROLE, rel)
            item.setToolTip(rel)
            self.list.addItem(item)
        if not recent:
            item = QListWidgetItem("Nothing changed in this period.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(item)

    @Slot(int)
    def _on_period_changed(self, _index: int) -> None:
        self._refresh()
        self.period_changed.emit(self.period.currentData())

    @Slot(QListWidgetItem)
    def _on_item_activated(self, item: QListWidgetItem) -> None:
        rel = item.data(PATH_ROLE)
        if rel:
            self.note_selected.emit(rel)
