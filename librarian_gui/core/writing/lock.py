"""The one lock of a vault's writers (``.librarian/lock``): window, command line, MCP server.

A process holds the vault lock while it writes the vault's notes through the journal, so
two of Librarian's writers never write one vault at the same time. Between processes it is
``fcntl.flock`` on ``.librarian/lock`` (released by the kernel when a process dies, so a
crash never leaves the vault locked); within one process, threads take turns on a lock of
their own, and a thread that holds it may take it again. A writer that finds the vault
locked waits up to ``wait`` seconds, then fails with ``VaultBusy``, naming the holder.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .safewrite import WriteRefused

LOCK_FILE = ".librarian/lock"
WAIT = 5.0  # seconds a writer waits for another before giving up
_POLL = 0.02


class VaultBusy(WriteRefused):
    """Another of Librarian's writers holds the vault; nothing was written."""


class _Held:
    def __init__(self) -> None:
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd = -1


_registry: dict[str, _Held] = {}
_registry_lock = threading.Lock()


def _held_for(root: Path) -> tuple[str, _Held]:
    key = os.path.realpath(root)
    with _registry_lock:
        return key, _registry.setdefault(key, _Held())


@contextlib.contextmanager
def vault_lock(root: Path, wait: float = WAIT, doing: str = "") -> Iterator[None]:
    """Hold the vault's writer lock for the ``with`` body; ``doing`` says what for (shown
    to a writer that has to wait). Raises ``VaultBusy`` after ``wait`` seconds, or
    ``WriteRefused`` when the lock file cannot be made."""
    key, held = _held_for(root)
    if not held.thread_lock.acquire(timeout=max(wait, 0.0)):
        raise VaultBusy(str(root), _busy_message(Path(key), "another task of this window"))
    try:
        if held.depth == 0:
            held.fd = _take_file_lock(Path(key), wait, doing)
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0:
                fd, held.fd = held.fd, -1
                os.close(fd)  # releases the flock
    finally:
        held.thread_lock.release()


def _take_file_lock(root: Path, wait: float, doing: str) -> int:
    import fcntl

    path = root / LOCK_FILE
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise WriteRefused(
            LOCK_FILE,
            f"the vault's write lock cannot be made ({exc.strerror or exc}); nothing was "
            f"written. {_remedy(exc)}",
        ) from None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _holder(fd)
                os.close(fd)
                raise VaultBusy(str(root), _busy_message(root, holder)) from None
            time.sleep(_POLL)
        except OSError as exc:
            os.close(fd)
            raise WriteRefused(
                LOCK_FILE, f"the vault's write lock cannot be taken ({exc.strerror or exc})"
            ) from None
    # Who holds it, for a writer that has to wait: "pid 123: librarian tag --apply".
    what = doing or " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {what}\n".encode(errors="replace"), 0)
    return fd


def _remedy(exc: OSError) -> str:
    """What the user can do about a lock that cannot be made."""
    if exc.errno == errno.EISDIR:
        return f"{LOCK_FILE} is a folder: remove it, and Librarian makes its lock file there."
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return ".librarian is a file: move it away; Librarian keeps its journal and lock there."
    if exc.errno == errno.ELOOP:
        return f"{LOCK_FILE} is a symbolic link: remove it."
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "The disk is full: free some space and retry."
    return "Make the folder .librarian in the vault writable, and retry."


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return f"another Librarian ({text})" if text else "another Librarian"


def _busy_message(root: Path, holder: str) -> str:
    return f"is being written by {holder}; nothing was written. Try again when it has finished."
