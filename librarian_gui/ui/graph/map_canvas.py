"""The concept map's canvas: concepts as dots sized by the notes they are found in, edges as
a few lines by strength, labels placed each paint so that none overlaps another."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QStaticText
from PySide6.QtWidgets import QGraphicsItem, QWidget

from .nodes import NodeLayer, extent

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

HOVER_RADIUS_PX = 12.0
HUBS = 8
STRENGTHS = 3  # edges drawn in this many widths, weakest to strongest
LABEL_CELL_PX = 64  # the grid placed labels are filed in, to find a label's neighbours
FIT_LABEL_PX = 130  # room left for labels beyond the rightmost concept when fitting


class _Labels(pg.GraphicsObject):
    """Text beside chosen nodes, in pixels whatever the zoom. Each paint places them in
    order (``order``: row, text, bright) and skips one that would overlap one placed before
    it, unless it is ``always`` (placed anyway)."""

    def __init__(self, colour: tuple[int, int, int], faint: tuple[int, int, int]) -> None:
        super().__init__()
        self._pen = QColor(*colour)
        self._faint = QColor(*faint)
        self.font = QFont()
        self.font.setPointSizeF(8.5)
        self._metrics = QFontMetricsF(self.font)
        self.positions: FloatArray = np.empty((0, 2))
        self.order: list[tuple[int, str, bool, bool]] = []  # row, text, bright, always
        self._static: dict[str, tuple[QStaticText, float]] = {}
        self.placed: list[int] = []  # the rows labelled at the current zoom
        self._placed_for: tuple[float, float, int, int] | None = None
        self._drawn: list[tuple[QStaticText, bool]] = []
        self._boxes = np.empty((0, 4))
        self.diameters: npt.NDArray[np.int64] | None = None

    def set_labels(
        self,
        positions: FloatArray,
        order: list[tuple[int, str, bool, bool]],
        diameters: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """``order`` as the class says; ``diameters``: each node's dot in pixels, which no
        label is placed on."""
        self.prepareGeometryChange()
        self.positions = positions
        self.order = order
        self.diameters = diameters
        self.update()

    def boundingRect(self) -> QRectF:
        view = self.getViewBox()
        return QRectF() if view is None else view.viewRect()

    def _text(self, text: str) -> tuple[QStaticText, float]:
        found = self._static.get(text)
        if found is None:
            static = QStaticText(text)
            static.prepare(font=self.font)
            found = self._static[text] = (static, self._metrics.horizontalAdvance(text))
        return found

    def paint(self, p: QPainter, *_args: object) -> None:
        if not self.order or not len(self.positions):
            self.placed = []
            return
        t = p.transform()
        # Placed in pixels from the view's origin: panning moves them all alike, so the
        # placement holds until the zoom or the labels change (placing a thousand labels
        # took 50 ms: every frame of a pan, it kept the map under 20 frames/s).
        key = (_rounded(t.m11()), _rounded(t.m22()), id(self.order), id(self.positions))
        if key != self._placed_for:
            self._placed_for = key
            self._place(t.m11(), t.m22())
        boxes = self._boxes
        window = p.window()
        x0, y0 = -t.dx(), -t.dy()
        seen = (
            (boxes[:, 2] > x0)
            & (boxes[:, 0] < x0 + window.width())
            & (boxes[:, 3] > y0)
            & (boxes[:, 1] < y0 + window.height())
        )
        p.resetTransform()
        p.setFont(self.font)
        dx, dy = t.dx(), t.dy()
        for k in np.flatnonzero(seen).tolist():
            static, bright = self._drawn[k]
            p.setPen(self._pen if bright else self._faint)
            p.drawStaticText(QPointF(boxes[k, 0] + dx, boxes[k, 1] + dy), static)

    def _place(self, sx: float, sy: float) -> None:
        """Each label's box in pixels from the view's origin, in ``order``, skipping those
        that would overlap one placed before (unless ``always``)."""
        rows = np.array([row for row, _t, _b, _a in self.order], np.int64)
        xs = (self.positions[rows, 0] * sx).tolist()
        ys = (self.positions[rows, 1] * sy).tolist()
        line = self._metrics.height()
        taken = _Boxes()
        if self.diameters is not None:  # the dots first: a label never covers one
            half = self.diameters / 2.0
            dot_x = self.positions[:, 0] * sx
            dot_y = self.positions[:, 1] * sy
            for x, y, r in zip(dot_x.tolist(), dot_y.tolist(), half.tolist(), strict=True):
                taken.add((x - r, y - r, x + r, y + r))
        placed: list[int] = []
        drawn: list[tuple[QStaticText, bool]] = []
        boxes: list[tuple[float, float, float, float]] = []
        radii = (
            [4.0] * len(self.positions) if self.diameters is None else (self.diameters / 2).tolist()
        )
        for (row, text, bright, always), x, y in zip(self.order, xs, ys, strict=True):
            static, advance = self._text(text)
            # Right of the dot, else left, below, above: the first spot that is free.
            r = radii[row] + 4
            spots = (
                (x + r, y - line / 2),
                (x - r - advance, y - line / 2),
                (x - advance / 2, y + r - 1),
                (x - advance / 2, y - r + 1 - line),
            )
            chosen: tuple[float, float, float, float] | None = None
            for left, top in spots:
                box = (left, top, left + advance, top + line)
                if taken.free(box):
                    chosen = box
                    break
                if always and chosen is None:
                    chosen = box  # drawn even where nothing is free
            if chosen is None:
                continue
            taken.add(chosen)
            placed.append(row)
            drawn.append((static, bright))
            boxes.append(chosen)
        self.placed = placed
        self._drawn = drawn
        self._boxes = np.array(boxes, np.float64).reshape(-1, 4)


def _rounded(scale: float) -> float:
    """A zoom factor to six figures: a pan recomputes the view's transform, and its scale
    comes back different in the last bits."""
    return float(f"{scale:.6g}")


class _Boxes:
    """Rectangles placed so far, found by the grid cells they cover (a label is checked
    against its neighbours only, not against every label placed)."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    @staticmethod
    def _cells_of(box: tuple[float, float, float, float]) -> list[tuple[int, int]]:
        c = LABEL_CELL_PX
        return [
            (cx, cy)
            for cx in range(int(box[0] // c), int(box[2] // c) + 1)
            for cy in range(int(box[1] // c), int(box[3] // c) + 1)
        ]

    def free(self, box: tuple[float, float, float, float]) -> bool:
        left, top, right, bottom = box
        for cell in self._cells_of(box):
            for b in self._cells.get(cell, ()):
                if b[0] < right and left < b[2] and b[1] < bottom and top < b[3]:
                    return False
        return True

    def add(self, box: tuple[float, float, float, float]) -> None:
        for cell in self._cells_of(box):
            self._cells.setdefault(cell, []).append(box)


class _MapViewBox(pg.ViewBox):
    """A view box that lets the canvas take a click first."""

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.click_handler: Callable[[object], bool] | None = None

    def mouseClickEvent(self, ev: object) -> None:
        if self.click_handler is not None and self.click_handler(ev):
            return
        super().mouseClickEvent(ev)


class MapCanvas(pg.GraphicsView):
    """The concept map's nodes, edges and labels, zoomable and pannable.

    Hovering a concept lights it and the concepts it shares notes with (``partners``), each
    labelled with the notes shared; a click emits its row.

    Signals:
        node_clicked(int): the row of the concept clicked.
        node_hovered(int): the row under the pointer (-1 when it leaves them all).
    """

    node_clicked = Signal(int)
    node_hovered = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        background = (28, 30, 33) if dark else (250, 250, 248)
        super().__init__(parent, background=background)
        view = self._view = _MapViewBox()
        view.click_handler = self._on_view_click
        view.setAspectLocked(True)
        self.setCentralItem(view)
        self.setAntialiasing(True)  # a thousand lines at most: smooth ones are affordable
        edge = (110, 116, 126) if dark else (150, 156, 166)
        self._edge_items: list[pg.PlotCurveItem] = []
        for strength in range(STRENGTHS):
            alpha = (70, 130, 210)[strength]
            width = (0.8, 1.6, 2.8)[strength]
            item = pg.PlotCurveItem(pen=pg.mkPen((*edge, alpha), width=width), connect="pairs")
            item.setSegmentedLineMode("on")
            item.setZValue(0)
            # Drawn once per zoom and data, then moved as a pixmap: 3,000 long translucent
            # lines of a dense map took 35 ms a frame, panning ran at 20-30 frames/s.
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            view.addItem(item)
            self._edge_items.append(item)
        self._focus = pg.PlotCurveItem(pen=pg.mkPen((255, 150, 0, 220), width=2), connect="pairs")
        self._focus.setSegmentedLineMode("on")
        self._focus.setZValue(1)
        view.addItem(self._focus)
        self._nodes = NodeLayer(background)
        self._nodes.setZValue(2)
        view.addItem(self._nodes)
        text = (230, 230, 230) if dark else (25, 25, 25)
        faint = (120, 124, 130) if dark else (150, 152, 156)
        self.labels = _Labels(text, faint)
        self.labels.setZValue(3)
        view.addItem(self.labels)
        self._caption = pg.TextItem(color=faint, anchor=(0, 1))
        self._caption.setZValue(3)
        view.addItem(self._caption)
        self.names: list[str] = []
        self.positions: FloatArray = np.empty((0, 2))
        self._fills = np.empty((0, 3), np.uint8)
        self._diameters = np.empty(0, np.int64)
        self._rings = np.empty(0, bool)
        self._faint = np.empty(0, bool)
        self._always = np.empty(0, bool)
        self._by_size: list[int] = []
        self._edges = np.empty((0, 2), np.int64)
        self._partners: Callable[[int], list[tuple[int, int]]] = lambda _row: []
        self._lit: list[tuple[int, int]] = []  # the hovered concept's partners
        self.hovered = -1
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)

    def view_box(self) -> pg.ViewBox:
        return self._view

    # ------------------------------------------------------------ data

    def set_map(
        self,
        names: Sequence[str],
        positions: FloatArray,
        diameters: IntArray,
        fills: npt.NDArray[np.uint8],
        *,
        ringed: BoolArray,
        faint: BoolArray,
        partners: Callable[[int], list[tuple[int, int]]],
        caption: tuple[str, float, float] | None = None,
    ) -> None:
        """The concepts: names, positions, their dots' diameters in pixels, RGB fills, which
        are ringed (and always labelled), drawn faint, and each one's partners (row, notes
        shared, most first: asked for on hover); ``caption``: a text and where it goes (over
        the never-linked block)."""
        self.names = list(names)
        self.positions = np.asarray(positions, np.float64).reshape(-1, 2)
        self._diameters = np.asarray(diameters, np.int64)
        self._fills = np.asarray(fills, np.uint8).reshape(-1, 3)
        self._rings = np.asarray(ringed, bool)
        self._faint = np.asarray(faint, bool)
        self._always = self._rings.copy()
        self._by_size = np.argsort(-self._diameters, kind="stable").tolist()
        self._partners = partners
        self._lit = []
        self.hovered = -1
        self._focus.setData([], [])
        self._nodes.set_positions(self.positions, extent(self.positions))
        if caption is None:
            self._caption.setText("")
        else:
            self._caption.setText(caption[0])
            self._caption.setPos(caption[1], caption[2])
        self._refresh()

    def set_edges(self, edges: IntArray, strength: FloatArray) -> None:
        """The edges shown, (M, 2) rows, each with a strength from 0 to 1 (its line)."""
        self._edges = np.asarray(edges, np.int64).reshape(-1, 2)
        strength = np.asarray(strength, np.float64)
        buckets = np.minimum((strength * STRENGTHS).astype(np.int64), STRENGTHS - 1)
        for bucket, item in enumerate(self._edge_items):
            pairs = self.positions[self._edges[buckets == bucket].ravel()]
            item.setData(pairs[:, 0], pairs[:, 1]) if len(pairs) else item.setData([], [])

    def drawn_edges(self) -> int:
        """How many edges the lines draw now."""
        return sum(0 if i.xData is None else len(i.xData) // 2 for i in self._edge_items)

    def fit(self) -> None:
        """Frame every concept, with room for the labels right of the rightmost."""
        if not len(self.positions):
            return
        view = self._view
        view.autoRange(padding=0.06)
        (x0, x1), (y0, y1) = view.viewRange()
        pixel = view.viewPixelSize()[0]
        room = (x0 - FIT_LABEL_PX / 3 * pixel, x1 + FIT_LABEL_PX * pixel)
        view.setRange(xRange=room, yRange=(y0, y1), padding=0)

    def dimmed(self) -> BoolArray:
        """The dots drawn faint now: all but the hovered concept and its partners while one
        is hovered, else the never-linked."""
        if self.hovered < 0:
            return self._faint.copy()
        dim = np.ones(len(self.names), bool)
        dim[self.hovered] = False
        for other, _count in self._lit:
            dim[other] = False
        return dim

    def label_order(self) -> list[tuple[int, str, bool, bool]]:
        """What may be labelled, first placed first: the hovered concept and its partners
        ("name · notes shared"), the ``HUBS`` biggest where there is room, the ringed
        (isolated) ones always, then the rest by size where there is room."""
        order: list[tuple[int, str, bool, bool]] = []
        seen: set[int] = set()
        if self.hovered >= 0:
            order.append((self.hovered, self.names[self.hovered], True, True))
            seen.add(self.hovered)
            for other, count in self._lit:
                order.append((other, f"{self.names[other]} · {count}", True, True))
                seen.add(other)
        lit = self.hovered < 0
        for row in self._by_size[:HUBS]:  # the biggest named first: the map's landmarks
            if row not in seen and not self._faint[row]:
                order.append((row, self.names[row], lit, bool(self._always[row])))
                seen.add(row)
        for row in np.flatnonzero(self._always).tolist():
            if row not in seen:
                order.append((row, self.names[row], lit and not self._faint[row], True))
                seen.add(row)
        for row in self._by_size:
            if row not in seen:
                order.append((row, self.names[row], lit, False))
        return order

    # ------------------------------------------------------------ pointer

    def node_at(self, scene_pos: QPointF) -> int:
        if not len(self.positions):
            return -1
        point = self._view.mapSceneToView(scene_pos)
        scale = self._view.viewPixelSize()[0]
        dist = np.hypot(self.positions[:, 0] - point.x(), self.positions[:, 1] - point.y())
        best = int(np.argmin(dist))
        return best if dist[best] <= HOVER_RADIUS_PX * scale else -1

    def _on_scene_mouse_moved(self, scene_pos: QPointF) -> None:
        self.hover(self.node_at(scene_pos))

    def hover(self, row: int) -> None:
        """Light ``row`` and its partners (-1: none)."""
        if row == self.hovered:
            return
        self.hovered = row
        self._lit = self._partners(row) if row >= 0 else []
        if self._lit:
            others = np.array([o for o, _c in self._lit], np.int64)
            pairs = np.empty((2 * len(others), 2))
            pairs[0::2] = self.positions[row]
            pairs[1::2] = self.positions[others]
            self._focus.setData(pairs[:, 0], pairs[:, 1])
        else:
            self._focus.setData([], [])
        self._refresh()
        self.node_hovered.emit(row)

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        super().mousePressEvent(ev)
        ev.accept()

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        super().mouseReleaseEvent(ev)
        ev.accept()

    def _on_view_click(self, ev: object) -> bool:
        """A left click on a concept says which; elsewhere the view box has it."""
        if ev.button() != Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            return False
        row = self.node_at(ev.scenePos())  # type: ignore[attr-defined]
        if row < 0:
            return False
        ev.accept()  # type: ignore[attr-defined]
        self.node_clicked.emit(row)
        return True

    def _refresh(self) -> None:
        self._nodes.set_style(self._fills, self._diameters, self.dimmed(), self._rings)
        self.labels.set_labels(self.positions, self.label_order(), self._diameters)
