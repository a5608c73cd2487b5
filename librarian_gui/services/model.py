"""The model of the open vault: owns the watcher and the linker, and tells views what changed."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from .linker import LinkerThread, ScanRequest, Update
from .watcher import FileBatch, VaultWatcher

if TYPE_CHECKING:  # the index (YAML, pathspec, …) loads on the linker thread
    from ..core.index import VaultIndex


class VaultModel(QObject):
    """The current state of one open vault, in the GUI thread.

    The index itself is built and changed on the linker thread; views read it through
    ``read()``, which holds the index's lock, and are told what changed by the signals.
    Heavier questions (context lines of hundreds of backlinks, unlinked mentions across the
    vault, search) run through ``submit`` on a background thread.

    Signals:
        index_ready(VaultIndex): the first full index of the vault is available.
        index_updated(Update): a batch of file changes was applied (with renames).
        scan_progressed(int, int): notes indexed so far, notes in the vault.
        files_listed(FileTreeData): the vault's files, known before they are parsed.
        scan_failed(str): the vault could not be read.
        job_finished(object, object): a submitted job's token and its result.
        files_changed(tuple): the vault paths of a batch of file events, as they arrive
            (before the index has them) — for views of files the index does not hold.
    """

    index_ready = Signal(object)
    index_updated = Signal(object)
    scan_progressed = Signal(int, int)
    files_listed = Signal(object)
    scan_failed = Signal(str)
    job_finished = Signal(object, object)
    files_changed = Signal(tuple)

    def __init__(
        self,
        root: Path,
        *,
        excluded: tuple[str, ...] = (),
        use_cache: bool = True,
        debounce_ms: int = 40,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        # The linker, job and cache threads run Python too; a GUI thread that wants the GIL
        # back waits up to one switch interval per runnable thread (5 ms by default).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.002))
        self.root = root.resolve()
        self.excluded = excluded
        self._use_cache = use_cache
        self.index: VaultIndex | None = None
        self.last_update: Update | None = None
        self._linker = LinkerThread(self)
        self._watcher = VaultWatcher(self.root, debounce_ms=debounce_ms, parent=self)
        self._watcher.batch_ready.connect(self._on_watcher_batch_ready)
        linker = self._linker.linker
        linker.scan_progressed.connect(self.scan_progressed)
        linker.files_listed.connect(self.files_listed)
        linker.scan_finished.connect(self._on_linker_scan_finished)
        linker.scan_failed.connect(self.scan_failed)
        linker.updated.connect(self._on_linker_updated)
        # Quick answers (render, backlinks, search) never wait behind a scan of the vault
        # (unlinked mentions, tag counts): two threads, one for each.
        self._jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="librarian-job")
        self._slow_jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="librarian-scan")
        self._closed = False

    def start(self) -> None:
        """Watch first, then scan: changes made during the scan are applied after it."""
        self._linker.scan_requested.emit(
            ScanRequest(
                self.root, self.excluded, use_cache=self._use_cache, before=self._watcher.start
            )
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._watcher.stop()
        self._linker.stop()
        # What the linker sent before it stopped still waits in the GUI thread's queue; the
        # views let go of this model when it closes, so none of it may reach them.
        linker = self._linker.linker
        for signal in (
            linker.scan_progressed,
            linker.files_listed,
            linker.scan_finished,
            linker.scan_failed,
            linker.updated,
        ):
            signal.disconnect()
        self._jobs.shutdown(wait=True, cancel_futures=True)
        self._slow_jobs.shutdown(wait=True, cancel_futures=True)
        if self.index is not None:
            self.index.save_cache()  # if the linker had not come to it yet
            self.index.wait_saved()

    def rescan(self, excluded: tuple[str, ...] | None = None) -> None:
        """Index the vault again (excluded folders changed)."""
        if self._closed:
            return
        if excluded is not None:
            self.excluded = excluded
        self._linker.scan_requested.emit(
            ScanRequest(self.root, self.excluded, use_cache=self._use_cache)
        )

    @contextmanager
    def read(self) -> Iterator[VaultIndex]:
        """The index, consistent while the block runs (the linker waits for it)."""
        index = self.index
        if index is None:
            raise LookupError("the vault is still being indexed")
        with index.lock:
            yield index

    @property
    def ready(self) -> bool:
        return self.index is not None

    def submit(
        self,
        token: object,
        job: Callable[[threading.Event], Any],
        cancel: threading.Event,
        *,
        slow: bool = False,
    ) -> None:
        """Run ``job(cancel)`` on the background thread; its result arrives as
        ``job_finished(token, result)`` unless ``cancel`` was set by then (TRAPS: a queued
        cancel would wait behind the running job, so jobs poll the event)."""

        def run() -> None:
            try:
                result = job(cancel)
            except Exception as exc:  # shown by the view that asked, never fatal
                result = exc
            if not cancel.is_set() and not self._closed:
                self.job_finished.emit(token, result)

        if not self._closed:
            (self._slow_jobs if slow else self._jobs).submit(run)

    def flush_events(self) -> None:
        """Send pending file events to the linker now, without waiting for the debounce."""
        self._watcher.flush()

    @Slot(object)
    def _on_watcher_batch_ready(self, batch: FileBatch) -> None:
        if self._closed:
            return
        self._linker.batch_arrived.emit(batch)
        self.files_changed.emit(batch.paths)

    @Slot(object)
    def _on_linker_scan_finished(self, index: VaultIndex) -> None:
        # The index is hundreds of thousands of long-lived objects; a full collection walks
        # all of them (0.15 s at 10,000 notes, holding the GIL). Freezing moves them out of
        # the collector's sight; only what is made later is scanned.
        if self._closed:
            return
        gc.freeze()
        self.index = index
        self.index_ready.emit(index)

    @Slot(object)
    def _on_linker_updated(self, update: Update) -> None:
        if self._closed:
            return
        gc.freeze()
        self.last_update = update
        self.index_updated.emit(update)
