"""The model of the open vault: owns the watcher and the linker, and tells views what changed."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot

from ..core.concepts.dictionary import dictionary_place
from ..core.live.quiet import UpdateQuiet
from ..core.parse.records import FileStamp
from ..core.vault.files import stamp_of
from .jobs import JobControl, JobHandle, JobRunner
from .linker import LinkerThread, ScanRequest, Update
from .watcher import FileBatch, VaultWatcher

if TYPE_CHECKING:  # the index (YAML, pathspec, …) loads on the linker thread
    from ..core.index.index import VaultIndex


def _stamp(path: Path) -> FileStamp | None:
    try:
        return stamp_of(path.stat())
    except OSError:
        return None


class VaultModel(QObject):
    """The current state of one open vault, in the GUI thread.

    The index itself is built and changed on the linker thread; views read it through
    ``read()``, which holds the index's lock, and are told what changed by the signals.
    Heavier questions (context lines of hundreds of backlinks, unlinked mentions across the
    vault, search) run through ``submit`` on a background thread; each answer comes on the
    ``JobHandle`` it returned.

    Signals:
        index_ready(VaultIndex): the first full index of the vault is available.
        index_updated(Update): a batch of file changes was applied (with renames).
        scan_progressed(int, int): notes indexed so far, notes in the vault.
        files_listed(FileTreeData): the vault's files, known before they are parsed.
        scan_failed(str): the vault could not be read.
        update_failed(str): file changes or the dictionary were not applied (the linker
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
        # The linker, job and cache threads run Python too; a GUI thread that wants the GIL
        # back waits up to one switch interval per runnable thread (5 ms by default).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.002))
        self.root = root.resolve()
        self.excluded = excluded
        self._dictionary = dictionary.expanduser().resolve() if dictionary else None
        self.dictionary_path, self._dictionary_rel = dictionary_place(self.root, dictionary)
        # A dictionary outside the vault gets a watch of its own: the file, and its folder,
        # since an atomic save replaces the file (and a watch on it would go with it).
        self._dictionary_watch: QFileSystemWatcher | None = None
        self._dictionary_timer = QTimer(self, singleShot=True, interval=150)
        self._dictionary_timer.timeout.connect(self._on_dictionary_timer_timeout)
        self._dictionary_stamp = _stamp(self.dictionary_path)
        if self._dictionary_rel is None:
            self._dictionary_watch = QFileSystemWatcher(self)
            for watched in (self.dictionary_path, self.dictionary_path.parent):
                if watched.exists():
                    self._dictionary_watch.addPath(str(watched))
            self._dictionary_watch.fileChanged.connect(self._on_dictionary_watch_changed)
            self._dictionary_watch.directoryChanged.connect(self._on_dictionary_watch_changed)
        self._use_cache = use_cache
        # Not quiet from a file batch's arrival until shortly after its update: background
        # loops on the slow job thread hold back meanwhile (pause_for_updates), so a save
        # reaches the backlinks without fighting them for the interpreter lock.
        self._quiet = UpdateQuiet()
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
        linker.update_failed.connect(self.update_failed)
        # Quick answers (render, backlinks, search) never wait behind a scan of the vault
        # (unlinked mentions, tag counts): two threads, one for each.
        self.quick_jobs = JobRunner("librarian-job", self)
        self.slow_jobs = JobRunner("librarian-scan", self)
        self._closed = False

    def start(self) -> None:
        """Watch first, then scan: changes made during the scan are applied after it."""
        self._linker.scan_requested.emit(
            ScanRequest(
                self.root,
                self.excluded,
                use_cache=self._use_cache,
                before=self._watcher.start,
                dictionary=self._dictionary,
            )
        )

    def stop_pausing(self) -> None:
        """The vault is closing: background loops stop waiting for updates now (the GUI
        thread, about to wait for their threads, will not let one through)."""
        self._quiet.stop()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._quiet.stop()  # no background loop waits for an update that will not come
        self._dictionary_timer.stop()
        if self._dictionary_watch is not None:
            self._dictionary_watch.removePaths(self._dictionary_watch.files())
            self._dictionary_watch.removePaths(self._dictionary_watch.directories())
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
            linker.update_failed,
        ):
            signal.disconnect()
        self.quick_jobs.close()
        self.slow_jobs.close()
        if self.index is not None:
            self.index.save_cache()  # if the linker had not come to it yet
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
        self._linker.scan_requested.emit(
            ScanRequest(
                self.root, self.excluded, use_cache=self._use_cache, dictionary=self._dictionary
            )
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
        self, job: Callable[[JobControl], Any], *, slow: bool = False, name: str = ""
    ) -> JobHandle:
        """Run ``job(control)`` on the quick job thread, or the ``slow`` one (scans of the
        whole vault); its result comes on the handle's ``finished``, an exception on
        ``failed``, nothing once the handle is cancelled (jobs poll ``control``). After
        ``close()`` the handle never answers."""
        return (self.slow_jobs if slow else self.quick_jobs).submit(job, name=name)

    def flush_events(self) -> None:
        """Send pending file events to the linker now, without waiting for the debounce."""
        self._watcher.flush()

    @Slot(object)
    def _on_watcher_batch_ready(self, batch: FileBatch) -> None:
        if self._closed:
            return
        self._quiet.arrived()
        self._linker.batch_arrived.emit(batch)
        if self._dictionary_rel is not None and self._dictionary_rel in batch.paths:
            self.dictionary_changed.emit()

    @Slot(str)
    def _on_dictionary_watch_changed(self, _path: str) -> None:
        self._dictionary_timer.start()  # an editor's save is several events: one reload

    @Slot()
    def _on_dictionary_timer_timeout(self) -> None:
        watch = self._dictionary_watch
        if self._closed or watch is None:
            return
        file = str(self.dictionary_path)
        if file not in watch.files() and self.dictionary_path.exists():
            watch.addPath(file)  # replaced by an atomic save: watch the new file
        stamp = _stamp(self.dictionary_path)
        if stamp == self._dictionary_stamp:
            return  # another file of that folder changed
        self._dictionary_stamp = stamp
        self._linker.dictionary_changed.emit()
        self.dictionary_changed.emit()

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
        self._quiet.applied()  # its backlinks and render jobs are queued now

    def pause_for_updates(self) -> None:
        """Called by long loops on the slow job thread: while a file change is on its way
        to the index and the panes, wait (``UpdateQuiet.pause``)."""
        self._quiet.pause()
