"""Watching a vault with watchdog, its dot folders left out.

A recursive watch of the vault's folder would watch ``.librarian/journal/`` too, where every
write makes a folder: one inotify watch more per write, kept until the next start (a user
has 8,192 by default on many systems, or fewer), and a few milliseconds of watchdog's Python
per write — an agent's write waited for them. Nothing in a dot folder is ever indexed
(``files.is_relevant_change``), so the vault is watched as its top-level folder, not
recursively, plus each top-level folder not starting with "." recursively; a folder made at
the top later is added (and what it already holds reported as created, as watchdog does for
a folder it starts watching), one removed or moved away is dropped. Past ``MAX_FOLDERS``
top-level folders (each watch is a thread of watchdog's) the vault is watched recursively as
one, dot folders included. The inotify observer walks a recursive watch with a stack of
its own (``_walks_without_recursion``), and lists no folder ``WATCH_DEPTH`` path components
down as holding folders (``watch_walk``); under another observer, whose walk may recurse, a
folder nested deeper than it can walk is watched at its own level only, and the log says
so: the rest of the vault stays watched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

MAX_FOLDERS = 64
# watchdog ≥ 2.3 also reports opens and closes; only these change the vault, and acting on
# the others would wake the updates again on their own reads.
CHANGES = frozenset({"created", "modified", "moved", "deleted"})
# The events every watch asks for (watchdog's ``event_filter``; a folder's own
# modification is not among them: it moves with every event of its files). Without it the
# kernel reports every open and close of a file too: each read of a note, ours as anyone's,
# became two events decoded by watchdog's Python in its thread, and reading 10,000 notes
# with the vault watched took 0.9-1.0 s of CPU instead of 0.18 s (the reader waiting for
# the interpreter at each file). These leave out what ``changed_paths`` drops anyway.
WATCHED_EVENTS = (
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    DirCreatedEvent,
    DirMovedEvent,
    DirDeletedEvent,
)
# Frames a watch's start may already use below the walk (the observer's thread, our calls):
# a folder deeper than the recursion limit less these is not walked by watchdog.
_FRAMES_IN_USE = 200
_log = logging.getLogger(__name__)


class VaultWatches:
    """The watches of one vault on ``observer`` (a watchdog Observer, not started or
    started), every event handed to ``handler``."""

    def __init__(self, observer: Any, handler: FileSystemEventHandler, root: str) -> None:
        _walks_without_recursion()
        self._observer = observer
        self._handler = handler
        self._root = root.rstrip("/") or "/"
        self._lock = threading.Lock()
        self._folders: dict[str, Any] = {}  # top-level folder path → its watch
        self.recursive = False  # watched as one recursive watch (too many folders)

    def schedule(self) -> None:
        """Watch the vault: its top level first, then each of its folders."""
        folders = _top_folders(self._root)
        if len(folders) > MAX_FOLDERS:
            self.recursive = True
            schedule(self._observer, self._handler, self._root, recursive=True)
            return
        schedule(self._observer, _TopLevel(self), self._root, recursive=False)
        for path in folders:
            self.add(path, report=False)

    def add(self, path: str, *, report: bool = True) -> None:
        """Watch the top-level folder ``path``; with ``report``, what it holds already is
        handed over as created (it was made and filled before its watch was there)."""
        with self._lock:
            if path in self._folders:
                return
            try:
                self._folders[path] = self._watch(path)
            except OSError:  # gone again, or not readable: nothing to watch
                return
        if report:
            for event in _held(path):
                self._handler.dispatch(event)

    def _watch(self, path: str) -> Any:
        """A recursive watch of ``path``; one of its own level only when watchdog could not
        walk it: its recursive walk raises RecursionError in the thread that starts the
        watch (the caller's, or the observer's for a folder made later), which would stop
        every watch of the vault."""
        # Looked at only where the observer's walk could recurse: with ours (or 3.12's) it
        # cannot, and looking lists the whole folder once more (0.06 s at 50,000 notes,
        # before the first answer).
        deep = not _walks_with_a_stack(self._observer) and _deeper_than(
            path, sys.getrecursionlimit() - _FRAMES_IN_USE
        )
        if not deep:
            try:
                return schedule(self._observer, self._handler, path, recursive=True)
            except RecursionError:  # it grew deeper since it was looked at
                pass
        _log.warning(
            "%s holds folders nested too deep to watch; changes below its own level are read "
            "at the next scan",
            path,
        )
        return schedule(self._observer, self._handler, path, recursive=False)

    def drop(self, path: str) -> None:
        with self._lock:
            watch = self._folders.pop(path, None)
        if watch is not None:
            # KeyError, OSError: watchdog dropped it already, with its folder
            with contextlib.suppress(KeyError, OSError):
                self._observer.unschedule(watch)

    def top_level_folder(self, path: str) -> bool:
        """Whether ``path`` is a folder at the vault's top level to watch (no dot folder)."""
        parent, name = os.path.split(path)
        return (
            parent == self._root
            and not name.startswith(".")
            and os.path.isdir(path)
            and not os.path.islink(path)
        )


def schedule(observer: Any, handler: FileSystemEventHandler, path: str, *, recursive: bool) -> Any:
    """``observer.schedule`` for the events that change files (``WATCHED_EVENTS``)."""
    return observer.schedule(handler, path, recursive=recursive, event_filter=list(WATCHED_EVENTS))


class _TopLevel(FileSystemEventHandler):
    """The vault's own folder (not recursive): its events go on; its folders come and go."""

    def __init__(self, watches: VaultWatches) -> None:
        self._watches = watches

    def dispatch(self, event: FileSystemEvent) -> None:
        watches = self._watches
        watches._handler.dispatch(event)  # first the event, then what it holds (added below)
        src = os.fsdecode(event.src_path)
        if event.is_directory and event.event_type in ("deleted", "moved"):
            watches.drop(src)
        if event.event_type == "moved":
            dest = os.fsdecode(event.dest_path)
            if event.is_directory and watches.top_level_folder(dest):
                watches.add(dest)
        elif event.is_directory and event.event_type == "created" and watches.top_level_folder(src):
            watches.add(src)


def _top_folders(root: str) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(
                e.path
                for e in entries
                if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []


def _deeper_than(folder: str, levels: int) -> bool:
    """Whether ``folder`` holds folders more than ``levels`` below it (links not followed),
    found with a stack of its own."""
    stack = [(folder, 0)]
    while stack:
        top, depth = stack.pop()
        if depth > levels:
            return True
        try:
            with os.scandir(top) as entries:
                stack.extend(
                    (e.path, depth + 1) for e in entries if e.is_dir(follow_symlinks=False)
                )
        except OSError:
            continue
    return False


def walk(
    top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False
) -> Iterator[tuple[Any, list[Any], list[Any]]]:
    """``os.walk`` with a stack of its own (as Python 3.12's is): top-down, ``str`` or
    ``bytes`` paths, folders listed before what they hold, ``dirnames`` pruned in place
    by the caller, ``onerror`` told of a folder it cannot list. Python 3.11's is a chain of
    generators, one a level: RecursionError past about 1,000 folders down."""
    if not topdown:  # nobody here walks bottom-up
        yield from os.walk(top, topdown, onerror, followlinks)
        return
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            if onerror is not None:
                onerror(error)
            continue
        dirs: list[Any] = []
        files: list[Any] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(entry.name)
        yield folder, dirs, files
        for name in reversed(dirs):  # os.walk's order: the first folder walked first
            path = os.path.join(folder, name)
            if followlinks or not os.path.islink(path):
                stack.append(path)


# Path components below which watchdog's inotify observer is not walked (``watch_walk``).
WATCH_DEPTH = 128


def watch_walk(
    top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False
) -> Iterator[tuple[Any, list[Any], list[Any]]]:
    """``walk`` as watchdog's inotify observer walks a recursive watch: no folder more than
    ``WATCH_DEPTH`` path components down is listed as holding folders, so none below it is
    watched. Each folder made in a watched one is walked in the thread that hands out the
    events of every watch, and watchdog finds each folder of a walk in its tree from the
    top (7.x): a folder made one level at a time 1,100 levels down walked the levels below
    each new one again, and the thread took minutes, every watch of the vault silent
    meanwhile. Changes past the depth are read at the next scan."""
    sep = os.sep if isinstance(top, str) else os.sep.encode()
    for folder, dirs, files in walk(top, topdown, onerror, followlinks):
        if folder.count(sep) >= WATCH_DEPTH:
            dirs[:] = []
        yield folder, dirs, files


class _OsWalkingWithoutRecursion:
    """The ``os`` module as watchdog's inotify observer sees it, with ``watch_walk``."""

    walk = staticmethod(watch_walk)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def _walks_without_recursion() -> None:
    """Have watchdog's inotify observer walk new folders with a stack of its own. It walks
    every folder made in a watched one, in the thread that hands out every event; a folder
    made under it one level at a time (an agent's note 1,100 folders down) can be deep by
    the time the thread comes to it, and Python 3.11's recursive ``os.walk`` raised
    RecursionError there, which ended that thread: nothing was reported from then on."""
    if sys.version_info >= (3, 12):
        return  # os.walk keeps its own stack
    try:
        from watchdog.observers import inotify
    except ImportError:  # not Linux: another observer
        return
    if getattr(inotify, "os", None) is os:
        inotify.os = _OsWalkingWithoutRecursion()  # type: ignore[attr-defined,assignment]


def _walks_with_a_stack(observer: Any) -> bool:
    """Whether ``observer`` walks a recursive watch's folders with a stack of its own, so
    that no depth stops it: watchdog's inotify observer, its ``os.walk`` ours on Python 3.11
    (``_walks_without_recursion``) and Python's own from 3.12."""
    try:
        from watchdog.observers import inotify
    except ImportError:  # not Linux
        return False
    if not isinstance(observer, inotify.InotifyObserver):
        return False
    walker = getattr(inotify, "os", None)
    return sys.version_info >= (3, 12) or isinstance(walker, _OsWalkingWithoutRecursion)


def _held(folder: str) -> list[FileSystemEvent]:
    """Created events for every folder and file below ``folder`` (symbolic links not
    followed), as watchdog reports a folder moved into a watched one. A walk with a stack of
    its own: a recursive one stops at Python's recursion limit (1,000 folders down)."""
    events: list[FileSystemEvent] = []
    stack = [folder]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as entries:
                found = list(entries)
        except OSError:
            continue
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                events.append(DirCreatedEvent(entry.path))
                stack.append(entry.path)
            else:
                events.append(FileCreatedEvent(entry.path))
    return events


def changed_paths(event: FileSystemEvent, root: str) -> tuple[str | None, str | None] | None:
    """What a watchdog event changed in the vault at ``root``: (the path, the path it moved
    to), each relative to the vault and None when it lies outside it; None for an event
    that changes nothing (an open, a close, a folder's own modification time, which moves
    with every event of its files, reported on their own)."""
    if event.event_type not in CHANGES:
        return None
    if event.is_directory and event.event_type == "modified":
        return None
    dest = relative(event.dest_path, root) if event.event_type == "moved" else None
    return relative(event.src_path, root), dest


def relative(path: str | bytes, root: str) -> str | None:
    """``path`` relative to the vault folder ``root`` (no trailing slash); None outside it.
    A name that is not UTF-8 keeps its bytes (surrogate escapes), as the scan reads it."""
    text = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
    prefix = root + "/"
    return text[len(prefix) :] if text.startswith(prefix) else None
