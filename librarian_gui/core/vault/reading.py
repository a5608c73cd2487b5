"""Reading notes into records: one at a time, or many at once on worker processes."""

from __future__ import annotations

import contextlib
import datetime as _dt
import marshal
import os
import queue
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from sys import intern
from typing import IO, BinaryIO

from ..parse.parser import parse_date_text, parse_note
from ..parse.records import (
    DateSource,
    FileStamp,
    NoteRecord,
    ParsedNote,
    ScanWarning,
    name_key,
    parse_warning_kind,
)
from .files import read_note
from .forked import fork_joined
from .walk_apart import worker_env

# Below this many notes a process pool costs more (start-up, transfer) than it saves.
POOL_THRESHOLD = 1500
CHUNK = 200  # notes per worker answer, and per progress report
# How much lower than this process the parse workers run (``os.nice``): 0 unless a window
# asks (``lower_worker_priority``). A window's GUI thread needs its share of the cores while
# a vault indexes; a command line or an MCP server waits for the parse itself. Lowered in
# every process, a cold ``scan`` of 10,000 notes beside two busy processes took 13-20 s
# instead of 3.3-3.7 s.
_worker_nice = 0


def lower_worker_priority(step: int = 10) -> None:
    """Parse workers started from now on run ``step`` lower than this process."""
    global _worker_nice
    _worker_nice = step


Row = tuple[object, ...]
ReadOutcome = tuple[str, NoteRecord | None, ScanWarning | None]
WorkerResult = tuple[str, Row | None, tuple[str, str] | None, tuple[str, ...]]


def note_date(rel: str, parsed: ParsedNote, stamp: FileStamp) -> tuple[_dt.date, DateSource]:
    """DESIGN §2: front matter date, else a date in the path, else the modification time."""
    if parsed.front_matter_date is not None:
        return parsed.front_matter_date, "front-matter"
    found = parse_date_text(rel)
    if found is not None:
        return found, "name"
    return _dt.date.fromtimestamp(stamp.mtime_ns / 1e9), "mtime"


_key_memo: dict[str, str] = {}


def link_keys_of(targets: Sequence[str]) -> tuple[str, ...]:
    """The distinct name keys of a note's link targets (targets repeat across a vault).
    Interned: every note naming a key holds that one string, whenever it was read (the
    memo is emptied now and then), and the cache writes it once (``cache._row``)."""
    memo = _key_memo
    if len(memo) > 200_000:
        memo.clear()
    found = set(map(memo.get, targets))
    if None in found:
        found.discard(None)
        for target in targets:
            if target not in memo:
                key = memo[target] = intern(name_key(target.strip()))
                found.add(key)
    keys: set[str] = found  # type: ignore[assignment]  # no None left
    return tuple(sorted(keys))


def read_record(root: Path, rel: str) -> tuple[NoteRecord | None, ScanWarning | None]:
    """Read and parse one note. None when it is gone or is not a regular file; a warning
    when it could not be read or parsed cleanly (binary, too large, not UTF-8, …)."""
    result = read_note(root, rel)
    if result.stamp is None:
        return None, result.warning
    parsed = ParsedNote() if result.text is None else parse_note(result.text)
    kinds = tuple(map(parse_warning_kind, parsed.warnings))
    if result.warning is not None:  # the reading's warning first, then the parser's
        parsed = _with_warning(parsed, result.warning.message)
        kinds = (result.warning.kind, *kinds)
    date, source = note_date(rel, parsed, result.stamp)
    record = NoteRecord(
        rel,
        result.stamp,
        date,
        source,
        lossy=result.lossy,
        parsed=parsed,
        link_keys=link_keys_of([link.target for link in parsed.links]),
        warning_kinds=kinds,
    )
    return record, None


def _with_warning(parsed: ParsedNote, message: str) -> ParsedNote:
    fields = {name: getattr(parsed, name) for name in ParsedNote.__slots__}
    fields["warnings"] = (message, *parsed.warnings)
    return ParsedNote(**fields)


# ------------------------------------------------------------------ rows


def record_row(record: NoteRecord) -> Row:
    """A record as plain tuples (for marshal and for crossing process boundaries)."""
    return (
        record.path,
        tuple(record.stamp),
        record.date.toordinal(),
        record.date_source,
        record.lossy,
        record.warnings,
        record.warning_kinds,
        record.link_kinds,
        record.link_keys,
        record.blob,
    )


def record_from_row(row: Sequence[object]) -> NoteRecord:
    """The record ``record_row`` wrote as ``row``."""
    return NoteRecord.from_row(row)


# ------------------------------------------------------------------ many at once


def read_chunk(root: Path, rels: Sequence[str]) -> list[WorkerResult]:
    """Read and parse a chunk of notes into plain rows, plus each note's link targets."""
    out: list[WorkerResult] = []
    for rel in rels:
        record, warning = read_record(root, rel)
        row = record_row(record) if record is not None else None
        targets = record.link_targets if record is not None else ()
        out.append((rel, row, (warning.kind, warning.message) if warning else None, targets))
    return out


def _outcome(result: WorkerResult, asked: dict[str, str]) -> ReadOutcome:
    """A worker's result as a record. A worker's answers share no string with the caller
    nor with each other: its path becomes the caller's own ``asked`` string (as the walk's
    paths, the resolver's nodes are), and its link keys are interned (10,000 generated notes:
    79,000 key strings → 11,000). So the index holds each once, and the cache stream,
    whose memo goes by object, writes each once (``cache._row``)."""
    rel, row, warning, targets = result
    rel = asked.get(rel, rel)
    record = None
    if row is not None:
        _, *head, keys, blob = row
        row = (rel, *head, tuple(map(intern, keys)), blob)  # type: ignore[call-overload]
        record = record_from_row(row).with_targets(targets)
    return rel, record, ScanWarning(rel, *warning) if warning else None


def read_many(
    root: Path,
    rels: Sequence[str],
    progress: Callable[[int], None] | None = None,
    pool: ParsePool | None = None,
) -> Iterator[ReadOutcome]:
    """Read many notes: on worker processes when there are enough to pay off, else here.

    ``pool``: workers started earlier (see ``ParsePool``); they are used or closed here.
    Whatever a worker fails to deliver is read here instead."""
    pending = list(rels)
    done = 0
    if pool is None and len(pending) >= POOL_THRESHOLD and ParsePool.useful():
        pool = ParsePool(root)
    if pool is not None and len(pending) < POOL_THRESHOLD:
        pool.close()
        pool = None
    if pool is not None:
        delivered: set[str] = set()
        asked = {rel: rel for rel in pending}
        for results in pool.run(pending):
            for result in results:
                delivered.add(result[0])
                yield _outcome(result, asked)
            done += len(results)
            if progress is not None:
                progress(done)
        pending = [rel for rel in pending if rel not in delivered]
    for rel in pending:
        record, warning = read_record(root, rel)
        done += 1
        if progress is not None and (done % CHUNK == 0 or done == len(rels)):
            progress(done)
        yield rel, record, warning


_PARSE_WORKER = "librarian_gui.core.vault.parse_worker"


class ParsePool:
    """Parse worker processes, started before their work is known so that their start-up
    (an interpreter and the parser's imports, ~0.15 s) overlaps the walk of the vault.

    Workers are fresh interpreters running ``parse_worker`` (not multiprocessing: forking
    a process that runs Qt threads is unsafe, and spawning re-imports the caller's main
    script) — except where this process runs no other thread (the command line's scan):
    there each is forked (``ForkedWorker``), the parser already imported, and starts in a
    few milliseconds of CPU instead of an interpreter's 0.15-0.2 s."""

    @staticmethod
    def useful() -> bool:
        return (os.cpu_count() or 1) >= 2 and not getattr(sys, "frozen", False)

    def __init__(self, root: Path, module: str = _PARSE_WORKER, *extra: str) -> None:
        """``module``: the worker to run (``python -m MODULE ROOT NICE *extra``), speaking
        the parse worker's frames: the marshalled list of paths in, marshalled chunks out."""
        env = worker_env()
        self.procs: list[subprocess.Popen[bytes] | ForkedWorker] = []
        forking = module == _PARSE_WORKER and _alone()
        for _ in range(min(os.cpu_count() or 1, 4)):
            if forking:
                forked = ForkedWorker.start(root, _worker_nice, self.procs)
                if forked is not None:
                    self.procs.append(forked)
                    continue
            try:
                proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        module,
                        str(root),
                        str(_worker_nice),
                        *extra,
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
            except OSError:
                continue
            self.procs.append(proc)

    def run(self, rels: list[str]) -> Iterator[list[WorkerResult]]:
        """Give each worker its share and yield their answers as they come."""
        procs, self.procs = self.procs, []
        results: queue.Queue[list[WorkerResult] | None] = queue.Queue()
        for i, proc in enumerate(procs):
            share = rels[i :: len(procs)]
            threading.Thread(target=_pump, args=(proc, share, results), daemon=True).start()
        finished = 0
        while finished < len(procs):
            chunk = results.get()
            if chunk is None:
                finished += 1
                continue
            yield chunk
        for proc in procs:
            proc.wait()

    def close(self) -> None:
        """Stop workers that were never given work (an empty share ends them)."""
        procs, self.procs = self.procs, []
        for proc in procs:
            assert proc.stdin is not None and proc.stdout is not None
            with contextlib.suppress(OSError, ValueError):
                write_frame(proc.stdin, marshal.dumps([]))
                proc.stdin.close()
            proc.stdout.close()
            proc.wait()


def _alone() -> bool:
    """Whether this process runs one thread, native threads (Qt's) counted: where it is
    safe to fork. Known on Linux only (``/proc``); elsewhere workers are interpreters."""
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class ForkedWorker:
    """A parse worker forked from this process: ``parse_worker.serve`` over two pipes, with
    what ``ParsePool`` uses of a ``subprocess.Popen`` (``stdin``, ``stdout``, ``wait``,
    ``kill``)."""

    def __init__(self, pid: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None

    @classmethod
    def start(
        cls, root: Path, step: int, others: Sequence[subprocess.Popen[bytes] | ForkedWorker]
    ) -> ForkedWorker | None:
        """A worker forked now, or None when no process could be made. ``others``: the
        pool's workers so far, whose pipes the new one must not hold open."""
        from . import parse_worker

        def child(calls: BinaryIO, out: BinaryIO) -> None:
            for other in others:  # a worker ends when its own pipes close
                for stream in (other.stdin, other.stdout):
                    if stream is not None:
                        os.close(stream.fileno())
            parse_worker.serve(root, step, calls, out)

        joined = fork_joined(child)
        if joined is None:
            return None
        pid, from_other, to_other = joined
        return cls(pid, os.fdopen(to_other, "wb"), os.fdopen(from_other, "rb"))

    def wait(self) -> int:
        if self.returncode is None:
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                status = 0
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _pump(
    proc: subprocess.Popen[bytes] | ForkedWorker,
    rels: list[str],
    results: queue.Queue[list[WorkerResult] | None],
) -> None:
    """Feed one worker its share and pass its answers on, chunk by chunk."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        write_frame(proc.stdin, marshal.dumps(rels))
        proc.stdin.close()
        while (frame := read_frame(proc.stdout)) is not None:
            results.put(marshal.loads(frame))
    except (OSError, ValueError, EOFError):
        proc.kill()
    finally:
        proc.stdout.close()
        results.put(None)


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("worker stopped mid-answer")
    return data
