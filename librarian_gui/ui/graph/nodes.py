"""The graph's node layer: every node as a dot, drawn from numpy arrays in one paint.

pyqtgraph's ScatterPlotItem keeps a Python record per spot: adding 23,000 spots took two
seconds of event-loop turns, setting their brushes on hover 0.2 s, and each frame computed
its bounds a dozen times. Here a node is a row of a few arrays (position, colour, diameter,
dimmed, ringed), and a paint is:

- dots up to ``SPLAT_MAX_PX`` across written as pixel discs into an image with numpy, dimmed
  ones first (23,700 dots: ~4 ms, against ~11 ms as antialiased sprites);
- bigger dots and the rings as antialiased sprites from a small atlas, with one
  ``drawPixmapFragments`` call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
ColourArray = npt.NDArray[np.uint8]  # (N, 3) RGB

SPLAT_MAX_PX = 7  # dots this wide or smaller are pixel discs; wider ones antialiased sprites
BRIGHT_ALPHA = 230
DIM_ALPHA = 45
RING_WIDTH_PX = 2.0
RING_EXTRA_PX = 5  # a ring's diameter: its node's, plus this
ATLAS_MAX_SPRITES = 4_096  # more distinct sprites than this: the atlas starts again


def extent(xy: FloatArray) -> QRectF:
    """The rectangle the (N, 2) positions span (empty for none). Column by column: a
    reduction along axis 0 of an (N, 2) array is ten times slower (1 ms at 23,000)."""
    if not len(xy):
        return QRectF()
    x, y = xy[:, 0], xy[:, 1]
    left, top = float(x.min()), float(y.min())
    return QRectF(left, top, float(x.max()) - left, float(y.max()) - top)


def disc_offsets(diameter: int) -> tuple[IntArray, IntArray]:
    """The pixels (dx, dy) of a disc ``diameter`` pixels across, around the pixel holding its
    centre: the cells whose centres lie within the circle (a square up to 3 across)."""
    centre = (diameter - 1) / 2.0
    radius2 = (diameter / 2.0) ** 2
    cells = np.arange(diameter)
    dx, dy = np.meshgrid(cells, cells, indexing="xy")
    inside = (dx - centre) ** 2 + (dy - centre) ** 2 <= radius2
    shift = int(centre)
    return (dx[inside] - shift).astype(np.int64), (dy[inside] - shift).astype(np.int64)


_DISCS = {d: disc_offsets(d) for d in range(1, SPLAT_MAX_PX + 1)}
_PAD = SPLAT_MAX_PX  # pixels beyond each side of the image, so discs need no clipping


class NodeLayer(pg.GraphicsObject):
    """Dots at positions in view coordinates, a fixed number of pixels across whatever the
    zoom. Set the positions with ``set_positions`` and the looks with ``set_style``."""

    def __init__(self, background: tuple[int, int, int]) -> None:
        super().__init__()
        self._background = np.array(background, np.float64)
        self.positions: FloatArray = np.empty((0, 2))
        self.colours: ColourArray = np.empty((0, 3), np.uint8)
        self.diameters: IntArray = np.empty(0, np.int64)
        self.dimmed: BoolArray = np.empty(0, bool)
        self.ringed: BoolArray = np.empty(0, bool)
        self._bounds = QRectF()
        self._largest = 0  # the widest dot or ring, in pixels
        self._x = np.empty(0)  # the positions' columns, contiguous (faster arithmetic)
        self._y = np.empty(0)
        self._discs: list[_Discs] = []  # small dots by faintness and size, in drawing order
        self._sprite_rows = np.empty(0, np.int64)  # big dots, then rings
        self._sprite_rects = np.empty((0, 4))
        self._order_stale = False  # the style changed since the order was worked out
        self._packed_for: ColourArray | None = None  # the colours ``_packed`` was made from
        self._packed = (np.empty(0, np.uint32), np.empty(0, np.uint32))
        self._buffer = np.zeros((0, 0), np.uint32)
        self._image: QImage | None = None
        self._fragments = pg.Qt.internals.PrimitiveArray(QPainter.PixmapFragment, 10)
        self._atlas = _Atlas()
        self.exporting = False  # vector shapes (SVG): each dot an ellipse

    # ------------------------------------------------------------ data

    def set_positions(self, xy: FloatArray, span: QRectF | None = None) -> None:
        """(N, 2) positions; ``span``: their ``extent`` if the caller has it already."""
        self.prepareGeometryChange()
        self.positions = xy
        self._x = np.ascontiguousarray(xy[:, 0])
        self._y = np.ascontiguousarray(xy[:, 1])
        self._bounds = span if span is not None else extent(xy)
        self.update()

    def set_style(
        self,
        colours: ColourArray,
        diameters: IntArray,
        dimmed: BoolArray,
        ringed: BoolArray,
    ) -> None:
        """Per node, in the positions' order: RGB fill, diameter in pixels, drawn faint,
        drawn with a ring. The drawing order is worked out at the next paint, once for all
        the changes of a turn (a new graph sets colours, rings and highlights in turn)."""
        self.prepareGeometryChange()
        self.colours = colours
        self.diameters = diameters
        self.dimmed = dimmed
        self.ringed = ringed
        widest = int(diameters.max()) if len(diameters) else 0
        self._largest = widest + (RING_EXTRA_PX + 2 if ringed.any() else 0)
        self._order_stale = True
        self.update()

    def _order(self) -> None:
        self._order_stale = False
        colours, diameters, dimmed = self.colours, self.diameters, self.dimmed
        if self._packed_for is not colours:  # a hover changes faintness, not colours
            self._packed_for = colours
            self._packed = (
                _packed(colours, BRIGHT_ALPHA, self._background),
                _packed(colours, DIM_ALPHA, self._background),
            )
        self._discs = _disc_groups(self._packed, diameters, dimmed)
        self._sprite_rows, self._sprite_rects = self._sprites_of(
            colours, diameters, dimmed, self.ringed
        )

    def _sprites_of(
        self, colours: ColourArray, diameters: IntArray, dimmed: BoolArray, ringed: BoolArray
    ) -> tuple[IntArray, FloatArray]:
        """The rows drawn as sprites (big dots, faint ones first, then the rings) and each
        one's rectangle in the atlas."""
        large = diameters > SPLAT_MAX_PX
        faint_big, bright_big = np.flatnonzero(large & dimmed), np.flatnonzero(large & ~dimmed)
        rings = np.flatnonzero(ringed)
        rows = np.concatenate([faint_big, bright_big, rings])
        if not len(rows):
            return rows, np.empty((0, 4))
        # Sprite keys: colour (24 bits) << 16 | faint << 15 | ring << 14 | diameter.
        big = np.concatenate([faint_big, bright_big])
        rgb = colours[big].astype(np.int64)
        colour_key = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        fill_keys = (colour_key << 16) | (dimmed[big].astype(np.int64) << 15) | diameters[big]
        ring_keys = (1 << 14) | (diameters[rings] + RING_EXTRA_PX)
        return rows, self._atlas.rects(np.concatenate([fill_keys, ring_keys]))

    # ------------------------------------------------------------ the item

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull() and not len(self.positions):
            return QRectF()
        # Dots are drawn in pixels: the rectangle reaches half the widest beyond the nodes.
        px = self.pixelLength(pg.Point(1, 0)) or 0.0
        margin = (self._largest / 2 + 1) * px
        return self._bounds.adjusted(-margin, -margin, margin, margin)

    def dataBounds(
        self, axis: int, frac: float = 1.0, orthoRange: tuple[float, float] | None = None
    ) -> tuple[float, float] | tuple[None, None]:
        """The nodes' extent (the view box fits to it)."""
        if not len(self.positions):
            return (None, None)
        b = self._bounds
        return (b.left(), b.right()) if axis == 0 else (b.top(), b.bottom())

    def pixelPadding(self) -> float:
        return self._largest / 2 + 1

    def paint(self, p: QPainter, *_args: object) -> None:
        count = len(self.positions)
        if count == 0 or len(self.colours) != count:
            return
        if self._order_stale:
            self._order()
        t = p.transform()
        if self.exporting:
            self._paint_shapes(p, t.m11())
            return
        if t.m12() == 0 and t.m21() == 0:  # the view box never rotates: two operations
            x = self._x * t.m11() + t.dx()
            y = self._y * t.m22() + t.dy()
        else:
            x = self._x * t.m11() + self._y * t.m21() + t.dx()
            y = self._x * t.m12() + self._y * t.m22() + t.dy()
        p.resetTransform()
        window = p.window()
        width, height = window.width(), window.height()
        if self._discs:
            self._splat(p, x, y, width, height)
        if len(self._sprite_rows):
            self._sprites(p, x, y, width, height)

    # ------------------------------------------------------------ drawing

    def _splat(self, p: QPainter, x: FloatArray, y: FloatArray, width: int, height: int) -> None:
        stride = width + 2 * _PAD
        if self._buffer.shape != (height + 2 * _PAD, stride):
            self._buffer = np.zeros((height + 2 * _PAD, stride), np.uint32)
            self._image = QImage(
                self._buffer.data,
                stride,
                height + 2 * _PAD,
                stride * 4,
                QImage.Format.Format_ARGB32_Premultiplied,
            )
        else:
            self._buffer.fill(0)
        flat = self._buffer.reshape(-1)
        # A disc reaches at most SPLAT_MAX_PX // 2 + 1 pixels from its centre's pixel: the
        # image's padding (_PAD) holds it, so no index falls outside the buffer.
        near = SPLAT_MAX_PX // 2 + 1
        inside = (x > -near) & (x < width + near) & (y > -near) & (y < height + near)
        # The pixel a disc is drawn around: a disc of odd width is centred on the middle of
        # its pixel (floor), one of even width on that pixel's far corner (floor of x - ½).
        cells: dict[bool, IntArray] = {}
        for group in self._discs:
            even = group.diameter % 2 == 0
            if even not in cells:
                shift = 0.5 if even else 0.0
                row = np.floor(y - shift).astype(np.int64) + _PAD
                cells[even] = row * stride + np.floor(x - shift).astype(np.int64) + _PAD
            keep = inside[group.rows]
            at, value = cells[even][group.rows[keep]], group.values[keep]
            for offset in (group.dy * stride + group.dx).tolist():
                flat[at + offset] = value
        assert self._image is not None
        p.drawImage(QPointF(-_PAD, -_PAD), self._image)

    def _sprites(self, p: QPainter, x: FloatArray, y: FloatArray, width: int, height: int) -> None:
        rows = self._sprite_rows
        reach = self._largest / 2 + 1
        sx, sy = x[rows], y[rows]
        keep = (sx > -reach) & (sx < width + reach) & (sy > -reach) & (sy < height + reach)
        if not keep.any():
            return
        self._fragments.resize(int(keep.sum()))
        frags = self._fragments.ndarray()
        frags[:, 0] = sx[keep]
        frags[:, 1] = sy[keep]
        frags[:, 2:6] = self._sprite_rects[keep]
        frags[:, 6:10] = (1.0, 1.0, 0.0, 1.0)  # scale x, scale y, rotation, opacity
        p.drawPixmapFragments(*self._fragments.drawargs(), self._atlas.pixmap)

    def _paint_shapes(self, p: QPainter, scale: float) -> None:
        """Each dot as an antialiased ellipse in view coordinates (vector export)."""
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(Qt.PenStyle.NoPen)
        unit = 1.0 / abs(scale) if scale else 1.0
        order = np.concatenate([np.flatnonzero(self.dimmed), np.flatnonzero(~self.dimmed)])
        for row in order.tolist():
            red, green, blue = (int(c) for c in self.colours[row])
            alpha = DIM_ALPHA if self.dimmed[row] else BRIGHT_ALPHA
            p.setBrush(QColor(red, green, blue, alpha))
            radius = self.diameters[row] / 2 * unit
            p.drawEllipse(QPointF(*self.positions[row]), radius, radius)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(_ring_pen(unit))
        for row in np.flatnonzero(self.ringed).tolist():
            radius = (self.diameters[row] + RING_EXTRA_PX) / 2 * unit
            p.drawEllipse(QPointF(*self.positions[row]), radius, radius)


RING_COLOUR = (214, 39, 40)


def _ring_pen(unit: float = 1.0) -> QPen:
    pen = QPen(QColor(*RING_COLOUR))
    pen.setWidthF(RING_WIDTH_PX * unit)
    return pen


def _packed(colours: ColourArray, alpha: int, background: FloatArray) -> npt.NDArray[np.uint32]:
    """Opaque ARGB words: each colour laid at ``alpha`` over the background, rounded (integer
    arithmetic: c·a + bg·(255 − a) over 255 never falls on a half)."""
    if not len(colours):
        return np.empty(0, np.uint32)
    under = np.rint(background).astype(np.int32) * (255 - alpha) + 127
    mixed = (colours.astype(np.int32) * alpha + under) // 255
    rgb = mixed.astype(np.uint32)
    return (0xFF000000 | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]).astype(np.uint32)


@dataclass(slots=True)
class _Discs:
    """Small dots of one size and faintness: their rows, ARGB words and disc pixels."""

    diameter: int
    rows: IntArray
    values: npt.NDArray[np.uint32]
    dx: IntArray
    dy: IntArray


def _disc_groups(
    packed: tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]],
    diameters: IntArray,
    dimmed: BoolArray,
) -> list[_Discs]:
    """The small dots grouped for drawing: faint ones first (bright ones lie on top), and
    within each, smaller before bigger. ``packed``: each node's bright and faint words."""
    groups = []
    bright, faint = packed
    small = diameters <= SPLAT_MAX_PX
    for is_faint, packed in ((True, faint), (False, bright)):
        chosen = np.flatnonzero(small & (dimmed == is_faint))
        if not len(chosen):
            continue
        sizes = diameters[chosen]
        for diameter in np.unique(sizes).tolist():
            rows = chosen[sizes == diameter]
            dx, dy = _DISCS[int(diameter)]
            groups.append(_Discs(int(diameter), rows, packed[rows], dx, dy))
    return groups


class _Atlas:
    """Antialiased sprites (big dots and rings) drawn once each into one pixmap, packed in
    shelves; looked up by key, drawn on first use."""

    def __init__(self) -> None:
        self.pixmap = QPixmap(1, 1)
        self._rects: dict[int, tuple[float, float, float, float]] = {}
        self._width = 1024

    def rects(self, keys: IntArray) -> FloatArray:
        """(x, y, w, h) in the pixmap for each key, drawing the missing ones."""
        unique, inverse = np.unique(keys, return_inverse=True)
        missing = [k for k in unique.tolist() if k not in self._rects]
        if missing:
            if len(self._rects) + len(missing) > ATLAS_MAX_SPRITES:
                self._rects.clear()
                missing = unique.tolist()
            self._draw(missing)
        table = np.array([self._rects[k] for k in unique.tolist()], np.float64)
        return table[inverse.reshape(-1)]

    def _draw(self, missing: list[int]) -> None:
        keys = sorted(set(self._rects) | set(missing))
        size_of = {k: _sprite_size(k) for k in keys}
        # Shelf packing: left to right in rows as high as their tallest sprite.
        placed: dict[int, tuple[float, float, float, float]] = {}
        x = y = shelf = 0
        for key in sorted(keys, key=lambda k: -size_of[k]):
            side = size_of[key]
            if x + side > self._width:
                x, y, shelf = 0, y + shelf + 1, 0
            placed[key] = (float(x), float(y), float(side), float(side))
            x += side + 1
            shelf = max(shelf, side)
        height = max(1, y + shelf + 1)
        image = QImage(self._width, height, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for key, (left, top, side, _h) in placed.items():
            _draw_sprite(painter, key, left, top, side)
        painter.end()
        self.pixmap = QPixmap.fromImage(image)
        self._rects = placed


def _sprite_size(key: int) -> int:
    diameter = key & 0x3FFF
    return int(diameter + 3)  # room for the antialiased rim and a ring's pen


def _draw_sprite(painter: QPainter, key: int, left: float, top: float, side: float) -> None:
    diameter = key & 0x3FFF
    centre = QPointF(left + side / 2, top + side / 2)
    radius = diameter / 2
    if key & (1 << 14) and not key >> 16:  # a ring
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(_ring_pen())
        painter.drawEllipse(centre, radius - RING_WIDTH_PX / 2, radius - RING_WIDTH_PX / 2)
        return
    colour = key >> 16
    alpha = DIM_ALPHA if key & (1 << 15) else BRIGHT_ALPHA
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor((colour >> 16) & 255, (colour >> 8) & 255, colour & 255, alpha))
    painter.drawEllipse(centre, radius, radius)
