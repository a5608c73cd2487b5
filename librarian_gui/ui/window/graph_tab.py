"""The main window's graph tab: its modules imported ahead on a thread, its view made while
hidden once they are in (or on the first Ctrl+G), wired to its session: a part of
``MainWindow``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Slot
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from ...core.courtesy import courteous, gc_paused
from .. import theme

if TYPE_CHECKING:
    from ...services.graph_session import GraphSession
    from ...services.session import VaultSession
    from ...services.settings import Settings
    from ..graph.view import GraphView
    from ..panes.preview import PreviewView

GRAPH_IMPORT_DELAY_MS = 3000  # after the index is ready, or after the last update
GRAPH_MODULES_POLL_MS = 20  # once the import started: how often to look whether it is done
QT_TYPES_SLICE_S = 0.004  # PySide's classes made per event-loop turn before the import


class WindowGraph:
    """Mixed into ``MainWindow``: the graph tab, made ahead while hidden or on the first
    Ctrl+G."""

    graph: GraphView | None
    graph_session: GraphSession | None
    session: VaultSession | None
    settings: Settings
    centre: QTabWidget
    preview: PreviewView
    _graph_placeholder: QWidget
    _on_centre_current_changed: Callable[[int], None]  # MainWindow's (an annotation only)

    # The graph's modules load on a thread ahead of the first Ctrl+G, once the vault has been
    # quiet a while: the import (pyqtgraph, scipy) takes the interpreter lock in turns for
    # about two seconds, and a save's backlinks or a burst of changes would wait. A vault
    # that never rests: the first Ctrl+G starts it, and the tab says the graph is loading.
    # (A deadline 15 s after the index used to start it anyway: in the middle of a
    # 2,000-file burst it doubled the window's worst lag, 33 → 83 ms.)

    def _init_graph_import(self) -> None:
        assert isinstance(self, QObject)
        self._graph_import_timer = QTimer(self, singleShot=True, interval=GRAPH_IMPORT_DELAY_MS)
        self._graph_import_timer.timeout.connect(self._start_graph_import)
        self._graph_imported = False
        self._qt_names: Iterator[tuple[object, str]] = iter(())
        self._qt_types_timer = QTimer(self, interval=0)
        self._qt_types_timer.timeout.connect(self._on_qt_types_timeout)
        # Once the modules are in, the view is made, drawn once while hidden and put in its
        # tab, a step per event-loop turn (shown too if a Ctrl+G is waiting for it): made
        # and first shown on Ctrl+G, next to the graph build's thread, it froze the window
        # 100-200 ms.
        self._graph_modules_poll = QTimer(self, interval=GRAPH_MODULES_POLL_MS)
        self._graph_modules_poll.timeout.connect(self._on_graph_modules_poll_timeout)
        self._graph_warm = QTimer(self, singleShot=True, interval=0)
        self._graph_warm.timeout.connect(self._on_graph_warm_timeout)
        self._graph_show = QTimer(self, singleShot=True, interval=0)
        self._graph_show.timeout.connect(self._on_graph_show_timeout)
        self._graph_pending: GraphView | None = None  # made, not yet in its tab

    def _schedule_graph_import(self) -> None:
        self._graph_import_timer.start()

    def _postpone_graph_import(self) -> None:
        if self._graph_import_timer.isActive():
            self._graph_import_timer.start()  # not while files are being saved

    def _start_graph_import(self) -> None:
        """PySide's classes first, here in slices; then the import thread."""
        self._graph_import_timer.stop()
        if not self._graph_imported:
            self._graph_imported = True
            self._qt_names = qt_type_names()
            self._qt_types_timer.start()

    @Slot()
    def _on_qt_types_timeout(self) -> None:
        if make_qt_types(self._qt_names, QT_TYPES_SLICE_S):
            self._qt_types_timer.stop()
            start_graph_import()
            self._graph_modules_poll.start()

    def _connect_graph(self, graph: GraphView, graph_session: GraphSession) -> None:
        """The graph tab's controls → its session (once both exist)."""
        for signal, slot in (
            (graph.scope_changed, graph_session.set_scope),
            (graph.paused, graph_session.set_paused),
            (graph.filters_changed, graph_session.set_filters),
            (graph.forces_changed, graph_session.set_forces),
            (graph.layout_reset, graph_session.reset_layout),
            (graph.node_dragged, graph_session.drag_node),
            (graph.node_released, graph_session.release_node),
            (graph.node_activated, self._on_graph_node_activated),
        ):
            signal.connect(slot)
        graph_session.set_scope(*graph.scope())
        graph_session.set_filters(graph.graph_filter())
        graph_session.set_forces(graph.forces())
        graph_session.set_active(self.centre.currentWidget() is graph)

    def _ensure_graph(self) -> QWidget:
        """The graph tab's view, made if need be; the placeholder, saying so, while the
        import thread loads the graph's modules (started now if the vault never rested;
        imported here instead, they froze the window 0.4-2 s): the view is made once they
        are loaded."""
        if self.graph is None and not graph_modules_loaded.is_set():
            self._start_graph_import()
            self._wait_for_graph_modules()
            return self._graph_placeholder
        if self.graph is None:
            return self._make_graph_view()
        return self.graph

    def _new_graph_view(self) -> GraphView:
        from ..graph.view import GraphView  # loaded by the import thread

        return GraphView(dark=theme.resolve(self.settings.theme()), settings=self.settings)

    def _make_graph_view(self) -> GraphView:
        """The graph view (the one made ahead if any), in the placeholder's tab, which stays
        the current one or not."""
        self._graph_modules_poll.stop()
        self.graph = self._graph_pending or self._new_graph_view()
        self._graph_pending = None
        index = self.centre.indexOf(self._graph_placeholder)
        current = self.centre.currentIndex()
        self.centre.blockSignals(True)
        try:
            self.centre.removeTab(index)
            self.centre.insertTab(index, self.graph, "Graph")
            self.centre.setCurrentIndex(current)
        finally:
            self.centre.blockSignals(False)
        if self.graph_session is not None:
            self._connect_graph(self.graph, self.graph_session)
        return self.graph

    @Slot()
    def _on_graph_modules_poll_timeout(self) -> None:
        if not graph_modules_loaded.is_set():
            return
        self._graph_modules_poll.stop()
        if self.graph is None and self._graph_pending is None:
            self._graph_pending = self._new_graph_view()
            self._graph_warm.start()

    @Slot()
    def _on_graph_warm_timeout(self) -> None:
        """Draw the hidden view once: its widgets get polished, laid out and their fonts
        cached now rather than when first shown. It goes in its tab in the turn after."""
        pending = self._graph_pending
        if pending is None:
            return
        size = self.centre.currentWidget().size()
        pending.resize(size)
        pending.render(QPixmap(size))
        self._graph_show.start()

    @Slot()
    def _on_graph_show_timeout(self) -> None:
        if self.graph is not None or self._graph_pending is None:
            return
        if self.centre.currentWidget() is self._graph_placeholder:
            self._on_graph_triggered()  # a Ctrl+G has been waiting for it
        else:
            self._make_graph_view()

    def _wait_for_graph_modules(self) -> None:
        if self._graph_placeholder.layout() is None:
            loading = QLabel("Loading the graph…", self._graph_placeholder)
            loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
            QVBoxLayout(self._graph_placeholder).addWidget(loading)
        if not self._graph_modules_poll.isActive():
            self._graph_modules_poll.start()

    @Slot()
    def _on_graph_triggered(self) -> None:
        self.centre.setCurrentWidget(self._ensure_graph())
        self._on_centre_current_changed(self.centre.currentIndex())

    @Slot(str)
    def _on_graph_node_activated(self, node: str) -> None:
        if self.session is None:
            return
        kind = "note"
        if node.startswith("//concept/"):
            kind = "concept"
        elif node.startswith("//unresolved/"):
            kind = "unresolved"
        self.session.open_node(kind, node, "")
        self.centre.setCurrentWidget(self.preview)

    @Slot(object, object)
    def _on_graph_session_graph_ready(self, graph: Any, positions: Any) -> None:
        if self.graph is None:
            return
        self.graph.show_graph(graph, positions, fit=not self.graph.canvas.ids)
        if self.session is not None and self.session.current is not None:
            self.graph.canvas.select(self.session.current.node)

    @Slot(object, bool, float)
    def _on_graph_session_positions_ready(self, positions: Any, settled: bool, rate: float) -> None:
        if self.graph is not None:
            self.graph.show_positions(positions, settled, rate)


# Set once the thread has loaded the graph's modules (benchmarks wait for it).
graph_modules_loaded = threading.Event()


def qt_type_names() -> Iterator[tuple[object, str]]:
    """Every name of QtCore, QtGui and QtWidgets, with its module."""
    from PySide6 import QtCore, QtGui, QtWidgets

    return ((module, name) for module in (QtCore, QtGui, QtWidgets) for name in dir(module))


def make_qt_types(names: Iterator[tuple[object, str]], budget_s: float) -> bool:
    """Make PySide's classes and enums, for ``budget_s`` at most (plus the one being made);
    True once all are made. In the GUI thread only.

    PySide makes them when first used. pyqtgraph's import touches every name at once: ~0.25
    s of type and enum creation, in one loop of C calls, during which the window's thread
    lost the lock for 50-70 ms at a time. And made from two threads at once (an import
    thread paused half-way through an enum), one crashed in PySide: they are made here, a
    slice per event-loop turn, before the import thread starts."""
    end = time.perf_counter() + budget_s
    for module, name in names:
        getattr(module, name, None)
        if time.perf_counter() > end:
            return False
    return True


def start_graph_import() -> None:
    threading.Thread(target=_import_graph_modules, daemon=True).start()


def _import_graph_modules() -> None:
    """Load pyqtgraph and numpy (through the graph view's module) and the layout's modules
    off the GUI thread. They define classes only; no Qt object is made here."""
    try:
        # The collector paused: a full collection the import's allocations set off held
        # the lock 40-60 ms. What the import made lives as long as the process and is
        # frozen out of the collector's sight afterwards (each full collection walked it
        # again: 0.1 s, GIL held).
        with gc_paused(), courteous():  # the import's own code pauses for the window too
            # The layout's modules too (scipy's fft, spatial, sparse, ...: 0.5 s): imported
            # by the layout thread on the first Ctrl+G, beside the graph's first paints.
            from ...core.graph import layout, layout_cache  # noqa: F401
            from ..graph import view as graph_view  # noqa: F401
    finally:
        graph_modules_loaded.set()
