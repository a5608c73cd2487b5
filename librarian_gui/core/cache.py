"""The index cache: parses and the resolved graph, outside the vault, keyed by its path."""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .model import FileStamp, NoteRecord
from .reading import record_from_row, record_row

# Bump when a cached record's shape or meaning changes; an older cache is then rebuilt.
CACHE_VERSION = 3
# A file rewritten within the same timestamp tick as the cache save can keep its size and
# mtime (TRAPS): files modified this close to the save are parsed again on the next scan.
MTIME_GRACE_NS = 1_000_000_000
_MAGIC = b"LIBRARIAN-INDEX\n"


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


def cache_file(root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / "index" / f"{key[:24]}.bin"


def load(root: Path) -> CachedIndex | None:
    """The cached index of this vault, or None when there is no usable cache (missing,
    corrupt, another version or another vault): the caller then parses everything."""
    path = cache_file(root)
    try:
        with path.open("rb") as fh:
            if fh.read(len(_MAGIC)) != _MAGIC:
                return None
            payload = marshal.loads(fh.read())  # load(fh) reads in tiny chunks: 7x slower
        if (
            not isinstance(payload, dict)
            or payload.get("version") != CACHE_VERSION
            or payload.get("root") != str(root.resolve())
        ):
            return None
        notes = {}
        targets = {}
        out_edges = {}
        for row in payload["notes"]:
            record = record_from_row(row[:-2])
            notes[record.path] = record
            targets[record.path] = row[-2]
            out_edges[record.path] = row[-1]
            if len(row[-2]) != len(record.link_kinds):
                return None
        attachments = {p: FileStamp(*s) for p, s in payload["attachments"].items()}
        in_edges = payload["in_edges"]
        if sum(map(len, in_edges.values())) != sum(map(len, out_edges.values())):
            return None
        return CachedIndex(
            int(payload["saved_at_ns"]),
            str(payload["fingerprint"]),
            notes,
            attachments,
            targets,
            out_edges,
            in_edges,
        )
    except FileNotFoundError:
        return None
    except Exception:  # any damage to the cache means "rebuild it"
        return None


def save(
    root: Path,
    fingerprint: str,
    notes: dict[str, NoteRecord],
    attachments: dict[str, FileStamp],
    targets: dict[str, tuple[str, ...]],
    out_edges: dict[str, dict[str, int]],
    in_edges: dict[str, dict[str, int]],
) -> None:
    """Write the cache atomically; the GUI, the command line and the MCP server may save at
    the same time, and the last complete file wins. Failure to save is not an error."""
    path = cache_file(root)
    payload = {
        "version": CACHE_VERSION,
        "root": str(root.resolve()),
        "saved_at_ns": time.time_ns(),
        "fingerprint": fingerprint,
        "notes": [
            (*record_row(record), targets[rel], out_edges[rel]) for rel, record in notes.items()
        ],
        "attachments": {p: tuple(s) for p, s in attachments.items()},
        "in_edges": in_edges,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".index-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC)
                fh.write(marshal.dumps(payload))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
