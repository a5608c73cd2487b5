"""Applying a split plan: one journal entry, all of it or nothing of it.

The new notes are created first (never over a file that appeared meanwhile), then the dump
gets its new text (the index) and the notes linking its headings their rewritten links,
each swapped in as a Link click's note is. Should the dump or a new note not be written
(another program rewrote the dump in that instant, a note appeared under a new name), the
entry is undone at once and the split refused: a dump is never half split.

The dump changed since the plan:
- **only grown** (an agent appended lines): the split goes ahead and the appended tail stays
  in the dump, after the new index: nothing of it is lost, and the next plan moves it;
- **otherwise**: ``DumpChanged``; nothing is written. Make a fresh plan.

``librarian undo`` (Edit → Undo) then gives the dump back byte for byte, puts back the links
of the other notes and moves the new notes into the journal entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..writing.additions import Addition
from ..writing.journal import Edit, Journal, JournalEntry
from ..writing.lock import WAIT
from ..writing.safewrite import WriteRefused, encode_like, read_snapshot
from .split import SplitPlan


class DumpChanged(WriteRefused):
    """The dump changed since the plan, other than by lines appended to its end."""


@dataclass(frozen=True, slots=True)
class SplitResult:
    entry: JournalEntry
    created: tuple[str, ...]
    kept_tail: int  # bytes appended to the dump since the plan, kept after the new index
    links_not_rewritten: tuple[tuple[str, str], ...]  # (note, why): they changed meanwhile


def apply_split(journal: Journal, plan: SplitPlan, wait: float = WAIT) -> SplitResult:
    """Write ``plan`` as one journal entry (see the module's docstring)."""
    if plan.empty:
        raise WriteRefused(plan.dump, "nothing to split: every section stays")
    planned = plan.snapshot
    current = read_snapshot(journal.root, plan.dump)
    tail = b""
    if current.data != planned.data:
        if not current.data.startswith(planned.data):
            raise DumpChanged(
                plan.dump,
                "changed since the plan (not only lines added at its end); nothing was "
                "written: make a fresh plan",
            )
        tail = current.data[len(planned.data) :]
    edits = [Edit(plan.dump, current, encode_like(planned, plan.index_text) + tail)]
    for rel, (snapshot, text) in sorted(plan.elsewhere.items()):
        edits.append(Edit(rel, snapshot, encode_like(snapshot, text)))
    creates = [Addition(t.path, t.text.encode("utf-8"), "create") for t in plan.targets]
    count = len(creates)
    description = f"Split {plan.dump} into {count} {'note' if count == 1 else 'notes'}"
    entry = journal.apply(description, edits, wait=wait, creates=creates)
    needed = {plan.dump, *(t.path for t in plan.targets)}
    failed = [(f.rel, f.reason) for f in entry.files if f.rel in needed and f.outcome != "written"]
    if failed:
        if entry.undoable:
            journal.undo(entry.id, wait=wait)
        rel, reason = failed[0]
        raise WriteRefused(rel, f"{reason}; the split was taken back, nothing changed")
    missed = tuple(
        (f.rel, f.reason) for f in entry.files if f.rel not in needed and f.outcome != "written"
    )
    return SplitResult(entry, tuple(t.path for t in plan.targets), len(tail), missed)
