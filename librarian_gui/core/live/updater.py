"""One vault's index, built and kept current on a thread of its own: the one writer.

``VaultUpdater`` watches the vault (watchdog, its dot folders left out), and its dictionary
when that is kept outside it; each change lands in an ``Inbox``. Its thread scans the vault
first (unless the owner scanned it), then waits for changes: once none came for
``debounce`` seconds (or ``max_wait`` after the first, so a steady stream never holds
updates back for longer), it applies what came, a big batch in pieces (``batches``), and
tells its ``Listener`` each ``Update``. Anyone may ``apply`` what waits sooner (a question
that must see every change it was told of); one batch is applied at a time.

The listener hears from the updater's threads; the window's bridge re-emits on the GUI
thread, the MCP server's runtime acts at once. An exception applying a batch is told
(``update_failed``) and the updater goes on with the next.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from watchdog.observers import Observer

from ..concepts.dictionary import dictionary_place
from ..vault.filetree import FileTreeData
from ..vault.watch import VaultWatches, schedule
from .batches import FileBatch, chunks
from .inbox import DictionaryHandler, Inbox, VaultHandler

if TYPE_CHECKING:  # the index (YAML, pathspec, …) loads on the updater's thread
    from ..concepts.dictionary import Concept
    from ..index.delta import IndexDelta
    from ..index.index import VaultIndex
    from ..parse.records import FileStamp

_log = logging.getLogger(__name__)

DEBOUNCE = 0.04  # seconds without a change before what came is applied
MAX_WAIT = 0.4  # seconds at most a change waits for a burst to end


@dataclass(frozen=True, slots=True)
class Update:
    """What one batch changed, with the moves the watcher saw (watchdog's moved events) and
    those the index recognised by content; and what the panes show of it, taken by the
    updater as it made the change, so a pane need not walk the index to find them."""

    delta: IndexDelta
    renamed: tuple[tuple[str, str], ...]
    events: int
    seconds: float
    # the notes added or changed, with their stamps (Recent changes sorts by their times)
    stamps: tuple[tuple[str, FileStamp], ...] = ()
    # notes, links, unresolved targets, concepts: the status bar's counts after the change
    summary: tuple[int, int, int, int] = (0, 0, 0, 0)
    # every note, sorted: only when notes came or went (the tagging tab lists them)
    notes: tuple[str, ...] | None = None
    # the dictionary's concepts: only when the dictionary was read again
    concepts: tuple[Concept, ...] | None = None


def make_update(
    index: VaultIndex,
    delta: IndexDelta,
    renamed: tuple[tuple[str, str], ...],
    events: int,
    seconds: float,
) -> Update:
    """The update of ``delta``, read from the index by its writer (no lock needed)."""
    notes = index.notes
    return Update(
        delta,
        renamed,
        events,
        seconds,
        stamps=tuple(
            (rel, notes[rel].stamp)
            for rel in (*delta.notes_added, *delta.notes_changed)
            if rel in notes
        ),
        summary=index.summary,
        notes=tuple(sorted(notes)) if delta.notes_added or delta.notes_removed else None,
        concepts=tuple(index.concepts.concepts) if delta.concepts_changed else None,
    )


class ChangeLog(Protocol):
    """Told the notes each applied batch added or changed (the review desk's log of what
    other programs changed); closed when the updater closes."""

    def seen(self, rels: tuple[str, ...]) -> None: ...

    def close(self) -> None: ...


class Listener:
    """What a ``VaultUpdater`` tells its owner, from its threads; each does nothing here."""

    def scan_progressed(self, done: int, total: int) -> None:
        """Notes indexed so far, notes in the vault."""

    def files_listed(self, tree: FileTreeData) -> None:
        """The vault's notes and attachments, known before they are parsed."""

    def scan_finished(self, index: VaultIndex) -> None:
        """The index is built (a scan by the updater's thread)."""

    def scan_failed(self, message: str) -> None:
        """The vault could not be read at all, or the scan raised."""

    def updated(self, update: Update) -> None:
        """A piece of a batch was applied and changed the index."""

    def update_failed(self, message: str) -> None:
        """A batch or a dictionary reload raised: what was not applied."""

    def dictionary_changed(self) -> None:
        """The concept dictionary file changed on disk; it is read again next."""

    def batch_taken(self, batch: FileBatch) -> None:
        """A batch of changes is about to be applied (the changes that came, coalesced)."""

    def batch_done(self) -> None:
        """Every piece of a batch was applied (changed the index or not)."""


class VaultUpdater:
    """The index of ``root``, scanned and kept current (see the module's docstring);
    ``close`` stops and joins its watcher and thread."""

    def __init__(
        self,
        root: Path,
        listener: Listener,
        *,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
        dictionary: Path | None = None,
        debounce: float = DEBOUNCE,
        max_wait: float = MAX_WAIT,
        save_after: float | None = None,
        prepare_after: float | None = None,
        name: str = "librarian",
        changes: ChangeLog | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.listener = listener
        self.excluded = tuple(excluded)
        self.dictionary = dictionary
        self.dictionary_path, self._dictionary_rel = dictionary_place(self.root, dictionary)
        self.index: VaultIndex | None = None
        self.inbox = Inbox(self.root)
        self.quiet = self.inbox.quiet
        self.lost = self.inbox.lost
        self._use_cache = use_cache
        self._debounce = debounce
        self._max_wait = max_wait
        # After a scan of its own: the cache written (``save_after`` seconds later: the
        # window is busiest just after, filling its panes) and the map of who links which
        # name built ahead of the first update (``prepare_after``).
        self._save_after = save_after
        self._prepare_after = prepare_after
        self._due: dict[str, float] = {}
        self._updating = threading.Lock()  # one batch applied at a time
        self._rescan: tuple[str, ...] | None = None  # a scan asked for, with these exclusions
        self._flush = threading.Event()  # apply what came without waiting for quiet
        self._stop = threading.Event()
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._watch_lock = threading.Lock()
        self._name = name  # its threads': NAME-updates, NAME-watch
        # told the notes each batch added or changed, after the listener (the review desk's
        # log of what other programs changed, ``core/review/outside``); closed with us
        self._changes = changes
        self._thread = threading.Thread(target=self._run, name=f"{name}-updates", daemon=True)

    # ------------------------------------------------------------ the owner's calls

    def watch(self) -> None:
        """Start watching (before the scan: a change in between is not lost). The vault's
        folders take one watch each: walking them is too slow for a GUI thread."""
        with self._watch_lock:
            if self._observer is not None or self._stop.is_set():
                return
            observer = Observer()
            VaultWatches(observer, VaultHandler(self.inbox), str(self.root)).schedule()
            path = self.dictionary_path
            if self._dictionary_rel is None and path.parent.is_dir():
                # outside the vault: its folder (an atomic save replaces the file itself)
                handler = DictionaryHandler(self.inbox, path)
                schedule(observer, handler, str(path.parent), recursive=False)
            observer.name = f"{self._name}-watch"
            observer.daemon = True
            self._observer = observer
            observer.start()

    def scan(self, *, save: bool = True) -> VaultIndex:
        """Index the vault now, in the calling thread (the listener hears its progress);
        raises what the scan raises. ``save=False`` writes the cache later (``save_after``)."""
        from ..index.index import VaultIndex

        index = VaultIndex(
            self.root,
            excluded=self.excluded,
            use_cache=self._use_cache,
            dictionary=self.dictionary,
        )
        listener = self.listener
        # the file tree is built only for a listener that shows it (the window; an agent's
        # server has none, and 10,000 notes' tree is 40 ms of its start)
        shows_files = type(listener).files_listed is not Listener.files_listed
        index.rescan(
            progress=listener.scan_progressed,
            listed=(lambda n, a: listener.files_listed(FileTreeData.build(n, a)))
            if shows_files
            else None,
            save=save,
        )
        old, self.index = self.index, index
        if old is not None:
            old.wait_saved()
        return index

    def start(self) -> None:
        """Start the thread: it watches and scans first when the owner did not."""
        self._thread.start()

    def rescan(self, excluded: Iterable[str] | None = None) -> None:
        """Index the vault again on the updater's thread (excluded folders changed)."""
        if excluded is not None:
            self.excluded = tuple(excluded)
        self._rescan = self.excluded
        self.inbox.wake.set()

    def reload_dictionary(self) -> None:
        """Read the dictionary again (a change the watch could not see)."""
        self.inbox.dictionary_changed()

    def put(self, paths: Iterable[str], move: tuple[str, str] | None = None) -> None:
        """Paths to read again: the owner's own writes, which it need not wait to see."""
        self.inbox.put(paths, move)

    def flush(self) -> None:
        """Apply what came now, without waiting for the changes to stop."""
        self._flush.set()
        self.inbox.wake.set()

    @property
    def applying(self) -> tuple[str, ...]:
        """The paths of the batch being applied that are not read yet."""
        return self.inbox.taken

    def apply(self) -> None:
        """Apply every change that came, in the calling thread (after the one under way)."""
        with self._updating:
            index = self.index
            if index is None:
                return  # the scan to come reads them
            batch = self.inbox.take()  # its paths unseen until read (``Inbox.unseen``)
            try:
                reload = self.inbox.take_dictionary()
                if not batch.paths and not reload:
                    return
                self.listener.batch_taken(batch)
                if reload or self._dictionary_rel in batch.paths:
                    self.listener.dictionary_changed()
                pieces = chunks(batch) if batch.paths else []
                for done, piece in enumerate(pieces):
                    self._apply_piece(index, batch, piece)
                    self.inbox.reading(tuple(p for rest in pieces[done + 1 :] for p in rest))
                if reload:
                    self._reload(index)
            finally:
                self.inbox.reading(())
            self.listener.batch_done()

    def close(self) -> None:
        """Stop and join the watcher and the thread (each observer holds an inotify
        instance, 128 a user); the index's cache, if written, is written by then."""
        self.lost.set()
        self._stop.set()
        self.quiet.stop()
        self.inbox.wake.set()
        with self._watch_lock:
            observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=5)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)
        if self._changes is not None:
            self._changes.close()
        if self.index is not None:
            self.index.wait_saved()

    # ------------------------------------------------------------ the thread

    def _run(self) -> None:
        if self.index is None:
            self._scan_told()
        wake = self.inbox.wake
        while not self._stop.is_set():
            wake.wait(self._until_due())
            if self._stop.is_set():
                return
            wake.clear()
            self._run_due()
            if self._rescan is not None:
                self._rescan = None
                self._scan_told()
            if self.inbox.waiting():
                if not self._flush.is_set():
                    self._wait_for_quiet()
                self._flush.clear()
                if not self._stop.is_set():
                    self.apply()

    def _scan_told(self) -> None:
        """Watch and scan, telling the listener how it went."""
        try:
            self.watch()
            with self._updating:
                index = self.scan(save=self._save_after is None)
        except OSError as exc:
            self.listener.scan_failed(f"{self.root}: {exc.strerror or exc}")
            return
        except Exception as exc:
            _log.exception("scan of %s failed", self.root)
            self.listener.scan_failed(
                f"{self.root}: indexing stopped by an unexpected error ({_describe(exc)})"
            )
            return
        now = time.monotonic()
        if self._save_after is not None:
            self._due["save"] = now + self._save_after
        if self._prepare_after is not None:
            self._due["prepare"] = now + self._prepare_after
        self.listener.scan_finished(index)

    def _until_due(self) -> float | None:
        if not self._due:
            return None
        return max(0.0, min(self._due.values()) - time.monotonic())

    def _run_due(self) -> None:
        now = time.monotonic()
        for task, when in list(self._due.items()):
            if when > now or self.index is None:
                continue
            del self._due[task]
            with self._updating:
                if task == "save":
                    self.index.save_cache()
                else:
                    # The first update would build the map of who links which name (~0.1 s
                    # at 10,000 notes): built before, once the window filled its panes.
                    self.index.prepare_updates()

    def _wait_for_quiet(self) -> None:
        """Return once no change came for ``debounce`` seconds, or ``max_wait`` after the
        first: a burst of writes is applied once, after it, not between its writes."""
        wake = self.inbox.wake
        deadline = time.monotonic() + self._max_wait
        while not self._stop.is_set() and not self._flush.is_set():
            wake.clear()
            left = deadline - time.monotonic()
            if left <= 0 or not wake.wait(min(self._debounce, left)):
                return

    def _apply_piece(self, index: VaultIndex, batch: FileBatch, paths: tuple[str, ...]) -> None:
        started = time.perf_counter()
        try:
            delta = index.update(paths)
        except Exception as exc:
            _log.exception("applying a batch of %d paths failed", len(paths))
            files = "1 changed file was" if len(paths) == 1 else f"{len(paths)} changed files were"
            them = "it" if len(paths) == 1 else "them"
            self.listener.update_failed(
                f"{files} not indexed: an unexpected error ({_describe(exc)}). "
                f"Open the vault again to index {them}."
            )
            return
        known = set(delta.notes_renamed)
        renamed = delta.notes_renamed + tuple(
            (src, dest)
            for src, dest in batch.moves
            if (src, dest) not in known and src in delta.notes_removed and dest in delta.notes_added
        )
        self._tell(index, delta, renamed, batch.events, started)
        touched = delta.notes_added + delta.notes_changed
        if self._changes is not None and touched:
            try:
                self._changes.seen(touched)
            except Exception:  # a help to the reviewer: it never stops the updates
                _log.exception("logging the changes of %d notes failed", len(touched))

    def _reload(self, index: VaultIndex) -> None:
        started = time.perf_counter()
        try:
            delta = index.reload_dictionary()
        except Exception as exc:
            _log.exception("reloading the dictionary failed")
            self.listener.update_failed(
                f"The concept dictionary was not read again: an unexpected error "
                f"({_describe(exc)}). Open the vault again to read it."
            )
            return
        self._tell(index, delta, (), 0, started)

    def _tell(
        self,
        index: VaultIndex,
        delta: IndexDelta,
        renamed: tuple[tuple[str, str], ...],
        events: int,
        started: float,
    ) -> None:
        if not delta.empty:
            seconds = time.perf_counter() - started
            self.listener.updated(make_update(index, delta, renamed, events, seconds))


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
