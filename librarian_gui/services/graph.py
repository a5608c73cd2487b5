"""The graph tab's state: which graph is shown (scope and filters), and its layout stepping
on its own thread (forces, drags, resets)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from ..core.courtesy import courteous, gc_paused
from .concept_map import ConceptMapService
from .jobs import JobControl, JobHandle
from .model import VaultModel

if TYPE_CHECKING:
    from ..core.graph.graphdata import GraphData, GraphFilter
    from ..core.graph.layout import Layout

CONCEPT_MAP = "conceptmap"  # the scope whose graph is the concept map, not the vault's
FRAME_SECONDS = 1 / 30  # positions are sent at most this often
FIRST_PAINT_MS = 40  # a new graph is drawn once before its layout steps
DRAG_ALPHA = 0.3  # d3's alphaTarget while a node is dragged: the rest follows it


class _Stepper(QObject):
    """Lives on the layout thread, the only thread that touches the Layout: steps while the
    layout is not settled and not paused.

    Signals:
        stepped(object, bool, float): positions (read-only array), settled, steps per second.
        loaded(object, object): the GraphData now laid out and its first positions.
        forces_applied(object): the Forces the layout now uses.
    """

    stepped = Signal(object, bool, float)
    loaded = Signal(object, object)
    forces_applied = Signal(object)

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root
        self._layout: Layout | None = None
        self._graph: GraphData | None = None
        self._forces: dict[str, float] = {}
        self._paused = False
        # Made and connected here, in the GUI thread, and moved with the stepper: the layout
        # thread connects nothing (see the ``services`` package).
        self._timer = QTimer(self, interval=0)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._last_sent = 0.0
        self._steps: list[float] = []

    @Slot(object)
    def load(self, graph: GraphData) -> None:
        from ..core.graph.layout import Layout
        from ..core.graph.layout_cache import load_positions

        self._timer.stop()  # the new graph steps once the window has shown it (go)
        first = self._layout is None
        if self._layout is None:
            self._layout = Layout(seed=1, orphan_block=True)
            self._layout.set_forces(**self._forces)
        cached = load_positions(self._root) if first else None
        self._graph = graph
        # Placing 23,700 nodes takes the lock ~0.1 s in numpy calls: with pauses, the
        # window's thread is not kept waiting meanwhile (see core.courtesy).
        with courteous():
            self._layout.set_graph(graph.ids, graph.edges, positions=cached)
        self.loaded.emit(graph, self._layout.positions)  # stepping starts on go()

    @Slot()
    def reset(self) -> None:
        """Lay the graph out afresh: new positions, the cache ignored, the forces kept."""
        from ..core.graph.layout import Layout

        if self._graph is None:
            return
        self._timer.stop()  # the new layout steps once the window has shown it (go)
        self._layout = Layout(seed=1, orphan_block=True)
        self._layout.set_forces(**self._forces)
        self._layout.set_graph(self._graph.ids, self._graph.edges)
        self.loaded.emit(self._graph, self._layout.positions)  # stepping starts on go()

    @Slot()
    def go(self) -> None:
        """The window has shown the graph just loaded: step. (Stepping while it did, the
        two threads took turns at the interpreter lock, and the window froze 60-100 ms.)"""
        self._wake()

    @Slot(object)
    def set_forces(self, forces: dict[str, float]) -> None:
        self._forces.update(forces)
        if self._layout is not None:
            self._layout.set_forces(**self._forces)
            self.forces_applied.emit(self._layout.forces)
            self._wake()

    @Slot(str, float, float)
    def drag(self, node: str, x: float, y: float) -> None:
        layout = self._layout
        if layout is None:
            return
        try:
            layout.pin(node, (x, y))
        except KeyError:
            return  # a node of a graph the layout no longer has
        layout.alpha_target = DRAG_ALPHA
        if self._paused:
            self.stepped.emit(layout.positions, layout.settled, self._rate())
        self._wake()

    @Slot(str)
    def release(self, node: str) -> None:
        layout = self._layout
        if layout is None:
            return
        if node in layout.ids:
            layout.unpin(node)
        layout.alpha_target = 0.0
        self._wake()

    @Slot(bool)
    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        self._wake()

    @Slot()
    def save(self) -> None:
        from ..core.graph.layout_cache import save_positions

        if self._layout is not None and len(self._layout.ids):
            save_positions(self._root, self._layout)

    def _wake(self) -> None:
        if not self._paused and not self._timer.isActive():
            self._timer.start()

    @Slot()
    def halt(self) -> None:
        """The layout thread is ending (run there, on its ``finished``): its timer stops on
        its own thread, so the stepper may be deleted from the GUI thread afterwards."""
        self._timer.stop()

    @Slot()
    def _on_timer_timeout(self) -> None:
        layout = self._layout
        if layout is None or self._paused or layout.settled:
            self._timer.stop()
            if layout is not None:
                self.stepped.emit(layout.positions, layout.settled, self._rate())
            return
        started = time.perf_counter()
        layout.step()
        self._steps.append(time.perf_counter() - started)
        del self._steps[:-30]
        now = time.perf_counter()
        if now - self._last_sent >= FRAME_SECONDS or layout.settled:
            self._last_sent = now
            self.stepped.emit(layout.positions, layout.settled, self._rate())
        time.sleep(0)  # let the GUI thread take the GIL between steps

    def _rate(self) -> float:
        return len(self._steps) / sum(self._steps) if self._steps else 0.0


class GraphService(QObject):
    """Builds the graph to show from the index (on the model's job thread) and hands it to
    the layout thread; passes positions on to the view. In the concept map's scope the
    vault's graph is neither built nor stepped: ``concept_map`` builds the map instead.

    Signals:
        graph_ready(object, object): a GraphData and its positions (new scope or changes).
        positions_ready(object, bool, float): positions, settled, layout steps per second.
        forces_applied(object): the layout's Forces after a change reached it.
        _load_requested(object), _pause_requested(bool), _save_requested(),
        _reset_requested(), _forces_requested(object), _drag_requested(str, float, float),
        _release_requested(str), _go_requested(): to the layout thread.
    """

    graph_ready = Signal(object, object)
    positions_ready = Signal(object, bool, float)
    forces_applied = Signal(object)
    _load_requested = Signal(object)
    _pause_requested = Signal(bool)
    _save_requested = Signal()
    _reset_requested = Signal()
    _forces_requested = Signal(object)
    _drag_requested = Signal(str, float, float)
    _release_requested = Signal(str)
    _go_requested = Signal()

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.scope: tuple[str, int, tuple[str, ...]] = (
            "global",
            1,
            ("note", "concept", "unresolved"),
        )
        self.filters: GraphFilter | None = None  # None: the defaults
        self.centre: str | None = None
        self.active = False
        self.concept_map = ConceptMapService(model, parent=self)
        self._user_paused = False
        self._build_job: JobHandle | None = None
        self._thread = QThread()
        self._thread.setObjectName("librarian-layout")
        self._stepper = _Stepper(model.root)
        self._stepper.moveToThread(self._thread)
        # Its timer stops on its own thread as the thread winds down; the stepper itself is
        # deleted with this session, in the GUI thread (never by the layout thread: see the
        # ``services`` package).
        self._thread.finished.connect(self._stepper.halt, Qt.ConnectionType.DirectConnection)
        self._load_requested.connect(self._stepper.load)
        self._pause_requested.connect(self._stepper.set_paused)
        self._save_requested.connect(self._stepper.save)
        self._reset_requested.connect(self._stepper.reset)
        self._forces_requested.connect(self._stepper.set_forces)
        self._drag_requested.connect(self._stepper.drag)
        self._release_requested.connect(self._stepper.release)
        self._go_requested.connect(self._stepper.go)
        self._stepper.loaded.connect(self._on_stepper_loaded)
        self._stepper.stepped.connect(self.positions_ready)
        self._stepper.forces_applied.connect(self.forces_applied)
        self._thread.start()
        self._rebuild_timer = QTimer(self, singleShot=True, interval=600)
        self._rebuild_timer.timeout.connect(self.rebuild)
        # The layout starts once the window has shown the new graph and drawn it once
        # (its first paint works out the drawing order: 25 ms beside the first steps).
        self._go_soon = QTimer(self, singleShot=True, interval=FIRST_PAINT_MS)
        self._go_soon.timeout.connect(self._go_requested)
        self._build_soon = QTimer(self, singleShot=True, interval=0)
        self._build_soon.timeout.connect(self._on_build_soon_timeout)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)

    def stop(self) -> None:
        self.concept_map.stop()
        self._go_soon.stop()
        self._build_soon.stop()
        self._rebuild_timer.stop()
        self._save_requested.emit()
        self._thread.quit()
        self._thread.wait()

    @Slot(str, int, tuple)
    def set_scope(self, mode: str, depth: int, kinds: tuple[str, ...]) -> None:
        self.scope = (mode, depth, kinds)
        self._pause_requested.emit(self._user_paused or not self._stepping())
        self.concept_map.set_active(self.active and mode == CONCEPT_MAP)
        self.rebuild()

    @Slot(object)
    def set_filters(self, filters: GraphFilter) -> None:
        """Category, path, orphans and isolation (the kinds come with ``set_scope``)."""
        if filters != self.filters:
            self.filters = filters
            self.rebuild()

    @Slot(object)
    def set_forces(self, forces: Mapping[str, float]) -> None:
        """Force strengths by name (``Layout.set_forces``'s keywords); the others are kept."""
        self._forces_requested.emit(dict(forces))

    @Slot()
    def reset_layout(self) -> None:
        self._reset_requested.emit()

    @Slot(str, float, float)
    def drag_node(self, node: str, x: float, y: float) -> None:
        self._drag_requested.emit(node, x, y)

    @Slot(str)
    def release_node(self, node: str) -> None:
        self._release_requested.emit(node)

    def set_centre(self, node: str | None) -> None:
        """The open note (local mode follows it)."""
        if node != self.centre:
            self.centre = node
            if self.scope[0] == "local":
                self.rebuild()

    def set_active(self, active: bool) -> None:
        """The tab is shown: build the graph the first time, and step only while shown."""
        self.active = active
        self._pause_requested.emit(not self._stepping())
        self.concept_map.set_active(active and self.scope[0] == CONCEPT_MAP)
        if active:
            self.rebuild()

    @Slot(bool)
    def set_paused(self, paused: bool) -> None:
        self._user_paused = paused
        self._pause_requested.emit(paused or not self._stepping())

    def _stepping(self) -> bool:
        """The vault's graph is shown: its layout may step."""
        return self.active and self.scope[0] != CONCEPT_MAP

    @Slot()
    def rebuild(self) -> None:
        """Build the graph again on the job thread, once for all the calls of this turn of
        the event loop (opening the tab sets its scope, its filters and makes it active:
        three calls, one build)."""
        self._build_soon.start()

    @Slot()
    def _on_build_soon_timeout(self) -> None:
        if not self._stepping() or not self.model.ready:
            return
        index = self.model.index
        mode, depth, kinds = self.scope
        centre = self.centre
        filters = self.filters

        def build(_control: JobControl) -> Any:
            from ..core.graph.graphdata import (
                GraphFilter,
                global_graph,
                local_graph,
                with_main_component,
            )

            chosen = dataclasses.replace(filters or GraphFilter(), kinds=kinds)
            assert index is not None
            # Tag nodes decode every note's parse, kept with its record: 190,000 link
            # objects that each full collection walked (0.1-0.2 s, GIL held) until frozen.
            with gc_paused():
                if mode == "local" and centre is not None:
                    return with_main_component(local_graph(index, centre, depth, filters=chosen))
                return with_main_component(global_graph(index, filters=chosen))

        if self._build_job is not None:
            self._build_job.cancel()  # a newer graph is on its way
        self._build_job = self.model.submit(build, name="graph")
        self._build_job.finished.connect(self._on_build_job_finished)

    @Slot(object)
    def _on_build_job_finished(self, graph: object) -> None:
        self._load_requested.emit(graph)

    @Slot(object, object)
    def _on_stepper_loaded(self, graph: object, positions: object) -> None:
        self.graph_ready.emit(graph, positions)  # shown by the window's slots, then drawn
        self._go_soon.start()

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        self.rebuild()

    @Slot(object)
    def _on_model_index_updated(self, _update: object) -> None:
        self._rebuild_timer.start()  # nodes come and go without restarting the layout
