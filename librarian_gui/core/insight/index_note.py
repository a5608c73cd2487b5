"""The index note's health (DESIGN §6): which notes it does not list, its dead links, its
length against what agents load at start, and the entries that hold text instead of
pointing. ``index_note_fix`` turns the notes it does not list into entries.

The rules, as ``librarian index`` and the window's Index note panel report them:

- **Listed**: a note the index note links (any link kind, resolved as links are). A link to
  a *folder* (``[diary/](diary/)``, ``[[diary/]]``: a target naming a folder that holds
  notes) lists every note under it, at any depth; it is a folder entry, not a dead link.
- **Dated folders** (logs, diaries): the topmost folders whose notes, counted at any depth,
  are at least two and at least three in four named by a date (``YYYY-MM-DD``,
  ``YYYY_MM_DD``, ``YYYYMMDD`` or ``YYYY-MM`` at the start of the name). One entry stands
  for the whole folder: a link to the folder or to any note in it lists every note in it
  (``[[diary/2026-09-08]] … [[diary/2026-11-25]]`` lists the diary).
- **Not listed**: every note but the index note itself and the notes an exclude pattern
  matches (``fnmatch``, case-sensitive, against the note's vault path and against each of
  its folders, so ``templates`` and ``templates/*`` both leave out the folder), that is
  neither linked nor under a folder entry nor in a listed dated folder.
- **Dead links**: links of the index note that resolve to no note, attachment, concept or
  folder.
- **Length**: lines, bytes and an estimate of tokens; a warning past ``MAX_LINES`` lines or
  ``MAX_BYTES`` bytes, what agents load of it at start (Claude Code reads the first 200
  lines of ``MEMORY.md``, up to 25 KB).
- **Text instead of pointing**: a list item (its marker line and the lines that continue
  it) of the index note, outside code and front matter, with more than ``TEXT_LIMIT``
  characters once its links (also to the web and to headings: ``[label](url)``, ``<url>``,
  bare URLs), list marker and repeated spaces are taken out: an entry is a
  link and a short description; a longer body belongs in a note. A paragraph (or quote)
  outside lists is held to ``PARAGRAPH_LIMIT``: a line or two saying what the index is
  for is fine, a page of prose is not. Link reference definitions (``[label]: path``) are
  pointers, not text.

The index note is a note of the vault: a ``.md`` file inside it, not in a dot-folder or a
folder ``.librarianignore`` names, not reached through a symbolic link out of it. Any other
path is refused from its name and the vault's rules, before anything is opened, with one
message whether or not a file is there: the answer tells nothing about files outside the
vault, and shows nothing of a plugin's settings or an ignored folder.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..agents.tokens import estimate_tokens
from ..index.queries import INDEX_NOTE, NoteNotFound, concept_notes, find_note
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..library.dumps import DumpReport, find_dumps
from ..parse.parser import date_named, mask_note, parse_note
from ..parse.records import Link
from ..vault.files import follow_inside, is_note_name, is_temp_name, read_note

MAX_LINES = 200
MAX_BYTES = 25 * 1024
TEXT_LIMIT = 120  # characters besides links in one entry before it "holds text"
PARAGRAPH_LIMIT = 240  # the same for a paragraph outside lists
DATED_SHARE = 0.75
DATED_MIN = 2
PREVIEW = 60
# Links into one dated folder past which it is listed note by note (a first and a newest
# link are a range, not a list): the index grows with every diary entry.
NOTE_BY_NOTE = 2

_ITEM = re.compile(r"^ {0,12}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_TABLE = re.compile(r"^ {0,3}\|")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_SPACES = re.compile(r"\s+")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S")  # [label]: path, a pointer
_NOT_TEXT = (_HEADING, _TABLE, _RULE, _REFERENCE)
# Markdown links (any destination), autolinks and bare URLs
_POINTERS = re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)|<[a-z][a-z0-9+.-]*:[^>\s]*>|https?://[^\s)>\]]+")


class NotAnIndexNote(ValueError):
    """A name for the index note that is not a note the vault may hold."""


def refusal(name: str) -> str:
    """The one message for every index note refused (see the module's rules)."""
    return (
        f"{name!r} is not a note of this vault: the index note is a .md file inside the "
        "vault, not in a dot-folder or an ignored folder (e.g. MEMORY.md)"
    )


def index_note_named(index: IndexView, name: str) -> str:
    """The index note a NOTE argument names: a note of the vault, resolved like a link;
    else the vault path it spells (``.md`` added), which need not exist yet (a fix
    creates it). Raises ``AmbiguousNote`` when it names several notes, ``NotAnIndexNote``
    when the path is not one a note of the vault may have."""
    index = index.snapshot()
    try:
        found: str | None = find_note(index, name)
    except NoteNotFound:
        found = None
    if found is not None and found in index.notes:
        return found
    spelled = name.strip().replace("\\", "/")
    rel = posixpath.normpath(spelled) if spelled else ""
    rel = rel if is_note_name(rel) else rel + ".md"
    if refused(index, rel):
        raise NotAnIndexNote(refusal(name))
    return rel


def refused(index: IndexView, rel: str) -> bool:
    """Whether the vault path ``rel`` cannot be a note of the vault, from its name, the
    vault's ignore rules and its symbolic links (``follow_inside``): nothing is opened,
    and nothing outside the vault is looked at."""
    if rel in index.notes:  # the scan took it for a note
        return False
    parts = rel.split("/")
    if os.path.isabs(rel) or not is_note_name(parts[-1]) or is_temp_name(parts[-1]):
        return True
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return True
    rules = index.rules
    folders = ("/".join(parts[:n]) for n in range(1, len(parts)))
    if any(rules.ignored(folder, True) for folder in folders) or rules.ignored(rel, False):
        return True
    return follow_inside(index.root, rel).refused is not None


@dataclass(frozen=True, slots=True)
class DeadLink:
    line: int
    target: str  # as written
    text: str  # the link as written in the note


@dataclass(frozen=True, slots=True)
class TextEntry:
    """A list item or paragraph holding more than a pointer: lines ``line``–``end_line``,
    ``chars`` characters besides its links."""

    line: int
    end_line: int
    chars: int
    preview: str


@dataclass(frozen=True, slots=True)
class DatedFolder:
    """A dated folder; ``entries``: how many of its notes the index note links one by one
    (past ``NOTE_BY_NOTE``, a single folder entry would do, and keep the index short)."""

    folder: str
    notes: tuple[str, ...]
    listed: bool
    entries: int = 0

    @property
    def note_by_note(self) -> bool:
        return self.entries > NOTE_BY_NOTE


@dataclass(frozen=True, slots=True)
class MissingEntry:
    """An entry the index note lacks: one note (``kind`` "note") or one dated folder
    (``kind`` "folder", ``notes`` the notes it stands for)."""

    kind: Literal["note", "folder"]
    path: str
    notes: tuple[str, ...]
    group: str  # the top folder it is grouped under ("" for the vault's root)


@dataclass(frozen=True, slots=True)
class IndexNoteHealth:
    """What ``index_note_health`` found; ``exists`` False: there is no index note (every note
    is then not listed, and a fix creates it). ``error``: it cannot be read."""

    index: str
    exists: bool
    lines: int = 0
    bytes: int = 0
    tokens: int = 0
    notes: int = 0  # the notes it should list (not itself, not excluded)
    excluded: int = 0
    listed: tuple[str, ...] = ()
    unlisted: tuple[str, ...] = ()
    dead_links: tuple[DeadLink, ...] = ()
    text_entries: tuple[TextEntry, ...] = ()
    folder_entries: tuple[str, ...] = ()
    dated_folders: tuple[DatedFolder, ...] = ()
    missing: tuple[MissingEntry, ...] = ()
    error: str | None = None
    warnings: tuple[str, ...] = field(default=())
    # Notes of the vault grown into dumps (``library.dumps``): the index note itself when it
    # is one, and any other; each with the command that splits it.
    dumps: tuple[DumpReport, ...] = ()

    @property
    def too_long(self) -> bool:
        return self.lines > MAX_LINES or self.bytes > MAX_BYTES

    @property
    def healthy(self) -> bool:
        return (
            self.exists
            and self.error is None
            and not (self.unlisted or self.dead_links or self.text_entries or self.too_long)
        )


def excluded_by(rel: str, patterns: Sequence[str]) -> bool:
    """Whether an exclude pattern matches the note's path or one of its folders."""
    if not patterns:
        return False
    parts = rel.split("/")
    candidates = [rel] + ["/".join(parts[:n]) for n in range(1, len(parts))]
    candidates += [c + "/" for c in candidates[1:]]
    return any(fnmatch.fnmatchcase(c, p) for p in patterns for c in candidates)


def dated_folders(notes: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The topmost dated folders (see the module's rules) → their notes, in path order."""
    under: dict[str, list[str]] = {}
    for rel in notes:
        parts = rel.split("/")
        for n in range(1, len(parts)):
            under.setdefault("/".join(parts[:n]), []).append(rel)
    found: dict[str, tuple[str, ...]] = {}
    for folder in sorted(under, key=lambda f: (f.count("/"), f)):
        if any(folder.startswith(top + "/") for top in found):
            continue
        members = under[folder]
        dated = sum(1 for rel in members if date_named(rel.rsplit("/", 1)[-1]))
        if len(members) >= DATED_MIN and dated >= DATED_SHARE * len(members):
            found[folder] = tuple(sorted(members))
    return dict(sorted(found.items()))


def index_note_health(
    index: IndexView,
    *,
    index_note: str = INDEX_NOTE,
    exclude: Sequence[str] = (),
    dumps: bool = True,
) -> IndexNoteHealth:
    """The health of the index note ``index_note`` (a vault path) in ``index``'s vault.
    Reads the index note from disk (not from the index), so it is current. ``dumps``: also
    find the vault's dump candidates (``library.dumps.find_dumps``)."""
    health = _index_note_health(index.snapshot(), index_note, exclude)
    return replace(health, dumps=tuple(find_dumps(index))) if dumps else health


def _index_note_health(
    index: IndexView, index_note: str, exclude: Sequence[str]
) -> IndexNoteHealth:
    if index_note not in index.notes:  # ``MEMORY.md`` names ``memory.md`` if it is the one
        spelled = [rel for rel in index.notes if rel.lower() == index_note.lower()]
        index_note = spelled[0] if len(spelled) == 1 else index_note
    every = [rel for rel in index.notes if rel.lower() != index_note.lower()]
    kept = sorted(rel for rel in every if not excluded_by(rel, exclude))
    excluded = len(every) - len(kept)
    if refused(index, index_note):
        return IndexNoteHealth(
            index_note, False, notes=len(kept), excluded=excluded, error=refusal(index_note)
        )
    dated = dated_folders(kept)
    result = read_note(index.root, index_note)
    if result.stamp is None:
        gone = result.warning is not None and result.warning.kind == "vanished"
        if not gone:
            reason = result.warning.message if result.warning else "cannot be read"
            return IndexNoteHealth(
                index_note, True, error=reason, notes=len(kept), excluded=excluded
            )
        missing = _missing(kept, dated, frozenset())
        return IndexNoteHealth(
            index_note,
            False,
            notes=len(kept),
            excluded=excluded,
            unlisted=tuple(kept),
            dated_folders=tuple(DatedFolder(f, n, False) for f, n in dated.items()),
            missing=missing,
            warnings=(f"there is no index note {index_note}: Fix creates it",),
        )
    if result.text is None:
        reason = result.warning.message if result.warning else "cannot be read"
        return IndexNoteHealth(index_note, True, error=reason, notes=len(kept), excluded=excluded)
    text = result.text.removeprefix("\ufeff")
    seen = _coverage(index, index_note, text, kept, dated)
    unlisted = tuple(rel for rel in kept if rel not in seen.covered)
    size = result.stamp.size
    lines = _line_count(text)
    health = IndexNoteHealth(
        index_note,
        True,
        lines=lines,
        bytes=size,
        tokens=estimate_tokens(text),
        notes=len(kept),
        excluded=excluded,
        listed=tuple(rel for rel in kept if rel in seen.covered),
        unlisted=unlisted,
        dead_links=seen.dead,
        text_entries=tuple(text_entries(text, seen.links)),
        folder_entries=tuple(sorted(seen.folder_entries)),
        dated_folders=tuple(
            DatedFolder(f, n, f in seen.listed_dated, len(seen.linked.intersection(n)))
            for f, n in dated.items()
        ),
        missing=_missing(unlisted, dated, seen.listed_dated),
    )
    warnings = []
    if lines > MAX_LINES:
        warnings.append(
            f"{lines:,} lines, over {MAX_LINES}: agents load only the first {MAX_LINES}"
        )
    if size > MAX_BYTES:
        warnings.append(f"{size / 1024:.1f} KB, over {MAX_BYTES // 1024} KB: agents load less")
    return replace(health, warnings=tuple(warnings))


@dataclass(frozen=True, slots=True)
class _Coverage:
    """What an index note's text lists of ``kept`` (see the module's rules)."""

    links: tuple[Link, ...]
    linked: frozenset[str]
    folder_entries: frozenset[str]
    listed_dated: frozenset[str]
    dead: tuple[DeadLink, ...]
    covered: frozenset[str]


def _coverage(
    index: IndexView,
    index_note: str,
    text: str,
    kept: Sequence[str],
    dated: dict[str, tuple[str, ...]],
) -> _Coverage:
    parsed = parse_note(text)
    folders = _folders(kept)
    linked: set[str] = set()
    folder_entries: set[str] = set()
    dead: list[DeadLink] = []
    pages: Mapping[str, str] | None = None  # made when a link names a concept
    index = index.snapshot()
    for link in parsed.links:
        if link.is_self:
            continue
        node = index.resolver.resolve(link, index_note)
        if node in index.notes or node in index.attachments:
            linked.add(node)
        elif node.startswith(CONCEPT_PREFIX):
            if pages is None:
                pages = concept_notes(index)
            page = pages.get(node[len(CONCEPT_PREFIX) :])
            if page is not None:
                linked.add(page)
        elif (folder := _folder_of(link, index_note, folders)) is not None:
            folder_entries.add(folder)
        else:  # unresolved
            dead.append(DeadLink(link.line, link.target, text[link.start : link.end]))
    covered = set(linked)
    for folder in folder_entries:
        covered.update(rel for rel in kept if rel.startswith(folder + "/"))
    listed_dated = {
        folder
        for folder, members in dated.items()
        if not linked.isdisjoint(members)
        or any(f == folder or f.startswith(folder + "/") for f in folder_entries)
    }
    for folder in listed_dated:
        covered.update(dated[folder])
    return _Coverage(
        tuple(parsed.links),
        frozenset(linked),
        frozenset(folder_entries),
        frozenset(listed_dated),
        tuple(dead),
        frozenset(covered),
    )


def entry_lists(index: IndexView, index_note: str, line: str, entry: MissingEntry) -> bool:
    """Whether ``line``, the text of the index note ``index_note`` on its own, lists every
    note ``entry`` stands for: what a fix checks each entry it writes against."""
    dated = {entry.path: entry.notes} if entry.kind == "folder" else {}
    covered = _coverage(index, index_note, line, entry.notes, dated).covered
    return covered.issuperset(entry.notes)


def listed_by(index: IndexView, health: IndexNoteHealth, text: str) -> frozenset[str]:
    """The notes ``text``, as the text of ``health``'s index note, would list of those
    ``health`` counts (listed or not): what a fix can check its new text against."""
    kept = sorted((*health.listed, *health.unlisted))
    dated = {folder.folder: folder.notes for folder in health.dated_folders}
    return _coverage(index, health.index, text.removeprefix("\ufeff"), kept, dated).covered


def _line_count(text: str) -> int:
    if not text:
        return 0
    return len(text.splitlines())


def _folders(notes: Iterable[str]) -> dict[str, str]:
    """Every folder holding notes, lower-cased → as spelled."""
    out: dict[str, str] = {}
    for rel in notes:
        parts = rel.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n])
            out.setdefault(folder.lower(), folder)
    return out


def _folder_of(link: Link, source: str, folders: dict[str, str]) -> str | None:
    """The folder a link names, if it names one (a folder entry)."""
    target = link.target.strip()
    if not target:
        return None
    if link.kind == "markdown" and not target.startswith("/"):
        base = posixpath.dirname(source)
        target = posixpath.normpath(posixpath.join(base, target)) if base else target
        target = posixpath.normpath(target)
    target = target.strip("/")
    if target.startswith("..") or not target or target == ".":
        return None
    return folders.get(target.lower())


@dataclass(slots=True)
class _Block:
    first: int
    last: int
    parts: list[str]
    item: bool


def text_entries(text: str, links: Sequence[Link]) -> list[TextEntry]:
    """The list items and paragraphs of ``text`` holding more than ``TEXT_LIMIT``
    characters besides their links (see the module's rules)."""
    masked = mask_note(text)
    spans = sorted((link.start, link.end) for link in links)
    if spans:  # links out (their offsets index ``text``, as ``masked`` keeps them)
        chars = list(masked)
        for start, end in spans:
            chars[start:end] = " " * (end - start)
        masked = "".join(chars)
    # Links the graph does not count are pointers too: to the web, or to a heading.
    masked = _POINTERS.sub(lambda m: " " * len(m.group()), masked)
    lines = masked.split("\n")
    blocks: list[_Block] = []
    current: _Block | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if current is not None and not current.item and _SETEXT.match(line):
            blocks.pop()  # the paragraph was a heading
            current = None
            continue
        if not line.strip() or any(p.match(line) for p in _NOT_TEXT):
            current = None
            continue
        item = _ITEM.match(line)
        if item is not None:
            current = _Block(number, number, [line[item.end() :]], True)
            blocks.append(current)
        elif current is None:
            current = _Block(number, number, [_QUOTE.sub("", line)], False)
            blocks.append(current)
        else:
            current.parts.append(_QUOTE.sub("", line))
            current.last = number
    found = []
    for block in blocks:
        first, last, parts = block.first, block.last, block.parts
        body = _SPACES.sub(" ", " ".join(parts)).strip(" —–-:·,;|")
        if len(body) > (TEXT_LIMIT if block.item else PARAGRAPH_LIMIT):
            preview = body[:PREVIEW].rstrip() + ("…" if len(body) > PREVIEW else "")
            found.append(TextEntry(first, last, len(body), preview))
    return found


def _missing(
    unlisted: Iterable[str], dated: dict[str, tuple[str, ...]], listed_dated: frozenset[str]
) -> tuple[MissingEntry, ...]:
    """The entries a fix adds: one per dated folder none of whose notes is listed, one per
    other note; by group (top folder, the root's first), then path."""
    out: dict[str, MissingEntry] = {}
    for rel in unlisted:
        folder = next((f for f in dated if rel.startswith(f + "/")), None)
        if folder is not None and folder not in listed_dated:
            out.setdefault(
                folder, MissingEntry("folder", folder, dated[folder], folder.split("/")[0])
            )
        elif folder is None:
            group = rel.split("/")[0] if "/" in rel else ""
            out[rel] = MissingEntry("note", rel, (rel,), group)
    return tuple(sorted(out.values(), key=lambda e: (e.group != "", e.group, e.path.lower())))


def health_json(health: IndexNoteHealth) -> dict[str, Any]:
    """``librarian index --json`` (and the MCP ``index_health`` tool): stable keys."""
    return {
        "index": health.index,
        "exists": health.exists,
        "error": health.error,
        "healthy": health.healthy,
        "lines": health.lines,
        "bytes": health.bytes,
        "tokens": health.tokens,
        "limits": {
            "lines": MAX_LINES,
            "bytes": MAX_BYTES,
            "entry_text": TEXT_LIMIT,
            "paragraph_text": PARAGRAPH_LIMIT,
        },
        "too_long": health.too_long,
        "warnings": list(health.warnings),
        "notes": health.notes,
        "excluded": health.excluded,
        "listed": len(health.listed),
        "unlisted": list(health.unlisted),
        "dead_links": [
            {"line": d.line, "target": d.target, "text": d.text} for d in health.dead_links
        ],
        "text_entries": [
            {"line": t.line, "end_line": t.end_line, "chars": t.chars, "preview": t.preview}
            for t in health.text_entries
        ],
        "folder_entries": list(health.folder_entries),
        "dated_folders": [
            {
                "folder": d.folder,
                "notes": len(d.notes),
                "listed": d.listed,
                "entries": d.entries,
                "note_by_note": d.note_by_note,
            }
            for d in health.dated_folders
        ],
        "missing_entries": [
            {"kind": m.kind, "path": m.path, "notes": len(m.notes), "group": m.group}
            for m in health.missing
        ],
        "dumps": [report.json() for report in health.dumps],
    }
