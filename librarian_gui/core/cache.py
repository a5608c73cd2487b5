"""The parse cache: each note's parse, kept outside the vault, keyed by the vault's path."""

from __future__ import annotations

import datetime as _dt
import hashlib
import marshal
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .model import FileStamp, Heading, Link, NoteRecord, ParsedNote, Tag

# Bump when a cached record's shape or meaning changes; an older cache is then rebuilt.
CACHE_VERSION = 1
# A file rewritten within the same timestamp tick as the cache save can keep its size and
# mtime (TRAPS): files modified this close to the save are parsed again on the next scan.
MTIME_GRACE_NS = 1_000_000_000
_MAGIC = b"LIBRARIAN-INDEX\n"


@dataclass(frozen=True, slots=True)
class CachedIndex:
    saved_at_ns: int
    notes: dict[str, NoteRecord]


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("librarian", appauthor=False))


def cache_file(root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / "index" / f"{key[:24]}.bin"


def load(root: Path) -> CachedIndex | None:
    """The cached parses of this vault, or None when there is no usable cache (missing,
    corrupt, another version or another vault): the caller then parses everything."""
    path = cache_file(root)
    try:
        with path.open("rb") as fh:
            if fh.read(len(_MAGIC)) != _MAGIC:
                return None
            payload = marshal.loads(fh.read())  # load(fh) reads in tiny chunks: 7x slower
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - any damage to the cache means "rebuild it"
        return None
    if (
        not isinstance(payload, dict)
        or payload.get("version") != CACHE_VERSION
        or payload.get("root") != str(root.resolve())
        or not isinstance(payload.get("notes"), dict)
    ):
        return None
    try:
        notes = {row[0]: _record_from_row(row) for row in payload["notes"].values()}
    except Exception:  # noqa: BLE001 - a row of the wrong shape: rebuild
        return None
    return CachedIndex(int(payload["saved_at_ns"]), notes)


def save(root: Path, notes: dict[str, NoteRecord]) -> None:
    """Write the cache atomically; the GUI, the command line and the MCP server may save at
    the same time, and the last complete file wins. Failure to save is not an error."""
    path = cache_file(root)
    payload = {
        "version": CACHE_VERSION,
        "root": str(root.resolve()),
        "saved_at_ns": time.time_ns(),
        "notes": {path: _row_from_record(record) for path, record in notes.items()},
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".index-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC)
                marshal.dump(payload, fh)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


# marshal (not pickle): the cache is plain tuples of str/int, which marshal reads several
# times faster than pickle reads the equivalent objects; records are rebuilt on load.
_new = tuple.__new__


def _row_from_record(r: NoteRecord) -> tuple[object, ...]:
    p = r.parsed
    return (
        r.path,
        (r.stamp.size, r.stamp.mtime_ns, r.stamp.inode),
        r.date.toordinal(),
        r.date_source,
        r.lossy,
        tuple(tuple(link) for link in p.links),
        tuple(tuple(h) for h in p.headings),
        tuple(tuple(t) for t in p.tags),
        p.aliases,
        p.block_ids,
        p.front_matter_date.toordinal() if p.front_matter_date else None,
        p.warnings,
        p.body_start,
        p.properties,
    )


def _record_from_row(row: tuple[object, ...]) -> NoteRecord:
    (path, stamp, date, date_source, lossy, links, headings, tags, aliases, block_ids,
     fm_date, warnings, body_start, properties) = row  # fmt: skip
    parsed = ParsedNote(
        links=tuple([_new(Link, link) for link in links]),  # type: ignore[attr-defined]
        headings=tuple([_new(Heading, h) for h in headings]),  # type: ignore[attr-defined]
        tags=tuple([_new(Tag, t) for t in tags]),  # type: ignore[attr-defined]
        aliases=aliases,  # type: ignore[arg-type]
        block_ids=block_ids,  # type: ignore[arg-type]
        front_matter_date=_dt.date.fromordinal(fm_date) if fm_date else None,  # type: ignore[arg-type]
        warnings=warnings,  # type: ignore[arg-type]
        body_start=body_start,  # type: ignore[arg-type]
        properties=properties,  # type: ignore[arg-type]
    )
    return NoteRecord(
        path,  # type: ignore[arg-type]
        FileStamp(*stamp),  # type: ignore[misc]
        parsed,
        _dt.date.fromordinal(date),  # type: ignore[arg-type]
        date_source,  # type: ignore[arg-type]
        lossy,  # type: ignore[arg-type]
    )
