"""A tab whose view needs the graph's modules (pyqtgraph): a placeholder until the graph
tab's background import has them, then the view, made on the tab's first showing."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from .graph_tab import GRAPH_MODULES_POLL_MS, GraphTab, graph_modules_loaded


class Activated(Protocol):
    """A session that works only while its view is shown."""

    def set_active(self, active: bool) -> None: ...


class LazyTab(QObject):
    """Holds ``placeholder`` in ``tabs`` under ``title`` until ``_make_view`` can run (never
    importing pyqtgraph on the way to the first window); ``_session`` is told whether the
    view is shown. A subclass makes its view and hands it to ``_swap_in``."""

    def __init__(
        self,
        tabs: QTabWidget,
        graph_tab: GraphTab,
        title: str,
        loading: str,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.tabs = tabs
        self.graph_tab = graph_tab
        self.title = title
        self.view: QWidget | None = None
        self.placeholder = QWidget()
        label = QLabel(loading, self.placeholder)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self.placeholder).addWidget(label)
        tabs.addTab(self.placeholder, title)
        self._session: Activated | None = None
        self._poll = QTimer(self, interval=GRAPH_MODULES_POLL_MS)
        self._poll.timeout.connect(self._on_poll_timeout)
        tabs.currentChanged.connect(self._on_tabs_current_changed)

    def is_shown(self) -> bool:
        return self.view is not None and self.tabs.currentWidget() is self.view

    def _bring_to_front(self) -> None:
        self.tabs.setCurrentWidget(self.view or self.placeholder)
        self._on_tabs_current_changed(self.tabs.currentIndex())

    def _make_view(self) -> None:
        raise NotImplementedError

    def _swap_in(self, view: QWidget) -> None:
        """``view`` in the placeholder's place, shown, without a tab change signal."""
        index = self.tabs.indexOf(self.placeholder)
        self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, view, self.title)
            self.tabs.setCurrentIndex(index)
        finally:
            self.tabs.blockSignals(False)

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.placeholder:
            if graph_modules_loaded.is_set():
                self._make_view()
            else:
                self.graph_tab.start_import()
                self._poll.start()
        if self._session is not None:
            self._session.set_active(self.is_shown())

    @Slot()
    def _on_poll_timeout(self) -> None:
        if graph_modules_loaded.is_set():
            self._poll.stop()
            if self.view is None and self.tabs.currentWidget() is self.placeholder:
                self._make_view()
                if self._session is not None:
                    self._session.set_active(True)
