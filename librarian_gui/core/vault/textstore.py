"""A bounded, thread-safe cache of notes' decoded text, keyed by each file's stamp."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from ..parse.records import FileStamp
from .files import read_note

DEFAULT_MAX_CHARS = 200_000_000


class TextStore:
    """Decoded note texts for full-text search and unlinked mentions.

    ``get(rel, stamp)`` returns the cached text only when it was read at exactly that
    ``FileStamp``; otherwise the file is read again, so a note the index has seen change is
    never answered from stale text. The cache holds at most ``max_chars`` characters in
    total and drops the least recently used notes first.

    Thread-safe: a worker may call ``get`` while the GUI thread calls ``forget``. Files are
    read outside the lock, so a slow disk never blocks a caller of ``forget``.
    """

    def __init__(self, root: Path | str, *, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.root = Path(root)
        self.max_chars = max_chars
        self._lock = threading.Lock()
        # rel → (stamp the text was read at, text); order is recency of use, oldest first
        self._entries: OrderedDict[str, tuple[FileStamp, str]] = OrderedDict()
        self._chars = 0

    def get(self, rel: str, stamp: FileStamp) -> str | None:
        """The note's text as of ``stamp``; None when it cannot be read as text (binary,
        too large, unreadable, gone)."""
        with self._lock:
            entry = self._entries.get(rel)
            if entry is not None and entry[0] == stamp:
                self._entries.move_to_end(rel)
                return entry[1]
        result = read_note(self.root, rel)
        if result.text is None or result.stamp is None:
            self.forget(rel)
            return None
        # Keyed by the stamp actually read: if the file changed again since the index saw
        # it, the newer text is returned now and the index's next stamp will match it.
        self._put(rel, result.stamp, result.text)
        return result.text

    def forget(self, rel: str) -> None:
        """Drop a note's text (it changed or was removed)."""
        with self._lock:
            entry = self._entries.pop(rel, None)
            if entry is not None:
                self._chars -= len(entry[1])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0

    @property
    def cached_chars(self) -> int:
        """Characters held now (what the memory bound counts)."""
        with self._lock:
            return self._chars

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, rel: object) -> bool:
        with self._lock:
            return rel in self._entries

    def _put(self, rel: str, stamp: FileStamp, text: str) -> None:
        size = len(text)
        with self._lock:
            old = self._entries.pop(rel, None)
            if old is not None:
                self._chars -= len(old[1])
            if size > self.max_chars:
                return  # caching it would evict everything else for one note
            self._entries[rel] = (stamp, text)
            self._chars += size
            while self._chars > self.max_chars:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._chars -= len(dropped)
