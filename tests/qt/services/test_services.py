"""The live pipeline with the real watcher and the real updater thread: files changed on disk
by someone else reach the model, coalesced, and leave the index equal to a fresh scan."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from librarian_gui.core.index.queries import backlinks
from librarian_gui.core.live.batches import FileBatch
from librarian_gui.core.vault.files import is_relevant_change as relevant
from librarian_gui.core.vault.files import stamp_of
from librarian_gui.services.model import Update, VaultModel
from tests.conftest import assert_same_as_fresh_scan, write


@pytest.fixture
def model(vault: Path, qtbot: QtBot) -> Iterator[VaultModel]:
    write(vault, "Hub.md", "# Hub\n")
    write(vault, "A.md", "see [[Hub]]\n")
    write(vault, "sub/B.md", "also [[Hub|the hub]]\n")
    m = VaultModel(vault, use_cache=False)
    with qtbot.waitSignal(m.index_ready, timeout=10_000):
        m.start()
    yield m
    m.close()


def sources_of(model: VaultModel, rel: str) -> list[str]:
    index = model.snapshot()
    return sorted({b.source for b in backlinks(index, rel)})


def test_scan_builds_the_index_on_the_updater_thread(model: VaultModel) -> None:
    index = model.snapshot()
    assert sorted(index.notes) == ["A.md", "Hub.md", "sub/B.md"]
    assert sources_of(model, "Hub.md") == ["A.md", "sub/B.md"]


def test_external_create_modify_delete_reach_the_model(model: VaultModel, qtbot: QtBot) -> None:
    root = model.root
    write(root, "new/C.md", "a new note about [[Hub]]\n")
    qtbot.waitUntil(lambda: sources_of(model, "Hub.md") == ["A.md", "new/C.md", "sub/B.md"])
    (root / "A.md").write_text("no link any more\n", encoding="utf-8")
    qtbot.waitUntil(lambda: sources_of(model, "Hub.md") == ["new/C.md", "sub/B.md"])
    (root / "sub" / "B.md").unlink()
    qtbot.waitUntil(lambda: sources_of(model, "Hub.md") == ["new/C.md"])
    assert model.index is not None
    assert_same_as_fresh_scan(model.index)


def test_external_rename_is_reported_as_a_rename(model: VaultModel, qtbot: QtBot) -> None:
    updates: list[Update] = []
    model.index_updated.connect(updates.append)
    os.rename(model.root / "Hub.md", model.root / "Centre.md")
    qtbot.waitUntil(lambda: any(u.renamed for u in updates))
    assert [u.renamed for u in updates if u.renamed] == [(("Hub.md", "Centre.md"),)]
    # the links [[Hub]] no longer resolve: they became a ghost; the renamed note is linked
    # by nothing, as in Obsidian when links are not rewritten
    assert sources_of(model, "//unresolved/hub") == ["A.md", "sub/B.md"]


def test_a_burst_of_2000_events_is_coalesced_and_ends_equal_to_a_fresh_scan(
    model: VaultModel, qtbot: QtBot
) -> None:
    batches: list[FileBatch] = []
    # Heard on the updater's thread (a direct connection): each batch as it is taken.
    model._signals.batch_taken.connect(batches.append, Qt.ConnectionType.DirectConnection)
    root = model.root
    for i in range(1000):  # like a git checkout: many files created, then rewritten
        write(root, f"burst/n{i:04}.md", f"note {i} links [[Hub]] and [[n{(i + 1) % 1000:04}]]\n")
    for i in range(0, 1000, 2):
        write(root, f"burst/n{i:04}.md", f"note {i} rewritten, links [[A]]\n")
    qtbot.waitUntil(lambda: _count(model, "burst/") == 1000, timeout=30_000)
    qtbot.waitUntil(lambda: _settled(model, root), timeout=30_000)
    events = sum(b.events for b in batches)
    assert events >= 1000  # watchdog saw the burst ...
    assert len(batches) <= 12  # ... and the updater took it in a handful of batches
    assert model.index is not None
    assert_same_as_fresh_scan(model.index)


def _count(model: VaultModel, prefix: str) -> int:
    index = model.snapshot()
    return sum(1 for rel in index.notes if rel.startswith(prefix))


def _settled(model: VaultModel, root: Path) -> bool:
    """Every burst note is indexed as it is on disk now (size, mtime and inode)."""
    index = model.snapshot()
    return all(
        index.notes[f"burst/n{i:04}.md"].stamp == stamp_of(os.stat(root / f"burst/n{i:04}.md"))
        for i in range(1000)
    )


def test_paths_that_cannot_matter_are_dropped() -> None:
    assert relevant("notes/a.md")
    assert relevant(".librarianignore")
    assert not relevant(".git/index")
    assert not relevant("notes/.hidden/a.md")
    assert not relevant(".librarian/journal/x.json")
    assert not relevant("notes/.#a.md")
    assert not relevant("notes/a.md~")


def test_nothing_arrives_from_the_updater_after_close(model: VaultModel, qtbot: QtBot) -> None:
    """An update the updater finished just before close() is queued to the GUI thread; it
    must not reach the views after close (they have let go of the model by then)."""
    arrived: list[object] = []
    model.index_updated.connect(arrived.append)
    model.scan_progressed.connect(lambda *a: arrived.append(a))
    applied = threading.Event()
    # Heard on the updater's thread (a direct connection), so its answer stays queued for
    # the GUI thread, which does not run its event loop until close().
    model._signals.updated.connect(
        lambda _update: applied.set(), Qt.ConnectionType.DirectConnection
    )
    write(model.root, "Late.md", "about [[Hub]]\n")
    assert applied.wait(10)  # the updater applied the change; its answer waits in the queue
    model.close()
    model.rescan()  # after close: ignored, not a scan on a stopped thread
    qtbot.wait(300)
    assert arrived == []


def test_background_loops_hold_back_while_a_change_is_on_its_way(
    model: VaultModel, qtbot: QtBot
) -> None:
    import threading

    assert model._quiet.is_set()  # nothing on its way: a pause returns at once
    model.pause_for_updates()
    quiet_states: list[bool] = []
    model.index_updated.connect(lambda _u: quiet_states.append(model._quiet.is_set()))
    write(model.root, "C.md", "about [[Hub]]\n")
    qtbot.waitUntil(lambda: not model._quiet.is_set(), timeout=5_000)  # the batch arrived
    paused = threading.Thread(target=model.pause_for_updates)
    paused.start()
    qtbot.waitUntil(lambda: bool(quiet_states), timeout=5_000)
    assert quiet_states[0] is False  # still held back while the update is handed out
    qtbot.waitUntil(model._quiet.is_set, timeout=5_000)  # and let go shortly after
    paused.join(5)
    assert not paused.is_alive()
    # Closing lets go of any loop still waiting.
    write(model.root, "D.md", "more\n")
    qtbot.waitUntil(lambda: not model._quiet.is_set(), timeout=5_000)
    model.close()
    assert model._quiet.is_set()


def test_outline_and_outgoing_are_sent_again_only_when_they_change(
    model: VaultModel, qtbot: QtBot
) -> None:
    """An appended line with no heading or link leaves both panes alone (no rows made
    again at each note of a checkout); a new heading or link is sent."""
    from librarian_gui.services.session import SessionService

    session = SessionService(model, dark=False)
    outlines: list[list[str]] = []
    outgoing: list[list[str]] = []
    session.outline_ready.connect(lambda hs: outlines.append([h.text for h in hs]))
    session.outgoing_ready.connect(lambda ls: outgoing.append([link.node for link in ls]))
    with qtbot.waitSignal(session.outline_ready, timeout=10_000):
        session.open_note("A.md")
    assert (outlines, outgoing) == ([[]], [["Hub.md"]])
    updates: list[Update] = []
    model.index_updated.connect(updates.append)
    with (model.root / "A.md").open("a", encoding="utf-8") as fh:
        fh.write("a line the agent appended\n")
    qtbot.waitUntil(lambda: bool(updates), timeout=10_000)
    # The update's jobs (render, backlinks, the two panes' contents) have all answered.
    qtbot.waitUntil(lambda: model.quick_jobs.pending == 0, timeout=10_000)
    assert (outlines, outgoing) == ([[]], [["Hub.md"]])
    with (model.root / "A.md").open("a", encoding="utf-8") as fh:
        fh.write("## Later\nand [[sub/B]]\n")
    qtbot.waitUntil(lambda: len(outlines) == 2, timeout=10_000)
    assert (outlines, outgoing) == ([[], ["Later"]], [["Hub.md"], ["Hub.md", "sub/B.md"]])
    session.shutdown()
    session.deleteLater()


def test_once_the_vault_is_closing_no_loop_waits_for_a_change(
    model: VaultModel, qtbot: QtBot
) -> None:
    """The window stops its background threads before closing the model, from the GUI
    thread, which then lets no update through: their pauses must not wait meanwhile."""
    write(model.root, "C.md", "about [[Hub]]\n")
    qtbot.waitUntil(lambda: not model._quiet.is_set(), timeout=5_000)  # a change on its way
    model.stop_pausing()
    assert model._quiet.is_set()
    write(model.root, "D.md", "more\n")  # and one more arrives while closing
    qtbot.wait(300)
    assert model._quiet.is_set()  # still: nothing waits


def test_the_words_warm_up_waits_for_a_pass_of_related_notes(vault: Path, qtbot: QtBot) -> None:
    """Both read every note in Python: the warm-up of the vault's words starts once the
    pass of related notes is done, not beside it (bench_gui: the first pass at 10,000
    notes took 14-17 s instead of 10 with the two sharing the interpreter lock)."""
    from librarian_gui.services.session import SessionService

    write(vault, "Hub.md", "# Hub\n")
    write(vault, "A.md", "about the hub\n")
    model = VaultModel(vault, use_cache=False)
    session = SessionService(model, dark=False)
    model.related_running.set()  # as RelatedService sets it while its pass runs
    try:
        with qtbot.waitSignal(model.index_ready, timeout=10_000):
            model.start()
        qtbot.wait(1500)  # a warm-up of two notes would be done many times over
        assert session.words is not None and not session.words.complete
        model.related_running.clear()
        qtbot.waitUntil(
            lambda: session.words is not None and session.words.complete, timeout=10_000
        )
        assert session.words.holding(["Hub"]) == {"Hub.md", "A.md"}
    finally:
        session.shutdown()
        session.deleteLater()
        model.close()


def test_background_loops_hold_back_until_the_last_piece_of_a_checkout(
    model: VaultModel, qtbot: QtBot
) -> None:
    """A checkout is applied in pieces (CHUNK_PATHS), each its own update: background loops
    hold back until the last piece is out, not only until the first (then they went on 150
    ms later, beside the rest of the checkout: bench_gui's burst lag 96-147 ms)."""
    import time

    from librarian_gui.core.live.quiet import HOLD_AFTER_BATCH, HOLD_AFTER_UPDATE

    updates: list[Update] = []
    model.index_updated.connect(updates.append)
    write(model.root, "C.md", "about [[Hub]]\n")
    qtbot.waitUntil(lambda: bool(updates), timeout=10_000)
    qtbot.waitUntil(model._quiet.is_set, timeout=10_000)
    quiet, updater = model._quiet, model._updater
    # As the updater leaves things between two pieces: one applied, more to apply.
    quiet.arrived()
    updater.inbox.reading(("co-150.md", "co-151.md"))
    model._on_updater_updated(updates[0])
    assert quiet._until - time.monotonic() > HOLD_AFTER_BATCH / 2  # still held back
    # The last piece is out: loops go on shortly.
    updater.inbox.reading(())
    model._on_updater_updated(updates[0])
    assert quiet._until - time.monotonic() <= HOLD_AFTER_UPDATE
