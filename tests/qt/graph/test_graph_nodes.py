"""The node layer's pixels: painted straight into an image (identity transform, so a node's
position is its pixel), and read back.

Expected colours are worked out here by hand: a fill at alpha 230 (faint: 45) laid over the
background, c·a/255 + bg·(255 − a)/255, rounded."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPainter

from librarian_gui.ui.graph.nodes import NodeLayer, disc_offsets

pytestmark = pytest.mark.usefixtures("qapp")  # pixmaps need the application

BACKGROUND = (250, 250, 248)
BLUE = (88, 140, 230)
# 88·230/255 + 250·25/255 = 103.88 → 104; 140 → 150.78 → 151; 230 over 248 → 231.76 → 232
BLUE_BRIGHT = (104, 151, 232)
# 88·45/255 + 250·210/255 = 221.41 → 221; 140 → 230.59 → 231; 230 over 248 → 244.82 → 245
BLUE_FAINT = (221, 231, 245)


def _paint(layer: NodeLayer, size: tuple[int, int] = (60, 40)) -> QImage:
    image = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(*BACKGROUND))
    painter = QPainter(image)
    layer.paint(painter)
    painter.end()
    return image


def _rgb(image: QImage, x: int, y: int) -> tuple[int, int, int]:
    colour = image.pixelColor(x, y)
    return (colour.red(), colour.green(), colour.blue())


def _layer(xy: list[tuple[float, float]], diameters: list[int], **style: object) -> NodeLayer:
    layer = NodeLayer(BACKGROUND)
    count = len(xy)
    layer.set_positions(np.array(xy, np.float64).reshape(-1, 2))
    layer.set_style(
        np.array([BLUE] * count, np.uint8),
        np.array(diameters, np.int64),
        np.asarray(style.get("dimmed", [False] * count), bool),
        np.asarray(style.get("ringed", [False] * count), bool),
    )
    return layer


@pytest.mark.parametrize(
    ("diameter", "cells"),
    [
        (1, {(0, 0)}),
        (2, {(0, 0), (1, 0), (0, 1), (1, 1)}),
        # 3 across: the corners' centres lie √2 = 1.41 from the middle, within 1.5: a square
        (3, {(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)}),
        # 4 across, middle at 1.5 (the cell 0 is dx -1): corners lie √4.5 = 2.12 out, over 2;
        # their neighbours √2.5 = 1.58, within
        (
            4,
            {(x, y) for x in (-1, 0, 1, 2) for y in (-1, 0, 1, 2)}
            - {(-1, -1), (2, -1), (-1, 2), (2, 2)},
        ),
    ],
)
def test_small_discs_cover_the_hand_counted_pixels(
    diameter: int, cells: set[tuple[int, int]]
) -> None:
    dx, dy = disc_offsets(diameter)
    assert set(zip(dx.tolist(), dy.tolist(), strict=True)) == cells


def test_a_small_dot_is_a_disc_of_its_colour_over_the_background() -> None:
    image = _paint(_layer([(20.5, 10.5)], [4]))  # cells 19-22 across, 9-12 down
    assert _rgb(image, 20, 10) == BLUE_BRIGHT
    assert {_rgb(image, x, y) for x, y in ((19, 10), (22, 11), (20, 9), (21, 12))} == {BLUE_BRIGHT}
    assert {_rgb(image, x, y) for x, y in ((19, 9), (22, 9), (19, 12), (22, 12))} == {BACKGROUND}
    assert _rgb(image, 23, 10) == BACKGROUND


def test_faint_dots_are_mixed_paler_and_lie_under_bright_ones() -> None:
    image = _paint(
        _layer([(10.5, 10.5), (30.5, 10.5), (31.5, 10.5)], [3, 3, 3], dimmed=[True, False, True])
    )
    assert _rgb(image, 10, 10) == BLUE_FAINT
    assert _rgb(image, 30, 10) == BLUE_BRIGHT  # the bright dot covers the faint one beside it
    assert _rgb(image, 32, 10) == BLUE_FAINT


def test_dots_at_and_beyond_the_edges_never_wrap_round() -> None:
    # Half off the left edge, wholly off each side: a wrong index would land on the far side.
    image = _paint(_layer([(-0.5, 20.5), (-30.0, 5.5), (90.0, 5.5), (10.5, -30.0)], [3] * 4))
    assert _rgb(image, 0, 20) == BLUE_BRIGHT
    width = image.width()
    for y in range(image.height()):
        assert _rgb(image, width - 1, y) == BACKGROUND
    others = {_rgb(image, x, y) for x in range(1, width) for y in range(image.height())}
    assert others == {BACKGROUND}


def test_a_big_dot_is_an_antialiased_sprite_and_a_ring_circles_its_node() -> None:
    image = _paint(_layer([(20.0, 20.0)], [20], ringed=[True]))
    centre = _rgb(image, 20, 20)
    # Through Qt's premultiplied blending: each channel within 1 of the hand-mixed value.
    assert all(abs(c - e) <= 1 for c, e in zip(centre, BLUE_BRIGHT, strict=True))
    assert _rgb(image, 20, 31) != BACKGROUND  # radius 10, the ring 12.5 across its middle
    assert _rgb(image, 20, 36) == BACKGROUND
    red = image.pixelColor(20, 20 + 12)
    assert red.red() > red.green() + 60  # the ring is red, not the node's blue


def test_nothing_is_drawn_until_the_style_matches_the_positions() -> None:
    layer = NodeLayer(BACKGROUND)
    layer.set_positions(np.array([[5.0, 5.0]]))
    image = _paint(layer)
    assert {_rgb(image, x, y) for x in range(10) for y in range(10)} == {BACKGROUND}


def test_an_even_disc_is_centred_within_half_a_pixel_of_its_node() -> None:
    # 4 across at x = 20.2: the pixels 18-21 span 18.0-22.0, centred at 20.0 (0.2 away);
    # drawn around floor(20.2) = 20 they would be 19-22, centred at 21.0 (0.8 away).
    image = _paint(_layer([(20.2, 10.2)], [4]))
    assert _rgb(image, 18, 10) == BLUE_BRIGHT
    assert _rgb(image, 21, 10) == BLUE_BRIGHT
    assert _rgb(image, 22, 10) == BACKGROUND
    assert _rgb(image, 19, 8) == BLUE_BRIGHT  # rows 8-11 likewise
    assert _rgb(image, 19, 12) == BACKGROUND
