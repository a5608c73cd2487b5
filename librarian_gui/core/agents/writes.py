"""An agent's two writes, ``write_note`` and ``append_to_note``: through the journal, and
back as soon as the bytes are on disk; the index and related notes catch up behind them."""

from __future__ import annotations

import os
from typing import Any

from ..index.index import VaultIndex
from ..index.queries import node_kind
from ..parse.parser import parse_note
from ..writing.additions import Addition
from ..writing.journal import Edit, Journal, JournalEntry
from ..writing.lock import VaultBusy
from ..writing.safewrite import WriteRefused, read_snapshot
from .answers import UnknownNote, note_node

WAIT = 2.0  # seconds an agent's write waits for another writer (a tagging run) to finish
_TAIL = 4096


class WriteFailed(Exception):
    """The write was not made; the message says why and what to do."""


def note_path(path: str) -> str:
    """A vault path for a new note: ``/`` separators, no leading ``./`` or ``/``, ``.md``."""
    rel = path.strip().replace("\\", "/").lstrip("/")
    while rel.startswith("./"):
        rel = rel[2:]
    if not rel:
        raise WriteFailed("the path is empty; give a vault path such as notes/idea.md")
    return rel if rel.lower().endswith(".md") else rel + ".md"


def write_note(
    index: VaultIndex, text: str, path: str, *, overwrite: bool = False
) -> dict[str, Any]:
    """Create the note ``path`` holding ``text``; an existing note is replaced only when
    ``overwrite`` (then as every edit: refused if it changes while being written)."""
    rel = note_path(path)
    journal = Journal(index.root)
    data = text.encode("utf-8")
    exists = os.path.lexists(os.path.join(index.root, rel))
    if exists and not overwrite:
        raise WriteFailed(
            f"{rel} exists already; nothing was written. Append with append_to_note, or "
            "ask write_note to overwrite it"
        )
    try:
        if exists:
            snapshot = read_snapshot(index.root, rel)
            entry = journal.apply(f"Agent: overwrite {rel}", [Edit(rel, snapshot, data)], wait=WAIT)
        else:
            entry = journal.add(f"Agent: write {rel}", [Addition(rel, data, "create")], WAIT)
    except VaultBusy as exc:
        raise WriteFailed(f"{exc}; nothing was written, retry in a moment") from None
    except WriteRefused as exc:
        raise WriteFailed(str(exc)) from None
    return _reply(index, rel, text, entry, created=not exists)


def append_to_note(index: VaultIndex, text: str, note: str) -> dict[str, Any]:
    """Append ``text`` as new lines at the end of ``note`` (a title or a path; a path that
    names no note yet creates it, as a diary's first entry of the day)."""
    if _is_path(note):
        # A path is taken as written, whether or not the index has seen the note yet (it
        # may have been created a moment ago): today's diary, appended to entry by entry.
        rel = note_path(note)
        if not os.path.lexists(os.path.join(index.root, rel)):
            return write_note(index, _ending(text, "\n"), rel)
    else:
        try:
            with index.lock:
                rel = note_node(index, note, concepts=False)
        except UnknownNote as exc:
            raise WriteFailed(
                f"{exc}. To start a new note, give its path (with .md or a folder)"
            ) from None
    data = _appended(os.path.join(index.root, rel), text)
    try:
        entry = Journal(index.root).add(
            f"Agent: append to {rel}", [Addition(rel, data, "append")], WAIT
        )
    except VaultBusy as exc:
        raise WriteFailed(f"{exc}; nothing was written, retry in a moment") from None
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing to write"
        raise WriteFailed(f"{rel}: {reason}")
    return _reply(index, rel, text, entry, created=False)


def _is_path(note: str) -> bool:
    text = note.strip()
    return text.lower().endswith(".md") or "/" in text or "\\" in text


def _appended(path: str, text: str) -> bytes:
    """``text`` as bytes to append: in the note's line endings, starting on a line of its
    own, ending with a line ending."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - _TAIL))
            tail = fh.read()
    except OSError:
        tail = b""
    newline = "\r\n" if b"\r\n" in tail else "\n"
    body = _ending(text.replace("\r\n", "\n"), "\n").replace("\n", newline)
    if tail and not tail.endswith(b"\n"):
        body = newline + body
    return body.encode("utf-8")


def _ending(text: str, newline: str) -> str:
    return text if text.endswith(newline) else text + newline


def _reply(
    index: VaultIndex, rel: str, text: str, entry: JournalEntry, *, created: bool
) -> dict[str, Any]:
    """What the agent is told: the note, the journal entry to undo it by, the links the new
    text makes and which of them resolve to nothing (a typo, or a note still to write)."""
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing to write"
        raise WriteFailed(f"{rel}: {reason}")
    links = []
    with index.lock:
        for link in parse_note(text).links:
            node = index.resolver.resolve(link, rel)
            links.append(
                {
                    "target": link.target,
                    "kind": link.kind,
                    "node": node,
                    "node_kind": node_kind(index, node),
                    "resolved": node_kind(index, node) != "unresolved",
                }
            )
    return {
        "note": rel,
        "created": created,
        "entry": entry.id,
        "undo": f"librarian undo VAULT --entry {entry.id}",
        "links": links,
        "unresolved": sorted({row["target"] for row in links if not row["resolved"]}),
    }
