"""The vault's write journal (``.librarian/journal/``): every write, recorded so it can be undone.

Layout: one folder per entry, named by its id (a sortable UTC timestamp and a counter,
``20240521-101502-123456-000``), holding ``entry.json`` and one ``NNNNN.before`` blob per
file with the file's bytes exactly as they were before the write::

    {"format": 1, "id": ..., "description": ..., "created": ISO time,
     "files": [{"rel", "before": sha256, "after": sha256, "blob": "00000.before",
                "outcome": "pending" | "written" | "skipped", "reason": ...}],
     "undo": null | {"at": ISO time, "restored": [rel], "refused": [[rel, reason]]}}

Write-ahead: the blobs and the entry (every outcome "pending") are on disk before the first
note is replaced, so a crash mid-run leaves an entry that can still be undone — undo goes
by digests, not by the recorded outcomes. A run that wrote nothing leaves no entry.
One run of any size is one entry: the auto-tagger passes hundreds of edits, the "Link"
button one.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .safewrite import (
    FileChanged,
    Snapshot,
    WriteRefused,
    atomic_write,
    digest_of,
    replace_file,
)

JOURNAL_DIR = ".librarian/journal"
ENTRY_FILE = "entry.json"
FORMAT = 1
_ID = re.compile(r"\d{8}-\d{6}-\d{6}-\d{3,}")
_BLOB = re.compile(r"\d{5,}\.before")

Outcome = Literal["pending", "written", "skipped"]


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

    def __post_init__(self) -> None:
        if self.before.rel != self.rel:
            raise ValueError(f"edit of {self.rel} carries a snapshot of {self.before.rel}")


@dataclass(frozen=True, slots=True)
class JournalFile:
    rel: str
    before_digest: str
    after_digest: str
    outcome: Outcome  # "pending": the run was interrupted before recording outcomes
    reason: str = ""  # why it was skipped


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One recorded run. ``error`` is set (and the rest empty) when the entry is corrupt."""

    id: str
    description: str
    created: str
    files: tuple[JournalFile, ...] = ()
    undone: bool = False
    error: str | None = None

    @property
    def written(self) -> tuple[str, ...]:
        return tuple(f.rel for f in self.files if f.outcome == "written")

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


class Journal:
    """The write journal of the vault at ``root``. Every writer goes through ``apply``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.folder = self.root / JOURNAL_DIR

    # ------------------------------------------------------------ writing

    def apply(
        self,
        description: str,
        edits: Sequence[Edit],
        progress: Callable[[int, int], None] | None = None,
    ) -> JournalEntry:
        """Record ``edits``, then write each file through ``replace_file``.

        A file that changed since its snapshot (or cannot be written) is skipped with the
        reason; the others are still written. The returned entry holds every outcome; when
        nothing was written the entry is not kept (its id cannot be undone).
        ``progress(done, total)`` is called after each file.
        """
        rels = [edit.rel for edit in edits]
        if len(set(rels)) != len(rels):
            raise ValueError("one entry cannot hold two edits of the same file")
        if not edits:
            return JournalEntry("", description, _now_iso())
        entry_id, folder = self._new_entry_folder()
        created = _now_iso()
        files: list[dict[str, Any]] = []
        try:
            for number, edit in enumerate(edits):
                blob = f"{number:05d}.before"
                _write_new(folder / blob, edit.before.data)
                files.append(
                    {
                        "rel": edit.rel,
                        "before": edit.before.digest,
                        "after": digest_of(edit.after),
                        "blob": blob,
                        "outcome": "pending",
                        "reason": "",
                    }
                )
            record: dict[str, Any] = {
                "format": FORMAT,
                "id": entry_id,
                "description": description,
                "created": created,
                "files": files,
                "undo": None,
            }
            atomic_write(folder / ENTRY_FILE, _dump(record))  # also syncs the folder
        except BaseException:
            # Nothing was written yet: an entry that cannot be complete must not remain.
            self._discard(folder)
            raise
        for done, (edit, item) in enumerate(zip(edits, files, strict=True), 1):
            if edit.after == edit.before.data:
                item.update(outcome="skipped", reason="nothing to change")
            else:
                try:
                    replace_file(self.root, edit.rel, edit.after, edit.before.digest)
                    item["outcome"] = "written"
                except WriteRefused as exc:
                    item.update(outcome="skipped", reason=exc.reason)
            if progress is not None:
                progress(done, len(edits))
        if any(item["outcome"] == "written" for item in files):
            # The notes are written: failing now would report a done write as failed. If
            # this record cannot be saved, the entry stays "pending", and undo still works
            # from the digests.
            with contextlib.suppress(OSError):
                atomic_write(folder / ENTRY_FILE, _dump(record))
        else:
            self._discard(folder)
        return _entry_from(record)

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
                self.folder.mkdir(parents=True, exist_ok=True)
                continue
            return entry_id, folder

    # ------------------------------------------------------------ reading

    def entries(self) -> list[JournalEntry]:
        """Every entry, newest first; a corrupt one comes back with ``error`` set."""
        try:
            names = [
                e.name for e in os.scandir(self.folder) if _ID.fullmatch(e.name) and e.is_dir()
            ]
        except FileNotFoundError:
            return []
        return [self._load_or_error(name) for name in sorted(names, reverse=True)]

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
            raw = path.read_bytes()
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
            if record.get("format") != FORMAT:
                raise ValueError(f"unknown format {record.get('format')!r}")
            entry = _entry_from(record)
            if entry.id != entry_id:
                raise ValueError(f"it names itself {entry.id!r}")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise JournalError(f"{where} is corrupt ({exc}); it cannot be undone") from None
        return record, entry

    # ------------------------------------------------------------ undoing

    def undo(self, entry_id: str | None = None) -> UndoResult:
        """Give each file written by the entry (the newest not undone, by default) its
        bytes from before, unless it changed since: that file is refused, the others are
        restored. Undoing an undone entry raises ``AlreadyUndone``."""
        if entry_id is None:
            entry_id = self._newest_to_undo()
        record, entry = self._load(entry_id)
        if entry.undone:
            raise AlreadyUndone(f'"{entry.description}" ({entry_id}) is already undone')
        restored: list[str] = []
        refused: list[tuple[str, str]] = []
        untouched: list[str] = []
        for item, file in zip(record["files"], entry.files, strict=True):
            if file.outcome == "skipped":
                continue
            try:
                before = (self.folder / entry_id / str(item["blob"])).read_bytes()
            except OSError as exc:
                refused.append((file.rel, f"its copy in the journal is missing ({exc})"))
                continue
            if digest_of(before) != file.before_digest:
                refused.append((file.rel, "its copy in the journal is damaged; left alone"))
                continue
            try:
                replace_file(self.root, file.rel, before, file.after_digest)
                restored.append(file.rel)
            except FileChanged as exc:
                if exc.current_digest == file.before_digest:
                    untouched.append(file.rel)  # never written, or undone by hand already
                elif exc.current_digest is None:
                    refused.append((file.rel, "was deleted since; not restored"))
                else:
                    refused.append(
                        (file.rel, "changed since this write; left alone so no edit is lost")
                    )
            except WriteRefused as exc:
                refused.append((file.rel, exc.reason))
        if restored or not refused:
            # Refused everywhere: leave the entry undoable, to retry once the files are back.
            record["undo"] = {
                "at": _now_iso(),
                "restored": restored,
                "refused": [list(pair) for pair in refused],
            }
            # Should this fail, a second undo finds every restored file already as before.
            with contextlib.suppress(OSError):
                atomic_write(self.folder / entry_id / ENTRY_FILE, _dump(record))
        return UndoResult(entry_id, tuple(restored), tuple(refused), tuple(untouched))

    def _newest_to_undo(self) -> str:
        for entry in self.entries():
            if entry.error is not None and not (self.folder / entry.id / ENTRY_FILE).exists():
                continue  # stopped before its record was saved, so before any note was written
            if entry.error is not None:
                # Undoing an older entry instead would not be what the user asked for.
                raise JournalError(
                    f"the newest entry cannot be undone: {entry.error}. Undo an entry by its "
                    f"id, or remove the folder {JOURNAL_DIR}/{entry.id}"
                )
            if not entry.undone:
                return entry.id
        raise JournalError("nothing to undo: every write in the journal is undone")


def _entry_from(record: dict[str, Any]) -> JournalEntry:
    files = []
    for item in record["files"]:
        outcome = item["outcome"]
        if outcome not in ("pending", "written", "skipped"):
            raise ValueError(f"unknown outcome {outcome!r}")
        for key in ("rel", "before", "after", "blob", "reason"):
            if not isinstance(item[key], str):
                raise TypeError(f"{key} of a file is not text")
        if not _BLOB.fullmatch(item["blob"]):
            raise ValueError(f"blob name {item['blob']!r}")
        files.append(
            JournalFile(item["rel"], item["before"], item["after"], outcome, item["reason"])
        )
    for key in ("id", "description", "created"):
        if not isinstance(record[key], str):
            raise TypeError(f"{key} is not text")
    return JournalEntry(
        record["id"],
        record["description"],
        record["created"],
        tuple(files),
        undone=record["undo"] is not None,
    )


def _write_new(path: Path, data: bytes) -> None:
    """A blob: written once, durably, before the note it copies is touched."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _dump(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, indent=1).encode("utf-8")


def _now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds")
