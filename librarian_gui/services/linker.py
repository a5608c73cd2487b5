"""The linker: owns the vault index on a worker thread; scans it and applies file batches."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from ..core.live.batches import FileBatch, chunks, merge
from ..core.vault.filetree import FileTreeData

if TYPE_CHECKING:  # loaded on the linker thread, after the window is up
    from ..core.concepts.dictionary import Concept
    from ..core.index.delta import IndexDelta
    from ..core.index.index import VaultIndex
    from ..core.parse.records import FileStamp

_log = logging.getLogger(__name__)

SAVE_AFTER_SCAN_MS = 1500  # the cache is written once the window has filled its panes
PREPARE_AFTER_SCAN_MS = 1000  # the map of who links which name, before the first save


@dataclass(frozen=True, slots=True)
class ScanRequest:
    root: Path
    excluded: tuple[str, ...] = ()
    use_cache: bool = True
    # Run first, on the linker thread: starting the file watch walks every folder of the
    # vault (inotify needs one watch per folder), too slow for the GUI thread, and it must
    # be in place before the scan lists the files, or a change in between would be lost.
    before: Callable[[], None] | None = None
    dictionary: Path | None = None  # the concept dictionary; None: VAULT/concepts.json


@dataclass(frozen=True, slots=True)
class Update:
    """What one batch changed, with the moves the watcher saw (watchdog's moved events) and
    those the index recognised by content; and what the panes show of it, taken by the
    linker as it made the change, so the GUI thread need not take the index's lock (and
    wait for the linker's next batch) to read them."""

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


def _update(
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


class Linker(QObject):
    """Builds and updates the index. Lives on its own QThread (``LinkerThread``) or, in
    tests, in the calling thread (call the slots directly).

    Signals:
        scan_progressed(int, int): notes done, notes total.
        files_listed(FileTreeData): the vault's notes and attachments as a sorted tree,
            known before the notes are parsed (built here, not in the GUI thread).
        scan_finished(VaultIndex): the index is built; readers hold ``index.lock``.
        scan_failed(str): the vault could not be read at all, or the scan raised.
        updated(Update): a batch was applied.
        update_failed(str): a batch or a dictionary reload raised; what was not applied.

    A slot that raises is reported by one of the *_failed signals (and logged with its
    traceback) and the linker goes on serving the next request: an exception escaping a
    slot would leave the window waiting for a scan or an update that never comes.
    """

    scan_progressed = Signal(int, int)
    files_listed = Signal(object)
    scan_finished = Signal(object)
    scan_failed = Signal(str)
    updated = Signal(object)
    update_failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.index: VaultIndex | None = None
        self._early: list[FileBatch] = []  # batches that came before the scan finished
        # After a scan: made and connected here, in the GUI thread, and moved with the linker
        # to its thread, which connects nothing (see the ``services`` package).
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_AFTER_SCAN_MS)
        self._save_timer.timeout.connect(self._on_save_timer_timeout)
        self._prepare_timer = QTimer(self, singleShot=True, interval=PREPARE_AFTER_SCAN_MS)
        self._prepare_timer.timeout.connect(self._on_prepare_timer_timeout)

    @Slot(object)
    def scan(self, request: ScanRequest) -> None:
        from ..core.index.index import VaultIndex

        try:
            if request.before is not None:
                request.before()
            index = VaultIndex(
                request.root,
                excluded=request.excluded,
                use_cache=request.use_cache,
                dictionary=request.dictionary,
            )
            index.rescan(
                progress=self.scan_progressed.emit,
                listed=lambda n, a: self.files_listed.emit(FileTreeData.build(n, a)),
                save=False,
            )
        except OSError as exc:
            self.scan_failed.emit(f"{request.root}: {exc.strerror or exc}")
            return
        except Exception as exc:
            _log.exception("scan of %s failed", request.root)
            self.scan_failed.emit(
                f"{request.root}: indexing stopped by an unexpected error ({_describe(exc)})"
            )
            return
        self.index = index
        self.scan_finished.emit(index)
        # The window is busiest just after the scan (it fills its panes): the cache, which
        # competes for the GIL while written, waits a moment.
        self._save_timer.start()
        # The first save would build the map of who links which name (~0.1 s at 10,000
        # notes): build it before, once the window has filled its panes.
        self._prepare_timer.start()
        early, self._early = self._early, []
        if early:
            self.apply_batch(merge(early))

    @Slot()
    def _on_save_timer_timeout(self) -> None:
        if self.index is not None:
            self.index.save_cache()

    @Slot()
    def _on_prepare_timer_timeout(self) -> None:
        if self.index is not None:
            self.index.prepare_updates()

    @Slot()
    def halt(self) -> None:
        """The linker thread is ending (run there, on its ``finished``): the timers stop on
        their own thread. The model saves the cache itself when it closes."""
        self._save_timer.stop()
        self._prepare_timer.stop()

    @Slot()
    def reload_dictionary(self) -> None:
        """The dictionary outside the vault changed: read it again, re-resolve the links."""
        import time

        if self.index is None:
            return  # the scan to come reads it
        started = time.perf_counter()
        try:
            delta = self.index.reload_dictionary()
        except Exception as exc:
            _log.exception("reloading the dictionary failed")
            self.update_failed.emit(
                f"The concept dictionary was not read again: an unexpected error "
                f"({_describe(exc)}). Open the vault again to read it."
            )
            return
        if not delta.empty:
            self.updated.emit(_update(self.index, delta, (), 0, time.perf_counter() - started))

    @Slot(object)
    def apply_batch(self, batch: FileBatch) -> None:
        import time

        if self.index is None:
            self._early.append(batch)
            return
        for paths in chunks(batch):
            started = time.perf_counter()
            try:
                delta = self.index.update(paths)
            except Exception as exc:
                _log.exception("applying a batch of %d paths failed", len(paths))
                files = (
                    "1 changed file was" if len(paths) == 1 else f"{len(paths)} changed files were"
                )
                them = "it" if len(paths) == 1 else "them"
                self.update_failed.emit(
                    f"{files} not indexed: an unexpected error ({_describe(exc)}). "
                    f"Open the vault again to index {them}."
                )
                continue
            known = set(delta.notes_renamed)
            renamed = delta.notes_renamed + tuple(
                (src, dest)
                for src, dest in batch.moves
                if (src, dest) not in known
                and src in delta.notes_removed
                and dest in delta.notes_added
            )
            seconds = time.perf_counter() - started
            if not delta.empty:
                self.updated.emit(_update(self.index, delta, renamed, batch.events, seconds))


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class LinkerThread(QObject):
    """A Linker on a QThread, driven by queued signals.

    Signals:
        scan_requested(ScanRequest), batch_arrived(FileBatch): internal, to the worker.
    """

    scan_requested = Signal(object)
    batch_arrived = Signal(object)
    dictionary_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thread = QThread()
        self.thread.setObjectName("librarian-linker")
        self.linker = Linker()
        self.linker.moveToThread(self.thread)
        self.thread.finished.connect(self.linker.halt, Qt.ConnectionType.DirectConnection)
        self.scan_requested.connect(self.linker.scan)
        self.batch_arrived.connect(self.linker.apply_batch)
        self.dictionary_changed.connect(self.linker.reload_dictionary)
        self.thread.start()

    def stop(self) -> None:
        self.thread.quit()
        self.thread.wait()
