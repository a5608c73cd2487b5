"""An agent's two writes, ``write_note`` and ``append_to_note``: through the journal, and
back as soon as the bytes are on disk; the index and related notes catch up behind them.

An agent writes only regular ``*.md`` notes of the vault by their own path (DESIGN §9):
never through a symbolic link, never into a hidden or ignored folder, never an absolute
path or a name with control characters; a name that differs from an existing note's only
by case or Unicode normalisation is that note, as a link to it would be. The rules live in
the shared write path (``core/writing``); this module turns its refusals into one message.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from ..index.queries import node_kind
from ..index.snapshot import IndexView
from ..parse.parser import parse_note
from ..parse.records import Link
from ..writing.additions import Addition
from ..writing.journal import Edit, Journal, JournalEntry, JournalError
from ..writing.lock import VaultBusy
from ..writing.place import (
    check_new_name,
    checked_parts,
    fold,
    name_limits,
    resolve_name,
    shown,
)
from ..writing.safewrite import WriteRefused, read_snapshot
from .answers import UnknownNote, note_node

WAIT = 2.0  # seconds an agent's write waits for another writer (a tagging run) to finish
LINKS_SHOWN = 50  # rows of the reply's link lists; the counts are whole


class WriteFailed(Exception):
    """The write was not made; the message says why and what to do."""


def note_path(path: str) -> str:
    """A vault path for a note: ``/`` separators, no leading ``./``, ``.md`` added when the
    name has no extension of a note; ``WriteFailed`` for an absolute path (``/x``,
    ``C:\\x``, ``\\\\server\\share``) or one that climbs out of the vault."""
    rel = path.strip()
    if not rel:
        raise WriteFailed("the path is empty; give a vault path such as notes/idea.md")
    unc_or_root = rel.startswith(("/", "\\"))
    rel = rel.replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    if not rel.lower().endswith(".md"):
        rel += ".md"
    try:
        checked_parts("/" + rel if unc_or_root else rel)
    except WriteRefused as exc:
        raise WriteFailed(_shown(path, exc.reason)) from None
    return rel


def _existing(index: IndexView, rel: str) -> tuple[str, bool]:
    """The note ``rel`` names and whether it exists: the file of that path; else the one
    note of the index whose path differs from it only by case or Unicode normalisation (an
    NFD ``café.md``, ``Existing2.md``), as a link to it would resolve — ``WriteRefused``
    when several do."""
    rel, exists = resolve_name(index.root, rel)
    if exists:
        return rel, True
    key = fold(rel)
    index = index.snapshot()
    twins = sorted(
        {
            path
            for form in {
                rel,
                unicodedata.normalize("NFC", rel),
                unicodedata.normalize("NFD", rel),
            }
            for path in index.resolver.path_matches(form)
            if path in index.notes and fold(path) == key
        }
    )
    if len(twins) > 1:
        raise WriteRefused(
            rel,
            f"could be any of {', '.join(twins)} (they differ only by case); give the exact name",
        )
    if twins and resolve_name(index.root, twins[0])[1]:
        return twins[0], True
    return rel, False


def _shown(path: str, reason: str) -> str:
    return f"{shown(path.strip())}: {reason}"


def write_note(
    index: IndexView,
    text: str,
    path: str,
    *,
    overwrite: bool = False,
    by: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Create the note ``path`` holding ``text``; an existing note is replaced only when
    ``overwrite`` (then as every edit: refused if it changes while being written). ``by``:
    who writes, as the journal records it (``journal.agent``)."""
    data = _encoded(text)
    journal = Journal(index.root, index.excluded, by=by)
    with _failing():
        rel, exists = _existing(index, note_path(path))
        journal.guard(rel)
        if exists and not overwrite:
            raise WriteFailed(
                f"{rel} exists already; nothing was written. Append with append_to_note, or "
                "ask write_note to overwrite it"
            )
        if exists:
            snapshot = read_snapshot(index.root, rel, links="refuse")
            edit = Edit(rel, snapshot, data, links="refuse")
            entry = journal.apply(f"Agent: overwrite {rel}", [edit], wait=WAIT)
        else:
            _new_name(index, rel, path)
            entry = journal.add(f"Agent: write {rel}", [Addition(rel, data, "create")], WAIT)
    return _reply(index, rel, text, entry, created=not exists)


def append_to_note(
    index: IndexView, text: str, note: str, *, by: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Append ``text`` as new lines at the end of ``note`` (a title or a path; a path that
    names no note yet creates it, as a diary's first entry of the day). ``by``: as
    ``write_note``'s."""
    data = _encoded(text)
    journal = Journal(index.root, index.excluded, by=by)
    with _failing():
        if _is_path(note):
            # A path is taken as written, whether or not the index has seen the note yet (it
            # may have been created a moment ago): today's diary, appended to entry by entry.
            rel, exists = _existing(index, note_path(note))
            journal.guard(rel)
            if not exists:
                _new_name(index, rel, note)
                return write_note(index, _ending(text, "\n"), rel, by=by)
        else:
            try:
                index = index.snapshot()
                rel = note_node(index, note, concepts=False)
            except UnknownNote as exc:
                raise WriteFailed(
                    f"{exc}. To start a new note, give its path (with .md or a folder)"
                ) from None
        addition = Addition(rel, data, "append", lines=True)
        entry = journal.add(f"Agent: append to {rel}", [addition], WAIT)
    return _reply(index, rel, text, entry, created=False)


def _new_name(index: IndexView, rel: str, path: str) -> None:
    """``WriteFailed`` for a name no new note may have, shown as the agent gave it."""
    try:
        check_new_name(rel)
        name_limits(index.root, rel)
    except WriteRefused as exc:
        raise WriteFailed(_shown(path, exc.reason)) from None


@contextlib.contextmanager
def _failing() -> Iterator[None]:
    """Every refusal of the write path as one ``WriteFailed`` naming the file and what to
    do: the vault busy, a refused write, a journal that cannot be written."""
    try:
        yield
    except VaultBusy as exc:
        raise WriteFailed(f"{exc}; nothing was written, retry in a moment") from None
    except (WriteRefused, JournalError) as exc:
        raise WriteFailed(str(exc)) from None
    except OSError as exc:  # the vault's own folder went wrong under the write
        where = exc.filename or "the vault"
        raise WriteFailed(
            f"{where}: {exc.strerror or exc}; nothing was written. Check the vault's folder "
            "and retry"
        ) from None


def _encoded(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WriteFailed(
            f"the text holds a lone surrogate (U+{ord(text[exc.start]):04X} at character "
            f"{exc.start}), which UTF-8 cannot store; nothing was written"
        ) from None


def _is_path(note: str) -> bool:
    text = note.strip()
    return text.lower().endswith(".md") or "/" in text or "\\" in text


def _ending(text: str, newline: str) -> str:
    return text if text.endswith(newline) else text + newline


def _reply(
    index: IndexView, rel: str, text: str, entry: JournalEntry, *, created: bool
) -> dict[str, Any]:
    """What the agent is told: the note, the journal entry to undo it by, the links the new
    text makes and which of them resolve to nothing (a typo, or a note still to write) —
    the first ``LINKS_SHOWN`` of each and their whole counts, so that a text of a million
    links gets an answer as small as any other."""
    if entry.torn:
        reason = entry.torn[0][1]
        raise WriteFailed(f"{shown(rel)}: {reason} (librarian undo VAULT --entry {entry.id})")
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing to write"
        raise WriteFailed(f"{shown(rel)}: {reason}")
    links = parse_note(text).links
    first: dict[tuple[str, str], Link] = {}
    for link in links:
        first.setdefault((link.kind, link.target), link)
    keys = list(first)
    found: dict[tuple[str, str], tuple[str, str]] = {}
    index = index.snapshot()
    for key in keys:
        node = index.resolver.resolve(first[key], rel)
        found[key] = (node, node_kind(index, node))
    rows = []
    for link in links[:LINKS_SHOWN]:
        node, kind = found[(link.kind, link.target)]
        rows.append(
            {
                "target": link.target,
                "kind": link.kind,
                "node": node,
                "node_kind": kind,
                "resolved": kind != "unresolved",
            }
        )
    unresolved = sorted({key[1] for key, (_, kind) in found.items() if kind == "unresolved"})
    return {
        "note": rel,
        "created": created,
        "entry": entry.id,
        "undo": f"librarian undo VAULT --entry {entry.id}",
        "links": rows,
        "links_total": len(links),
        "unresolved": unresolved[:LINKS_SHOWN],
        "unresolved_total": len(unresolved),
    }
