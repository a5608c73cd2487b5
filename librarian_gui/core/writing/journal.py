"""The vault's write journal (``.librarian/journal/``): every write, recorded so it can be undone.

Layout: one folder per entry, named by its id (a sortable UTC timestamp and a counter,
``20240521-101502-123456-000``), holding ``entry.json`` and one ``NNNNN.before`` blob per
file with the file's bytes exactly as they were before the write::

    {"format": 1, "id": ..., "description": ..., "created": ISO time,
     "by": {"kind": "window" | "command line" | "agent", "client": ..., "version": ...,
            "session": ...},
     "files": [{"rel", "before": sha256, "after": sha256, "after_size": int | null,
                "blob": "00000.before", "outcome": "pending" | "written" | "skipped" | "torn",
                "reason": ...}],
     "undo": null | {"at": ISO time, "restored": [rel], "refused": [[rel, reason]]}}

Write-ahead: a marker in ``.librarian/writing/`` names the entry first, then the blobs and
the entry (every outcome "pending") are on disk before the first note is touched, so a
crash mid-run leaves an entry that can still be undone — undo goes by digests, not by the
recorded outcomes — and a marker that tells the next writer to finish it: clear its
temporary files and settle each "pending" outcome from what the files hold
(``finish_interrupted``). An append killed part-way is "torn": the entry keeps where its
bytes landed and how many, and undo removes exactly them. A run that wrote nothing leaves
no entry.
One run of any size is one entry: the auto-tagger passes hundreds of edits, the "Link"
button one.

``by`` says who wrote (DESIGN §6, the review desk): the window, the command line, or an
agent through the MCP server — the client's name and version as it gave them when it
connected, and the server run's session id. It is never written into a note. Entries
written before it was recorded have none (``JournalEntry.by`` is empty).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..vault.files import IgnoreRules, read_regular_file
from . import additions
from .additions import Addition
from .lock import WAIT, vault_lock
from .place import READ_FLAGS, LinkRule, guard_note, open_place, why
from .safewrite import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    FileChanged,
    FileGone,
    Snapshot,
    Swap,
    WriteRefused,
    _read_fd,
    atomic_write,
    digest_of,
    exchange_in,
    keep_recovered,
    settle,
    swap_in,
    write_new,
)

JOURNAL_DIR = ".librarian/journal"
# One empty file per run in progress, named by its entry id: a run that finds one while
# holding the vault lock knows its writer died, and clears the temporary files it left.
WRITING_DIR = ".librarian/writing"
ENTRY_FILE = "entry.json"
SETTLE_GROUP = 64  # files swapped in before their displaced versions are checked together
FORMAT = 1
# Entries holding additions (a note created, text appended: ``additions``) are format 2, so
# that a Librarian too old to undo them says the entry is unknown instead of restoring an
# empty "before".
ADDITIONS_FORMAT = 2
_ID = re.compile(r"\d{8}-\d{6}-\d{6}-\d{3,}")
_BLOB = re.compile(r"\d{5,}\.(?:before|added)")

Outcome = Literal["pending", "written", "skipped", "torn"]


class JournalError(Exception):
    """An entry cannot be read or undone; ``str()`` is a message for the user."""


class AlreadyUndone(JournalError):
    pass


@dataclass(frozen=True, slots=True)
class Edit:
    """One file's change: the snapshot it was computed from and the bytes to write."""

    rel: str
    before: Snapshot
    after: bytes
    # Whether bytes another program appends to the file meanwhile are kept after the edit
    # (a note's new line) rather than making the write stand back (a JSON file's).
    keep_appends: bool = True
    # How a symbolic link on the way is met: the window follows one inside the vault (it
    # edits the link's target); an agent never writes through one (``place.open_place``).
    links: LinkRule = "follow"

    def __post_init__(self) -> None:
        if self.before.rel != self.rel:
            raise ValueError(f"edit of {self.rel} carries a snapshot of {self.before.rel}")


@dataclass(frozen=True, slots=True)
class JournalFile:
    rel: str
    before_digest: str
    after_digest: str
    outcome: Outcome  # "pending": the run was interrupted before recording outcomes
    reason: str = ""  # why it was skipped, or torn
    kind: str = "replace"  # or an addition's: "create", "append" (``additions``)
    offset: int | None = None  # an addition's: where its bytes landed in the file
    # an append's: the digest of the whole file once its bytes landed ("": not recorded)
    appended_after: str = ""

    @property
    def file_after(self) -> str:
        """The digest of the whole file as the write left it ("": not known)."""
        return self.appended_after if self.kind == "append" else self.after_digest


WINDOW = {"kind": "window"}
COMMAND_LINE = {"kind": "command line"}


def agent(client: str, version: str, session: str) -> dict[str, str]:
    """``by`` for an agent's write through the MCP server (see the module's docstring)."""
    return {"kind": "agent", "client": client, "version": version, "session": session}


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One recorded run. ``error`` is set (and the rest empty) when the entry is corrupt."""

    id: str
    description: str
    created: str
    files: tuple[JournalFile, ...] = ()
    undone: bool = False
    error: str | None = None
    by: Mapping[str, str] = field(default_factory=dict)  # who wrote ({}: not recorded)

    @property
    def written(self) -> tuple[str, ...]:
        return tuple(f.rel for f in self.files if f.outcome == "written")

    @property
    def torn(self) -> tuple[tuple[str, str], ...]:
        """Appends that failed part-way and left bytes that undo removes: (rel, reason)."""
        return tuple((f.rel, f.reason) for f in self.files if f.outcome == "torn")

    @property
    def undoable(self) -> bool:
        return not self.undone and any(f.outcome in ("written", "torn") for f in self.files)

    @property
    def skipped(self) -> tuple[tuple[str, str], ...]:
        return tuple((f.rel, f.reason) for f in self.files if f.outcome == "skipped")

    @property
    def interrupted(self) -> bool:
        """The run stopped (a crash) before recording which files it wrote."""
        return any(f.outcome == "pending" for f in self.files)


@dataclass(frozen=True, slots=True)
class UndoResult:
    entry_id: str
    restored: tuple[str, ...]  # given back their bytes from before the run
    refused: tuple[tuple[str, str], ...]  # (rel, reason): changed since, left alone
    untouched: tuple[str, ...] = ()  # already as before the run (never written, or restored)
    # Newer entries passed over on the way to this one: interrupted before they wrote
    # anything (a kill), each a sentence saying which and why.
    passed: tuple[str, ...] = ()


class Journal:
    """The write journal of the vault at ``root``. Every writer goes through ``apply``.

    No note in a hidden folder, or left out by ``.librarianignore`` or ``excluded`` (the
    folders a command or the window was told to skip), is ever written (``guard_note``)."""

    def __init__(
        self, root: Path, excluded: Sequence[str] = (), by: Mapping[str, str] | None = None
    ) -> None:
        self.root = Path(root)
        self.folder = self.root / JOURNAL_DIR
        self.excluded = tuple(excluded)
        self.by = dict(by or {})  # who writes through this journal (WINDOW, COMMAND_LINE, …)
        # Entries dropped while settling interrupted runs: an undo says it passed over them.
        self._dropped: list[str] = []

    # ------------------------------------------------------------ writing

    def apply(
        self,
        description: str,
        edits: Sequence[Edit],
        progress: Callable[[int, int], None] | None = None,
        wait: float = WAIT,
        creates: Sequence[Addition] = (),
    ) -> JournalEntry:
        """Record ``edits``, then write each file (``swap_in``, ``settle``), holding the
        vault's writer lock (``wait`` seconds at most for another writer to finish, then
        ``VaultBusy``).

        A file that changed since its snapshot, or while it was written, or that cannot be
        written is skipped with the reason; the others are still written. The returned
        entry holds every outcome; when nothing was written the entry is not kept (its id
        cannot be undone). ``progress(done, total)`` is called as files are done.

        ``creates``: new notes (``Addition`` of kind "create") made in the same entry,
        before the edits (a split writes its new notes, then the shortened dump): one undo
        takes back both.
        """
        rels = [edit.rel for edit in edits] + [item.rel for item in creates]
        if len(set(rels)) != len(rels):
            raise ValueError("one entry cannot hold two edits of the same file")
        if any(item.kind != "create" for item in creates):
            raise ValueError("an entry of edits creates notes; it appends to none")
        if not creates and all(edit.after == edit.before.data for edit in edits):
            # Nothing to write: no lock either, so a vault never written gets no .librarian.
            files = tuple(
                JournalFile(e.rel, e.before.digest, e.before.digest, "skipped", "nothing to change")
                for e in edits
            )
            return JournalEntry("", description, _now_iso(), files)
        with vault_lock(self.root, wait, description):
            self.finish_interrupted()
            return self._apply(description, edits, progress, creates)

    def add(self, description: str, items: Sequence[Addition], wait: float = WAIT) -> JournalEntry:
        """Record, then make, additions that replace nothing: new notes, text appended to a
        note's end (``additions``). Holding the vault's writer lock like ``apply``, but
        with no snapshot to compare and no grace period to wait out. An addition that cannot
        be made (the note exists, or is missing, binary, outside the vault) is skipped with
        the reason; one that failed part-way and left bytes is "torn" (undo removes them);
        when none is made the entry is not kept."""
        rels = [item.rel for item in items]
        if len(set(rels)) != len(rels):
            raise ValueError("one entry cannot hold two additions to the same file")
        with vault_lock(self.root, wait, description):
            self.finish_interrupted()
            return self._add(description, items)

    def _guard(self) -> Callable[[str], None]:
        """The check every file of a run passes first (``place.guard_note``), with the
        vault's ignore rules read once per run."""
        rules = IgnoreRules(self.root, self.excluded)
        return lambda rel: guard_note(rules, rel)

    def guard(self, rel: str) -> None:
        """``WriteRefused`` when no write may ever touch ``rel`` (a note in a hidden or
        ignored folder): a writer asks before it reads what it will change."""
        self._guard()(rel)

    def _add(self, description: str, items: Sequence[Addition]) -> JournalEntry:
        guard = self._guard()
        checked: list[additions.Before | WriteRefused] = []
        made: list[Addition] = []
        for item in items:
            try:
                guard(item.rel)
                looked, item = additions.look_before(self.root, item)
                checked.append(looked)
            except WriteRefused as exc:
                checked.append(exc)
            made.append(item)
        entry_id, folder, marker = self._begin()
        files: list[dict[str, Any]] = []
        try:
            for number, (item, before) in enumerate(zip(made, checked, strict=True)):
                files.append(self._addition_file(folder, number, item, before))
            record: dict[str, Any] = {
                "format": ADDITIONS_FORMAT,
                "id": entry_id,
                "description": description,
                "created": _now_iso(),
                "files": files,
                "undo": None,
                **({"by": self.by} if self.by else {}),
            }
            atomic_write(folder / ENTRY_FILE, _dump(record))
        except BaseException as exc:
            self._discard(folder)
            _unmark(marker)
            if isinstance(exc, OSError):
                raise _journal_unwritable(exc) from None
            raise
        try:
            self._make_additions(entry_id, folder, record, made, 0)
        finally:
            self._close_entry(folder, record, marker)
        return _entry_from(record)

    @staticmethod
    def _addition_file(
        folder: Path, number: int, item: Addition, before: additions.Before | WriteRefused
    ) -> dict[str, Any]:
        """An addition's record in its entry, its bytes saved beside it first."""
        blob = f"{number:05d}.added"
        write_new(folder / blob, item.data)
        outcome, reason = "pending", ""
        if isinstance(before, WriteRefused):
            outcome, reason = "skipped", before.reason
            before = additions.Before("", 0)
        return {
            "rel": item.rel,
            "kind": item.kind,
            "before": before.digest,
            "after": digest_of(item.data),  # of the added bytes
            "after_size": None,
            "offset": before.size,  # where the bytes should land; then where they did
            "blob": blob,
            **({"made": before.made} if before.made else {}),
            **({"file_after": before.file_after} if before.file_after else {}),
            "outcome": outcome,
            "reason": reason,
        }

    def _make_additions(
        self,
        entry_id: str,
        folder: Path,
        record: dict[str, Any],
        items: Sequence[Addition],
        first: int,
    ) -> None:
        """Make each addition whose file (``record["files"][first + i]``) is still pending,
        recording its outcome there."""
        files = record["files"][first : first + len(items)]
        for number, (item, file) in enumerate(zip(items, files, strict=True), first):
            if file["outcome"] != "pending":
                continue

            def landing(offset: int, file: dict[str, Any] = file) -> None:
                # The note grew since it was read: record where the bytes will land.
                if offset != file["offset"]:
                    file["offset"] = offset
                    atomic_write(folder / ENTRY_FILE, _dump(record))

            try:
                name = temp_name(entry_id, number)
                file["offset"] = additions.add(self.root, item, name, landing)
                file["outcome"] = "written"
            except additions.TornAppend as exc:
                file.update(outcome="torn", reason=exc.reason, offset=exc.offset, landed=exc.landed)
            except WriteRefused as exc:
                file.update(outcome="skipped", reason=exc.reason)
            except OSError as exc:  # the record could not be updated: nothing appended
                file.update(outcome="skipped", reason=_journal_unwritable(exc).reason)

    def _apply(
        self,
        description: str,
        edits: Sequence[Edit],
        progress: Callable[[int, int], None] | None,
        creates: Sequence[Addition] = (),
    ) -> JournalEntry:
        guard = self._guard()
        refused: dict[int, str] = {}
        for number, edit in enumerate(edits):
            try:
                guard(edit.rel)
            except WriteRefused as exc:
                refused[number] = exc.reason
        checked: list[additions.Before | WriteRefused] = []
        for item in creates:
            try:
                guard(item.rel)
                checked.append(additions.look_before(self.root, item)[0])
            except WriteRefused as exc:
                checked.append(exc)
        entry_id, folder, marker = self._begin()
        created = _now_iso()
        files: list[dict[str, Any]] = []
        try:
            for number, edit in enumerate(edits):
                blob = f"{number:05d}.before"
                write_new(folder / blob, edit.before.data)  # before the note is touched
                files.append(
                    {
                        "rel": edit.rel,
                        "before": edit.before.digest,
                        "after": digest_of(edit.after),
                        "after_size": len(edit.after) if edit.keep_appends else None,
                        "blob": blob,
                        "outcome": "pending",
                        "reason": "",
                    }
                )
                if edit.links != "follow":
                    files[-1]["links"] = edit.links
            for number, (item, before) in enumerate(zip(creates, checked, strict=True), len(edits)):
                files.append(self._addition_file(folder, number, item, before))
            record: dict[str, Any] = {
                "format": ADDITIONS_FORMAT if creates else FORMAT,
                "id": entry_id,
                "description": description,
                "created": created,
                "files": files,
                "undo": None,
                **({"by": self.by} if self.by else {}),
            }
            atomic_write(folder / ENTRY_FILE, _dump(record))  # also syncs the folder
        except BaseException as exc:
            # Nothing was written yet: an entry that cannot be complete must not remain.
            self._discard(folder)
            _unmark(marker)
            if isinstance(exc, OSError):
                raise _journal_unwritable(exc) from None
            raise
        if creates:
            try:
                self._make_additions(entry_id, folder, record, creates, len(edits))
            except BaseException:
                self._close_entry(folder, record, marker)
                raise
        jobs: list[_Job] = []
        for number, (edit, file) in enumerate(zip(edits, files, strict=False)):
            if number in refused:
                file.update(outcome="skipped", reason=refused[number])
            elif edit.after == edit.before.data:
                file.update(outcome="skipped", reason="nothing to change")
            else:
                base = len(edit.before.data) if edit.keep_appends else None
                job = _Job(edit.rel, edit.after, edit.before.digest, number, base, edit.links)
                jobs.append(job)
        try:
            self._write_all(entry_id, jobs, "", progress, len(edits) - len(jobs), len(edits))
        finally:
            for job in jobs:  # a job's number is its file's place in the entry
                if job.outcome != "pending":
                    files[job.number].update(outcome=job.outcome, reason=job.reason)
        self._close_entry(folder, record, marker)
        return _entry_from(record)

    def _close_entry(self, folder: Path, record: dict[str, Any], marker: Path) -> None:
        """Save the entry's record with each file's outcome, or drop the entry when it wrote
        nothing; then the write is no longer under way."""
        if any(item["outcome"] in ("written", "torn") for item in record["files"]):
            # The notes are written: failing now would report a done write as failed. If
            # this record cannot be saved, the entry stays "pending", and undo still works
            # from the digests.
            with contextlib.suppress(OSError):
                atomic_write(folder / ENTRY_FILE, _dump(record))
        else:
            self._discard(folder)
        _unmark(marker)

    def _write_all(
        self,
        entry_id: str,
        jobs: Sequence[_Job],
        kind: str,
        progress: Callable[[int, int], None] | None,
        done: int,
        total: int,
    ) -> None:
        """Swap each job's bytes in, group by group, and record in each job "written" or
        "skipped" and why. ``kind`` is "" for a run, "u" for an undo: part of the
        temporary files' names, so that a crash's leftovers can be told apart."""
        for at in range(0, len(jobs), SETTLE_GROUP):
            swaps: list[tuple[Swap, _Job]] = []
            try:
                for job in jobs[at : at + SETTLE_GROUP]:
                    name = temp_name(entry_id, job.number, kind)
                    try:
                        swap = swap_in(
                            self.root,
                            job.rel,
                            job.data,
                            job.expected,
                            name,
                            job.base_size,
                            links=job.links,
                        )
                        swaps.append((swap, job))
                    except WriteRefused as exc:
                        job.refused(exc)
                    done += 1
                    if progress is not None:
                        progress(done, total)
            finally:
                # Also when a cancel or an error stops the run: what is swapped in is settled.
                reasons = settle([swap for swap, _ in swaps])
                for (_, job), reason in zip(swaps, reasons, strict=True):
                    job.outcome, job.reason = (
                        ("written", "") if reason is None else ("skipped", reason)
                    )

    def _begin(self) -> tuple[str, Path, Path]:
        """A new entry's id, its folder and its marker (``_mark_writing``), made one right
        after the other, before anything else of the run."""
        entry_id, folder = self._new_entry_folder()
        try:
            return entry_id, folder, self._mark_writing(entry_id)
        except BaseException:
            self._discard(folder)
            raise

    def _mark_writing(self, entry_id: str) -> Path:
        # Not synced: a crash of the whole machine may lose it, and then the scan still
        # reports the temporary files (``librarian scan --repair``) and undo settles the
        # entry itself. Syncing it would keep each Link click two disk flushes longer.
        marker = self.root / WRITING_DIR / entry_id
        try:
            marker.parent.mkdir(exist_ok=True)
            os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        except OSError as exc:
            raise WriteRefused(
                WRITING_DIR, f"cannot be written ({why(exc)}); nothing was written"
            ) from None
        return marker

    def finish_interrupted(self) -> list[str]:
        """Finish what runs that died mid-write left (a kill, a crash): settle each outcome
        they left "pending" from what the files hold (``_settle_pending``), clear their
        temporary files in the notes' folders and in the journal, and drop an entry that
        never got its record. One sentence per thing done. Call it holding the vault lock:
        then every marker left in ``.librarian/writing`` is a dead run's."""
        try:
            names = sorted(os.listdir(self.root / WRITING_DIR))
        except OSError:  # none (the usual case), or not a folder: nothing to finish
            return []
        said: list[str] = []
        for name in names:
            marker = self.root / WRITING_DIR / name
            if _ID.fullmatch(name):
                said.extend(self._finish(name))
            _unmark(marker)
        return said

    def _finish(self, entry_id: str) -> list[str]:
        folder = self.folder / entry_id
        said = [
            f"{JOURNAL_DIR}/{entry_id}/{n}: removed (left by an interrupted write)"
            for n in _own_temps(folder)
        ]
        try:
            record, _entry = self._load(entry_id)
        except JournalError:
            if folder.is_dir() and not (folder / ENTRY_FILE).exists():
                # Its record was never saved, so no note was touched: nothing to keep.
                self._discard(folder)
                said.append(f"{JOURNAL_DIR}/{entry_id}: removed (a write stopped before it began)")
            return said
        said.extend(self._clear_temps_of(entry_id, record))
        said.extend(self._settle_pending(entry_id, record))
        return said

    def _settle_pending(self, entry_id: str, record: dict[str, Any]) -> list[str]:
        """Decide the outcomes an interrupted run left "pending", from the files as they
        are: an addition whose bytes are all there was written; an append with a part of
        them is torn (``additions.torn_length``); one with none, and a note still as before,
        were not written. An entry that turns out to have written nothing is dropped; one
        that did is saved with its outcomes, so that undo finds it like any other."""
        files = record["files"]
        pending = [item for item in files if item["outcome"] == "pending"]
        if not pending:
            return []
        said = []
        for item in pending:
            rel = item["rel"]
            try:
                current = additions.read_added(self.root, rel)
            except WriteRefused:
                current = None
            kind = item.get("kind", "replace")
            if kind == "replace":
                now = None if current is None else digest_of(current)
                if now == item["after"]:
                    item.update(outcome="written")
                elif now == item["before"]:
                    item.update(outcome="skipped", reason="interrupted before it was written")
                continue  # changed since: left pending, undo goes by its digests
            try:
                data = read_own(self.folder / entry_id / str(item["blob"]))
            except OSError:
                continue
            if kind == "create":
                if current == data:
                    item.update(outcome="written")
                else:
                    item.update(outcome="skipped", reason="interrupted before it was created")
                continue
            landed = 0 if current is None else additions.torn_length(current, data, item["offset"])
            if landed == len(data):
                item.update(outcome="written")
            elif landed:
                item.update(
                    outcome="torn",
                    landed=landed,
                    reason=(
                        f"was interrupted: {landed:,} of {len(data):,} bytes landed; undo this "
                        "write to remove exactly them"
                    ),
                )
            else:
                item.update(outcome="skipped", reason="interrupted before any byte was written")
        if any(item["outcome"] in ("written", "torn", "pending") for item in files):
            with contextlib.suppress(OSError):
                atomic_write(self.folder / entry_id / ENTRY_FILE, _dump(record))
        else:
            self._discard(self.folder / entry_id)
            dropped = (
                f'journal entry {entry_id} ("{record["description"]}") was interrupted before '
                "it wrote anything; removed"
            )
            self._dropped.append(dropped)
            said.append(dropped)
        return said

    def _clear_temps_of(self, entry_id: str, record: dict[str, Any]) -> list[str]:
        folders: dict[str, None] = {}
        for item in record["files"]:
            folder = posixpath.dirname(item["rel"])
            folders[folder] = None
        said = []
        for folder in folders:
            for name in _temps_in(self.root, folder, f"{TEMP_PREFIX}{entry_id}-"):
                said.append(self.repair_temp(posixpath.join(folder, name)))
        return said

    # ------------------------------------------------------------ interrupted writes

    def repair(self, wait: float = WAIT) -> list[str]:
        """Deal with every temporary file interrupted writes left anywhere in the vault
        (``repair_temp``), and with appends an interruption tore (their landed bytes
        removed: the note as before the append), holding the vault's writer lock; one
        sentence per file."""
        if (
            not find_temps(self.root)
            and not (self.root / WRITING_DIR).exists()
            and not (
                self.folder.is_dir() and any(e.torn or e.interrupted for e in self._newest_first())
            )
        ):
            return []  # nothing to repair, and no lock taken (nor .librarian made) for it
        with vault_lock(self.root, wait, "Repair"):
            said = self.finish_interrupted()
            said.extend(self.repair_temp(rel) for rel in find_temps(self.root))
            try:
                entries = list(self._newest_first())
            except JournalError:  # not a folder: the temporary files were all there was to do
                return said
            for entry in entries:
                if entry.error is not None or entry.undone:
                    continue
                if entry.interrupted:  # its marker was lost (a crash of the machine)
                    record, _ = self._load(entry.id)
                    said.extend(self._settle_pending(entry.id, record))
                    with contextlib.suppress(JournalError):
                        entry = self.entry(entry.id)
                if entry.torn:
                    said.extend(self._remove_torn(entry))
            return said

    def _remove_torn(self, entry: JournalEntry) -> list[str]:
        """Undo a torn append's bytes (the rest of its entry stays as it is)."""
        record, _ = self._load(entry.id)
        said = []
        for number, item in enumerate(record["files"]):
            if item["outcome"] != "torn":
                continue
            result = self._undo_files(entry.id, record, {number})
            if item["rel"] in result.restored:
                size = (self.folder / entry.id / str(item["blob"])).stat().st_size
                said.append(
                    f"{item['rel']}: removed the {item['landed']:,} bytes an interrupted append "
                    f"left (of {size:,}); the rest of the note is kept"
                )
                item.update(outcome="skipped", reason="interrupted; its bytes were removed")
            else:
                reasons = dict(result.refused)
                said.append(f"{item['rel']}: torn append not removed ({reasons.get(item['rel'])})")
        if any(item["outcome"] in ("written", "torn") for item in record["files"]):
            with contextlib.suppress(OSError):
                atomic_write(self.folder / entry.id / ENTRY_FILE, _dump(record))
        else:
            self._discard(self.folder / entry.id)
        return said

    def repair_temp(self, rel: str) -> str:
        """Deal with a temporary file an interrupted write left at vault path ``rel``; say
        what was done. A copy the journal knows (the note as it was before or after the
        write) is removed. Anything else holds bytes found nowhere else — what another
        program wrote into the note during the write: swapped back into the note when the
        note still holds what Librarian wrote, else moved to ``.librarian/recovered/``.
        The folder is reached without following a link (``place.open_place``)."""
        name = posixpath.basename(rel)
        try:
            place = open_place(self.root, rel, links="follow")
        except WriteRefused as exc:
            return f"{rel}: {exc.reason}; left as it is"
        with place:
            try:
                fd = os.open(name, READ_FLAGS, dir_fd=place.fd)
            except FileNotFoundError:
                return f"{rel}: already gone"
            except OSError as exc:
                return f"{rel}: cannot be read ({exc.strerror or exc}); left as it is"
            try:
                data = _read_fd(fd, rel)
            except WriteRefused as exc:
                return f"{rel}: {exc.reason}; left as it is"
            finally:
                os.close(fd)
            digest = digest_of(data)
            found = _TEMP.fullmatch(name)
            item = None
            if found is not None:
                with contextlib.suppress(JournalError, IndexError, KeyError, TypeError):
                    record, _entry = self._load(found["id"])
                    item = record["files"][int(found["number"])]
            if item is not None:
                note = item["rel"]
                undoing = found is not None and found["kind"] == "u"
                wrote, replaced = (
                    (item["before"], item["after"]) if undoing else (item["after"], item["before"])
                )
                if item.get("kind") == "create":
                    wrote = replaced = item["after"]  # a new note's bytes, never a displaced one
                if digest in (wrote, replaced):
                    place.unlink(name)
                    which = "before" if digest == item["before"] else "after"
                    return f"{rel}: removed (a copy of {note} from {which} the write)"
                try:
                    current = digest_of(additions.read_added(self.root, note))
                except WriteRefused:
                    current = None
                same_folder = posixpath.dirname(note) == posixpath.dirname(rel)
                # It is the note as another program left it during the write: put it back.
                if (
                    current == wrote
                    and same_folder
                    and exchange_in(place, name, posixpath.basename(note))
                ):
                    place.unlink(name)
                    return (
                        f"{rel}: held what another program wrote to {note} during an "
                        f"interrupted write; put back in {note}"
                    )
            kept = keep_recovered(self.root, rel, data)
            place.unlink(name)
            return f"{rel}: its bytes are not in the journal; moved to {kept}"

    def _discard(self, folder: Path) -> None:
        """Remove an entry that wrote nothing, and the journal folders if now empty: the
        vault holds a journal only once Librarian has written something (DESIGN §7)."""
        shutil.rmtree(folder, ignore_errors=True)
        for empty in (self.folder, self.folder.parent):
            try:
                empty.rmdir()
            except OSError:  # not empty (other entries, other files): keep it
                break

    def _new_entry_folder(self) -> tuple[str, Path]:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S-%f")
        counter = 0
        while True:  # mkdir is the lock: two writers (GUI and command line) never share one
            entry_id = f"{stamp}-{counter:03d}"
            folder = self.folder / entry_id
            try:
                folder.mkdir()
            except FileExistsError:
                counter += 1
                continue
            except FileNotFoundError:  # first write, or another writer just discarded it
                self._make_folder()
                continue
            except NotADirectoryError:
                raise JournalError(f"{JOURNAL_DIR} {_NOT_A_FOLDER}") from None
            except OSError as exc:
                raise _journal_unwritable(exc) from None
            return entry_id, folder

    def _make_folder(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise JournalError(f"{JOURNAL_DIR} {_NOT_A_FOLDER}") from None
        except OSError as exc:
            raise _journal_unwritable(exc) from None

    # ------------------------------------------------------------ reading

    def entries(self) -> list[JournalEntry]:
        """Every entry, newest first; a corrupt one comes back with ``error`` set."""
        return list(self._newest_first())

    def added_bytes(self, entry: JournalEntry, file: JournalFile) -> bytes | None:
        """The bytes an addition of ``entry`` added (kept in the entry), or None when they
        cannot be read."""
        number = entry.files.index(file)
        try:
            return read_own(self.folder / entry.id / f"{number:05d}.added")
        except OSError:
            return None

    def before_bytes(self, entry: JournalEntry, file: JournalFile) -> bytes | None:
        """The bytes a replacement of ``entry`` replaced (kept in the entry for undo), or
        None when they cannot be read or are not what the entry recorded."""
        if file.kind != "replace":
            return None
        number = entry.files.index(file)
        try:
            data = read_own(self.folder / entry.id / f"{number:05d}.before")
        except OSError:
            return None
        return data if digest_of(data) == file.before_digest else None

    def newest_first(self) -> Iterator[JournalEntry]:
        """The entries, newest first, each read when reached (stop when you have enough)."""
        return self._newest_first()

    def undoable(self) -> JournalEntry | None:
        """The newest entry that wrote and is not undone (None: nothing to undo), reading
        only the entries newer than it."""
        for entry in self._newest_first():
            if entry.written and not entry.undone:
                return entry
        return None

    def _newest_first(self) -> Iterator[JournalEntry]:
        """The entries, newest first, each read when reached."""
        try:
            names = [
                e.name for e in os.scandir(self.folder) if _ID.fullmatch(e.name) and e.is_dir()
            ]
        except FileNotFoundError:
            return iter(())
        except NotADirectoryError:
            raise JournalError(f"{JOURNAL_DIR} {_NOT_A_FOLDER}") from None
        except OSError as exc:
            raise JournalError(f"{JOURNAL_DIR} cannot be read ({exc.strerror or exc})") from None
        return (self._load_or_error(name) for name in sorted(names, reverse=True))

    def entry(self, entry_id: str) -> JournalEntry:
        """One entry; ``JournalError`` when there is no such entry or it is corrupt."""
        _, entry = self._load(entry_id)
        return entry

    def _load_or_error(self, entry_id: str) -> JournalEntry:
        try:
            return self._load(entry_id)[1]
        except JournalError as exc:
            return JournalEntry(entry_id, "", "", error=str(exc))

    def _load(self, entry_id: str) -> tuple[dict[str, Any], JournalEntry]:
        if not _ID.fullmatch(entry_id):
            raise JournalError(f"{entry_id!r} is not a journal entry id")
        path = self.folder / entry_id / ENTRY_FILE
        where = f"journal entry {entry_id}"
        try:
            raw = read_own(path, MAX_RECORD_BYTES)
        except FileNotFoundError:
            if (self.folder / entry_id).is_dir():
                raise JournalError(
                    f"{where} is incomplete (no {ENTRY_FILE}): the run stopped before "
                    "writing anything, or the entry was damaged; it cannot be undone"
                ) from None
            raise JournalError(f"there is no {where}") from None
        except OSError as exc:
            raise JournalError(f"{where} cannot be read ({exc.strerror or exc})") from None
        try:
            record = json.loads(raw.decode("utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            if record.get("format") not in (FORMAT, ADDITIONS_FORMAT):
                raise ValueError(f"unknown format {record.get('format')!r}")
            entry = _entry_from(record)
            if entry.id != entry_id:
                raise ValueError(f"it names itself {entry.id!r}")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise JournalError(f"{where} is corrupt ({exc}); it cannot be undone") from None
        return record, entry

    # ------------------------------------------------------------ undoing

    def undo(self, entry_id: str | None = None, wait: float = WAIT) -> UndoResult:
        """Give each file written by the entry (the newest not undone, by default) its
        bytes from before, unless it changed since: that file is refused, the others are
        restored. Undoing an undone entry raises ``AlreadyUndone``. Holds the vault's
        writer lock, as ``apply`` does. An entry a kill interrupted is settled first
        (``_settle_pending``); the newest that turns out to have written nothing is passed
        over on the way to the one before it, and ``UndoResult.passed`` says so."""
        if not self.folder.exists():  # a vault never written: nothing to lock for
            raise JournalError(
                f"there is no journal entry {entry_id}"
                if entry_id
                else "nothing to undo: every write in the journal is undone"
            )
        with vault_lock(self.root, wait, "Undo"):
            self._dropped = []
            self.finish_interrupted()
            if entry_id is None:
                entry_id = self._newest_to_undo()
            else:
                self._settle_if_pending(entry_id)
            record, entry = self._load(entry_id)
            if entry.undone:
                raise AlreadyUndone(f'"{entry.description}" ({entry_id}) is already undone')
            numbers = {n for n, f in enumerate(entry.files) if f.outcome != "skipped"}
            result = self._undo_files(entry_id, record, numbers)
            if result.restored or not result.refused:
                # Refused everywhere: leave the entry undoable, to retry once the files are back.
                record["undo"] = {
                    "at": _now_iso(),
                    "restored": list(result.restored),
                    "refused": [list(pair) for pair in result.refused],
                }
                # Should this fail, a second undo finds every restored file already as before.
                with contextlib.suppress(OSError):
                    atomic_write(self.folder / entry_id / ENTRY_FILE, _dump(record))
            passed = tuple(self._dropped)
            return UndoResult(entry_id, result.restored, result.refused, result.untouched, passed)

    def _settle_if_pending(self, entry_id: str) -> list[str]:
        try:
            record, entry = self._load(entry_id)
        except JournalError:
            return []
        return self._settle_pending(entry_id, record) if entry.interrupted else []

    def _undo_files(self, entry_id: str, record: dict[str, Any], numbers: set[int]) -> UndoResult:
        """Give the files ``numbers`` of the entry their bytes from before (see ``undo``);
        the entry's record is the caller's to save."""
        entry = _entry_from(record)
        refused: list[tuple[str, str]] = []
        jobs: list[_Job] = []
        restored: list[str] = []
        untouched: list[str] = []
        for number, (item, file) in enumerate(zip(record["files"], entry.files, strict=True)):
            if number not in numbers:
                continue
            if file.kind != "replace":
                job = self._undo_addition(entry_id, number, item, restored, untouched, refused)
                if job is not None:
                    jobs.append(job)
                continue
            try:
                before = read_own(self.folder / entry_id / str(item["blob"]))
            except OSError as exc:
                refused.append((file.rel, f"its copy in the journal is missing ({exc})"))
                continue
            if digest_of(before) != file.before_digest:
                refused.append((file.rel, "its copy in the journal is damaged; left alone"))
                continue
            size = item.get("after_size")
            base = size if type(size) is int and size >= 0 else None
            links: LinkRule = "refuse" if item.get("links") == "refuse" else "follow"
            jobs.append(_Job(file.rel, before, file.after_digest, number, base, links))
        marker = self._mark_writing(entry_id)
        self._write_all(entry_id, jobs, "u", None, 0, len(jobs))
        _unmark(marker)
        for job in jobs:
            if job.outcome == "written":
                restored.append(job.rel)
            elif job.current == digest_of(job.data):
                untouched.append(job.rel)  # never written, or undone by hand already
            elif job.gone:
                refused.append((job.rel, "was deleted since; not restored"))
            elif job.current is not None:
                refused.append((job.rel, "changed since this write; left alone so no edit is lost"))
            else:
                refused.append((job.rel, job.reason))
        order = {file.rel: n for n, file in enumerate(entry.files)}
        refused.sort(key=lambda pair: order[pair[0]])
        return UndoResult(entry_id, tuple(restored), tuple(refused), tuple(untouched))

    def _undo_addition(
        self,
        entry_id: str,
        number: int,
        item: dict[str, Any],
        restored: list[str],
        untouched: list[str],
        refused: list[tuple[str, str]],
    ) -> _Job | None:
        """Undo one addition: a created note moved into the entry (its bytes kept there),
        appended bytes (all of them, or the part a torn append left) cut out by a swap
        (returned as the job to run); else say why not."""
        rel = item["rel"]
        try:
            data = read_own(self.folder / entry_id / str(item["blob"]))
        except OSError as exc:
            refused.append((rel, f"its copy in the journal is missing ({exc})"))
            return None
        if digest_of(data) != item["after"]:
            refused.append((rel, "its copy in the journal is damaged; left alone"))
            return None
        addition = Addition(rel, data, item["kind"])
        landed = item.get("landed") if item["outcome"] == "torn" else None
        try:
            removal = additions.undo_plan(self.root, addition, int(item["offset"]), landed)
        except FileGone:
            if addition.kind == "create":
                untouched.append(rel)  # as before the write: no such note
            else:
                refused.append((rel, "was deleted since; not restored"))
            return None
        except WriteRefused as exc:
            refused.append((rel, exc.reason))
            return None
        if removal.data is not None:  # text appended since the undo's read is kept
            return _Job(rel, removal.data, removal.current, number, removal.size, "refuse")
        kept = self.folder / entry_id / f"{number:05d}.undone"
        try:
            additions.move_into(self.root, rel, kept)
        except (OSError, WriteRefused) as exc:
            refused.append((rel, f"cannot be moved into the journal ({exc})"))
            return None
        additions.remove_made_folders(self.root, rel, str(item.get("made", "")))
        restored.append(rel)
        return None

    def _newest_to_undo(self) -> str:
        return self.newest(lambda entry: True)

    def newest(self, wanted: Callable[[JournalEntry], bool], what: str = "write") -> str:
        """The id of the newest entry not undone that ``wanted`` accepts. A damaged entry
        newer than it stops the search with ``JournalError``: it may be the one meant, and
        undoing an older one instead is not what the user asked for. An entry a kill
        interrupted is settled on the way; one that wrote nothing is passed over."""
        for entry in self._newest_first():
            if entry.error is not None and not (self.folder / entry.id / ENTRY_FILE).exists():
                continue  # stopped before its record was saved, so before any note was written
            if entry.error is not None:
                raise JournalError(
                    f"the newest journal entry {entry.id} is damaged ({entry.error}), so "
                    f"nothing was undone: it may be the {what} you mean. Undo an older "
                    f"{what} with --entry ID, or move the folder {JOURNAL_DIR}/{entry.id} away."
                )
            if entry.interrupted and not entry.undone:
                self._settle_if_pending(entry.id)
                try:
                    entry = self.entry(entry.id)
                except JournalError:
                    continue  # dropped: it wrote nothing
            if not entry.undone and wanted(entry):
                return entry.id
        if what == "write":
            raise JournalError("nothing to undo: every write in the journal is undone")
        raise JournalError(f"no {what} to undo")


def _entry_from(record: dict[str, Any]) -> JournalEntry:
    files = []
    for item in record["files"]:
        outcome = item["outcome"]
        if outcome not in ("pending", "written", "skipped", "torn"):
            raise ValueError(f"unknown outcome {outcome!r}")
        if outcome == "torn" and type(item.get("landed")) is not int:
            raise TypeError("the landed length of a torn append is not a number")
        for key in ("rel", "before", "after", "blob", "reason"):
            if not isinstance(item[key], str):
                raise TypeError(f"{key} of a file is not text")
        if not _BLOB.fullmatch(item["blob"]):
            raise ValueError(f"blob name {item['blob']!r}")
        kind = item.get("kind", "replace")
        if kind not in ("replace", "create", "append"):
            raise ValueError(f"unknown kind of write {kind!r}")
        if kind != "replace" and type(item.get("offset")) is not int:
            raise TypeError("the offset of an addition is not a number")
        files.append(
            JournalFile(
                item["rel"],
                item["before"],
                item["after"],
                outcome,
                item["reason"],
                kind,
                item["offset"] if kind != "replace" else None,
                str(item.get("file_after") or "") if kind == "append" else "",
            )
        )
    for key in ("id", "description", "created"):
        if not isinstance(record[key], str):
            raise TypeError(f"{key} is not text")
    by = record.get("by") or {}
    if not isinstance(by, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in by.items()
    ):
        raise TypeError("who wrote it is not a mapping of text")
    return JournalEntry(
        record["id"],
        record["description"],
        record["created"],
        tuple(files),
        undone=record["undo"] is not None,
        by=by,
    )


def _dump(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, indent=1).encode("utf-8")


def _now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds")


class _Job:
    """One file to swap in: its new bytes, the digest it must have now, its number in the
    entry; then the outcome ("written" or "skipped" and why, ``current``: the digest found
    instead of the expected one, ``gone``: the file no longer exists)."""

    __slots__ = (
        "base_size",
        "current",
        "data",
        "expected",
        "gone",
        "links",
        "number",
        "outcome",
        "reason",
        "rel",
    )

    def __init__(
        self,
        rel: str,
        data: bytes,
        expected: str,
        number: int,
        base_size: int | None,
        links: LinkRule = "follow",
    ) -> None:
        self.rel = rel
        self.links: LinkRule = links
        self.data = data
        self.expected = expected
        self.number = number
        self.base_size = base_size  # bytes appended to the file since are kept (swap_in)
        self.outcome: Outcome = "pending"
        self.reason = ""
        self.current: str | None = None
        self.gone = False

    def refused(self, exc: WriteRefused) -> None:
        self.outcome, self.reason = "skipped", exc.reason
        if isinstance(exc, FileChanged):
            self.current = exc.current_digest
            self.gone = isinstance(exc, FileGone)


def temp_name(entry_id: str, number: int, kind: str = "") -> str:
    """The temporary file's name for file ``number`` of an entry (``kind`` "u": its undo)."""
    return f"{TEMP_PREFIX}{entry_id}-{number:05d}{'-' + kind if kind else ''}{TEMP_SUFFIX}"


_TEMP = re.compile(
    re.escape(TEMP_PREFIX)
    + r"(?P<id>\d{8}-\d{6}-\d{6}-\d{3,})-(?P<number>\d{5,})(?:-(?P<kind>u))?(?:-\d+)?"
    + re.escape(TEMP_SUFFIX)
)
_NOT_A_FOLDER = (
    "is a file, not a folder: Librarian keeps its undo journal there, so it writes nothing. "
    "Move that file away."
)


def _unmark(marker: Path) -> None:
    with contextlib.suppress(OSError):
        marker.unlink()
    with contextlib.suppress(OSError):
        marker.parent.rmdir()  # only when empty


MAX_RECORD_BYTES = 256 << 20  # an entry.json of a million files; more is not one of ours


def read_own(path: Path, limit: int | None = None) -> bytes:
    """One of the journal's files: never through a link, never blocking on a pipe planted
    in its place, never a device, at most ``limit`` bytes (``OSError`` saying why not)."""
    return read_regular_file(path, limit, links=False)


def _journal_unwritable(exc: OSError) -> WriteRefused:
    return WriteRefused(
        JOURNAL_DIR,
        f"the undo journal cannot be written ({why(exc)}); nothing was written. "
        + (
            "Free some space and retry."
            if exc.errno in (errno.ENOSPC, errno.EDQUOT)
            else "Make .librarian writable and retry."
        ),
    )


def _own_temps(folder: Path) -> list[str]:
    """Librarian's temporary files in a folder of its own (a journal entry's)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
                found.append(name)
    return sorted(found)


def _temps_in(root: Path, folder: str, prefix: str) -> list[str]:
    """The names of the temporary files starting with ``prefix`` in the vault folder
    ``folder``, reached without following a link (none when it cannot be)."""
    try:
        place = open_place(root, posixpath.join(folder, "x") if folder else "x", links="follow")
    except WriteRefused:
        return []
    with place:
        try:
            names = os.listdir(place.fd)
        except OSError:
            return []
    return sorted(n for n in names if n.startswith(prefix) and n.endswith(TEMP_SUFFIX))


def find_temps(root: Path) -> list[str]:
    """The vault paths of Librarian's temporary files in the vault's folders (dot-folders
    and symlinked folders left out: Librarian writes in neither), sorted."""
    found = []
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        rel_folder = os.path.relpath(folder, root)
        for name in names:
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                rel = name if rel_folder == "." else f"{rel_folder}/{name}"
                found.append(rel.replace(os.sep, "/"))
    return sorted(found)
