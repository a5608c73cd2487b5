"""A note whose file name is not UTF-8: shown with the odd byte visible, opened from the
tree and from a backlink, its page and links as for any note."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.windows import MakeWindow

pytestmark = pytest.mark.gui
ODD = "odd/caf\udce9.md"  # the bytes b"odd/caf\xe9.md", as os.fsdecode gives them


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, window_on: MakeWindow) -> MainWindow:
    root = tmp_path / "vault"
    write(root, "A.md", "# A\n\nThe plain note.\n")
    os.makedirs(root / "odd")
    with open(os.path.join(os.fsencode(root), b"odd", b"caf\xe9.md"), "wb") as out:
        out.write(b"# Cafe\n\nLinks to [[A]].\n")
    win = window_on(root)
    qtbot.waitUntil(lambda: win.model is not None and win.model.ready, timeout=20_000)
    assert win.session is not None
    if win.session.current is None or win.session.current.node != "A.md":
        with qtbot.waitSignal(win.place_rendered, timeout=10_000):
            win.session.open_note("A.md")
    return win


def test_the_tree_shows_the_odd_byte_and_opens_the_note(window: MainWindow, qtbot: QtBot) -> None:
    assert window.tree.files() == [ODD, "A.md"]
    tree = window.tree
    folder = tree.model().index(0, 0)
    assert folder.data() == "odd"
    tree.expand(folder)
    row = tree.model().index(0, 0, folder)
    assert row.data() == "caf\\xe9"  # the title, the byte that is not UTF-8 written out
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        tree.activated.emit(row)
    assert window.session is not None and window.session.current is not None
    assert window.session.current.node == ODD
    assert "Links to A." in window.preview.toPlainText()


def test_a_backlink_from_the_odd_note_opens_it(window: MainWindow, qtbot: QtBot) -> None:
    assert window.session is not None
    qtbot.waitUntil(lambda: "Links to" in window.backlinks.linked.browser.toPlainText())
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.backlinks.linked.browser.anchorClicked.emit(QUrl("open:///odd/caf%E9.md?line=3"))
    assert window.session.current is not None and window.session.current.node == ODD
