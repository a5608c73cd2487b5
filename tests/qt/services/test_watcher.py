"""When the watcher hands a batch of file events over: a burst, a trickle, a stream."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from librarian_gui.services.watcher import FileBatch, VaultWatcher


def _watcher(
    root: Path, debounce_ms: int, max_wait_ms: int
) -> tuple[VaultWatcher, list[FileBatch]]:
    # Not started: events are fed through take(), as watchdog's handler would, but from
    # this thread, so their timing is the test's.
    watcher = VaultWatcher(root, debounce_ms=debounce_ms, max_wait_ms=max_wait_ms)
    batches: list[FileBatch] = []
    watcher.batch_ready.connect(batches.append)
    return watcher, batches


def test_a_burst_is_one_batch_after_the_debounce(qtbot: QtBot, tmp_path: Path) -> None:
    watcher, batches = _watcher(tmp_path, debounce_ms=50, max_wait_ms=5_000)
    with qtbot.waitSignal(watcher.batch_ready, timeout=2_000):
        for n in range(10):
            watcher.take(f"n{n}.md", None)
    assert [b.paths for b in batches] == [tuple(f"n{n}.md" for n in range(10))]
    assert batches[0].events == 10


def test_a_stream_that_never_pauses_is_handed_over_every_max_wait(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """16 events every 50 ms restart a 300 ms debounce before it can fire: without the
    deadline no batch would come while the stream lasts."""
    watcher, batches = _watcher(tmp_path, debounce_ms=300, max_wait_ms=400)
    fed: list[str] = []

    def feed() -> None:
        for _ in range(16):
            fed.append(f"n{len(fed)}.md")
            watcher.take(fed[-1], None)

    feeder = QTimer(interval=50)
    feeder.timeout.connect(feed)
    feeder.start()
    try:  # the stream runs until the end: these batches can only come from the deadline
        qtbot.waitUntil(lambda: len(batches) >= 2, timeout=5_000)
    finally:
        feeder.stop()
        watcher.stop()
    handed = [p for b in batches for p in b.paths]
    assert handed == fed[: len(handed)]  # in order, nothing lost or repeated
