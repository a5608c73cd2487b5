"""The index note as a pack shows it. A run of list items that each only link one dated note
of one folder (``- [[diary/2023-05-08]]``, a line per diary entry: what the index note's
health calls listing a dated folder note by note, ``core/insight/index_note.py``) is shown
as the one entry that health asks for, a range:
``- [[diary/2023-05-08]] … [[diary/2023-10-22]] (19 dated notes)``. The folder, the first and
the last note and how many there are stay; the budget the other lines took goes to passages.
An item that says anything besides its link is shown as written."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from urllib.parse import unquote

from ..parse.parser import date_named

# More links than a first and a last one: past this a folder is listed note by note.
RUN_MIN = 3

_LINK_ITEM = re.compile(
    r"^(?P<lead>[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)"
    r"(?P<link>\[\[(?P<wiki>[^\[\]|#\n]+)(?:\|[^\[\]\n]*)?\]\]"
    r"|\[[^\[\]\n]*\]\((?P<md>[^()\s]+)\))[ \t]*$"
)
_DIGITS = re.compile(r"\d+")


def fold_dated_runs(lines: Sequence[str]) -> tuple[list[str], int]:
    """``lines`` with each run of ``RUN_MIN`` or more dated-note links (one folder, one list,
    in date order either way) as one range line, and how many links the ranges stand for."""
    out: list[str] = []
    folded = 0
    i = 0
    while i < len(lines):
        first = _dated(lines[i])
        j = i + 1
        if first is not None:
            names = [first[2]]
            while j < len(lines):
                item = _dated(lines[j])
                if item is None or not _same_list(item, first) or not _in_order(names, item[2]):
                    break
                names.append(item[2])
                j += 1
        if first is None or j - i < RUN_MIN:
            out.extend(lines[i:j])
            i = j
            continue
        lead = first[0]
        start = lines[i][len(lead) :].rstrip()
        end = lines[j - 1][len(lead) :].rstrip()
        out.append(f"{lead}{start} … {end} ({j - i} dated notes)")
        folded += j - i
        i = j
    return out, folded


def _dated(line: str) -> tuple[str, str, str] | None:
    """(list marker with its indent, folder, note name) of an item that is only a link to a
    note whose name starts with a date; None for any other line."""
    found = _LINK_ITEM.match(line)
    if found is None:
        return None
    target = found["wiki"] if found["wiki"] is not None else unquote(found["md"])
    target = target.strip()
    if target.lower().endswith(".md"):
        target = target[:-3]
    folder, name = posixpath.split(target)
    if not date_named(name):
        return None
    return found["lead"], folder, name


def _same_list(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether two items are of one list (one indent, one marker: ``1.`` and ``2.`` are
    one) and link into one folder."""
    return a[1] == b[1] and _DIGITS.sub("1", a[0]) == _DIGITS.sub("1", b[0])


def _in_order(names: list[str], name: str) -> bool:
    """Whether ``name`` goes on the run of ``names`` in one direction (dates sort as text)."""
    if len(names) == 1:
        return name != names[0]
    rising = names[1] > names[0]
    return name > names[-1] if rising else name < names[-1]
