"""The bridge from watchdog's thread to Qt: file events, filtered, debounced into batches."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..core.live.batches import FileBatch
from ..core.vault.files import is_relevant_change as relevant
from ..core.vault.watch import VaultWatches, changed_paths


class _Handler(FileSystemEventHandler):
    """Runs in watchdog's thread: turns events into vault paths and hands them over."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        found = changed_paths(event, str(self._watcher.root))
        if found is not None:
            self._watcher.take(*found)


class VaultWatcher(QObject):
    """Watches a vault folder recursively, its dot folders left out (``core.vault.watch``).

    Events are gathered into a batch. The first event of a batch starts two timers: a
    debounce of ``debounce_ms`` and a deadline of ``max_wait_ms``; whichever fires first
    hands the batch over. Only the first event and every 16th after it wake the GUI thread
    (and restart the debounce), so a slow trickle is handed over ``debounce_ms`` after
    the first event of each batch, and a stream dense enough to keep restarting the
    debounce (16 events within ``debounce_ms``, over and over) is handed over every
    ``max_wait_ms``: a steady stream never holds updates back for longer than that.

    Signals:
        batch_ready(FileBatch): paths changed (see above for when).
        _event_taken(): internal; emitted from watchdog's thread, delivered queued.
    """

    batch_ready = Signal(object)
    _event_taken = Signal()

    def __init__(
        self,
        root: Path,
        *,
        debounce_ms: int = 40,
        max_wait_ms: int = 400,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.root = root.resolve()
        self._lock = threading.Lock()
        self._paths: dict[str, None] = {}  # ordered set
        self._moves: list[tuple[str, str]] = []
        self._events = 0
        self._stopped = False
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._max_wait = QTimer(self, singleShot=True, interval=max_wait_ms)
        self._debounce.timeout.connect(self._on_timer_timeout)
        self._max_wait.timeout.connect(self._on_timer_timeout)
        self._event_taken.connect(self._on_event_taken)

    # -- watchdog's thread -------------------------------------------------------------

    def take(self, src: str | None, dest: str | None) -> None:
        paths = [p for p in (src, dest) if p is not None and relevant(p)]
        if not paths:
            return
        with self._lock:
            first = not self._paths
            for path in paths:
                self._paths[path] = None
            if src is not None and dest is not None and relevant(src) and relevant(dest):
                self._moves.append((src, dest))
            self._events += 1
        if first or self._events % 16 == 0:  # wake the GUI thread, not once per event
            self._event_taken.emit()

    # -- the GUI thread ----------------------------------------------------------------

    def start(self) -> None:
        """Start watching (any thread: the linker thread calls it before its scan)."""
        with self._lock:
            if self._observer is not None or self._stopped:
                return
            observer = Observer()
            VaultWatches(observer, _Handler(self), str(self.root)).schedule()
            observer.daemon = True
            self._observer = observer
        observer.start()
        if self._stopped:  # stop() came while this thread was starting it
            observer.stop()
            observer.join(timeout=5)

    def stop(self) -> None:
        """Stop and join watchdog's thread: each observer holds an inotify instance, and a user
        may have only 128 of them."""
        with self._lock:
            observer, self._observer = self._observer, None
            self._stopped = True
        if observer is not None:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=5)
        self._debounce.stop()
        self._max_wait.stop()

    def flush(self) -> None:
        """Emit what is pending now (tests, and before the app closes)."""
        self._on_timer_timeout()

    @Slot()
    def _on_event_taken(self) -> None:
        self._debounce.start()
        if not self._max_wait.isActive():
            self._max_wait.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        self._debounce.stop()
        self._max_wait.stop()
        with self._lock:
            paths, self._paths = tuple(self._paths), {}
            moves, self._moves = tuple(self._moves), []
            events, self._events = self._events, 0
        if paths:
            self.batch_ready.emit(FileBatch(paths, moves, events))
