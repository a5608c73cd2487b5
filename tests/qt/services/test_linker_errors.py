"""The linker thread on hostile input: a dictionary nested too deeply is a warning of an
indexed vault, and a job that raises is reported while later jobs are still served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QSettings, Signal
from pytestqt.qtbot import QtBot

from librarian_gui.services.linker import LinkerThread, ScanRequest, Update
from librarian_gui.services.model import VaultModel
from librarian_gui.services.settings import Settings
from librarian_gui.services.watcher import FileBatch
from librarian_gui.ui.window.main_window import MainWindow
from tests.conftest import write

DEEP = '{"a":{"aliases":' + "[" * 1000 + "]" * 1000 + "}}"
# The 99th "[" is level 101 (see tests/unit/test_dictionary_hostile.py): column 115.
DEEP_ERROR = (
    "concepts.json: line 1, column 115: nested too deeply: more than 100 levels of brackets, "
    "where a concept needs 3"
)

# No file system takes a NUL in a name: opening one raises ValueError, not OSError.
NUL_FAILURE = (
    "1 changed file was not indexed: an unexpected error (ValueError: embedded null byte). "
    "Open the vault again to index it."
)


@pytest.fixture
def deep_vault(vault: Path) -> Path:
    write(vault, "concepts.json", DEEP)
    write(vault, "a.md", "see [[b]]\n")
    write(vault, "b.md", "# b\n")
    return vault


class Relay(QObject):
    """The linker's signals, re-emitted in the GUI thread (a queued signal-to-signal
    connection): qtbot waits on these, as a view would receive them."""

    scan_finished = Signal(object)
    scan_failed = Signal(str)
    updated = Signal(object)
    update_failed = Signal(str)


@pytest.fixture
def linker(qtbot: QtBot) -> Iterator[tuple[LinkerThread, Relay]]:
    thread = LinkerThread()
    relay = Relay()
    worker = thread.linker
    worker.scan_finished.connect(relay.scan_finished)
    worker.scan_failed.connect(relay.scan_failed)
    worker.updated.connect(relay.updated)
    worker.update_failed.connect(relay.update_failed)
    yield thread, relay
    thread.stop()


def test_the_model_indexes_a_vault_whose_dictionary_is_nested_too_deeply(
    deep_vault: Path, qtbot: QtBot
) -> None:
    model = VaultModel(deep_vault, use_cache=False)
    try:
        with qtbot.waitSignal(model.index_ready, timeout=10_000):
            model.start()
        with model.read() as index:
            assert sorted(index.notes) == ["a.md", "b.md"]
            assert index.concepts.error == DEEP_ERROR
            assert [(w.path, w.kind, w.message) for w in index.warnings()] == [
                # the warning names the file once: its message does not repeat it
                ("concepts.json", "dictionary", DEEP_ERROR.removeprefix("concepts.json: "))
            ]
    finally:
        model.close()


def test_the_window_shows_the_vault_and_the_dictionary_error(
    deep_vault: Path, qtbot: QtBot, tmp_path: Path
) -> None:
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(deep_vault, settings=settings, use_cache=False)
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.place_rendered, timeout=20_000):
            window.show()
        assert window.counts.text() == "2 notes · 1 links · 0 unresolved · 0 concepts"
        tree = window.concepts.tree
        qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=10_000)
        assert tree.topLevelItem(0).text(0) == DEEP_ERROR
        # A batch the index raises on is said in the status bar; the next change still
        # reaches the window.
        assert window.model is not None
        with qtbot.waitSignal(window.model.update_failed, timeout=10_000):
            window.model._linker.batch_arrived.emit(FileBatch(("bad\x00.md",), (), 1))
        assert window.statusBar().currentMessage() == NUL_FAILURE
        write(deep_vault, "c.md", "see [[a]]\n")
        qtbot.waitUntil(lambda: window.counts.text().startswith("3 notes · 2 links"))
    finally:
        window.close()


def test_a_scan_that_raises_is_reported_and_the_next_scan_is_served(
    vault: Path, linker: tuple[LinkerThread, Relay], qtbot: QtBot
) -> None:
    thread, relay = linker
    write(vault, "a.md", "see [[b]]\n")

    def fail_to_watch() -> None:  # what starting the file watch raises when it goes wrong
        raise RuntimeError("no watch left")

    with qtbot.waitSignal(relay.scan_failed, timeout=10_000) as failed:
        thread.scan_requested.emit(ScanRequest(vault, use_cache=False, before=fail_to_watch))
    assert failed.args == [
        f"{vault}: indexing stopped by an unexpected error (RuntimeError: no watch left)"
    ]
    with qtbot.waitSignal(relay.scan_finished, timeout=10_000) as finished:
        thread.scan_requested.emit(ScanRequest(vault, use_cache=False))
    assert sorted(finished.args[0].notes) == ["a.md"]


def test_a_batch_that_raises_is_reported_and_later_batches_are_applied(
    vault: Path, linker: tuple[LinkerThread, Relay], qtbot: QtBot
) -> None:
    thread, relay = linker
    write(vault, "a.md", "see [[b]]\n")
    with qtbot.waitSignal(relay.scan_finished, timeout=10_000):
        thread.scan_requested.emit(ScanRequest(vault, use_cache=False))
    with qtbot.waitSignal(relay.update_failed, timeout=10_000) as failed:
        thread.batch_arrived.emit(FileBatch(("bad\x00.md",), (), 1))
    assert failed.args == [NUL_FAILURE]
    write(vault, "b.md", "# b\n")
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        thread.batch_arrived.emit(FileBatch(("b.md",), (), 1))
    update = updated.args[0]
    assert isinstance(update, Update)
    assert update.delta.notes_added == ("b.md",)


def test_the_window_indexes_a_dictionary_holding_lone_surrogates(
    vault: Path, qtbot: QtBot, tmp_path: Path
) -> None:
    from tests.unit.concepts.test_dictionary_hostile import SURROGATES

    (vault / "concepts.json").write_bytes(SURROGATES)
    write(vault, "a.md", "a good alias, and beta\n")
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(vault, settings=settings, use_cache=False)
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.place_rendered, timeout=20_000):
            window.show()
        # "c\ud83d" is left out: its id is no text; "a" keeps its one alias that is.
        assert window.counts.text() == "1 notes · 0 links · 0 unresolved · 2 concepts"
        tree = window.concepts.tree
        qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1, timeout=10_000)
        head = tree.topLevelItem(0)
        assert [head.child(i).text(0) for i in range(head.childCount())] == ["a", "b"]
    finally:
        window.close()


def test_an_update_carries_the_stamps_counts_notes_and_concepts_the_panes_show(
    vault: Path, linker: tuple[LinkerThread, Relay], qtbot: QtBot
) -> None:
    """The panes take these from the update instead of reading the index under its lock."""
    import os

    from librarian_gui.core.vault.files import stamp_of

    thread, relay = linker
    write(vault, "a.md", "see [[b]] and [[ghost]]\n")
    write(vault, "concepts.json", '{"alpha": {"aliases": ["Alpha"]}}')
    with qtbot.waitSignal(relay.scan_finished, timeout=10_000):
        thread.scan_requested.emit(ScanRequest(vault, use_cache=False))
    write(vault, "b.md", "# b\nback to [[a]]\n")
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        thread.batch_arrived.emit(FileBatch(("b.md",), (), 1))
    update = updated.args[0]
    assert update.stamps == (("b.md", stamp_of(os.stat(vault / "b.md"))),)
    # 2 notes; a.md's two links and b.md's one; "ghost" unresolved; one concept
    assert update.summary == (2, 3, 1, 1)
    assert update.notes == ("a.md", "b.md")  # a note came
    assert update.concepts is None  # the dictionary did not change
    write(vault, "a.md", "see [[b]]\n")
    write(vault, "concepts.json", '{"alpha": {"aliases": ["Alpha"]}, "beta": {"aliases": []}}')
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        thread.batch_arrived.emit(FileBatch(("a.md", "concepts.json"), (), 2))
    update = updated.args[0]
    assert update.stamps == (("a.md", stamp_of(os.stat(vault / "a.md"))),)
    assert update.summary == (2, 2, 0, 2)
    assert update.notes is None  # no note came or went
    assert [c.id for c in update.concepts] == ["alpha", "beta"]
