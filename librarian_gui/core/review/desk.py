"""The review desk (issue 32 item 2): what changed since the user last reviewed, by day.

- **Marks** live outside the vault, per vault (the user's data folder,
  ``review/<vault key>.json``): a note marked reviewed keeps the digest of the version the
  user saw, and a copy of its bytes goes to the cache folder (``review/<vault key>/``, at most
  ``COPIES_BYTES``, the oldest dropped first) so the next change shows as a diff. "Everything
  up to" a time marks every note not changed since.
- **The desk** lists each note whose file changed after the last "everything up to" mark (or
  ``since``), unless its version on disk is the one marked reviewed: grouped by the day it
  changed, newest first; each with who wrote that version (``provenance``), the diff from
  the version last reviewed when a copy of it is kept (``changed``; else ``unreviewed``: a
  note new since, or reviewed only by an "everything up to" mark, which keeps no copies — the
  diff then shows the whole note as added; but an "everything up to" mark keeps each
  note's digest, and when the journal still holds that version — before a write Librarian
  made since, an agent's append or a link added — the diff is from it), its backlinks and
  the concepts it links, and its **repeats**: its passages that another note already
  holds nearly the same (``duplicates``: boilerplate is not a repeat), so the reviewer can
  merge or link instead.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from ..index.cache import vault_key
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..vault.files import read_regular_file
from ..writing.safewrite import atomic_write, digest_of
from .provenance import JournalRead, Writer, journal_version, last_writers, writers_since

if TYPE_CHECKING:  # numpy is imported only when repeats are asked for (not by ``reviewed``)
    from .duplicates import PassageStore

COPIES_BYTES = 64 * 1024 * 1024  # reviewed versions kept for diffs, all vaults' together
DIFF_LINES = 400  # lines of one note's diff shown; the rest is counted
SINCE_DAYS = 7  # with no mark yet, the desk starts this many days back


def marks_file(root: Path) -> Path:
    return (
        Path(platformdirs.user_data_dir("librarian", appauthor=False))
        / "review"
        / (vault_key(root) + ".json")
    )


def copies_dir(root: Path) -> Path:
    return (
        Path(platformdirs.user_cache_dir("librarian", appauthor=False)) / "review" / vault_key(root)
    )


@dataclass(slots=True)
class Marks:
    up_to: str | None = None  # ISO time: every note not changed since is reviewed
    notes: dict[str, dict[str, str]] = field(default_factory=dict)  # rel → digest, at

    def json(self) -> dict[str, Any]:
        return {"format": 1, "up_to": self.up_to, "notes": self.notes}


def load_marks(root: Path) -> Marks:
    """The vault's marks (none yet: empty; a damaged file: empty, as if none)."""
    try:
        data = json.loads(marks_file(root).read_text(encoding="utf-8"))
        notes = {
            str(rel): {"digest": str(v["digest"]), "at": str(v["at"])}
            for rel, v in data.get("notes", {}).items()
        }
        up_to = data.get("up_to")
        return Marks(str(up_to) if up_to else None, notes)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return Marks()


def _save(root: Path, marks: Marks) -> None:
    path = marks_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(marks.json(), indent=1, ensure_ascii=False).encode("utf-8"))


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def mark_notes(root: Path, rels: list[str]) -> list[str]:
    """Mark the versions of ``rels`` on disk now as reviewed, keeping a copy of each for the
    next diff; returns those marked (a note gone is left out)."""
    marks = load_marks(root)
    done = []
    for rel in rels:
        try:
            data = read_regular_file(Path(root) / rel)
        except OSError:
            continue
        digest = digest_of(data)
        _keep_copy(root, digest, data)
        marks.notes[rel] = {"digest": digest, "at": _now()}
        done.append(rel)
    _save(root, marks)
    return done


def mark_up_to(root: Path, when: _dt.datetime, rels: Iterable[str] = ()) -> None:
    """Every note not changed after ``when`` (aware) is reviewed. The digest of each of
    ``rels`` (the vault's notes) not changed after it is kept too, without a copy: a later
    write through Librarian then shows as a diff from it (``journal_version``)."""
    marks = load_marks(root)
    limit = when.timestamp()
    at = _now()
    for rel in rels:
        path = Path(root) / rel
        try:
            stamp = os.stat(path).st_mtime_ns
            if stamp / 1e9 > limit:
                continue  # changed since: not reviewed
            data = read_regular_file(path)
            if os.stat(path).st_mtime_ns != stamp:
                continue  # changed while read
        except OSError:
            continue
        digest = digest_of(data)
        if marks.notes.get(rel, {}).get("digest") != digest:
            marks.notes[rel] = {"digest": digest, "at": at}
    # to the microsecond: a note saved in the same second, before the mark, is reviewed
    marks.up_to = when.astimezone(_dt.UTC).isoformat(timespec="microseconds")
    _save(root, marks)


def _keep_copy(root: Path, digest: str, data: bytes) -> None:
    folder = copies_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / digest
    if not path.exists():
        atomic_write(path, data)
    _bound(folder.parent)


def _bound(folder: Path) -> None:
    """Keep the reviewed copies of every vault under ``COPIES_BYTES``: the oldest go first."""
    files: list[tuple[int, int, Path]] = []
    for vault in folder.iterdir():
        if vault.is_dir():
            for entry in os.scandir(vault):
                st = entry.stat()
                files.append((st.st_mtime_ns, st.st_size, Path(entry.path)))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= COPIES_BYTES:
            break
        path.unlink(missing_ok=True)
        total -= size


@dataclass(frozen=True, slots=True)
class Repeat:
    """A passage of the note (``lines``) that ``other`` holds nearly the same (``at``)."""

    lines: tuple[int, int]
    other: str
    at: tuple[int, int]
    similarity: float

    def json(self) -> dict[str, Any]:
        return {
            "lines": list(self.lines),
            "note": self.other,
            "note_lines": list(self.at),
            "similarity": round(self.similarity, 3),
        }


@dataclass(frozen=True, slots=True)
class DeskItem:
    note: str
    changed: str  # ISO time of the file's change
    by: Writer
    status: str  # "changed" (from the version reviewed) or "unreviewed" (no copy of one)
    diff: str | None  # from the version last reviewed (none kept: from nothing)
    diff_lines: int  # the diff's whole length (it is cut at DIFF_LINES)
    backlinks: int
    concepts: tuple[str, ...]
    repeats: tuple[Repeat, ...] = ()
    writers: tuple[Writer, ...] = ()  # everyone who wrote it since the review, oldest first

    def json(self) -> dict[str, Any]:
        return {
            "note": self.note,
            "changed": self.changed,
            "by": self.by.json(),
            "writers": [w.json() for w in self.writers or (self.by,)],
            "status": self.status,
            "diff": self.diff,
            "diff_lines": self.diff_lines,
            "backlinks": self.backlinks,
            "concepts": list(self.concepts),
            "repeats": [r.json() for r in self.repeats],
        }


@dataclass(frozen=True, slots=True)
class Desk:
    since: str
    days: tuple[tuple[str, tuple[DeskItem, ...]], ...]  # (YYYY-MM-DD, items), newest first

    def json(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "days": [{"day": day, "notes": [i.json() for i in items]} for day, items in self.days],
        }


def review_desk(
    index: IndexView,
    since: _dt.datetime | None = None,
    *,
    repeats: bool = True,
    store: PassageStore | None = None,
) -> Desk:
    """The desk for ``index``'s vault (see the module's docstring). ``since`` (aware):
    start there instead of at the last "everything up to" mark. ``repeats``: find them
    (every note's passages are read; ``store`` keeps them for the next look, reading again
    only the notes changed since)."""
    index = index.snapshot()
    root = index.root
    marks = load_marks(root)
    if since is None:
        since = (
            _dt.datetime.fromisoformat(marks.up_to)
            if marks.up_to
            else _dt.datetime.now(_dt.UTC) - _dt.timedelta(days=SINCE_DAYS)
        )
    floor = since.timestamp()
    changed: list[tuple[float, str]] = []
    for rel in index.notes:
        try:
            mtime = os.stat(Path(root) / rel).st_mtime
        except OSError:
            continue
        if mtime > floor:
            changed.append((mtime, rel))
    changed.sort(reverse=True)
    journal = JournalRead.of(root) if changed else None  # read once for every question
    writers = last_writers(root, [rel for _, rel in changed], journal)
    chains = writers_since(
        root, writers, since, {rel: mark["digest"] for rel, mark in marks.notes.items()}, journal
    )
    found: dict[str, list[Repeat]] = {}
    if repeats and changed:
        from .duplicates import PassageStore, compare

        wanted = {rel for _, rel in changed}
        passages = (store or PassageStore()).update(root, sorted(index.notes))
        for pair in compare(passages).pairs:
            for own, other in ((pair.a, pair.b), (pair.b, pair.a)):
                if own.note in wanted:
                    found.setdefault(own.note, []).append(
                        Repeat(
                            (own.first, own.last),
                            other.note,
                            (other.first, other.last),
                            pair.similarity,
                        )
                    )
    days: dict[str, list[DeskItem]] = {}
    for mtime, rel in changed:
        try:
            data = read_regular_file(Path(root) / rel)
        except OSError:
            continue
        mark = marks.notes.get(rel)
        if mark is not None and mark["digest"] == digest_of(data):
            continue  # the version the user reviewed
        diff, length, status = _diff(root, rel, mark, data, journal)
        when = _dt.datetime.fromtimestamp(mtime, _dt.UTC)
        item = DeskItem(
            rel,
            when.isoformat(timespec="seconds"),
            writers.get(rel) or Writer("outside Librarian", when.isoformat(timespec="seconds")),
            status,
            diff,
            length,
            sum(1 for source in index.in_edges.get(rel, {}) if source != rel),
            tuple(
                sorted(
                    node[len(CONCEPT_PREFIX) :]
                    for node in index.out_edges.get(rel, {})
                    if node.startswith(CONCEPT_PREFIX)
                )
            ),
            tuple(sorted(found.get(rel, ()), key=lambda r: (r.lines, -r.similarity, r.other))),
            chains.get(rel, ()),
        )
        days.setdefault(when.date().isoformat(), []).append(item)
    ordered = tuple((day, tuple(items)) for day, items in sorted(days.items(), reverse=True))
    return Desk(since.astimezone(_dt.UTC).isoformat(timespec="seconds"), ordered)


def _diff(
    root: Path, rel: str, mark: dict[str, str] | None, data: bytes, journal: JournalRead | None
) -> tuple[str | None, int, str]:
    before = b""
    status = "unreviewed"
    if mark is not None:
        try:
            before = (copies_dir(root) / mark["digest"]).read_bytes()
            status = "changed"
        except OSError:  # no copy kept (an "everything up to" mark), or it was dropped
            found = journal_version(root, rel, mark["digest"], data, journal)
            if found is not None:
                before, status = found, "changed"
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = data.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, f"{rel} (reviewed)", f"{rel} (now)"))
    shown = "".join(line if line.endswith("\n") else line + "\n" for line in lines[:DIFF_LINES])
    return shown, len(lines), status


def reviewed(root: Path, rels: list[str]) -> dict[str, bool]:
    """Whether each note's version on disk is reviewed: the one marked, or not changed
    since an "everything up to" mark."""
    marks = load_marks(root)
    up_to = _dt.datetime.fromisoformat(marks.up_to).timestamp() if marks.up_to else None
    out = {}
    for rel in rels:
        path = Path(root) / rel
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        if up_to is not None and mtime <= up_to:
            out[rel] = True
            continue
        mark = marks.notes.get(rel)
        try:
            out[rel] = mark is not None and mark["digest"] == digest_of(read_regular_file(path))
        except OSError:
            continue
    return out
