"""The index cache: parses and the resolved graph, outside the vault, keyed by its path."""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import Any, BinaryIO

import platformdirs

from ..parse.records import FileStamp, NoteRecord
from ..vault.reading import record_from_row, record_row
from . import cachefile

# Bump when a cached record's shape or meaning changes; an older cache is then rebuilt.
# 5 was used twice while these were written apart: 6 rebuilds a cache of either.
# 6: warnings carry their kinds; paths differing only in case resolve apart.
# 7: a UTF-16 note's warning says so (it said "binary content"). 8: sealed with a checksum.
# 9: paths, targets and name keys written interned, so they load shared.
# 10: a target's sources written as the notes' row numbers (``_sources``).
# 11: name keys, targets and link counts' keys written as numbers into one string table.
CACHE_VERSION = 11
# A file rewritten within the same timestamp tick as the cache save can keep its size and
# mtime: files modified this close to the save are parsed again on the next scan.
MTIME_GRACE_NS = 1_000_000_000


def changed_too_recently(mtimes_ns: Iterable[int], now_ns: int) -> bool:
    """Whether one of these files was modified within ``MTIME_GRACE_NS`` of now, so that a
    rewrite in the same tick could keep its stamp: a cache saved now would not be
    trusted. A time further in the future (a clock ahead, files synced from another
    machine) is not recent: a rewrite now gives the file now's time, which differs."""
    return any(now_ns - MTIME_GRACE_NS < m <= now_ns + MTIME_GRACE_NS for m in mtimes_ns)


# The version in the first line: a cache of another version is set aside without a word.
_MAGIC = b"LIBRARIAN-INDEX %d\n" % CACHE_VERSION
# A cache takes about 2 KB a note (half a generated note's size); this bound, loaded before
# the vault is walked (so not derived from it), holds 500,000 such notes, 25 times the
# largest vault of the targets. A larger file is refused unread: a cold scan, no more.
MAX_BYTES = 1 << 30
FRAME_ROWS = 500  # rows per marshal frame: each dumps or loads in a few ms, holding the GIL
FRAME_STRINGS = 20_000  # strings of the string table per frame, likewise


@dataclass(frozen=True, slots=True)
class CachedIndex:
    saved_at_ns: int
    fingerprint: str
    notes: dict[str, NoteRecord]
    attachments: dict[str, FileStamp]
    targets: dict[str, tuple[str, ...]]  # each note's links' resolved nodes at the save
    # The edge maps, derivable from ``targets`` but several times faster to load than to
    # rebuild (177,000 edges at 10,000 notes).
    out_edges: dict[str, dict[str, int]]
    in_edges: dict[str, dict[str, int]]


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("librarian", appauthor=False))


def vault_key(root: Path) -> str:
    """The vault's name in Librarian's folders outside it (its resolved path, hashed)."""
    key = hashlib.sha256(str(Path(root).resolve()).encode("utf-8", "surrogateescape"))
    return key.hexdigest()[:24]


def cache_file(root: Path) -> Path:
    return cache_dir() / "index" / f"{vault_key(root)}.bin"


_pending: dict[Path, threading.Thread] = {}  # cache file → the thread still writing it
_pending_lock = threading.Lock()


def wait_for_save(root: Path) -> None:
    """Return once no save of this vault's cache is under way in this process."""
    with _pending_lock:
        thread = _pending.get(cache_file(root))
    if thread is not None:
        thread.join()


def load(root: Path) -> CachedIndex | None:
    """The cached index of this vault, or None when there is no usable cache (missing,
    corrupt, another version or another vault): the caller then parses everything."""
    wait_for_save(root)
    path = cache_file(root)
    # Read whole, never blocking on a FIFO nor through a link (marshal.load(fh) reads in
    # tiny chunks: 7x slower), and trusted only if its checksum matches.
    data = cachefile.read_sealed(path, _MAGIC, MAX_BYTES)
    if data is None:
        return None
    try:
        frames = _frames(data)
        header = marshal.loads(next(frames))
        if (
            not isinstance(header, dict)
            or header.get("version") != CACHE_VERSION
            or header.get("root") != str(root.resolve())
        ):
            return None
        strings: list[str] = []
        for _ in range(header["string_frames"]):
            strings.extend(marshal.loads(next(frames)))
        string = strings.__getitem__
        notes = {}
        targets = {}
        out_edges = {}
        for _ in range(header["note_frames"]):
            for row in marshal.loads(next(frames)):
                *head, keys, blob, links, out, counts = row
                record = record_from_row((*head, tuple(map(string, keys)), blob))
                rel = record.path
                notes[rel] = record
                targets[rel] = tuple(map(string, links))
                out_edges[rel] = dict(zip(map(string, out), counts, strict=True))
                if len(links) != len(record.link_kinds):
                    return None
        attachments = {p: FileStamp(*s) for p, s in marshal.loads(next(frames))}
        in_edges: dict[str, dict[str, int]] = {}
        paths = list(notes).__getitem__  # the sources' row numbers are the notes' order
        for _ in range(header["edge_frames"]):
            for target, (rows, counts) in marshal.loads(next(frames)).items():
                in_edges[target] = dict(zip(map(paths, rows), counts, strict=True))
        if next(frames, None) is not None:
            return None
        if sum(map(len, in_edges.values())) != sum(map(len, out_edges.values())):
            return None
        return CachedIndex(
            int(header["saved_at_ns"]),
            str(header["fingerprint"]),
            notes,
            attachments,
            targets,
            out_edges,
            in_edges,
        )
    except Exception:  # a cache of another shape under this version: rebuild it
        return None


def _frames(data: memoryview) -> Iterator[memoryview]:
    pos = 0
    while pos < len(data):
        (size,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        if pos + size > len(data):
            raise ValueError("truncated cache frame")
        yield data[pos : pos + size]
        pos += size


def save(
    root: Path,
    fingerprint: str,
    notes: Mapping[str, NoteRecord],
    attachments: Mapping[str, FileStamp],
    targets: Mapping[str, tuple[str, ...]],
    out_edges: Mapping[str, Mapping[str, int]],
    in_edges: Mapping[str, Mapping[str, int]],
    *,
    background: bool = False,
) -> threading.Thread | None:
    """Write the cache atomically; the GUI, the command line and the MCP server may save at
    the same time, and the last complete file wins. Failure to save is not an error.

    With ``background``, a thread writes it and is returned: the caller must not change the
    maps it passed until the thread ends. The file is written in frames of FRAME_ROWS
    rows, so the thread never holds the interpreter lock for long: a GUI thread waiting
    200 ms for one big ``marshal.dumps`` would freeze the window."""
    path = cache_file(root)
    if not background:
        _write(path, root, fingerprint, notes, attachments, targets, out_edges, in_edges)
        return None
    wait_for_save(root)
    thread = threading.Thread(
        target=_write,
        args=(path, root, fingerprint, notes, attachments, targets, out_edges, in_edges),
        name="librarian-cache-save",
    )
    with _pending_lock:
        _pending[path] = thread
    thread.start()
    return thread


def _write(
    path: Path,
    root: Path,
    fingerprint: str,
    notes: Mapping[str, NoteRecord],
    attachments: Mapping[str, FileStamp],
    targets: Mapping[str, tuple[str, ...]],
    out_edges: Mapping[str, Mapping[str, int]],
    in_edges: Mapping[str, Mapping[str, int]],
) -> None:
    try:
        records = list(notes.items())
        edges = list(in_edges.items())
        number: dict[str, int] = {}  # the string table: each string's number
        rows = [_numbered(record, targets[rel], out_edges[rel], number) for rel, record in records]
        strings = list(number)
        header = {
            "version": CACHE_VERSION,
            "root": str(root.resolve()),
            "saved_at_ns": time.time_ns(),
            "fingerprint": fingerprint,
            "string_frames": -(-len(strings) // FRAME_STRINGS),
            "note_frames": -(-len(records) // FRAME_ROWS),
            "edge_frames": -(-len(edges) // FRAME_ROWS),
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        # A new file moved over the cache's name: whatever is there (a link, a FIFO) is
        # replaced, never written through.
        fd, tmp = tempfile.mkstemp(prefix=".index-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                digest = hashlib.sha256()  # of what follows the magic line (cachefile.seal)
                fh.write(_MAGIC)
                _write_frame(fh, digest.update, header)
                for i in range(0, len(strings), FRAME_STRINGS):
                    _write_frame(fh, digest.update, strings[i : i + FRAME_STRINGS])
                    time.sleep(0)  # let a GUI thread waiting for the GIL have it now
                for i in range(0, len(rows), FRAME_ROWS):
                    _write_frame(fh, digest.update, rows[i : i + FRAME_ROWS])
                    time.sleep(0)
                _write_frame(fh, digest.update, [(p, tuple(s)) for p, s in attachments.items()])
                row_of = {rel: row for row, (rel, _) in enumerate(records)}
                for i in range(0, len(edges), FRAME_ROWS):
                    frame = {
                        intern(target): _sources(sources, row_of)
                        for target, sources in edges[i : i + FRAME_ROWS]
                    }
                    _write_frame(fh, digest.update, frame)
                fh.write(digest.digest())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
    finally:
        with _pending_lock:
            if _pending.get(path) is threading.current_thread():
                del _pending[path]


def _numbered(
    record: NoteRecord,
    targets: tuple[str, ...],
    out_edges: Mapping[str, int],
    number: dict[str, int],
) -> tuple[object, ...]:
    """A note's row, its name keys, link targets and the keys of its link counts written as
    numbers into the string table ``number`` (filled here). Written as strings, each was
    made again in every frame that named it: at 100,000 notes the note rows loaded in
    1.25-1.56 s, as numbers into one table 0.67-0.73 s, and they and the table took 146 MB
    of the file instead of 194. Strings are interned, so once loaded each is one object
    however often it recurs, the same as the note's own path."""
    _, *rest, _, blob = record_row(record)
    return (
        intern(record.path),
        *rest,
        _numbers(record.link_keys, number),
        blob,
        _numbers(targets, number),
        _numbers(out_edges, number),
        tuple(out_edges.values()),
    )


def _numbers(texts: Iterable[str], number: dict[str, int]) -> tuple[int, ...]:
    """Each text's number in the string table ``number``, added to it when new."""
    out = []
    for text in texts:
        n = number.get(text)
        if n is None:
            n = number[intern(text)] = len(number)
        out.append(n)
    return tuple(out)


def _sources(
    sources: Mapping[str, int], row_of: Mapping[str, int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A target's sources as their notes' row numbers, and their counts. The paths, written
    again in every frame that names them, made a third of the file, and loading them was
    a quarter of a warm start at 100,000 notes (1.08 s → 0.65 s as numbers); once loaded
    each is the note's own path object."""
    return tuple([row_of[rel] for rel in sources]), tuple(sources.values())


def _write_frame(fh: BinaryIO, hashed: Callable[[bytes], None], value: Any) -> None:
    data = marshal.dumps(value)
    size = struct.pack("<Q", len(data))
    for part in (size, data):
        fh.write(part)
        hashed(part)
