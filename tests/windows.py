"""The window on a vault of a test's own, offscreen: made, shown, and closed after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow

MakeWindow = Callable[[Path], MainWindow]


@pytest.fixture
def window_on(qtbot: QtBot, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MakeWindow]:
    """``window_on(vault)``: a window on ``vault`` with settings of its own (never the
    machine's), shown once its first page is drawn; every one made is closed afterwards."""
    made: list[MainWindow] = []
    settings_dir = tmp_path_factory.mktemp("settings")

    def make(vault: Path) -> MainWindow:
        ini = settings_dir / f"settings{len(made)}.ini"
        settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
        win = MainWindow(vault, settings=settings, use_cache=False)
        qtbot.addWidget(win)
        made.append(win)
        win.resize(1300, 820)
        with qtbot.waitSignal(win.place_rendered, timeout=30_000):
            win.show()
        return win

    yield make
    for win in made:
        win.warnings.close()
        win.close()
