"""More than one note open: a note in a tab of its own (Ctrl+click a link), and a split that
reads a second note beside the first (Ctrl+Alt+click, or View → Open to the Side) — a diary
beside the decision it led to.

Each extra note is a ``ReadingPane``: a title bar and a preview of its own. A link clicked
in it opens there (Ctrl+click: in a new tab); other places (a concept, a tag) open in the
main preview, where the backlinks and the graph follow. The panes are rendered by the
session's jobs (``render_aside``), never in the GUI thread.
"""

from __future__ import annotations

import itertools
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..elided import tab_text
from ..preview.view import PreviewView

_IDS = itertools.count(1)


def opening_where() -> str:
    """Where a link clicked now opens, by the keys held: "tab" (Ctrl), "side" (Ctrl+Alt),
    else "here"."""
    held = QApplication.keyboardModifiers()
    ctrl = bool(held & Qt.KeyboardModifier.ControlModifier)
    if ctrl and held & Qt.KeyboardModifier.AltModifier:
        return "side"
    return "tab" if ctrl else "here"


class ReadingPane(QWidget):
    """One extra note: its title, a close button, its preview.

    Signals:
        wanted(int, str): this pane (its id) should show the note ``rel``.
        elsewhere(str, str, str): a link to a place that is not a note (kind, node,
            fragment): for the main preview.
        in_new_tab(str): a note to open in a tab of its own (Ctrl+click).
        closed(int): the pane's close button.
    """

    wanted = Signal(int, str)
    elsewhere = Signal(str, str, str)
    in_new_tab = Signal(str)
    closed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pane_id = next(_IDS)
        self.rel: str | None = None
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        close = QToolButton()
        close.setText("×")
        close.setToolTip("Close this note")
        close.clicked.connect(lambda: self.closed.emit(self.pane_id))
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 2, 2, 2)
        bar.addWidget(self.title, 1)
        bar.addWidget(close)
        self.preview = PreviewView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.preview, 1)
        self.preview.link_activated.connect(self._on_link_activated)

    def open(self, rel: str) -> None:
        self.rel = rel
        self.title.setText(rel)
        self.wanted.emit(self.pane_id, rel)

    def show_rendered(self, rel: str, rendered: Any) -> None:
        """The rendered page of ``rel`` (core.render's), or the reason it cannot be shown."""
        if rel != self.rel:
            return  # an older answer: the pane has moved on
        if isinstance(rendered, Exception):
            self.preview.setPlainText(f"{rel} cannot be shown: {rendered}")
            return
        self.preview.show_note(rendered.html)

    @Slot(str, str, str)
    def _on_link_activated(self, kind: str, node: str, fragment: str) -> None:
        if kind != "note" or not node.lower().endswith(".md"):
            self.elsewhere.emit(kind, node, fragment)
        elif opening_where() == "tab":
            self.in_new_tab.emit(node)
        else:
            self.open(node)


class ReadingViews(QObject):
    """The extra notes of a window: tabs of the centre after its first (the main preview),
    and the side pane of the split in that first tab.

    Signals:
        wanted(int, str): render the note ``rel`` for the pane with this id (the window
            hands it to the session's ``render_aside``).
        elsewhere(str, str, str): a place for the main preview (kind, node, fragment).
    """

    wanted = Signal(int, str)
    elsewhere = Signal(str, str, str)

    def __init__(self, centre: QTabWidget, split: QSplitter, parent: QObject | None = None):
        super().__init__(parent)
        self._centre = centre
        self._split = split
        self.panes: dict[int, ReadingPane] = {}
        self.side: ReadingPane | None = None

    def _new_pane(self) -> ReadingPane:
        pane = ReadingPane()
        pane.wanted.connect(self.wanted)
        pane.elsewhere.connect(self.elsewhere)
        pane.in_new_tab.connect(self.open_in_tab)
        pane.closed.connect(self.close_pane)
        self.panes[pane.pane_id] = pane
        return pane

    @Slot(str)
    def open_in_tab(self, rel: str) -> ReadingPane:
        """``rel`` in a new tab of the centre, after the tabs already open, shown."""
        pane = self._new_pane()
        at = 1 + sum(1 for p in self.panes.values() if p is not self.side and p is not pane)
        self._centre.insertTab(at, pane, tab_text(rel.rsplit("/", 1)[-1].removesuffix(".md")))
        self._centre.setTabToolTip(at, rel)
        self._centre.setCurrentWidget(pane)
        pane.open(rel)
        return pane

    @Slot(str)
    def open_to_side(self, rel: str) -> ReadingPane:
        """``rel`` in the split beside the main preview (made when missing)."""
        if self.side is None:
            self.side = self._new_pane()
            self._split.addWidget(self.side)
            QTimer.singleShot(0, self._halve)  # once the new pane is laid out
        self._centre.setCurrentIndex(0)
        self.side.open(rel)
        return self.side

    def render_again(self) -> None:
        """Ask for every open pane's note again (the theme changed)."""
        for pane in self.panes.values():
            if pane.rel is not None:
                pane.open(pane.rel)

    @Slot()
    def _halve(self) -> None:
        if self._split.count() == 2:
            half = self._split.width() // 2
            self._split.setSizes([half, self._split.width() - half])

    @Slot(int)
    def close_pane(self, pane_id: int) -> None:
        pane = self.panes.pop(pane_id, None)
        if pane is None:
            return
        if pane is self.side:
            self.side = None
        else:
            self._centre.removeTab(self._centre.indexOf(pane))
        pane.setParent(None)  # type: ignore[call-overload]
        pane.deleteLater()

    @Slot(int, str, object)
    def show_rendered(self, pane_id: int, rel: str, rendered: object) -> None:
        pane = self.panes.get(pane_id)
        if pane is not None:
            pane.show_rendered(rel, rendered)
            if pane is not self.side:
                index = self._centre.indexOf(pane)
                title = getattr(rendered, "title", None)
                if index >= 0 and title:
                    self._centre.setTabText(index, tab_text(title))
