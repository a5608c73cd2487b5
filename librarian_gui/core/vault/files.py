"""Finding the vault's files (ignore rules, symlinks) and reading one note safely."""

from __future__ import annotations

import errno
import functools
import os
import stat as _stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..parse.records import FileStamp, ScanWarning
from .urls import is_utf8, shown_path

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".librarianignore"
MAX_NOTE_BYTES = 16_000_000  # larger notes are listed but not parsed (DESIGN §9)
_BINARY_SNIFF = 8192


# A note's name ends in ".md" in any case. Only these four spellings lower to it: the one
# character lowering to more than one (U+0130) ends in a combining dot, and no other character
# lowers to ".", "m" or "d". Matched as they are, the name is not lowered (a walk's every file).
_NOTE_SUFFIXES = (".md", ".MD", ".Md", ".mD")


def is_note_name(name: str) -> bool:
    return name.endswith(_NOTE_SUFFIXES)


def is_temp_name(name: str) -> bool:
    """Editors' and agents' temporary files are neither notes nor attachments."""
    return name.startswith((".", "~$")) or name.endswith(("~", ".tmp", ".swp"))


def is_relevant_change(rel: str) -> bool:
    """Whether a change at this vault path can matter to the index (a watcher's filter)."""
    if rel == IGNORE_FILE:
        return True
    parts = rel.split("/")
    return not any(part.startswith(".") for part in parts) and not is_temp_name(parts[-1])


def is_interrupted_write(name: str) -> bool:
    """The temporary file of one of Librarian's own atomic writes (``.librarian-….tmp``):
    still there when no write is under way, it was left by a write that was killed."""
    return name.startswith(".librarian-") and name.endswith(".tmp")


INTERRUPTED_WRITE = "left by an interrupted Librarian write; `librarian scan --repair` removes it"
OWN_FOLDER = ".librarian"  # the journal, the lock and the marks of writes under way
INTERRUPTED_RUN = (
    "a Librarian write was interrupted (killed) before it finished; `librarian scan --repair` "
    "finishes it (a torn append's bytes removed), `librarian undo` takes it back"
)


def _interrupted_runs(own: str) -> list[ScanWarning]:
    """A warning per mark of a write under way (``journal.WRITING_DIR``): found by a scan,
    the write that left it was killed, or is running at this very moment."""
    try:
        names = sorted(os.listdir(os.path.join(own, "writing")))
    except OSError:
        return []
    return [
        ScanWarning(f"{OWN_FOLDER}/writing/{name}", "interrupted-write", INTERRUPTED_RUN)
        for name in names
        if name[:1].isdigit()
    ]


# ------------------------------------------------------------------ the symlink rule
#
# DESIGN §9. A symbolic link in the vault is followed only when its target, every link
# resolved, lies inside the vault's own real folder. A link out of the vault (a note, a
# folder, an image) is refused: not indexed, not read, not embedded, never written. A link
# to the vault itself or a folder above it is refused too: following it would put the vault
# inside itself. Every place that reaches a file through a path goes through ``follow_inside``.

_ABOVE = (
    "symbolic link to the vault itself or a folder above it: following it would include the "
    "vault in itself; skipped"
)
_LOOP = "symbolic link loop: following it never reaches a file; skipped"
_ALREADY = "folder link points to a folder already indexed (a loop); skipped"
_NOT_INSIDE = "is not a path inside the vault; refused"
_FOLDER_NOTE = "a folder named like a note; read as a folder"


class Followed(NamedTuple):
    """Where a vault-relative path leads: ``real`` is its real path (every symlink
    resolved; the file need not exist), or None when it is ``refused`` — the warning then
    names the link that leads out (or the path itself, when it climbs out with ``..``)."""

    real: str | None
    refused: ScanWarning | None


def follow_inside(root: Path | str, rel: str) -> Followed:
    """Follow ``rel`` (a path relative to the vault ``root``) under the symlink rule.

    Refused, with a warning of kind ``symlink-outside`` (a link whose target is outside
    the vault), ``symlink-loop`` (a link to the vault or a folder above it, or links in a
    loop) or ``outside-vault`` (an absolute path, or one that climbs out with ``..`` or is
    the vault folder itself). A path that does not exist (yet) is followed as far as it
    exists: a note about to be created is allowed where its folder is."""
    return _follow(_real_root(os.fspath(root)), rel)


def resolve_inside(root: Path | str, rel: str) -> str | None:
    """The real path of ``rel`` inside the vault, or None where the symlink rule refuses it
    (see ``follow_inside``)."""
    return _follow(_real_root(os.fspath(root)), rel).real


@functools.lru_cache(maxsize=16)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def real_root(root: Path | str) -> str:
    """The vault folder's real path, resolved once per process (every read and write
    starts from it)."""
    return _real_root(os.fspath(root))


_CHANGED = "changed while being read (a link replaced meanwhile); skipped"


def _realpath(path: str) -> str | None:
    """``os.path.realpath``, or None when a link on the way was replaced while it was being
    resolved: before Python 3.13 the ``readlink`` of a name that stopped being a link lets
    EINVAL out, which must cost one path, not the scan or the update it is part of."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def _within(path: str, folder: str) -> bool:
    """Whether the real ``path`` is ``folder`` or lies under it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _follow(root_real: str, rel: str) -> Followed:
    """Walk down ``rel`` one component at a time: one lstat each, and a full resolution
    only of the links met on the way (the vault's own folders are their own real path)."""
    if os.path.isabs(rel):
        return Followed(None, ScanWarning(rel, "outside-vault", _NOT_INSIDE))
    current = root_real
    done: list[str] = []  # the components followed, as the vault-relative path shown
    parts = rel.split("/")
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return Followed(None, ScanWarning(rel, "outside-vault", _NOT_INSIDE))
            done.pop()
            current = os.path.dirname(current)
            continue
        done.append(part)
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:  # nothing further exists: there is no link to follow
            return Followed(os.path.join(current, *[p for p in parts[i + 1 :] if p]), None)
        except OSError:
            st = None  # not a folder on the way, or not searchable: resolve what is there
        if st is None or _stat.S_ISLNK(st.st_mode):
            real = _realpath(current)
            if real is None:
                return Followed(None, ScanWarning(rel, "vanished", _CHANGED))
            refused = _judge(root_real, real, "/".join(done))
            if refused is not None:
                return Followed(None, refused)
            current = real
    if current == root_real:
        return Followed(None, ScanWarning(rel, "outside-vault", _NOT_INSIDE))
    return Followed(current, None)


def _judge(root_real: str, real: str, link: str) -> ScanWarning | None:
    """Why the link ``link`` (vault-relative), whose target resolves to ``real``, must not be
    followed; None when its target lies inside the vault (or is missing there)."""
    if _within(root_real, real):
        return ScanWarning(link, "symlink-loop", _ABOVE)
    if not _within(real, root_real):
        return ScanWarning(
            link, "symlink-outside", f"symbolic link points outside the vault (to {real}); skipped"
        )
    try:
        st = os.lstat(real)
    except OSError as exc:
        return ScanWarning(link, "symlink-loop", _LOOP) if exc.errno == errno.ELOOP else None
    # A resolved path that is still a link is where the resolution found a loop.
    return ScanWarning(link, "symlink-loop", _LOOP) if _stat.S_ISLNK(st.st_mode) else None


MAX_IGNORE_BYTES = 1_000_000  # a gitignore file of 20,000 lines; anything larger is not one


class RefusedFile(OSError):
    """A file not read because of what it is: ``st`` is its status — not a regular file
    (EINVAL: a folder, a named pipe, a device), or larger than asked (EFBIG)."""

    def __init__(self, path: Path | str, code: int, reason: str, st: os.stat_result) -> None:
        super().__init__(code, reason, os.fspath(path))
        self.st = st


_READ_CHUNK = 1 << 20


def open_regular_file(path: Path | str, limit: int | None = None, *, links: bool = True) -> int:
    """A read-only descriptor on the regular file at ``path``: opened without blocking (a
    named pipe would wait for a writer for ever), not through a symbolic link unless
    ``links`` (ELOOP), never a device or a folder, nor over ``limit`` bytes (``RefusedFile``).
    The caller closes it."""
    flags = _READ_FLAGS | os.O_CLOEXEC | (0 if links else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise RefusedFile(path, errno.EINVAL, "not a regular file", st)
        if limit is not None and st.st_size > limit:
            raise RefusedFile(path, errno.EFBIG, f"larger than {limit:,} bytes", st)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(path: Path | str, limit: int | None = None, *, links: bool = True) -> bytes:
    """The bytes of the regular file at ``path`` (``open_regular_file``), at most ``limit``:
    ``RefusedFile`` (EFBIG) also when it grows past it while it is read."""
    fd = open_regular_file(path, limit, links=links)
    try:
        parts: list[bytes] = []
        size = 0
        want = os.fstat(fd).st_size + 1  # all of it in one call, and a byte more if it grew
        bound = limit + 1 if limit is not None else None
        while bound is None or size < bound:
            part = os.read(fd, want if bound is None else min(want, bound - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
            want = _READ_CHUNK
        if limit is not None and size > limit:
            raise RefusedFile(path, errno.EFBIG, f"larger than {limit:,} bytes", os.fstat(fd))
        return b"".join(parts)
    finally:
        os.close(fd)


class IgnoreRules:
    """Dot-entries, ``.librarianignore`` (gitignore syntax) and folders excluded in the app."""

    def __init__(self, root: Path, excluded: Iterable[str] = ()) -> None:
        lines: list[str] = []
        self.warnings: list[ScanWarning] = []
        try:
            raw = read_regular_file(root / IGNORE_FILE, MAX_IGNORE_BYTES)
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

    @property
    def has_patterns(self) -> bool:
        """Whether a rule besides the dot rule applies (an ignore file, excluded folders)."""
        return self._spec is not None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """``rel`` is a vault-relative POSIX path."""
        if rel.startswith(".") or "/." in rel:  # a part of it starts with a dot
            return True
        if self._spec is None:
            return False
        return self._spec.match_file(rel + "/" if is_dir else rel)


@dataclass
class WalkResult:
    notes: dict[str, FileStamp] = field(default_factory=dict)
    attachments: dict[str, FileStamp] = field(default_factory=dict)
    warnings: list[ScanWarning] = field(default_factory=list)


_new_stamp = tuple.__new__  # a FileStamp made without its Python-level ``__new__``
# Where the system allows it, a folder is listed through a descriptor of it and each entry's
# ``stat`` is made relative to that (``fstatat``): the kernel looks up one name, not the
# whole path again (50,000 notes: 0.21-0.26 → 0.13-0.15 s of system time). An entry's
# ``path`` is then its bare name: the walk joins the folder's path itself.
_LIST_BY_FD = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")


def stamp_of(st: os.stat_result) -> FileStamp:
    return _new_stamp(FileStamp, (st.st_size, st.st_mtime_ns, st.st_ino))


def walk_vault(
    root: Path,
    rules: IgnoreRules,
    start: str = "",
    *,
    on_many: tuple[int, Callable[[], object]] | None = None,
) -> WalkResult:
    """List notes and attachments under ``root`` (or its sub-folder ``start``).

    Symlinks are followed under the symlink rule (``follow_inside``); a folder reached
    again through a link (a loop, or two links to one place) is reported and skipped.
    ``on_many`` = (n, call): ``call()`` runs once, as soon as n notes are found (to start
    parse workers early).
    """
    many_at, on_many_call = on_many if on_many is not None else (-1, None)
    result = WalkResult()
    result.warnings.extend(rules.warnings if not start else ())
    root_real = _real_root(os.fspath(root))
    top_real = root_real
    if start:
        followed = _follow(root_real, start)
        if followed.real is None:
            assert followed.refused is not None
            result.warnings.append(followed.refused)
            return result
        top_real = followed.real
        link = _linked_through(root_real, start)
        link_real = None if link is None else _realpath(root_real + "/" + link)
        if link is not None and link_real is None:
            result.warnings.append(ScanWarning(link, "vanished", _CHANGED))
            return result
        if link_real is not None and _walked_anyway(root_real, link_real, rules):
            # A live update inside a link to a folder the full walk reads by its own path:
            # the same answer as the full walk gives (it skips that link).
            assert link is not None
            result.warnings.append(ScanWarning(link, "symlink-loop", _ALREADY))
            return result
    top = root / start if start else root
    try:
        top_st = top.stat()
    except OSError as exc:
        result.warnings.append(ScanWarning(start or ".", "unreadable", _os_reason(exc)))
        return result
    if start and is_note_name(start.rsplit("/", 1)[-1]) and _stat.S_ISDIR(top_st.st_mode):
        # As the full walk says of it, met from its parent folder.
        result.warnings.append(ScanWarning(start, "not-a-file", _FOLDER_NOTE))
    seen: set[tuple[int, int]] = {(top_st.st_dev, top_st.st_ino)}
    stack: list[tuple[str, str, str]] = [(str(top), start, top_real)]
    notes, attachments = result.notes, result.attachments
    while stack:
        folder, rel_folder, folder_real = stack.pop()
        fd = None
        try:
            if _LIST_BY_FD:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            entries = list(os.scandir(folder if fd is None else fd))
        except OSError as exc:
            if fd is not None:
                os.close(fd)
            result.warnings.append(
                ScanWarning(rel_folder or ".", "unreadable", f"folder {_os_reason(exc)}")
            )
            continue
        # ``rules.ignored`` of a name without a leading dot, when the rules are the dot
        # rule alone: whether the folder's own path has a part starting with a dot.
        dotted = rel_folder.startswith(".") or "/." in rel_folder
        plain = not rules.has_patterns
        try:
            for entry in entries:
                name = entry.name
                rel = f"{rel_folder}/{name}" if rel_folder else name
                if not name.isascii() and not is_utf8(name) and not name.startswith("."):
                    result.warnings.append(ScanWarning(rel, "file-name", _bad_name_message(name)))
                if name.startswith("."):
                    # Only a full scan: a live update's walk would catch writes under way.
                    if (
                        not start
                        and is_interrupted_write(name)
                        and entry.is_file(follow_symlinks=False)
                    ):
                        result.warnings.append(
                            ScanWarning(rel, "interrupted-write", INTERRUPTED_WRITE)
                        )
                    elif not start and rel == OWN_FOLDER:
                        result.warnings.extend(_interrupted_runs(os.path.join(folder, name)))
                    continue
                real = None
                if entry.is_symlink():
                    real = _realpath(os.path.join(folder, name))
                    if real is None:
                        result.warnings.append(ScanWarning(rel, "vanished", _CHANGED))
                        continue
                    refused = _judge(root_real, real, rel)
                    if refused is not None:
                        is_dir = _is_dir(entry)
                        if not (rules.ignored(rel, is_dir) or (not is_dir and is_temp_name(name))):
                            result.warnings.append(refused)
                        continue
                try:
                    st = entry.stat()  # follows symlinks
                except OSError as exc:
                    if exc.errno == errno.ELOOP:
                        result.warnings.append(ScanWarning(rel, "symlink-loop", _LOOP))
                    elif entry.is_symlink():
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
                    # A link to a folder holding it is a loop even where the walk began below
                    # that folder (a live update walks only the folder that changed). A link to
                    # another folder of the vault that the walk reads anyway is one too: its
                    # notes are indexed under their own paths, never twice, whichever of the two
                    # the walk meets first — and a live update's walk agrees with a full scan.
                    if (
                        key in seen
                        or (real is not None and _within(folder_real, real))
                        or (real is not None and _walked_anyway(root_real, real, rules))
                    ):
                        result.warnings.append(ScanWarning(rel, "symlink-loop", _ALREADY))
                        continue
                    seen.add(key)
                    if is_note_name(name):
                        result.warnings.append(ScanWarning(rel, "not-a-file", _FOLDER_NOTE))
                    path = os.path.join(folder, name)
                    stack.append((path, rel, real or os.path.join(folder_real, name)))
                    continue
                if (dotted if plain else rules.ignored(rel, False)) or is_temp_name(name):
                    continue
                if not _stat.S_ISREG(st.st_mode):
                    result.warnings.append(
                        ScanWarning(
                            rel, "not-a-file", "not a regular file (a pipe or device); skipped"
                        )
                    )
                    continue
                stamp = _new_stamp(FileStamp, (st.st_size, st.st_mtime_ns, st.st_ino))
                if is_note_name(name):
                    notes[rel] = stamp
                    if len(notes) == many_at and on_many_call is not None:
                        on_many_call()
                else:
                    attachments[rel] = stamp
        finally:
            if fd is not None:  # after the entries' ``stat``, which are made relative to it
                os.close(fd)
    return result


def _linked_through(root_real: str, rel: str) -> str | None:
    """The first part of ``rel`` (its vault path) that is a symbolic link, or None."""
    current = root_real
    parts = rel.split("/")
    for i, part in enumerate(parts):
        current = os.path.join(current, part)
        if os.path.islink(current):
            return "/".join(parts[: i + 1])
    return None


def _walked_anyway(root_real: str, real: str, rules: IgnoreRules) -> bool:
    """Whether the folder at real path ``real`` (inside the vault) is one the walk reads by
    its own path: not a dot-folder and not ignored. A link to a hidden or ignored folder is
    the way to show it, so that one is followed."""
    rel = os.path.relpath(real, root_real).replace(os.sep, "/")
    return rel != "." and not rel.startswith("../") and not rules.ignored(rel, True)


def _bad_name_message(name: str) -> str:
    shown = shown_path(name)
    return f"its name is not valid UTF-8 (shown as {shown}); rename it to link to it by name"


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop: not a folder
        return False


@dataclass(frozen=True, slots=True)
class ReadResult:
    text: str | None  # None: not parseable (binary, too large, unreadable)
    stamp: FileStamp | None  # None: the file is gone or is no longer a regular file
    lossy: bool
    warning: ScanWarning | None


def read_note(root: Path, rel: str) -> ReadResult:
    """Read a note without ever blocking on a pipe or failing the scan, and never through
    a symlink out of the vault (``follow_inside``): such a note reads as gone, with the
    warning saying why."""
    path = f"{root}/{rel}"  # not pathlib: this runs once per note on every scan
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return ReadResult(None, None, False, ScanWarning(rel, "vanished", "vanished while reading"))
    except OSError as exc:
        return _unreadable(path, rel, exc)
    try:
        refused = _refused_open(fd, os.fspath(root), rel)
        if refused is not None:
            return ReadResult(None, None, False, refused)
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


def _refused_open(fd: int, root: str, rel: str) -> ScanWarning | None:
    """The warning when the file open as ``fd`` (the vault path ``rel``) lies outside the
    vault, else None. The kernel names the open file's real path in one system call
    (``/proc/self/fd``): a seventh of the cost of ``_follow``, which decides only where
    there is no ``/proc`` or the kernel places the file outside (and names the link)."""
    root_real = _real_root(root)
    try:
        if _within(os.readlink(f"/proc/self/fd/{fd}"), root_real):
            return None
    except OSError:
        pass  # no /proc here (macOS, Windows)
    followed = _follow(root_real, rel)
    if followed.refused is not None:
        return followed.refused
    if followed.real is not None and not os.path.samestat(os.fstat(fd), os.stat(followed.real)):
        # A link on the way was changed between the open and the check.
        return ScanWarning(rel, "vanished", "vanished while reading")
    return None


def _read_all(fd: int, size_hint: int) -> bytes:
    """Read to the end: for a file whose size did not change, one read for its bytes and one
    that finds the end (a short read alone does not prove it on every file system)."""
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


def wide_encoding(head: bytes) -> str | None:
    """ "UTF-32" or "UTF-16" when ``head`` (a file's first bytes) starts with that byte
    order mark; None otherwise."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    return None


def decode_note(rel: str, data: bytes, stamp: FileStamp) -> ReadResult:
    if b"\x00" in data[:_BINARY_SNIFF]:
        wide = wide_encoding(data)
        message = (
            f"{wide} text, not UTF-8; listed, not parsed (save it as UTF-8 to index it)"
            if wide
            else "binary content in a .md file; listed, not parsed"
        )
        return ReadResult(None, stamp, False, ScanWarning(rel, "binary", message))
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


def classify_file(
    root: Path, rules: IgnoreRules, rel: str
) -> tuple[str, FileStamp] | ScanWarning | None:
    """Classify one path as the full walk would: ("note" | "attachment", stamp); the walk's
    warning when it refuses the path (a symlink out of the vault or in a loop, a link to
    nothing, a pipe); None when it is gone, ignored, a folder, or a temporary file (one of
    Librarian's own writes in progress, too)."""
    name = rel.rsplit("/", 1)[-1]
    if rules.ignored(rel, False) or is_temp_name(name):
        return None
    path, refused = _follow(_real_root(os.fspath(root)), rel)
    if path is None:
        return refused
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return ScanWarning(rel, "symlink-loop", _LOOP)
        if os.path.islink(root / rel):
            return ScanWarning(rel, "broken-link", "symbolic link to nothing; skipped")
        return None
    if _stat.S_ISDIR(st.st_mode):
        return None
    if not _stat.S_ISREG(st.st_mode):
        return ScanWarning(rel, "not-a-file", "not a regular file (a pipe or device); skipped")
    return ("note" if is_note_name(name) else "attachment", stamp_of(st))
