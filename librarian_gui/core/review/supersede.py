"""The "supersedes" mark (issue 32 item 4): the newer note of a contradiction candidate
says it replaces the older one, as a front-matter property ``supersedes: "[[older]]"`` —
previewed as a diff, written through the journal, undoable.

How the property is written (every other byte of the note stays as it was; its line
endings and BOM are kept):

- a note without front matter gets one, at its top, holding only the property;
- front matter without ``supersedes`` gets the line ``supersedes: "[[older]]"`` at its end;
- a ``supersedes`` that already names other notes becomes a block list of them all, the
  older note last (``supersedes:`` then ``  - "[[a]]"`` per item); what it held is kept,
  each item re-quoted (an unquoted ``[[a]]``, which YAML reads as a list in a list, becomes
  ``"[[a]]"``, as Obsidian means it).

The link is the older note's name as a link from the newer note resolves it (its title when
unique, else its path). Refused, with the reason, when: the two are one note; the front
matter is not valid YAML; ``supersedes`` holds something that is not a link (a mapping, a
number); or the older note's name cannot be a wiki link. A note that already names the
older one is left as it is (``SupersedePlan.already``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..backlinks.unlinked import linkable_name
from ..index.snapshot import IndexView
from ..parse.parser import load_front_matter, split_front_matter, split_wiki
from ..writing.edits import edit_diff, write_edit
from ..writing.journal import Journal, JournalEntry
from ..writing.lock import WAIT
from ..writing.safewrite import Snapshot, WriteRefused, read_snapshot

KEY = "supersedes"
_KEY_LINE = re.compile(rf"^{KEY}[ \t]*:(?:[ \t]|$)")
_LINK = re.compile(r"^!?\[\[([^\[\]\r\n]+)\]\]$")


@dataclass(frozen=True, slots=True)
class SupersedePlan:
    """The write a "supersedes" mark asks for, as previewed: the newer note as read, its new
    text and the diff (applying writes exactly it). ``already``: the note names the older
    one already; nothing to write."""

    note: str
    older: str
    name: str  # the older note as the link names it
    snapshot: Snapshot
    after: str
    diff: str

    @property
    def already(self) -> bool:
        return self.after == self.snapshot.text

    def json(self) -> dict[str, Any]:
        return {
            "note": self.note,
            "supersedes": self.older,
            "link": f"[[{self.name}]]",
            "already": self.already,
            "diff": self.diff,
        }


def plan_supersede(index: IndexView, note: str, older: str) -> SupersedePlan:
    """Read ``note`` and make the edit marking it as superseding ``older`` (vault paths),
    without writing. Raises ``WriteRefused`` when it cannot be marked (see the module)."""
    if note == older:
        raise WriteRefused(note, "a note cannot supersede itself")
    index = index.snapshot()
    snapshot = read_snapshot(index.root, note)
    name = linkable_name(index, note, older)

    def names_older(value: str) -> bool:
        link = _LINK.match(value.strip())
        if link is None:
            return False
        target = split_wiki(link.group(1))[0]
        return index.resolver.resolve_name(target, note) == older

    try:
        after = with_supersedes(snapshot.text, name, snapshot.newline, names_older)
    except WriteRefused as exc:
        raise WriteRefused(note, exc.reason) from None
    diff = edit_diff(note, snapshot.text, after)
    return SupersedePlan(note, older, name, snapshot, after, diff)


def with_supersedes(
    text: str,
    name: str,
    newline: str = "\n",
    names_it: Any = None,
) -> str:
    """``text`` (without a BOM) with ``[[name]]`` in its ``supersedes`` property, by the
    module's rules; ``text`` itself when an item already names it (``names_it(item)``, by
    default an item equal to the link). Raises ``WriteRefused`` (its note named ``""``) when
    the front matter cannot take it."""
    link = f"[[{name}]]"
    item = json.dumps(link, ensure_ascii=False)
    _, fm_text, fm_offset = split_front_matter(text)
    if fm_text is None:
        return f"---{newline}{KEY}: {item}{newline}---{newline}{text}"
    warnings: list[str] = []
    data = load_front_matter(fm_text, warnings)
    if data is None:
        raise WriteRefused("", f"{warnings[0]}; fix it, then mark again")
    values = _links_of(data.get(KEY))
    if any((names_it or (lambda v: v == link))(v) for v in values):
        return text
    lines = fm_text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if _KEY_LINE.match(line)), None)
    if at is None:
        block = f"{KEY}: {item}{newline}"
        head = fm_text if not fm_text or fm_text.endswith(("\n", "\r")) else fm_text + newline
        return text[:fm_offset] + head + block + text[fm_offset + len(fm_text) :]
    end = at + 1
    while end < len(lines) and (lines[end][:1] in (" ", "\t", "-") or not lines[end].strip()):
        end += 1
    while end > at + 1 and not lines[end - 1].strip():  # blank lines after it stay
        end -= 1
    items = [*(json.dumps(v, ensure_ascii=False) for v in values), item]
    if len(items) == 1:
        block = f"{KEY}: {item}{newline}"
    else:
        block = f"{KEY}:{newline}" + "".join(f"  - {i}{newline}" for i in items)
    start = fm_offset + sum(len(line) for line in lines[:at])
    stop = fm_offset + sum(len(line) for line in lines[:end])
    return text[:start] + block + text[stop:]


def _links_of(value: Any, *, strict: bool = True) -> list[str]:
    """The items of a ``supersedes`` value as text; an unquoted ``[[a]]`` (a list in a list
    to YAML) as ``[[a]]``. Anything else raises ``WriteRefused``, or is left out when not
    ``strict``."""
    if value is None or value == "":
        return []
    out = []
    for item in value if isinstance(value, list) else [value]:
        inner, depth = item, 0
        while isinstance(inner, list) and len(inner) == 1:
            inner, depth = inner[0], depth + 1
        if isinstance(inner, str):
            out.append(f"[[{inner}]]" if depth else inner)
        elif strict:
            raise WriteRefused("", f"its {KEY} property holds {item!r}; edit it by hand")
    return out


def superseded_by(index: IndexView, rel: str, text: str) -> list[str]:
    """The notes ``rel`` (its text ``text``) names in its ``supersedes`` property, as
    resolved from it (what is not a link to a note is left out)."""
    _, fm_text, _ = split_front_matter(text.removeprefix("\ufeff"))
    data = load_front_matter(fm_text, []) if fm_text is not None else None
    out = []
    for value in _links_of(data.get(KEY) if data else None, strict=False):
        link = _LINK.match(value.strip())
        if link is not None:
            found = index.resolver.resolve_name(split_wiki(link.group(1))[0], rel)
            if found is not None:
                out.append(found)
    return out


def apply_supersede(journal: Journal, plan: SupersedePlan, wait: float = WAIT) -> JournalEntry:
    """Write ``plan`` through the journal as one entry, unless the note changed since it
    was read for the preview (``WriteRefused`` says so; nothing is written)."""
    if plan.already:
        raise WriteRefused(plan.note, f"it names [[{plan.name}]] in {KEY} already")
    return write_edit(
        journal, f"Mark {plan.note} as superseding [[{plan.name}]]", plan.snapshot, plan.after, wait
    )
