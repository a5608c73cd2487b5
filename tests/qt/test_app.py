"""The desktop entry point opens a window, and can render it to a PNG headless."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.app import main
from librarian_gui.resources import user_demo_vault
from librarian_gui.services.settings import Settings
from librarian_gui.ui.main_window import MainWindow


def test_main_window_names_the_vault(qtbot: QtBot, tmp_path: Path) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(tmp_path, settings=settings)
    qtbot.addWidget(window)
    window.show()
    assert window.windowTitle() == f"{tmp_path.name} — Librarian"


def test_screenshot_of_the_demo_vault(qtbot: QtBot, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    assert main(["--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 860)
    # the demo vault was copied to the user data folder, never used in place
    demo = user_demo_vault()
    assert (demo / "MEMORY.md").is_file()
    assert "librarian" in str(demo)


def test_screenshot_of_an_empty_vault_does_not_wait_for_a_note(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "empty.png"
    assert main([str(empty), "--screenshot", str(out)]) == 0
    assert QImage(str(out)).width() == 1400
