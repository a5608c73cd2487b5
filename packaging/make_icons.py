"""Renders the app icon's PNGs (resources/icons/librarian-<size>.png) from librarian.svg.

Run from the repository after changing the SVG, and commit the PNGs with it:

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script draws, which the package keeps to ui/; it is no part of the package.
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: TID251
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    """The icon at ``size`` × ``size`` pixels on a transparent background."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    svg = ICONS / "librarian.svg"
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        print(f"make_icons: {svg}: not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        out = ICONS / f"librarian-{size}.png"
        if not render(renderer, size).save(str(out)):
            print(f"make_icons: {out}: cannot be written", file=sys.stderr)
            return 1
        print(out.relative_to(ICONS.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
