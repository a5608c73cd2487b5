"""Accepting a related note: ``[[note]]`` added under a ``## Related`` heading at the end of
the open note (the heading made when missing), previewed as a diff, written through the
journal like every other write, and undoable."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..backlinks.unlinked import linkable_name
from ..index.snapshot import IndexView
from ..parse.parser import mask_note
from ..writing.edits import edit_diff, write_edit
from ..writing.journal import Journal, JournalEntry
from ..writing.safewrite import Snapshot, read_snapshot

HEADING = "## Related"
_RELATED = re.compile(r"^ {0,3}##[ \t]+Related[ \t]*#*[ \t]*$", re.IGNORECASE)
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")


@dataclass(frozen=True, slots=True)
class RelatedLinkPlan:
    """The write a Link click asks for, as previewed: the note as read, its new text, and
    the unified diff between them (the dialog shows it; applying writes exactly it)."""

    source: str
    target: str
    name: str
    snapshot: Snapshot
    after: str
    diff: str


def with_related_link(text: str, name: str, newline: str = "\n") -> str:
    """``text`` with ``- [[name]]`` as the last item under its ``## Related`` heading (the
    last such heading outside code and front matter; its section ends at the next heading
    of level 1 or 2), or, when it has none, at the end under a new one. Every other byte
    stays as it was; ``newline`` is the file's own line ending."""
    item = f"- [[{name}]]"
    masked = mask_note(text)
    lines = masked.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    heading = None
    for number, line in enumerate(lines):
        if _RELATED.match(line.rstrip("\r\n")):
            heading = number
    if heading is None:
        body = text
        if body and not body.endswith(("\n", "\r")):
            body += newline
        gap = newline if body.strip() else ""
        return f"{body}{gap}{HEADING}{newline}{newline}{item}{newline}"
    end = len(lines)
    for number in range(heading + 1, len(lines)):
        found = _HEADING.match(lines[number])
        if found and len(found.group(1)) <= 2:
            end = number
            break
    last = heading  # the section's last line that is not blank
    for number in range(heading + 1, end):
        if lines[number].strip():
            last = number
    at = starts[last + 1]
    before = text[:at]
    if not before.endswith(("\n", "\r")):
        before += newline
    if last == heading:  # an empty section: a blank line under the heading first
        return f"{before}{newline}{item}{newline}{text[at:]}"
    return f"{before}{item}{newline}{text[at:]}"


def plan_related_link(index: IndexView, source: str, target: str) -> RelatedLinkPlan:
    """Read ``source`` and make the edit linking ``target`` from it, without writing.
    Raises ``WriteRefused`` when the note cannot be edited or the target's name cannot
    be a link."""
    snapshot = read_snapshot(index.root, source)
    name = linkable_name(index, source, target)
    after = with_related_link(snapshot.text, name, snapshot.newline)
    diff = edit_diff(source, snapshot.text, after)
    return RelatedLinkPlan(source, target, name, snapshot, after, diff)


def apply_related_link(journal: Journal, plan: RelatedLinkPlan) -> JournalEntry:
    """Write ``plan`` through the journal as one entry, unless the note changed since it
    was read for the preview (then ``WriteRefused`` says so and nothing is written)."""
    return write_edit(
        journal, f"Link related [[{plan.name}]] in {plan.source}", plan.snapshot, plan.after
    )
