"""The window shows nothing reached through a symlink out of the vault, or through a link to
a folder above it: not in the tree, not in the preview, not as an image or an embed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from pytestqt.qtbot import QtBot

from librarian_gui.ui.preview.view import PreviewView
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.windows import MakeWindow

pytestmark = pytest.mark.gui

IMAGE = QTextDocument.ResourceType.ImageResource


def save_png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = QImage(12, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    assert image.save(str(path))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """``shelf/vault`` with links out (a note, an image, a folder) and a link to ``shelf``;
    ``shelf/sibling`` is another vault, ``outside`` is no vault at all."""
    root = tmp_path / "shelf" / "vault"
    write(root, "Home.md", "Links: [[Real]] and [[leak]].\n\n![[leak]]\n\n![[pic.png]]\n")
    write(root, "Real.md", "Real note.\n")
    save_png(root / "ok.png")
    write(tmp_path, "shelf/sibling/Other.md", "A sibling vault's note.\n")
    write(tmp_path, "outside/secret.md", "TOP SECRET\n")
    write(tmp_path, "outside/folder/inner.md", "Inner secret.\n")
    save_png(tmp_path / "outside" / "pic.png")
    os.symlink(tmp_path / "outside" / "secret.md", root / "leak.md")
    os.symlink(tmp_path / "outside" / "pic.png", root / "pic.png")
    os.symlink(tmp_path / "outside" / "folder", root / "ext")
    os.symlink("..", root / "shelf")
    return root


@pytest.fixture
def window(vault: Path, window_on: MakeWindow) -> MainWindow:
    return window_on(vault)


def test_tree_and_preview_show_nothing_reached_through_a_link_out(
    window: MainWindow, qtbot: QtBot, vault: Path, tmp_path: Path
) -> None:
    assert window.session is not None and window.session.current is not None
    assert window.session.current.node == "Home.md"
    assert sorted(window.tree.files()) == ["Home.md", "Real.md", "ok.png"]
    text = window.preview.toPlainText()
    assert "TOP SECRET" not in text
    assert "Inner secret." not in text
    assert window.preview.loadResource(IMAGE, QUrl("note:///pic.png")) is None
    assert window.preview.loadResource(IMAGE, QUrl("note:///shelf/vault/ok.png")) is None
    assert isinstance(window.preview.loadResource(IMAGE, QUrl("note:///ok.png")), QImage)

    with qtbot.waitSignal(window.session.note_missing, timeout=10_000) as missing:
        window.session.open_note("leak.md")
    assert missing.args == ["leak.md", "leak.md is not in the vault (deleted or moved away)"]

    # Live: a link out made while the window is open never reaches the tree. The note
    # written after it shows that its event has been handled.
    os.symlink(tmp_path / "outside" / "secret.md", vault / "late.md")
    write(vault, "Fresh.md", "Fresh.\n")
    qtbot.waitUntil(lambda: "Fresh.md" in window.tree.files(), timeout=10_000)
    assert sorted(window.tree.files()) == ["Fresh.md", "Home.md", "Real.md", "ok.png"]


def test_the_preview_loads_no_image_through_a_link_to_a_folder_above_the_vault(
    qtbot: QtBot, vault: Path
) -> None:
    view = PreviewView(vault_root=vault)
    qtbot.addWidget(view)
    os.symlink("ok.png", vault / "alias.png")
    assert view.loadResource(IMAGE, QUrl("note:///shelf/vault/ok.png")) is None
    assert view.loadResource(IMAGE, QUrl("note:///shelf/sibling/x.png")) is None
    image = view.loadResource(IMAGE, QUrl("note:///alias.png"))
    assert isinstance(image, QImage)
    assert (image.width(), image.height()) == (12, 8)
