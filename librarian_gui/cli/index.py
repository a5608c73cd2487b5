"""The command line's ``librarian index``: the index note's health (notes not listed, dead
links, length, entries holding text), and ``--fix``, which adds the missing entries through
the journal (``--dry-run``: the diff only)."""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.index.index import VaultIndex
from ..core.index.queries import INDEX_NOTE, AmbiguousNote, home_note
from ..core.index.snapshot import IndexView
from ..core.insight.index_note import (
    MAX_BYTES,
    MAX_LINES,
    DatedFolder,
    IndexNoteHealth,
    NotAnIndexNote,
    health_json,
    index_note_health,
    index_note_named,
)
from ..core.insight.index_note_fix import apply_index_note_fix, plan_index_note_fix
from ..core.library.dumps import find_dumps
from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
from ..core.writing.lock import WAIT, VaultBusy
from ..core.writing.place import deepest_folder
from ..core.writing.safewrite import WriteRefused
from .exits import (
    EXIT_AMBIGUOUS,
    EXIT_BUSY,
    EXIT_FINDINGS,
    EXIT_USAGE,
    CommandFailed,
    Result,
)
from .library import add_limits, limits_of

SHOWN = 50  # rows per list in the human text; --json has them all


def add_command(
    sub: Any, common: Callable[..., None]
) -> argparse.ArgumentParser:  # sub: argparse's private _SubParsersAction
    help_ = (
        "the index note's health: notes it does not list, dead links, length, entries "
        "holding text (exit 1 when it has findings); --fix adds the missing entries"
    )
    p: argparse.ArgumentParser = sub.add_parser("index", help=help_, description=help_)
    common(p)
    p.add_argument(
        "--index",
        metavar="NOTE",
        default=None,
        help=f"the index note, a title or vault path (default: {INDEX_NOTE}, else a note "
        "named like the vault's front page: index, README, Home, contents, start here, the "
        f"vault's own name; else {INDEX_NOTE}, which --fix creates)",
    )
    p.add_argument(
        "--fix",
        action="store_true",
        help="append the missing entries (one per note, one per dated folder) through the "
        "journal; the window's Edit → Undo reverts it",
    )
    p.add_argument("--dry-run", action="store_true", help="with --fix: print the diff only")
    p.add_argument(
        "--exclude-pattern",
        metavar="GLOB",
        nargs="+",
        action="extend",
        default=[],
        help="notes that need no entry: a glob over the note's path or one of its folders "
        "(e.g. 'templates' 'archive/*'); repeatable",
    )
    add_limits(p)
    p.add_argument("--wait", type=float, default=WAIT, metavar="SECONDS", help=argparse.SUPPRESS)
    return p


def index_note_arg(index: IndexView, name: str) -> str:
    """The index note a NOTE argument names (``index_note_named``): an existing note
    resolved like a link, or else the vault path it spells (``.md`` added), which a fix
    creates."""
    try:
        rel = index_note_named(index, name)
    except AmbiguousNote as exc:
        raise CommandFailed(EXIT_AMBIGUOUS, f"{exc}; give the path to choose one") from exc
    except NotAnIndexNote as exc:
        raise CommandFailed(EXIT_USAGE, str(exc)) from exc
    if rel not in index.notes:
        _check_makeable(index.root, rel, name)
    return rel


def _check_makeable(root: Path, rel: str, name: str) -> None:
    """Refuse an index note path that a fix could not make, before anything is read or
    written: one too long for the system, or inside a file (``MEMORY.md/child.md``)."""
    shown = shorter(name)
    full = len(os.fsencode(root / rel))
    path_max = _limit(root, "PC_PATH_MAX", 4096) - 1  # the count holds the final NUL
    if full > path_max:
        raise CommandFailed(
            EXIT_USAGE,
            f"--index {shown!r}: {full:,} bytes long with the vault's folder, more than the "
            f"{path_max:,} a path may have; give a shorter path",
        )
    name_max = _limit(root, "PC_NAME_MAX", 255)
    longest = max(len(os.fsencode(part)) for part in rel.split("/"))
    if longest > name_max:
        raise CommandFailed(
            EXIT_USAGE,
            f"--index {shown!r}: a name in it is {longest:,} bytes long, more than the "
            f"{name_max:,} a file name may have; give a shorter one",
        )
    folders = rel.count("/")
    if folders > deepest_folder():
        raise CommandFailed(
            EXIT_USAGE,
            f"--index {shown!r}: {folders:,} folders deep, more than the {deepest_folder():,} "
            "Librarian makes notes in (the depth its watcher can follow); give a shorter path",
        )
    parts = rel.split("/")
    for end in range(1, len(parts)):
        folder = "/".join(parts[:end])
        try:
            st = os.stat(root / folder)
        except OSError:
            return  # not there: the fix makes it (or says why it cannot)
        if not stat.S_ISDIR(st.st_mode):
            raise CommandFailed(
                EXIT_USAGE,
                f"--index {shown!r}: {folder} is a file, so no note can be made inside it; "
                "give another path",
            )


def _limit(root: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(root, name)
    except (OSError, ValueError):
        return default


def shorter(text: str, limit: int = 80) -> str:
    """``text``, or its start and end around "…" when it is longer than ``limit``."""
    return text if len(text) <= limit else f"{text[:40]}…{text[-20:]}"


def cmd_index(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    """The JSON document, the human text and the exit code of ``librarian index``."""
    if args.dry_run and not args.fix:
        raise CommandFailed(EXIT_USAGE, "--dry-run goes with --fix")
    index = open_index(args)
    if args.index is None:
        rel = home_note(index, named_only=True) or INDEX_NOTE
    else:
        rel = index_note_arg(index, args.index)
    patterns = tuple(args.exclude_pattern)
    health = index_note_health(index, index_note=rel, exclude=patterns, dumps=False)
    health = replace(health, dumps=tuple(find_dumps(index, limits_of(args))))
    data: dict[str, Any] = {**health_json(health), "fix": None}
    text = human_health(health)
    code = 0 if health.healthy and not health.dumps else EXIT_FINDINGS
    if not args.fix:
        return data, text, code
    try:
        plan = plan_index_note_fix(index, index_note=rel, exclude=patterns, health=health)
    except WriteRefused as exc:
        raise CommandFailed(EXIT_FINDINGS, f"nothing was written: {exc}") from exc
    fix: dict[str, Any] = {
        "dry_run": bool(args.dry_run),
        "creates": plan.creates,
        "entries": list(plan.added),
        "diff": plan.diff,
        "written": False,
        "journal_entry": None,
        "unlistable": [{"path": rel, "reason": reason} for rel, reason in plan.unlistable],
    }
    data["fix"] = fix
    rows = [f"{rel}: {reason}" for rel, reason in plan.unlistable]
    if rows:
        lines: list[str] = []
        _section(lines, "cannot be listed", rows)
        text += "\n" + "\n".join(lines)
    if plan.empty:
        said = "nothing can be added" if rows else "nothing to add, every note is listed"
        return data, f"{text}\nfix: {said}", code
    if args.dry_run:
        return data, text + "\n\n" + plan.diff.rstrip("\n"), code
    try:
        entry = apply_index_note_fix(Journal(index.root, by=COMMAND_LINE), plan, wait=args.wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:
        said = str(exc)
        raise CommandFailed(
            EXIT_FINDINGS, said if "nothing" in said else f"nothing was written: {said}"
        ) from exc
    fix.update(written=True, journal_entry=entry.id)
    count = len(plan.added)
    verb = "created with" if plan.creates else "added"
    said = (
        f"fix: {verb} {count} {'entry' if count == 1 else 'entries'} in {rel} "
        f"(journal entry {entry.id}; librarian undo VAULT, or the window's Edit → Undo, reverts it)"
    )
    return data, text + "\n" + said, EXIT_FINDINGS if rows else 0


def human_health(health: IndexNoteHealth) -> str:
    if health.error is not None:
        return f"{health.index}: cannot be read ({health.error})"
    out: list[str] = []
    if not health.exists:
        out.append(f"{health.index}: there is no index note (--fix creates it)")
    else:
        out.append(
            f"{health.index}: {health.lines:,} lines, {health.bytes:,} bytes, "
            f"~{health.tokens:,} tokens (agents load {MAX_LINES} lines, "
            f"{MAX_BYTES // 1024} KB)"
        )
        out.extend(f"  warning: {w}" for w in health.warnings)
    excluded = f", {health.excluded:,} excluded" if health.excluded else ""
    out.append(
        f"{health.notes:,} notes to list{excluded}: {len(health.listed):,} listed, "
        f"{len(health.unlisted):,} not listed"
    )
    _section(out, "not listed", list(health.unlisted))
    _section(out, "dead links", [f"line {d.line}: {d.text}" for d in health.dead_links])
    _section(
        out,
        "entries holding text instead of pointing",
        [
            f"line {t.line}: {t.chars} characters besides links ({t.preview})"
            for t in health.text_entries
        ],
    )
    if health.dated_folders:
        out.append(
            "dated folders (one entry each): "
            + ", ".join(
                f"{d.folder}/ ({len(d.notes)} notes, {_dated_state(d)})"
                for d in health.dated_folders
            )
        )
    _section(
        out,
        "dumps: long notes of many sections, to split into a library",
        [
            f"{d.path}: {d.lines:,} lines, {d.bytes / 1024:.1f} KB, ~{d.tokens:,} tokens, "
            f"{d.sections} sections ({d.dated} dated, {d.topics} by topic); "
            f'librarian split VAULT "{d.path}"'
            for d in health.dumps
        ],
    )
    if health.healthy:
        out.append("healthy: it lists every note, and only points")
    return "\n".join(out)


def _dated_state(folder: DatedFolder) -> str:
    if not folder.listed:
        return "not listed"
    if folder.note_by_note:
        return f"listed note by note, {folder.entries} entries: one would do"
    return "listed"


def _section(out: list[str], title: str, rows: list[str]) -> None:
    if not rows:
        return
    out.append(f"{title} ({len(rows):,}):")
    out.extend(f"  {row}" for row in rows[:SHOWN])
    if len(rows) > SHOWN:
        out.append(f"  … and {len(rows) - SHOWN:,} more (see --json)")
