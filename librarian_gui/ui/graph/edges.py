"""The graph's edge layer: every edge drawn once into an image while nothing moves, and a
thinned, culled subset while the camera or the positions move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTransform
from PySide6.QtWidgets import QGraphicsView

from ...core.graph.graphdata import draw_order
from .nodes import extent

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Painting 100,000 edges takes ~150 ms, far too long for one frame. While anything moves, a
# frame draws at most this many (a fixed random subset of those on screen); at rest the
# whole set is drawn once into an image, a slice per event-loop turn so no slice blocks the
# GUI thread for long.
LIVE_BUDGET = (12_000, 300_000.0)  # lines, pixels of length: ~15 ms
SLICE_EDGES = 4_000
SETTLE_MS = 150  # the camera and the positions still this long: draw every edge
CACHE_MARGIN = 0.25  # the cached image reaches this share of the view beyond each side


@dataclass(slots=True)
class _Cache:
    image: QImage
    view_rect: QRectF  # the part of the graph (view coordinates) the image shows
    scale: float  # pixels per graph unit when it was drawn
    version: int  # the positions it shows


@dataclass(slots=True)
class _Render:
    """A cache image being drawn: the positions and edges it shows, the next edge to draw."""

    cache: _Cache
    xy: FloatArray
    edges: IntArray
    to_image: QTransform
    done: int = 0


class EdgeLayer(pg.GraphicsObject):
    """Every edge, drawn from an image while the graph is at rest; a thinned live subset
    while positions or the camera move (see LIVE_EDGES)."""

    def __init__(
        self,
        colour: tuple[int, int, int],
        view: QGraphicsView,
        budget: tuple[int, float] = LIVE_BUDGET,
    ) -> None:
        super().__init__()
        self._budget = budget  # what a live frame may draw (lines, pixels of length)
        self._pen = QPen(QColor(*colour))
        self._pen.setWidth(1)
        self._pen.setCosmetic(True)
        self._view = view
        self._xy: FloatArray = np.empty((0, 2))
        self._edges: IntArray = np.empty((0, 2), np.int64)  # in a fixed random order
        self._bounds = QRectF()
        self.version = 0
        self.renders = 0  # completed cache renders (tests count them)
        self.exporting = False
        self.cache: _Cache | None = None
        self._pending: _Render | None = None
        self._lines = pg.Qt.internals.PrimitiveArray(pg.QtCore.QLineF, 4)
        self._halted = False
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self._on_settle_timeout)
        self._slice = QTimer(self, interval=0)
        self._slice.timeout.connect(self._on_slice_timeout)

    def set_edges(self, edges: IntArray, *, shuffled: bool = False) -> None:
        """The edges to draw; ``shuffled``: already in ``draw_order`` (made on a thread)."""
        self._edges = edges if shuffled else draw_order(edges)
        self.set_positions(self._xy)

    def set_positions(self, xy: FloatArray, span: QRectF | None = None) -> None:
        """(N, 2) positions; ``span``: their ``extent`` if the caller has it already."""
        self.prepareGeometryChange()
        self._xy = xy
        self._bounds = span if span is not None else extent(xy)
        self.version += 1
        self.moved()

    def moved(self) -> None:
        """Positions or camera changed: draw live now, every edge once they rest."""
        self._pending = None
        self._slice.stop()
        if not self._halted:
            self._settle.start()
        self.update()

    def is_current(self) -> bool:
        """The cached image shows the positions and the camera as they are."""
        return (
            self.cache is not None
            and self.cache.version == self.version
            and self._pending is None
            and not self._settle.isActive()
        )

    def boundingRect(self) -> QRectF:
        return self._bounds.adjusted(-1, -1, 1, 1)

    def paint(self, p: QPainter, *_args: object) -> None:
        transform = p.transform()
        if self.exporting:
            self._draw_path(p, transform)
            return
        target = self._blit_target(transform)
        p.resetTransform()
        if target is not None:
            assert self.cache is not None
            p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            p.drawImage(target, self.cache.image)
            return
        lines = visible_lines(self._xy, self._edges, transform, QRectF(p.window()), self._budget)
        self._draw_lines(p, lines)

    def _blit_target(self, transform: QTransform) -> QRectF | None:
        cache = self.cache
        if cache is None or cache.version != self.version:
            return None
        ratio = abs(transform.m11()) / cache.scale
        if not 0.6 <= ratio <= 3.0:  # scaled further, the lines look too blurred or blocky
            return None
        inverse, _ok = transform.inverted()
        shown = inverse.mapRect(QRectF(self._view.viewport().rect()))
        if not cache.view_rect.adjusted(-1e-9, -1e-9, 1e-9, 1e-9).contains(shown):
            return None  # panned past the cached margin: its edges would be missing
        return transform.mapRect(cache.view_rect)

    def _draw_lines(self, p: QPainter, lines: FloatArray) -> None:
        self._lines.resize(len(lines))
        self._lines.ndarray()[:] = lines
        p.setPen(self._pen)
        p.drawLines(*self._lines.drawargs())

    def _draw_path(self, p: QPainter, transform: QTransform) -> None:
        """Export: every edge on screen, as one path (one element in an SVG)."""
        lines = visible_lines(self._xy, self._edges, transform, QRectF(p.window()), None)
        p.resetTransform()
        p.setPen(self._pen)
        if len(lines):
            path = pg.arrayToQPath(lines[:, 0::2].ravel(), lines[:, 1::2].ravel(), connect="pairs")
            p.drawPath(path)

    # ------------------------------------------------------------ the cache

    def stop(self, halt: bool = False) -> None:
        """No drawing pending; with ``halt`` (the window closes), none started again."""
        self._halted = self._halted or halt
        self._settle.stop()
        self._slice.stop()
        self._pending = None

    def render_now(self) -> None:
        """Draw the cache for the current camera and positions, all at once."""
        self._settle.stop()
        self._start_render()
        while self._pending is not None:
            self._on_slice_timeout()

    def _on_settle_timeout(self) -> None:
        self._start_render()
        if self._pending is not None:
            self._slice.start()

    def _start_render(self) -> None:
        viewport = self._view.viewport()
        if (
            self.scene() is None
            or not self.isVisible()  # a hidden layer (Related off) draws nothing
            or not viewport.isVisible()
            or viewport.width() <= 0
        ):
            return
        transform = self.deviceTransform(self._view.viewportTransform())
        width, height = viewport.width(), viewport.height()
        margin_x, margin_y = round(width * CACHE_MARGIN), round(height * CACHE_MARGIN)
        area = QRectF(-margin_x, -margin_y, width + 2 * margin_x, height + 2 * margin_y)
        dpr = viewport.devicePixelRatioF()
        image = QImage(
            QSize(round(area.width() * dpr), round(area.height() * dpr)),
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        image.setDevicePixelRatio(dpr)
        image.fill(Qt.GlobalColor.transparent)
        # Image pixels of the edges, from view coordinates: the view's transform, moved
        # so the margin starts at (0, 0), in device pixels.
        to_image = transform * QTransform.fromTranslate(margin_x, margin_y)
        to_image = to_image * QTransform.fromScale(dpr, dpr)
        inverse, _ok = transform.inverted()
        view_rect = inverse.mapRect(area)
        cache = _Cache(image, view_rect, abs(transform.m11()), self.version)
        # The edges' pixels are worked out slice by slice too: all at once, 177,000 edges
        # took 0.14 s of the GUI thread while the layout thread ran.
        self._pending = _Render(cache, self._xy, self._edges, to_image)

    def _on_slice_timeout(self) -> None:
        render = self._pending
        if render is None:
            self._slice.stop()
            return
        cache, start = render.cache, render.done
        image = cache.image
        part = visible_lines(
            render.xy,
            render.edges[start : start + SLICE_EDGES],
            render.to_image,
            QRectF(0, 0, image.width(), image.height()),
            None,
        )
        painter = QPainter(image)
        painter.resetTransform()  # the image's pixels: lines are already in them
        painter.scale(1 / image.devicePixelRatio(), 1 / image.devicePixelRatio())
        self._draw_lines(painter, part)
        painter.end()
        render.done = start + SLICE_EDGES
        if render.done >= len(render.edges):
            self._pending = None
            self._slice.stop()
            self.cache = cache
            self.renders += 1
            self.update()


def visible_lines(
    xy: FloatArray,
    edges: IntArray,
    transform: QTransform,
    rect: QRectF,
    budget: tuple[int, float] | None,
) -> FloatArray:
    """Edges as (K, 4) pixel coordinates x1 y1 x2 y2, without those wholly beside ``rect``.
    With a budget (lines, pixels of length), the first edges within it: edges come in a
    random order, so that is a fair sample, and the same one from frame to frame."""
    if not len(edges) or not len(xy):
        return np.empty((0, 4))
    px = xy[:, 0] * transform.m11() + xy[:, 1] * transform.m21() + transform.m31()
    py = xy[:, 0] * transform.m12() + xy[:, 1] * transform.m22() + transform.m32()
    left, right, top, bottom = rect.left(), rect.right(), rect.top(), rect.bottom()
    block = len(edges) if budget is None else max(budget[0] * 2, 20_000)
    diagonal = float(np.hypot(rect.width(), rect.height()))
    found: list[FloatArray] = []
    count, length = 0, 0.0
    for start in range(0, len(edges), block):
        part = edges[start : start + block]
        x1, x2 = px[part[:, 0]], px[part[:, 1]]
        y1, y2 = py[part[:, 0]], py[part[:, 1]]
        beside = ((x1 < left) & (x2 < left)) | ((x1 > right) & (x2 > right))
        beside |= ((y1 < top) & (y2 < top)) | ((y1 > bottom) & (y2 > bottom))
        keep = ~beside
        lines = np.column_stack([x1[keep], y1[keep], x2[keep], y2[keep]])
        if budget is not None:
            # Raster lines cost ~1 µs each plus ~25 ns a pixel here: budget both.
            sizes = np.minimum(
                np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1]), diagonal
            )
            total = length + np.cumsum(sizes)
            fit = min(int(np.searchsorted(total, budget[1])), budget[0] - count)
            if fit < len(lines):
                found.append(lines[:fit])
                break
            length = float(total[-1]) if len(total) else length
        found.append(lines)
        count += len(lines)
    return np.concatenate(found)
