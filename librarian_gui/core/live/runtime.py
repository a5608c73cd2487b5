"""A vault index kept live without Qt, for the MCP server: the watcher, the updates, related notes.

``LiveVault`` starts from the index cache, then a watchdog observer queues every changed
path. An updater thread applies them after a short debounce, and a question asked before
that (``fresh``) applies what is queued first, so an answer never misses a change the
server was told of — its own writes included (``changed``). A related-notes thread keeps the
related notes: from their cache at start, then redone for changed notes a moment after the
last change. Readers hold ``index.lock`` while they read (see ``VaultIndex``).

The vault's folder itself may go while the server runs (deleted, or moved away) and another
come to its path. Each question stats the path once: no folder there raises ``VaultGone``
(the question's error, not an answer from the folder that went); another folder than the
one opened (another device or inode, or the watcher saw the opened one deleted) is opened
anew: the old watcher and threads stopped and joined, the new folder scanned and watched,
its related notes found again.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..agents.answers import Adjacency, related_adjacency
from ..agents.corpus import count_candidates
from ..index.index import VaultIndex
from ..related.vault import REDO_AFTER_CHANGES, RelatedIndex
from ..vault.files import is_relevant_change, read_note, stamp_of
from ..vault.textstore import TextStore
from ..vault.watch import CHANGES, VaultWatches, changed_paths
from .batches import CHUNK_PATHS, FileBatch, chunks
from .quiet import UpdateQuiet
from .words import VaultWords

if TYPE_CHECKING:
    from ..index.delta import IndexDelta

_log = logging.getLogger(__name__)
DEBOUNCE = 0.05  # seconds without a change before the updater applies what came
MAX_WAIT = 1.0  # seconds at most a change waits for a burst to end (a question waits none)
# Bytes of changed files a question reads itself before it is answered (a diary entry, a
# git pull of notes); more (an agent's 50 MB note) is read by the update thread while
# questions are answered, and the answers say which notes they do not see yet.
FRESH_BYTES = 2_000_000
# Changed files a question reads itself at most: more (a ``git checkout``) are read by the
# update thread in pieces (``batches.chunks``), questions answered between them.
FRESH_PATHS = CHUNK_PATHS
# Characters of note texts kept in memory, the most recently read first; past it a text is
# read again from its file (from the system's page cache: 0.1–0.2 ms a note). Keeping every
# text was 80 MB at 20,000 notes, 400 MB at 100,000 (issue 30); at 32 M characters a 10,000-
# note vault of 5 KB notes did not fit, and unlinked mentions, which read every note holding
# a name's words, took 80 ms p95 instead of 40.
KEPT_TEXT_CHARS = 64_000_000


class VaultGone(LookupError):
    """The vault's folder is not at its path any more: deleted, or moved away."""

    def __init__(self, root: Path) -> None:
        super().__init__(
            f"the vault folder {root} is gone (deleted or moved away); questions are "
            "answered again once a folder is back at that path"
        )


@dataclass(frozen=True, slots=True)
class _Options:
    concepts: Path | None
    excluded: tuple[str, ...]
    use_cache: bool
    related: bool


class LiveVault:
    """The index of ``root``, kept current while the process runs; ``close`` stops it.

    What one opening of the folder holds (the index, the notes' texts and words, the related
    notes, the watcher and threads) is an ``_Opening``; another folder at the path gets a new
    one (``fresh``). A reader that took ``index`` before keeps a consistent old index.
    """

    def __init__(
        self,
        root: Path,
        *,
        concepts: Path | None = None,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
        related: bool = True,
    ) -> None:
        self._options = _Options(concepts, tuple(excluded), use_cache, related)
        self._opening = _Opening(Path(root), self._options)
        self.root = self._opening.root
        self._reopening = threading.Lock()  # one question opens the folder anew, not two
        self._closed = False

    @property
    def index(self) -> VaultIndex:
        return self._opening.index

    def changed(self, paths: Iterable[str]) -> None:
        """Queue vault paths (relative) to read again: events, and the server's own writes."""
        self._opening.changed(paths)

    def fresh(self) -> tuple[str, ...]:
        """Make the index current for a question: raise ``VaultGone`` when no folder is at
        the vault's path, open the folder anew when it is another one, then apply every
        queued change. One ``stat`` when nothing of that happened. Returns the vault paths
        the answer will not see yet: changes too large to read before answering
        (``FRESH_BYTES``), being read by the update thread meanwhile."""
        return self.following().fresh()

    def following(self) -> _Opening:
        """The opening of the folder at the vault's path now: ``VaultGone`` when there is
        none, a new opening when it is another folder than the one opened (one ``stat``).
        A write asks this, and not ``fresh``: it never waits for queued changes."""
        opening = self._opening
        if opening.lost.is_set() or _identity(self.root) != opening.identity:
            opening = self._reopen()
        return opening

    def _reopen(self) -> _Opening:
        with self._reopening:
            old = self._opening
            now = _identity(self.root)
            if self._closed or (now is not None and now == old.identity and not old.lost.is_set()):
                return old  # closing; or another question opened the folder meanwhile
            # Stopped even while no folder is there: its watch died with the folder, and
            # its threads would only read what is not there any more.
            old.close()
            if now is None:
                raise VaultGone(self.root)
            _log.warning("the vault folder %s was replaced: reading it anew", self.root)
            try:
                self._opening = _Opening(self.root, self._options)
            except FileNotFoundError:  # gone again while it was read
                raise VaultGone(self.root) from None
            return self._opening

    def text(self, rel: str) -> str | None:
        """A note's text as the index last saw it (None: not a readable note)."""
        return self._opening.text(rel)

    def mention_sources(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can mention one of ``names`` (None: every note may)."""
        return self._opening.words.holding(names)

    def related(self, wait: float = 0.0) -> RelatedIndex | None:
        """The latest related notes; None until the first pass is done (after ``wait``
        seconds at most)."""
        return self._opening.related(wait)

    def related_edges(self) -> Adjacency | None:
        """Each note's RELATED_TO neighbours (``answers.related_adjacency``) of the latest
        pass; None before the first."""
        return self._opening.related_edges()

    def close(self) -> None:
        with self._reopening:
            self._closed = True
            self._opening.close()


def _identity(root: Path) -> tuple[int, int] | None:
    """Which folder is at ``root`` (device, inode); None when none is."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


class _Opening:
    """One opening of the vault's folder: its index, the texts and words read from it, its
    related notes, and the watcher and threads keeping them current until ``close``."""

    def __init__(self, root: Path, options: _Options) -> None:
        # Taken before the scan: a folder replaced while it is read is seen at the next
        # question, not taken for the one read.
        self.identity = _identity(root)
        # The index reads the dictionary itself (``--concepts`` or the vault's own), and
        # again when it changes: in the vault, with the notes; outside, when the watch on
        # its folder below says so (``reload_dictionary``), as the window does.
        self.index = VaultIndex.scan(
            root,
            use_cache=options.use_cache,
            excluded=options.excluded,
            dictionary=options.concepts,
        )
        self.root = self.index.root
        self._use_cache = options.use_cache
        self.texts = TextStore(self.root, max_chars=KEPT_TEXT_CHARS)
        # Complete after the warm-up. Reads with a function of the index and texts, not
        # the opening's own method: a cycle would keep a closed opening (frozen) alive.
        self.words = VaultWords(self.index, functools.partial(_text, self.index, self.texts))
        self._inbox = _Inbox(self.root)
        self.lost = self._inbox.lost
        # Background work (related notes) holds back while changes are on their way.
        self._quiet = self._inbox.quiet
        self._updating = threading.Lock()  # one writer of the index at a time
        self._applying: tuple[str, ...] = ()  # the paths of the update under way
        self._stop = threading.Event()
        self._related: RelatedIndex | None = None
        self._adjacency: Adjacency = {}
        self._related_ready = threading.Event()
        self._related_wanted = threading.Event()
        self._last_update = 0.0
        self._observer = Observer()
        VaultWatches(self._observer, _Handler(self._inbox), str(self.root)).schedule()
        if not self.index.dictionary_path.is_relative_to(self.root):
            # outside the vault: its folder (an atomic save replaces the file itself)
            folder = self.index.dictionary_path.parent
            if folder.is_dir():
                handler = _DictionaryHandler(self._inbox, self.index.dictionary_path)
                self._observer.schedule(handler, str(folder), recursive=False)
        self._observer.name = "live-watch"
        self._observer.daemon = True
        self._observer.start()
        self._threads = [threading.Thread(target=self._run_updates, name="live-updates")]
        if options.related:
            self._threads.append(threading.Thread(target=self._run_related, name="live-related"))
            self._related_wanted.set()
        for thread in self._threads:
            thread.daemon = True
            thread.start()

    # ------------------------------------------------------------ changes

    def changed(self, paths: Iterable[str]) -> None:
        self._inbox.put(paths)

    def fresh(self) -> tuple[str, ...]:
        if not self._inbox.waiting():
            return self._applying
        waiting = self._inbox.peek()
        if (
            self._applying
            or len(waiting) > FRESH_PATHS
            or self._unread_bytes(waiting) > FRESH_BYTES
        ):
            self._inbox.wake.set()  # the update thread reads them; the question goes on
            return tuple(dict.fromkeys((*self._applying, *self._inbox.peek())))
        self._apply()
        return ()

    def _unread_bytes(self, paths: Iterable[str]) -> int:
        """The bytes an update of ``paths`` would read: the files the index has not read
        as they are now (one ``lstat`` each)."""
        total = 0
        for rel in paths:
            try:
                st = os.lstat(os.path.join(self.root, rel))
            except OSError:
                continue
            record = self.index.notes.get(rel)
            if record is None or record.stamp != stamp_of(st):
                total += st.st_size
        return total

    def _apply(self) -> None:
        with self._updating:
            paths = self._inbox.take()
            reload = self._inbox.take_dictionary()
            if not paths and not reload:
                return
            self._applying = tuple(paths)
            try:
                # A big batch in pieces: the index's lock is let go between them, and a
                # question waits for one piece at most, not for the whole checkout.
                pieces = chunks(FileBatch(tuple(paths))) if paths else []
                for done, piece in enumerate(pieces):
                    self._changed_by(self._update(piece))
                    self._applying = tuple(p for rest in pieces[done + 1 :] for p in rest)
                if reload:
                    self._changed_by(self._update(None))
            finally:
                self._applying = ()
                self._quiet.applied()
            _settle_heap()

    def _update(self, paths: tuple[str, ...] | None) -> IndexDelta | None:
        """Apply ``paths`` (None: the dictionary) to the index; None when that raised: one
        bad batch must not stop the server (its log says why)."""
        try:
            if paths is None:
                return self.index.reload_dictionary()
            return self.index.update(paths)
        except Exception:
            what = "the dictionary" if paths is None else f"{len(paths)} paths"
            _log.exception("updating the index for %s failed", what)
            return None

    def _changed_by(self, delta: IndexDelta | None) -> None:
        if delta is None:
            return
        if not delta.empty:
            self._last_update = time.monotonic()
            self._related_wanted.set()
        self.words.changed_by(delta)
        self.words.catch_up()

    def text(self, rel: str) -> str | None:
        return _text(self.index, self.texts, rel)

    def _wait_for_quiet(self) -> None:
        """Return once no change came for DEBOUNCE seconds, or MAX_WAIT after the first: a
        burst of writes (an agent's) is applied once, after it, not between its writes."""
        wake = self._inbox.wake
        deadline = time.monotonic() + MAX_WAIT
        while not self._stop.is_set():
            wake.clear()
            left = deadline - time.monotonic()
            if left <= 0 or not wake.wait(min(DEBOUNCE, left)):
                return

    def _run_updates(self) -> None:
        wake = self._inbox.wake
        with contextlib.suppress(Exception):
            self.index.save_cache()  # a cold scan's cache, off the answering threads
        # Questions (search, context_pack) pick their candidates from every note's terms:
        # count them first, ahead of the first question, which otherwise counts them
        # itself while the words below are read (10,000 notes: the first search took 15 s).
        try:
            count_candidates(self.index, self.text)
        except Exception:  # a question counts them itself then; say why in the log
            _log.exception("counting the notes' terms ahead of the first question failed")

        # Unlinked mentions and concepts read every note: read them once, ahead of the
        # first question, and from then on only the notes that change.
        def step() -> None:
            if self._stop.is_set():
                raise _Stopped
            if wake.is_set():
                wake.clear()
                self._apply()  # changes first; the words of what they touch are read

        try:
            self.words.warm(step)
        except _Stopped:
            return
        _settle_heap()
        while not self._stop.is_set():
            wake.wait()
            if self._stop.is_set():
                return
            self._wait_for_quiet()
            self._apply()

    # ------------------------------------------------------------ related notes

    def related(self, wait: float) -> RelatedIndex | None:
        if wait > 0:
            self._related_ready.wait(wait)
        return self._related

    def related_edges(self) -> Adjacency | None:
        return self._adjacency if self._related is not None else None

    def _run_related(self) -> None:
        while not self._stop.is_set():
            self._related_wanted.wait()
            if self._stop.is_set():
                return
            quiet = self._last_update + REDO_AFTER_CHANGES - time.monotonic()
            if self._related is not None and quiet > 0:
                self._stop.wait(quiet)  # redo once the changes stop, not after each one
                continue
            self._related_wanted.clear()
            try:
                related = self._pass(self._related)
                self._adjacency = related_adjacency(related)
                self._related = related
                _settle_heap()
            except _Stopped:
                return
            except Exception:
                _log.exception("finding related notes failed")
            self._related_ready.set()

    def _pass(self, previous: RelatedIndex | None) -> RelatedIndex:
        from ..related.cached import vault_related

        def check() -> None:
            if self._stop.is_set():
                raise _Stopped
            self._quiet.pause()  # a change on its way to the index goes first

        return vault_related(
            self.index,
            lambda rel: read_note(self.root, rel).text,
            previous=previous,
            use_cache=self._use_cache,
            check=check,
            second_process=False,
        )

    # ------------------------------------------------------------ stopping

    def close(self) -> None:
        """Stop and join the watcher and the threads (each observer holds an inotify
        instance, 128 a user); the opening is lost from then on."""
        self.lost.set()
        self._stop.set()
        self._quiet.stop()
        self._inbox.wake.set()
        self._related_wanted.set()
        self._observer.stop()
        if self._observer.is_alive():
            self._observer.join(timeout=5)
        for thread in self._threads:
            thread.join(timeout=10)
        self.index.wait_saved()


def _text(index: VaultIndex, texts: TextStore, rel: str) -> str | None:
    """A note's text as ``index`` last saw it (None: not a readable note)."""
    record = index.notes.get(rel)
    return None if record is None else texts.get(rel, record.stamp)


class _Stopped(Exception):
    """The opening is closing: a background loop ends."""


class _Inbox:
    """What watchdog's thread hands an opening: the paths to read again, and the loss of the
    folder. It holds no reference to the opening, so the watcher's objects make no cycle
    with it: a closed opening (its index, millions of objects ``gc.freeze`` put out of the
    collector's sight) is freed as soon as the last reader lets it go."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._pending: dict[str, None] = {}
        self._dictionary = False  # the dictionary outside the vault changed
        self._lock = threading.Lock()
        self.wake = threading.Event()
        self.lost = threading.Event()  # the folder was deleted, or the opening closed
        self.quiet = UpdateQuiet()  # not while paths wait, until shortly after they are read

    def put(self, paths: Iterable[str]) -> None:
        taken = [p for p in paths if is_relevant_change(p)]
        if not taken:
            return
        with self._lock:
            self._pending.update(dict.fromkeys(taken))
        self.quiet.arrived()
        self.wake.set()

    def dictionary_changed(self) -> None:
        """The concept dictionary kept outside the vault changed: read it again."""
        with self._lock:
            self._dictionary = True
        self.quiet.arrived()
        self.wake.set()

    def take_dictionary(self) -> bool:
        with self._lock:
            changed, self._dictionary = self._dictionary, False
        return changed

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._pending) or self._dictionary

    def peek(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._pending)

    def take(self) -> list[str]:
        with self._lock:
            paths, self._pending = list(self._pending), {}
        return paths


class _Handler(FileSystemEventHandler):
    """Runs in watchdog's thread: hands the changed vault paths over, nothing else."""

    def __init__(self, inbox: _Inbox) -> None:
        self._inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type == "deleted" and os.fsdecode(event.src_path) == self._inbox.root:
            # The watch died with the folder. A new folder made at the path may get the
            # same inode (ext4 hands freed ones out again): this tells them apart.
            self._inbox.lost.set()
            return
        found = changed_paths(event, self._inbox.root)
        if found is not None:
            self._inbox.put([p for p in found if p is not None])


class _DictionaryHandler(FileSystemEventHandler):
    """Runs in watchdog's thread: tells the inbox when the dictionary outside the vault
    was written, replaced, made or removed (its folder's other files are no concern)."""

    def __init__(self, inbox: _Inbox, path: Path) -> None:
        self._inbox = inbox
        self._path = os.fsdecode(path)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in CHANGES or event.is_directory:
            return
        touched = {os.fsdecode(event.src_path)}
        if event.event_type == "moved":
            touched.add(os.fsdecode(event.dest_path))
        if self._path in touched:
            self._inbox.dictionary_changed()


def _settle_heap() -> None:
    """Move every object alive now out of the cyclic collector's sight (``gc.freeze``).

    The index, the notes' texts and words are millions of long-lived objects; each full
    collection walks them all, and an answer that allocates a few thousand rows set one
    off: a 2-hop ``neighbors`` took 200 ms instead of 30. Frozen objects are still freed
    when their last reference goes; only a cycle among them would stay (none is made).
    Called after each batch of changes, so what they built is settled too.
    """
    gc.freeze()
