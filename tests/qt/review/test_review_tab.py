"""The Review tab (issue 32 item 2): the desk in the window, a note marked reviewed leaves
it, a change after the mark comes back as its diff, Mark all empties it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from librarian_gui.core.review.outside import outside_file
from librarian_gui.core.review.passage_cache import passages_file
from librarian_gui.ui.window.main_window import MainWindow
from tests.windows import MakeWindow


def _desk(qtbot: QtBot, win: MainWindow) -> None:
    qtbot.waitUntil(lambda: win.review.pane.desk is not None, timeout=20_000)


def test_marking_reviewed(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    (vault / "a.md").write_text("# A\nfirst\n")
    (vault / "b.md").write_text("# B\n")
    win = window_on(vault)
    win.show_view("review")
    _desk(qtbot, win)
    pane = win.review.pane
    service = win.review.service
    assert service is not None
    assert sorted(pane.rows()) == [
        ("a", "outside Librarian", "not reviewed"),
        (
            "b",
            "outside Librarian",
            "not reviewed",
        ),
    ]
    # select a.md and mark it reviewed
    group = pane.tree.topLevelItem(0)
    row = next(group.child(k) for k in range(group.childCount()) if group.child(k).text(0) == "a")
    pane.tree.setCurrentItem(row)
    assert "+# A" in pane.diff.toPlainText()
    with qtbot.waitSignal(service.desk_found, timeout=10_000):
        qtbot.mouseClick(pane.mark_button, Qt.MouseButton.LeftButton)
    assert [r[0] for r in pane.rows()] == ["b"]
    # a.md changes again (another program): back, as its diff from the reviewed version
    with open(vault / "a.md", "a", encoding="utf-8") as note:
        note.write("second\n")
    qtbot.waitUntil(lambda: len(pane.rows()) == 2, timeout=20_000)
    assert ("a", "outside Librarian", "+1 −0 lines") in pane.rows()
    # the window's watcher logged it, with the file's time (core/review/outside)
    logged = outside_file(vault).read_text(encoding="utf-8")
    assert [json.loads(line)["note"] for line in logged.splitlines()] == ["a.md"]
    with qtbot.waitSignal(service.desk_found, timeout=10_000):
        qtbot.mouseClick(pane.mark_all_button, Qt.MouseButton.LeftButton)
    assert pane.rows() == []
    assert "every change is reviewed" in pane.summary.text()


def test_the_desk_is_gathered_once_its_tab_is_shown(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    """On a vault never reviewed the desk reads every note and compares all their passages:
    not before anyone looks at it, nor again after each change until then."""
    (vault / "a.md").write_text("# A\nfirst\n")
    win = window_on(vault)
    service = win.review.service
    assert service is not None
    with (
        qtbot.waitSignal(win.model.index_updated, timeout=10_000),
        open(vault / "a.md", "a", encoding="utf-8") as note,
    ):
        note.write("second\n")
    qtbot.wait(1_000)  # twice the desk's refresh delay after a change
    assert service.desk is None
    assert win.review.pane.desk is None
    win.show_view("review")
    _desk(qtbot, win)
    assert win.review.pane.rows() == [("a", "outside Librarian", "not reviewed")]
    # From now on after each change
    (vault / "b.md").write_text("# B\n")
    qtbot.waitUntil(lambda: len(win.review.pane.rows()) == 2, timeout=20_000)


def test_a_long_desk_lists_the_newest_500_and_says_so(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    for n in range(501):
        (vault / f"n{n:03}.md").write_text(f"# Note {n}\n")
    win = window_on(vault)
    win.show_view("review")
    _desk(qtbot, win)
    assert len(win.review.pane.rows()) == 500
    summary = win.review.pane.summary.text()
    assert "<b>501 notes</b> changed since" in summary
    assert summary.endswith("newest day first (the newest 500 listed).")


SHARED = (
    "staging loaders write every daily partition exactly once, replacing whole partitions "
    "whenever scheduled jobs rerun overnight"
)
OTHER_ = (
    "our grey cat sleeps beside the warm router because its noisy fan blows pleasantly hot "
    "air throughout long winter evenings!!!"
)


def _repeated_in(win: MainWindow, note: str) -> set[str]:
    days = win.review.pane.desk.days
    return {r.other for _day, items in days for i in items if i.note == note for r in i.repeats}


def test_the_desk_keeps_its_passages_for_the_next_window(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    """The first look at the desk reads every note's passages and keeps them beside the
    index cache (``librarian review`` reads the same): the next window reads again only the
    notes whose size or time changed. A window without caches reads them all."""
    assert len(SHARED) == len(OTHER_)
    hour_ago = time.time() - 3600  # on the desk (changed lately), not changing now
    for name, text in (("a", SHARED), ("b", OTHER_), ("c", SHARED)):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{text}\n")
        os.utime(vault / f"{name}.md", (hour_ago, hour_ago))
    first = window_on(vault, use_cache=True)
    first.show_view("review")
    _desk(qtbot, first)
    assert _repeated_in(first, "a.md") == {"c.md"}
    assert passages_file(first.model.root).is_file()
    first.close()

    # c.md rewritten in the same size under the same time: kept passages say it repeats a.md
    stamp = os.stat(vault / "c.md")
    (vault / "c.md").write_text(f"# c\n\n{OTHER_}\n")
    os.utime(vault / "c.md", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    second = window_on(vault, use_cache=True)
    second.show_view("review")
    _desk(qtbot, second)
    assert _repeated_in(second, "a.md") == {"c.md"}
    second.close()

    uncached = window_on(vault)  # reads every note: c.md now repeats b.md
    uncached.show_view("review")
    _desk(qtbot, uncached)
    assert _repeated_in(uncached, "a.md") == set()
    assert _repeated_in(uncached, "b.md") == {"c.md"}
