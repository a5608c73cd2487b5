"""Laying out a widget's rows only while it is in sight: panes in tabs mostly closed (Thin
spots, the Index note) filled up to 2,000 tree rows at every related-notes pass or check,
30-90 ms of the GUI thread each time, for nobody."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class FillWhenShown(QObject):
    """``changed()`` when the widget's data changes: ``fill`` runs now if the widget is in
    sight, else once it is shown. ``now()`` runs it if it is owed (a caller reading rows)."""

    def __init__(self, widget: QWidget, fill: Callable[[], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._fill = fill
        self._owed = False
        widget.installEventFilter(self)

    def changed(self) -> None:
        self._owed = True
        if self._widget.isVisible():
            self.now()

    def now(self) -> None:
        if self._owed:
            self._owed = False
            self._fill()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            self.now()
        return False
