"""The one related-notes worker (core/live/related.py) the window and the MCP server share:
a pass when wanted, one pass for a burst of changes, a refresh cancels the pass under way
and nothing of it is told, close stops the thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.live.related import RelatedListener, RelatedRunner
from librarian_gui.core.related.vault import REDO_AFTER_CHANGES, RelatedIndex
from tests.conftest import write

NOTES = {
    "bread/starter.md": "A sourdough starter: flour and water, fed daily, a levain.",
    "bread/loaf.md": "A sourdough loaf from the levain: flour, water, salt, a long proof.",
    "boats/heron.md": "A heron in the marsh reeds, by the egret.",
    "boats/egret.md": "An egret by the marsh reeds; a heron flew.",
}


class Told(RelatedListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.ready = threading.Event()

    def related_started(self, generation: int, first: bool) -> None:
        self.events.append(("started", generation))

    def related_ready(self, generation: int, related: RelatedIndex) -> None:
        self.events.append(("ready", generation))
        self.ready.set()

    def related_failed(self, generation: int, message: str) -> None:
        self.events.append(("failed", generation))


def _vault(root: Path) -> VaultIndex:
    for rel, text in NOTES.items():
        write(root, rel, text + "\n")
    return VaultIndex.scan(root, use_cache=False)


def _runner(index: VaultIndex, told: Told, read: object = None) -> RelatedRunner:
    def plain(rel: str) -> str:
        return (index.root / rel).read_text(encoding="utf-8")

    return RelatedRunner(
        lambda: index,
        read or plain,  # type: ignore[arg-type]
        told,
        wait_for_updates=lambda: None,
        use_cache=False,
    )


def test_a_pass_when_wanted_and_its_answer_told(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    told = Told()
    runner = _runner(index, told)
    try:
        assert not told.ready.wait(0.2)  # nothing before it is wanted
        runner.want()
        assert told.ready.wait(20)
        assert told.events == [("started", 1), ("ready", 1)]
        assert runner.current is not None
        # the two loaves are each other's nearest, as the two birds are
        assert runner.current.related("bread/starter.md", 0.0)[0].note == "bread/loaf.md"
        assert runner.current.related("boats/heron.md", 0.0)[0].note == "boats/egret.md"
        assert not runner.running.is_set()
    finally:
        runner.close()


def test_a_burst_of_changes_makes_one_pass_once_they_stop(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    told = Told()
    runner = _runner(index, told)
    try:
        runner.want()
        assert told.ready.wait(20)
        told.ready.clear()
        started = time.monotonic()
        for _ in range(5):
            runner.changed()
            time.sleep(0.1)
        assert told.ready.wait(20)
        # not before the last change's quiet time: one pass for the five
        assert time.monotonic() - started >= 0.4 + REDO_AFTER_CHANGES - 0.05
        time.sleep(0.3)
        assert told.events == [("started", 1), ("ready", 1), ("started", 2), ("ready", 2)]
    finally:
        runner.close()


def test_a_refresh_cancels_the_pass_under_way_and_it_tells_nothing(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    told = Told()
    held = threading.Event()  # the first pass reads until the test lets it go on
    reading = threading.Event()
    passes = [0]

    def read(rel: str) -> str:
        if passes[0] == 0:
            reading.set()
            held.wait(20)
        return (tmp_path / rel).read_text(encoding="utf-8")

    runner = _runner(index, told, read)
    try:
        runner.want()
        assert reading.wait(20)
        first = runner._cancel
        runner.refresh()
        assert first.is_set()
        passes[0] = 1
        held.set()
        assert told.ready.wait(20)
        time.sleep(0.3)
        assert told.events == [("started", 1), ("started", 2), ("ready", 2)]
    finally:
        runner.close()


def test_close_stops_the_thread_even_while_a_pass_waits(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    told = Told()
    waiting = threading.Event()

    def never_quiet() -> None:  # an update on its way that never comes
        waiting.set()
        time.sleep(0.05)

    runner = RelatedRunner(
        lambda: index,
        lambda rel: (tmp_path / rel).read_text(encoding="utf-8"),
        told,
        wait_for_updates=never_quiet,
        use_cache=False,
    )
    runner.want()
    assert waiting.wait(20)
    runner.close(timeout=20)
    assert not runner._thread.is_alive()
    assert ("ready", 1) not in told.events
