"""The one way Librarian writes a user's file: snapshot, re-check, atomic replace."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import stat as _stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

UTF8_BOM = b"\xef\xbb\xbf"
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO named x.md must not block
_BINARY_SNIFF = 8192  # as the scanner: a NUL in the first 8 KB means binary


class WriteRefused(Exception):
    """Librarian will not write this file; ``str()`` is a message for the user."""

    def __init__(self, rel: str, reason: str) -> None:
        super().__init__(f"{rel}: {reason}")
        self.rel = rel
        self.reason = reason


class FileChanged(WriteRefused):
    """The file is no longer what was read (edited, replaced or deleted): nothing written.

    ``current_digest`` is the sha256 of what is on disk now, None when the file is gone.
    """

    def __init__(self, rel: str, reason: str, current_digest: str | None = None) -> None:
        super().__init__(rel, reason)
        self.current_digest = current_digest


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A note exactly as read, to be edited and written back.

    Make edits on ``text``: it keeps the line endings as on disk (``\\r\\n`` stays
    ``\\r\\n``), so offsets into it are offsets a writer can splice at; only the BOM is left
    out, and ``encode_like`` puts it back. ``newline`` is the file's dominant line ending,
    for a writer that inserts whole lines.
    """

    rel: str
    data: bytes
    digest: str
    text: str
    bom: bool
    newline: str


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_snapshot(root: Path, rel: str) -> Snapshot:
    """Read ``rel`` for editing; raise ``WriteRefused`` when it must not be edited:
    missing, not a regular file, outside the vault, binary, or not valid UTF-8 (writing
    back text decoded with replacement characters would destroy bytes)."""
    target = _real_path(root, rel)
    data, _mode = _read_current(target, rel)
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise WriteRefused(rel, "holds binary content, so Librarian does not edit it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WriteRefused(
            rel,
            f"is not valid UTF-8 (first bad byte at offset {exc.start}); Librarian does not "
            "edit it, so no byte of it is lost. Convert it to UTF-8 to edit it here.",
        ) from None
    bom = data.startswith(UTF8_BOM)
    if bom:
        text = text[1:]
    newline = "\n"
    if b"\r" in data:  # counting costs more than the search, and most notes have no CR
        crlf = data.count(b"\r\n")
        newline = "\r\n" if crlf > data.count(b"\n") - crlf else "\n"
    return Snapshot(rel, data, digest_of(data), text, bom, newline)


def encode_like(snapshot: Snapshot, new_text: str) -> bytes:
    """``new_text`` (an edit of ``snapshot.text``) as the bytes to write: UTF-8, with the
    BOM if the file had one. Line endings are the caller's: edit ``snapshot.text``, which
    keeps the file's own, and they stay as they were."""
    data = new_text.encode("utf-8")
    return UTF8_BOM + data if snapshot.bom else data


def replace_file(root: Path, rel: str, new_data: bytes, expected_digest: str) -> None:
    """Replace the note ``rel`` by ``new_data`` if it still hashes to ``expected_digest``.

    Raises ``FileChanged`` (nothing written) when it does not, and ``WriteRefused`` when the
    file cannot be written; in every case the file is left as it was and no temporary file
    is left behind. A symlinked note has its target replaced (the link stays a link); a
    target outside the vault is refused.
    """
    target = _real_path(root, rel)
    current, mode = _read_current(target, rel)
    now = digest_of(current)
    if now != expected_digest:
        raise FileChanged(
            rel,
            "changed on disk since Librarian read it; nothing was written. "
            "Look at the note again and retry.",
            now,
        )
    try:
        _atomic_replace(target, new_data, mode)
    except OSError as exc:
        raise WriteRefused(
            rel, f"could not be written ({exc.strerror or exc}); the note is unchanged"
        ) from exc


def atomic_write(path: Path, data: bytes) -> None:
    """Write one of Librarian's own files (the journal) atomically, new or not. A new file
    is private (0600): the journal holds copies of the user's notes."""
    try:
        mode: int | None = _stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    _atomic_replace(path, data, mode)


def _atomic_replace(target: str | Path, data: bytes, mode: int | None) -> None:
    """TRAPS "Writing the user's files": a temporary dot-file in the same folder (so the
    rename is atomic and the watcher does not take it for a note), the original's mode
    (mkstemp makes 0600), fsync, rename over, fsync the folder."""
    folder = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=".librarian-", suffix=".tmp", dir=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: str | Path) -> None:
    # The rename is done; some file systems cannot fsync a folder (EINVAL), and failing
    # here would report a write that did happen as failed.
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _checked_parts(rel: str) -> tuple[str, ...]:
    """The parts of a vault-relative POSIX path that cannot name anything outside the vault."""
    parts = tuple(rel.split("/"))
    if not rel or "" in parts or ".." in parts:
        raise WriteRefused(rel or "(empty path)", "is not a path inside the vault; refused")
    # Only a path with a backslash or a colon can hold a Windows drive or "a\\..\\x"
    # (which climbs out on Windows); pathlib's parsing costs more than the read of a note.
    if ("\\" in rel or ":" in rel) and (
        PurePosixPath(rel).is_absolute()
        or PureWindowsPath(rel).drive
        or ".." in PureWindowsPath(rel).parts
    ):
        raise WriteRefused(rel, "is not a path inside the vault; refused")
    return parts


def _real_path(root: Path, rel: str) -> str:
    """Where the bytes of ``rel`` live, every symlink resolved (of the note and of its
    folders); refused when that is outside the vault, even though the scan reads such a
    note through a linked folder: Librarian writes nothing outside the vault (DESIGN §9)."""
    parts = _checked_parts(rel)
    real_root = _resolved_root(os.fspath(root))
    # Fast path: no symlink on the way down from the (resolved) vault folder, so the path
    # is its own real path; one lstat per component instead of resolving from "/".
    current = real_root
    for part in parts:
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            raise FileChanged(rel, "no longer exists") from None
        except OSError:
            break
        if _stat.S_ISLNK(st.st_mode):
            break
    else:
        return current
    path = Path(root, *parts)
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise FileChanged(rel, "no longer exists") from None
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        raise WriteRefused(rel, "is a symbolic link loop; refused") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WriteRefused(rel, "is a symbolic link loop; refused") from None
        raise WriteRefused(rel, f"cannot be reached ({exc.strerror or exc})") from None
    if not real.is_relative_to(real_root):
        raise WriteRefused(
            rel,
            f"is, through a symbolic link, the file {real} outside the vault; Librarian "
            "writes only inside the vault",
        )
    return os.fspath(real)


@functools.lru_cache(maxsize=16)
def _resolved_root(root: str) -> str:
    return os.fspath(Path(root).resolve())


def _read_current(target: str, rel: str) -> tuple[bytes, int]:
    """The file's bytes and permission bits, never blocking on a pipe."""
    try:
        fd = os.open(target, _READ_FLAGS)
    except FileNotFoundError:
        raise FileChanged(rel, "no longer exists") from None
    except OSError as exc:
        raise WriteRefused(rel, f"cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise WriteRefused(rel, "is not a regular file (a folder, pipe or device); refused")
        parts = []
        while chunk := os.read(fd, max(st.st_size + 1, 65536)):
            parts.append(chunk)
    except OSError as exc:
        raise WriteRefused(rel, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    return b"".join(parts), _stat.S_IMODE(st.st_mode)
