"""Which processes hold a file open for writing, read from Linux's ``/proc`` (empty elsewhere)."""

from __future__ import annotations

import os
from collections.abc import Collection

FileKey = tuple[int, int]  # (st_dev, st_ino)
_PROC = "/proc"


def supported() -> bool:
    return os.path.isdir(f"{_PROC}/self/fd")


def writers_of(folders: Collection[str], keys: Collection[FileKey]) -> dict[FileKey, list[int]]:
    """The processes (pids) that hold one of the files ``keys`` open for writing.

    Only descriptors whose path lies in one of ``folders`` (real paths) are looked at, by
    ``readlink``, so no file system outside them is touched (a descriptor on a hung
    network mount must not hang Librarian). Processes of other users are invisible unless
    Librarian runs as root, and a file reached through a hard link from another folder is
    not seen: the caller treats an empty answer as "nobody seen", never as a proof.
    """
    found: dict[FileKey, list[int]] = {}
    if not keys or not supported():
        return found
    wanted = set(keys)
    prefixes = tuple(folder.rstrip("/") + "/" for folder in folders)
    try:
        pids = [name for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        fd_dir = f"{_PROC}/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # gone, or another user's
            continue
        for fd in fds:
            try:
                where = os.readlink(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if not where.startswith(prefixes):
                continue
            try:
                st = os.stat(f"{fd_dir}/{fd}")
            except OSError:
                continue
            key = (st.st_dev, st.st_ino)
            if key in wanted and _writable(pid, fd):
                found.setdefault(key, []).append(int(pid))
    return found


def _writable(pid: str, fd: str) -> bool:
    try:
        with open(f"{_PROC}/{pid}/fdinfo/{fd}", "rb") as info:
            for line in info:
                if line.startswith(b"flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    except (OSError, ValueError, IndexError):
        return False
    return False


def describe(pid: int) -> str:
    """``pid 123 (python3)``: a process as a user can recognise it."""
    try:
        with open(f"{_PROC}/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            name = comm.read().strip()
    except OSError:
        name = ""
    return f"pid {pid} ({name})" if name else f"pid {pid}"
