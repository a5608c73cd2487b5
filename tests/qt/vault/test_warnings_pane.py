"""The vault's warnings in the window: a status-bar count, hidden when there are none, that
opens the list of files Librarian could not read as notes; live as files change."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.app import main
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write

pytestmark = pytest.mark.gui

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
PIPE = "not a regular file (a pipe or device); skipped"
FOLDER = "a folder named like a note; read as a folder"
# notes/loop -> .. is the vault itself (README, "Symbolic links").
LOOP = (
    "symbolic link to the vault itself or a folder above it: following it would include the "
    "vault in itself; skipped"
)
BINARY_NOTE = "binary content in a .md file; listed, not parsed"
LATIN = (
    "not valid UTF-8 (first bad byte at offset 5); read with replacement characters "
    "and never written back"
)


def hostile_vault(root: Path) -> Path:
    write(root, "MEMORY.md", "# MEMORY\n\n[[notes/plain]]\n")
    write(root, "notes/plain.md", "# Plain\n\nNothing wrong here.\n")
    write(root, "notes/bin.md", BINARY)
    write(root, "notes/latin.md", "# Caf\xe9\n".encode("latin-1"))
    os.mkfifo(root / "inbox-pipe.md")
    write(root, "y.md/inside.md", "# Inside\n")
    os.symlink("..", root / "notes" / "loop")
    return root


EXPECTED = [
    ("inbox-pipe.md", PIPE),
    ("notes/bin.md", BINARY_NOTE),
    ("notes/latin.md", LATIN),
    ("notes/loop", LOOP),
    ("y.md", FOLDER),
]


def test_the_status_bar_counts_the_warnings_and_lists_them(
    window_on: Callable[[Path], MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    window = window_on(hostile_vault(tmp_path / "v"))
    button = window.warnings_button
    qtbot.waitUntil(button.isVisible, timeout=10_000)
    assert button.text() == "⚠ 5 warnings"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.warnings.isVisible()
    assert window.warnings.rows() == EXPECTED
    assert window.warnings.summary.text() == (
        "Librarian found 5 problems in this vault; everything else is indexed."
    )


def test_clicking_a_notes_warning_opens_the_note_and_a_pipe_opens_nothing(
    window_on: Callable[[Path], MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    window = window_on(hostile_vault(tmp_path / "v"))
    qtbot.waitUntil(window.warnings_button.isVisible, timeout=10_000)
    window.warnings_button.click()
    qtbot.waitExposed(window.warnings)
    tree = window.warnings.tree

    def click(row: int) -> None:
        item = tree.topLevelItem(row)
        point = tree.visualItemRect(item).center()
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)

    with qtbot.waitSignal(window.place_rendered, timeout=10_000) as shown:
        click(1)  # notes/bin.md
    assert shown.args[0].node == "notes/bin.md"
    with qtbot.assertNotEmitted(window.warnings.note_chosen, wait=200):
        click(0)  # the pipe: not a note
    assert window.session is not None and window.session.current is not None
    assert window.session.current.node == "notes/bin.md"


def test_a_vault_without_warnings_shows_no_indicator(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "clean"
    write(vault, "MEMORY.md", "# MEMORY\n")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(window)
    assert window.session is not None
    # Signals from the scan arrive through the event loop, which runs only from here on.
    with qtbot.waitSignal(window.session.warnings_changed, timeout=20_000) as sent:
        window.show()
    assert sent.args[0] == ()
    assert window.warnings_button.isHidden()
    window.close()


def test_the_count_follows_files_changing_outside(
    window_on: Callable[[Path], MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    vault = tmp_path / "v"
    write(vault, "MEMORY.md", "# MEMORY\n")
    window = window_on(vault)
    button = window.warnings_button
    write(vault, "later/bin.md", BINARY)
    qtbot.waitUntil(button.isVisible, timeout=10_000)
    assert button.text() == "⚠ 1 warning"
    write(vault, "later/odd.md", "# Caf\xe9\n".encode("latin-1"))
    qtbot.waitUntil(lambda: button.text() == "⚠ 2 warnings", timeout=10_000)
    assert window.warnings.rows() == [("later/bin.md", BINARY_NOTE), ("later/odd.md", LATIN)]
    (vault / "later/bin.md").unlink()
    write(vault, "later/odd.md", "# Cafe\n")
    qtbot.waitUntil(button.isHidden, timeout=10_000)
    assert window.warnings.rows() == []


def test_an_unreadable_note_is_listed_and_previewed_with_the_reason(
    window_on: Callable[[Path], MainWindow],
    tmp_path: Path,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CI runs as root, which chmod 000 does not stop: opening it raises instead."""
    vault = tmp_path / "v"
    write(vault, "MEMORY.md", "# MEMORY\n\n[[locked]]\n")
    write(vault, "locked.md", "# Locked\n")
    real_open = os.open

    def refusing_open(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith("locked.md"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing_open)
    window = window_on(vault)
    qtbot.waitUntil(window.warnings_button.isVisible, timeout=10_000)
    assert window.warnings.rows() == [("locked.md", "cannot be read: permission denied")]
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("locked.md")
    lines = [line for line in window.preview.toPlainText().splitlines() if line.strip()]
    assert lines == [
        "locked",
        "locked.md cannot be read (permission denied); not shown.",
        "Check its permissions. Links to it still work.",
    ]


def test_a_screenshot_of_the_warnings_view(tmp_path: Path) -> None:
    vault = hostile_vault(tmp_path / "v")
    out = tmp_path / "warnings.png"
    assert main([str(vault), "--view", "warnings", "--screenshot", str(out)]) == 0
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1400, 860)
