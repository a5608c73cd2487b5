"""What watchdog's thread hands the runtime: the paths to read again, the moves among them,
a changed dictionary kept outside the vault, and the loss of the vault's folder."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from ..vault.files import is_relevant_change
from ..vault.watch import CHANGES, changed_paths
from .batches import FileBatch
from .quiet import UpdateQuiet


class Inbox:
    """The changes waiting to be applied. Thread-safe. It holds no reference to its owner,
    so the watcher's objects make no cycle with it: a closed opening of a vault (its index,
    millions of objects ``gc.freeze`` put out of the collector's sight) is freed as soon as
    the last reader lets it go."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._pending: dict[str, None] = {}
        self._moves: list[tuple[str, str]] = []
        self._events = 0
        self._dictionary = False  # the dictionary outside the vault changed
        # Taken by ``take`` and not read yet (``reading``): with the waiting ones, what an
        # answer does not see yet, told at once (a change is never in neither).
        self._taken: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self.wake = threading.Event()
        self.lost = threading.Event()  # the folder was deleted, or the runtime closed
        self.quiet = UpdateQuiet()  # not while paths wait, until shortly after they are read

    def put(self, paths: Iterable[str], move: tuple[str, str] | None = None) -> None:
        taken = [p for p in paths if is_relevant_change(p)]
        if not taken:
            return
        with self._lock:
            self._pending.update(dict.fromkeys(taken))
            if move is not None and all(is_relevant_change(p) for p in move):
                self._moves.append(move)
            self._events += 1
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

    def unseen(self) -> tuple[str, ...]:
        """The paths an answer does not see yet: those waiting, then those taken and not
        read yet (``reading``), each once."""
        with self._lock:
            return tuple(dict.fromkeys((*self._pending, *self._taken)))

    @property
    def taken(self) -> tuple[str, ...]:
        """The paths of the batch under way not read yet."""
        return self._taken

    def take(self) -> FileBatch:
        with self._lock:
            batch = FileBatch(tuple(self._pending), tuple(self._moves), self._events)
            self._pending, self._moves, self._events = {}, [], 0
            self._taken = batch.paths
        return batch

    def reading(self, paths: tuple[str, ...]) -> None:
        """What is left to read of the batch taken (``()``: all of it read, or given up)."""
        with self._lock:
            self._taken = paths


class VaultHandler(FileSystemEventHandler):
    """Runs in watchdog's thread: hands the changed vault paths over, nothing else."""

    def __init__(self, inbox: Inbox) -> None:
        self._inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type == "deleted" and os.fsdecode(event.src_path) == self._inbox.root:
            # The watch died with the folder. A new folder made at the path may get the
            # same inode (ext4 hands freed ones out again): this tells them apart.
            self._inbox.lost.set()
            return
        found = changed_paths(event, self._inbox.root)
        if found is None:
            return
        src, dest = found
        move = (src, dest) if src is not None and dest is not None else None
        self._inbox.put([p for p in found if p is not None], move)


class DictionaryHandler(FileSystemEventHandler):
    """Runs in watchdog's thread: tells the inbox when the dictionary outside the vault
    was written, replaced, made or removed (its folder's other files are no concern)."""

    def __init__(self, inbox: Inbox, path: Path) -> None:
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
