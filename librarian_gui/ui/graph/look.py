"""The look the graph view and the concept map share: the category palette, the grey of what
has no category, and the translucent label drawn over a canvas."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QLabel

RGB = tuple[int, int, int]
# A qualitative palette (Tableau 10) for categories without a colour, and for folders.
PALETTE: tuple[RGB, ...] = (
    (78, 121, 167),
    (242, 142, 43),
    (225, 87, 89),
    (118, 183, 178),
    (89, 161, 79),
    (237, 201, 72),
    (176, 122, 161),
    (255, 157, 167),
    (156, 117, 95),
    (186, 176, 172),
)
NEUTRAL: RGB = (150, 150, 150)


def category_colours(named: Iterable[tuple[str, str]]) -> dict[str, RGB]:
    """Each category's colour: its own (``#rgb`` or ``#rrggbb``), else the palette's in turn."""
    return {
        name: hex_rgb(colour) or PALETTE[i % len(PALETTE)] for i, (name, colour) in enumerate(named)
    }


def hex_rgb(colour: str) -> RGB | None:
    text = colour.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    try:
        value = int(text, 16) if len(text) == 6 else -1
    except ValueError:
        return None
    return ((value >> 16) & 255, (value >> 8) & 255, value & 255) if value >= 0 else None


def overlay(dark: bool) -> QLabel:
    """A small label with a translucent backing, drawn over the canvas."""
    label = QLabel()
    back, fore = ("rgba(28,30,33,200)", "#ddd") if dark else ("rgba(250,250,248,210)", "#333")
    label.setStyleSheet(
        f"QLabel {{ background: {back}; color: {fore}; border-radius: 4px; padding: 3px 6px;"
        " margin: 6px; font-size: 11px; }"
    )
    return label
