"""The runtime's pieces both front ends use: background loops holding back while changes come
(``UpdateQuiet``), and the vault's words kept current with its index (``VaultWords``)."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.live.quiet import UpdateQuiet
from librarian_gui.core.live.words import VaultWords

LONG = 60.0  # seconds: longer than any test waits, so only the calls below end a hold


def test_a_pause_waits_while_changes_come_and_goes_once_they_are_applied() -> None:
    quiet = UpdateQuiet(hold_after_batch=LONG, hold_after_update=0.0, pause_max=LONG)
    assert quiet.is_set()
    quiet.pause()  # nothing on its way: returns at once
    quiet.arrived()
    assert not quiet.is_set()
    paused = threading.Thread(target=quiet.pause)
    paused.start()
    paused.join(0.2)
    assert paused.is_alive()  # held back while the batch is on its way
    quiet.applied()
    paused.join(5)
    assert not paused.is_alive()
    assert quiet.is_set()


def test_stop_lets_every_loop_go_for_good() -> None:
    quiet = UpdateQuiet(hold_after_batch=LONG, hold_after_update=LONG, pause_max=LONG)
    quiet.arrived()
    paused = [threading.Thread(target=quiet.pause) for _ in range(2)]
    for thread in paused:
        thread.start()
    quiet.stop()
    for thread in paused:
        thread.join(5)
        assert not thread.is_alive()
    quiet.arrived()  # after stop: no hold any more
    assert quiet.is_set()
    quiet.pause()


WORDS = ["red", "green", "blue", "sky", "über"]
NOTES = ["a.md", "b.md", "dir/c.md", "d.md"]
NAMES = ["red", "green blue", "sky über", "nothing"]
texts = st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join)
ops = st.lists(
    st.tuples(st.sampled_from(["write", "delete"]), st.sampled_from(NOTES), texts), max_size=12
)


class _Writer:
    """Writes and deletes the notes of a test vault, each write at a new mtime, long past
    (so that a cache may be kept at once); ``touched``: the notes written or deleted."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._stamp = iter(range(1_000_000_000, 2_000_000_000, 10))
        self.touched: set[str] = set()

    def __call__(self, op: str, rel: str, text: str) -> None:
        path = self.root / rel
        self.touched.add(rel)
        if op == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            when = next(self._stamp)
            os.utime(path, (when, when))
        elif path.exists():
            path.unlink()


def _by_definition(root: Path, name: str) -> set[str]:
    wanted = set(name.split())
    found = set()
    for rel in NOTES:
        path = root / rel
        if path.exists() and wanted <= set(path.read_text(encoding="utf-8").split()):
            found.add(rel)
    return found


@given(first=ops, during=ops, after=ops)
@settings(max_examples=40, deadline=None)
def test_the_words_follow_the_index_through_the_warm_up_and_every_update(
    first: list[tuple[str, str, str]],
    during: list[tuple[str, str, str]],
    after: list[tuple[str, str, str]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        apply = _Writer(root)
        for op, rel, text in first:
            apply(op, rel, text)
        index = VaultIndex.scan(root, use_cache=False)

        def text_of(rel: str) -> str | None:
            if rel not in index.notes:
                return None
            return (root / rel).read_text(encoding="utf-8")

        words = VaultWords(index, text_of)
        assert words.holding(["red"]) is None  # before the warm-up: every note may
        steps = iter(during)

        def step() -> None:  # a change between the notes the warm-up reads
            change = next(steps, None)
            if change is not None:
                apply(*change)
                words.changed_by(index.update([change[1]]))

        words.warm(step)
        for change in steps:  # those the warm-up had no step left for
            apply(*change)
            words.changed_by(index.update([change[1]]))
        for name in NAMES:
            assert words.holding([name]) == _by_definition(root, name), name
        for op, rel, text in after:
            apply(op, rel, text)
            words.changed_by(index.update([rel]))
            for name in NAMES:
                assert words.holding([name]) == _by_definition(root, name), name


@given(first=ops, between=ops, after=ops)
@settings(max_examples=30, deadline=None)
def test_the_next_process_reads_only_the_notes_changed_since_the_words_were_kept(
    first: list[tuple[str, str, str]],
    between: list[tuple[str, str, str]],
    after: list[tuple[str, str, str]],
) -> None:
    """A warm-up keeps the words for the next process on the vault (``use_cache``); that
    one loads them and reads only the notes written since (or new), drops those gone, and
    answers as if it had read every note."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        apply = _Writer(root)
        touched = apply.touched

        def open_words() -> tuple[VaultIndex, VaultWords, list[str]]:
            index = VaultIndex.scan(root, use_cache=True)
            read: list[str] = []

            def text_of(rel: str) -> str | None:
                read.append(rel)
                if rel not in index.notes:
                    return None
                return (root / rel).read_text(encoding="utf-8")

            return index, VaultWords(index, text_of), read

        for change in first:
            apply(*change)
        _, words, read = open_words()
        assert words.warm()
        assert sorted(read) == sorted(p for p in NOTES if (root / p).exists())

        touched.clear()
        for change in between:
            apply(*change)
        index, words, read = open_words()
        assert words.warm()
        # by hand: the notes written since (a rewrite may keep the size, never the mtime)
        assert sorted(read) == sorted(p for p in touched if (root / p).exists())
        for name in NAMES:
            assert words.holding([name]) == _by_definition(root, name), name
        for op, rel, text in after:
            apply(op, rel, text)
            words.changed_by(index.update([rel]))
            for name in NAMES:
                assert words.holding([name]) == _by_definition(root, name), name
