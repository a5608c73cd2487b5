"""More than one note open: a note in a tab of its own, and a second note beside the first
in a split; links in them open in them; a vault change closes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from librarian_gui.ui.window.reading import ReadingPane


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    vault = tmp_path / "v"
    (vault / "diary").mkdir(parents=True)
    (vault / "MEMORY.md").write_text("# Memory\n\n- [[decision]]\n", encoding="utf-8")
    (vault / "decision.md").write_text(
        "# Use Postgres\n\nSee [[diary/2026-11-02]].\n", encoding="utf-8"
    )
    (vault / "diary" / "2026-11-02.md").write_text(
        "# Monday\n\nWe chose Postgres. Back to [[decision]].\n", encoding="utf-8"
    )
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.resize(1400, 860)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    yield win
    win.close()


def rendered(qtbot: QtBot, pane: ReadingPane, text: str) -> None:
    qtbot.waitUntil(lambda: text in pane.preview.toPlainText(), timeout=10_000)


def test_a_note_opens_in_a_tab_and_beside_the_main_one(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert window.session is not None
    centre = window.centre
    tabs_before = [centre.tabText(i) for i in range(centre.count())]
    # Ctrl+click on a link in the main preview: the note in a new tab, after the first
    monkeypatch.setattr(
        QApplication, "keyboardModifiers", lambda: Qt.KeyboardModifier.ControlModifier
    )
    window.preview.link_activated.emit("note", "decision.md", "")
    tab = centre.currentWidget()
    assert isinstance(tab, ReadingPane) and centre.indexOf(tab) == 1
    rendered(qtbot, tab, "See diary/2026-11-02")
    qtbot.waitUntil(lambda: centre.tabText(1) == "decision", timeout=5_000)
    assert window.session.current.node == "MEMORY.md"  # type: ignore[union-attr]
    # a plain click in the tab opens the link there
    monkeypatch.setattr(QApplication, "keyboardModifiers", lambda: Qt.KeyboardModifier(0))
    tab.preview.link_activated.emit("note", "diary/2026-11-02.md", "")
    rendered(qtbot, tab, "We chose Postgres.")
    assert tab.rel == "diary/2026-11-02.md"
    # Ctrl+Alt+click in the main preview: beside it, in the first tab
    monkeypatch.setattr(
        QApplication,
        "keyboardModifiers",
        lambda: Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier,
    )
    window.preview.link_activated.emit("note", "decision.md", "")
    side = window.reading.side
    assert side is not None and centre.currentIndex() == 0
    assert window.preview_split.indexOf(side) == 1
    rendered(qtbot, side, "Use Postgres")
    qtbot.waitUntil(  # half and half: both readable
        lambda: abs(window.preview_split.sizes()[0] - window.preview_split.sizes()[1]) <= 12,
        timeout=5_000,
    )
    # closing them leaves the window as it was
    window.reading.close_pane(side.pane_id)
    window.reading.close_pane(tab.pane_id)
    assert window.reading.side is None and window.preview_split.count() == 1
    assert [centre.tabText(i) for i in range(centre.count())] == tabs_before


def test_the_open_note_goes_to_a_tab_or_the_side_from_the_view_menu(
    window: MainWindow, qtbot: QtBot
) -> None:
    window.actions.side_requested.emit()
    side = window.reading.side
    assert side is not None and side.rel == "MEMORY.md"
    rendered(qtbot, side, "Memory")
    window.actions.tab_requested.emit()
    tab = window.centre.currentWidget()
    assert isinstance(tab, ReadingPane) and tab.rel == "MEMORY.md"


def test_a_link_clicked_after_another_vault_was_opened_acts_once(
    window: MainWindow, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "MEMORY.md").write_text("# Other\n\n[[b]]\n", encoding="utf-8")
    (other / "b.md").write_text("# B\n", encoding="utf-8")
    with qtbot.waitSignal(window.place_rendered, timeout=20_000):
        window.open_vault(other)
    monkeypatch.setattr(
        QApplication, "keyboardModifiers", lambda: Qt.KeyboardModifier.ControlModifier
    )
    window.preview.link_activated.emit("note", "b.md", "")
    assert len(window.reading.panes) == 1  # one tab, not one per vault opened so far


def test_a_theme_change_renders_the_extra_notes_again(window: MainWindow, qtbot: QtBot) -> None:
    side = window.reading.open_to_side("decision.md")
    rendered(qtbot, side, "Use Postgres")
    with qtbot.waitSignal(window.session.aside_ready, timeout=10_000) as again:  # type: ignore[union-attr]
        window.set_theme("dark")
    assert again.args[:2] == [side.pane_id, "decision.md"]
    window.set_theme("light")
