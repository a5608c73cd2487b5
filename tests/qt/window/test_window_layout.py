"""The window's layout at its default size: every sidebar tab in sight, and no text that
can make it wider."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from librarian_gui.resources import bundled_demo_vault
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow


def test_every_left_sidebar_tab_is_in_sight_at_the_default_size(
    qtbot: QtBot, tmp_path: Path
) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(bundled_demo_vault(), demo)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(demo, settings=settings, use_cache=False)
    qtbot.addWidget(window)
    window.resize(1400, 860)  # as the app opens it
    with qtbot.waitSignal(window.place_rendered, timeout=20_000):
        window.show()
    assert window.splitter.sizes()[0] == 330  # wide enough for six padded tabs (issue 28)
    bar = window.left.tabBar()
    assert [bar.tabText(i) for i in range(bar.count())] == [
        "Files",
        "Recent",
        "Tags",
        "Concepts",
        "Search",
        "Thin spots",
    ]
    assert all(bar.rect().contains(bar.tabRect(i)) for i in range(bar.count()))
    arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
    assert arrows == []  # no scroll arrows
    for view in ("editor", "tagging", "graph", "preview"):  # no centre tab squeezes it
        window.show_view(view)
        qtbot.wait(50)
        assert window.splitter.sizes()[0] == 330
    # a long path in the status bar (the dictionary chosen, say) does not widen the window
    window.statusBar().showMessage("Concept dictionary: " + "/a-long-folder" * 80 + ".json")
    qtbot.wait(50)
    assert window.width() == 1400
    assert window.minimumSizeHint().width() < 1400
    window.close()


def test_no_two_tabs_share_a_name(qtbot: QtBot, tmp_path: Path) -> None:
    """The left pane listing concepts and the centre's dictionary editor are two things:
    they had one name ("Concepts")."""
    demo = tmp_path / "demo"
    shutil.copytree(bundled_demo_vault(), demo)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(demo, settings=settings, use_cache=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.place_rendered, timeout=20_000):
        window.show()
    names = [window.left.tabText(i) for i in range(window.left.count())]
    names += [window.centre.tabText(i) for i in range(window.centre.count())]
    assert len(names) == len(set(names)), names
    assert "Dictionary" in names
    window.close()
