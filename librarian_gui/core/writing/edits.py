"""One note's previewed edit: the diff a dialog or ``--json`` shows, and the write of exactly
that through the journal (a Link click's related note, a supersedes mark)."""

from __future__ import annotations

import difflib

from .journal import Edit, Journal, JournalEntry
from .lock import WAIT
from .safewrite import Snapshot, WriteRefused, encode_like


def edit_diff(rel: str, before: str, after: str) -> str:
    """The unified diff of the note ``rel`` from ``before`` to ``after``."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{rel}",
            f"b/{rel}",
        )
    )


def write_edit(
    journal: Journal, description: str, snapshot: Snapshot, after: str, wait: float = WAIT
) -> JournalEntry:
    """Write ``after`` over the note read as ``snapshot`` (its BOM and line endings kept) as
    one journal entry, unless it changed since it was read (bytes appended since are kept
    after the edit); ``WriteRefused`` says why when nothing was written."""
    entry = journal.apply(
        description, [Edit(snapshot.rel, snapshot, encode_like(snapshot, after))], wait=wait
    )
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing was written"
        raise WriteRefused(snapshot.rel, reason)
    return entry
