"""The graph canvas: nodes as one numpy-drawn layer, links and RELATED_TO edges as two
cached layers, labels on demand."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from .edges import SETTLE_MS, EdgeLayer
from .labels import HUBS, LabelLayer
from .nodes import NodeLayer, extent

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

KIND_COLOURS = {  # node kind → fill colour
    "note": (88, 140, 230),
    "concept": (236, 150, 40),
    "tag": (120, 180, 90),
    "unresolved": (160, 160, 160),
    "attachment": (170, 120, 200),
}
HOVER_RADIUS_PX = 12.0
# RELATED_TO edges: faint, under the links (a related pair that is linked shows as its link).
# Opaque, pre-mixed with the background like the links' grey; a live frame draws fewer of
# them than of the links, which matter more.
RELATED_COLOURS = {False: (210, 192, 238), True: (98, 80, 140)}  # by dark
RELATED_BUDGET = (4_000, 100_000.0)  # lines, pixels of length: ~5 ms
NODES_AT_FULL_SIZE = 1_500  # more nodes on screen: dots shrink, down to 0.4 of the size


class _GraphViewBox(pg.ViewBox):
    """A view box that lets the canvas take a click, and a left-button drag that starts on
    a node."""

    def __init__(self) -> None:
        # No context menu (its many widgets took a tenth of the first Ctrl+G).
        super().__init__(enableMenu=False)
        self.drag_handler: Callable[[object], bool] | None = None
        self.click_handler: Callable[[object], bool] | None = None

    def mouseDragEvent(self, ev: object, axis: int | None = None) -> None:
        if self.drag_handler is not None and self.drag_handler(ev):
            return
        super().mouseDragEvent(ev, axis)

    def mouseClickEvent(self, ev: object) -> None:
        if self.click_handler is not None and self.click_handler(ev):
            return
        super().mouseClickEvent(ev)


class GraphCanvas(pg.GraphicsView):
    """Nodes and edges of a graph, zoomable and pannable.

    Positions arrive from a layout running elsewhere (``set_positions``); the canvas only
    draws. Hovering a node highlights it and its neighbours and dims the rest; a click emits
    its id; dragging a node reports where it goes (the layout pins it). Names (see
    ``labels.place_labels``), never overlapping: the hovered node, its neighbours and the
    selected node first, then the rows given to ``set_label_priority``, the hubs, the ringed
    (isolated) nodes, then every node on screen by degree as the zoom gives it room.
    ``set_main`` marks the main component: ``fit`` frames it. ``set_related_edges`` gives
    the RELATED_TO pairs to draw as their own faint layer (``set_related_shown`` hides it);
    a hovered node's related neighbours stay bright and are named after its linked ones
    while it is shown.

    Signals:
        node_activated(str): the user clicked a node (its id).
        node_hovered(str): the pointer is over a node ("" when it leaves all of them).
        node_dragged(str, float, float): a node dragged with the left button, and its new
            position in graph coordinates (the view does not pan meanwhile).
        node_released(str): the drag of that node ended.
    """

    node_activated = Signal(str)
    node_hovered = Signal(str)
    node_dragged = Signal(str, float, float)
    node_released = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        self._background = (28, 30, 33) if dark else (250, 250, 248)
        super().__init__(parent, background=self._background)
        # A bare view box, not a plot: a plot's axes, buttons and menus, all hidden, took
        # 0.1 s to make on the first Ctrl+G.
        view = self._view = _GraphViewBox()
        self.setCentralItem(view)
        self.setAntialiasing(False)  # antialiased, the edges take twice as long to paint
        view.setAspectLocked(True)
        self._dark = dark
        self.ids: list[str] = []
        self.kinds: list[str] = []
        self.labels: list[str] = []
        self.edges: IntArray = np.empty((0, 2), np.int64)
        self.related_edges: IntArray = np.empty((0, 2), np.int64)  # rows of related pairs
        self.positions: FloatArray = np.empty((0, 2))
        self._index_of: Mapping[str, int] = {}
        self._neighbours = _Adjacency(0, np.empty((0, 2), np.int64))
        self._related_neighbours = _Adjacency(0, np.empty((0, 2), np.int64))
        self._by_degree: IntArray = np.empty(0, np.int64)
        self._priority: IntArray = np.empty(0, np.int64)
        self._main: BoolArray | None = None
        self._hovered = -1
        self._selected = -1
        self._dragging = -1
        self._colours: list[tuple[int, int, int]] | None = None
        self._fills = np.empty((0, 3), np.uint8)  # each node's colour, RGB
        self._rings: BoolArray | None = None
        self._highlight: BoolArray | None = None
        # Opaque, pre-mixed with the background: blending each pixel of 100,000 lines with
        # what is under it costs several times more than writing it.
        edge_colour = (66, 71, 79) if dark else (196, 199, 204)
        self._edge_layer = EdgeLayer(edge_colour, self)
        self._edge_layer.setZValue(0)
        self._related_layer = EdgeLayer(RELATED_COLOURS[dark], self, RELATED_BUDGET)
        self._related_layer.setZValue(-1)
        self._focus_edges = pg.PlotCurveItem(
            pen=pg.mkPen((255, 170, 0, 200), width=1.5), connect="pairs"
        )
        self._focus_edges.setZValue(1)
        self._focus_edges.setSegmentedLineMode("on")
        self._nodes = NodeLayer(self._background)
        self._nodes.setZValue(2)
        text = (230, 230, 230) if dark else (20, 20, 20)
        muted = (175, 178, 184) if dark else (70, 72, 76)
        self._labels = LabelLayer(text, muted, self._background)
        self._labels.setZValue(3)
        for graphics in (self._related_layer, self._edge_layer, self._focus_edges, self._nodes):
            view.addItem(graphics)
        view.addItem(self._labels, ignoreBounds=True)
        self._sizes = np.empty(0)
        self._full_sizes = np.empty(0)
        self._shrink = 1.0
        self._halted = False
        self._label_timer = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._label_timer.timeout.connect(self._refresh_sizes)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        view.drag_handler = self._on_view_drag
        view.click_handler = self._on_view_click
        view.sigTransformChanged.connect(self._on_view_changed)
        view.sigResized.connect(self._on_view_changed)

    def view_box(self) -> pg.ViewBox:
        """The view box holding the graph's items (its range is the camera)."""
        return self._view

    # ------------------------------------------------------------ data

    def set_graph(
        self,
        ids: Sequence[str],
        kinds: Sequence[str],
        labels: Sequence[str],
        edges: IntArray,
        positions: FloatArray,
        *,
        fit: bool = True,
        draw_edges: IntArray | None = None,
        rows: Mapping[str, int] | None = None,
    ) -> None:
        """A new graph: ids, their kinds and labels, (M, 2) edges as row pairs, positions.
        ``draw_edges``: the same edges in ``graphdata.draw_order``, if made already;
        ``rows``: each id's row, if made already.
        ``fit=False`` keeps the camera (the same graph, changed). Per-node colours, rings,
        highlights and RELATED_TO edges are cleared: they belong to rows of the previous
        graph."""
        keep = self.ids[self._selected] if 0 <= self._selected < len(self.ids) else None
        self.ids, self.kinds, self.labels = list(ids), list(kinds), list(labels)
        if rows is not None and len(rows) == len(self.ids):
            self._index_of = rows
        else:
            self._index_of = dict(zip(self.ids, range(len(self.ids)), strict=True))
        self.edges = np.asarray(edges, np.int64).reshape(-1, 2)
        count = len(self.ids)
        degree = np.bincount(self.edges.ravel(), minlength=count) if count else np.zeros(0)
        self._full_sizes = 4.0 + 2.0 * np.sqrt(np.asarray(degree, np.float64))
        self._shrink = _shrink(count)
        self._sizes = self._shrunk_sizes()
        self._by_degree = np.argsort(-np.asarray(degree), kind="stable")
        self._colours = None
        self._rings = None
        self._highlight = None
        self._main = None
        self._priority = np.empty(0, np.int64)
        self._fills = _kind_fills(self.kinds)
        self._neighbours = _Adjacency(count, self.edges)
        self.related_edges = np.empty((0, 2), np.int64)
        self._related_neighbours = _Adjacency(count, self.related_edges)
        self._related_layer.set_edges(self.related_edges)
        self._hovered = self._selected = self._dragging = -1
        self._labels.set_labels(self.labels, self._by_degree)
        self._focus_edges.setData([], [])
        self.positions = np.empty((0, 2))
        self._nodes.set_positions(self.positions)  # nothing drawn from the old graph's rows
        self._apply_style()
        if draw_edges is None:
            self._edge_layer.set_edges(self.edges)
        else:
            self._edge_layer.set_edges(np.asarray(draw_edges, np.int64), shuffled=True)
        self.set_positions(positions)
        if keep is not None:
            self.select(keep)
        if fit:
            self.fit()

    def set_positions(self, positions: FloatArray) -> None:
        """New positions for the same nodes (a layout step)."""
        self.positions = np.asarray(positions, np.float64).reshape(-1, 2)
        pos = self.positions
        span = extent(pos)
        self._nodes.set_positions(pos, span)
        self._edge_layer.set_positions(pos, span)
        self._related_layer.set_positions(pos, span)
        self._labels.set_positions(pos, span)
        self._refresh_labels()
        if not self._halted:
            self._label_timer.start()

    def set_related_edges(self, edges: IntArray) -> None:
        """The RELATED_TO pairs to draw, as (K, 2) rows of this graph (drawn as one faint
        layer, cached like the links)."""
        self.related_edges = np.asarray(edges, np.int64).reshape(-1, 2)
        self._related_neighbours = _Adjacency(len(self.ids), self.related_edges)
        self._related_layer.set_edges(self.related_edges)
        self._refresh_focus()

    def set_related_shown(self, shown: bool) -> None:
        """Draw the RELATED_TO layer or hide it (its edges are kept)."""
        if shown == self._related_layer.isVisible():
            return
        self._related_layer.setVisible(shown)
        if shown:
            self._related_layer.moved()  # drawn live now, its image once the view rests
        else:
            self._related_layer.stop()
        self._refresh_focus()

    def related_shown(self) -> bool:
        return bool(self._related_layer.isVisible())

    def set_node_colours(self, colours: Sequence[tuple[int, int, int]] | None) -> None:
        """Fill colours per node in row order; None: colours by kind again."""
        if colours is not None and len(colours) != len(self.ids):
            raise ValueError(f"{len(colours)} colours for {len(self.ids)} nodes")
        new = None if colours is None else [(int(r), int(g), int(b)) for r, g, b in colours]
        if new == self._colours:
            return  # the same colours again (every graph change re-sends them): nothing to set
        self._colours = new
        if new is None:
            self._fills = _kind_fills(self.kinds)
        else:
            self._fills = np.array(new, np.uint8).reshape(-1, 3)
        self._refresh_focus()

    def set_rings(self, mask: BoolArray | None) -> None:
        """Nodes drawn with a ring (isolated concepts), as a bool mask in row order: they
        are named whenever there is room."""
        self._rings = None if mask is None else self._checked_mask(mask)
        self._apply_style()
        self._refresh_labels()

    def set_main(self, mask: BoolArray | None) -> None:
        """The main component's rows (a bool mask): ``fit`` frames them; None: every node."""
        self._main = None if mask is None else self._checked_mask(mask)

    def set_label_priority(self, rows: Sequence[int]) -> None:
        """Rows named before the hubs (after the hovered and selected node)."""
        self._priority = np.asarray(rows, np.int64).reshape(-1)
        self._refresh_labels()

    def labelled(self) -> list[str]:
        """The names drawn by the last paint, in the order they were placed."""
        return [self.labels[i] for i in self._labels.rows.tolist()]

    def label_boxes(self) -> list[tuple[float, float, float, float]]:
        """Each drawn name's box (left, top, width, height) in the viewport's pixels."""
        return [(a, b, c, d) for a, b, c, d in self._labels.boxes.tolist()]

    def label_place_seconds(self) -> list[float]:
        """How long each recent label placement took (benchmarks)."""
        return list(self._labels.place_seconds)

    def set_highlight(self, mask: BoolArray | None) -> None:
        """Nodes matching a filter stay bright and the rest are dimmed; None: all bright."""
        self._highlight = None if mask is None else self._checked_mask(mask)
        self._refresh_focus()

    def dimmed(self) -> BoolArray:
        """Which nodes are drawn faint now: all but the hovered node and its neighbours while
        one is hovered, else all but the filter's matches, else none."""
        count = len(self.ids)
        if self._hovered >= 0:
            dim = np.ones(count, bool)
            dim[self._hovered] = False
            dim[self._neighbours[self._hovered]] = False
            if self._related_layer.isVisible() and len(self.related_edges):
                dim[self._related_neighbours[self._hovered]] = False
            return dim
        if self._highlight is not None:
            return ~self._highlight
        return np.zeros(count, bool)

    def fit(self) -> None:
        """Frame the main component (``set_main``), else every node."""
        if not len(self.positions):
            return
        main = self._main
        if main is None or int(main.sum()) < 2 or len(main) != len(self.positions):
            self._view.autoRange(padding=0.12)  # room for the labels at the edges
            return
        self._view.setRange(extent(self.positions[main]), padding=0.12)

    def select(self, node: str) -> None:
        self._selected = self._index_of.get(node, -1)
        self._refresh_labels()

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        super().mousePressEvent(ev)
        ev.accept()  # the canvas handles every press (pan, drag, click): none goes up

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        super().mouseReleaseEvent(ev)
        ev.accept()

    def halt(self) -> None:
        """The window closes: the redraws waiting for the camera to rest are dropped, and
        nothing that moves the camera or the positions after starts one again."""
        self._halted = True
        self._label_timer.stop()
        self._edge_layer.stop(halt=True)
        self._related_layer.stop(halt=True)

    def close(self) -> bool:
        # pyqtgraph's close() deletes the scene's items: no timer may reach them after.
        self.halt()
        return bool(super().close())

    # ------------------------------------------------------------ export

    def export_png(self, path: str) -> bool:
        """The current view, every edge drawn, as a PNG of the widget's size."""
        self._set_exporting(True, shapes=False)
        try:
            image = self.grab()
        finally:
            self._set_exporting(False, shapes=False)
        return image.save(path, "PNG")

    def export_svg(self, path: str) -> bool:
        """The current view as SVG: edges as one path, nodes as vector shapes."""
        view = self.viewport()
        target = QRectF(view.rect())
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(view.size())
        generator.setViewBox(QRect(0, 0, view.width(), view.height()))
        generator.setTitle("Librarian graph")
        painter = QPainter()
        if not painter.begin(generator):
            return False
        self._set_exporting(True)
        try:
            painter.fillRect(target, QColor(*self._background))
            source = self.mapToScene(view.rect()).boundingRect()
            self.scene().render(painter, target, source)
        finally:
            self._set_exporting(False)
            painter.end()
        return True

    def _set_exporting(self, on: bool, *, shapes: bool = True) -> None:
        """Every edge drawn (as one path each layer) while an export paints; ``shapes``:
        the nodes as vector shapes too (SVG)."""
        self._edge_layer.exporting = on
        self._related_layer.exporting = on
        if shapes:
            self._nodes.exporting = on

    # ------------------------------------------------------------ hover, click, drag

    def node_at(self, scene_pos: QPointF) -> int:
        """The node under a scene position (within a few pixels), or -1."""
        if not len(self.positions):
            return -1
        view = self._view
        point = view.mapSceneToView(scene_pos)
        scale = view.viewPixelSize()[0]
        delta = self.positions - np.array([point.x(), point.y()])
        dist = np.hypot(delta[:, 0], delta[:, 1])
        best = int(np.argmin(dist))
        return best if dist[best] <= HOVER_RADIUS_PX * scale else -1

    def _on_scene_mouse_moved(self, scene_pos: QPointF) -> None:
        if self._dragging >= 0:
            return
        found = self.node_at(scene_pos)
        if found != self._hovered:
            self._hovered = found
            self._refresh_focus()
            self.node_hovered.emit(self.ids[found] if found >= 0 else "")

    def _on_view_click(self, ev: object) -> bool:
        """A left click on a node selects it and says so; elsewhere the view box has it."""
        if ev.button() != Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            return False
        index = self.node_at(ev.scenePos())  # type: ignore[attr-defined]
        if index < 0:
            return False
        ev.accept()  # type: ignore[attr-defined]
        self._selected = index
        self._refresh_focus()
        self.node_activated.emit(self.ids[index])
        return True

    def _on_view_drag(self, ev: object) -> bool:
        """A left-button drag that starts on a node moves the node, not the view."""
        if ev.button() != Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            return False
        if ev.isStart():  # type: ignore[attr-defined]
            self._dragging = self.node_at(ev.buttonDownScenePos())  # type: ignore[attr-defined]
        index = self._dragging
        if index < 0:
            return False
        ev.accept()  # type: ignore[attr-defined]
        point = self._view.mapSceneToView(ev.scenePos())  # type: ignore[attr-defined]
        moved = self.positions.copy()
        moved[index] = (point.x(), point.y())
        self.set_positions(moved)  # follow the pointer before the layout answers
        node = self.ids[index]
        self.node_dragged.emit(node, point.x(), point.y())
        if ev.isFinish():  # type: ignore[attr-defined]
            self._dragging = -1
            self.node_released.emit(node)
        return True

    def _on_view_changed(self, *_args: object) -> None:
        self._edge_layer.moved()
        self._related_layer.moved()
        if not self._halted:
            self._label_timer.start()

    # ------------------------------------------------------------ drawing state

    def _checked_mask(self, mask: BoolArray) -> BoolArray:
        mask = np.asarray(mask, bool).ravel()
        if len(mask) != len(self.ids):
            raise ValueError(f"a mask of {len(mask)} for {len(self.ids)} nodes")
        return mask

    def _apply_style(self) -> None:
        """Hand the node layer each node's colour, size, faintness and ring (numpy only:
        cheap enough for every hover)."""
        count = len(self.ids)
        rings = self._rings if self._rings is not None else np.zeros(count, bool)
        diameters = np.maximum(np.rint(self._sizes), 2).astype(np.int64)
        self._nodes.set_style(self._fills, diameters, self.dimmed(), rings)

    def _refresh_focus(self) -> None:
        self._apply_style()
        self._refresh_labels()

    def _refresh_labels(self) -> None:
        count = len(self.ids)
        focus = [i for i in (self._hovered, self._selected) if 0 <= i < count]
        parts = [self._priority[self._priority < count]]
        if self._hovered >= 0:
            near = self._neighbours[self._hovered]
            parts.insert(0, near[np.argsort(-self._full_sizes[near], kind="stable")])
            if self._related_layer.isVisible() and len(self.related_edges):
                parts.insert(1, self._related_neighbours[self._hovered])  # after the linked
        parts.append(self._by_degree[:HUBS])
        if self._rings is not None:
            parts.append(np.flatnonzero(self._rings))
        forced = np.concatenate([np.asarray(part, np.int64) for part in parts])
        self._labels.set_focus(focus, forced, np.maximum(np.rint(self._sizes), 2) / 2)
        if self._hovered >= 0 and len(self.edges):
            mask = (self.edges[:, 0] == self._hovered) | (self.edges[:, 1] == self._hovered)
            pairs = self.positions[self.edges[mask].ravel()]
            self._focus_edges.setData(pairs[:, 0], pairs[:, 1])
        elif self._focus_edges.xData is not None and len(self._focus_edges.xData):
            self._focus_edges.setData([], [])

    def _shrunk_sizes(self) -> FloatArray:
        return np.maximum(self._shrink * self._full_sizes, 2.5)

    def _refresh_sizes(self) -> None:
        """Dot sizes for the number of nodes on screen (the camera has come to rest)."""
        view = self._view
        (x0, x1), (y0, y1) = view.viewRange()
        pos = self.positions
        inside = (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)
        shrink = _shrink(int(inside.sum()))
        if shrink != self._shrink:
            self._shrink = shrink
            self._sizes = self._shrunk_sizes()
            self._refresh_focus()


def _shrink(visible: int) -> float:
    """Thousands of full-size dots on screen make one blob: smaller dots, in a few steps
    (each change redraws every dot)."""
    wanted = np.sqrt(NODES_AT_FULL_SIZE / max(visible, 1))
    return next((step for step in (1.0, 0.75, 0.55) if wanted >= step), 0.4)


class _Adjacency:
    """Each node's neighbours (either direction), as one sorted array and row bounds: a list
    of 23,000 small arrays took 0.16 s of the GUI thread to build; a row is sliced on hover."""

    def __init__(self, count: int, edges: IntArray) -> None:
        self._count = count
        self._edges = edges
        self._others: IntArray | None = None  # built on the first hover, not on load
        self._bounds: IntArray | None = None

    def __getitem__(self, row: int) -> IntArray:
        if self._others is None or self._bounds is None:
            edges = self._edges
            both = np.concatenate([edges, edges[:, ::-1]]) if len(edges) else edges
            both = both.reshape(-1, 2)[np.argsort(both.reshape(-1, 2)[:, 0], kind="stable")]
            self._others = both[:, 1]
            self._bounds = np.searchsorted(both[:, 0], np.arange(self._count + 1))
        return self._others[self._bounds[row] : self._bounds[row + 1]]

    def __len__(self) -> int:
        return self._count


def _kind_fills(kinds: Sequence[str]) -> npt.NDArray[np.uint8]:
    """Each node's fill by its kind, as (N, 3) RGB."""
    table = {kind: i for i, kind in enumerate(KIND_COLOURS)}
    palette = np.array([*KIND_COLOURS.values(), (128, 128, 128)], np.uint8)
    table.update(dict.fromkeys(set(kinds) - set(table), len(KIND_COLOURS)))  # unknown: grey
    rows = np.fromiter(map(table.__getitem__, kinds), np.int64, len(kinds))  # no Python loop
    return palette[rows]


def colour_of(kind: str) -> QColor:
    return QColor(*KIND_COLOURS.get(kind, (128, 128, 128)))
