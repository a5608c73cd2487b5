"""A concept's colour as a small filled square: shown beside its name, never as the colour
of the name itself (a red concept must not read as an error)."""

from __future__ import annotations

import re

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

SIDE = 12  # pixels: the height of a line of the item views' text, less their padding
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


def valid_colour(colour: str) -> bool:
    """Whether ``colour`` is a colour a concept can have (``#rrggbb``)."""
    return bool(_COLOUR.fullmatch(colour))


def paint_swatch(painter: QPainter, x: float, y: float, colour: str) -> None:
    """A rounded square of ``colour`` with a thin darker edge (so white and near-background
    colours still show), its top left at (x, y)."""
    fill = QColor(colour)
    painter.setPen(QPen(fill.darker(160), 1))
    painter.setBrush(fill)
    painter.drawRoundedRect(QRectF(x + 1.5, y + 1.5, SIDE - 3, SIDE - 3), 2, 2)


def swatch_icon(colour: str) -> QIcon:
    """The swatch of ``colour``; an empty square of the same size when it is not a valid
    colour, so rows with and without a colour keep their text aligned. Views keep the
    icons they use (a QIcon must not outlive the application, so there is no global cache)."""
    pixmap = QPixmap(SIDE, SIDE)
    pixmap.fill(Qt.GlobalColor.transparent)
    if valid_colour(colour):
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint_swatch(painter, 0, 0, colour)
        painter.end()
    return QIcon(pixmap)
