"""Light and dark palettes; "system" follows the platform's colour scheme."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def resolve(theme: str) -> bool:
    """Whether ``theme`` ("system", "light", "dark") means dark colours now."""
    return system_is_dark() if theme == "system" else theme == "dark"


def apply(app: QApplication, dark: bool) -> None:
    app.setStyle("Fusion")  # the same look everywhere, and it honours the palette fully
    app.setPalette(_dark_palette() if dark else _light_palette())


def _light_palette() -> QPalette:
    p = QPalette()
    base = {
        QPalette.ColorRole.Window: "#f3f3f1",
        QPalette.ColorRole.WindowText: "#1f2328",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#f6f8fa",
        QPalette.ColorRole.Text: "#1f2328",
        QPalette.ColorRole.Button: "#ececea",
        QPalette.ColorRole.ButtonText: "#1f2328",
        QPalette.ColorRole.Highlight: "#2f6fd6",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#2456b3",
        QPalette.ColorRole.LinkVisited: "#6b3fb3",
        QPalette.ColorRole.ToolTipBase: "#ffffe8",
        QPalette.ColorRole.ToolTipText: "#1f2328",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Mid: "#8a8f98",
    }
    for role, colour in base.items():
        p.setColor(role, QColor(colour))
    _disabled(p, text="#a4a8ae", button="#f1f1ef", base="#f6f6f4")
    return p


def _disabled(p: QPalette, *, text: str, button: str, base: str) -> None:
    """The Disabled group: setColor without a group sets all three, so without this a
    disabled button's text is as dark as an enabled one's and it looks clickable."""
    disabled = QPalette.ColorGroup.Disabled
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.PlaceholderText,
    ):
        p.setColor(disabled, role, QColor(text))
    p.setColor(disabled, QPalette.ColorRole.Button, QColor(button))
    p.setColor(disabled, QPalette.ColorRole.Base, QColor(base))


def _dark_palette() -> QPalette:
    p = QPalette()
    base = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e3e3e3",
        QPalette.ColorRole.Base: "#181a1b",
        QPalette.ColorRole.AlternateBase: "#24272a",
        QPalette.ColorRole.Text: "#e3e3e3",
        QPalette.ColorRole.Button: "#2b2d30",
        QPalette.ColorRole.ButtonText: "#e3e3e3",
        QPalette.ColorRole.Highlight: "#3b78e7",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.LinkVisited: "#c58af9",
        QPalette.ColorRole.ToolTipBase: "#2b2d30",
        QPalette.ColorRole.ToolTipText: "#e3e3e3",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Mid: "#9aa0a6",
    }
    for role, colour in base.items():
        p.setColor(role, QColor(colour))
    _disabled(p, text="#6f7378", button="#26282b", base="#1d1f20")
    return p
