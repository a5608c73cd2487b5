"""A split plan: where each section of a dump goes, the new index, the links rewritten.

The rules (a person tidying an agent's memory by hand would do the same):

- **Dated sections** go to logs: ``logs/2024-03-01.md`` (one note a day; two sections of one
  day share it) or, with ``logs="month"``, ``logs/2024-03.md``.
- **Topic sections** go to a note named by their heading (``decisions/Use DuckDB.md``): a
  ``[[Use DuckDB]]`` written anywhere then finds it. Its folder is, in this order: the
  folder most of the notes it links live in (a section linking three decisions goes beside
  them), the category of the concepts it links most (``security/``), else ``notes/``.
  Sections under one heading text share one note. A name taken by another note gets
  `` (2)``, `` (3)``….
- **What stays**: the front matter, the preamble (the title and what the index is for),
  grouping headings, and the sections the user keeps. In place of the moved sections the
  index gets one line per topic note (``- [[decisions/Use DuckDB|Use DuckDB]] — its first
  line``) and one per folder of logs (``- [logs/](logs/) — 42 logs, 2024-03-01 to
  2024-05-30``), each where its first section was, so the index keeps the dump's order.
  When those lines would pass the limits of a dump (200 lines, 25 KB), one line per folder
  of topic notes instead. New folders go beside the dump (``agent/MEMORY.md``: ``agent/logs``).
- **Every line lands in one place**: each line of the dump is in exactly one new note or
  stays in the index; only links are rewritten. A link to a heading that moved
  (``[[MEMORY#Some heading]]`` in another note, ``[[#Some heading]]`` inside the dump) is
  rewritten to the note that now holds the heading; so is a Markdown link
  (``[x](MEMORY.md#some-heading)``), and a Markdown link's relative path in a section that
  moves to another folder (it must reach the same file). A note's text ends with a line
  ending.
- **The user decides**: ``keep`` leaves sections in the index, ``to`` names a section's new
  note (sections given one path are merged, in the dump's order), ``logs`` chooses daily or
  monthly logs and ``logs_folder`` their folder.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..parse.parser import parse_note
from ..parse.records import Link, name_key
from ..render.render import heading_anchor
from ..vault.files import is_note_name
from ..writing.place import check_new_name
from ..writing.safewrite import Snapshot, WriteRefused, read_snapshot
from .dumps import DEFAULT_LIMITS, DumpLimits, DumpReport, report_of_shape
from .sections import NoteShape, Section, shape_of, split_lines

LogSpan = Literal["day", "month"]
DEFAULT_FOLDER = "notes"
NAME_LIMIT = 80  # characters of a heading kept in a note's name
DESCRIPTION_LIMIT = 90  # characters of a section's first line kept in its index entry
_NOT_IN_NAMES = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]+')
_SPACES = re.compile(r"\s+")
_MARKUP = re.compile(r"^(?:\s*(?:[-*+]|\d{1,9}[.)]|>)(?:\s+|$))+|[*_`]+")
_PROPERTY = re.compile(r"^(?:[-*+]\s+)?[\w-]+::")
_WIKI = re.compile(r"!?\[\[([^\]|#]*)(?:#([^\]|]*))?(?:\|([^\]]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_DEST = re.compile(r"^(!?\[.*\]\()(<[^>]*>|[^)\s]*)((?:\s[^)]*)?\))$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SplitOptions:
    logs: LogSpan = "day"
    logs_folder: str = "logs"
    keep: frozenset[int] = frozenset()  # section numbers that stay in the index
    to: Mapping[int, str] = field(default_factory=dict)  # section number → new note's path


@dataclass(frozen=True, slots=True)
class Target:
    """One new note: the sections it receives, in the dump's order."""

    path: str
    kind: Literal["log", "topic"]
    sections: tuple[int, ...]
    title: str
    description: str
    text: str  # what the note will hold


@dataclass(frozen=True, slots=True)
class LinkChange:
    note: str  # the note holding the link (the dump: a link moved with its section)
    line: int  # 1-based, in that note as it is now
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class SplitPlan:
    dump: str
    snapshot: Snapshot  # the dump as the plan read it
    shape: NoteShape
    report: DumpReport
    options: SplitOptions
    targets: tuple[Target, ...]
    section_targets: Mapping[int, str]  # every moved section's new note
    kept: tuple[int, ...]  # sections that stay in the index
    index_text: str  # the dump's new text
    index_added: tuple[str, ...]  # the lines the index gains (entries, blank lines)
    link_changes: tuple[LinkChange, ...]
    elsewhere: Mapping[str, tuple[Snapshot, str]]  # other notes whose links are rewritten
    warnings: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.targets

    def json(self) -> dict[str, Any]:
        shape = self.shape
        return {
            "note": self.dump,
            "dump": self.report.json(),
            "sections": [
                {
                    "n": s.number,
                    "title": s.title,
                    "first_line": s.first + 1,
                    "last_line": s.end,
                    "lines": s.end - s.first,
                    "date": s.date.isoformat() if s.date else None,
                    "target": self.section_targets.get(s.number),
                    "stays": s.number in self.kept,
                }
                for s in shape.sections
            ],
            "files": [
                {
                    "path": t.path,
                    "kind": t.kind,
                    "sections": list(t.sections),
                    "lines": len(split_lines(t.text)),
                    "description": t.description,
                }
                for t in self.targets
            ],
            "index": {
                "path": self.dump,
                "lines_before": len(shape.lines),
                "lines_after": self.index_text.count("\n") + (not self.index_text.endswith("\n")),
                "added_lines": [line.rstrip("\r\n") for line in self.index_added],
                "text": self.index_text,
            },
            "links": [
                {"note": c.note, "line": c.line, "before": c.before, "after": c.after}
                for c in self.link_changes
            ],
            "warnings": list(self.warnings),
        }


class NothingToSplit(ValueError):
    """The note has no sections to move."""


def plan_split(
    index: IndexView,
    dump: str,
    options: SplitOptions = SplitOptions(),
    limits: DumpLimits = DEFAULT_LIMITS,
) -> SplitPlan:
    """The plan for splitting the note ``dump`` (a vault path the index holds). Reads the
    dump and the notes linking it from disk. ``WriteRefused`` when the dump cannot be
    edited (binary, not UTF-8, gone); ``NothingToSplit`` when no heading repeats."""
    index = index.snapshot()
    snapshot = read_snapshot(index.root, dump)
    text = snapshot.text
    parsed = parse_note(text)
    shape = shape_of(text, parsed)
    report = report_of_shape(dump, shape, text, len(snapshot.data), limits)
    movable = [s for s in shape.sections if not s.grouping]
    if not movable:
        raise NothingToSplit(
            f"{dump} has no sections to move: no heading level repeats below its title"
        )
    warnings: list[str] = []
    for number in sorted(set(options.keep) | set(options.to)):
        if not 1 <= number <= len(shape.sections):
            warnings.append(f"there is no section {number} (the note has {len(shape.sections)})")
    kept = tuple(s.number for s in shape.sections if s.grouping or s.number in options.keep)
    moved = [s for s in shape.sections if s.number not in kept]
    links_by_section = _links_by_section(parsed.links, shape)
    taken = _names_taken(index, dump)
    section_targets, kinds = _choose_targets(index, dump, shape, moved, options, links_by_section)
    section_targets = _unique(section_targets, kinds, taken, options.to, warnings)
    # every heading → the note that holds it after the split (the first of a repeated one)
    heading_home: dict[str, str] = {}
    for heading in parsed.headings:
        if shape.front_matter_end <= heading.line - 1 < shape.preamble_end:
            heading_home.setdefault(heading_anchor(heading.text), dump)
    for section in shape.sections:
        home = section_targets.get(section.number, dump)
        for heading in section.headings:
            heading_home.setdefault(heading_anchor(heading.text), home)
    changes: list[LinkChange] = []
    new_lines = list(shape.lines)
    _rewrite_dump_links(
        dump, parsed.links, shape, section_targets, heading_home, new_lines, changes, text
    )
    elsewhere = _rewrite_elsewhere(index, dump, heading_home, changes, warnings)
    targets = _targets(shape, section_targets, kinds, new_lines, snapshot.newline)
    index_text, added = _index_text(shape, kept, section_targets, targets, new_lines, snapshot)
    if _too_long(index_text, limits):
        # One line per topic note would make the index a dump again: one per folder instead.
        index_text, added = _index_text(
            shape, kept, section_targets, targets, new_lines, snapshot, by_folder=True
        )
        if _too_long(index_text, limits):
            warnings.append(
                f"the new {dump} is still past {limits.lines} lines or {limits.bytes:,} bytes: "
                "keep fewer sections in it"
            )
    return SplitPlan(
        dump,
        snapshot,
        shape,
        report,
        options,
        targets,
        section_targets,
        kept,
        index_text,
        added,
        tuple(changes),
        elsewhere,
        tuple(warnings),
    )


# ------------------------------------------------------------------ choosing targets


def _links_by_section(links: tuple[Link, ...], shape: NoteShape) -> dict[int, list[Link]]:
    out: dict[int, list[Link]] = {}
    for link in links:
        section = _section_at(shape, link.line - 1)
        if section is not None:
            out.setdefault(section.number, []).append(link)
    return out


def _section_at(shape: NoteShape, line: int) -> Section | None:
    """The section holding the 0-based ``line``, if any (sections run in line order)."""
    at = bisect.bisect_right(shape.starts, line) - 1
    if at >= 0 and line < shape.sections[at].end:
        return shape.sections[at]
    return None


def _choose_targets(
    index: IndexView,
    dump: str,
    shape: NoteShape,
    moved: list[Section],
    options: SplitOptions,
    links_by_section: dict[int, list[Link]],
) -> tuple[dict[int, str], dict[str, Literal["log", "topic"]]]:
    targets: dict[int, str] = {}
    kinds: dict[str, Literal["log", "topic"]] = {}
    # New folders go beside the dump (``memory/MEMORY.md``: ``memory/logs/``)
    home = posixpath.dirname(dump)
    logs = posixpath.join(home, options.logs_folder.strip("/") or "logs")
    by_title: dict[str, str] = {}
    for section in moved:
        chosen = options.to.get(section.number)
        kind: Literal["log", "topic"] = "topic"
        if chosen is not None:
            path = _as_note_path(chosen)
            if section.date is not None and posixpath.dirname(path) == logs:
                kind = "log"  # sent to a log of another day: still a log
        elif section.date is not None:
            day = section.date.isoformat()
            stem = day[:7] if options.logs == "month" else day
            path, kind = f"{logs}/{stem}.md", "log"
        else:
            title_key = section.title.strip().lower()
            path = by_title.get(title_key, "")
            if not path:
                folder = _folder_for(index, dump, links_by_section.get(section.number, []), home)
                path = f"{folder}/{_file_name(section.title, section.number)}.md"
                by_title[title_key] = path
        targets[section.number] = path
        kinds.setdefault(path, kind)
    return targets, kinds


def _folder_for(index: IndexView, dump: str, links: list[Link], home: str) -> str:
    """The folder most of the notes ``links`` reach live in; else the category of the
    concepts they reach most; else ``DEFAULT_FOLDER`` (these two in ``home``, the dump's
    folder)."""
    folders: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    for link in links:
        if not link.target:
            continue
        node = index.resolver.resolve(link, dump)
        if node == dump:
            continue
        if node in index.notes:
            folder = posixpath.dirname(node)
            if folder:
                folders[folder] += 1
        elif node.startswith(CONCEPT_PREFIX):
            concept = index.concepts.get(node[len(CONCEPT_PREFIX) :])
            if concept is not None and concept.category.strip():
                categories[_folder_name(concept.category)] += 1
    if folders:
        return min(folders, key=lambda name: (-folders[name], name))
    if categories:
        return posixpath.join(home, min(categories, key=lambda n: (-categories[n], n)))
    return posixpath.join(home, DEFAULT_FOLDER)


def _folder_name(category: str) -> str:
    name = _SPACES.sub(" ", _NOT_IN_NAMES.sub(" ", category)).strip(" .")
    return name.lower() or DEFAULT_FOLDER


def _file_name(title: str, number: int) -> str:
    """A heading as a note's name: characters no file name (or wiki-link) can hold taken
    out, cut at a word before ``NAME_LIMIT``."""
    name = unicodedata.normalize("NFC", title)
    name = _SPACES.sub(" ", _NOT_IN_NAMES.sub(" ", name)).strip(" .")
    if len(name) > NAME_LIMIT:
        cut = name.rfind(" ", 0, NAME_LIMIT)
        name = name[: cut if cut > NAME_LIMIT // 2 else NAME_LIMIT].rstrip(" .")
    try:
        check_new_name(f"{name}.md")
    except WriteRefused:
        name = ""
    return name or f"section {number}"


def _as_note_path(path: str) -> str:
    path = path.strip().strip("/")
    return path if is_note_name(path) else f"{path}.md"


def _names_taken(index: IndexView, dump: str) -> tuple[set[str], set[str]]:
    """The vault's note paths (lowercased) and names (``name_key``), the dump's left out."""
    paths = {rel.lower() for rel in index.notes if rel != dump}
    names = {name_key(rel) for rel in index.notes if rel != dump}
    return paths, names


def _unique(
    targets: dict[int, str],
    kinds: dict[str, Literal["log", "topic"]],
    taken: tuple[set[str], set[str]],
    chosen: Mapping[int, str],
    warnings: list[str],
) -> dict[int, str]:
    """Each new note a path no note has, and a topic note a name no note has (so that
    ``[[Its heading]]`` finds it alone): `` (2)``, `` (3)``… added where needed."""
    paths, names = taken
    renamed: dict[str, str] = {}
    for number, path in targets.items():
        if path in renamed:
            continue
        stem = path[:-3]
        fresh, n = path, 1
        while fresh.lower() in paths or (kinds[path] == "topic" and name_key(fresh) in names):
            n += 1
            fresh = f"{stem} ({n}).md"
        if fresh != path and number in chosen:
            warnings.append(
                f"{path} is taken by a note of the vault: section {number} goes to {fresh}"
            )
        renamed[path] = fresh
        kinds[fresh] = kinds[path]
        paths.add(fresh.lower())
        names.add(name_key(fresh))
    return {number: renamed[path] for number, path in targets.items()}


# ------------------------------------------------------------------ links


def _link_home(link: Link, heading_home: dict[str, str]) -> str | None:
    if not link.fragment or link.fragment.startswith("^"):
        return None
    return heading_home.get(heading_anchor(link.fragment.rsplit("#", 1)[-1]))


def _rewritten(link: Link, written: str, source: str, home: str) -> str | None:
    """The link ``written`` (``link`` as in its note ``source``) pointing at ``home``
    instead, its fragment and label kept; None when its form is not one this rewrites."""
    if link.kind == "markdown":
        return _with_path(written, posixpath.relpath(home, posixpath.dirname(source) or "."))
    if not written.endswith("]]"):
        return None
    inner = f"{home[:-3]}#{link.fragment}"
    if link.label is not None:
        inner += f"|{link.label}"
    return f"{'!' if written.startswith('!') else ''}[[{inner}]]"


def _with_path(written: str, path: str) -> str | None:
    """The Markdown link ``written`` with its destination's path ``path`` (a vault path,
    relative), its fragment, title and form (``<a b.md>`` or ``a%20b.md``) kept."""
    match = _MD_DEST.match(written)
    if match is None:
        return None
    dest = match.group(2)
    angled = dest.startswith("<")
    inner = dest[1:-1] if angled else dest
    fragment = inner[inner.index("#") :] if "#" in inner else ""
    where = f"<{path}{fragment}>" if angled else f"{quote(path, safe='/()')}{fragment}"
    return f"{match.group(1)}{where}{match.group(3)}"


def _moved_path(link: Link, written: str, dump: str, here: str) -> str | None:
    """A Markdown link's relative path written in the dump, from ``here``, where its line
    goes: the same file (None when the path need not change)."""
    old, new = posixpath.dirname(dump), posixpath.dirname(here)
    if old == new or not link.target or link.target.startswith("/"):
        return None
    absolute = posixpath.normpath(posixpath.join(old, link.target))
    return _with_path(written, posixpath.relpath(absolute, new or "."))


def _rewrite_dump_links(
    dump: str,
    links: tuple[Link, ...],
    shape: NoteShape,
    section_targets: dict[int, str],
    heading_home: dict[str, str],
    new_lines: list[str],
    changes: list[LinkChange],
    text: str,
) -> None:
    """Rewritten in ``new_lines``: links of the dump to its own headings, where the heading
    and the link end up in different notes, and Markdown links' relative paths in sections
    that move to another folder (a link spanning lines is left as it is)."""
    by_line: dict[int, list[tuple[Link, str]]] = {}
    for link in links:
        if link.kind == "property":
            continue
        written = text[link.start : link.end]
        if "\n" in written:
            continue
        section = _section_at(shape, link.line - 1)
        here = section_targets.get(section.number, dump) if section is not None else dump
        home = None
        if link.fragment and (not link.target or name_key(link.target) == name_key(dump)):
            home = _link_home(link, heading_home)
        if home is not None:
            # to a heading: the note now holding it (``[[#h]]`` in that note stays as it is)
            same = home == here and (not link.target or here == dump)
            after = None if same else _rewritten(link, written, here, home)
        elif link.kind == "markdown" and here != dump:
            after = _moved_path(link, written, dump, here)
        else:
            after = None
        if after is not None and after != written:
            by_line.setdefault(link.line - 1, []).append((link, after))
    for number, found in by_line.items():
        line = new_lines[number]
        line_start = text.rfind("\n", 0, found[0][0].start) + 1
        for link, after in sorted(found, key=lambda pair: -pair[0].start):
            at, end = link.start - line_start, link.end - line_start
            changes.append(LinkChange(dump, number + 1, line[at:end], after))
            line = line[:at] + after + line[end:]
        new_lines[number] = line
    changes.sort(key=lambda c: (c.line, c.before))


def _rewrite_elsewhere(
    index: IndexView,
    dump: str,
    heading_home: dict[str, str],
    changes: list[LinkChange],
    warnings: list[str],
) -> dict[str, tuple[Snapshot, str]]:
    """Other notes' links to the dump's headings that moved, rewritten (read from disk)."""
    out: dict[str, tuple[Snapshot, str]] = {}
    for source in sorted(index.in_edges.get(dump, {})):
        if source == dump or source not in index.notes:
            continue
        try:
            snapshot = read_snapshot(index.root, source)
        except WriteRefused as exc:
            warnings.append(f"{source}: its links to {dump} are not rewritten: {exc.reason}")
            continue
        text = snapshot.text
        edits: list[tuple[int, int, str]] = []
        for link in parse_note(text).links:
            if link.kind == "property" or not link.fragment or not link.target:
                continue
            if index.resolver.resolve(link, source) != dump:
                continue
            home = _link_home(link, heading_home)
            if home is None or home == dump:
                continue
            written = text[link.start : link.end]
            after = _rewritten(link, written, source, home)
            if after is None:
                warnings.append(f"{source} line {link.line}: {written} is not rewritten")
                continue
            edits.append((link.start, link.end, after))
            changes.append(LinkChange(source, link.line, written, after))
        if edits:
            for start, end, after in sorted(edits, reverse=True):
                text = text[:start] + after + text[end:]
            out[source] = (snapshot, text)
    return out


# ------------------------------------------------------------------ the new notes and index


def _targets(
    shape: NoteShape,
    section_targets: dict[int, str],
    kinds: dict[str, Literal["log", "topic"]],
    new_lines: list[str],
    newline: str,
) -> tuple[Target, ...]:
    members: dict[str, list[Section]] = {}
    for section in shape.sections:
        path = section_targets.get(section.number)
        if path is not None:
            members.setdefault(path, []).append(section)
    out: list[Target] = []
    for path, sections in members.items():
        parts: list[str] = []
        for section in sections:
            body = "".join(new_lines[section.first : section.end])
            if parts and not parts[-1].endswith("\n"):
                parts[-1] += newline
            parts.append(body)
        text = "".join(parts)
        if not text.endswith("\n"):
            text += newline
        first = sections[0]
        kind = kinds.get(path, "topic")
        out.append(
            Target(
                path,
                kind,
                tuple(s.number for s in sections),
                first.title,
                _description(shape.lines[first.first + 1 : first.end]),
                text,
            )
        )
    return tuple(out)


def _description(lines: tuple[str, ...] | list[str]) -> str:
    """A section's first line of prose, links as their words, cut short."""
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith(("#", "```", "~~~", "|", "<", "---", "===")):
            continue
        if _PROPERTY.match(line):
            continue  # ``type:: Feature``: an outliner's property, not what the section says
        line = _WIKI.sub(lambda m: m.group(3) or m.group(1) or m.group(2) or "", line)
        line = _MD_LINK.sub(lambda m: m.group(1), line)
        line = _SPACES.sub(" ", _MARKUP.sub("", line)).strip()
        if not line:
            continue
        if len(line) > DESCRIPTION_LIMIT:
            cut = line.rfind(" ", 0, DESCRIPTION_LIMIT)
            line = line[: cut if cut > DESCRIPTION_LIMIT // 2 else DESCRIPTION_LIMIT] + "…"
        return line
    return ""


def _entry(target: Target) -> str:
    name = target.path[:-3]
    label = target.title.replace("|", "-").replace("]", ")").replace("[", "(")
    link = f"[[{name}|{label}]]" if label and label != name else f"[[{name}]]"
    return f"- {link} — {target.description}" if target.description else f"- {link}"


def _log_entry(folder: str, logs: list[Target], shape: NoteShape, index_rel: str) -> str:
    dates = sorted(
        shape.sections[n - 1].date.isoformat()  # type: ignore[union-attr]
        for t in logs
        for n in t.sections
        if shape.sections[n - 1].date is not None
    )
    relative = posixpath.relpath(folder, posixpath.dirname(index_rel) or ".")
    span = f", {dates[0]} to {dates[-1]}" if dates and dates[0] != dates[-1] else ""
    what = "log" if len(logs) == 1 else "logs"
    return f"- [{folder}/]({quote(relative, safe='/()')}/) — {len(logs)} {what}{span}"


def _too_long(text: str, limits: DumpLimits) -> bool:
    return text.count("\n") > limits.lines or len(text.encode("utf-8")) > limits.bytes


def _folder_entry(folder: str, notes: list[Target], index_rel: str) -> str:
    relative = posixpath.relpath(folder, posixpath.dirname(index_rel) or ".")
    titles = ""
    for target in notes:
        more = f"{', ' if titles else ''}{target.title}"
        if len(titles) + len(more) > DESCRIPTION_LIMIT:
            titles += ", …"
            break
        titles += more
    what = "note" if len(notes) == 1 else "notes"
    return f"- [{folder}/]({quote(relative, safe='/()')}/) — {len(notes)} {what}: {titles}"


def _index_text(
    shape: NoteShape,
    kept: tuple[int, ...],
    section_targets: dict[int, str],
    targets: tuple[Target, ...],
    new_lines: list[str],
    snapshot: Snapshot,
    *,
    by_folder: bool = False,
) -> tuple[str, tuple[str, ...]]:
    """The dump's new text; ``by_folder``: one entry per folder of topic notes too, not
    one per note."""
    newline = snapshot.newline
    by_path = {t.path: t for t in targets}
    log_folders: dict[str, list[Target]] = {}
    topic_folders: dict[str, list[Target]] = {}
    for target in targets:
        folders = log_folders if target.kind == "log" else topic_folders
        folders.setdefault(posixpath.dirname(target.path), []).append(target)
    out: list[str] = list(new_lines[: shape.preamble_end])
    added: list[str] = []
    written: set[tuple[str, str]] = set()

    def add(line: str) -> None:
        if out and not out[-1].endswith("\n"):
            out[-1] += newline
        out.append(line + newline)
        added.append(line + newline)

    for section in shape.sections:
        if section.number in kept:
            if out and not out[-1].endswith("\n"):
                out[-1] += newline
            out.extend(new_lines[section.first : section.end])
            continue
        target = by_path[section_targets[section.number]]
        folder = posixpath.dirname(target.path)
        key = folder if target.kind == "log" or by_folder else target.path
        if (target.kind, key) in written:
            continue
        written.add((target.kind, key))
        if out and out[-1].strip() and not out[-1].lstrip().startswith(("- ", "#")):
            add("")  # a list after a paragraph: a blank line between
        if target.kind == "log":
            add(_log_entry(key, log_folders[key], shape, snapshot.rel))
        elif by_folder:
            add(_folder_entry(key, topic_folders[key], snapshot.rel))
        else:
            add(_entry(target))
    return "".join(out), tuple(added)
