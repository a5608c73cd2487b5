"""The window on a vault of a test's own, offscreen: made, shown, and closed after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow


class MakeWindow(Protocol):
    def __call__(self, vault: Path, *, use_cache: bool = False) -> MainWindow: ...


@pytest.fixture
def window_on(qtbot: QtBot, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MakeWindow]:
    """``window_on(vault)``: a window on ``vault`` with settings of its own (never the
    machine's), shown once its first page is drawn; every one made is closed afterwards.
    ``use_cache``: it keeps its caches, as a person's window does."""
    made: list[MainWindow] = []
    settings_dir = tmp_path_factory.mktemp("settings")

    def make(vault: Path, *, use_cache: bool = False) -> MainWindow:
        ini = settings_dir / f"settings{len(made)}.ini"
        settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
        win = MainWindow(vault, settings=settings, use_cache=use_cache)
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
