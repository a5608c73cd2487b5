"""The index cache: parses and the resolved graph, outside the vault, keyed by its path."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
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
# 12: one pickle stream of plain data, its frames sharing each string (``_DataOnly``).
# 13: a parse's bytes begin with its aliases and tag names, apart (``encode_parsed``).
CACHE_VERSION = 13
# A file rewritten within the same timestamp tick as the cache save can keep its size and
# mtime: files modified this close to the save are parsed again on the next scan.
MTIME_GRACE_NS = 1_000_000_000


def doubted(at_ns: int) -> range:
    """The file times too near a save at ``at_ns`` to trust its parse of the file: a
    rewrite in the same tick could have kept the file's stamp. A time further away, in the
    past or the future (a clock ahead, files synced from another machine, a diary stamped
    with its day), is trusted: a rewrite since would have given the file the time it was
    made, which differs. (``mtime in doubted(at)`` is two comparisons, no loop.)"""
    return range(at_ns - MTIME_GRACE_NS, at_ns + MTIME_GRACE_NS + 1)


def changed_too_recently(mtimes_ns: Iterable[int], now_ns: int) -> bool:
    """Whether one of these files was modified so near now (``doubted``) that a cache saved
    now would not be trusted."""
    window = doubted(now_ns)
    return any(m in window for m in mtimes_ns)


# The version in the first line: a cache of another version is set aside without a word.
_MAGIC = b"LIBRARIAN-INDEX %d\n" % CACHE_VERSION
# A cache takes about 2 KB a note (half a generated note's size); this bound, loaded before
# the vault is walked (so not derived from it), holds 500,000 such notes, 25 times the
# largest vault of the targets. A larger file is refused unread: a cold scan, no more.
MAX_BYTES = 1 << 30
FRAME_ROWS = 500  # rows per frame: each dumps or loads in a few ms, holding the GIL


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
    # Read whole, never blocking on a FIFO nor through a link, and trusted only if its
    # checksum matches.
    data = cachefile.read_sealed(path, _MAGIC, MAX_BYTES)
    if data is None:
        return None
    try:
        # The file's bytes, read by ``BytesIO`` in place (it shares a bytes object until
        # written), from where the payload begins (``data`` is a view of them).
        whole = data.obj
        if not isinstance(whole, bytes):
            return None
        end = len(whole) - cachefile.DIGEST_BYTES
        reader = io.BytesIO(whole)
        reader.seek(end - len(data))
        frames = _DataOnly(reader)
        header = frames.load()
        if (
            not isinstance(header, dict)
            or header.get("version") != CACHE_VERSION
            or header.get("root") != str(root.resolve())
        ):
            return None
        notes = {}
        targets = {}
        out_edges = {}
        for _ in range(header["note_frames"]):
            for row, links, out in frames.load():
                record = record_from_row(row)
                rel = record.path
                notes[rel] = record
                targets[rel] = links
                out_edges[rel] = out
                if len(links) != len(record.link_kinds):
                    return None
        attachments = {p: FileStamp(*s) for p, s in frames.load()}
        in_edges: dict[str, dict[str, int]] = {}
        for _ in range(header["edge_frames"]):
            in_edges.update(frames.load())
        if reader.tell() != end:
            return None
        if sum(map(len, in_edges.values())) != sum(map(len, out_edges.values())):
            return None
        from .cache_room import touch

        touch(path)  # used now: the last vault whose caches make room for others'
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


class _DataOnly(pickle.Unpickler):
    """An unpickler of plain data only (dicts, lists, tuples, strings, bytes, numbers): it
    refuses every class and function a stream names, so a cache file can make nothing but
    data, whoever wrote it (Python's "Restricting Globals").

    Why pickle, and frames of one stream: each ``load`` (a frame of ``FRAME_ROWS`` notes)
    holds the GIL a few ms, yet a string met in an earlier frame comes back as that same
    object (the stream's memo spans its frames), so each path and name is made once. At
    50,000 notes the rows, targets and link counts loaded in 0.23-0.30 s, against 0.75 s
    from marshal frames with the strings as numbers into a table (version 11)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a cache holds data only, not {module}.{name}")


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
        header = {
            "version": CACHE_VERSION,
            "root": str(root.resolve()),
            "saved_at_ns": time.time_ns(),
            "fingerprint": fingerprint,
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
                # One stream, so that each string is written once and loads as one object
                # (``_DataOnly``); a frame at a time, each dumped in a few ms.
                frames = pickle.Pickler(_Hashed(fh, digest), protocol=5)
                frames.dump(header)
                for i in range(0, len(records), FRAME_ROWS):
                    frames.dump(
                        [
                            _row(record, targets[rel], out_edges[rel])
                            for rel, record in records[i : i + FRAME_ROWS]
                        ]
                    )
                    time.sleep(0)  # let a GUI thread waiting for the GIL have it now
                frames.dump([(p, tuple(s)) for p, s in attachments.items()])
                for i in range(0, len(edges), FRAME_ROWS):
                    frames.dump(
                        [
                            (target, _counts(sources))
                            for target, sources in edges[i : i + FRAME_ROWS]
                        ]
                    )
                    time.sleep(0)
                fh.write(digest.digest())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        from .cache_room import trim  # the folder below its limit, this vault kept

        trim(keep=path.stem)
    except OSError:
        return
    finally:
        with _pending_lock:
            if _pending.get(path) is threading.current_thread():
                del _pending[path]


def _row(
    record: NoteRecord, targets: tuple[str, ...], out_edges: Mapping[str, int]
) -> tuple[object, ...]:
    """A note's row for the stream: its record (``record_row``), each link's resolved node
    and its link counts. A string the stream meets again as the same object is written as a
    reference to it and loads as that one object, however many notes name it: the index
    shares its strings already (paths and nodes are the walk's and the resolver's, a parse
    worker's paths and link keys are made the caller's and interned as they arrive,
    ``reading._outcome``), so they are not interned again here: at 10,000 notes that was
    half of a save's 0.44-0.61 s of CPU, for the same file. Strings an update parsed since
    may be equal copies: each is then written again, which costs a few bytes and loads as
    an equal string."""
    _, *rest, blob = record_row(record)
    return ((record.path, *rest, blob), targets, _counts(out_edges))


def _counts(counts: Mapping[str, int]) -> dict[str, int]:
    """Link counts as a plain dict, all the stream may hold (the index's own are)."""
    return counts if type(counts) is dict else dict(counts)


class _Hashed:
    """The file the pickler writes to: written through, and hashed for the seal."""

    def __init__(self, fh: BinaryIO, digest: Any) -> None:
        self._fh = fh
        self._digest = digest

    def write(self, data: bytes) -> int:
        self._digest.update(data)
        return self._fh.write(data)
