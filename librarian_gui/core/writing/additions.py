"""New notes and appended text: the two writes that replace nothing (an agent's writes).

A tagging run or a Link click edits a note it read, so it swaps a whole new version in and
waits out a grace period for a program that was writing the old one (``safewrite``). An
addition needs neither, which is what lets an agent's write return in a few milliseconds:

- **create**: the bytes go to a temporary dot-file, fsynced, then hard-linked to the new
  name (``safewrite.create_in``); a link fails on an existing name, so a file that
  appeared meanwhile is never replaced.
- **append**: one ``write`` on a descriptor opened ``O_APPEND``, then ``fsync``. Nothing is
  displaced, so nothing another program writes to the note at the same moment can be lost:
  concurrent appends land one after the other, whole. The offset where the bytes landed is
  recorded, so undo removes exactly them and keeps whatever was written around them.

Both reach the note through ``place.open_place`` with links refused: an agent writes a
regular note of the vault by its own path, never through a symbolic link, never a pipe.

An append that fails part-way (a full disk) takes its bytes back when nothing was appended
after them; otherwise it is *torn*: the journal keeps where it landed and how much, and
undo removes exactly that. An append killed part-way is found by the next write (its entry
was still "pending"); ``torn_length`` tells how much of it landed.

The journal records each addition before it is made (``Journal.add``), with a copy of the
added bytes, and undoes it here: a created note is moved into its journal entry (its bytes
kept there) when it is still as written; appended bytes are cut out when still in place.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from .place import (
    FileChanged,
    FileGone,
    Place,
    WriteRefused,
    check_new_name,
    name_limits,
    open_place,
    refuse_read_only,
    why,
)
from .safewrite import _read_fd, create_in, digest_of

AdditionKind = Literal["create", "append"]
ABSENT = "absent"  # the before-digest recorded for a note that a write creates
_BINARY_SNIFF = 8192
# A killed write stops between the pages it copies (Linux copies an append into the page
# cache one page, or one folio of whole pages, at a time): a torn append ends on one.
_PAGE = 4096
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Addition:
    """Bytes to add to the vault: a new note (``create``) or text after a note's end.

    ``lines``: the bytes are lines of text (``\\n`` endings) to start on a line of their own
    and take the note's own line endings; ``look_before`` makes them so, from the note as
    it is when the write begins (not as it was when the agent asked)."""

    rel: str
    data: bytes
    kind: AdditionKind
    lines: bool = False


@dataclass(frozen=True, slots=True)
class Before:
    """What the journal records of a file before an addition."""

    digest: str  # ABSENT for a note to create
    size: int
    made: str = ""  # a note to create: the first of its folders still to be made ("": none)
    # a note to append to: the digest of the whole file once the bytes land at ``size``
    # (what the review desk tells a write of Librarian's from another program's by)
    file_after: str = ""


class FileExists(WriteRefused):
    def __init__(self, rel: str) -> None:
        super().__init__(rel, "exists already; nothing was written (ask to overwrite it)")


class TornAppend(WriteRefused):
    """An append failed part-way and its bytes could not be taken back (text was appended
    after them meanwhile): ``landed`` bytes stay at ``offset``, for undo to remove."""

    def __init__(self, rel: str, reason: str, offset: int, landed: int) -> None:
        super().__init__(rel, reason)
        self.offset = offset
        self.landed = landed


def look_before(root: Path, addition: Addition) -> tuple[Before, Addition]:
    """The state an addition starts from, and the addition as it will be made (appended
    lines fitted to the note); ``WriteRefused`` when it cannot be made: a note to create
    that exists, a name no note may have, or a note to append to that is missing, not a
    regular file, read-only, binary or not UTF-8 — nothing opened outside the vault."""
    rel = addition.rel
    if addition.kind == "create":
        check_new_name(rel)
        name_limits(root, rel)
        try:
            place = open_place(root, rel, links="refuse")
        except FileGone:  # its folder is still to be made
            return Before(ABSENT, 0, _first_missing(root, rel)), addition
        with place:
            if place.lstat() is not None:
                raise FileExists(rel)
        return Before(ABSENT, 0), addition
    with open_place(root, rel, links="refuse") as place:
        fd = place.open_regular()
        try:
            refuse_read_only(os.fstat(fd), rel)
            data = _read_fd(fd, rel)
        finally:
            os.close(fd)
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise WriteRefused(rel, "holds binary content, so Librarian does not edit it")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WriteRefused(
            rel, f"is not valid UTF-8 (first bad byte at offset {exc.start}); nothing was appended"
        ) from None
    if addition.lines:
        addition = replace(addition, data=fit_lines(data, addition.data), lines=False)
    return Before(digest_of(data), len(data), file_after=digest_of(data + addition.data)), addition


def fit_lines(note: bytes, text: bytes) -> bytes:
    """``text`` (lines ending ``\\n``) as bytes to append to ``note``: in the note's line
    endings, starting on a line of its own, ending with a line ending."""
    tail = note[-4096:]
    newline = b"\r\n" if b"\r\n" in tail else b"\n"
    body = text.replace(b"\r\n", b"\n")
    if not body.endswith(b"\n"):
        body += b"\n"
    body = body.replace(b"\n", newline)
    if note and not note.endswith(b"\n"):
        body = newline + body
    return body


def add(
    root: Path,
    addition: Addition,
    temp_name: str | None = None,
    landing: Callable[[int], None] | None = None,
) -> int:
    """Make the addition; return the offset where its bytes start in the file.

    ``temp_name`` names a created note's temporary file (the journal finds it again after
    a crash). ``landing(offset)`` is called before an append's bytes are written when the
    note grew since ``look_before`` (another program appended): the journal records where
    they will land. Raises ``TornAppend`` when an append failed part-way and could not be
    taken back."""
    if addition.kind == "create":
        with open_place(root, addition.rel, links="refuse", make_folders=True) as place:
            try:
                create_in(place, addition.data, temp_name)
            except FileExistsError:
                raise FileExists(addition.rel) from None
            except OSError as exc:
                raise WriteRefused(
                    addition.rel, f"cannot be created ({why(exc)}); nothing was written"
                ) from None
        return 0
    with open_place(root, addition.rel, links="refuse") as place:
        fd = place.open_regular(_APPEND_FLAGS)
        try:
            refuse_read_only(os.fstat(fd), addition.rel)
            start = os.fstat(fd).st_size
            if landing is not None:
                landing(start)
            return _append(fd, place, addition)
        finally:
            os.close(fd)


def _append(fd: int, place: Place, addition: Addition) -> int:
    """Write the addition at the end of ``fd``; its offset. Part-way failures are taken
    back when nothing follows the bytes that landed, else ``TornAppend``."""
    view = memoryview(addition.data)
    landed = 0
    try:
        while landed < len(view):
            landed += os.write(fd, view[landed:])
        end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: the end of what this write added
        os.fsync(fd)
    except OSError as exc:
        if landed == 0:
            raise WriteRefused(
                addition.rel, f"cannot be written ({why(exc)}); nothing was appended"
            ) from None
        start = os.lseek(fd, 0, os.SEEK_CUR) - landed
        try:
            if os.fstat(fd).st_size != start + landed:
                raise OSError(errno.EBUSY, "text was appended after it meanwhile")
            os.ftruncate(fd, start)
            os.fsync(fd)
        except OSError:
            raise TornAppend(
                addition.rel,
                f"could not be written whole ({why(exc)}): {landed:,} of "
                f"{len(view):,} bytes landed and could not be taken back; undo this write "
                "to remove exactly them",
                start,
                landed,
            ) from None
        raise WriteRefused(
            addition.rel, f"cannot be written ({why(exc)}); nothing was appended"
        ) from None
    return end - len(addition.data)


def torn_length(current: bytes, data: bytes, offset: int) -> int:
    """How many bytes of ``data``, an append that was interrupted (killed), landed at
    ``offset`` of the note that is now ``current``.

    The bytes that landed are a prefix of ``data``; another program may have appended
    after them since. When nothing follows the match, all of it is ours. When something
    does, the match may run on into their text by chance (both lines start with "- "), so
    only a length at which the kernel can have stopped is taken: a page boundary of the
    file, or the whole append. Should that be shorter than what really landed, the rest of
    the torn bytes stay in the note: never a byte of theirs is removed."""
    match = _common_prefix(memoryview(current)[offset : offset + len(data)], memoryview(data))
    if offset + match == len(current) or match == len(data):
        return match
    boundary = (offset + match) // _PAGE * _PAGE - offset
    return max(boundary, 0)


def _common_prefix(a: memoryview, b: memoryview) -> int:
    """The length of the longest common prefix of ``a`` and ``b``: halving the range with
    slice comparisons (done in C), not a loop over bytes (an append may be 60 MB)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    low, high = 0, n  # a[:low] == b[:low]; a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    return low


@dataclass(frozen=True, slots=True)
class Removal:
    """How to undo an addition: ``data`` is the file's new content (None: remove the file,
    moving it to ``keep``), computed from the file as it is now (``current``, its digest)."""

    current: str
    size: int  # of the file as it is now
    data: bytes | None


def read_added(root: Path, rel: str) -> bytes:
    """The bytes of the note an addition was made to (``FileGone`` when missing)."""
    with open_place(root, rel, links="refuse") as place:
        fd = place.open_regular()
        try:
            return _read_fd(fd, rel)
        finally:
            os.close(fd)


def undo_plan(root: Path, addition: Addition, offset: int, landed: int | None = None) -> Removal:
    """What undoing ``addition`` (made at ``offset``; ``landed`` bytes of it for a torn
    append) writes; ``FileChanged`` when the added bytes are no longer as written (the note
    was edited since: left alone)."""
    current = read_added(root, addition.rel)  # FileGone when deleted since
    now = digest_of(current)
    if addition.kind == "create":
        if current != addition.data:
            raise FileChanged(addition.rel, "changed since it was created; left alone", now)
        return Removal(now, len(current), None)
    added = addition.data if landed is None else addition.data[:landed]
    end = offset + len(added)
    if current[offset:end] != added:
        raise FileChanged(addition.rel, "changed since the text was appended; left alone", now)
    return Removal(now, len(current), current[:offset] + current[end:])


def _first_missing(root: Path, rel: str) -> str:
    """The first folder on the way to ``rel`` that does not exist ("" when all do)."""
    parts = rel.split("/")[:-1]
    for n in range(1, len(parts) + 1):
        if not os.path.lexists(root.joinpath(*parts[:n])):
            return "/".join(parts[:n])
    return ""


def remove_made_folders(root: Path, rel: str, made: str) -> None:
    """After the note ``rel`` was taken back: the folders its creation made (``made`` and
    those below it on the way to ``rel``) removed while they are empty, deepest first, each
    by its own path (never through a link). A folder another file went into stays."""
    if not made or not rel.startswith(made + "/"):
        return
    folder = rel.rsplit("/", 1)[0]
    while True:
        try:
            with open_place(root, folder, links="refuse") as place:
                os.rmdir(place.name, dir_fd=place.fd)
        except (OSError, WriteRefused):
            return  # not empty, gone, or not a folder: left as it is
        if folder == made:
            return
        folder = folder.rsplit("/", 1)[0]


def move_into(root: Path, rel: str, target: Path) -> None:
    """Move the created note ``rel`` to ``target`` (in the journal), by its own path."""
    with open_place(root, rel, links="refuse") as place:
        if place.lstat() is None:
            raise FileGone(rel)
        os.rename(place.name, target, src_dir_fd=place.fd)
