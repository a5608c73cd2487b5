"""A vault index kept live without Qt, for the MCP server: the watcher, the updates, the librarian.

``LiveVault`` starts from the index cache, then a watchdog observer queues every changed
path. An updater thread applies them after a short debounce, and a question asked before
that (``fresh``) applies what is queued first, so an answer never misses a change the
server was told of — its own writes included (``changed``). A librarian thread keeps the
related notes: from their cache at start, then redone for changed notes a moment after the
last change. Readers hold ``index.lock`` while they read (see ``VaultIndex``).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..backlinks.word_index import WordIndex
from ..concepts.dictionary import load_dictionary
from ..index.index import VaultIndex
from ..related.vault import RelatedIndex
from ..vault.files import is_relevant_change, read_note
from ..vault.textstore import TextStore
from ..vault.watch import VaultWatches
from .answers import related_adjacency

_log = logging.getLogger(__name__)
_CHANGES = frozenset({"created", "modified", "moved", "deleted"})
DEBOUNCE = 0.05  # seconds without a change before the updater applies what came
MAX_WAIT = 1.0  # seconds at most a change waits for a burst to end (a question waits none)
RELATED_DELAY = 1.5  # seconds after the last update before related notes are redone


class LiveVault:
    """The index of ``root``, kept current while the process runs; ``close`` stops it."""

    def __init__(
        self,
        root: Path,
        *,
        concepts: Path | None = None,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
        related: bool = True,
    ) -> None:
        dictionary = load_dictionary(concepts) if concepts is not None else None
        self.index = VaultIndex.scan(
            root, use_cache=use_cache, concepts=dictionary, excluded=tuple(excluded)
        )
        self.root = self.index.root
        self._prefix = str(self.root) + "/"
        self._use_cache = use_cache
        self.texts = TextStore(self.root)
        self.words = WordIndex()  # complete once every note was read (the warm-up)
        self._pending: dict[str, None] = {}
        self._pending_lock = threading.Lock()
        self._updating = threading.Lock()  # one writer of the index at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._related: RelatedIndex | None = None
        self._adjacency: dict[str, list[tuple[str, float]]] = {}
        self._related_ready = threading.Event()
        self._related_wanted = threading.Event()
        self._last_update = 0.0
        self._observer = Observer()
        VaultWatches(self._observer, _Handler(self), str(self.root)).schedule()
        self._observer.daemon = True
        self._observer.start()
        self._threads = [threading.Thread(target=self._run_updates, name="live-updates")]
        if related:
            self._threads.append(threading.Thread(target=self._run_related, name="live-related"))
            self._related_wanted.set()
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    # ------------------------------------------------------------ changes

    def changed(self, paths: Iterable[str]) -> None:
        """Queue vault paths (relative) to read again: events, and the server's own writes."""
        taken = [p for p in paths if is_relevant_change(p)]
        if not taken:
            return
        with self._pending_lock:
            self._pending.update(dict.fromkeys(taken))
        self._wake.set()

    def fresh(self) -> None:
        """Apply every queued change now (a question is about to be answered)."""
        with self._pending_lock:
            if not self._pending:
                return
        self._apply()

    def _apply(self) -> None:
        with self._updating:
            with self._pending_lock:
                paths, self._pending = list(self._pending), {}
            if not paths:
                return
            try:
                delta = self.index.update(paths)
            except Exception:  # one bad batch must not stop the server; say so in its log
                _log.exception("updating the index for %d paths failed", len(paths))
                return
            if not delta.empty:
                self._last_update = time.monotonic()
                self._related_wanted.set()
            for rel in delta.notes_removed:
                self.words.remove(rel)
            for rel in (*delta.notes_added, *delta.notes_changed):
                self._read_words(rel)
            _settle_heap()

    def text(self, rel: str) -> str | None:
        """A note's text as the index last saw it (None: not a readable note)."""
        record = self.index.notes.get(rel)
        return None if record is None else self.texts.get(rel, record.stamp)

    def _read_words(self, rel: str) -> None:
        record = self.index.notes.get(rel)
        text = None if record is None else self.texts.get(rel, record.stamp)
        if record is None or text is None:
            self.words.remove(rel)
        elif self.words.stamp(rel) != record.stamp:
            self.words.put(rel, record.stamp, text)

    def mention_sources(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can mention one of ``names`` (None: every note may)."""
        return self.words.holding(names)

    def _wait_for_quiet(self) -> None:
        """Return once no change came for DEBOUNCE seconds, or MAX_WAIT after the first: a
        burst of writes (an agent's) is applied once, after it, not between its writes."""
        deadline = time.monotonic() + MAX_WAIT
        while not self._stop.is_set():
            self._wake.clear()
            left = deadline - time.monotonic()
            if left <= 0 or not self._wake.wait(min(DEBOUNCE, left)):
                return

    def _run_updates(self) -> None:
        with contextlib.suppress(Exception):
            self.index.save_cache()  # a cold scan's cache, off the answering threads
        # Unlinked mentions and concepts read every note: read them once, ahead of the
        # first question, and from then on only the notes that change.
        for rel in list(self.index.notes):
            if self._stop.is_set():
                return
            if self._wake.is_set():
                self._wake.clear()
                self._apply()  # changes first; the words of what they touch are read
            with self._updating:
                self._read_words(rel)
        with self._updating:
            # A note added meanwhile was read by _apply; one removed is out of the index.
            for rel in list(self.index.notes):
                self._read_words(rel)
            self.words.complete = True
        _settle_heap()
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.is_set():
                return
            self._wait_for_quiet()
            self._apply()

    # ------------------------------------------------------------ related notes

    def related(self, wait: float = 0.0) -> RelatedIndex | None:
        """The latest related notes; None until the first pass is done (after ``wait``
        seconds at most)."""
        if wait > 0:
            self._related_ready.wait(wait)
        return self._related

    def related_edges(self) -> dict[str, list[tuple[str, float]]] | None:
        """Each note's RELATED_TO neighbours (``answers.related_adjacency``) of the latest
        pass; None before the first."""
        return self._adjacency if self._related is not None else None

    def _run_related(self) -> None:
        while not self._stop.is_set():
            self._related_wanted.wait()
            if self._stop.is_set():
                return
            quiet = self._last_update + RELATED_DELAY - time.monotonic()
            if self._related is not None and quiet > 0:
                self._stop.wait(quiet)  # redo once the changes stop, not after each one
                continue
            self._related_wanted.clear()
            try:
                related = self._pass(self._related)
                self._adjacency = related_adjacency(related)
                self._related = related
                _settle_heap()
            except Exception:
                _log.exception("finding related notes failed")
            self._related_ready.set()

    def _pass(self, previous: RelatedIndex | None) -> RelatedIndex:
        from ..related.cached import vault_related

        return vault_related(
            self.index,
            lambda rel: read_note(self.root, rel).text,
            previous=previous,
            use_cache=self._use_cache,
            second_process=False,
        )

    # ------------------------------------------------------------ stopping

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._related_wanted.set()
        self._observer.stop()
        if self._observer.is_alive():
            self._observer.join(timeout=5)
        for thread in self._threads:
            thread.join(timeout=10)
        self.index.wait_saved()

    def relative(self, path: str | bytes) -> str | None:
        text = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
        return text[len(self._prefix) :] if text.startswith(self._prefix) else None


class _Handler(FileSystemEventHandler):
    """Runs in watchdog's thread: hands the changed vault paths over, nothing else."""

    def __init__(self, live: LiveVault) -> None:
        self._live = live

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _CHANGES:
            return
        if event.is_directory and event.event_type == "modified":
            return
        paths = [self._live.relative(event.src_path)]
        if event.event_type == "moved":
            paths.append(self._live.relative(event.dest_path))
        self._live.changed([p for p in paths if p is not None])


def _settle_heap() -> None:
    """Move every object alive now out of the cyclic collector's sight (``gc.freeze``).

    The index, the notes' texts and words are millions of long-lived objects; each full
    collection walks them all, and an answer that allocates a few thousand rows set one
    off: a 2-hop ``neighbors`` took 200 ms instead of 30. Frozen objects are still freed
    when their last reference goes; only a cycle among them would stay (none is made).
    Called after each batch of changes, so what they built is settled too.
    """
    gc.freeze()
