"""Help and first run: the shortcuts (F1) and About, an uncaught error logged and told with
the window going on, an empty vault saying what to do."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from librarian_gui import __version__
from librarian_gui.services.crash import CrashReporter
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.help import SHORTCUTS, ShortcutsDialog
from librarian_gui.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n\n- [[a]]\n", encoding="utf-8")
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    yield win
    win.close()


def menu_shortcuts(window: MainWindow) -> dict[str, str]:
    found = {}
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        for action in menu.actions() if menu is not None else []:  # type: ignore[union-attr]
            key = action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
            if key:
                assert key not in found, f"{key} is {found.get(key)} and {action.text()}"
                found[key] = action.text().replace("&", "")
    return found


def test_every_menu_shortcut_is_one_action_and_listed_under_f1(window: MainWindow) -> None:
    keys = menu_shortcuts(window)  # Ctrl+O was both Open Vault and the quick switcher
    assert keys["Ctrl+O"] == "Quick Switcher…"
    assert keys["Ctrl+Shift+O"] == "Open Vault…"
    listed = {key for _group, rows in SHORTCUTS for key, _what in rows}
    for key in keys:
        assert any(key in shown for shown in listed), f"{key} ({keys[key]}) is not under F1"


def test_ctrl_o_opens_the_switcher(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.switcher.isVisible, timeout=5_000)


def test_f1_lists_the_shortcuts_and_about_names_version_and_log(
    window: MainWindow, tmp_path: Path
) -> None:
    window.actions.shortcuts_action.trigger()
    dialog = window.actions.dialogs[0]
    assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
    assert "Quick switcher" in dialog.label.text()
    window.actions.log_path = tmp_path / "logs" / "librarian.log"
    about = next(a for a in window.menuBar().actions() if a.text() == "&Help").menu()
    next(a for a in about.actions() if "About" in a.text()).trigger()  # type: ignore[union-attr]
    box = window.actions.dialogs[0]
    assert isinstance(box, QMessageBox)
    assert f"Librarian {__version__}" in box.text()
    assert str(tmp_path / "logs" / "librarian.log") in box.text()


@pytest.mark.qt_no_exception_capture
def test_an_uncaught_error_is_logged_and_told_and_the_window_goes_on(
    window: MainWindow, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python's own hooks underneath (print the traceback), as in the app; not the test
    # runner's, which would fail the test for an error this one makes on purpose.
    monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
    monkeypatch.setattr(threading, "excepthook", threading.__excepthook__)
    reporter = CrashReporter(tmp_path / "log")
    reporter.install()
    reporter.crashed.connect(window.show_crash)
    window.actions.log_path = reporter.log_path
    try:

        def failing_slot() -> None:
            raise ValueError("a slot that fails")

        QTimer.singleShot(0, failing_slot)
        qtbot.waitUntil(lambda: bool(window.crash_boxes), timeout=5_000)
        box = window.crash_boxes[0]
        assert box.isVisible() and not box.isModal()
        assert box.text().startswith("ValueError: a slot that fails\n")
        assert str(reporter.log_path) in box.text()
        assert "failing_slot" in box.detailedText()
        window.crash_boxes = []

        thread = threading.Thread(target=failing_slot, name="worker-x")
        thread.start()
        thread.join()
        qtbot.waitUntil(lambda: bool(window.crash_boxes), timeout=5_000)
        assert (
            window.crash_boxes[0]
            .text()
            .startswith("ValueError: a slot that fails in thread worker-x\n")
        )
    finally:
        reporter.uninstall()
    log = reporter.log_path.read_text(encoding="utf-8")
    assert log.count("ValueError: a slot that fails") == 2
    assert "uncaught in thread worker-x" in log
    assert window.isVisible()  # it goes on
    window.session.open_note("a.md")  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: window.session.current.node == "a.md", timeout=5_000)  # type: ignore[union-attr]


def test_an_empty_vault_says_what_to_do(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "empty"
    vault.mkdir()
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(
        lambda: "This vault has no notes yet" in win.preview.toPlainText(), timeout=20_000
    )
    text = win.preview.toPlainText()
    assert str(vault) in text
    assert "File → Open Vault… (Ctrl+Shift+O)" in text
    win.close()


def test_hovering_a_link_to_a_note_shows_its_start(window: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QToolTip

    from librarian_gui.ui.preview.hover import hovered_note

    assert hovered_note("note:///a.md#top") == "a.md"
    assert hovered_note("open:///sub/My%20Note.md?line=3") == "sub/My Note.md"
    assert hovered_note("https://example.org/a.md") is None
    assert hovered_note("note:///img.png") is None
    assert hovered_note("link:///0") is None  # a Link button

    (window.model.root / "a.md").write_text(  # type: ignore[union-attr]
        "---\ntags: [x]\n---\n# A\n\nFirst <line> of A.\n", encoding="utf-8"
    )
    qtbot.waitUntil(lambda: window.session.store is not None, timeout=5_000)  # type: ignore[union-attr]
    window.preview.highlighted.emit(QUrl("note:///a.md"))
    qtbot.waitUntil(lambda: window.hover.shown is not None, timeout=10_000)
    rel, shown = window.hover.shown  # type: ignore[misc]
    assert rel == "a.md"
    assert shown == (
        "<b>a</b> <span style='color:gray'>a.md</span><hr># A<br><br>First &lt;line&gt; of A."
    )
    assert QToolTip.isVisible()
    window.preview.highlighted.emit(QUrl())  # the mouse left the link
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=5_000)


def test_the_system_theme_is_followed_while_the_window_is_open(
    window: MainWindow, qtbot: QtBot
) -> None:
    from PySide6.QtGui import QGuiApplication, QPalette
    from PySide6.QtWidgets import QApplication

    window.set_theme("system", dark=False)
    hints = QGuiApplication.styleHints()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the desktop turned dark
    assert window.session is not None and window.session.dark
    assert QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 80
    window.set_theme("light")  # a chosen theme stays, whatever the desktop does
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert not window.session.dark
    assert QApplication.palette().color(QPalette.ColorRole.Base).lightness() > 200
