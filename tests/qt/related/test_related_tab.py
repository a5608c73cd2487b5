"""The Related tab in the window: the open note's related notes, not linked first, and a
Link click that shows the diff, writes exactly those bytes and is undone by Edit → Undo."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from librarian_gui.services.related import RelatedService
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write
from tests.unit.related.test_model import NOTES
from tests.windows import MakeWindow


def about(note: str):  # type: ignore[no-untyped-def]
    """A check of ``note_related``'s arguments: the answer for ``note``."""
    return lambda shown, _found: shown == note


def topics(vault: Path) -> Path:
    for rel, text in NOTES.items():
        write(vault, rel, text + "\n")
    write(vault, "chess/blitz.md", NOTES["chess/blitz.md"] + "\nSee [[sicilian]].\n")
    return vault


def ready(win: MainWindow, qtbot: QtBot) -> RelatedService:
    """The window's related-notes service once its first pass has answered."""
    related = win.related_service
    assert related is not None and win.session is not None
    if related.current is None:
        qtbot.waitSignal(related.related_ready, timeout=20_000).wait()
    return related


def opened(win: MainWindow, qtbot: QtBot, note: str, *, tab: bool = True) -> RelatedService:
    """``ready``, then ``note`` opened (in the Related tab, unless ``tab`` is False) and its
    related notes answered."""
    related = ready(win, qtbot)
    if tab:
        win.show_view("related")
    assert win.session is not None
    with qtbot.waitSignal(related.note_related, timeout=10_000, check_params_cb=about(note)):
        win.session.open_note(note)
    return related


def test_related_tab_link_and_undo(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    win = window_on(topics(vault))
    related = opened(win, qtbot, "chess/sicilian.md")
    pane = win.related_tab.pane
    assert win.right.currentWidget() is pane
    assert [(e.related.note, e.related.linked) for e in pane.shown if e.related.linked] == [
        ("chess/blitz.md", True)
    ]
    text = pane.browser.toPlainText()
    assert "Already linked (1)" in text
    with qtbot.waitSignal(
        related.note_related, timeout=10_000, check_params_cb=about("bread/starter.md")
    ):
        win.session.open_note("bread/starter.md")
    first = pane.shown[0]
    assert (first.related.note, first.related.linked) == ("bread/loaf.md", False)
    assert "Similar but not linked" in pane.browser.toPlainText()
    before = (vault / "bread/starter.md").read_bytes()
    with qtbot.waitSignal(related.link_planned, timeout=10_000):
        pane.browser.anchorClicked.emit(QUrl("link:///0"))
    dialog = win.related_tab.dialog
    assert dialog.isVisible()
    assert "+- [[loaf]]" in dialog.diff.toPlainText()
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert (vault / "bread/starter.md").read_bytes() == before + b"\n## Related\n\n- [[loaf]]\n"
    # The write reaches the index like any other: the pair is linked now.
    qtbot.waitUntil(
        lambda: bool(pane.shown) and pane.shown[-1].related.linked is True, timeout=20_000
    )
    assert win.undo_action.isEnabled()
    with qtbot.waitSignal(win.session.write_finished, timeout=10_000):
        win.undo_action.trigger()
    assert (vault / "bread/starter.md").read_bytes() == before


def test_cancel_writes_nothing(vault: Path, window_on: MakeWindow, qtbot: QtBot) -> None:
    win = window_on(topics(vault))
    related = opened(win, qtbot, "ops/rollout.md", tab=False)
    before = (vault / "ops/rollout.md").read_bytes()
    with qtbot.waitSignal(related.link_planned, timeout=10_000):
        win.related_tab.pane.browser.anchorClicked.emit(QUrl("link:///0"))
    win.related_tab.dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    qtbot.wait(200)
    assert (vault / "ops/rollout.md").read_bytes() == before
    assert not win.undo_action.isEnabled()


def test_one_threshold_and_the_sessions_answer_reach_every_view(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    win = window_on(topics(vault))
    related = ready(win, qtbot)
    assert win.graph_service is not None
    with qtbot.waitSignal(win.graph_service.graph_ready, timeout=30_000):
        win.show_view("graph-global")
    view = win.graph
    assert view is not None
    ids = view.canvas.ids
    drawn = {tuple(sorted((ids[a], ids[b]))) for a, b in view.canvas.related_edges.tolist()}
    # the session's answer, drawn at its threshold
    assert drawn == {(p.a, p.b) for p in related.current.pairs_at(related.threshold)}  # type: ignore[union-attr]
    pane = win.related_tab.pane
    pane.threshold.setValue(0.3)  # as the user types it in the Related tab
    assert related.threshold == 0.3
    assert win.settings.related_threshold() == 0.3
    assert view.related_controls.slider.value() == 30
    qtbot.waitUntil(
        lambda: win.thin_spots.spots is not None and win.thin_spots.spots.threshold == 0.3,
        timeout=5_000,
    )
    view.related_controls.slider.setValue(20)  # and the graph's slider, the other way
    assert related.threshold == 0.2
    assert pane.threshold.value() == 0.2


def test_a_shared_passage_is_named_and_highlighted(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    """The index line repeats the note's first sentence: the tab says so and shows the line
    of the related note holding the passage, the passage highlighted."""
    for rel, text in NOTES.items():
        write(vault, rel, text + "\n")
    write(vault, "tools.md", "# Tools\n\n- Feed the starter with rye flour every morning.\n")
    write(
        vault,
        "rye.md",
        "# Rye\n\nFeed the starter with rye flour every morning, then wait for bubbles.\n",
    )
    win = window_on(vault)
    opened(win, qtbot, "tools.md")
    pane = win.related_tab.pane
    rye = next(e for e in pane.shown if e.related.note == "rye.md")
    assert rye.related.passage
    assert rye.passage == "Feed the starter with rye flour every morning"
    assert (rye.line, [rye.text[a:b] for a, b in rye.spans]) == (3, [rye.passage])
    text = pane.browser.toPlainText()
    assert "a passage in common (below)" in text
    assert "Feed the starter with rye flour every morning, then wait for bubbles." in text


def test_the_tab_and_the_graph_show_only_the_notes_at_the_threshold(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    """``related --k`` fills its slots with weaker notes; the window does not: a.md's notes
    c.md (0.1214) and d.md (0.0997, derived in ``test_vault.SLOTS``) are below 0.15."""
    from tests.unit.related.test_vault import SLOTS

    for rel, text in SLOTS.items():
        write(vault, rel, text + "\n")
    win = window_on(vault)
    opened(win, qtbot, "a.md")
    assert win.graph_service is not None
    assert [e.related.note for e in win.related_tab.pane.shown] == ["b.md"]
    with qtbot.waitSignal(win.graph_service.graph_ready, timeout=30_000):
        win.show_view("graph-global")
    view = win.graph
    assert view is not None
    ids = view.canvas.ids
    drawn = {tuple(sorted((ids[a], ids[b]))) for a, b in view.canvas.related_edges.tolist()}
    assert drawn == {("a.md", "b.md"), ("c.md", "f.md"), ("d.md", "f.md"), ("e.md", "f.md")}


def test_the_index_note_says_it_is_not_compared(
    vault: Path, window_on: MakeWindow, qtbot: QtBot
) -> None:
    # The index note links every note and is like none of them: the model leaves it out.
    # The tab says so, not "no note scores 0.15 or more, a lower score shows weaker
    # matches", which no score would.
    topics(vault)
    write(vault, "MEMORY.md", "# Memory\n\n" + "".join(f"- [[{n[:-3]}]]\n" for n in NOTES))
    win = window_on(vault)
    opened(win, qtbot, "bread/starter.md")
    pane = win.related_tab.pane
    win.session.open_note("MEMORY.md")
    qtbot.waitUntil(lambda: "not compared" in pane.browser.toPlainText(), timeout=10_000)
    assert pane.browser.toPlainText() == (
        "The index note is not compared: it links every note, so it is like none of them."
    )
    assert pane.header.text() == "MEMORY.md: not compared"
    assert pane.shown == []
    # An answer for it coming later (a pass ending) does not take the message away.
    qtbot.wait(500)
    assert "not compared" in pane.browser.toPlainText()
