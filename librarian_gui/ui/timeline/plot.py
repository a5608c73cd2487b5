"""The timeline's plot: per period, the notes mentioning each concept as stacked bars or
lines over a date axis, linked and unlinked told apart, first and last appearance marked;
hovering a period tells its counts, clicking it reports it."""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import math
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QCursor
from PySide6.QtWidgets import QToolTip, QWidget

if TYPE_CHECKING:
    from ...core.insight.timeline import Bin, Timeline

LIGHT = ("#2f6fd6", "#d1495b", "#2a9d5c", "#8e5cc4", "#e08a1e", "#1fa3b3", "#a0522d", "#c2479a")
DARK = ("#6ea8ff", "#ff7b8a", "#5fd394", "#b98cff", "#ffb454", "#4fd2e0", "#d9956a", "#f07cc8")
UNLINKED_ALPHA = 85  # the unlinked part: the concept's colour, faint, with its outline
UNLINKED_ALPHA_DARK = 120  # on a dark background 85 all but vanished
BAR_SHARE = 0.8  # of its period's width
HALF_DAY = 43_200
MIN_PERIODS = 6  # the narrowest span shown, in periods


def seconds(day: dt.date) -> float:
    """The day's start (UTC) in seconds: the date axis' unit."""
    return float(calendar.timegm(day.timetuple()))


def nice_day(day: dt.date | None) -> str:
    return "—" if day is None else f"{day.day} {day:%b %Y}"


TICK_PX = 64  # the least room a date label has: "29 Oct" or "Oct 2026" with space around
_DAY = 86_400


def date_ticks(start: float, end: float, pixels: float) -> tuple[str, list[float]]:
    """One level of ticks for the seconds ``start``..``end`` drawn ``pixels`` wide: days,
    Mondays, first days of a month, of a quarter or of a year, the finest with
    ``TICK_PX`` between neighbours; and the level's name (for ``date_label``). One level
    only: two levels' labels (pyqtgraph's months over days) ran into each other."""
    span = max(end - start, 1.0)
    per_day = pixels / (span / _DAY)
    first = dt.datetime.fromtimestamp(max(start, 0.0), dt.UTC).date()
    last = dt.datetime.fromtimestamp(max(end, 0.0), dt.UTC).date()
    levels = (("day", 1, 1), ("week", 7, 1), ("month", 28, 1), ("month", 89, 3))  # shortest
    fitting = [(name, every) for name, days, every in levels if per_day * days >= TICK_PX]
    if fitting:
        level, step = fitting[0]
    else:
        level, step = "year", max(1, math.ceil(TICK_PX / (per_day * 365)))
    out: list[dt.date] = []
    if level == "day":
        out = [first + dt.timedelta(days=k) for k in range((last - first).days + 2)]
    elif level == "week":
        monday = first - dt.timedelta(days=first.weekday())
        out = [monday + dt.timedelta(weeks=k) for k in range((last - monday).days // 7 + 2)]
    elif level == "month":
        year, month = first.year, first.month - (first.month - 1) % step
        while dt.date(year, month, 1) <= last:
            out.append(dt.date(year, month, 1))
            month += step
            year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    else:
        year = first.year - first.year % step
        while year <= last.year:
            out.append(dt.date(year, 1, 1))
            year += step
    return level, [seconds(d) for d in out if start <= seconds(d) <= end]


def date_label(level: str, value: float) -> str:
    day = dt.datetime.fromtimestamp(value, dt.UTC).date()
    if level in ("day", "week"):
        return f"{day.day} {day:%b}" if day.month != 1 or day.day > 7 else f"{day.day} {day:%b %Y}"
    if level == "month":
        return f"{day:%b %Y}" if day.month == 1 else f"{day:%b}"
    return str(day.year)


class DateAxis(pg.AxisItem):
    """The bottom axis: one level of date ticks (``date_ticks``), never colliding."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom")
        self._level = "day"

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:
        self._level, values = date_ticks(minVal, maxVal, size)
        return [(0.0, values)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [date_label(self._level, v) for v in values]


class TimelinePlot(pg.PlotWidget):
    """The plot of one ``Timeline`` at a time (``draw``); the period whose notes are listed
    is shaded (``mark_period``).

    Signals:
        period_clicked(object): the start (a date) of the period clicked.
    """

    period_clicked = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        background = (28, 30, 33) if dark else (255, 255, 255)
        axis = DateAxis()
        super().__init__(parent, background=background, axisItems={"bottom": axis})
        self.dark = dark
        self.colours = DARK if dark else LIGHT
        self.timeline: Timeline | None = None
        self.bars: dict[tuple[str, str], pg.BarGraphItem] = {}  # (concept, part) → item
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.markers: list[pg.InfiniteLine] = []
        self._starts: list[float] = []  # the periods' starts and ends, in seconds
        self._ends: list[float] = []
        self._hovered: dt.date | None = None
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setMouseEnabled(x=True, y=False)
        self.showGrid(x=False, y=True, alpha=0.2)
        self.setLabel("left", "notes")
        self.setMinimumHeight(180)
        self.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        shade = QColor(128, 128, 128, 40)  # neutral: no concept's colour
        self.region = pg.LinearRegionItem(movable=False, brush=shade, pen=pg.mkPen(None))
        self.region.setZValue(-10)
        self.region.hide()
        self.addItem(self.region)
        self.empty = pg.TextItem(color=(130, 134, 140), anchor=(0.5, 0.5))
        self.addItem(self.empty)

    def colour(self, i: int) -> QColor:
        """The colour of the ``i``-th concept plotted."""
        return QColor(self.colours[i % len(self.colours)])

    def clear_plot(self) -> None:
        for item in (*self.bars.values(), *self.curves.values(), *self.markers):
            self.removeItem(item)
        self.bars.clear()
        self.curves.clear()
        self.markers.clear()
        self._starts, self._ends = [], []
        self.timeline = None
        self.region.hide()

    def show_empty(self, text: str) -> None:
        """Nothing plotted; ``text`` in the middle says why."""
        self.clear_plot()
        self.empty.setText(text)
        self.setXRange(0, 1, padding=0)
        self.setYRange(0, 1, padding=0)
        self.empty.setPos(0.5, 0.5)
        self.empty.show()
        for side in ("left", "bottom"):  # no periods, no counts: ticks would read as data
            self.getAxis(side).setStyle(showValues=False)

    def draw(self, timeline: Timeline, style: str) -> None:
        """Plot ``timeline`` as "bars" (stacked) or "lines"; it must have periods."""
        self.clear_plot()
        self.timeline = timeline
        self.empty.hide()
        for side in ("left", "bottom"):
            self.getAxis(side).setStyle(showValues=True)
        periods = timeline.periods
        self._starts = [seconds(p) for p in periods]
        self._ends = [seconds(timeline.next_period(p)) for p in periods]
        top = self._draw_lines(timeline) if style == "lines" else self._draw_bars(timeline)
        self._draw_markers(timeline)
        left, right = self._starts[0], self._ends[-1]
        # At least MIN_PERIODS periods wide: one week alone filled the plot with one bar
        wanted = (self._ends[0] - self._starts[0]) * MIN_PERIODS
        pad = max((right - left) * 0.02, (wanted - (right - left)) / 2)
        self.setXRange(left - pad, right + pad, padding=0)
        self.setYRange(0, top * 1.3 + 0.5, padding=0)
        step = max(1, math.ceil(top / 5))
        self.getAxis("left").setTickSpacing(step, step)

    def mark_period(self, period: dt.date | None) -> None:
        """Shade the period whose notes are listed (None: none)."""
        if period is None or self.timeline is None:
            self.region.hide()
            return
        self.region.setRegion((seconds(period), seconds(self.timeline.next_period(period))))
        self.region.show()

    def _parts(self, b: Bin | None) -> tuple[int, int, int]:
        return (0, 0, 0) if b is None else (b.linked, b.unlinked, b.file_time)

    def _draw_bars(self, timeline: Timeline) -> float:
        """Stacked per period: each concept's linked notes, its unlinked ones, and those
        dated by file time, in the order chosen. Returns the highest stack."""
        starts, ends = self._starts, self._ends
        x = [(a + b) / 2 for a, b in zip(starts, ends, strict=True)]
        widths = [(b - a) * BAR_SHARE for a, b in zip(starts, ends, strict=True)]
        base = [0.0] * len(x)
        for i, concept in enumerate(timeline.concepts):
            colour = self.colour(i)
            faint = QColor(colour)
            faint.setAlpha(UNLINKED_ALPHA_DARK if self.dark else UNLINKED_ALPHA)
            styles = {
                "linked": (QBrush(colour), pg.mkPen(colour, width=1)),
                "unlinked": (QBrush(faint), pg.mkPen(colour, width=1)),
                "file time": (QBrush(colour, Qt.BrushStyle.BDiagPattern), pg.mkPen(colour)),
            }
            counts = [self._parts(concept.bin_at(p)) for p in timeline.periods]
            for part, (brush, pen) in styles.items():
                k = ("linked", "unlinked", "file time").index(part)
                heights = [float(c[k]) for c in counts]
                shown = [j for j, h in enumerate(heights) if h]
                if not shown:
                    continue
                item = pg.BarGraphItem(
                    x=[x[j] for j in shown],
                    height=[heights[j] for j in shown],
                    width=[widths[j] for j in shown],
                    y0=[base[j] for j in shown],
                    brush=brush,
                    pen=pen,
                )
                self.addItem(item)
                self.bars[(concept.concept, part)] = item
                base = [b + h for b, h in zip(base, heights, strict=True)]
        return max(base, default=0.0)

    def _draw_lines(self, timeline: Timeline) -> float:
        """Per concept: linked notes as a solid line, unlinked ones dashed and fainter,
        those dated by file time dotted. Returns the highest point."""
        starts, ends = self._starts, self._ends
        x = [(a + b) / 2 for a, b in zip(starts, ends, strict=True)]
        top = 0.0
        for i, concept in enumerate(timeline.concepts):
            colour = self.colour(i)
            faint = QColor(colour)
            faint.setAlpha(150)
            counts = [self._parts(concept.bin_at(p)) for p in timeline.periods]
            styles = (
                ("linked", pg.mkPen(colour, width=2.5), colour),
                ("unlinked", pg.mkPen(faint, width=2, style=Qt.PenStyle.DashLine), faint),
                ("file time", pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DotLine), None),
            )
            for k, (part, pen, symbol) in enumerate(styles):
                y = [float(c[k]) for c in counts]
                if not any(y):
                    continue
                item = pg.PlotDataItem(
                    x,
                    y,
                    pen=pen,
                    symbol="o" if symbol is not None else None,
                    symbolSize=6,
                    symbolBrush=symbol,
                    symbolPen=None,
                )
                self.addItem(item)
                self.curves[(concept.concept, part)] = item
                top = max(top, *y)
        return top

    def _draw_markers(self, timeline: Timeline) -> None:
        """A thin line at each concept's first and last dated note, labelled near the top
        (staggered, so that several concepts' labels do not sit on each other)."""
        for i, concept in enumerate(timeline.concepts):
            if concept.first is None or concept.last is None:
                continue
            colour = self.colour(i)
            faint = QColor(colour)
            faint.setAlpha(130)
            pen = pg.mkPen(faint, width=1)  # solid: dashes and dots are the unlinked lines
            height = 0.97 - 0.07 * (i % 6)
            same = concept.first == concept.last
            # One concept: its lines say what they are; several: an arrow each, pointing
            # into the concept's span (words would sit on each other)
            alone = len(timeline.concepts) == 1
            marks = [(concept.first, ("▶ first & last" if same else "▶ first") if alone else "▶")]
            if not same:
                marks.append((concept.last, "last ◀" if alone else "◀"))
            for day, text in marks:
                anchor = (0.0, 0.5) if day == concept.first else (1.0, 0.5)
                line = pg.InfiniteLine(
                    pos=seconds(day) + HALF_DAY,
                    angle=90,
                    pen=pen,
                    movable=False,
                    label=text,
                    labelOpts={
                        "position": height,
                        "color": colour,
                        "anchors": [anchor, anchor],
                        "fill": (255, 255, 255, 200) if not self.dark else (28, 30, 33, 200),
                    },
                )
                what = "first and last" if same else "first" if day == concept.first else "last"
                line.setToolTip(f"{concept.concept}: {what} dated note, {nice_day(day)}")
                self.addItem(line)
                self.markers.append(line)

    def period_at(self, seconds: float) -> dt.date | None:
        """The period under ``seconds`` on the axis, if one is plotted there."""
        if self.timeline is None or not self._starts:
            return None
        i = bisect.bisect_right(self._starts, seconds) - 1
        if i < 0 or seconds >= self._ends[i]:
            return None
        return self.timeline.periods[i]

    def x_of(self, period: dt.date) -> float:
        """The middle of a period on the axis (for tests and screenshots)."""
        assert self.timeline is not None
        return (seconds(period) + seconds(self.timeline.next_period(period))) / 2

    def tooltip_text(self, period: dt.date) -> str:
        """What hovering a period says: its name and each concept's counts."""
        timeline = self.timeline
        assert timeline is not None
        lines = [timeline.label(period)]
        for concept in timeline.concepts:
            b = concept.bin_at(period)
            if b is None:
                lines.append(f"{concept.concept}: no note")
                continue
            text = f"{concept.concept}: {b.linked} linked, {b.unlinked} unlinked"
            if b.file_time:
                text += f", {b.file_time} by file time"
            lines.append(text)
        lines.append("Click to list the notes")
        return "\n".join(lines)

    def _scene_period(self, pos: QPointF) -> dt.date | None:
        box = self.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            return None
        return self.period_at(box.mapSceneToView(pos).x())

    @Slot(object)
    def _on_scene_mouse_moved(self, pos: Any) -> None:
        period = self._scene_period(pos)
        if period == self._hovered:
            return
        self._hovered = period
        if period is None:
            QToolTip.hideText()
            return
        QToolTip.showText(QCursor.pos(), self.tooltip_text(period), self)

    @Slot(object)
    def _on_scene_mouse_clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        period = self._scene_period(event.scenePos())
        if period is not None:
            self.period_clicked.emit(period)
