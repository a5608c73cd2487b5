"""The Thin spots pane in the window, on a vault whose thin spots are known by hand: the
three groups list exactly them, follow the shared threshold, and a click opens the row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from librarian_gui.core.related.vault import RelatedIndex
from librarian_gui.services.settings import Settings
from librarian_gui.ui.thin_spots.pane import ISOLATED, ORPHANS, UNRELATED, ThinSpotsPane
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.related_vault import LONELY, build_related, write_related_vault
from tests.related_vault import ORPHANS as ORPHAN_NOTES


@pytest.fixture
def window(tmp_path: Path, qtbot: QtBot) -> Iterator[tuple[MainWindow, RelatedIndex]]:
    root = tmp_path / "vault"
    write_related_vault(root)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set_related_threshold(0.10)
    win = MainWindow(root, settings=settings, use_cache=False, open_note="bread/starter.md")
    qtbot.addWidget(win)
    win.resize(1400, 860)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    _index, related = build_related(root)  # as the related service will hand it over
    yield win, related
    win.close()


def _shown(qtbot: QtBot, win: MainWindow, ready: object = None) -> None:
    """Wait for the pane to show counts (with the related notes' group once it has them)."""
    qtbot.waitUntil(
        lambda: (
            win.thin_spots.spots is not None
            and (ready is None or win.thin_spots.spots.unrelated is not None)
        ),
        timeout=10_000,
    )


def _click(qtbot: QtBot, pane: ThinSpotsPane, group: int, row: int) -> None:
    parent = pane.group(group)  # a child's handle lives only as long as its parent's
    item = parent.child(row)
    rect = pane.tree.visualItemRect(item)
    qtbot.mouseClick(pane.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_pane_lists_exactly_the_thin_spots(
    qtbot: QtBot, window: tuple[MainWindow, RelatedIndex]
) -> None:
    win, related = window
    pane = win.thin_spots
    _shown(qtbot, win)
    assert pane.rows(UNRELATED) == []  # waiting for the related notes
    waiting = pane.group(UNRELATED)
    assert waiting.child(0).text(0) == "Waiting for the related notes…"
    win.show_related(related)
    _shown(qtbot, win, ready=True)
    assert pane.rows(UNRELATED) == [LONELY]
    assert pane.rows(ORPHANS) == sorted(ORPHAN_NOTES)
    assert pane.rows(ISOLATED) == ["kubernetes", "heron", "sourdough"]
    assert pane.group(UNRELATED).text(0) == "No related note  (1)"
    assert pane.group(ORPHANS).text(0) == f"Orphans  ({len(ORPHAN_NOTES)})"
    assert pane.group(ISOLATED).text(0) == "Isolated concepts  (3)"
    isolated = pane.group(ISOLATED)
    assert isolated.child(1).text(0) == "heron  ·  in 1 note"


def test_the_pane_follows_the_shared_threshold_and_changes(
    qtbot: QtBot, window: tuple[MainWindow, RelatedIndex]
) -> None:
    win, related = window
    pane = win.thin_spots
    win.show_related(related)
    _shown(qtbot, win, ready=True)
    # The chess notes score 0.94 together and the ops notes 1.0 (all their shared words are
    # each other's); every other pair is below 0.90.
    win.set_related_threshold(0.92)
    assert win.settings.related_threshold() == 0.92
    qtbot.waitUntil(lambda: pane.spots is not None and pane.spots.threshold == 0.92, timeout=5_000)
    paired = {"chess/blitz.md", "chess/sicilian.md", "ops/incident.md", "ops/rollout.md"}
    assert win.model is not None
    index = win.model.snapshot()
    notes = set(index.notes)
    assert pane.rows(UNRELATED) == sorted(notes - paired)
    write(win.model.root, "chess/endgame.md", "Rook endings: see [[blitz]].\n")
    qtbot.waitUntil(lambda: "chess/blitz.md" not in pane.rows(ORPHANS), timeout=10_000)
    assert "chess/endgame.md" not in pane.rows(ORPHANS)  # it links blitz


def test_a_click_on_a_row_opens_the_note_or_the_concept(
    qtbot: QtBot, window: tuple[MainWindow, RelatedIndex]
) -> None:
    win, related = window
    pane = win.thin_spots
    win.show_view("thin-spots")
    assert win.left.currentWidget() is pane
    win.show_related(related)
    _shown(qtbot, win, ready=True)
    notes: list[object] = []
    concepts: list[str] = []
    pane.note_opened.connect(notes.append)
    pane.concept_opened.connect(concepts.append)
    with qtbot.waitSignal(win.place_rendered, timeout=10_000):
        _click(qtbot, pane, UNRELATED, 0)
    assert notes == [LONELY]
    assert win.session is not None and win.session.current is not None
    assert win.session.current.node == LONELY
    with qtbot.waitSignal(win.place_rendered, timeout=10_000):
        _click(qtbot, pane, ISOLATED, 1)
    assert concepts == ["heron"]
    assert win.session.current.kind == "concept" and win.session.current.node == "//concept/heron"
    _click(qtbot, pane, ORPHANS, 0)
    assert notes == [LONELY, sorted(ORPHAN_NOTES)[0]]
    pane.group(ORPHANS).setExpanded(False)
    pane.show_spots(pane.spots)  # type: ignore[arg-type]  # a recount keeps it folded
    assert not pane.group(ORPHANS).isExpanded()


def test_a_hidden_pane_fills_its_rows_when_it_comes_into_sight(qtbot: QtBot) -> None:
    """Counts handed to the pane while it is out of sight (another tab) are laid out when it
    is shown, not as they arrive; asking for a group lays them out too."""
    from librarian_gui.core.insight.thin_spots import ThinSpots

    pane = ThinSpotsPane()
    qtbot.addWidget(pane)
    pane.show_spots(ThinSpots(0.15, ("a.md",), ("b.md", "c.md"), ()))
    assert pane.tree.topLevelItem(ORPHANS).text(0) == "Orphans"  # not laid out yet
    pane.show()
    qtbot.waitExposed(pane)
    assert pane.tree.topLevelItem(ORPHANS).text(0) == "Orphans  (2)"
    pane.hide()
    pane.show_spots(ThinSpots(0.15, (), ("b.md",), ()))
    assert pane.tree.topLevelItem(ORPHANS).text(0) == "Orphans  (2)"
    assert pane.group(ORPHANS).text(0) == "Orphans  (1)"
    assert pane.rows(ORPHANS) == ["b.md"]
