"""Issue 28 (7): text the window cuts — a tab title's "&" and "_", the local graph's status
line, the Outgoing pane's rows."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from tests.conftest import write
from tests.windows import MakeWindow


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    write(root, "MEMORY.md", "- [[2020_09_14]]\n- [[R&D plan]]\n")
    write(root, "2020_09_14.md", "A day.\n")
    write(root, "R&D plan.md", "The plan.\n")
    return root


def test_a_title_with_an_ampersand_is_shown_whole(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """ "R&D plan" showed as "RD plan" with "D" underlined: Qt read "&" as a shortcut."""
    window = window_on(_vault(tmp_path))
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("R&D plan.md")  # type: ignore[union-attr]
    assert window.centre.tabText(0) == "R&&D plan"  # drawn as "R&D plan"


def _tab_image(window: object) -> QImage:
    bar = window.centre.tabBar()  # type: ignore[attr-defined]
    rect = bar.tabRect(0)
    return bar.grab(rect).toImage()


def test_an_unselected_tab_draws_the_underscores_of_its_title(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """An unselected centre tab sits lower, and "2020_09_14" showed as "2020 09 14": the
    underscores fell below the tab's edge. A title of underscores only, drawn in its colour
    and drawn invisible, must differ."""
    window = window_on(_vault(tmp_path))
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("2020_09_14.md")  # type: ignore[union-attr]
    window.centre.setCurrentIndex(1)  # the note's tab unselected
    window.centre.setTabText(0, "__________")
    drawn = _tab_image(window)
    window.centre.tabBar().setTabTextColor(0, QColor(0, 0, 0, 0))
    invisible = _tab_image(window)
    assert drawn.size() == invisible.size()
    assert drawn != invisible


def test_the_local_graph_status_and_outgoing_rows_fit_the_sidebar(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """Both were cut at the sidebar's edge with nothing to say so."""
    from PySide6.QtCore import Qt

    from librarian_gui.ui.elided import ElidedLabel

    window = window_on(_vault(tmp_path))
    outgoing = window.outgoing
    assert outgoing.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert outgoing.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    window.show_view("local-graph")
    qtbot.waitUntil(lambda: window.local_graph.view is not None, timeout=60_000)
    status = window.local_graph.view.status  # type: ignore[union-attr]
    assert isinstance(status, ElidedLabel)
    status.resize(120, status.height())
    status.setText("26 linked · 27 nodes · 47 related (18 r… more than fits")
    assert status.text() != status.full_text and "…" in status.text()
