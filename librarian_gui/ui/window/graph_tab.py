"""The main window's graph tab: its modules imported ahead on a thread, its view made while
hidden once they are in (or on the first Ctrl+G), wired to the vault's graph session."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from ...core.index.resolver import CONCEPT_PREFIX, UNRESOLVED_PREFIX
from ...services.preload import preload
from .. import theme

if TYPE_CHECKING:
    from ...core.related.vault import RelatedIndex
    from ...services.graph import GraphService
    from ...services.settings import Settings
    from ..graph.view import GraphView

GRAPH_IMPORT_DELAY_MS = 3000  # after the index is ready, or after the last update
GRAPH_MODULES_POLL_MS = 20  # once the import started: how often to look whether it is done
QT_TYPES_SLICE_S = 0.004  # PySide's classes made per event-loop turn before the import


class GraphTab(QObject):
    """The centre's Graph tab: a placeholder until the graph's modules are in, then the graph
    view, made ahead while hidden or on the first Ctrl+G, wired to the open vault's graph
    session. The related notes given before the view exists are handed to it when made.

    Signals:
        node_activated(str, str): a node's kind ("note", "concept", "unresolved") and id,
            double-clicked on the canvas.
        related_threshold_changed(float): the user moved the view's related threshold.
        related_shown_changed(bool): the user showed or hid the RELATED_TO edges.
    """

    node_activated = Signal(str, str)
    related_threshold_changed = Signal(float)
    related_shown_changed = Signal(bool)

    # The graph's modules load on a thread ahead of the first Ctrl+G, once the vault has been
    # quiet a while: the import (pyqtgraph, scipy) takes the interpreter lock in turns for
    # about two seconds, and a save's backlinks or a burst of changes would wait. A vault
    # that never rests: the first Ctrl+G starts it, and the tab says the graph is loading.
    # (A deadline 15 s after the index used to start it anyway: in the middle of a
    # 2,000-file burst it doubled the window's worst lag, 33 → 83 ms.)

    def __init__(self, centre: QTabWidget, settings: Settings, parent: QObject | None = None):
        super().__init__(parent)
        self.centre = centre
        self.settings = settings
        # The view's widgets pull in pyqtgraph and numpy (~0.4 s): made once they are in.
        self.view: GraphView | None = None
        self.placeholder = QWidget()
        centre.addTab(self.placeholder, "Graph")
        self._session: GraphService | None = None
        self._selected: str | None = None  # the place the preview shows
        self._related: RelatedIndex | None = None
        self._wanted_mode: str | None = None  # set by show_tab, applied once the view is made
        self._import_timer = QTimer(self, singleShot=True, interval=GRAPH_IMPORT_DELAY_MS)
        self._import_timer.timeout.connect(self._on_import_timer_timeout)
        self.imported = False
        self._qt_names: Iterator[tuple[object, str]] = iter(())
        self._qt_types_timer = QTimer(self, interval=0)
        self._qt_types_timer.timeout.connect(self._on_qt_types_timer_timeout)
        # Once the modules are in, the view is made, drawn once while hidden and put in its
        # tab, a step per event-loop turn (shown too if a Ctrl+G is waiting for it): made
        # and first shown on Ctrl+G, next to the graph build's thread, it froze the window
        # 100-200 ms.
        self._modules_poll = QTimer(self, interval=GRAPH_MODULES_POLL_MS)
        self._modules_poll.timeout.connect(self._on_modules_poll_timeout)
        self._build: Iterator[GraphView | None] = iter(())  # a view being made ahead
        self._build_timer = QTimer(self, interval=0)
        self._build_timer.timeout.connect(self._on_build_timer_timeout)
        self._warm = QTimer(self, singleShot=True, interval=0)
        self._warm.timeout.connect(self._on_warm_timeout)
        self._show = QTimer(self, singleShot=True, interval=0)
        self._show.timeout.connect(self._on_show_timeout)
        self._pending: GraphView | None = None  # made, not yet in its tab
        self._stopped = False  # the window closed
        centre.currentChanged.connect(self._on_centre_current_changed)

    def set_session(self, session: GraphService | None) -> None:
        """The open vault's graph session (None: no vault open)."""
        self._session = session
        if session is None:
            return
        session.graph_ready.connect(self._on_session_graph_ready)
        session.positions_ready.connect(self._on_session_positions_ready)
        if self.view is not None:
            self._connect_view(self.view, session)

    def stop(self) -> None:
        """The window closes: no timer of the tab or of its canvas fires after it (a layout
        answer still on its way is dropped)."""
        self._stopped = True
        for timer in (
            self._import_timer,
            self._qt_types_timer,
            self._modules_poll,
            self._build_timer,
            self._warm,
            self._show,
        ):
            timer.stop()
        for view in (self.view, self._pending):
            if view is not None:
                view.canvas.halt()

    def set_related(self, related: RelatedIndex | None) -> None:
        """The vault's related notes (None: none yet), for the RELATED_TO layer."""
        self._related = related
        for view in (self.view, self._pending):
            if view is not None:
                view.set_related(related)

    def set_related_threshold(self, threshold: float) -> None:
        """Another view moved the shared threshold."""
        for view in (self.view, self._pending):
            if view is not None:
                view.set_related_threshold(threshold)

    def select(self, node: str) -> None:
        """The preview shows ``node``: the canvas marks it (once there is one)."""
        self._selected = node
        if self.view is not None:
            self.view.canvas.select(node)

    def schedule_import(self) -> None:
        """The index is ready: load the graph's modules once the vault has been quiet."""
        if self.view is None:  # the first Ctrl+G then only builds widgets (0.6 s → 0.15 s)
            self._import_timer.start()

    def postpone_import(self) -> None:
        if self._import_timer.isActive():
            self._import_timer.start()  # not while files are being saved

    def show_tab(self, mode: str | None = None) -> None:
        """Ctrl+G: the graph's tab in front (the placeholder while its modules load), around
        the open note (``mode`` "local") if there is one, else as it was; ``mode``
        "global": the whole vault."""
        if mode is None:  # a Ctrl+G waiting for the view keeps what it asked for
            mode = self._wanted_mode or ("local" if self._selected is not None else None)
        self._wanted_mode = mode
        self.centre.setCurrentWidget(self._ensure_view())
        self._apply_wanted_mode()
        self._on_centre_current_changed(self.centre.currentIndex())

    def start_import(self) -> None:
        """Load the graph's modules now (another part of the window needs them)."""
        self._start_import()

    def _apply_wanted_mode(self) -> None:
        if self.view is not None and self._wanted_mode is not None:
            self.view.set_mode(self._wanted_mode)
            self._wanted_mode = None

    def is_shown(self) -> bool:
        return self.view is not None and self.centre.currentWidget() is self.view

    def _start_import(self) -> None:
        """PySide's classes first, here in slices; then the import thread."""
        self._import_timer.stop()
        if not self.imported:
            self.imported = True
            self._qt_names = qt_type_names()
            self._qt_types_timer.start()

    @Slot()
    def _on_import_timer_timeout(self) -> None:
        self._start_import()

    @Slot()
    def _on_qt_types_timer_timeout(self) -> None:
        if make_qt_types(self._qt_names, QT_TYPES_SLICE_S):
            self._qt_types_timer.stop()
            start_graph_import()
            self._modules_poll.start()

    def _connect_view(self, view: GraphView, session: GraphService) -> None:
        """The graph tab's controls → its session (once both exist)."""
        for signal, slot in (
            (view.scope_changed, session.set_scope),
            (view.paused, session.set_paused),
            (view.filters_changed, session.set_filters),
            (view.forces_changed, session.set_forces),
            (view.layout_reset, session.reset_layout),
            (view.node_dragged, session.drag_node),
            (view.node_released, session.release_node),
        ):
            signal.connect(slot)
        maps = session.concept_map
        maps.map_ready.connect(view.concept_map.show_map)
        maps.map_failed.connect(view.concept_map.show_status)
        if maps.current is not None:
            view.concept_map.show_map(maps.current)
        session.set_scope(*view.scope())
        session.set_filters(view.graph_filter())
        session.set_forces(view.forces())
        session.set_active(self.centre.currentWidget() is view)

    def _ensure_view(self) -> QWidget:
        """The graph tab's view, made if need be; the placeholder, saying so, while the
        import thread loads the graph's modules (started now if the vault never rested;
        imported here instead, they froze the window 0.4-2 s): the view is made once they
        are loaded."""
        if self.view is None and not graph_modules_loaded.is_set():
            self._start_import()
            self._wait_for_modules()
            return self.placeholder
        if self.view is None:
            return self._make_view()
        return self.view

    def _new_view(self) -> GraphView:
        """The view, at once (the rest of a build begun ahead, if one is under way)."""
        self._build_timer.stop()
        steps, self._build = self._build, iter(())
        made = [step for step in steps if step is not None]
        return made[-1] if made else [s for s in self._view_steps() if s is not None][-1]

    def _view_steps(self) -> Iterator[GraphView | None]:
        """Make the view in three steps (its canvas, its concept map, the rest), None after
        each but the last, which gives the view: made in one turn while a related-notes pass
        ran, it held the GUI thread 33-99 ms."""
        # loaded by the import thread
        from ..graph.canvas import GraphCanvas
        from ..graph.concept_map import ConceptMapView
        from ..graph.view import GraphView

        dark = theme.resolve(self.settings.theme())
        canvas = GraphCanvas(dark=dark)
        yield None
        concept_map = ConceptMapView(dark=dark, settings=self.settings)
        yield None
        view = GraphView(dark=dark, settings=self.settings, canvas=canvas, concept_map=concept_map)
        view.node_activated.connect(self._on_view_node_activated)
        view.related_threshold_changed.connect(self.related_threshold_changed)
        view.related_shown_changed.connect(self.related_shown_changed)
        view.set_related(self._related)
        yield view

    def _make_view(self) -> GraphView:
        """The graph view (the one made ahead if any), in the placeholder's tab, which stays
        the current one or not."""
        self._modules_poll.stop()
        self.view = self._pending or self._new_view()
        self._pending = None
        index = self.centre.indexOf(self.placeholder)
        current = self.centre.currentIndex()
        self.centre.blockSignals(True)
        try:
            self.centre.removeTab(index)
            self.centre.insertTab(index, self.view, "Graph")
            self.centre.setCurrentIndex(current)
        finally:
            self.centre.blockSignals(False)
        if self._session is not None:
            self._connect_view(self.view, self._session)
        if self._selected is not None:
            self.view.canvas.select(self._selected)
        self._apply_wanted_mode()
        return self.view

    @Slot()
    def _on_modules_poll_timeout(self) -> None:
        if not graph_modules_loaded.is_set():
            return
        self._modules_poll.stop()
        if self.view is None and self._pending is None:
            self._build = self._view_steps()
            self._build_timer.start()

    @Slot()
    def _on_build_timer_timeout(self) -> None:
        """One step of the view made ahead; once made, it is drawn while hidden."""
        view = next(self._build, False)  # False: no build under way (or it failed)
        if view is None:
            return
        self._build_timer.stop()
        if view is False:
            return
        self._build = iter(())
        if self.view is None and self._pending is None:
            self._pending = view
            self._warm.start()

    @Slot()
    def _on_warm_timeout(self) -> None:
        """Draw the hidden view once: its widgets get polished, laid out and their fonts
        cached now rather than when first shown. It goes in its tab in the turn after."""
        pending = self._pending
        if pending is None:
            return
        size = self.centre.currentWidget().size()
        pending.resize(size)
        pending.render(QPixmap(size))
        self._show.start()

    @Slot()
    def _on_show_timeout(self) -> None:
        if self.view is not None or self._pending is None:
            return
        if self.centre.currentWidget() is self.placeholder:
            self.show_tab()  # a Ctrl+G has been waiting for it
        else:
            self._make_view()

    def _wait_for_modules(self) -> None:
        if self.placeholder.layout() is None:
            loading = QLabel("Loading the graph…", self.placeholder)
            loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
            QVBoxLayout(self.placeholder).addWidget(loading)
        if not self._modules_poll.isActive():
            self._modules_poll.start()

    @Slot(int)
    def _on_centre_current_changed(self, _index: int) -> None:
        if self.centre.currentWidget() is self.placeholder:
            self.centre.setCurrentWidget(self._ensure_view())
            return
        if self._session is not None:
            self._session.set_active(self.is_shown())

    @Slot(str)
    def _on_view_node_activated(self, node: str) -> None:
        self.node_activated.emit(kind_of_node(node), node)

    @Slot(object, object)
    def _on_session_graph_ready(self, graph: Any, positions: Any) -> None:
        if self.view is None or self._stopped:
            return
        self.view.show_graph(graph, positions, fit=not self.view.canvas.ids)
        if self._selected is not None:
            self.view.canvas.select(self._selected)

    @Slot(object, bool, float)
    def _on_session_positions_ready(self, positions: Any, settled: bool, rate: float) -> None:
        if self.view is not None and not self._stopped:
            self.view.show_positions(positions, settled, rate)


def kind_of_node(node: str) -> str:
    """ "note", "concept" or "unresolved", by the node id's prefix."""
    if node.startswith(CONCEPT_PREFIX):
        return "concept"
    if node.startswith(UNRESOLVED_PREFIX):
        return "unresolved"
    return "note"


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


# What the graph tab's first showing imports: pyqtgraph and numpy (through the view's module)
# and the layout's modules (scipy's fft, spatial, sparse, ...: 0.5 s), imported by the layout
# thread on the first Ctrl+G, beside the graph's first paints otherwise.
GRAPH_MODULES = (
    "librarian_gui.core.graph.layout",
    "librarian_gui.core.graph.layout_cache",
    "librarian_gui.ui.graph.view",
)


def start_graph_import() -> None:
    preload(GRAPH_MODULES, name="librarian-graph-import", done=graph_modules_loaded)
