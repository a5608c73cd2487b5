"""The side panes on their own: exact contents after each change."""

from __future__ import annotations

import time
from collections import Counter

from pytestqt.qtbot import QtBot

from librarian_gui.core.index.summaries import tag_counts
from librarian_gui.services.history import History, Place
from librarian_gui.ui.vault.recent import RecentChanges
from librarian_gui.ui.vault.tree import FileTree
from tests.qt.rows import rows_made_by_python


def test_file_tree_sorts_folders_first_naturally_and_changes_row_by_row(qtbot: QtBot) -> None:
    tree = FileTree()
    qtbot.addWidget(tree)
    tree.set_files(["b/x10.md", "b/x2.md", "a.md", "Z.md", "b/c/deep.md"], ["img/p.png"])
    assert tree.files() == ["b/c/deep.md", "b/x2.md", "b/x10.md", "img/p.png", "a.md", "Z.md"]
    tree.add_files(["b/c/d/new.md", "b/x3.md", "aa/q.md"], "note")
    assert tree.files() == [
        "aa/q.md",
        "b/c/d/new.md",
        "b/c/deep.md",
        "b/x2.md",
        "b/x3.md",
        "b/x10.md",
        "img/p.png",
        "a.md",
        "Z.md",
    ]
    tree.remove_files(["b/c/d/new.md", "b/c/deep.md"])  # b/c and b/c/d become empty: gone
    assert tree.files() == [
        "aa/q.md",
        "b/x2.md",
        "b/x3.md",
        "b/x10.md",
        "img/p.png",
        "a.md",
        "Z.md",
    ]
    assert tree.model().rowCount(tree.model().index(1, 0)) == 3  # b holds x2, x3, x10 only
    tree.select("b/x3.md")
    assert tree.currentIndex().data() == "x3"
    assert rows_made_by_python(tree.model()) == []


def test_a_big_tree_is_shown_whole_once_filled_and_the_old_one_stays_until_then(
    qtbot: QtBot,
) -> None:
    """Rows are made over several event-loop turns in a model the view does not show yet:
    the view shows the previous tree, then all of the new one, never a part."""
    from librarian_gui.core.vault.filetree import FileTreeData

    tree = FileTree()
    qtbot.addWidget(tree)
    tree.set_files(["old.md"], [])
    tree.select("old.md")
    notes = [f"n{i}.md" for i in range(20_000)]
    seen: list[int] = []
    tree.install(FileTreeData.build(notes, []))
    seen.append(tree.model().rowCount())
    with qtbot.waitSignal(tree.filled, timeout=20_000):
        pass
    assert seen == [1]  # the first turn's rows went into the model not shown yet
    assert tree.model().rowCount() == 20_000
    assert tree.model().index(0, 0).data() == "n0"
    assert tree.model().index(19_999, 0).data() == "n19999"
    tree.select("n2.md")
    assert tree.currentIndex().data() == "n2"


def test_recent_changes_are_listed_again_only_once_in_sight(qtbot: QtBot) -> None:
    """A hidden list is not made again at each change (a burst of 2,000 changes made it
    500 rows per update); it is brought up to date when shown, or asked."""
    from librarian_gui.ui.vault.recent import PATH_ROLE

    def listed() -> list[str]:
        model = recent.list.model()
        return [model.index(row, 0).data(PATH_ROLE) for row in range(model.rowCount())]

    recent = RecentChanges()
    qtbot.addWidget(recent)
    now = time.time()
    recent.set_period("day")
    recent.show_notes([("a.md", now - 60)])
    assert listed() == []
    recent.show()
    qtbot.waitExposed(recent)
    assert listed() == ["a.md"]
    recent.notes_changed({"b.md": now})
    assert listed() == ["b.md", "a.md"]  # in sight: at once
    recent.hide()
    recent.notes_changed({"c.md": now + 1})
    assert listed() == ["b.md", "a.md"]
    recent.show()
    assert listed() == ["c.md", "b.md", "a.md"]


def test_recent_changes_keep_the_period_newest_first(qtbot: QtBot) -> None:
    recent = RecentChanges()
    qtbot.addWidget(recent)
    now = time.time()
    recent.set_period("day")
    recent.show_notes([("old.md", now - 3 * 86_400), ("a.md", now - 600), ("b.md", now - 60)])
    assert recent.shown() == ["b.md", "a.md"]
    recent.notes_changed({"old.md": now})
    assert recent.shown() == ["old.md", "b.md", "a.md"]
    recent.notes_changed({}, removed=["b.md"])
    recent.set_period("week")
    assert recent.shown() == ["old.md", "a.md"]


def test_tag_counts_count_notes_and_parents_of_nested_tags() -> None:
    counts = tag_counts([["agent/memory", "index"], ["agent/memory", "agent"], ["ops"]])
    assert counts == Counter({"agent": 2, "agent/memory": 2, "index": 1, "ops": 1})


def test_history_goes_back_and_forward_and_follows_renames() -> None:
    history = History()
    for node in ("a.md", "b.md", "c.md"):
        history.visit(Place("note", node))
    assert history.back() == Place("note", "b.md")
    history.visit(Place("note", "d.md"))  # drops the forward entry c.md
    assert not history.can_go_forward()
    history.rename("b.md", "bee.md")
    assert history.back() == Place("note", "bee.md")
    assert history.back() == Place("note", "a.md")
    assert history.back() is None
