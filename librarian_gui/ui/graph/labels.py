"""The graph's labels: which nodes are named at this zoom (no two names overlap), and the
layer that draws them.

A placement is greedy in priority order — the hovered and the selected node, nodes the
view asks for first (a local graph's neighbours), the hubs, the isolated concepts, then
every other node on screen by degree — against an occupancy bitmap of the screen in
``CELL_PX`` cells: a name is drawn where its box covers no cell taken by another, else it
tries the next place around its dot, else it is left out. Before that, the other nodes are
thinned to the best of each screen cell the size of a short name (vectorised): at the
whole-vault zoom of 23,700 nodes a thousand candidates remain, not 23,700, and a
placement takes a few milliseconds (``tests/benchmarks/bench_graph.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CELL_SHIFT = 2  # the occupancy bitmap's cells are 1 << CELL_SHIFT pixels square: boxes
CELL_PX = 1 << CELL_SHIFT  # are rounded out to whole cells
THIN_PX = (48, 18)  # the thinning cells: one candidate per cell this size (w, h)
AREA_PER_LABEL_PX = 150 * 50  # past the forced names, about one name per this much screen
MIN_LABELS = 12
CANDIDATES_PER_LABEL = 3  # the thinned candidates tried, per name the cap allows
HUBS = 10  # the best-connected nodes of the graph: named before every other node
PAD_PX = 2  # the name's margin inside its box (the box has the backing colour)
GAP_PX = 2  # between a dot and its name


def place_labels(
    x: FloatArray,
    y: FloatArray,
    radius: FloatArray,
    widths: Callable[[IntArray], FloatArray],
    height: float,
    forced: IntArray,
    ranked: IntArray,
    size: tuple[int, int],
) -> tuple[IntArray, FloatArray]:
    """Rows to name and each name's box (left, top, width, height) in pixels, no two boxes
    overlapping. ``x``, ``y``, ``radius``: every node's centre and dot radius in pixels;
    ``widths(rows)``: the names' widths; ``forced``: rows to name first, in order, if their
    dot is on screen and there is room (never capped); ``ranked``: every row, best first
    (the rest are tried in this order, thinned, up to a cap that grows with the screen)."""
    width, height_px = size
    if not len(x) or width <= 0 or height_px <= 0:
        return np.empty(0, np.int64), np.empty((0, 4))
    on_screen = (x >= 0) & (x <= width) & (y >= 0) & (y <= height_px)
    forced = _unique_in_order(np.asarray(forced, np.int64))
    forced = forced[on_screen[forced]]
    rest = ranked[on_screen[ranked]]
    if len(forced):
        taken = np.zeros(len(x), bool)
        taken[forced] = True
        rest = rest[~taken[rest]]
    cap = max(MIN_LABELS, width * height_px // AREA_PER_LABEL_PX)
    rest = _thinned(x, y, rest, width)[: cap * CANDIDATES_PER_LABEL]
    rows = np.concatenate([forced, rest])
    if not len(rows):
        return rows, np.empty((0, 4))
    w = np.asarray(widths(rows), np.float64) + 2 * PAD_PX
    h = float(height) + 2 * PAD_PX
    # The bitmap: one Python int per row of cells, a bit per cell (a box's test is a few
    # integer operations; numpy's slicing costs more than the test itself at this size).
    occupied = [0] * (height_px // CELL_PX + 2)
    last_row = len(occupied)
    chosen: list[int] = []
    boxes: list[tuple[float, float, float, float]] = []
    n_forced = len(forced)
    others = 0
    xs, ys, rs = x[rows].tolist(), y[rows].tolist(), radius[rows].tolist()
    for i, (row, cx, cy, r, bw) in enumerate(
        zip(rows.tolist(), xs, ys, rs, w.tolist(), strict=True)
    ):
        tries = _anchors(cx, cy, r, bw, h)
        for left, top in tries if i < n_forced else tries[:2]:
            if left < 0 or top < 0 or left + bw > width or top + h > height_px:
                continue  # a name cut by the edge of the view: another place, or none
            c0, r0 = int(left) >> CELL_SHIFT, int(top) >> CELL_SHIFT
            c1, r1 = (int(left + bw) >> CELL_SHIFT) + 1, (int(top + h) >> CELL_SHIFT) + 1
            c0, r0, r1 = max(c0, 0), max(r0, 0), min(r1, last_row)
            if c1 <= c0 or r1 <= r0:  # wholly off the bitmap: nothing to collide with
                mask = 0
            else:
                mask = ((1 << (c1 - c0)) - 1) << c0
                if any(occupied[k] & mask for k in range(r0, r1)):
                    continue
                for k in range(r0, r1):
                    occupied[k] |= mask
            chosen.append(row)
            boxes.append((left, top, bw, h))
            break
        else:
            continue
        if i >= n_forced:
            others += 1
            if others >= cap:
                break
    return np.array(chosen, np.int64), np.array(boxes, np.float64).reshape(-1, 4)


def _anchors(cx: float, cy: float, r: float, w: float, h: float) -> tuple[tuple[float, float], ...]:
    """Where a name may go, by preference: under its dot, above, right, left."""
    return (
        (cx - w / 2, cy + r + GAP_PX),
        (cx - w / 2, cy - r - GAP_PX - h),
        (cx + r + GAP_PX, cy - h / 2),
        (cx - r - GAP_PX - w, cy - h / 2),
    )


def _unique_in_order(rows: IntArray) -> IntArray:
    if len(rows) < 2:
        return rows
    _values, first = np.unique(rows, return_index=True)
    return rows[np.sort(first)]


def _thinned(x: FloatArray, y: FloatArray, rows: IntArray, width: int) -> IntArray:
    """The first row (best ranked) of each thinning cell, in rank order (rows on screen,
    ``width`` pixels wide)."""
    if len(rows) < 2:
        return rows
    cw, ch = THIN_PX
    across = width // cw + 1
    cell = (y[rows] // ch).astype(np.int64) * across + (x[rows] // cw).astype(np.int64)
    first = np.full(int(cell.max()) + 1, len(rows), np.int64)
    np.minimum.at(first, cell, np.arange(len(rows)))
    return rows[np.sort(first[first < len(rows)])]


class LabelLayer(pg.GraphicsObject):
    """Names of nodes drawn in pixels over the dots, placed anew whenever the camera, the
    positions or the focus change (see ``place_labels``). The focused names (hovered,
    selected) are bold and in the text colour, the others muted, each on a translucent
    backing so it reads over the edges."""

    def __init__(
        self,
        text: tuple[int, int, int],
        muted: tuple[int, int, int],
        background: tuple[int, int, int],
    ) -> None:
        super().__init__()
        self._text = QColor(*text)
        self._muted = QColor(*muted)
        self._backing = QColor(*background, 200)
        self._font = QFont()
        self._font.setPointSizeF(max(7.5, self._font.pointSizeF() * 0.85))
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._metrics = QFontMetricsF(self._font)
        self._bold_metrics = QFontMetricsF(self._bold)
        self.labels: Sequence[str] = ()
        self._widths = np.empty(0)
        self._static: dict[int, QStaticText] = {}
        self.positions: FloatArray = np.empty((0, 2))
        self.radius: FloatArray = np.empty(0)
        self.forced: IntArray = np.empty(0, np.int64)
        self.focus: tuple[int, ...] = ()
        self.ranked: IntArray = np.empty(0, np.int64)
        self._bounds = QRectF()
        self._key: tuple[object, ...] | None = None
        self.rows: IntArray = np.empty(0, np.int64)  # the last placement's
        self.boxes: FloatArray = np.empty((0, 4))
        self.place_seconds: list[float] = []  # each placement's time (benchmarks)
        self._version = 0

    def set_labels(self, labels: Sequence[str], ranked: IntArray) -> None:
        """A new graph's names, and its rows best first."""
        self.labels = labels
        self.ranked = ranked
        self._widths = np.full(len(labels), -1.0)
        self._static.clear()
        self.rows, self.boxes = np.empty(0, np.int64), np.empty((0, 4))
        self._changed()

    def set_positions(self, positions: FloatArray, bounds: QRectF) -> None:
        self.prepareGeometryChange()
        self.positions = positions
        self._bounds = bounds
        self._changed()

    def set_focus(self, focus: Sequence[int], forced: IntArray, radius: FloatArray) -> None:
        """``focus``: rows named in bold (hovered, selected); ``forced``: rows to name first
        after them; ``radius``: each dot's radius in pixels."""
        self.focus = tuple(i for i in focus if 0 <= i < len(self.labels))
        self.forced = forced
        self.radius = radius
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        self.update()

    # ------------------------------------------------------------ the item

    def boundingRect(self) -> QRectF:
        if not len(self.positions):
            return QRectF()
        # Names reach beyond the dots by up to a long name's width, in pixels.
        px = self.pixelLength(pg.Point(1, 0)) or 0.0
        margin = 400 * px
        return self._bounds.adjusted(-margin, -margin, margin, margin)

    def paint(self, p: QPainter, *_args: object) -> None:
        count = len(self.positions)
        if not count or len(self.labels) != count or len(self.radius) != count:
            return
        t = p.transform()
        window = p.window()
        key = (t.m11(), t.m22(), t.dx(), t.dy(), window.width(), window.height(), self._version)
        if key != self._key:
            self._key = key
            started = time.perf_counter()
            x = self.positions[:, 0] * t.m11() + t.dx()
            y = self.positions[:, 1] * t.m22() + t.dy()
            forced = np.concatenate([np.array(self.focus, np.int64), self.forced])
            self.rows, self.boxes = place_labels(
                x,
                y,
                self.radius,
                self._measure,
                self._bold_metrics.height(),
                forced,
                self.ranked,
                (window.width(), window.height()),
            )
            self.place_seconds.append(time.perf_counter() - started)
            del self.place_seconds[:-500]
        p.resetTransform()
        focus = set(self.focus)
        for row, (left, top, w, h) in zip(self.rows.tolist(), self.boxes.tolist(), strict=True):
            p.fillRect(QRectF(left, top, w, h), self._backing)
            bold = row in focus
            p.setFont(self._bold if bold else self._font)
            p.setPen(self._text if bold else self._muted)
            p.drawStaticText(QPointF(left + PAD_PX, top + PAD_PX), self._static_text(row))

    def _measure(self, rows: IntArray) -> FloatArray:
        """The names' widths in pixels (bold, the wider): measured once per row."""
        widths = self._widths
        missing = rows[widths[rows] < 0]
        for row in missing.tolist():
            widths[row] = self._bold_metrics.horizontalAdvance(self.labels[row])
        return widths[rows]

    def _static_text(self, row: int) -> QStaticText:
        text = self._static.get(row)
        if text is None:
            text = self._static[row] = QStaticText(self.labels[row])
            text.setTextFormat(Qt.TextFormat.PlainText)
        return text
