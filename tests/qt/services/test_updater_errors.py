"""The updater on hostile input: a dictionary nested too deeply is a warning of an indexed
vault, and a scan or a batch that raises is reported while later ones are still served."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QSettings, Signal
from pytestqt.qtbot import QtBot

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.live.updater import Listener, Update, VaultUpdater
from librarian_gui.core.vault import watch
from librarian_gui.services.model import VaultModel
from librarian_gui.services.settings import Settings
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
    """What the updater tells, as signals emitted on its thread and delivered in the GUI
    thread (queued): qtbot waits on these, as the window's model receives them."""

    scan_finished = Signal(object)
    scan_failed = Signal(str)
    updated = Signal(object)
    update_failed = Signal(str)


class Told(Listener):
    def __init__(self, relay: Relay) -> None:
        self.relay = relay

    def scan_finished(self, index: VaultIndex) -> None:
        self.relay.scan_finished.emit(index)

    def scan_failed(self, message: str) -> None:
        self.relay.scan_failed.emit(message)

    def updated(self, update: Update) -> None:
        self.relay.updated.emit(update)

    def update_failed(self, message: str) -> None:
        self.relay.update_failed.emit(message)


@pytest.fixture
def relay(qtbot: QtBot) -> Relay:
    return Relay()


@pytest.fixture
def driven(vault: Path, relay: Relay) -> Iterator[VaultUpdater]:
    """An updater whose index the test scans and whose changes the test hands over (no
    watch: what a batch holds is the test's alone)."""
    updater = VaultUpdater(vault, Told(relay), use_cache=False)
    yield updater
    updater.close()


def scanned(updater: VaultUpdater) -> VaultUpdater:
    updater.scan()
    updater.start()
    return updater


def test_the_model_indexes_a_vault_whose_dictionary_is_nested_too_deeply(
    deep_vault: Path, qtbot: QtBot
) -> None:
    model = VaultModel(deep_vault, use_cache=False)
    try:
        with qtbot.waitSignal(model.index_ready, timeout=10_000):
            model.start()
        index = model.snapshot()
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
            window.model._updater.put(["bad\x00.md"])
        assert window.statusBar().currentMessage() == NUL_FAILURE
        write(deep_vault, "c.md", "see [[a]]\n")
        qtbot.waitUntil(lambda: window.counts.text().startswith("3 notes · 2 links"))
    finally:
        window.close()


def test_a_scan_that_raises_is_reported_and_the_next_scan_is_served(
    vault: Path, relay: Relay, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "a.md", "see [[b]]\n")
    schedule = watch.VaultWatches.schedule
    calls: list[int] = []

    def fail_to_watch_once(self: watch.VaultWatches) -> None:
        calls.append(1)
        if len(calls) == 1:  # what starting the file watch raises when it goes wrong
            raise RuntimeError("no watch left")
        schedule(self)

    monkeypatch.setattr(watch.VaultWatches, "schedule", fail_to_watch_once)
    updater = VaultUpdater(vault, Told(relay), use_cache=False)
    try:
        with qtbot.waitSignal(relay.scan_failed, timeout=10_000) as failed:
            updater.start()
        assert failed.args == [
            f"{vault}: indexing stopped by an unexpected error (RuntimeError: no watch left)"
        ]
        with qtbot.waitSignal(relay.scan_finished, timeout=10_000) as finished:
            updater.rescan()
        assert sorted(finished.args[0].notes) == ["a.md"]
    finally:
        updater.close()


def test_a_batch_that_raises_is_reported_and_later_batches_are_applied(
    vault: Path, driven: VaultUpdater, relay: Relay, qtbot: QtBot
) -> None:
    write(vault, "a.md", "see [[b]]\n")
    scanned(driven)
    with qtbot.waitSignal(relay.update_failed, timeout=10_000) as failed:
        driven.put(["bad\x00.md"])
    assert failed.args == [NUL_FAILURE]
    write(vault, "b.md", "# b\n")
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        driven.put(["b.md"])
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
    vault: Path, driven: VaultUpdater, relay: Relay, qtbot: QtBot
) -> None:
    """The panes take these from the update instead of reading the index under its lock."""
    import os

    from librarian_gui.core.vault.files import stamp_of

    write(vault, "a.md", "see [[b]] and [[ghost]]\n")
    write(vault, "concepts.json", '{"alpha": {"aliases": ["Alpha"]}}')
    scanned(driven)
    write(vault, "b.md", "# b\nback to [[a]]\n")
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        driven.put(["b.md"])
    update = updated.args[0]
    assert update.stamps == (("b.md", stamp_of(os.stat(vault / "b.md"))),)
    # 2 notes; a.md's two links and b.md's one; "ghost" unresolved; one concept
    assert update.summary == (2, 3, 1, 1)
    assert update.notes == ("a.md", "b.md")  # a note came
    assert update.concepts is None  # the dictionary did not change
    write(vault, "a.md", "see [[b]]\n")
    write(vault, "concepts.json", '{"alpha": {"aliases": ["Alpha"]}, "beta": {"aliases": []}}')
    with qtbot.waitSignal(relay.updated, timeout=10_000) as updated:
        driven.inbox.put(["a.md", "concepts.json"])  # one event with both: one batch
    update = updated.args[0]
    assert update.stamps == (("a.md", stamp_of(os.stat(vault / "a.md"))),)
    assert update.summary == (2, 2, 0, 2)
    assert update.notes is None  # no note came or went
    assert [c.id for c in update.concepts] == ["alpha", "beta"]
