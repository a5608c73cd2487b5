"""The one way Librarian writes a user's file: snapshot, re-check, swap in, watch, settle."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import stat as _stat
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from . import openfiles
from .place import (
    FileChanged,
    FileGone,
    LinkRule,
    Place,
    WriteRefused,
    open_direct,
    open_place,
    refuse_read_only,
    why,
)

__all__ = ["FileChanged", "FileGone", "WriteRefused"]  # raised here, defined with the walk

UTF8_BOM = b"\xef\xbb\xbf"
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO named x.md must not block
_BINARY_SNIFF = 8192  # as the scanner: a NUL in the first 8 KB means binary
# How long a displaced note is watched after a swap: a program that opened the note just
# before it must have written by then (``settle``).
GRACE = 0.02
TEMP_PREFIX = ".librarian-"  # every temporary file Librarian makes in a vault: the scan
TEMP_SUFFIX = ".tmp"  # reports one left by a crash, and ``scan --repair`` removes it
RECOVERED_DIR = ".librarian/recovered"  # bytes a write could not put back are kept here


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


def read_snapshot(root: Path, rel: str, *, links: LinkRule = "follow") -> Snapshot:
    """Read ``rel`` for editing; raise ``WriteRefused`` when it must not be edited:
    missing, not a regular file, outside the vault, binary, or not valid UTF-8 (writing
    back text decoded with replacement characters would destroy bytes). ``links``: how a
    symbolic link on the way is met (``place.open_place``)."""
    direct = open_direct(root, rel)
    if direct is not None:
        fd, st = direct
        try:
            data = _read_fd(fd, rel, st.st_size)
        finally:
            os.close(fd)
    else:
        with open_place(root, rel, links=links) as place:
            fd = place.open_regular()
            try:
                data = _read_fd(fd, rel)
            finally:
                os.close(fd)
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


def replace_file(
    root: Path,
    rel: str,
    new_data: bytes,
    expected_digest: str,
    temp_name: str | None = None,
    *,
    links: LinkRule = "follow",
) -> None:
    """Replace the note ``rel`` by ``new_data`` if it still hashes to ``expected_digest``,
    and keep it only if no other program wrote to the note meanwhile (``swap_in`` then
    ``settle``).

    Raises ``FileChanged`` when the note changed, before or during the write (nothing of
    Librarian's stays written, everything of theirs is kept), and ``WriteRefused`` when it
    cannot be written; no temporary file is left behind. A symlinked note has its target
    replaced (the link stays a link); a target outside the vault is refused.
    """
    swap = swap_in(root, rel, new_data, expected_digest, temp_name, links=links)
    reason = settle([swap])[0]
    if reason is not None:
        raise FileChanged(rel, reason)


def atomic_write(path: Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write one of Librarian's own files (the journal, caches) atomically, new or not. A
    new file is private (0600): the journal holds copies of the user's notes. ``data``: the
    bytes, or a function writing them to the (seekable) file, for a large file made as it
    is written (no copy in memory first)."""
    # The mode of the file replaced, not of what a link there points to (a device, a file
    # elsewhere): the rename replaces the link itself, and the new file is private.
    try:
        st = os.lstat(path)
        mode = _stat.S_IMODE(st.st_mode) if _stat.S_ISREG(st.st_mode) else None
    except FileNotFoundError:
        mode = None
    folder = os.path.dirname(path)
    tmp = _write_temp(folder, data, mode, None)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


# ------------------------------------------------------------------ the swap

_CHANGED_DURING = "was changed by another program while Librarian was writing it"
_TAKEN_BACK = "; Librarian's change was taken back and theirs kept"
_RETRY = ". Look at the note again and retry."


class Swap:
    """A note's new version in place, the displaced file kept until ``settle`` decides.

    ``place`` holds the note's folder open: every later step goes through it. ``parked``
    names (in that folder) the displaced file, the temporary name the exchange gave it;
    where the file system cannot exchange two names it is None, and the displaced file is
    reachable only through ``old_fd``, the descriptor the check read it through.
    """

    __slots__ = (
        "at",
        "mode",
        "new_digest",
        "new_key",
        "new_size",
        "old_digest",
        "old_fd",
        "old_key",
        "parked",
        "place",
        "rel",
    )

    def __init__(
        self,
        place: Place,
        rel: str,
        old_fd: int,
        old: os.stat_result,
        old_digest: str,
        new: os.stat_result,
        new_digest: str,
        parked: str | None,
    ) -> None:
        self.place = place
        self.rel = rel
        self.old_fd = old_fd
        self.old_key = (old.st_dev, old.st_ino)
        self.old_digest = old_digest
        self.mode = _stat.S_IMODE(old.st_mode)
        self.new_key = (new.st_dev, new.st_ino)
        self.new_size = new.st_size
        self.new_digest = new_digest
        self.parked = parked
        self.at = time.monotonic()

    @property
    def root(self) -> Path:
        return self.place.root

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.old_fd)
        self.place.close()


def swap_in(
    root: Path,
    rel: str,
    new_data: bytes,
    expected_digest: str,
    temp_name: str | None = None,
    base_size: int | None = None,
    *,
    links: LinkRule = "follow",
) -> Swap:
    """Put ``new_data`` in place of the note ``rel`` if it still hashes to
    ``expected_digest``; the displaced file is kept (see ``Swap``) until ``settle``.

    ``base_size``, the length of the bytes ``expected_digest`` is of, allows the note to
    have grown since by bytes appended at its end (an agent's new line): when its first
    ``base_size`` bytes still hash to ``expected_digest``, what was appended is kept,
    after ``new_data`` — an edit of the note as it was read, with their text after it.

    POSIX has no compare-and-swap rename. On Linux the new version is *exchanged* with
    the note (``renameat2(RENAME_EXCHANGE)``), so whatever the swap displaced — the file
    that was read, or one another program moved there a moment before — stays reachable
    and is checked: if it is not the file read, unchanged, it is swapped back at once and
    ``FileChanged`` raised. ``temp_name`` names the temporary file (a name the journal can
    find again after a crash); by default a random ``.librarian-*.tmp``. The note's folder
    is opened once (``place.open_place``, ``links``) and every step goes through it.
    """
    place = open_place(root, rel, links=links)
    try:
        old_fd = place.open_regular()
    except BaseException:
        place.close()
        raise
    try:
        old = os.fstat(old_fd)
        refuse_read_only(old, rel)
        current = _read_fd(old_fd, rel)
        now = digest_of(current)
        if now != expected_digest:
            if (
                base_size is not None
                and len(current) > base_size
                and digest_of(current[:base_size]) == expected_digest
            ):
                new_data += current[base_size:]
            else:
                raise FileChanged(
                    rel,
                    "changed on disk since Librarian read it; nothing was written. "
                    "Look at the note again and retry.",
                    now,
                )
        try:
            tmp = _write_temp(place, new_data, _stat.S_IMODE(old.st_mode), temp_name)
        except OSError as exc:
            raise _unwritable(rel, exc) from exc
        new = os.stat(tmp, dir_fd=place.fd, follow_symlinks=False)
        try:
            exchanged = _exchange(place.fd, tmp, place.name)
            if not exchanged:
                if _key_or_none(place, place.name) != (old.st_dev, old.st_ino):
                    raise FileChanged(rel, "was replaced by another program; nothing was written")
                place.replace(tmp, place.name)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                place.unlink(tmp)
            if isinstance(exc, OSError):
                raise _unwritable(rel, exc) from exc
            raise
        swap = Swap(
            place, rel, old_fd, old, now, new, digest_of(new_data), tmp if exchanged else None
        )
        if swap.parked is not None and _key_or_none(place, swap.parked) != swap.old_key:
            problem = "was replaced by another program while Librarian was writing it"
        elif _digest_fd(old_fd) != now:
            problem = _CHANGED_DURING
        else:
            return swap
        extra = _take_back(swap)
        raise FileChanged(rel, f"{problem}{_TAKEN_BACK}{extra}{_RETRY}")
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(old_fd)
        place.close()
        raise


def settle(swaps: Sequence[Swap], grace: float | None = None) -> list[str | None]:
    """Keep each swapped-in version, or take it back: per swap, None (kept, the displaced
    file removed) or why it was taken back.

    A program that opened the note just before the swap writes into the displaced file.
    So this waits until ``grace`` seconds (``GRACE``) have passed since the newest swap,
    then takes a version back when its displaced file changed since it was read, or when
    another process still holds it open for writing (Linux: ``/proc``). Taking back swaps
    the displaced file in again, with everything written to it; should a program have
    appended to Librarian's version meanwhile, that text is appended after it.
    """
    if not swaps:
        return []
    wait = max(s.at for s in swaps) + (GRACE if grace is None else grace) - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    folders = {s.place.folder for s in swaps}
    held = openfiles.writers_of(folders, [s.old_key for s in swaps])
    outcomes: list[str | None] = []
    synced: set[str] = set()
    for swap in swaps:
        try:
            holders = held.get(swap.old_key)
            if holders:
                who = ", ".join(openfiles.describe(pid) for pid in holders)
                extra = _take_back(swap)
                outcomes.append(
                    f"is open for writing in another program ({who}){_TAKEN_BACK}, so nothing "
                    f"it writes is lost{extra}{_RETRY}"
                )
            elif _digest_fd(swap.old_fd) != swap.old_digest:
                outcomes.append(f"{_CHANGED_DURING}{_TAKEN_BACK}{_take_back(swap)}{_RETRY}")
            else:
                if swap.parked is not None and _key_or_none(swap.place, swap.parked) == (
                    swap.old_key
                ):
                    swap.place.unlink(swap.parked)
                outcomes.append(None)
            if swap.place.folder not in synced:  # one flush per folder, not per note
                swap.place.sync()
                synced.add(swap.place.folder)
        finally:
            swap.close()
    return outcomes


def _take_back(swap: Swap) -> str:
    """Put the displaced file back in place of Librarian's version; '' or a sentence
    (starting "; ") about what else had to be done so that nothing is lost."""
    place = swap.place
    ours_fd = -1
    with contextlib.suppress(OSError):
        ours_fd = os.open(place.name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=place.fd)
        if _key(os.fstat(ours_fd)) != swap.new_key:
            os.close(ours_fd)
            ours_fd = -1
    if ours_fd < 0:
        # A third version is in place already: it stays, and the displaced one is kept.
        if swap.parked is not None:
            displaced = os.open(swap.parked, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=place.fd)
            try:
                kept = _recover(swap, _read_fd(displaced, swap.rel))
            finally:
                os.close(displaced)
            place.unlink(swap.parked)
        else:
            kept = _recover(swap, _read_fd(swap.old_fd, swap.rel))
        return (
            "; another version replaced it meanwhile and stays; the displaced one is kept "
            f"as {kept}"
        )
    try:
        if swap.parked is not None and _exchange(place.fd, swap.parked, place.name):
            leftover: str | None = swap.parked  # now Librarian's version
        else:
            # No exchange here: the displaced file's bytes are copied back in its place.
            tmp = _write_temp(place, _read_fd(swap.old_fd, swap.rel), swap.mode, None)
            place.replace(tmp, place.name)
            leftover = swap.parked
        place.sync()
        # A program that opened the note while Librarian's version was in place writes into
        # that version: wait until nobody holds it open for writing before reading it.
        holders = _wait_for_writers(place.folder, swap.new_key)
        mine = _read_fd(ours_fd, swap.rel)
    finally:
        os.close(ours_fd)
    extra = ""
    if len(mine) > swap.new_size and digest_of(mine[: swap.new_size]) == swap.new_digest:
        # Appended to Librarian's version while it was in place: it goes after theirs.
        _append(place, mine[swap.new_size :])
    elif digest_of(mine) != swap.new_digest:
        kept = _recover(swap, mine)
        extra = f"; what was written to Librarian's version meanwhile is kept as {kept}"
    if holders and leftover is not None:
        # Still open in a program after a second: what it writes from now on lands in this
        # file, so it is kept (moved, not copied) rather than removed.
        who = ", ".join(openfiles.describe(pid) for pid in holders)
        kept = _recover(swap, b"")
        try:
            os.replace(leftover, Path(swap.root, kept), src_dir_fd=place.fd)
        except OSError:  # another file system: it stays where it is, for the scan to report
            os.unlink(Path(swap.root, kept))
            kept = f"{place.rel.rpartition('/')[0]}/{leftover}".lstrip("/")
        return f"{extra}; Librarian's version is still open in {who}, and is kept as {kept}"
    if leftover is not None:
        with contextlib.suppress(FileNotFoundError):
            place.unlink(leftover)
    return extra


def _wait_for_writers(folder: str, key: tuple[int, int], patience: float = 1.0) -> list[int]:
    """Wait (``GRACE``, then up to ``patience`` seconds) until no process holds the file
    ``key`` open for writing; the pids that still do."""
    deadline = time.monotonic() + patience
    while True:
        time.sleep(GRACE)
        holders = openfiles.writers_of([folder], [key]).get(key, [])
        if not holders or time.monotonic() >= deadline:
            return holders


def _recover(swap: Swap, data: bytes) -> str:
    return keep_recovered(swap.root, swap.rel, data)


def keep_recovered(root: Path, rel: str, data: bytes) -> str:
    """Keep bytes that must not be lost, and that belong nowhere now, in
    ``.librarian/recovered/`` (named by the time and ``rel``); their vault path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = rel.replace("/", "__")
    folder = Path(root, RECOVERED_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    for n in itertools.count():
        kept = f"{RECOVERED_DIR}/{stamp}-{n}-{name}"
        try:
            write_new(Path(root, kept), data)
        except FileExistsError:
            continue
        _fsync_folder(folder)
        return kept
    raise AssertionError("unreachable")


def write_new(path: Path, data: bytes) -> None:
    """A new private file (0600) of Librarian's, written once and durably; it must not
    exist yet (``FileExistsError``). Half-written (a full disk), it is removed again."""
    _write_exclusive(path, data, 0o600, None)


def _write_exclusive(name: str | Path, data: bytes, mode: int, dir_fd: int | None) -> None:
    """Create ``name`` (in the open folder ``dir_fd``), which must not exist, holding
    ``data``, fsynced; removed again when it could not be written whole (a full disk)."""
    fd = os.open(name, _NEW_FLAGS, mode, dir_fd=dir_fd)
    _fill(fd, name, dir_fd, data, None)


_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _fill(
    fd: int,
    name: str | Path,
    dir_fd: int | None,
    data: bytes | Callable[[BinaryIO], None],
    mode: int | None,
) -> None:
    """Write ``data`` to the new file open as ``fd`` (named ``name``), give it ``mode``,
    fsync and close it; removed again when it could not be written whole (a full disk)."""
    try:
        try:
            if callable(data):
                with os.fdopen(fd, "wb", closefd=False) as fh:
                    data(fh)
            else:
                _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise


NEW_FILE_MODE = 0o644  # a file of the user's, as cp makes one (not umask: it is per process)


def create_file(path: Path, data: bytes) -> None:
    """A new file of the user's (a starter dictionary copied into the vault), which never
    replaces one: ``FileExistsError`` when ``path`` exists, even if it appeared a moment
    ago. The folder is ``path``'s own; a note an agent creates goes through ``create_in``."""
    folder = os.path.dirname(path) or "."
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    place = Place(Path(folder), os.path.basename(path), fd, os.path.realpath(folder))
    with place:
        create_in(place, data, None)


def create_in(place: Place, data: bytes, temp_name: str | None) -> None:
    """Make ``place``'s file, which must not exist (``FileExistsError``, even if it
    appeared a moment ago), appearing whole: the bytes go to a temporary dot-file beside it
    (``temp_name``), fsynced, which is then hard-linked to its name — a link, unlike a
    rename, fails on an existing name. Where the file system has no hard links, the name
    is opened exclusive and written."""
    tmp = _write_temp(place, data, NEW_FILE_MODE, temp_name)
    try:
        place.link(tmp, place.name)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        _write_exclusive(place.name, data, NEW_FILE_MODE, place.fd)
    finally:
        with contextlib.suppress(OSError):
            place.unlink(tmp)
    place.sync()


def exchange_in(place: Place, a: str, b: str) -> bool:
    """Swap the files named ``a`` and ``b`` of ``place``'s folder atomically; False where
    this system or file system cannot."""
    return _exchange(place.fd, a, b)


def _append(place: Place, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(place.name, flags, dir_fd=place.fd)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(
    folder: Place | str | Path,
    data: bytes | Callable[[BinaryIO], None],
    mode: int | None,
    name: str | None,
) -> str:
    """A new temporary dot-file in ``folder`` (the same folder, so the rename is atomic; a
    dot-name, which the watcher ignores) holding ``data``, fsynced, with ``mode`` (mkstemp
    makes 0600); its name (in the folder, for a ``Place``; its path otherwise). ``name``
    (``.librarian-….tmp``) is taken, or ``…-1.tmp`` and so on when a file of that name
    exists. A temporary file that cannot be written whole (a full disk) is removed."""
    if isinstance(folder, Place):
        dir_fd: int | None = folder.fd
        stem = (name or f"{TEMP_PREFIX}{os.urandom(6).hex()}{TEMP_SUFFIX}").removesuffix(
            TEMP_SUFFIX
        )
        base = stem + TEMP_SUFFIX
    elif name is None:
        dir_fd = None
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    else:
        dir_fd = None
        stem = os.path.join(folder, name.removesuffix(TEMP_SUFFIX))
        base = stem + TEMP_SUFFIX
    if dir_fd is not None or name is not None:
        for n in itertools.count():
            tmp = f"{stem}-{n}{TEMP_SUFFIX}" if n else base
            try:
                fd = os.open(tmp, _NEW_FLAGS, 0o600, dir_fd=dir_fd)
                break
            except FileExistsError:
                continue
    _fill(fd, tmp, dir_fd, data, mode)
    return tmp


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _unwritable(rel: str, exc: OSError) -> WriteRefused:
    return WriteRefused(rel, f"could not be written ({why(exc)}); the note is unchanged")


def _key(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _key_or_none(place: Place, name: str) -> tuple[int, int] | None:
    try:
        return _key(os.stat(name, dir_fd=place.fd, follow_symlinks=False))
    except OSError:
        return None


_RENAME_EXCHANGE = 2
_renameat2: Any = None  # libc's renameat2, loaded on the first write; False: not available


def _exchange(folder_fd: int, a: str, b: str) -> bool:
    """Swap the files named ``a`` and ``b`` in the open folder ``folder_fd`` atomically;
    False where the system or the file system cannot (the caller falls back to a rename)."""
    global _renameat2
    if _renameat2 is None:
        _renameat2 = _load_renameat2()
    if _renameat2 is False:
        return False
    if _renameat2(folder_fd, os.fsencode(a), folder_fd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes  # loaded with renameat2 already

    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False  # this file system cannot (e.g. some network ones)
    raise OSError(err, os.strerror(err), a)


def _load_renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only here: 5 ms at start-up for every command that never writes

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28
        return False
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function


def _fsync_folder(folder: str | Path) -> None:
    # The rename is done; some file systems cannot fsync a folder (EINVAL), and failing
    # here would report a write that did happen as failed.
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _read_fd(fd: int, rel: str, size: int | None = None) -> bytes:
    """Everything the descriptor's file holds now, from its first byte, read until a read
    returns nothing (a short read alone does not prove the end on every file system).
    ``size``: the file's size by an ``fstat`` the caller just made, else one is made."""
    parts = []
    offset = 0
    try:
        if size is None:
            size = os.fstat(fd).st_size
        while chunk := os.pread(fd, max(size + 1 - offset, 65536), offset):
            parts.append(chunk)
            offset += len(chunk)
    except OSError as exc:
        raise WriteRefused(rel, f"cannot be read ({exc.strerror or exc})") from None
    return b"".join(parts)


def _digest_fd(fd: int) -> str | None:
    try:
        return digest_of(_read_fd(fd, ""))
    except WriteRefused:
        return None
