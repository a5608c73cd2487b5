"""The desktop entry point opens a window, and can render it to a PNG headless."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.app import main
from librarian_gui.resources import user_demo_vault
from librarian_gui.ui.main_window import MainWindow


def test_main_window_names_the_vault(qtbot: QtBot, tmp_path: Path) -> None:
    window = MainWindow(tmp_path)
    qtbot.addWidget(window)
    window.show()
    assert window.windowTitle() == f"{tmp_path.name} — Librarian"


def test_screenshot_of_the_demo_vault(qtbot: QtBot, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    assert main(["--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    # the demo vault was copied to the user data folder, never used in place
    demo = user_demo_vault()
    assert (demo / "MEMORY.md").is_file()
    assert "librarian" in str(demo)
