"""The model of the open vault: a Qt bridge over the runtime that keeps it current."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from ..core.courtesy import give_back_memory
from ..core.live.batches import FileBatch
from ..core.live.updater import Listener, Update, VaultUpdater
from ..core.review.outside import OutsideLog
from ..core.vault.filetree import FileTreeData
from ..core.vault.reading import lower_worker_priority
from .jobs import JobControl, JobHandle, JobRunner

if TYPE_CHECKING:  # the index (YAML, pathspec, …) loads on the updater's thread
    from ..core.index.index import VaultIndex
    from ..core.index.snapshot import IndexSnapshot

__all__ = ["Update", "VaultModel"]  # Update: what index_updated carries (ui reads it here)


SAVE_AFTER_SCAN = 1.5  # seconds: the cache is written once the window has filled its panes
PREPARE_AFTER_SCAN = 1.0  # the map of who links which name, before the first save


class _Signals(QObject):
    """What the updater tells, as signals: emitted on its threads, each connected slot of
    an object of the GUI thread runs there (a queued connection)."""

    scan_progressed = Signal(int, int)
    files_listed = Signal(object)
    scan_finished = Signal(object)
    scan_failed = Signal(str)
    updated = Signal(object)
    update_failed = Signal(str)
    dictionary_changed = Signal()
    batch_taken = Signal(object)


class _Relay(Listener):
    """The updater's listener: each thing it tells, emitted as a signal (nothing else)."""

    def __init__(self, signals: _Signals) -> None:
        self._signals = signals

    def scan_progressed(self, done: int, total: int) -> None:
        self._signals.scan_progressed.emit(done, total)

    def files_listed(self, tree: FileTreeData) -> None:
        self._signals.files_listed.emit(tree)

    def scan_finished(self, index: VaultIndex) -> None:
        self._signals.scan_finished.emit(index)

    def scan_failed(self, message: str) -> None:
        self._signals.scan_failed.emit(message)

    def updated(self, update: Update) -> None:
        self._signals.updated.emit(update)

    def update_failed(self, message: str) -> None:
        self._signals.update_failed.emit(message)

    def dictionary_changed(self) -> None:
        self._signals.dictionary_changed.emit()

    def batch_taken(self, batch: FileBatch) -> None:
        self._signals.batch_taken.emit(batch)


class VaultModel(QObject):
    """The current state of one open vault, in the GUI thread: a thin bridge over the
    runtime that keeps it current (``core.live.updater.VaultUpdater``, the MCP server's
    too), re-emitting what it tells on the GUI thread.

    The index itself is built and changed on the updater's thread; views read its latest
    snapshot (``snapshot()``), without a lock, and are told what changed by the signals.
    Heavier questions (context lines of hundreds of backlinks, unlinked mentions across the
    vault, search) run through ``submit`` on a background thread; each answer comes on the
    ``JobHandle`` it returned.

    Signals:
        index_ready(VaultIndex): the first full index of the vault is available.
        index_updated(Update): a batch of file changes was applied (with renames).
        scan_progressed(int, int): notes indexed so far, notes in the vault.
        files_listed(FileTreeData): the vault's files, known before they are parsed.
        scan_failed(str): the vault could not be read.
        update_failed(str): file changes or the dictionary were not applied (the updater
            raised; it goes on with the next change).
        dictionary_changed(): the concept dictionary file changed on disk (in the vault or,
            for a dictionary kept elsewhere, seen by a watch of its own).
    """

    index_ready = Signal(object)
    index_updated = Signal(object)
    scan_progressed = Signal(int, int)
    files_listed = Signal(object)
    scan_failed = Signal(str)
    update_failed = Signal(str)
    dictionary_changed = Signal()

    def __init__(
        self,
        root: Path,
        *,
        excluded: tuple[str, ...] = (),
        use_cache: bool = True,
        debounce_ms: int = 40,
        dictionary: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        # The updater, job and cache threads run Python too; a GUI thread that wants the GIL
        # back waits up to one switch interval per runnable thread (5 ms by default).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.002))
        lower_worker_priority()  # the cores go to the GUI thread first while parsing
        self.root = root.resolve()
        self.excluded = excluded
        self.use_cache = use_cache  # the caches beside the index's too (the review's passages)
        dictionary = dictionary.expanduser().resolve() if dictionary else None
        self.index: VaultIndex | None = None
        self.last_update: Update | None = None
        self._signals = _Signals(self)
        self._updater = VaultUpdater(
            self.root,
            _Relay(self._signals),
            excluded=excluded,
            use_cache=use_cache,
            dictionary=dictionary,
            debounce=debounce_ms / 1000,
            save_after=SAVE_AFTER_SCAN,
            prepare_after=PREPARE_AFTER_SCAN,
            changes=OutsideLog(self.root),  # what other programs change, for the review desk
        )
        self.dictionary_path = self._updater.dictionary_path
        # Not quiet from a file change's arrival until shortly after its update: background
        # loops on the slow job thread hold back meanwhile (pause_for_updates), so a save
        # reaches the backlinks without fighting them for the interpreter lock.
        self._quiet = self._updater.quiet
        # Set while a pass of related notes runs (services/related.py): background work
        # that can wait (the words' warm-up) starts after it, not beside it (the first pass
        # at 10,000 notes took 14-17 s instead of 10 with the warm-up sharing the GIL).
        self.related_running = threading.Event()
        signals = self._signals
        signals.scan_progressed.connect(self._on_updater_scan_progressed)
        signals.files_listed.connect(self._on_updater_files_listed)
        signals.scan_finished.connect(self._on_updater_scan_finished)
        signals.scan_failed.connect(self._on_updater_scan_failed)
        signals.updated.connect(self._on_updater_updated)
        signals.update_failed.connect(self._on_updater_update_failed)
        signals.dictionary_changed.connect(self._on_updater_dictionary_changed)
        # Quick answers (render, backlinks, search) never wait behind a scan of the vault
        # (unlinked mentions, tag counts): two threads, one for each.
        self.quick_jobs = JobRunner("librarian-job", self)
        self.slow_jobs = JobRunner("librarian-scan", self)
        self._closed = False

    def start(self) -> None:
        """Watch, then scan, on the updater's thread (walking the folders to watch is too
        slow for this one): changes made during the scan are applied after it."""
        self._updater.start()

    def stop_pausing(self) -> None:
        """The vault is closing: background loops stop waiting for updates now (the GUI
        thread, about to wait for their threads, will not let one through)."""
        self._quiet.stop()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._quiet.stop()  # no background loop waits for an update that will not come
        # What the updater sent before it stopped may still wait in the GUI thread's
        # queue: the slots below drop it (the views let go of this model as it closes).
        self._updater.close()  # its last update applied; the cache written
        self.quick_jobs.close()
        self.slow_jobs.close()
        if self.index is not None:
            self.index.save_cache()  # if the updater had not come to it yet
            self.index.wait_saved()
        # The index was frozen out of the collector's sight (``gc_paused``, index_ready):
        # given back, its cycles (file tree nodes) are freed once nothing holds them.
        gc.unfreeze()

    def rescan(self, excluded: tuple[str, ...] | None = None) -> None:
        """Index the vault again (excluded folders changed)."""
        if self._closed:
            return
        if excluded is not None:
            self.excluded = excluded
        self._updater.rescan(self.excluded)

    def snapshot(self) -> IndexSnapshot:
        """The index as its updater last published it: read it without a lock, as long as
        you like (``IndexSnapshot``)."""
        index = self.index
        if index is None:
            raise LookupError("the vault is still being indexed")
        return index.snapshot()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def ready(self) -> bool:
        return self.index is not None

    def submit(
        self, job: Callable[[JobControl], Any], *, slow: bool = False, name: str = ""
    ) -> JobHandle:
        """Run ``job(control)`` on the quick job thread, or the ``slow`` one (scans of the
        whole vault); its result comes on the handle's ``finished``, an exception on
        ``failed``, nothing once the handle is cancelled (jobs poll ``control``). After
        ``close()`` the handle never answers."""
        return (self.slow_jobs if slow else self.quick_jobs).submit(job, name=name)

    def flush_events(self) -> None:
        """Apply pending file changes now, without waiting for the debounce."""
        self._updater.flush()

    def pause_for_updates(self) -> None:
        """Called by long loops on the slow job thread: while a file change is on its way
        to the index and the panes, wait (``UpdateQuiet.pause``)."""
        self._quiet.pause()

    # ------------------------------------------------------------ from the updater

    @Slot(int, int)
    def _on_updater_scan_progressed(self, done: int, total: int) -> None:
        if not self._closed:
            self.scan_progressed.emit(done, total)

    @Slot(object)
    def _on_updater_files_listed(self, tree: FileTreeData) -> None:
        if not self._closed:
            self.files_listed.emit(tree)

    @Slot(str)
    def _on_updater_scan_failed(self, message: str) -> None:
        if not self._closed:
            self.scan_failed.emit(message)

    @Slot(str)
    def _on_updater_update_failed(self, message: str) -> None:
        if not self._closed:
            self.update_failed.emit(message)

    @Slot()
    def _on_updater_dictionary_changed(self) -> None:
        if not self._closed:
            self.dictionary_changed.emit()

    @Slot(object)
    def _on_updater_scan_finished(self, index: VaultIndex) -> None:
        # The index is hundreds of thousands of long-lived objects; a full collection walks
        # all of them (0.15 s at 10,000 notes, holding the GIL). Freezing moves them out of
        # the collector's sight; only what is made later is scanned.
        if self._closed:
            return
        gc.freeze()
        give_back_memory()  # what the scan's threads freed (once: 7 ms at 20,000 notes)
        self.index = index
        self.index_ready.emit(index)

    @Slot(object)
    def _on_updater_updated(self, update: Update) -> None:
        if self._closed:
            return
        gc.freeze()
        self.last_update = update
        self.index_updated.emit(update)
        # Its backlinks and render jobs are queued now; background loops go on shortly,
        # unless more of the batch (a checkout's next pieces) or another is on its way.
        updater = self._updater
        if not updater.applying and not updater.inbox.waiting():
            self._quiet.applied()
