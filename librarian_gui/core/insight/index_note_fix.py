"""The index note's Fix: the entries ``index_note_health`` found missing, appended to the index
note (or a new one) as one previewed, journaled, undoable write (DESIGN §6).

What is added, after the index note's last byte (nothing before it changes; its line
endings and BOM are kept): one heading per group — the top folder of the entries under it
(``## projects/``), the vault root's notes first under ``## Notes`` — in path order; under
it one line per entry:

- a note: ``- [[name]] — description``, the name as a link from the index note resolves
  it (its title when that is unique, else its path), the description its first heading, or
  its first line of text (not a heading) when there is none or it only repeats the name
  (``# Eval metrics`` in ``eval-metrics.md``), trimmed to ``DESCRIPTION_LIMIT``
  characters, as plain text (no backticks or comment marks, which could hide the entries
  after it); a name a wiki link cannot hold (a bracket, a line break, a space at either
  end, a backtick…) becomes a Markdown link, its path percent-escaped (the parser decodes
  it) and its label with entities (``[e&#93;&#93;f](e%5D%5Df.md)``);
- a dated folder: ``- [diary/](diary/) — 19 dated notes, 2023-05-08 to 2023-10-22``.

An entry is only added if the index, reading the new text as it reads every note, finds
that it lists its note: else a second fix would add it again, and every fix after. A note
that no link can name (a file name that is not UTF-8), or whose entry the index note's own
text would hide (it ends inside a code block or comment), is left out and reported as one
that cannot be listed, with the reason (``IndexNoteFixPlan.unlistable``).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass
from urllib.parse import quote

from ..backlinks.unlinked import link_name
from ..index.queries import INDEX_NOTE
from ..index.snapshot import IndexView
from ..parse.parser import split_front_matter
from ..vault.files import read_note
from ..vault.urls import is_utf8
from ..writing.additions import Addition
from ..writing.journal import Edit, Journal, JournalEntry
from ..writing.lock import WAIT
from ..writing.safewrite import Snapshot, WriteRefused, encode_like, read_snapshot
from .index_note import IndexNoteHealth, MissingEntry, entry_lists, index_note_health, listed_by

DESCRIPTION_LIMIT = 80
ROOT_HEADING = "Notes"
# What a wiki link's target cannot hold, or what would hide it (a code span, a comment).
_NOT_IN_NAME = frozenset("[]|#^\r\n`")
_HIDES = ("%%", "<!--")
# In a Markdown link's label: what would end it, hide it, or read as an entity.
_LABEL = {"&": "&amp;", "[": "&#91;", "]": "&#93;", "`": "&#96;", "\\": "&#92;"}
_LABEL |= {"<": "&lt;", "%": "&#37;", "\n": " ", "\r": " "}
# In its destination: what would end it, start a fragment, a scheme or an entity, or hide
# it; and every space and control character (the parser takes none). "%" first.
_TARGET = frozenset("% #()<>[]\\`&:")
_COMMENT_MARK = re.compile(r"%%+|<!--+")
_WIKI = re.compile(r"!?\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LEAD = re.compile(r"^(?:\s*(?:[-*+]|\d{1,9}[.)]|>|#{1,6})\s+)+")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class IndexNoteFixPlan:
    """The write a Fix asks for, as previewed: the index note as read (``snapshot``; None
    when it does not exist and the fix creates it), its new text, the lines added and the
    unified diff (applying writes exactly it)."""

    index: str
    snapshot: Snapshot | None
    before: str
    after: str
    added: tuple[str, ...]  # the entry lines, as written
    entries: tuple[MissingEntry, ...]
    diff: str
    # Missing entries left out, as (path, reason): no link from the index note would list
    # them (see the module's rules).
    unlistable: tuple[tuple[str, str], ...] = ()

    @property
    def creates(self) -> bool:
        return self.snapshot is None

    @property
    def empty(self) -> bool:
        return not self.entries


def plan_index_note_fix(
    index: IndexView,
    *,
    index_note: str = INDEX_NOTE,
    exclude: tuple[str, ...] | list[str] = (),
    health: IndexNoteHealth | None = None,
) -> IndexNoteFixPlan:
    """Read the index note and make the text that adds every missing entry, without
    writing. Raises ``WriteRefused`` when the index note cannot be edited (binary, not
    UTF-8, not a regular file)."""
    if health is None:
        health = index_note_health(
            index, index_note=index_note, exclude=tuple(exclude), dumps=False
        )
    index_note = health.index  # as the vault spells it
    if health.error is not None:
        raise WriteRefused(index_note, health.error)
    snapshot = read_snapshot(index.root, index_note) if health.exists else None
    before = snapshot.text if snapshot is not None else ""
    newline = snapshot.newline if snapshot is not None else "\n"
    entries: list[MissingEntry] = []
    lines: list[str] = []
    unlistable: list[tuple[str, str]] = []
    for entry in health.missing:
        line = entry_line(index, index_note, entry)
        if line is None:
            unlistable.append((entry.path, _no_link(entry.path, index_note)))
        else:
            entries.append(entry)
            lines.append(line)
    after = with_entries(before, tuple(entries), lines, newline, index_note)
    if entries:
        # Each line lists its note on its own; in the index note's text, one that ends
        # inside a code block or comment hides them all.
        listed = listed_by(index, health, after)
        hidden = [e for e in entries if not listed.issuperset(e.notes)]
        if hidden:
            unlistable += [(e.path, _hidden(index_note)) for e in hidden]
            entries, lines = [], []
            after = before
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{index_note}" if snapshot is not None else "/dev/null",
            f"b/{index_note}",
        )
    )
    return IndexNoteFixPlan(
        index_note,
        snapshot,
        before,
        after,
        tuple(lines),
        tuple(entries),
        diff if lines else "",
        tuple(sorted(unlistable)),
    )


def _no_link(path: str, index_note: str) -> str:
    if not is_utf8(path):
        return (
            f"its file name is not valid UTF-8, so no link in {index_note} can name it; "
            "rename the file"
        )
    return f"no link in {index_note} would be read as pointing to it; rename it"


def _hidden(index_note: str) -> str:
    return (
        f"{index_note} ends inside a code block, comment or front matter, which would hide "
        "an entry added after it; close it, then fix again"
    )


def with_entries(
    text: str,
    entries: tuple[MissingEntry, ...],
    lines: list[str],
    newline: str = "\n",
    index_note: str = INDEX_NOTE,
) -> str:
    """``text`` with the entry ``lines`` appended under one heading per group; ``text``
    itself unchanged (a line ending added to its last line if it has none). A new index
    (``text`` empty) starts with a title."""
    if not entries:
        return text
    out = text
    if text and not text.endswith(("\n", "\r")):
        out += newline
    if not text.strip():
        title = posixpath.basename(index_note).removesuffix(".md")
        out += f"# {title}{newline}"
    group: str | None = None
    for entry, line in zip(entries, lines, strict=True):
        if entry.group != group:
            group = entry.group
            heading = f"{group}/" if group else ROOT_HEADING
            if not out.endswith(newline * 2):  # one blank line before each heading
                out += newline
            out += f"## {heading}{newline}{newline}"
        out += f"{line}{newline}"
    return out


def entry_line(index: IndexView, index_note: str, entry: MissingEntry) -> str | None:
    """The line a fix writes for one entry (see the module's rules); None when no link
    from the index note, on its own, lists what the entry stands for."""
    if not is_utf8(entry.path):
        return None
    base = posixpath.dirname(index_note)
    if entry.kind == "folder":
        target = posixpath.relpath(entry.path, base) if base else entry.path
        link = f"[{_md_label(entry.path + '/')}]({_md_target(target + '/')})"
        if not entry_lists(index, index_note, f"- {link}", entry):
            return None  # a folder named with a space at an end: the target is trimmed
        index = index.snapshot()
        dates = sorted(index.notes[rel].date for rel in entry.notes if rel in index.notes)
        count = len(entry.notes)
        what = f"{count} dated note" + ("" if count == 1 else "s")
        if dates:
            span = dates[0].isoformat()
            if dates[-1] != dates[0]:
                span += f" to {dates[-1].isoformat()}"
            what += f", {span}"
        return f"- {link} — {what}"
    found = note_link(index, index_note, entry)
    if found is None:
        return None
    index = index.snapshot()
    record = index.notes.get(entry.path)
    title = entry.path.rsplit("/", 1)[-1].removesuffix(".md")
    description = note_description(index, entry.path, record.title if record else title)
    return f"- {found} — {description}" if description else f"- {found}"


def note_link(index: IndexView, index_note: str, entry: MissingEntry) -> str | None:
    """A link from ``index_note`` that lists the note of ``entry``: a wiki link to its name
    where one can hold it, else a Markdown link to its path; None when neither does."""
    rel = entry.path
    base = posixpath.dirname(index_note)
    index = index.snapshot()
    name = link_name(index, index_note, rel)
    tries = [f"[[{name}]]"] if _wiki_safe(name) else []
    target = posixpath.relpath(rel, base) if base else rel
    title = rel.rsplit("/", 1)[-1].removesuffix(".md")
    tries.append(f"[{_md_label(title)}]({_md_target(target)})")
    return next(
        (link for link in tries if entry_lists(index, index_note, f"- {link}", entry)), None
    )


def _wiki_safe(name: str) -> bool:
    return (
        bool(name)
        and name == name.strip()
        and not _NOT_IN_NAME.intersection(name)
        and not any(mark in name for mark in _HIDES)
    )


def _md_label(text: str) -> str:
    """A Markdown link's label showing ``text``, with entities for what would end or hide
    it (a line break shown as a space)."""
    return "".join(_LABEL.get(ch, ch) for ch in text)


def _md_target(target: str) -> str:
    """A Markdown link's destination, percent-escaped where a character would end it,
    start a fragment, a scheme or an entity, or hide it (the parser decodes it back)."""
    return "".join(
        quote(ch, safe="") if ch in _TARGET or ch.isspace() or not ch.isprintable() else ch
        for ch in target
    )


def note_description(index: IndexView, rel: str, title: str) -> str:
    """The note's first heading, or its first line of text when it has no heading or the
    heading only repeats ``title`` (then headings are passed over: the line under a
    ``## Context`` says more than the word); links shown as their text, trimmed."""
    index = index.snapshot()
    record = index.notes.get(rel)
    headings = record.parsed.headings if record is not None else ()
    if headings and _name_key(_plain(headings[0].text)) not in ("", _name_key(title)):
        return trim(_plain(headings[0].text))
    result = read_note(index.root, rel)
    if result.text is None:
        return ""
    text = result.text.removeprefix("\ufeff")
    body_start, _, _ = split_front_matter(text)
    fenced = False
    for raw in text[body_start:].splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line or line.startswith(("<!--", "%%", "|", "---", "===")):
            continue
        if line.startswith("#"):  # a heading: the first one only repeated the name
            continue
        plain = _plain(line)
        if plain:
            return trim(plain)
    return ""


def _name_key(text: str) -> str:
    """A heading and a file name compared: ``Eval metrics`` repeats ``eval-metrics``."""
    return _SPACES.sub(" ", text.replace("-", " ").replace("_", " ")).strip().lower()


def _plain(text: str) -> str:
    text = _WIKI.sub(lambda m: m.group(2) or m.group(1).split("#")[0], text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _LEAD.sub("", text)
    # A backtick or a comment's mark could pair with one in an entry below and hide it.
    text = _COMMENT_MARK.sub(lambda m: "%" if m.group()[0] == "%" else "<!-", text)
    text = text.replace("`", "")
    return _SPACES.sub(" ", text).strip()


def trim(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """``text`` in at most ``limit`` characters, cut at a word with "…" when longer."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    if cut.endswith((".", "!", "?")):  # a whole sentence: no ellipsis
        return cut
    return cut.rstrip(" ,;:—–-") + "…"


def apply_index_note_fix(
    journal: Journal, plan: IndexNoteFixPlan, wait: float = WAIT
) -> JournalEntry:
    """Write ``plan`` through the journal as one entry, unless the index note changed
    since it was read for the preview (``WriteRefused`` says so; nothing is written).

    A new index note is created (never over a file that appeared meanwhile): undo moves it
    into the journal entry, as it does an agent's new note. An existing one gets its new
    version swapped in, as a Link click's note does."""
    if plan.empty:
        raise WriteRefused(plan.index, "every note is listed already; nothing to add")
    count = len(plan.entries)
    description = (
        f"Index note: {count} {'entry' if count == 1 else 'entries'} added to {plan.index}"
    )
    snapshot = plan.snapshot
    if snapshot is None:
        data = plan.after.encode("utf-8")
        entry = journal.add(description, [Addition(plan.index, data, "create")], wait=wait)
    else:
        edit = Edit(plan.index, snapshot, encode_like(snapshot, plan.after))
        entry = journal.apply(description, [edit], wait=wait)
    if not entry.written:
        reason = entry.skipped[0][1] if entry.skipped else "nothing was written"
        if snapshot is None and (journal.root / plan.index).exists():
            reason = "was created by another program since the preview; nothing was written"
        raise WriteRefused(plan.index, reason)
    return entry
