"""The words of an open vault's notes, kept current with its index, for unlinked mentions.

A ``WordIndex`` narrows the notes a name can be mentioned in to those holding its words.
It is only right while it holds every note as the index has it: ``warm`` reads them all
once (in a background loop, after the scan), and from then on the notes of each update are
``changed``, read again before the next question (``holding``) or by the update thread
(``catch_up``), whichever comes first. Until the warm-up is done a question looks in every
note, as it would without words.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..backlinks.word_index import WordIndex
from ..index import cachefile
from ..index.cache import cache_dir, changed_too_recently, vault_key

if TYPE_CHECKING:
    from ..index.delta import IndexDelta
    from ..index.snapshot import IndexView

Text = Callable[[str], "str | None"]  # a note's text as the index has it; None: not a note

_log = logging.getLogger(__name__)
# The words kept for the next process on the vault (``VaultWords.warm``): reading every
# note's words again took 20 s of CPU at each start of a server on 50,000 notes.
_WORDS_MAGIC = b"LIBRARIAN-WORDS 1\n"
MAX_WORDS_BYTES = 1 << 30


def words_file(root: Path) -> Path:
    return cache_dir() / "words" / f"{vault_key(root)}.bin"


class VaultWords:
    """A vault's ``WordIndex`` and the notes changed since it last read them. Thread-safe:
    one thread reads a note at a time (a note read twice at once could be put at the stamp
    of the older read last)."""

    def __init__(self, index: IndexView, text: Text) -> None:
        self._index = index
        self._text = text
        self.words = WordIndex()
        self._pending: dict[str, None] = {}
        self._lock = threading.Lock()  # guards _pending
        self._reading = threading.Lock()  # one reader of notes at a time
        self._todo: list[str] | None = None  # the notes the warm-up has still to read
        self._read_here = 0  # notes read (or dropped) by this process: the saved words are old

    @property
    def complete(self) -> bool:
        return self.words.complete

    def changed(self, rels: Iterable[str]) -> None:
        """These notes changed, came or went: read them again before the next question."""
        with self._lock:
            self._pending.update(dict.fromkeys(rels))

    def changed_by(self, delta: IndexDelta) -> None:
        self.changed((*delta.notes_added, *delta.notes_changed, *delta.notes_removed))

    def catch_up(self) -> None:
        """Read the notes changed since the last time (from the warm-up on: until then
        they wait, and the warm-up reads what it does not hold as it is)."""
        if self._todo is None:
            return
        with self._lock:
            rels, self._pending = list(self._pending), {}
        for rel in rels:
            self._read(rel)

    def warm(self, step: Callable[[], None] = lambda: None, budget: int | None = None) -> bool:
        """Read the notes of the index not read yet, ``step()`` before each (it may raise
        to stop, or wait: a change first), ``budget`` of them at most; True once every
        note was read: the words are complete. (The window warms in pieces, each a job
        of its own: a question for unlinked mentions does not wait behind the whole.)"""
        if self._todo is None:
            self._todo = self._unread()[::-1]
        for _ in range(len(self._todo) if budget is None else budget):
            if not self._todo:
                break
            step()
            self._read(self._todo.pop())
        if self._todo:
            return False
        with self._reading:
            if not self.words.complete:
                # A note added meanwhile is pending (or was read); one removed is out of
                # the index: each once more at its stamp (a no-op for most).
                for rel in list(self._index.notes):
                    self._read_locked(rel)
                self.words.complete = True
                if self._read_here:
                    self._save()
        return True

    def _unread(self) -> list[str]:
        """The notes of the index whose words are not held as they are: all of them,
        unless the words a process saved for this vault are loaded first (those of notes
        gone since are dropped)."""
        notes = self._index.notes
        with self._reading:
            if self._index.identity.use_cache and not self.words.stamps():
                loaded = self._load()
                if loaded is not None and self.words.take(loaded):
                    for rel in loaded.stamps().keys() - notes.keys():
                        self.words.remove(rel)
            stamp = self.words.stamp
            return [rel for rel, record in notes.items() if stamp(rel) != record.stamp]

    def _load(self) -> WordIndex | None:
        data = cachefile.read_sealed(words_file(self._index.root), _WORDS_MAGIC, MAX_WORDS_BYTES)
        return WordIndex.undump(data) if data is not None else None

    def _save(self) -> None:
        """Keep the words for the next process on this vault, unless a note changed so
        recently that a rewrite in the same timestamp tick could go unseen (as the index
        cache does). Not an error when it cannot be written: a cache is a convenience."""
        if not self._index.identity.use_cache:
            return
        stamps = self.words.stamps()
        if changed_too_recently((s.mtime_ns for s in stamps.values()), time.time_ns()):
            return
        if not cachefile.write_sealed(
            words_file(self._index.root), _WORDS_MAGIC, self.words.dump()
        ):
            return
        self._read_here = 0

    def holding(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can mention one of ``names``; None: every note may (the warm-up
        is not done, or a name cannot be narrowed: see ``WordIndex.holding``)."""
        if not self.words.complete:
            return None
        self.catch_up()
        return self.words.holding(names)

    def _read(self, rel: str) -> None:
        with self._reading:
            self._read_locked(rel)

    def _read_locked(self, rel: str) -> None:
        record = self._index.notes.get(rel)
        if record is not None and self.words.stamp(rel) == record.stamp:
            return  # read as it is
        text = None if record is None else self._text(rel)
        self._read_here += 1
        if record is None or text is None:
            self.words.remove(rel)
        else:
            self.words.put(rel, record.stamp, text)
