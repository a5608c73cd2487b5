"""Finding the vault's files (ignore rules, symlinks) and reading one note safely."""

from __future__ import annotations

import errno
import os
import stat as _stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .model import FileStamp, ScanWarning

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".librarianignore"
MAX_NOTE_BYTES = 16_000_000  # larger notes are listed but not parsed (DESIGN §9)
_BINARY_SNIFF = 8192


def is_note_name(name: str) -> bool:
    return name.lower().endswith(".md")


def is_temp_name(name: str) -> bool:
    """Editors' and agents' temporary files are neither notes nor attachments."""
    return name.startswith((".", "~$")) or name.endswith(("~", ".tmp", ".swp"))


class IgnoreRules:
    """Dot-entries, ``.librarianignore`` (gitignore syntax) and folders excluded in the app."""

    def __init__(self, root: Path, excluded: Iterable[str] = ()) -> None:
        lines: list[str] = []
        self.warnings: list[ScanWarning] = []
        ignore_file = root / IGNORE_FILE
        try:
            raw = ignore_file.read_bytes()
        except FileNotFoundError:
            raw = b""
        except OSError as exc:
            raw = b""
            self.warnings.append(
                ScanWarning(IGNORE_FILE, "unreadable", f"could not be read ({exc.strerror})")
            )
        if raw:
            lines.extend(raw.decode("utf-8", errors="replace").splitlines())
        for folder in excluded:
            folder = folder.strip().strip("/")
            if folder:
                lines.append(f"/{folder}/")
        self._spec: GitIgnoreSpec | None = None
        if lines:
            import pathspec  # only for vaults with ignore rules: parse workers never need it

            self._spec = pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """``rel`` is a vault-relative POSIX path."""
        if any(part.startswith(".") for part in rel.split("/")):
            return True
        if self._spec is None:
            return False
        return self._spec.match_file(rel + "/" if is_dir else rel)


@dataclass
class WalkResult:
    notes: dict[str, FileStamp] = field(default_factory=dict)
    attachments: dict[str, FileStamp] = field(default_factory=dict)
    warnings: list[ScanWarning] = field(default_factory=list)


def stamp_of(st: os.stat_result) -> FileStamp:
    return FileStamp(st.st_size, st.st_mtime_ns, st.st_ino)


def walk_vault(
    root: Path,
    rules: IgnoreRules,
    start: str = "",
    *,
    on_many: tuple[int, Callable[[], object]] | None = None,
) -> WalkResult:
    """List notes and attachments under ``root`` (or its sub-folder ``start``).

    Symlinked folders are followed once; a folder reached again through a link (a loop, or
    two links to one place) is reported and skipped. ``on_many`` = (n, call): ``call()``
    runs once, as soon as n notes are found (to start parse workers early).
    """
    many_at, on_many_call = on_many if on_many is not None else (-1, None)
    result = WalkResult()
    result.warnings.extend(rules.warnings if not start else ())
    top = root / start if start else root
    try:
        top_st = top.stat()
    except OSError as exc:
        result.warnings.append(ScanWarning(start or ".", "unreadable", _os_reason(exc)))
        return result
    seen: set[tuple[int, int]] = {(top_st.st_dev, top_st.st_ino)}
    stack: list[tuple[Path, str]] = [(top, start)]
    while stack:
        folder, rel_folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            result.warnings.append(
                ScanWarning(rel_folder or ".", "unreadable", f"folder {_os_reason(exc)}")
            )
            continue
        for entry in entries:
            name = entry.name
            rel = f"{rel_folder}/{name}" if rel_folder else name
            if name.startswith("."):
                continue
            try:
                st = entry.stat()  # follows symlinks
            except OSError as exc:
                if entry.is_symlink():
                    result.warnings.append(
                        ScanWarning(rel, "broken-link", "symbolic link to nothing; skipped")
                    )
                else:
                    result.warnings.append(ScanWarning(rel, "vanished", _os_reason(exc)))
                continue
            if _stat.S_ISDIR(st.st_mode):
                if rules.ignored(rel, True):
                    continue
                key = (st.st_dev, st.st_ino)
                if key in seen:
                    result.warnings.append(
                        ScanWarning(
                            rel,
                            "symlink-loop",
                            "folder link points to a folder already indexed (a loop); skipped",
                        )
                    )
                    continue
                seen.add(key)
                if is_note_name(name):
                    result.warnings.append(
                        ScanWarning(
                            rel, "not-a-file", "a folder named like a note; read as a folder"
                        )
                    )
                stack.append((Path(entry.path), rel))
                continue
            if rules.ignored(rel, False) or is_temp_name(name):
                continue
            if not _stat.S_ISREG(st.st_mode):
                result.warnings.append(
                    ScanWarning(rel, "not-a-file", "not a regular file (a pipe or device); skipped")
                )
                continue
            if is_note_name(name):
                result.notes[rel] = stamp_of(st)
                if len(result.notes) == many_at and on_many_call is not None:
                    on_many_call()
            else:
                result.attachments[rel] = stamp_of(st)
    return result


@dataclass(frozen=True, slots=True)
class ReadResult:
    text: str | None  # None: not parseable (binary, too large, unreadable)
    stamp: FileStamp | None  # None: the file is gone or is no longer a regular file
    lossy: bool
    warning: ScanWarning | None


def read_note(root: Path, rel: str) -> ReadResult:
    """Read a note without ever blocking on a pipe or failing the scan."""
    path = f"{root}/{rel}"  # not pathlib: this runs once per note on every scan
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return ReadResult(None, None, False, ScanWarning(rel, "vanished", "vanished while reading"))
    except OSError as exc:
        return _unreadable(path, rel, exc)
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            return ReadResult(
                None,
                None,
                False,
                ScanWarning(rel, "not-a-file", "not a regular file (a pipe or device); skipped"),
            )
        stamp = stamp_of(st)
        if st.st_size > MAX_NOTE_BYTES:
            return ReadResult(
                None,
                stamp,
                False,
                ScanWarning(
                    rel,
                    "too-large",
                    f"too large to index ({st.st_size / 1e6:.1f} MB, limit "
                    f"{MAX_NOTE_BYTES / 1e6:.0f} MB); listed, links not read",
                ),
            )
        data = _read_all(fd, st.st_size)
    except OSError as exc:
        return _unreadable(path, rel, exc)
    finally:
        os.close(fd)
    return decode_note(rel, data, stamp)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


def _read_all(fd: int, size_hint: int) -> bytes:
    """Read to the end; one system call for a file whose size did not change."""
    data = os.read(fd, size_hint + 1)
    if len(data) <= size_hint:
        more = os.read(fd, 65536)
        if not more:
            return data
        parts = [data, more]
    else:
        parts = [data]
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def decode_note(rel: str, data: bytes, stamp: FileStamp) -> ReadResult:
    if b"\x00" in data[:_BINARY_SNIFF]:
        return ReadResult(
            None,
            stamp,
            False,
            ScanWarning(rel, "binary", "binary content in a .md file; listed, not parsed"),
        )
    try:
        return ReadResult(data.decode("utf-8"), stamp, False, None)
    except UnicodeDecodeError as exc:
        return ReadResult(
            data.decode("utf-8", errors="replace"),
            stamp,
            True,
            ScanWarning(
                rel,
                "encoding",
                f"not valid UTF-8 (first bad byte at offset {exc.start}); read with "
                "replacement characters and never written back",
            ),
        )


def _unreadable(path: str, rel: str, exc: OSError) -> ReadResult:
    try:
        stamp = stamp_of(os.stat(path))
    except OSError:
        return ReadResult(None, None, False, ScanWarning(rel, "vanished", "vanished while reading"))
    return ReadResult(None, stamp, False, ScanWarning(rel, "unreadable", _os_reason(exc)))


def _os_reason(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot be read: permission denied"
    if exc.errno == errno.ENOENT:
        return "vanished while reading"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    return f"cannot be read: {exc.strerror or exc}"


def classify_file(root: Path, rules: IgnoreRules, rel: str) -> tuple[str, FileStamp] | None:
    """Classify one path as the full walk would: ("note" | "attachment", stamp), or None
    when it is gone, ignored, or not a regular file."""
    name = rel.rsplit("/", 1)[-1]
    if rules.ignored(rel, False) or is_temp_name(name):
        return None
    try:
        st = os.stat(root / rel)
    except OSError:
        return None
    if not _stat.S_ISREG(st.st_mode):
        return None
    return ("note" if is_note_name(name) else "attachment", stamp_of(st))
