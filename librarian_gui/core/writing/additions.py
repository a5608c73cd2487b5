"""New notes and appended text: the two writes that replace nothing (an agent's writes).

A tagging run or a Link click edits a note it read, so it swaps a whole new version in and
waits out a grace period for a program that was writing the old one (``safewrite``). An
addition needs neither, which is what lets an agent's write return in a few milliseconds:

- **create**: the bytes go to a temporary dot-file, fsynced, then hard-linked to the new
  name (``safewrite.create_file``); a link fails on an existing name, so a file that
  appeared meanwhile is never replaced.
- **append**: one ``write`` on a descriptor opened ``O_APPEND``, then ``fsync``. Nothing is
  displaced, so nothing another program writes to the note at the same moment can be lost:
  concurrent appends land one after the other, whole. The offset where the bytes landed is
  recorded, so undo removes exactly them and keeps whatever was written around them.

The journal records each addition before it is made (``Journal.add``), with a copy of the
added bytes, and undoes it here: a created note is moved into its journal entry (its bytes
kept there) when it is still as written; appended bytes are cut out when still in place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..vault.files import follow_inside
from .safewrite import (
    FileChanged,
    WriteRefused,
    _checked_parts,
    _open_regular,
    _read_fd,
    _real_path,
    _write_all,
    create_file,
    digest_of,
)

AdditionKind = Literal["create", "append"]
ABSENT = "absent"  # the before-digest recorded for a note that a write creates
_BINARY_SNIFF = 8192


@dataclass(frozen=True, slots=True)
class Addition:
    """Bytes to add to the vault: a new note (``create``) or text after a note's end."""

    rel: str
    data: bytes
    kind: AdditionKind


@dataclass(frozen=True, slots=True)
class Before:
    """What the journal records of a file before an addition."""

    digest: str  # ABSENT for a note to create
    size: int


def new_note_path(root: Path, rel: str) -> str:
    """Where the new note ``rel`` goes (its folders made as needed); ``WriteRefused`` when
    the path leads outside the vault, names a hidden folder or file, or exists already."""
    parts = _checked_parts(rel)
    if any(part.startswith(".") for part in parts):
        raise WriteRefused(rel, "is in a hidden folder or is a hidden file; refused")
    real, refused = follow_inside(root, rel)
    if refused is not None or real is None:
        raise WriteRefused(rel, "is not a path inside the vault; refused")
    if os.path.lexists(real):
        raise FileExists(rel)
    return real


class FileExists(WriteRefused):
    def __init__(self, rel: str) -> None:
        super().__init__(rel, "exists already; nothing was written (ask to overwrite it)")


def look_before(root: Path, addition: Addition) -> Before:
    """The state an addition starts from; ``WriteRefused`` when it cannot be made: a note
    to create that exists, or a note to append to that is missing, binary or not UTF-8."""
    if addition.kind == "create":
        new_note_path(root, addition.rel)
        return Before(ABSENT, 0)
    target = _real_path(root, addition.rel)
    fd = _open_regular(target, addition.rel)
    try:
        data = _read_fd(fd, addition.rel)
    finally:
        os.close(fd)
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise WriteRefused(addition.rel, "holds binary content, so Librarian does not edit it")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WriteRefused(
            addition.rel,
            f"is not valid UTF-8 (first bad byte at offset {exc.start}); nothing was appended",
        ) from None
    return Before(digest_of(data), len(data))


def add(root: Path, addition: Addition) -> int:
    """Make the addition; return the offset where its bytes start in the file."""
    if addition.kind == "create":
        path = new_note_path(root, addition.rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            create_file(Path(path), addition.data)
        except FileExistsError:
            raise FileExists(addition.rel) from None
        except OSError as exc:
            raise WriteRefused(addition.rel, f"cannot be created ({exc.strerror or exc})") from None
        return 0
    target = _real_path(root, addition.rel)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise WriteRefused(addition.rel, f"cannot be opened ({exc.strerror or exc})") from None
    try:
        _write_all(fd, addition.data)
        end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: the end of what this write added
        os.fsync(fd)
    except OSError as exc:
        raise WriteRefused(addition.rel, f"cannot be written ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    return end - len(addition.data)


@dataclass(frozen=True, slots=True)
class Removal:
    """How to undo an addition: ``data`` is the file's new content (None: remove the file,
    moving it to ``keep``), computed from the file as it is now (``current``, its digest)."""

    current: str
    size: int  # of the file as it is now
    data: bytes | None


def existing_path(root: Path, rel: str) -> str:
    """The real path of the existing file ``rel`` (``FileGone`` when missing)."""
    return _real_path(root, rel)


def undo_plan(root: Path, addition: Addition, offset: int) -> Removal:
    """What undoing ``addition`` (made at ``offset``) writes; ``FileChanged`` when the added
    bytes are no longer as written (the note was edited since: left alone)."""
    target = _real_path(root, addition.rel)  # FileGone when deleted since
    fd = _open_regular(target, addition.rel)
    try:
        current = _read_fd(fd, addition.rel)
    finally:
        os.close(fd)
    now = digest_of(current)
    if addition.kind == "create":
        if current != addition.data:
            raise FileChanged(addition.rel, "changed since it was created; left alone", now)
        return Removal(now, len(current), None)
    end = offset + len(addition.data)
    if current[offset:end] != addition.data:
        raise FileChanged(addition.rel, "changed since the text was appended; left alone", now)
    return Removal(now, len(current), current[:offset] + current[end:])
