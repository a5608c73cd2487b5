"""The graph canvas: every node as one scatter item, every edge in one path, labels on demand."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

KIND_COLOURS = {  # node kind → fill colour
    "note": (88, 140, 230),
    "concept": (236, 150, 40),
    "tag": (120, 180, 90),
    "unresolved": (160, 160, 160),
    "attachment": (170, 120, 200),
}
HOVER_RADIUS_PX = 12.0


class GraphCanvas(pg.PlotWidget):
    """Nodes and edges of a graph, zoomable and pannable.

    Positions arrive from a layout running elsewhere (``set_positions``); the canvas only
    draws. Hovering a node highlights it and its neighbours and dims the rest; a click emits
    its id. Only the hovered and the selected node get a label.

    Signals:
        node_activated(str): the user clicked a node (its id).
        node_hovered(str): the pointer is over a node ("" when it leaves all of them).
    """

    node_activated = Signal(str)
    node_hovered = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        super().__init__(parent, background=(28, 30, 33) if dark else (250, 250, 248))
        self.setAntialiasing(False)  # TRAPS: antialiasing doubles the cost of the edges
        item = self.getPlotItem()
        item.hideAxis("left")
        item.hideAxis("bottom")
        item.setMenuEnabled(False)
        item.hideButtons()
        self.setAspectLocked(True)
        self._dark = dark
        self.ids: list[str] = []
        self.kinds: list[str] = []
        self.labels: list[str] = []
        self.edges: IntArray = np.empty((0, 2), np.int64)
        self.positions: FloatArray = np.empty((0, 2))
        self._index_of: dict[str, int] = {}
        self._neighbours: list[IntArray] = []
        self._hovered = -1
        self._selected = -1
        # Opaque, pre-mixed with the background: blending each pixel of 100,000 lines with
        # what is under it costs several times more than writing it.
        edge_colour = (62, 65, 70) if dark else (214, 214, 212)
        self._edge_item = pg.PlotCurveItem(pen=pg.mkPen(edge_colour, width=1), connect="pairs")
        self._edge_item.setZValue(0)
        self._edge_item.setSegmentedLineMode("on")  # drawLines: far cheaper than one path
        self._focus_edges = pg.PlotCurveItem(
            pen=pg.mkPen((255, 170, 0, 200), width=1.5), connect="pairs"
        )
        self._focus_edges.setZValue(1)
        self._focus_edges.setSegmentedLineMode("on")
        self._nodes = pg.ScatterPlotItem(pxMode=True, pen=None)
        self._nodes.setZValue(2)
        self._label = pg.TextItem(color=(230, 230, 230) if dark else (20, 20, 20), anchor=(0, 1))
        self._label.setZValue(3)
        self._select_label = pg.TextItem(
            color=(230, 230, 230) if dark else (20, 20, 20), anchor=(0, 1)
        )
        self._select_label.setZValue(3)
        for graphics in (
            self._edge_item,
            self._focus_edges,
            self._nodes,
            self._label,
            self._select_label,
        ):
            self.addItem(graphics)
        self._sizes = np.empty(0)
        self._brushes: list[object] = []
        self._dim_brushes: list[object] = []
        self._nodes.sigClicked.connect(self._on_nodes_clicked)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)

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
    ) -> None:
        """A new graph: ids, their kinds and labels, (M, 2) edges as row pairs, positions.
        ``fit=False`` keeps the camera (the same graph, changed)."""
        keep = self.ids[self._selected] if 0 <= self._selected < len(self.ids) else None
        self.ids, self.kinds, self.labels = list(ids), list(kinds), list(labels)
        self._index_of = {node: i for i, node in enumerate(self.ids)}
        self.edges = np.asarray(edges, np.int64).reshape(-1, 2)
        degree = np.bincount(self.edges.ravel(), minlength=len(self.ids)) if len(self.ids) else []
        self._sizes = 4.0 + 2.0 * np.sqrt(np.asarray(degree, np.float64))
        self._brushes = [pg.mkBrush(*KIND_COLOURS.get(k, (128, 128, 128)), 230) for k in kinds]
        self._dim_brushes = [pg.mkBrush(*KIND_COLOURS.get(k, (128, 128, 128)), 50) for k in kinds]
        self._neighbours = _adjacency(len(self.ids), self.edges)
        self._hovered = self._selected = -1
        self._label.setText("")
        self._select_label.setText("")
        self._focus_edges.setData([], [])
        self.set_positions(positions)
        if keep is not None:
            self.select(keep)
        if fit:
            self.fit()

    def set_positions(self, positions: FloatArray) -> None:
        """New positions for the same nodes (a layout step)."""
        self.positions = np.asarray(positions, np.float64).reshape(-1, 2)
        pos = self.positions
        spots = self._nodes.data
        if len(spots) == len(pos) and len(pos):
            # Same nodes, new places: move the spots in place. setData would rebuild every
            # spot (brushes, sizes, symbols): ten times the cost of a frame.
            spots["x"] = pos[:, 0]
            spots["y"] = pos[:, 1]
            self._nodes.prepareGeometryChange()
            self._nodes.bounds = [None, None]
            self._nodes.informViewBoundsChanged()
            self._nodes.update()
        else:
            self._nodes.setData(
                pos=pos, size=self._sizes, brush=self._current_brushes(), data=np.arange(len(pos))
            )
        if len(self.edges):
            pairs = pos[self.edges.ravel()]
            self._edge_item.setData(pairs[:, 0], pairs[:, 1])
        else:
            self._edge_item.setData([], [])
        self._refresh_labels()

    def fit(self) -> None:
        if len(self.positions):
            self.getPlotItem().getViewBox().autoRange(padding=0.05)

    def select(self, node: str) -> None:
        self._selected = self._index_of.get(node, -1)
        self._refresh_focus()

    # ------------------------------------------------------------ hover and click

    def node_at(self, scene_pos: QPointF) -> int:
        """The node under a scene position (within a few pixels), or -1."""
        if not len(self.positions):
            return -1
        view = self.getPlotItem().getViewBox()
        point = view.mapSceneToView(scene_pos)
        scale = view.viewPixelSize()[0]
        delta = self.positions - np.array([point.x(), point.y()])
        dist = np.hypot(delta[:, 0], delta[:, 1])
        best = int(np.argmin(dist))
        return best if dist[best] <= HOVER_RADIUS_PX * scale else -1

    def _on_scene_mouse_moved(self, scene_pos: QPointF) -> None:
        found = self.node_at(scene_pos)
        if found != self._hovered:
            self._hovered = found
            self._refresh_focus()
            self.node_hovered.emit(self.ids[found] if found >= 0 else "")

    def _on_nodes_clicked(self, _item: object, points: Sequence[object], _event: object) -> None:
        if len(points):
            index = int(points[0].data())  # type: ignore[attr-defined]
            self._selected = index
            self._refresh_focus()
            self.node_activated.emit(self.ids[index])

    def _current_brushes(self) -> list[object]:
        if self._hovered < 0:
            return self._brushes
        keep = {self._hovered, *self._neighbours[self._hovered].tolist()}
        return [
            b if i in keep else d
            for i, (b, d) in enumerate(zip(self._brushes, self._dim_brushes, strict=True))
        ]

    def _refresh_focus(self) -> None:
        self._nodes.setBrush(self._current_brushes())
        self._refresh_labels()

    def _refresh_labels(self) -> None:
        for index, label in ((self._hovered, self._label), (self._selected, self._select_label)):
            if 0 <= index < len(self.positions):
                label.setText(self.labels[index])
                label.setPos(*self.positions[index])
            else:
                label.setText("")
        if self._hovered >= 0 and len(self.edges):
            mask = (self.edges[:, 0] == self._hovered) | (self.edges[:, 1] == self._hovered)
            pairs = self.positions[self.edges[mask].ravel()]
            self._focus_edges.setData(pairs[:, 0], pairs[:, 1])
        else:
            self._focus_edges.setData([], [])


def _adjacency(count: int, edges: IntArray) -> list[IntArray]:
    """Each node's neighbours (either direction), from the edge pairs."""
    if not count:
        return []
    both = np.concatenate([edges, edges[:, ::-1]]) if len(edges) else np.empty((0, 2), np.int64)
    order = np.argsort(both[:, 0], kind="stable")
    both = both[order]
    bounds = np.searchsorted(both[:, 0], np.arange(count + 1))
    return [both[bounds[i] : bounds[i + 1], 1] for i in range(count)]


def colour_of(kind: str) -> QColor:
    return QColor(*KIND_COLOURS.get(kind, (128, 128, 128)))
