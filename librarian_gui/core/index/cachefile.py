"""Reading Librarian's cache files without trusting them: never blocking, never through a
link, never more bytes than the cache can hold, never a byte its checksum does not vouch
for. A refusal reads as "no cache" (the caller makes it again) and is said in the log."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from pathlib import Path

from ..vault.files import RefusedFile, open_regular_file, read_regular_file
from ..writing.safewrite import atomic_write

_log = logging.getLogger(__name__)

# What an open with O_NOFOLLOW of a link fails with: ELOOP (Linux, macOS), EMLINK (FreeBSD).
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)
DIGEST_BYTES = 32  # sha256: the fastest hash here (1 GB/s), and hashlib lets go of the GIL
_CHUNK = 1 << 20
DAMAGED = "is damaged (its checksum does not match)"


def say_ignored(path: Path, reason: str) -> None:
    """Say once that the cache file at ``path`` is not used, and why ("is …")."""
    _log.warning("cache file %s %s; ignored and made again", path, reason)


def open_cache(path: Path, limit: int) -> int | None:
    """A read-only descriptor on the cache file at ``path`` (``files.open_regular_file``,
    links refused), or None: none there, or it is refused and said so. The caller closes
    the descriptor."""
    try:
        return open_regular_file(path, limit, links=False)
    except OSError as exc:
        _said_refused(path, exc, limit)
        return None


def read_cache(path: Path, limit: int) -> bytes | None:
    """The bytes of the cache file at ``path``, at most ``limit`` of them (see
    ``open_cache``); None when there are none, or it is refused (said)."""
    try:
        return read_regular_file(path, limit, links=False)
    except OSError as exc:
        _said_refused(path, exc, limit)
        return None


def _said_refused(path: Path, exc: OSError, limit: int) -> None:
    """Say why the cache file at ``path`` is not read (nothing, when there is none)."""
    if isinstance(exc, FileNotFoundError):
        return
    if isinstance(exc, RefusedFile):
        if exc.errno == errno.EFBIG:
            say_ignored(path, f"is too large ({exc.st.st_size} bytes, at most {limit})")
        else:
            say_ignored(path, "is not a regular file")
    elif exc.errno in _LINK_ERRORS and os.path.islink(path):
        say_ignored(path, "is a symbolic link")
    else:
        say_ignored(path, f"cannot be read ({exc.strerror or exc})")


def digest_of_file(path: Path, fd: int, limit: int) -> bytes | None:
    """The sha256 of the file open as ``fd`` (at most ``limit`` bytes, read from its first),
    for a cache parsed from the file rather than from memory; None when it cannot be read
    or holds more (said)."""
    digest = hashlib.sha256()
    offset = 0
    try:
        while offset <= limit and (chunk := os.pread(fd, min(_CHUNK, limit + 1 - offset), offset)):
            digest.update(chunk)
            offset += len(chunk)
    except OSError as exc:
        say_ignored(path, f"cannot be read ({exc.strerror or exc})")
        return None
    if offset > limit:
        say_ignored(path, f"is too large (over {limit} bytes)")
        return None
    return digest.digest()


def seal(magic: bytes, payload: bytes) -> bytes:
    """A cache file's bytes: ``magic`` (the cache's name and format version, one line),
    the payload, and the payload's sha256."""
    return magic + payload + hashlib.sha256(payload).digest()


def unseal(path: Path, magic: bytes, data: bytes) -> memoryview | None:
    """The payload ``seal`` put in ``data``, or None: another cache or format (no word on
    it: an update of Librarian does this) or a payload its checksum does not match (said)."""
    if not data.startswith(magic):
        return None
    view = memoryview(data)
    payload = view[len(magic) : len(view) - DIGEST_BYTES]
    if len(view) < len(magic) + DIGEST_BYTES or (
        hashlib.sha256(payload).digest() != view[len(view) - DIGEST_BYTES :]
    ):
        say_ignored(path, DAMAGED)
        return None
    return payload


def read_sealed(path: Path, magic: bytes, limit: int) -> memoryview | None:
    """The payload of the sealed cache file at ``path`` (``read_cache``, then ``unseal``)."""
    data = read_cache(path, limit)
    return None if data is None else unseal(path, magic, data)


def write_sealed(path: Path, magic: bytes, payload: bytes) -> bool:
    """Write ``payload`` sealed (``seal``) to the cache file at ``path``, atomically, its
    folder made first; False (said in the log) when it cannot be written: a cache is a
    convenience, what it would keep was made all the same."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, seal(magic, payload))
    except OSError as exc:
        _log.warning("cache file %s could not be written: %s", path, exc)
        return False
    return True
