"""The palettes: a disabled control looks disabled in both themes (drawn, then measured)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from librarian_gui.ui import theme


def text_contrast(button: QPushButton) -> float:
    """How far the darkest (light theme) or lightest (dark theme) pixel of the drawn button
    is from its face's colour, in lightness: the text's contrast."""
    image: QImage = button.grab().toImage()
    face = QColor(image.pixel(image.width() // 2, 3)).lightnessF()  # above the text
    pixels = [
        QColor(image.pixel(x, y)).lightnessF()
        for x in range(4, image.width() - 4)
        for y in range(4, image.height() - 4)
    ]
    return max(abs(p - face) for p in pixels)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_a_disabled_button_is_drawn_fainter_than_an_enabled_one(qtbot: QtBot, dark: bool) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before, style = app.palette(), app.style().name()
    theme.apply(app, dark)
    try:
        enabled, disabled = QPushButton("Save"), QPushButton("Save")
        disabled.setEnabled(False)
        for button in (enabled, disabled):
            qtbot.addWidget(button)
            button.resize(90, 30)
            button.show()
        sharp, faint = text_contrast(enabled), text_contrast(disabled)
        assert sharp > 0.6
        assert faint < sharp * 0.6
        palette = app.palette()
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text):
            assert palette.color(QPalette.ColorGroup.Disabled, role) != palette.color(
                QPalette.ColorGroup.Active, role
            )
    finally:
        app.setStyle(style)
        app.setPalette(before)
