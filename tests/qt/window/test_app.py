"""The desktop entry point opens a window, and can render it to a PNG headless."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from librarian_gui.app import main, open_window
from librarian_gui.resources import user_demo_vault
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.windows import MakeWindow


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
    from PySide6.QtWidgets import QApplication

    icon = QApplication.windowIcon()  # the application's icon, from resources/icons
    assert icon.pixmap(32, 32).width() == 32
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


def test_note_is_found_by_title_and_a_missing_one_exits_4(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("index\n", encoding="utf-8")
    (vault / "people").mkdir()
    (vault / "people" / "Priya Raman.md").write_text("# Priya\n", encoding="utf-8")
    out = tmp_path / "p.png"
    assert main([str(vault), "--note", "priya raman", "--screenshot", str(out)]) == 0
    assert QImage(str(out)).width() == 1400
    assert main([str(vault), "--note", "Nobody", "--screenshot", str(out)]) == 4


def test_the_window_opens_the_requested_note_once_indexed(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("index\n", encoding="utf-8")
    (vault / "sub").mkdir()
    (vault / "sub" / "Deep Note.md").write_text("text\n", encoding="utf-8")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(vault, settings=settings, open_note="deep note", use_cache=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.place_rendered, timeout=20_000) as rendered:
        window.show()
    assert rendered.args[0].node == "sub/Deep Note.md"
    assert window.missing_note is None
    window.close()


DICTIONARY = '{"rag": {"aliases": ["RAG"]}, "crdt": {"aliases": ["CRDT"]}}\n'


def test_concept_is_selected_in_the_editor(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("We use [[crdt]] and RAG.\n", encoding="utf-8")
    (vault / "concepts.json").write_text(DICTIONARY, encoding="utf-8")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = open_window(vault, settings, concept="crdt")
    qtbot.addWidget(window)
    window.show()
    assert window.concept_tabs is not None
    editor = window.concept_tabs.editor
    assert not editor.loaded  # read only when the tab is first shown
    window.show_view("editor")
    assert editor.loaded
    current = editor.table.currentIndex()
    assert editor.proxy.index(current.row(), 0).data() == "crdt"
    assert editor.detail.title.text() == "crdt"


def test_a_concept_given_in_other_case_is_found_and_a_missing_one_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("index\n", encoding="utf-8")
    out = tmp_path / "c.png"
    assert main([str(vault), "--concept", "rag", "--screenshot", str(out)]) == 4
    assert capsys.readouterr().err == (
        f"librarian-gui: no concept 'rag': {vault} has no concept dictionary (concepts.json)\n"
    )
    (vault / "concepts.json").write_text(DICTIONARY, encoding="utf-8")
    assert main([str(vault), "--concept", "Nope", "--screenshot", str(out)]) == 4
    assert capsys.readouterr().err == (
        f"librarian-gui: no concept 'Nope' in {vault.resolve() / 'concepts.json'}\n"
    )
    assert not out.exists()  # no window was made
    assert main([str(vault), "--concept", "RAG", "--view", "editor", "--screenshot", str(out)]) == 0
    assert QImage(str(out)).width() == 1400


def test_screenshot_flags_change_no_saved_setting_and_bad_ones_say_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    (vault / "a").mkdir(parents=True)
    (vault / "b").mkdir()
    (vault / "a" / "Overview.md").write_text("# A\n", encoding="utf-8")
    (vault / "b" / "Overview.md").write_text("# B\n", encoding="utf-8")
    saved = Settings()
    before = saved.theme()
    saved.set_theme("light")
    out = tmp_path / "o.png"
    try:
        assert main([str(vault), "--theme", "dark", "--screenshot", str(out)]) == 0
        assert Settings().theme() == "light"  # the screenshot's theme was not remembered
    finally:
        saved.set_theme(before)
    capsys.readouterr()
    assert main([str(vault), "--note", "Overview", "--screenshot", str(out)]) == 5
    assert capsys.readouterr().err == (
        "librarian-gui: 'Overview' matches 2 notes: a/Overview.md, b/Overview.md; "
        f"give the path to choose one (in {vault})\n"
    )
    assert main([str(vault), "--note", "Overveiw", "--screenshot", str(out)]) == 4
    assert "did you mean a/Overview.md, b/Overview.md?" in capsys.readouterr().err
    nowhere = tmp_path / "nowhere" / "x.png"
    assert main([str(vault), "--screenshot", str(nowhere)]) == 2
    assert capsys.readouterr().err == (
        f"librarian-gui: --screenshot: no folder {nowhere.parent} to write into\n"
    )


def test_a_screenshot_at_device_pixel_ratio_2_has_every_pixel(tmp_path: Path) -> None:
    """On a high-DPI screen (QT_SCALE_FACTOR=2) the PNG has twice the pixels each way: the
    window is drawn at that resolution (looked at: the text is sharp), not scaled up."""
    import os
    import subprocess
    import sys

    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n\nSharp text.\n", encoding="utf-8")
    out = tmp_path / "hidpi.png"
    env = {**os.environ, "QT_SCALE_FACTOR": "2", "QT_QPA_PLATFORM": "offscreen"}
    code = "import sys; from librarian_gui.app import main; sys.exit(main(sys.argv[1:]))"
    subprocess.run(
        [sys.executable, "-c", code, str(vault), "--screenshot", str(out)],
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
    )
    image = QImage(str(out))
    assert (image.width(), image.height()) == (2800, 1720)  # grabbed at device pixels


def test_a_vault_without_memory_opens_its_front_page(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """Issue 28: a vault without MEMORY.md opened its alphabetically first note (on
    logseq-docs an empty journal page); the Index note tab checks the same note."""
    vault = tmp_path / "v"
    write(vault, "aaa.md", "")
    write(vault, "pages/Start here.md", "# Start here\n\n- [[aaa]]\n")
    window = window_on(vault)
    qtbot.waitUntil(
        lambda: window.session is not None and window.session.current is not None, timeout=20_000
    )
    assert window.session.current.node == "pages/Start here.md"  # type: ignore[union-attr]
    pane = window.index_note.pane
    qtbot.waitUntil(lambda: pane.health is not None, timeout=20_000)
    assert pane.health.index == "pages/Start here.md"
    assert pane.index_edit.text() == "pages/Start here.md"


def test_a_screenshot_of_a_note_not_found_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    (vault / "a").mkdir(parents=True)
    (vault / "b").mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    (vault / "a" / "Twin.md").write_text("# A\n", encoding="utf-8")
    (vault / "b" / "Twin.md").write_text("# B\n", encoding="utf-8")
    out = tmp_path / "shot.png"
    assert main([str(vault), "--note", "nosuch", "--screenshot", str(out)]) == 4
    assert not out.exists()  # not a picture of another note
    assert main([str(vault), "--note", "Twin", "--screenshot", str(out)]) == 5
    assert not out.exists()
    assert main([str(vault), "--concept", "nosuch", "--screenshot", str(out)]) == 4
    assert not out.exists()
    assert capsys.readouterr().err.count("librarian-gui: ") == 3


def test_a_screenshot_keeps_what_the_user_cannot_act_on_off_stderr(
    tmp_path: Path, qtlog: Any
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    assert main([str(vault), "--screenshot", str(tmp_path / "shot.png")]) == 0
    said = [record.message for record in qtlog.records]
    assert [m for m in said if "propagateSizeHints" in m] == []


@pytest.mark.qt_log_ignore("A warning the user can act on")
def test_the_screenshot_filter_lets_every_other_qt_message_through(qtlog: Any) -> None:
    from PySide6.QtCore import qWarning

    from librarian_gui.app import quiet_platform_messages

    with quiet_platform_messages():
        qWarning("This plugin does not support propagateSizeHints()")
        qWarning("A warning the user can act on")
    qWarning("This plugin does not support propagateSizeHints()")  # the filter is gone
    assert [record.message for record in qtlog.records] == [
        "A warning the user can act on",
        "This plugin does not support propagateSizeHints()",
    ]
