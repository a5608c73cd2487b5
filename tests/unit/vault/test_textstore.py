"""The text store: cached by file stamp, re-read when a file changes, bounded, thread-safe."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from librarian_gui.core.parse.records import FileStamp
from librarian_gui.core.vault.files import stamp_of
from librarian_gui.core.vault.textstore import TextStore
from tests.conftest import write


def stamp(root: Path, rel: str) -> FileStamp:
    return stamp_of(os.stat(root / rel))


def test_text_is_cached_under_the_stamp_it_was_read_at(vault: Path) -> None:
    write(vault, "a.md", "first version\n", age=60)
    old = stamp(vault, "a.md")
    store = TextStore(vault)
    assert store.get("a.md", old) == "first version\n"
    write(vault, "a.md", "second, longer version\n", age=30)
    # Asked for the old stamp, the store answers from its cache without reading...
    assert store.get("a.md", old) == "first version\n"
    # ...and the new stamp makes it read the file again.
    new = stamp(vault, "a.md")
    assert new != old
    assert store.get("a.md", new) == "second, longer version\n"
    assert store.get("a.md", old) == "second, longer version\n"  # the old text is gone


def test_a_same_size_rewrite_is_seen_through_its_mtime(vault: Path) -> None:
    write(vault, "a.md", "aaaa\n", age=60)
    store = TextStore(vault)
    assert store.get("a.md", stamp(vault, "a.md")) == "aaaa\n"
    write(vault, "a.md", "bbbb\n", age=10)
    assert store.get("a.md", stamp(vault, "a.md")) == "bbbb\n"


def test_forget_drops_the_text(vault: Path) -> None:
    write(vault, "a.md", "one\n", age=60)
    old = stamp(vault, "a.md")
    store = TextStore(vault)
    store.get("a.md", old)
    assert "a.md" in store and store.cached_chars == 4
    write(vault, "a.md", "three\n", age=30)
    store.forget("a.md")
    assert "a.md" not in store and store.cached_chars == 0
    assert store.get("a.md", old) == "three\n"  # read again, whatever stamp was asked for
    store.forget("never-seen.md")  # forgetting what is not cached is fine


def test_least_recently_used_notes_leave_first_past_the_bound(vault: Path) -> None:
    for name in "abc":
        write(vault, f"{name}.md", name * 4)  # four characters each
    store = TextStore(vault, max_chars=10)
    get = {name: (lambda n=name: store.get(f"{n}.md", stamp(vault, f"{n}.md"))) for name in "abc"}
    assert get["a"]() == "aaaa"
    assert get["b"]() == "bbbb"
    assert get["a"]() == "aaaa"  # a is now more recent than b
    assert get["c"]() == "cccc"  # 12 > 10 characters: b, the least recent, leaves
    assert "b.md" not in store
    assert "a.md" in store and "c.md" in store
    assert store.cached_chars == 8 and len(store) == 2


def test_a_note_larger_than_the_bound_is_returned_but_not_cached(vault: Path) -> None:
    write(vault, "small.md", "tiny")
    write(vault, "big.md", "x" * 50)
    store = TextStore(vault, max_chars=10)
    store.get("small.md", stamp(vault, "small.md"))
    assert store.get("big.md", stamp(vault, "big.md")) == "x" * 50
    assert "big.md" not in store
    assert "small.md" in store  # the big one did not push everything else out


def test_unreadable_notes_give_none(vault: Path) -> None:
    write(vault, "binary.md", b"\x00\x01\x02 not text")
    write(vault, "gone.md", "here for a moment\n")
    store = TextStore(vault)
    assert store.get("binary.md", stamp(vault, "binary.md")) is None
    gone = stamp(vault, "gone.md")
    store.get("gone.md", gone)
    (vault / "gone.md").unlink()
    store.forget("gone.md")
    assert store.get("gone.md", gone) is None
    assert "gone.md" not in store and "binary.md" not in store


def test_text_that_is_not_utf8_comes_with_replacement_characters(vault: Path) -> None:
    write(vault, "latin1.md", "café\n".encode("latin-1"))
    store = TextStore(vault)
    assert store.get("latin1.md", stamp(vault, "latin1.md")) == "caf\ufffd\n"


def test_readers_and_forgetters_on_several_threads(vault: Path) -> None:
    rels = [f"n{i:02}.md" for i in range(40)]
    for rel in rels:
        write(vault, rel, f"text of {rel}\n")
    stamps = {rel: stamp(vault, rel) for rel in rels}
    store = TextStore(vault, max_chars=300)  # small: eviction runs all the time
    errors: list[str] = []

    def read() -> None:
        for _ in range(20):
            for rel in rels:
                if store.get(rel, stamps[rel]) != f"text of {rel}\n":
                    errors.append(rel)

    def forget() -> None:
        for _ in range(20):
            for rel in rels:
                store.forget(rel)

    threads = [threading.Thread(target=read) for _ in range(3)]
    threads.append(threading.Thread(target=forget))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.cached_chars <= 300
    assert store.cached_chars == sum(len(f"text of {rel}\n") for rel in rels if rel in store)
