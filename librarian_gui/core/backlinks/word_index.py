"""Which notes hold each word: narrows a search for a note's names to the notes that can hold them.

Unlinked mentions look for a note's title and aliases as whole words in every other note;
reading 10,000 notes for each question costs a tenth of a second. A name written as whole
words can only be in a note holding each of its words, so the notes to look in are the
intersection of its words' notes. A name in a script written without word spaces (Chinese,
Japanese, Thai…: the analyzer's ``NO_SPACES``) is matched anywhere, so it cannot be
narrowed: every note is looked in.

Words are the analyzer's ``word_set``: bounded as the matcher bounds a name, lowercased with
``str.lower`` as the matcher's first test is (a note is read only when it holds a name's
lowercase form), so a note that test passes holds the name's words.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from ..parse.records import FileStamp
from ..text.analyzer import has_unspaced, mention_words, word_set


class WordIndex:
    """Word → the notes holding it, kept per note at the file stamp it was read at.
    Thread-safe: one thread updates while others ask."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._notes: dict[str, set[str]] = {}  # word → notes
        self._of: dict[str, tuple[FileStamp, frozenset[str]]] = {}  # note → stamp, words
        self.complete = False  # every note of the vault is in (set by the owner)

    def stamp(self, rel: str) -> FileStamp | None:
        entry = self._of.get(rel)
        return None if entry is None else entry[0]

    def put(self, rel: str, stamp: FileStamp, text: str) -> None:
        words = word_set(text)
        with self._lock:
            self._drop(rel)
            self._of[rel] = (stamp, words)
            for word in words:
                self._notes.setdefault(word, set()).add(rel)

    def remove(self, rel: str) -> None:
        with self._lock:
            self._drop(rel)

    def _drop(self, rel: str) -> None:
        old = self._of.pop(rel, None)
        if old is None:
            return
        for word in old[1]:
            holders = self._notes.get(word)
            if holders is not None:
                holders.discard(rel)
                if not holders:
                    del self._notes[word]

    def holding(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can hold one of ``names`` as whole words; None when that cannot
        be narrowed (the index is not complete, or a name is in an unspaced script or has
        no word)."""
        if not self.complete:
            return None
        found: set[str] = set()
        with self._lock:
            for name in names:
                words = mention_words(name)
                if not words or has_unspaced(name):
                    return None
                sets = sorted((self._notes.get(w, set()) for w in words), key=len)
                found |= set.intersection(*sets) if len(sets) > 1 else set(sets[0])
        return found
