"""Changes another program made, recorded when the watcher sees them (issue 32 item 1).

The window and the MCP server keep a vault current with one updater (``core/live``); after
each batch it tells an ``OutsideLog`` which notes changed. A note whose bytes are not what a
journal entry's write left (the whole file's digest each entry records: a replacement's or
a created note's ``after``, an append's ``file_after``) was changed by another program — an
editor, git, an agent writing files directly — and is logged **outside Librarian**, with the
file's modification time and its digest: a time, never a guess at who. The log lives outside
the vault (the user's data folder, ``review/<vault key>.outside.jsonl``, one JSON object a
line), at most ``LOG_BYTES`` (the older half dropped past it). The window and a server
watching one vault both log a change: readers count a (note, digest) once.

Changes made while nothing watched are not in the log; ``provenance`` still finds the last
of them (the file is not what the journal's newest write left).
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import queue
import threading
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from ..index.cache import vault_key
from ..vault.files import read_regular_file
from ..writing.journal import Journal
from ..writing.safewrite import atomic_write, digest_of

_log = logging.getLogger(__name__)

LOG_BYTES = 2_000_000
DIGEST_BYTES = 32 * 1024 * 1024  # a bigger note is not read to tell who changed it
ENTRIES_READ = 2_000  # journal entries read, newest first, the first time


def outside_file(root: Path) -> Path:
    return (
        Path(platformdirs.user_data_dir("librarian", appauthor=False))
        / "review"
        / (vault_key(root) + ".outside.jsonl")
    )


class OutsideLog:
    """Logs the changes of ``root``'s notes that no journal entry made (``seen``). The
    notes are read on a thread of the log's own, after the update that told of them: a
    ``git checkout`` of 2,000 notes read and hashed on the updater's thread held the index
    back a second (each read gives up the interpreter lock and waits to get it back).
    The journal's digests are read once, then only its new entries."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._written: set[str] = set()  # whole-file digests the journal's writes left
        self._newest = ""  # the newest entry read
        self._logged: dict[str, str] = {}  # note → the digest last looked at
        self._lock = threading.Lock()  # the queue and the idle flag
        self._looking = threading.Lock()  # the digests and the log
        self._queue: queue.SimpleQueue[tuple[str, ...] | None] = queue.SimpleQueue()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()

    def seen(self, rels: Iterable[str]) -> None:
        """These notes changed (added or changed): log those another program changed, soon
        (on the log's thread)."""
        paths = tuple(rels)
        if not paths:
            return
        with self._lock:
            if self._closed:
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="outside-log", daemon=True)
                self._thread.start()
            self._idle.clear()
            self._queue.put(paths)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every note told of is looked at (tests); False on time out."""
        return self._idle.wait(timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Look at what was told, then stop the thread (joined)."""
        with self._lock:
            self._closed = True
            thread = self._thread
            self._queue.put(None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self) -> None:
        stop = False
        while not stop:
            paths: list[str] = []
            item = self._queue.get()
            while True:  # what came meanwhile, in one go
                if item is None:
                    stop = True
                else:
                    paths.extend(item)
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            try:
                self.look(paths)
            except Exception:  # a help to the reviewer: never stops the thread
                _log.exception("logging the changes of %d notes failed", len(paths))
            with self._lock:
                if self._queue.empty():
                    self._idle.set()

    def look(self, rels: Iterable[str]) -> None:
        """Log, now, the notes of ``rels`` another program changed."""
        with self._looking:
            rows = []
            read = False  # the journal's new entries, read once a batch (a git checkout)
            for rel in rels:
                path = self.root / rel
                try:
                    st = os.stat(path)
                    if st.st_size > DIGEST_BYTES:
                        continue
                    digest = digest_of(read_regular_file(path))
                except OSError:
                    continue
                if self._logged.get(rel) == digest:
                    continue
                self._logged[rel] = digest
                if digest not in self._written and not read:
                    read = True
                    self._read_journal()
                if digest in self._written:
                    continue
                at = _dt.datetime.fromtimestamp(st.st_mtime, _dt.UTC)
                rows.append(
                    {"note": rel, "at": at.isoformat(timespec="microseconds"), "digest": digest}
                )
            if rows:
                _append(outside_file(self.root), rows)

    def _read_journal(self) -> None:
        """Read the entries newer than the newest read."""
        newest = self._newest
        try:
            for read, entry in enumerate(Journal(self.root).newest_first()):
                if entry.id <= self._newest or read >= ENTRIES_READ:
                    break
                newest = max(newest, entry.id)
                for file in entry.files:
                    if file.file_after:
                        self._written.add(file.file_after)
        except Exception:  # a journal that cannot be read: every change counts as outside
            return
        self._newest = newest


def _append(path: Path, rows: list[dict[str, str]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        with open(path, "a", encoding="utf-8") as log:  # one write: lines never interleave
            log.write(text)
        if path.stat().st_size > LOG_BYTES:
            lines = path.read_bytes().splitlines(keepends=True)
            atomic_write(path, b"".join(lines[len(lines) // 2 :]))
    except OSError:
        pass  # the log is a help to the reviewer: a full disk must not stop the updates


def outside_changes(root: Path, since: _dt.datetime) -> dict[str, list[tuple[str, str]]]:
    """The changes another program made that were logged at or after ``since`` (aware):
    note → (time (ISO), digest of the bytes it left), oldest first, each (note, digest)
    once."""
    out: dict[str, list[tuple[str, str]]] = {}
    seen: set[tuple[str, str]] = set()
    floor = since.astimezone(_dt.UTC)
    try:
        lines = outside_file(root).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return out
    for line in lines:
        try:
            row = json.loads(line)
            rel, at, digest = str(row["note"]), str(row["at"]), str(row["digest"])
            when = _dt.datetime.fromisoformat(at)
        except (ValueError, TypeError, KeyError):
            continue
        if when < floor or (rel, digest) in seen:
            continue
        seen.add((rel, digest))
        out.setdefault(rel, []).append((at, digest))
    for changes in out.values():
        changes.sort()
    return out
