"""Where a write lands: a vault path walked down from the vault's own folder one name at a
time, so that nothing swapped in between a check and a write can take it elsewhere.

A path checked first and opened later can be raced: a folder of the vault exchanged for a
symbolic link to somewhere else (``renameat2(RENAME_EXCHANGE)`` in a loop) between the two
sends the write, its temporary file or its rename outside the vault. Here the vault's
folder is opened once, and every name below it is opened *relative to the folder above*
(``openat``) with ``O_NOFOLLOW``: a link met on the way is an error of the system call
itself, not of an earlier look. Every system call a write then makes — reading the note,
the temporary file, the exchange, the rename, the folder's fsync — goes through the open
folder (``dir_fd``), never through the path again. A folder moved after it was opened
takes the write with it, but only to where a rename inside the vault put it.

Two ways to meet a link (``links``): ``"follow"`` (the window and the command line edit a
note reached through a link inside the vault: its target is edited, as an editor does) resolves
the path first under the vault's symlink rule and then walks the *resolved* path, so a link
that appears afterwards is refused; ``"refuse"`` (an agent's write, DESIGN §9) never goes
through a link at all.
"""

from __future__ import annotations

import contextlib
import errno
import mimetypes
import os
import posixpath
import stat as _stat
import sys
import unicodedata
from pathlib import Path
from typing import Literal

from ..vault.files import IgnoreRules, follow_inside, is_note_name, real_root

LinkRule = Literal["follow", "refuse"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
# Characters that never belong in a new note's name: C0/C1 controls (a newline prints the
# name as two lines), format characters such as the right-to-left override (it shows a name
# other than the real one), line and paragraph separators, surrogates, unassigned and private
# code points. Zero-width joiners are kept: scripts and emoji need them.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_JOINERS = frozenset({"\u200c", "\u200d"})
# The file types a name can end in, from Python's own table (the same on every machine, not
# the system's /etc/mime.types): "img.png" names an image, not a note "img.png.md".
_TYPES = mimetypes.MimeTypes(strict=True)


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


class FileGone(FileChanged):
    """The file no longer exists."""

    def __init__(self, rel: str) -> None:
        super().__init__(rel, "no longer exists")


def why(exc: OSError) -> str:
    """What went wrong, said as a user would: a full disk is not "errno 28"."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EDQUOT:
        return "the disk quota is used up"
    return exc.strerror or str(exc)


_NOT_INSIDE = "is not a path inside the vault; refused"
_MOVED = (
    "was moved, or a folder on its way was replaced by a symbolic link, while Librarian "
    "was writing it; nothing was written. Retry."
)


def checked_parts(rel: str) -> tuple[str, ...]:
    """The names of a vault-relative POSIX path that cannot lead out of the vault:
    ``WriteRefused`` for an absolute path (POSIX, Windows drive or UNC), one that climbs out
    with ``..``, or one with empty or ``.`` names."""
    if not rel:
        raise WriteRefused("(empty path)", "is empty; give a vault path such as notes/idea.md")
    if rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":" and rel[0].isalpha()):
        raise WriteRefused(
            rel, "is an absolute path; give a path inside the vault, such as notes/idea.md"
        )
    parts = tuple(rel.split("/"))
    if any(part in ("", ".", "..") for part in parts) or "\\" in rel:
        raise WriteRefused(rel, _NOT_INSIDE)
    return parts


def check_new_name(rel: str) -> None:
    """Refuse what no new note should be named: control and format characters, a file
    type other than a note. The reason never repeats the name: the caller shows the name as
    the user gave it (``shown``)."""
    for char in rel:
        if unicodedata.category(char) in _BAD_CATEGORIES and char not in _JOINERS:
            raise WriteRefused(
                shown(rel), f"holds the control character U+{ord(char):04X}; a note's name cannot"
            )
    name = rel.rsplit("/", 1)[-1]
    if not is_note_name(name):
        raise WriteRefused(
            rel, "is not a note: Librarian writes only Markdown notes (a name ending in .md)"
        )
    kind, _ = _TYPES.guess_type(name[: -len(".md")], strict=False)
    if kind is not None and "markdown" not in kind:
        raise WriteRefused(
            rel, f"is a file of type {kind}, not a note; Librarian writes only Markdown notes"
        )


SHOWN_LENGTH = 80  # characters of a path shown in a message before it is cut


def shown(name: str) -> str:
    """``name`` printable on one line: control and format characters as escapes, a path of
    thousands of characters cut short."""
    if len(name) > 2 * SHOWN_LENGTH:
        name = name[:SHOWN_LENGTH] + "…"
    if all(unicodedata.category(c) not in _BAD_CATEGORIES or c in _JOINERS for c in name):
        return name
    return "".join(
        c
        if unicodedata.category(c) not in _BAD_CATEGORIES or c in _JOINERS
        else c.encode("unicode_escape").decode("ascii")
        for c in name
    )


def guard_note(rules: IgnoreRules, rel: str) -> None:
    """Refuse a note Librarian must never write: one in a hidden folder (``.git``,
    ``.obsidian``, ``.trash`` …) or a hidden file, or one the vault's ``.librarianignore``
    (or the folders the user excluded, ``rules``) leaves out. Files that are not notes (the
    concept dictionary) are not held to it."""
    parts = checked_parts(rel)
    if not is_note_name(rel):
        return
    if any(part.startswith(".") for part in parts):
        raise WriteRefused(
            rel, "is in a hidden folder or is a hidden file; Librarian never writes there"
        )
    if rules.ignored(rel, False):
        raise WriteRefused(
            rel, "is ignored (.librarianignore); Librarian never writes an ignored note"
        )


class Place:
    """An open folder of the vault and a name in it. ``rel`` is the vault path written
    (links followed, twins resolved), ``folder`` the folder's real path (for messages and
    for finding who holds a file open); every system call goes through ``fd``."""

    __slots__ = ("fd", "folder", "name", "rel", "root")

    def __init__(self, root: Path, rel: str, fd: int, folder: str) -> None:
        self.root = root
        self.rel = rel
        self.fd = fd
        self.folder = folder
        self.name = posixpath.basename(rel)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Place:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def lstat(self) -> os.stat_result | None:
        """The file as it is, not followed; None if missing."""
        try:
            return os.stat(self.name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_regular(self, flags: int = READ_FLAGS) -> int:
        """A descriptor on the note, a regular file, never blocking on a pipe and never
        through a link (``FileGone``, ``WriteRefused``)."""
        try:
            fd = os.open(self.name, flags | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=self.fd)
        except FileNotFoundError:
            raise FileGone(self.rel) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise WriteRefused(
                    self.rel,
                    "is a symbolic link; Librarian writes a note only by its own path",
                ) from None
            raise WriteRefused(self.rel, f"cannot be opened ({exc.strerror or exc})") from None
        try:
            st = os.fstat(fd)
            if not _stat.S_ISREG(st.st_mode):
                raise WriteRefused(
                    self.rel, "is not a regular file (a folder, pipe or device); refused"
                )
        except BaseException:
            os.close(fd)
            raise
        return fd

    def unlink(self, name: str) -> None:
        os.unlink(name, dir_fd=self.fd)

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def link(self, src: str, dst: str) -> None:
        os.link(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)

    def sync(self) -> None:
        # The rename is done; some file systems cannot fsync a folder (EINVAL), and failing
        # here would report a write that did happen as failed.
        with contextlib.suppress(OSError):
            os.fsync(self.fd)


def open_place(
    root: Path,
    rel: str,
    *,
    links: LinkRule,
    make_folders: bool = False,
) -> Place:
    """The folder holding ``rel`` in the vault at ``root``, open, walked without ever
    following a link (see the module's docstring for ``links``). ``make_folders`` creates
    missing folders on the way (a new note's). The note itself need not exist; a name that
    differs from one of the folder's only by case is another name here (``resolve_name``
    finds such twins first)."""
    parts = checked_parts(rel)
    root_real = real_root(root)
    walk = parts
    if links == "follow":
        real, refused = follow_inside(root_real, rel)
        if refused is not None:
            if refused.kind == "symlink-outside":
                raise WriteRefused(
                    rel,
                    f"is, through the symbolic link {refused.path}, outside the vault; "
                    "Librarian writes only inside the vault",
                )
            if refused.kind == "symlink-loop":
                raise WriteRefused(
                    rel,
                    "is a symbolic link loop, or reached through a link to the vault or a "
                    "folder above it; refused",
                )
            raise WriteRefused(rel, _NOT_INSIDE)
        assert real is not None
        walk = tuple(os.path.relpath(real, root_real).split(os.sep))
        if walk[0] == "..":
            raise WriteRefused(rel, _NOT_INSIDE)
    try:
        fd = os.open(root_real, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise WriteRefused(rel, f"the vault's folder cannot be opened ({exc.strerror})") from None
    done: list[str] = []
    folder = root_real
    try:
        for part in walk[:-1]:
            above, fd = fd, -1  # _down closes it, whatever happens
            fd = _down(above, part, rel, done, make_folders, refuse_links=links == "refuse")
            done.append(part)
            folder = os.path.join(folder, part)
        name = walk[-1]
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    return Place(Path(root_real), "/".join([*done, name]), fd, folder)


def open_direct(root: Path, rel: str) -> tuple[int, os.stat_result] | None:
    """A descriptor on the regular file ``rel`` and its status, when it is reached with
    no symbolic link on the way: the vault's folder, then each name below it opened with
    ``O_NOFOLLOW`` relative to the folder above, as ``open_place`` walks. Such a file is
    the one either link rule opens (``"follow"`` has nothing to resolve), so a reader
    tries this first and takes ``open_place`` only when it returns None: a link, a missing
    or unreadable name, anything but a regular file. That way round, the long way's
    checks and messages stay as they are, and most notes skip its ``lstat`` of every name
    on their path (10,000 notes read for a tagging run: 0.3 s)."""
    parts = checked_parts(rel)
    try:
        fd = os.open(real_root(root), _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            above, fd = fd, -1
            try:
                fd = os.open(part, _DIR_FLAGS, dir_fd=above)
            finally:
                os.close(above)
        note = os.open(parts[-1], READ_FLAGS, dir_fd=fd)
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        st = os.fstat(note)
    except OSError:
        st = None
    if st is None or not _stat.S_ISREG(st.st_mode):
        os.close(note)
        return None
    return note, st


def resolve_name(root: Path, rel: str) -> tuple[str, bool]:
    """``rel`` as the vault holds it, and whether the file exists: each folder on the way
    that is not there exactly is taken by its case or Unicode twin that is (``_twin``: the
    folder is listed only then, when a folder would be made), as far as the path exists.
    The file's own name is taken as given: its twins are the caller's to find, among the
    notes it knows (a folder of 10,000 notes is not listed for each new note). Walked as
    ``open_place`` walks, links refused."""
    parts = checked_parts(rel)
    try:
        fd = os.open(real_root(root), _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise WriteRefused(rel, f"the vault's folder cannot be opened ({exc.strerror})") from None
    done: list[str] = []
    try:
        for n, part in enumerate(parts):
            if n == len(parts) - 1:
                return "/".join([*done, part]), _exists_in(fd, part)
            part = _twin(fd, part, rel, done)
            above, fd = fd, -1  # _down closes it, whatever happens
            try:
                fd = _down(above, part, rel, done, False, refuse_links=True)
            except FileGone:
                return "/".join([*done, *parts[n:]]), False
            done.append(part)
    finally:
        if fd >= 0:
            os.close(fd)
    raise AssertionError("unreachable")


def fold(name: str) -> str:
    """A name as twins share it: NFC, case folded."""
    return unicodedata.normalize("NFC", name).casefold()


def _exists_in(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # there, but not to be looked at: the write says why
    return True


def _down(fd: int, part: str, rel: str, done: list[str], make: bool, *, refuse_links: bool) -> int:
    """Open the folder ``part`` below the open folder ``fd`` (closed in any case)."""
    try:
        for _attempt in range(3):  # made by us, or by another program a moment before
            try:
                return os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise FileGone(rel) from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
        raise WriteRefused(rel, _MOVED)
    except OSError as exc:
        where = "/".join([*done, part])
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            # ELOOP: O_NOFOLLOW met a link. ENOTDIR: something else than a folder, unless the
            # name changed again since (a race), which a second look tells.
            st = None
            with contextlib.suppress(OSError):
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            if exc.errno == errno.ELOOP or (st is not None and _stat.S_ISLNK(st.st_mode)):
                if refuse_links:
                    raise WriteRefused(
                        rel,
                        f"is reached through the symbolic link {where}; Librarian writes a "
                        "note only by its own path, never through a link",
                    ) from None
                raise FileChanged(rel, _MOVED) from None
            if st is None or _stat.S_ISDIR(st.st_mode):
                raise FileChanged(rel, _MOVED) from None
            raise WriteRefused(
                rel, f"{where} is a file, not a folder; give a path whose folders are folders"
            ) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise WriteRefused(rel, "has a name too long for this file system") from None
        raise WriteRefused(rel, f"{where} cannot be opened ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _twin(fd: int, name: str, rel: str, done: list[str]) -> str:
    """``name``, or the one entry of the folder ``fd`` that differs from it only by case
    or Unicode normalisation; ``name`` when there is none."""
    with contextlib.suppress(FileNotFoundError):
        os.stat(name, dir_fd=fd, follow_symlinks=False)
        return name
    key = fold(name)
    try:
        found = [entry for entry in os.listdir(fd) if fold(entry) == key]
    except OSError:
        return name
    if len(found) > 1:
        where = "/".join([*done, name])
        raise WriteRefused(
            rel,
            f"{where} could be any of {', '.join(sorted(found))} (they differ only by case); "
            "give the exact name",
        )
    return found[0] if found else name


# Frames the thread that walks a new folder uses besides the walk (watchdog's dispatcher).
_FRAMES_IN_USE = 200


def deepest_folder() -> int:
    """How many folders deep a new note may be. watchdog walks a folder made inside a
    watched one with a recursive ``os.walk``, in the thread that hands out every event of
    the vault: past Python's recursion limit that thread dies, and nothing is watched any
    more (an agent's note 1,100 folders down stopped the MCP server's index following the
    vault). 800 on CPython: a vault never needs the difference."""
    return sys.getrecursionlimit() - _FRAMES_IN_USE


def name_limits(root: Path, rel: str) -> None:
    """Refuse a new path the system could not hold, or other programs could not open: a
    name past NAME_MAX bytes, a path past PATH_MAX, or one too deep to be watched
    (``deepest_folder``)."""
    try:
        name_max = os.pathconf(root, "PC_NAME_MAX")
        path_max = os.pathconf(root, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    whole = len(os.fsencode(os.path.join(real_root(root), rel)))
    if whole >= path_max:
        raise WriteRefused(
            shown(rel),
            f"is too long ({whole:,} bytes with the vault's folder; the system's limit for "
            f"a path is {path_max:,}); give a shorter path",
        )
    for part in rel.split("/"):
        if len(os.fsencode(part)) > name_max:
            raise WriteRefused(
                shown(rel),
                f"has a name of {len(os.fsencode(part)):,} bytes; the file system's limit is "
                f"{name_max}",
            )
    folders = rel.count("/")
    if folders > deepest_folder():
        raise WriteRefused(
            shown(rel),
            f"is {folders:,} folders deep; Librarian makes notes at most {deepest_folder():,} "
            "folders down, the depth its watcher can follow. Give a shallower path",
        )


def writable(st: os.stat_result) -> bool:
    """Whether the file's mode lets its owner (or, for root, anyone) write it. A read-only
    note is the user's statement that it must not change: root, who could write it anyway,
    is held to it too, and so is a rename over it (which needs only the folder's
    permission)."""
    mode = _stat.S_IMODE(st.st_mode)
    if os.geteuid() == 0:
        return bool(mode & 0o222)
    if st.st_uid == os.geteuid():
        return bool(mode & _stat.S_IWUSR)
    return bool(mode & 0o022)  # another user's note, shared through its group or with all


def refuse_read_only(st: os.stat_result, rel: str) -> None:
    if not writable(st):
        raise WriteRefused(
            rel,
            f"is read-only (mode {_stat.S_IMODE(st.st_mode):04o}); Librarian changes no "
            "read-only note. Make it writable to change it here",
        )
