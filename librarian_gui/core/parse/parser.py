"""The fast note scanner: front matter, links, tags, headings and block ids of one note.

It works on the decoded text exactly as on disk (``\\r\\n`` kept), so every offset it reports
is an offset into that text. Regions that cannot hold links (fenced and indented code, inline
code, HTML and ``%%`` comments, front matter) are first blanked out in a copy of the text of
the same length; the link, tag and heading patterns then run over that copy.

The rules are DESIGN §2. ``tests/unit/test_scanner_property.py`` checks this scanner against
an independent markdown-it token walk on generated notes.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from typing import Any
from urllib.parse import unquote

from .masking import ITEM_MARKER, THEMATIC_BREAK, is_escaped, mask_text
from .records import Heading, Link, ParsedNote, Tag

__all__ = ["mask_note", "parse_date_text", "parse_note", "split_wiki"]


def _yaml() -> tuple[Any, Any]:
    """PyYAML and its safe loader, imported at the first front matter: a parse worker of
    a vault without any starts 25 ms sooner (the C loader is ~10x faster; PyYAML wheels
    ship it)."""
    import yaml

    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# No optional "!" in front: a literal prefix lets the regex engine skip ahead fast; the
# embed marker is checked by looking one character back. The groups split the inner text
# as ``split_wiki`` does (target, then "#" fragment, then "|" label): no call per link.
_WIKI = re.compile(r"\[\[([^\[\]\r\n|#]*+)(?:#([^\[\]\r\n|]*+))?(?:\|([^\[\]\r\n]*+))?\]\]")
# Hot patterns start with a literal character: the regex engine then jumps from one
# occurrence of it to the next instead of trying a match at every position (measured 20x
# on 4 KB notes). Conditions on the character before a match are checked in Python.
# Runs are possessive (``++``, ``*+``): a character given back from a run of the label or
# the destination could never be the "]" or ")" that has to follow, so backtracking into
# them only costs time (22,000 links: 0.072 → 0.031 s).
_MD_LINK = re.compile(
    r"\[((?:[^\[\]\r\n]++|\[[^\[\]\r\n]*+\])*+)\]"
    r"\([ \t]*(<[^<>\r\n]*>|(?:[^\s()<>]++|\((?:[^\s()<>]|\([^\s()<>]*\))*\))*+)"
    r"(?:[ \t]+(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|\([^()\r\n]*\)))?[ \t]*\)"
)
_new_tuple = tuple.__new__  # builds a Link without the NamedTuple keyword machinery
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_TAG = re.compile(r"#([\w/\-]+)")
_DIGITS_ONLY = re.compile(r"[\d/\-]+")
# An ATX heading line: its text runs to the line's end, where a closing "#" sequence is
# cut off in Python (``_heading_text``); a lazy text tried the closing sequence at every
# character (28,500 headings: 0.074 -> 0.04 s). A line's end is a "\n" or the end of the
# text: ``(?![^\n])``. The first line has no "\n" before it: ``_ATX_FIRST``.
_ATX_REST = r"(#{1,6})(?:[ \t]+([^\r\n]*+))?\r?(?![^\n])"
_ATX_LINE = re.compile(r"\n {0,3}" + _ATX_REST)
_ATX_FIRST = re.compile(r" {0,3}" + _ATX_REST)
_DASHES = re.compile("--")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*\r?$", re.M)
_SETEXT_LINE = re.compile(r"\n {0,3}(=+|-+)[ \t]*\r?(?![^\n])")
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9\-]+)[ \t]*\r?$", re.M)
_PROPERTY_LINK = re.compile(r"([\"'])(!?\[\[([^\[\]\r\n]+)\]\])\1")


def parse_note(text: str) -> ParsedNote:
    """Parse one note's decoded text. Never raises on malformed input; reports warnings."""
    warnings: list[str] = []
    body_start, fm_text, fm_offset = split_front_matter(text)
    links: list[Link] = []
    aliases: tuple[str, ...] = ()
    fm_tags: list[Tag] = []
    fm_date: _dt.date | None = None
    properties: list[tuple[str, str]] = []
    if fm_text is not None:
        data = load_front_matter(fm_text, warnings)
        if data is not None:
            aliases = _string_list(data.get("aliases", data.get("alias")), split=False)
            fm_tags = [Tag(t.lstrip("#"), 0) for t in _tag_list(data.get("tags", data.get("tag")))]
            fm_date = _front_matter_date(data, warnings)
            properties = [
                (str(k), str(v))
                for k, v in data.items()
                if isinstance(v, str | int | float | bool | _dt.date)
            ]
            links.extend(_property_links(text, fm_text, fm_offset))

    masked = mask_text(text, body_start)
    body_links, wiki_spans = _body_links(text, masked, body_start)
    if links or (wiki_spans and len(body_links) > len(wiki_spans)):  # several sources
        links.extend(body_links)
        links.sort(key=lambda link: link.end)  # an image inside a link comes before it
    else:  # wiki links only, found in order (or Markdown links only, also in order)
        links = body_links
    return ParsedNote(
        links=tuple(links),
        headings=tuple(_headings(masked)),
        tags=tuple(fm_tags) + tuple(_inline_tags(masked, wiki_spans)),
        aliases=aliases,
        block_ids=_block_ids(masked) if "^" in masked else (),
        front_matter_date=fm_date,
        warnings=tuple(warnings),
        body_start=body_start,
        properties=tuple(properties),
    )


# ---------------------------------------------------------------- front matter


def split_front_matter(text: str) -> tuple[int, str | None, int]:
    """Return (body start, front matter text or None, offset of the front matter text)."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return 0, None, 0
    first_end = text.find("\n", start)
    if first_end < 0 or text[start:first_end].rstrip() != "---":
        return 0, None, 0
    pos = first_end + 1
    while pos <= len(text):
        end = text.find("\n", pos)
        line_end = len(text) if end < 0 else end
        if text[pos:line_end].rstrip() in ("---", "..."):
            body = len(text) if end < 0 else end + 1
            return body, text[first_end + 1 : pos], first_end + 1
        if end < 0:
            break
        pos = end + 1
    return 0, None, 0  # no closing line: Obsidian reads it as a thematic break, not metadata


def load_front_matter(fm_text: str, warnings: list[str]) -> dict[str, Any] | None:
    """The properties of a front matter's text (as ``split_front_matter`` gives it), or
    None when it is not a mapping of valid YAML (``warnings`` then says why)."""
    yaml, loader = _yaml()
    try:
        data = yaml.load(fm_text, Loader=loader)  # a safe loader (C or Python)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        warnings.append(f"front matter is not valid YAML{where}: {problem}; properties ignored")
        return None
    except (ValueError, TypeError, RecursionError) as exc:  # e.g. out-of-range dates
        warnings.append(f"front matter could not be read: {exc}; properties ignored")
        return None
    if data is None:
        return {}
    if not isinstance(data, dict):
        warnings.append("front matter is not a set of key: value properties; ignored")
        return None
    return data


def _string_list(value: Any, *, split: bool) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if item is None or isinstance(item, dict | list):
            continue
        text = str(item).strip()
        parts = re.split(r"[,\s]+", text) if split else [text]
        out.extend(p for p in parts if p)
    return tuple(out)


def _tag_list(value: Any) -> tuple[str, ...]:
    return tuple(t for t in (s.lstrip("#") for s in _string_list(value, split=True)) if t)


def _front_matter_date(data: dict[str, Any], warnings: list[str]) -> _dt.date | None:
    for key in ("date", "created"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, _dt.datetime):
            return value.date()
        if isinstance(value, _dt.date):
            return value
        found = parse_date_text(str(value))
        if found is not None:
            return found
        warnings.append(f"front matter {key} {str(value)!r} is not a date; ignored")
    return None


_DATE_IN_TEXT = re.compile(r"(?<!\d)(\d{4})([-_]?)(\d{2})(?:\2(\d{2}))?(?!\d)")


_DATE_NAME = re.compile(
    r"^(?:(\d{4})-(\d{2})-(\d{2})|(\d{4})_(\d{2})_(\d{2})|(\d{4})(\d{2})(\d{2})"
    r"|(\d{4})-(\d{2})(?![-_]\d))(?!\d)"
)


def date_named(name: str) -> bool:
    """Whether a file name (or stem) starts with a date: ``2023-05-08``, ``2021_05_14``,
    ``20210514`` or ``2023-05`` (a month)."""
    found = _DATE_NAME.match(name)
    if found is None:
        return False
    parts = [g for g in found.groups() if g is not None]
    month = int(parts[1])
    day = int(parts[2]) if len(parts) == 3 else 1
    return 1 <= month <= 12 and 1 <= day <= 31


def parse_date_text(text: str) -> _dt.date | None:
    """The first valid date in ``text``: YYYY-MM-DD, YYYY_MM_DD, YYYYMMDD, or YYYY-MM (day 1)."""
    for m in _DATE_IN_TEXT.finditer(text):
        year, sep, month, day = m.group(1), m.group(2), m.group(3), m.group(4)
        if day is None and not sep:
            continue  # "202401" alone is too ambiguous to be a month
        try:
            return _dt.date(int(year), int(month), int(day) if day else 1)
        except ValueError:
            continue
    return None


_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = r"([A-Za-z]{3,9})\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(\d{{4}})\b")


def written_dates(text: str) -> list[tuple[int, int, _dt.date]]:
    """The English written dates of ``text`` ("Sep 14th, 2020", "8 May 2023", a month
    named by three letters or more), as (start, end, date), in order."""
    out = []
    for pattern, day_first in ((_DAY_MONTH_YEAR, True), (_MONTH_DAY_YEAR, False)):
        for m in pattern.finditer(text):
            day, word = (m.group(1), m.group(2)) if day_first else (m.group(2), m.group(1))
            word = word.lower()
            month = next((n for n, name in enumerate(_MONTHS, 1) if name.startswith(word)), None)
            if month is None or len(word) < 3:
                continue
            try:
                out.append((m.start(), m.end(), _dt.date(int(m.group(3)), month, int(day))))
            except ValueError:
                continue
    return sorted(out)


def _property_links(text: str, fm_text: str, fm_offset: int) -> list[Link]:
    """Quoted link values of properties (``up: "[[Note]]"``), as Obsidian indexes them."""
    out = []
    for m in _PROPERTY_LINK.finditer(fm_text):
        inner = m.group(3)
        start = fm_offset + m.start(2)
        target, fragment, label = split_wiki(inner)
        line = text.count("\n", 0, start) + 1
        column = start - text.rfind("\n", 0, start) - 1
        out.append(
            Link("property", target, fragment, label, line, column, start, fm_offset + m.end(2))
        )
    return out


def mask_note(text: str) -> str:
    """A copy of ``text``, same length, with front matter, code and comments blanked out
    (newlines kept): offsets into it are offsets into ``text``. For writers that must find
    editable text exactly as the scanner reads it."""
    body_start, _, _ = split_front_matter(text)
    return mask_text(text, body_start)


# ---------------------------------------------------------------- links


def split_wiki(inner: str) -> tuple[str, str | None, str | None]:
    """The text between ``[[`` and ``]]``, ``target#fragment|label`` → (target, fragment, label).

    The first ``|`` splits off the label; a ``\\|`` splits too, because a link written in a
    table cell must escape its pipe. The first ``#`` then splits off the fragment. Target and
    fragment are stripped, the label is kept as written; an absent part is ``None``. The
    scanner here and the renderer's markdown-it plugin both split with this one function.
    """
    label: str | None = None
    bar = inner.find("|")
    if bar >= 0:
        label = inner[bar + 1 :]
        inner = inner[:bar]
        if inner.endswith("\\"):
            inner = inner[:-1]
    fragment: str | None = None
    hash_ = inner.find("#")
    if hash_ >= 0:
        fragment = inner[hash_ + 1 :].strip()
        inner = inner[:hash_]
    return inner.strip(), fragment, label


def _body_links(
    text: str, masked: str, body_start: int
) -> tuple[list[Link], list[tuple[int, int]]]:
    out: list[Link] = []
    line = text.count("\n", 0, body_start) + 1
    line_pos = body_start
    wiki_spans: list[tuple[int, int]] = []
    markdown = "](" in masked
    # The text the Markdown pattern runs over: ``masked`` with the wiki links blanked,
    # built in this loop (blank_spans over the spans afterwards, sorting and checking
    # each for line ends, took 0.085 s of 10,000 notes).
    pieces: list[str] = []
    if "[[" in masked:
        append = out.append
        count = masked.count
        rfind = masked.rfind
        line_start = rfind("\n", 0, body_start) + 1
        blanked = 0
        for m in _WIKI.finditer(masked, body_start):
            bracket, end = m.span()
            start = bracket
            embed = False
            if bracket and masked[bracket - 1] in "\\!":  # rare: look closer
                if masked[bracket - 1] == "\\":
                    if is_escaped(masked, bracket):
                        continue
                elif not is_escaped(masked, bracket - 1):
                    embed = True
                    start = bracket - 1
            target, fragment, label = m.groups()
            if label is not None or fragment is not None:  # as split_wiki splits it
                if label is not None:  # "[[a\|b]]": a table cell's escaped pipe
                    if fragment is not None:
                        if fragment.endswith("\\"):
                            fragment = fragment[:-1]
                    elif target.endswith("\\"):
                        target = target[:-1]
                target = target.strip()
                if fragment is not None:
                    fragment = fragment.strip()
            else:
                target = target.strip()
                if not target:
                    continue
            wiki_spans.append((start, end))
            if markdown:
                pieces.append(masked[blanked:start])
                pieces.append(" " * (end - start))  # a wiki link holds no line end
                blanked = end
            # Lines are counted between consecutive links only: scanning back to the
            # start of the line for each link costs O(line length) per link.
            newline = rfind("\n", line_pos, start)
            if newline >= 0:
                line += count("\n", line_pos, newline + 1)
                line_start = newline + 1
            line_pos = start
            append(
                _new_tuple(
                    Link,
                    (
                        "embed" if embed else "wiki",
                        target,
                        fragment,
                        label,
                        line,
                        start - line_start,
                        start,
                        end,
                        embed,
                    ),
                )
            )
        if pieces:
            pieces.append(masked[blanked:])
    if markdown:
        scan = "".join(pieces) if pieces else masked
        line = text.count("\n", 0, body_start) + 1
        line_pos = body_start

        def add(m: re.Match[str], label: str) -> None:
            nonlocal line, line_pos
            bracket = m.start()
            dest = m.group(2)
            if dest.startswith("<"):
                dest = dest[1:-1]
            if not dest or dest.startswith(("#", "//")) or _SCHEME.match(dest):
                return
            embed = bracket > 0 and scan[bracket - 1] == "!" and not is_escaped(scan, bracket - 1)
            start = bracket - 1 if embed else bracket
            path, _, fragment = dest.partition("#")
            line += text.count("\n", line_pos, start)
            line_pos = start
            column = start - text.rfind("\n", 0, start) - 1
            out.append(
                Link(
                    "markdown",
                    unquote(path) if "%" in path else path,
                    (unquote(fragment) if "%" in fragment else fragment) if fragment else None,
                    label,
                    line,
                    column,
                    start,
                    m.end(),
                    embed,
                )
            )

        for m in _MD_LINK.finditer(scan, body_start):
            if is_escaped(scan, m.start()):
                continue
            label = m.group(1)
            if "](" in label:  # an image as the link's text: "[![badge](b.png)](page.md)"
                images = [
                    im
                    for im in _MD_LINK.finditer(scan, m.start(1), m.end(1))
                    if im.start() > m.start(1)
                    and scan[im.start() - 1] == "!"
                    and not is_escaped(scan, im.start() - 1)
                ]
                if images:  # first the image, then the link (as markdown-it lists them)
                    for im in images:
                        add(im, im.group(1))
                    cut = [(im.start() - 1 - m.start(1), im.end() - m.start(1)) for im in images]
                    label = "".join(
                        label[a:b]
                        for a, b in zip(
                            [0] + [e for _, e in cut],
                            [s for s, _ in cut] + [len(label)],
                            strict=True,
                        )
                    )
            add(m, label)
    return out, wiki_spans


# ---------------------------------------------------------------- tags, headings


def _inline_tags(masked: str, wiki_spans: list[tuple[int, int]]) -> list[Tag]:
    """``#tag`` after whitespace, ``(``, ``,`` or ``;`` (so not in URLs or words), with a
    non-numeric character, outside code and outside wiki links."""
    if "#" not in masked:
        return []
    out: list[Tag] = []
    line = 1
    pos = 0
    starts = [s for s, _ in wiki_spans]
    count = masked.count
    for m in _TAG.finditer(masked):
        start = m.start()
        if start:
            before = masked[start - 1]
            if not (before.isspace() or before in "(,;"):
                continue
            if before == "(" and start > 1 and masked[start - 2] == "]":
                continue  # [text](#heading): a Markdown link's destination
        name = m.group(1).rstrip("/")
        if not name:
            continue
        # "#1984" is not a tag: a tag needs a non-numeric character (a name starting with
        # a letter has one: the pattern is tried only on the others)
        if (name[0].isdigit() or name[0] in "/-") and _DIGITS_ONLY.fullmatch(name):
            continue
        if starts:
            i = bisect.bisect_right(starts, start) - 1
            if i >= 0 and wiki_spans[i][1] > start:
                continue  # inside [[...]]
        line += count("\n", pos, start)
        pos = start
        out.append(_new_tuple(Tag, (name, line)))
    return out


def _block_ids(masked: str) -> tuple[str, ...]:
    """``^block-id`` at the end of a line, after a space (or alone on the line)."""
    found = []
    for m in _BLOCK_ID.finditer(masked):
        start = m.start()
        if start == 0 or masked[start - 1] in " \t\n":
            found.append(m.group(1))
    return tuple(found)


def _headings(masked: str) -> list[Heading]:
    out: list[Heading] = []
    has_atx = "#" in masked
    # "=" is rare and found at once; "--" by pattern, twice as fast as ``in`` (see masking)
    has_setext = ("=" in masked and "==" in masked) or _DASHES.search(masked) is not None
    if not (has_atx or has_setext):
        return out
    # The patterns start with the "\n" that ends the line before (a literal first character
    # the regex engine skips to fast); the first line has none and is matched on its own,
    # rather than prefixing a copy of every note with "\n".
    if has_atx:
        first = _ATX_FIRST.match(masked)
        if first is not None:
            level, text = first.groups()
            out.append(_new_tuple(Heading, (len(level), _heading_text(text), 1)))
        line = 1
        pos = 0
        count = masked.count
        for m in _ATX_LINE.finditer(masked):
            start = m.start() + 1
            line += count("\n", pos, start)
            pos = start
            level, text = m.groups()
            out.append(_new_tuple(Heading, (len(level), _heading_text(text), line)))
    if has_setext:
        for m in _SETEXT_LINE.finditer(masked):  # never the first line: nothing above
            heading = _setext_heading(masked, m.start() + 1, m.group(1))
            if heading is not None:
                out.append(heading)
        out.sort(key=lambda h: h.line)
    return out


def _heading_text(rest: str | None) -> str:
    """An ATX heading's text: what follows its "#"s and spaces, without a closing sequence
    (spaces, then "#"s, then spaces), stripped."""
    if not rest:
        return ""
    text = rest.rstrip(" \t")
    if text.endswith("#"):
        bare = text.rstrip("#")
        if bare.endswith((" ", "\t")):  # a closing sequence: "## Title ##"
            text = bare
    return text.strip()


def _setext_heading(masked: str, start: int, underline: str) -> Heading | None:
    """The heading a ``===``/``---`` line at offset ``start`` underlines, if any."""
    if start == 0:
        return None
    prev_end = start - 1
    prev_start = masked.rfind("\n", 0, prev_end) + 1
    prev = masked[prev_start:prev_end].rstrip("\r")
    if not prev.strip() or len(prev) - len(prev.lstrip(" ")) >= 4:
        return None
    stripped = prev.lstrip()
    if stripped.startswith(("#", ">", "|", "```", "~~~")) or ITEM_MARKER.match(prev):
        return None
    if THEMATIC_BREAK.match(prev) or _SETEXT.fullmatch(prev):
        return None
    level = 1 if underline.startswith("=") else 2
    return Heading(level, stripped.strip(), masked.count("\n", 0, prev_start) + 1)
