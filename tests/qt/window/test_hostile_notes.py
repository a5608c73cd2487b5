"""Notes the index lists but cannot parse (binary, over 16 MB, UTF-16), and notes read with
replacement characters (not UTF-8): the preview says so, and --screenshot still exits."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.app import main
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import REPO, write
from tests.windows import MakeWindow

pytestmark = pytest.mark.gui

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
BIG_BYTES = 50_000_000
UTF16 = "# Hello\n\nA note saved as UTF-16 that links [[MEMORY]].\n".encode("utf-16")


def _hostile_vault(root: Path) -> Path:
    write(root, "MEMORY.md", "# MEMORY\n\n- [[bin]]\n- [[big]]\n- [[utf16]]\n")
    write(root, "bin.md", BINARY)
    with open(root / "big.md", "wb") as fh:  # sparse where the file system allows it
        fh.truncate(BIG_BYTES)
    write(root, "utf16.md", UTF16)
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _hostile_vault(tmp_path_factory.mktemp("hostile") / "vault")


@pytest.mark.parametrize("note", ["bin.md", "big.md", "utf16.md"])
def test_a_screenshot_of_a_note_that_is_not_parsed_exits(
    hostile: Path, tmp_path: Path, note: str
) -> None:
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # The timeout only turns a hang into a failure; it measures nothing.
    command = [sys.executable, "-m", "librarian_gui", str(hostile), "--note", note]
    done = subprocess.run(
        [*command, "--screenshot", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 860)


@pytest.fixture
def window(hostile: Path, window_on: MakeWindow) -> MainWindow:
    return window_on(hostile)


@pytest.mark.parametrize(
    ("note", "lines"),
    [
        (
            "bin.md",
            [
                "bin",
                "bin.md is a binary file named .md; not shown.",
                "If it is not a note, give it its own extension. Links to it still work.",
            ],
        ),
        (
            "big.md",
            [
                "big",
                "big.md is 50.0 MB, over the 16 MB limit; not shown.",
                "Open it in your editor (Ctrl+E) to read it. Links to it still work.",
            ],
        ),
        (
            "utf16.md",
            [
                "utf16",
                "utf16.md is UTF-16 text, not UTF-8; not shown.",
                "Save it as UTF-8 to read it here. Links to it still work.",
            ],
        ),
    ],
)
def test_the_preview_of_a_note_that_is_not_parsed_says_why(
    window: MainWindow, qtbot: QtBot, note: str, lines: list[str]
) -> None:
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=10_000) as shown:
        window.session.open_note(note)
    assert shown.args[0].node == note
    text = window.preview.toPlainText()
    assert [line for line in text.splitlines() if line.strip()] == lines
    assert window.centre.tabText(0) == lines[0]


def _boom(*_args: object, **_kwargs: object) -> object:
    raise ValueError("boom")


def test_a_screenshot_exits_when_the_renderer_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "v"
    write(vault, "MEMORY.md", "# MEMORY\n\n[[odd]]\n")
    write(vault, "odd.md", "# Odd\n")
    monkeypatch.setattr("librarian_gui.core.render.render.render_note", _boom)
    out = tmp_path / "odd.png"
    assert main([str(vault), "--note", "odd", "--screenshot", str(out)]) == 0
    assert QImage(str(out)).width() == 1400


def test_the_preview_says_when_the_renderer_fails(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "v"
    write(vault, "odd.md", "# Odd\n")
    monkeypatch.setattr("librarian_gui.core.render.render.render_note", _boom)
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.show()
    expected = "odd.md could not be shown: the preview failed (ValueError: boom)."
    qtbot.waitUntil(lambda: expected in win.preview.toPlainText(), timeout=20_000)
    assert [ln for ln in win.preview.toPlainText().splitlines() if ln.strip()] == [
        "odd.md",
        expected,
    ]
    win.close()


def test_a_huge_note_previews_its_first_200_000_characters(
    window_on: Callable[[Path], MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    """2,000,000 characters took the GUI thread ~8 s to lay out (setHtml)."""
    vault = tmp_path / "v"
    write(vault, "MEMORY.md", "# MEMORY\n")
    write(vault, "huge.md", ("x" * 49 + "\n") * 10_000)  # 500,000 characters
    window = window_on(vault)
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=20_000):
        window.session.open_note("huge.md")
    notice = (
        "This note is too large to preview in full: showing the first 199,999 of 500,000 "
        "characters. Open it in an editor to see the rest."
    )
    lines = [line for line in window.preview.toPlainText().splitlines() if line.strip()]
    assert lines[0] == notice
    assert lines[-1] == notice
    # the first 4,000 lines of 49 x, laid out in one paragraph
    assert window.preview.toPlainText().count("x") == 4_000 * 49


def test_backlinks_show_20_lines_of_a_note_linking_1000_times(
    window_on: Callable[[Path], MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    """277,000 linking lines of one note took the GUI thread 15 s to lay out."""
    vault = tmp_path / "v"
    write(vault, "MEMORY.md", "# MEMORY\n")
    write(vault, "log.md", "".join(f"entry {i} for [[MEMORY]]\n" for i in range(1000)))
    write(vault, "other.md", "once [[MEMORY]]\n")
    window = window_on(vault)
    qtbot.waitUntil(lambda: window.backlinks.linked_count == 1001, timeout=10_000)
    assert window.backlinks.linked.header.text() == "Linked mentions (1001 in 2 notes)"
    lines = [line.rstrip() for line in window.backlinks.linked.browser.toPlainText().splitlines()]
    assert lines == [
        "log (1000)",
        *(f"{i + 1}  entry {i} for [[MEMORY]]" for i in range(20)),
        "… and 980 more lines in this note.",
        "other (1)",
        "1  once [[MEMORY]]",
    ]


LOSSY_NOTICE = (
    "Not UTF-8: shown with replacement characters; Librarian never writes this note back."
)


@pytest.fixture
def latin_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "latin"
    write(vault, "MEMORY.md", "# MEMORY\n\nThe index.\n")
    write(vault, "Café.md", "# Caf\xe9\n\nThe caf\xe9 keeps MEMORY on paper.\n".encode("latin-1"))
    write(vault, "good.md", "# Good\n\nA UTF-8 note about MEMORY.\n")
    return vault


def test_a_note_that_is_not_utf8_previews_with_a_notice_on_top(
    window_on: Callable[[Path], MainWindow], latin_vault: Path, qtbot: QtBot
) -> None:
    window = window_on(latin_vault)
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("Café.md")
    lines = [line for line in window.preview.toPlainText().splitlines() if line.strip()]
    assert lines == [LOSSY_NOTICE, "Caf\ufffd", "The caf\ufffd keeps MEMORY on paper."]


def test_a_utf8_note_has_no_encoding_notice(
    window_on: Callable[[Path], MainWindow], latin_vault: Path, qtbot: QtBot
) -> None:
    window = window_on(latin_vault)
    assert window.session is not None
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("good.md")
    lines = [line for line in window.preview.toPlainText().splitlines() if line.strip()]
    assert lines == ["Good", "A UTF-8 note about MEMORY."]


def test_mentions_in_a_note_that_is_not_utf8_offer_no_link_button(
    window_on: Callable[[Path], MainWindow], latin_vault: Path, qtbot: QtBot
) -> None:
    window = window_on(latin_vault)  # MEMORY.md, mentioned unlinked by both notes
    qtbot.waitUntil(lambda: window.backlinks.unlinked_count == 2, timeout=10_000)
    browser = window.backlinks.unlinked.browser
    lines = [line.rstrip() for line in browser.toPlainText().splitlines()]
    assert lines == [
        "Café not UTF-8: Librarian never writes it",
        "3  The caf\ufffd keeps MEMORY on paper.",
        "good",
        "3  A UTF-8 note about MEMORY.  Link",
    ]
    assert browser.toHtml().count('href="link:///') == 1
