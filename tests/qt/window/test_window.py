"""The browser window on a copy of the demo vault, with the real watcher and linker thread:
links followed by clicking, live changes from outside, the Link button, the switcher."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from librarian_gui.resources import bundled_demo_vault
from librarian_gui.services.settings import Settings
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.qt.rows import rows_made_by_python


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(bundled_demo_vault(), root)
    return root


@pytest.fixture
def window(demo: Path, qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win = MainWindow(demo, settings=settings, use_cache=False)
    qtbot.addWidget(win)
    win.resize(1300, 820)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    yield win
    win.close()


def shown(window: MainWindow) -> str:
    assert window.session is not None and window.session.current is not None
    return window.session.current.node


def preview_text(window: MainWindow) -> str:
    return window.preview.toPlainText()


def click_link(window: MainWindow, qtbot: QtBot, text: str) -> None:
    """Click, with the mouse, the first link in the preview whose text is ``text``."""
    view = window.preview
    cursor = view.document().find(text)
    while not cursor.isNull():
        middle = QTextCursor(view.document())
        middle.setPosition(cursor.selectionStart() + len(text) // 2)
        if middle.charFormat().anchorHref():
            break
        cursor = view.document().find(text, cursor)
    assert not cursor.isNull(), f"no link {text!r} in the preview"
    view.setTextCursor(middle)
    view.ensureCursorVisible()
    point: QPoint = view.cursorRect(middle).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def backlink_sources(window: MainWindow) -> str:
    return window.backlinks.linked.browser.toPlainText()


def test_the_window_opens_the_index_note_with_its_panes(window: MainWindow) -> None:
    assert shown(window) == "MEMORY.md"
    assert "Index of what I (Wren) keep between sessions." in preview_text(window)
    assert window.tree.files()[-1] == "MEMORY.md"  # folders first, then files
    assert window.counts.text().startswith("42 notes")
    assert window.outline.headings_shown()[:2] == ["MEMORY", "  Projects"]


def test_no_pane_shows_rows_python_constructed(window: MainWindow, qtbot: QtBot) -> None:
    """Every list, tree and table row of the panes is made by Qt (``ui/items.py``): a row
    Python constructed made each first paint wait for the interpreter lock per row."""
    qtbot.waitUntil(
        lambda: window.tags.count() > 1 and window.concepts.tree.topLevelItemCount() > 0
    )
    qtbot.waitUntil(lambda: window.outgoing.count() > 1 and window.outline.topLevelItemCount() > 0)
    qtbot.waitUntil(lambda: window.switcher._index is not None, timeout=10_000)
    window.switcher.open_switcher()
    qtbot.keyClicks(window.switcher.input, "pro")
    assert window.switcher.results.count() > 1
    panes = {
        "tree": window.tree.model(),
        "recent": window.recent.list.model(),
        "tags": window.tags,
        "concepts": window.concepts.tree,
        "outgoing": window.outgoing,
        "outline": window.outline,
        "switcher": window.switcher.results,
    }
    assert {name: rows_made_by_python(view) for name, view in panes.items()} == {
        name: [] for name in panes
    }
    window.switcher.hide()


def test_clicking_a_wiki_link_opens_the_target_and_back_returns(
    window: MainWindow, qtbot: QtBot
) -> None:
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        click_link(window, qtbot, "Pipeline Migration")
    assert shown(window) == "projects/Pipeline Migration.md"
    assert window.back_action.isEnabled()
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.back_action.trigger()
    assert shown(window) == "MEMORY.md"
    assert window.forward_action.isEnabled()


def test_a_note_written_outside_appears_in_tree_and_backlinks(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    write(demo, "diary/2026-11-29.md", "Today I reread [[MEMORY]] and trimmed it.\n")
    qtbot.waitUntil(lambda: "diary/2026-11-29.md" in window.tree.files(), timeout=10_000)
    qtbot.waitUntil(lambda: "2026-11-29" in backlink_sources(window), timeout=10_000)
    assert "Today I reread [[MEMORY]] and trimmed it." in backlink_sources(window)

    # modified: the link goes, and so does the backlink; the open note is untouched
    write(demo, "diary/2026-11-29.md", "Today I did something else.\n")
    qtbot.waitUntil(lambda: "2026-11-29" not in backlink_sources(window), timeout=10_000)

    # renamed: the tree follows
    write(demo, "diary/2026-11-29.md", "Back to [[MEMORY]].\n")
    qtbot.waitUntil(lambda: "Back to [[MEMORY]]." in backlink_sources(window), timeout=10_000)
    os.rename(demo / "diary/2026-11-29.md", demo / "diary/2026-11-30.md")
    qtbot.waitUntil(lambda: "diary/2026-11-30.md" in window.tree.files(), timeout=10_000)
    assert "diary/2026-11-29.md" not in window.tree.files()
    qtbot.waitUntil(lambda: "2026-11-30" in backlink_sources(window), timeout=10_000)

    # deleted
    (demo / "diary/2026-11-30.md").unlink()
    qtbot.waitUntil(lambda: "diary/2026-11-30.md" not in window.tree.files(), timeout=10_000)
    qtbot.waitUntil(lambda: "2026-11-30" not in backlink_sources(window), timeout=10_000)


def _counts(window: MainWindow) -> list[int]:
    return [int(part.split()[0].replace(",", "")) for part in window.counts.text().split(" · ")]


def test_the_status_counts_follow_a_note_written_outside(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    notes, links, unresolved, concepts = _counts(window)
    # every note but the templates, which the demo's .librarianignore leaves out
    assert notes == sum(
        1 for n in demo.rglob("*.md") if n.relative_to(demo).parts[0] != "templates"
    )
    write(demo, "inbox/counted.md", "See [[MEMORY]] and [[A note nobody wrote]].\n")
    # one note, two links, one target nobody wrote; the dictionary is unchanged
    expected = [notes + 1, links + 2, unresolved + 1, concepts]
    qtbot.waitUntil(lambda: _counts(window) == expected, timeout=10_000)


def test_the_open_note_follows_an_external_rename_and_refreshes_on_change(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("people/Priya Raman.md")  # type: ignore[union-attr]
    with open(demo / "people/Priya Raman.md", "a", encoding="utf-8") as fh:
        fh.write("\nAppended by the agent: Priya moved the rack.\n")
    qtbot.waitUntil(
        lambda: "Appended by the agent: Priya moved the rack." in preview_text(window),
        timeout=10_000,
    )
    os.rename(demo / "people/Priya Raman.md", demo / "people/Priya R.md")
    qtbot.waitUntil(lambda: shown(window) == "people/Priya R.md", timeout=10_000)
    assert window.tree.currentIndex().data() == "Priya R"
    assert "Appended by the agent" in preview_text(window)


def test_link_button_rewrites_exactly_one_mention_and_undo_restores(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("projects/homelab-ops.md")  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: window.backlinks.unlinked_count > 0, timeout=10_000)
    mention = window.backlinks._mentions[0]
    path = demo / mention.source
    before = path.read_bytes()
    with qtbot.waitSignal(window.session.write_finished, timeout=10_000):  # type: ignore[union-attr]
        window.backlinks.unlinked.browser.anchorClicked.emit(_url("link:///0"))
    after = path.read_bytes()
    text = before.decode("utf-8")
    link = f"[[homelab-ops|{mention.text}]]" if mention.text != "homelab-ops" else "[[homelab-ops]]"
    expected = text[: mention.start] + link + text[mention.end :]
    assert after.decode("utf-8") == expected
    assert window.undo_action.isEnabled()
    with qtbot.waitSignal(window.session.write_finished, timeout=10_000):  # type: ignore[union-attr]
        window.undo_action.trigger()
    assert path.read_bytes() == before


def test_unlinked_mentions_leave_out_file_names_and_headings(
    window: MainWindow, qtbot: QtBot
) -> None:
    """Issue 28: Link on "MEMORY.md had 240 lines" wrote "[[MEMORY]].md had…", and Link was
    offered in "# Weekly memory compaction". In the demo's decision note (read by hand):
    line 8 is the heading, lines 11 and 21 say "MEMORY.md", lines 14 and 18 say "memory"."""
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("MEMORY.md")  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: window.backlinks.unlinked_count > 0, timeout=10_000)
    lines = [
        m.line
        for m in window.backlinks._mentions
        if m.source == "decisions/weekly-memory-compaction.md"
    ]
    assert lines == [14, 18]


def test_unlinked_mentions_follow_changes_once_the_words_are_read(
    window: MainWindow, demo: Path, qtbot: QtBot
) -> None:
    """Unlinked mentions look only in the notes holding a name's words (as the MCP server
    does), once every note's words are read: a note written or edited after that must be
    found, one that stops mentioning the name must go."""
    session = window.session
    assert session is not None
    qtbot.waitUntil(lambda: session.words is not None and session.words.complete, timeout=20_000)
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        session.open_note("projects/Memory Hygiene.md")  # every mention of it is linked

    def sources() -> set[str]:
        return {m.source for m in window.backlinks._mentions}

    write(demo, "inbox/new-thought.md", "# New thought\n\nRead up on memory hygiene again.\n")
    qtbot.waitUntil(lambda: "inbox/new-thought.md" in sources(), timeout=10_000)
    write(demo, "inbox/new-thought.md", "# New thought\n\nNothing about that any more.\n")
    qtbot.waitUntil(lambda: "inbox/new-thought.md" not in sources(), timeout=10_000)


def test_quick_switcher_finds_a_note_by_alias_with_a_typo(window: MainWindow, qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: window.switcher._index is not None, timeout=10_000)
    window.switcher.open_switcher()
    qtbot.keyClicks(window.switcher.input, "vualt hygiene")  # alias "vault hygiene"
    rows = window.switcher.shown()
    assert rows[0][2] == "projects/Memory Hygiene.md"
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        qtbot.keyClick(window.switcher.input, Qt.Key.Key_Return)
    assert shown(window) == "projects/Memory Hygiene.md"


def test_a_note_changed_outside_comes_first_in_the_switcher_whose_names_are_kept(
    window: MainWindow, demo: Path, qtbot: QtBot
) -> None:
    qtbot.waitUntil(lambda: window.switcher._index is not None, timeout=10_000)
    first = window.switcher._index
    assert first is not None
    path = demo / "projects/Memory Hygiene.md"
    write(demo, "projects/Memory Hygiene.md", path.read_text(encoding="utf-8") + "\nOne more.\n")
    qtbot.waitUntil(lambda: window.switcher._index is not first, timeout=10_000)
    second = window.switcher._index
    assert second is not None
    assert second._suffixes is first._suffixes  # the same names: not built again
    assert second.query("", limit=1)[0][0].node == "projects/Memory Hygiene.md"


def test_search_finds_a_phrase_and_opens_the_hit(window: MainWindow, qtbot: QtBot) -> None:
    window.search.set_query('"token bucket"')
    qtbot.waitUntil(lambda: bool(window.search.hits), timeout=10_000)
    rels = [hit.rel for hit in window.search.hits]
    assert "decisions/token-bucket-for-api-calls.md" in rels


def _url(text: str) -> object:
    from PySide6.QtCore import QUrl

    return QUrl(text)


def test_an_embedded_note_changed_outside_refreshes_the_note_embedding_it(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.session.open_note("projects/Memory Hygiene.md")  # type: ignore[union-attr]
    with open(demo / "logs/2026_11_12.md", "a", encoding="utf-8") as fh:
        fh.write("\n- 23:59 a line the agent added to the embedded log\n")
    qtbot.waitUntil(
        lambda: "a line the agent added to the embedded log" in preview_text(window),
        timeout=10_000,
    )
    assert shown(window) == "projects/Memory Hygiene.md"


def test_excluding_a_folder_in_the_app_drops_it_from_tree_and_index(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    assert "inbox/reading-list.md" in window.tree.files()
    assert window.model is not None
    window.settings.set_excluded(window.model.root, ("inbox",))
    with qtbot.waitSignal(window.model.index_ready, timeout=20_000):
        window.model.rescan(("inbox",))
    qtbot.waitUntil(lambda: "inbox/reading-list.md" not in window.tree.files(), timeout=10_000)
    index = window.model.snapshot()
    assert not any(rel.startswith("inbox/") for rel in index.notes)
    assert window.settings.excluded(window.model.root) == ("inbox",)


def test_the_graph_modules_load_once_the_vault_is_quiet_or_on_the_first_ctrl_g(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    from librarian_gui.ui.window import graph_tab

    # The index is ready: the import is scheduled, and every update puts it off again.
    window.graph_tab.imported = False
    window.graph_tab._import_timer.setInterval(1_500)
    window.graph_tab.schedule_import()
    for i in range(10):  # an update every ~0.3 s for ~3 s: never 1.5 s of quiet
        write(demo, f"inbox/busy-{i}.md", f"note {i}\n")
        qtbot.waitUntil(lambda i=i: f"inbox/busy-{i}.md" in window.tree.files(), timeout=5_000)
        assert not window.graph_tab.imported
        qtbot.wait(200)
    qtbot.waitUntil(lambda: window.graph_tab.imported, timeout=5_000)  # then quiet: it loads

    # A vault that never rests: the first Ctrl+G starts the import on its thread, and the
    # view comes once it is done.
    window.graph_tab.imported = False
    window.graph_tab._import_timer.setInterval(60_000)
    window.graph_tab.schedule_import()
    graph_tab.graph_modules_loaded.clear()  # as in a process that never loaded them
    window.show_view("graph")
    assert window.graph_tab.imported
    qtbot.waitUntil(graph_tab.graph_modules_loaded.is_set, timeout=30_000)
    qtbot.waitUntil(lambda: window.centre.currentWidget() is window.graph, timeout=5_000)
    assert not window.graph_tab._import_timer.isActive()


def test_the_progress_bar_moves_at_most_four_times_a_second_and_always_ends_full(
    window: MainWindow,
) -> None:
    """Each new value repaints the window's dirty parts at once: a value within 250 ms of
    the last one shown waits; the last value (done == total) never does."""
    window.progress.show()
    window._progress_shown = 0.0
    window._on_model_scan_progressed(100, 10_000)
    assert (window.progress.value(), window.progress.maximum()) == (100, 10_000)
    window._on_model_scan_progressed(5_000, 10_000)
    assert window.progress.value() == 100
    window._on_model_scan_progressed(10_000, 10_000)
    assert window.progress.value() == 10_000


def test_the_window_shortens_the_interpreter_lock_switch_interval(window: MainWindow) -> None:
    """Each call into Python from a paint waits at most this long for the lock."""
    import sys

    assert sys.getswitchinterval() == pytest.approx(0.001)


def test_the_window_runs_its_parse_workers_below_itself(window: MainWindow) -> None:
    """Its GUI thread has the cores first while a vault is parsed (a command line's workers
    keep its priority: tests/unit/vault/test_parse_workers.py)."""
    from librarian_gui.core.vault import reading

    assert reading._worker_nice == 10


def test_ctrl_g_while_the_graph_modules_load_shows_loading_then_the_graph(
    window: MainWindow, qtbot: QtBot
) -> None:
    """A Ctrl+G while the import thread still loads the graph's modules does not import
    them here (the window would wait for that thread): the tab says it is loading, and the
    graph is made once the modules are loaded."""
    from PySide6.QtWidgets import QLabel

    from librarian_gui.ui.window import graph_tab

    window.graph_tab.imported = True  # the window's import thread has started ...
    graph_tab.graph_modules_loaded.clear()  # ... and is not done yet
    try:
        window.show_view("graph")
        qtbot.wait(100)
        assert window.graph is None
        assert window.centre.currentWidget() is window.graph_tab.placeholder
        labels = window.graph_tab.placeholder.findChildren(QLabel)
        assert [label.text() for label in labels] == ["Loading the graph…"]
    finally:
        graph_tab.graph_modules_loaded.set()  # the thread is done
    qtbot.waitUntil(lambda: window.graph is not None, timeout=5_000)
    assert window.centre.currentWidget() is window.graph


def test_the_graph_view_is_made_and_drawn_hidden_once_its_modules_are_loaded(
    window: MainWindow, qtbot: QtBot
) -> None:
    """Made and first shown on Ctrl+G, next to the graph build's thread, the view froze the
    window 100-200 ms: it is made while hidden once the modules are in, and Ctrl+G shows
    that same view."""
    from librarian_gui.ui.window import graph_tab

    before = window.centre.currentWidget()
    window.graph_tab._start_import()
    qtbot.waitUntil(graph_tab.graph_modules_loaded.is_set, timeout=30_000)
    qtbot.waitUntil(lambda: window.graph is not None, timeout=5_000)
    made = window.graph
    assert window.centre.currentWidget() is before  # nothing switched tabs
    assert made is not None and not made.isVisible()
    assert window.graph_service is not None and not window.graph_service.active
    qtbot.waitUntil(lambda: made.canvas.testAttribute(Qt.WidgetAttribute.WA_WState_Polished))
    window.show_view("graph")
    assert window.graph is made
    assert window.centre.currentWidget() is made
    assert window.graph_service.active


def test_the_graph_view_made_ahead_is_made_a_part_per_event_loop_turn(
    window: MainWindow, qtbot: QtBot
) -> None:
    """Made in one turn while a related-notes pass ran, the view held the GUI thread 33-99
    ms: its canvas, its concept map and the rest are each made in a turn of their own, and
    a Ctrl+G before the last shows a view made of the parts already there."""
    from PySide6.QtWidgets import QApplication

    from librarian_gui.ui.graph.canvas import GraphCanvas
    from librarian_gui.ui.graph.concept_map import ConceptMapView
    from librarian_gui.ui.graph.view import GraphView
    from librarian_gui.ui.window import graph_tab

    def made() -> tuple[int, int, int]:
        widgets = QApplication.allWidgets()
        return tuple(  # type: ignore[return-value]
            sum(isinstance(w, kind) for w in widgets)
            for kind in (GraphCanvas, ConceptMapView, GraphView)
        )

    tab = window.graph_tab
    tab.imported = True  # no import thread: the modules are in (imported above)
    graph_tab.graph_modules_loaded.set()
    assert window.graph is None
    first = made()
    tab._on_modules_poll_timeout()  # the modules are in: the build starts
    assert made() == first
    tab._on_build_timer_timeout()
    assert made() == (first[0] + 1, first[1], first[2])
    tab._on_build_timer_timeout()
    assert made() == (first[0] + 1, first[1] + 1, first[2])
    window.show_view("graph")  # Ctrl+G: the last part is made now, of those two
    assert made() == (first[0] + 1, first[1] + 1, first[2] + 1)
    assert window.graph is not None and window.centre.currentWidget() is window.graph
    tab._build_timer.start()  # a tick still queued makes nothing more, and stops it
    tab._on_build_timer_timeout()
    assert made() == (first[0] + 1, first[1] + 1, first[2] + 1)
    assert not tab._build_timer.isActive()


def test_pyside_classes_are_made_a_slice_at_a_time_in_the_gui_thread() -> None:
    """Made by the import thread, they held the lock 50-70 ms at a time, and two threads
    making one at once crashed PySide: the window makes them first, a slice per turn."""
    from PySide6 import QtCore, QtGui, QtWidgets

    from librarian_gui.ui.window.graph_tab import make_qt_types, qt_type_names

    names = qt_type_names()
    calls = 1
    while not make_qt_types(names, 0.0):  # no time at all: one name per call
        calls += 1
    expected = len(dir(QtCore)) + len(dir(QtGui)) + len(dir(QtWidgets))
    assert calls == expected + 1  # the last call finds nothing left and says so


def test_a_write_by_an_agent_process_is_undone_from_the_window(
    window: MainWindow, qtbot: QtBot, demo: Path
) -> None:
    """An agent (another process, as ``librarian mcp`` is) writes a note through the
    journal while the window is open: Edit → Undo turns on and takes the note back."""
    import subprocess
    import sys

    assert not window.undo_action.isEnabled()  # nothing written yet
    code = (
        "import sys; from pathlib import Path;"
        "from librarian_gui.core.index.index import VaultIndex;"
        "from librarian_gui.core.agents.writes import write_note;"
        "index = VaultIndex.scan(Path(sys.argv[1]), use_cache=False);"
        "write_note(index, '# From the agent\\n\\nSee [[homelab-ops]].\\n', 'agent/new.md')"
    )
    subprocess.run([sys.executable, "-c", code, str(demo)], check=True, timeout=60)
    assert (demo / "agent" / "new.md").read_bytes() == b"# From the agent\n\nSee [[homelab-ops]].\n"
    qtbot.waitUntil(window.undo_action.isEnabled, timeout=10_000)
    with qtbot.waitSignal(window.session.write_finished, timeout=10_000):  # type: ignore[union-attr]
        window.undo_action.trigger()
    assert not (demo / "agent" / "new.md").exists()
    qtbot.waitUntil(lambda: not window.undo_action.isEnabled(), timeout=10_000)
