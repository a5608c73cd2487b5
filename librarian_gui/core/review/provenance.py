"""Who wrote the version of a note that is on disk now (issue 32 item 1).

The journal records every write Librarian makes, with who asked for it (``journal.by``). A
note's current version is the newest journal entry's that wrote it, *when the file still
holds exactly what that entry wrote*: a replaced or created note has the digest the entry
recorded; a note appended to ends with the appended bytes, where they landed. Otherwise the
file was changed since by another program — an editor, git, an agent writing files
directly — and its writer is **outside Librarian**, at the file's modification time: never a
guess at who. A note no entry wrote is outside Librarian too.

Nothing of this is written into the notes.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vault.files import read_regular_file
from ..writing.journal import Journal, JournalEntry, JournalFile
from ..writing.safewrite import digest_of
from .outside import outside_changes

OUTSIDE = "outside Librarian"
NOT_RECORDED = "Librarian"  # an entry written before who wrote was recorded
ENTRIES_READ = 5_000  # journal entries read at most, newest first, to find the writers


@dataclass(frozen=True, slots=True)
class Writer:
    kind: str  # "window", "command line", "agent", OUTSIDE, NOT_RECORDED
    # ISO time: the entry's, or the file's modification time; "" when not known (another
    # program's change found between the version reviewed and a write Librarian made)
    at: str
    client: str = ""
    version: str = ""
    session: str = ""
    entry: str | None = None  # the journal entry (None: outside Librarian)

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "at": self.at}
        if self.kind == "agent":
            out.update(client=self.client, version=self.version, session=self.session)
        if self.entry is not None:
            out["journal_entry"] = self.entry
        return out


@dataclass(frozen=True, slots=True)
class JournalRead:
    """The journal's newest ``ENTRIES_READ`` entries, read once for several questions (the
    desk asks who wrote, who wrote since, and which versions it holds)."""

    journal: Journal
    entries: tuple[JournalEntry, ...]  # newest first, the corrupt ones left out

    @classmethod
    def of(cls, root: Path) -> JournalRead:
        journal = Journal(root)
        entries = []
        for read, entry in enumerate(journal.newest_first()):
            if read >= ENTRIES_READ:
                break
            if entry.error is None:
                entries.append(entry)
        return cls(journal, tuple(entries))


def _newest(root: Path, read: JournalRead | None) -> tuple[Journal, Iterator[JournalEntry]]:
    """The journal and its entries newest first (up to ``ENTRIES_READ``, the corrupt ones
    left out): those of ``read``, or read as they are reached."""
    if read is not None:
        return read.journal, iter(read.entries)
    journal = Journal(root)
    lazily = itertools.islice(journal.newest_first(), ENTRIES_READ)
    return journal, (entry for entry in lazily if entry.error is None)


def last_writers(
    root: Path, rels: Iterable[str], read: JournalRead | None = None
) -> dict[str, Writer]:
    """The writer of each note's version on disk now (see the module's docstring); a note
    gone is left out."""
    wanted = set(rels)
    newest: dict[str, tuple[JournalEntry, JournalFile]] = {}
    journal, entries = _newest(root, read)
    for entry in entries:
        if len(newest) == len(wanted):
            break
        if entry.undone:
            continue
        for file in entry.files:
            if file.rel in wanted and file.rel not in newest and file.outcome == "written":
                newest[file.rel] = (entry, file)
    out: dict[str, Writer] = {}
    for rel in sorted(wanted):
        path = Path(root) / rel
        try:
            stat = os.stat(path)
            data = read_regular_file(path)
        except OSError:
            continue
        found = newest.get(rel)
        if found is not None and _holds(data, found[1], journal, found[0]):
            out[rel] = _writer_of(found[0])
        else:
            changed = _dt.datetime.fromtimestamp(stat.st_mtime, _dt.UTC)
            out[rel] = Writer(OUTSIDE, changed.isoformat(timespec="seconds"))
    return out


def writers_since(
    root: Path,
    last: dict[str, Writer],
    since: _dt.datetime,
    reviewed: Mapping[str, str] | None = None,
    read: JournalRead | None = None,
) -> dict[str, tuple[Writer, ...]]:
    """Who wrote each note of ``last`` (its last writer, as ``last_writers`` gives it) since
    ``since`` (aware), oldest first, one after another: the journal's entries that wrote it
    (not undone) and the changes of other programs the watcher logged (``outside``), by
    time; outside Librarian (its time not known) first when the first entry since found the
    note other than its version reviewed (``reviewed``: its digest) and no logged change
    says when; outside Librarian last when the file is no longer what the newest write
    left. A note nobody wrote since, as far as these tell, has its last writer alone."""
    floor = since.astimezone(_dt.UTC)
    found: dict[str, list[tuple[Writer, str]]] = {}  # newest first, with the state before
    for entry in _newest(root, read)[1]:
        try:
            if _dt.datetime.fromisoformat(entry.created) < floor:
                break
        except ValueError:
            continue
        if entry.undone:
            continue
        for file in entry.files:
            if file.rel in last and file.outcome == "written":
                found.setdefault(file.rel, []).append((_writer_of(entry), file.before_digest))
    logged = outside_changes(root, since)
    out: dict[str, tuple[Writer, ...]] = {}
    for rel, writer in last.items():
        wrote = found.get(rel, [])[::-1]  # oldest first
        # (time, 1) for a write; an outside change whose bytes a write started from goes
        # just before that write, (its time, 0), whatever the clocks say (a file's time is
        # the kernel's coarse clock, a few milliseconds behind the journal's), else by time
        keyed: list[tuple[tuple[_dt.datetime, int], Writer]] = [
            ((_dt.datetime.fromisoformat(w.at), 1), w) for w, _ in wrote
        ]
        for at, digest in logged.get(rel, ()):
            when = _dt.datetime.fromisoformat(at)
            before = next((w for w, b in wrote if b == digest), None)
            if before is not None:
                when = _dt.datetime.fromisoformat(before.at)
            keyed.append(((when, 0), Writer(OUTSIDE, at)))
        keyed.sort(key=lambda pair: pair[0])
        events = [w for _, w in keyed]
        seen_first = (reviewed or {}).get(rel)
        if wrote and seen_first not in (None, wrote[0][1]) and events[0].kind != OUTSIDE:
            events.insert(0, Writer(OUTSIDE, ""))  # seen by nobody: its time not known
        if writer.kind == OUTSIDE and (not events or events[-1].kind != OUTSIDE):
            events.append(writer)
        if not events:
            events.append(writer)
        chain: list[Writer] = []
        for w in events:
            if not chain or _who(chain[-1]) != _who(w):
                chain.append(w)
        out[rel] = tuple(chain)
    return out


def _writer_of(entry: JournalEntry) -> Writer:
    """The writer a journal entry records (its ``by``), at the entry's time."""
    by = entry.by
    return Writer(
        by.get("kind", NOT_RECORDED),
        entry.created,
        by.get("client", ""),
        by.get("version", ""),
        by.get("session", ""),
        entry.id,
    )


def _who(writer: Writer) -> tuple[str, str, str]:
    return writer.kind, writer.client, writer.version


def _holds(data: bytes, file: JournalFile, journal: Journal, entry: JournalEntry) -> bool:
    """Whether ``data`` (the file now) is what ``file``'s write left."""
    if file.kind == "append":
        blob = journal.added_bytes(entry, file)
        offset = file.offset
        return blob is not None and offset is not None and data[offset:] == blob
    return digest_of(data) == file.after_digest


def journal_version(
    root: Path, rel: str, digest: str, data: bytes, read: JournalRead | None = None
) -> bytes | None:
    """The version of ``rel`` whose digest is ``digest``, rebuilt from the journal: the
    bytes a replacement replaced (kept for undo), or what ``data`` (the file now) held
    before an append (its bytes up to where the append landed) — None when no entry of the
    newest ``ENTRIES_READ`` holds it."""
    journal, entries = _newest(root, read)
    for entry in entries:
        for file in entry.files:
            if file.rel != rel or file.before_digest != digest or file.outcome != "written":
                continue
            if file.kind == "append" and file.offset is not None:
                head = data[: file.offset]
                if digest_of(head) == digest:
                    return head
            elif file.kind == "replace":
                before = journal.before_bytes(entry, file)
                if before is not None:
                    return before
    return None
