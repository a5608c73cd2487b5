"""The Timeline tab: a concept ticked is plotted per week (bars exact for known dates), a
period's counts on hover, a click on a period lists its notes newest first, a click on one
opens it; by month the same notes are binned again; --view timeline draws it."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QPointF, Qt
from pytestqt.qtbot import QtBot

from librarian_gui.app import main
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.windows import MakeWindow

D = dt.date


@pytest.fixture
def diary(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "concepts.json", json.dumps({"alpha": {"aliases": ["Alpha"]}, "beta": {}}))
    write(root, "diary/2026-03-02.md", "Alpha without a link.\n")  # Monday of 2026-W10
    write(root, "diary/2026-03-04.md", "intro\n[[alpha]] here\n")
    write(root, "diary/2026-03-05.md", "[[alpha]] again\n")
    write(root, "diary/2026-03-16.md", "- Alpha later\n")  # 2026-W12
    write(root, "notes/loose.md", "[[alpha]]\n")  # dated by file time only: apart
    write(root, "Start.md", "the first note\n")
    return root


def _timeline_with_alpha(window: MainWindow, qtbot: QtBot) -> object:
    window.show_view("timeline")
    qtbot.waitUntil(lambda: window.timeline_tab.view is not None, timeout=60_000)
    view = window.timeline_tab.view
    assert view is not None
    qtbot.waitUntil(lambda: view.concept_list.count() == 2, timeout=10_000)
    assert [view.concept_list.item(i).text() for i in range(2)] == ["alpha", "beta"]
    session = window.timeline_service
    assert session is not None
    with qtbot.waitSignal(session.timeline_ready, timeout=20_000):
        view.concept_list.item(0).setCheckState(Qt.CheckState.Checked)
    return view


def _bars(view: object) -> dict[tuple[str, str], list[tuple[float, float, float]]]:
    """(x, bottom, height) of each drawn bar, per (concept, part)."""
    return {
        key: list(zip(item.opts["x"], item.opts["y0"], item.opts["height"], strict=True))
        for key, item in view.plot.bars.items()  # type: ignore[attr-defined]
    }


def test_a_concept_per_week_its_periods_notes_and_a_click_opening_one(
    window_on: MakeWindow, diary: Path, qtbot: QtBot
) -> None:
    window = window_on(diary)
    view: object = _timeline_with_alpha(window, qtbot)
    plot = view.plot  # type: ignore[attr-defined]
    w10, w12 = D(2026, 3, 2), D(2026, 3, 16)
    assert plot.timeline.periods == (w10, D(2026, 3, 9), w12)
    assert _bars(view) == {
        ("alpha", "linked"): [(plot.x_of(w10), 0.0, 2.0)],
        ("alpha", "unlinked"): [(plot.x_of(w10), 2.0, 1.0), (plot.x_of(w12), 0.0, 1.0)],
    }
    assert plot.tooltip_text(w10) == (
        "2026-W10 (2–8 Mar)\nalpha: 2 linked, 1 unlinked\nClick to list the notes"
    )
    assert plot.tooltip_text(D(2026, 3, 9)) == (
        "2026-W11 (9–15 Mar)\nalpha: no note\nClick to list the notes"
    )
    summary = view.summary.text()  # type: ignore[attr-defined]
    assert "4 dated notes: 2 linked, 2 unlinked · first 2 Mar 2026 · last 16 Mar 2026" in summary
    assert "dated by their file time only: alpha 1" in summary
    assert len(plot.markers) == 2  # first and last appearance

    # A real click on the week's bar lists its notes, newest first.
    box = plot.getPlotItem().getViewBox()
    at = plot.mapFromScene(box.mapViewToScene(QPointF(plot.x_of(w10), 0.5)))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=at)
    notes = view.notes  # type: ignore[attr-defined]
    rows = [
        [notes.topLevelItem(i).text(c) for c in range(5)] for i in range(notes.topLevelItemCount())
    ]
    assert rows == [
        ["2026-03-05", "2026-03-05", "alpha", "linked", "[[alpha]] again"],
        ["2026-03-04", "2026-03-04", "alpha", "linked", "[[alpha]] here"],
        ["2026-03-02", "2026-03-02", "alpha", "unlinked", "Alpha without a link."],
    ]
    assert view.period_title.text().startswith("2026-W10 (2–8 Mar): 3 notes")  # type: ignore[attr-defined]

    # A click on a note opens it at the mentioning line, in the preview.
    item = notes.topLevelItem(1)
    with qtbot.waitSignal(window.place_rendered, timeout=10_000) as shown:
        qtbot.mouseClick(
            notes.viewport(), Qt.MouseButton.LeftButton, pos=notes.visualItemRect(item).center()
        )
    place = shown.args[0]
    assert (place.node, place.line) == ("diary/2026-03-04.md", 2)
    assert window.centre.currentWidget() is window.preview_split  # the main preview's tab


def test_by_month_the_same_notes_are_binned_again_without_reading_them(
    window_on: MakeWindow, diary: Path, qtbot: QtBot
) -> None:
    window = window_on(diary)
    view: object = _timeline_with_alpha(window, qtbot)
    session = window.timeline_service
    assert session is not None and window.model is not None
    jobs: list[str] = []
    window.model.slow_jobs.job_submitted.connect(jobs.append)
    box = view.by_box  # type: ignore[attr-defined]
    with qtbot.waitSignal(session.timeline_ready, timeout=10_000):
        box.setCurrentIndex(box.findData("month"))
    march = D(2026, 3, 1)
    assert jobs == []  # binned on the quick thread, the notes not read again
    plot = view.plot  # type: ignore[attr-defined]
    assert _bars(view) == {
        ("alpha", "linked"): [(plot.x_of(march), 0.0, 2.0)],
        ("alpha", "unlinked"): [(plot.x_of(march), 2.0, 2.0)],
    }
    with qtbot.waitSignal(session.timeline_ready, timeout=10_000):
        view.file_time_box.setChecked(True)  # type: ignore[attr-defined]
    # the note dated by file time now counts, in its own (today's) month
    assert ("alpha", "file time") in plot.bars


def test_a_screenshot_of_the_timeline(diary: Path, tmp_path: Path) -> None:
    out = tmp_path / "timeline.png"
    code = main([str(diary), "--view", "timeline", "--query", "ALPHA", "--screenshot", str(out)])
    assert code == 0
    assert out.stat().st_size > 10_000


def test_a_new_diary_entry_reaches_the_shown_timeline(
    window_on: MakeWindow, diary: Path, qtbot: QtBot
) -> None:
    window = window_on(diary)
    view: object = _timeline_with_alpha(window, qtbot)
    session = window.timeline_service
    assert session is not None
    with qtbot.waitSignal(session.timeline_ready, timeout=20_000):
        write(diary, "diary/2026-03-10.md", "[[alpha]] midweek\n")  # 2026-W11
    plot = view.plot  # type: ignore[attr-defined]
    assert _bars(view)[("alpha", "linked")] == [
        (plot.x_of(D(2026, 3, 2)), 0.0, 2.0),
        (plot.x_of(D(2026, 3, 9)), 0.0, 1.0),
    ]


def test_nothing_is_read_while_the_tab_is_hidden(
    window_on: MakeWindow, diary: Path, qtbot: QtBot
) -> None:
    window = window_on(diary)
    _timeline_with_alpha(window, qtbot)
    assert window.model is not None
    jobs: list[str] = []
    window.model.slow_jobs.job_submitted.connect(jobs.append)
    window.show_view("preview")
    with qtbot.waitSignal(window.model.index_updated, timeout=10_000):
        write(diary, "diary/2026-03-10.md", "[[alpha]] midweek\n")
    qtbot.wait(1200)  # past the timeline's debounce
    assert "timeline" not in jobs
    session = window.timeline_service
    assert session is not None
    with qtbot.waitSignal(session.timeline_ready, timeout=20_000):
        window.show_view("timeline")
    assert jobs.count("timeline") == 1


NO_DICTIONARY = "This vault has no concept dictionary"


def test_a_vault_without_a_dictionary_says_so_at_once(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """Issue 28: with no dictionary the timeline said "Tick one or more concepts on the
    left" over an empty list, and --screenshot --view timeline waited 60 s for concepts
    that never came."""
    root = tmp_path / "plain"
    write(root, "diary/2026-03-02.md", "Alpha without a link.\n")
    window = window_on(root)
    window.show_view("timeline")
    qtbot.waitUntil(lambda: window.timeline_tab.view is not None, timeout=60_000)
    view = window.timeline_tab.view
    assert view is not None
    session = window.timeline_service
    assert session is not None
    qtbot.waitUntil(lambda: session.listed, timeout=10_000)
    assert session.known == ()
    assert view.plot.empty.toPlainText().startswith(NO_DICTIONARY)
    assert view.concept_list.count() == 0


def test_a_screenshot_of_the_timeline_without_a_dictionary(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "diary/2026-03-02.md", "Alpha without a link.\n")
    out = tmp_path / "timeline.png"
    assert main([str(root), "--view", "timeline", "--screenshot", str(out)]) == 0
    assert out.stat().st_size > 10_000


def test_date_ticks_are_one_level_a_label_apart() -> None:
    """Issue 28: month labels ran into day ticks ("29Oct 04"). By hand: 28 Sep – 30 Nov
    2026 is 63 days; at 540 px a day is 8.6 px, a week 60 (under 64), a month at least 240:
    the firsts of October and November. At 700 px a week is 78 px: every Monday."""
    from librarian_gui.ui.timeline.plot import date_label, date_ticks, seconds

    start, end = seconds(D(2026, 9, 28)), seconds(D(2026, 11, 30))
    level, values = date_ticks(start, end, 540)
    assert level == "month"
    assert values == [seconds(D(2026, 10, 1)), seconds(D(2026, 11, 1))]
    assert [date_label(level, v) for v in values] == ["Oct", "Nov"]
    level, values = date_ticks(start, end, 700)
    assert level == "week"
    assert values == [seconds(D(2026, 9, 28) + dt.timedelta(weeks=k)) for k in range(10)]
    assert [date_label(level, v) for v in values[:2]] == ["28 Sep", "5 Oct"]
    level, values = date_ticks(seconds(D(2020, 1, 1)), seconds(D(2026, 6, 1)), 300)
    assert (level, [date_label(level, v) for v in values]) == (
        "year",
        ["2020", "2022", "2024", "2026"],
    )


@given(
    st.dates(D(1990, 1, 1), D(2060, 1, 1)),
    st.integers(1, 20_000),
    st.floats(100, 3000),
)
def test_neighbouring_date_ticks_are_never_closer_than_a_label(
    first: dt.date, days: int, pixels: float
) -> None:
    from librarian_gui.ui.timeline.plot import TICK_PX, date_ticks, seconds

    start, end = seconds(first), seconds(first + dt.timedelta(days=days))
    _level, values = date_ticks(start, end, pixels)
    per_second = pixels / (end - start)
    assert all(start <= v <= end for v in values)
    assert all((b - a) * per_second >= TICK_PX - 1e-6 for a, b in itertools.pairwise(values))
