"""Independent reference computation of a vault's link counts.

Deliberately simple and self-contained (stdlib + PyYAML): a line-based pass
masks code blocks, then regexes find links on what is left. It exists only to
cross-check the real index in ``librarian_gui.core`` and must never import it.

Rules (Obsidian-compatible, see DESIGN.md section 2):

* notes: ``*.md`` (any case) under the root, dot-folders skipped; other files
  are attachments. Note id = vault-relative POSIX path.
* front matter: only string values (or list items) that are entirely
  ``[[...]]`` are links, of kind ``property``.
* body: fenced / indented code, inline code, ``<!-- -->`` and ``%% %%`` hold
  no links; ``\\[[`` is not a link.
* ``[[t]]`` / ``[[t|l]]`` / ``[[t#h]]`` -> ``wiki``; ``![[...]]`` -> ``embed``;
  ``[l](dest)`` / ``![a](dest)`` -> ``markdown`` unless dest is a URL, ``//...``
  or a bare fragment (those are not counted at all).

Readings chosen where the rules leave room (see tests/unit/test_real_vaults.py):

* indented code cannot interrupt a paragraph and is not inside a list item: it
  starts after a blank line or right after an ATX heading (CommonMark), so a
  tab-indented Logseq bullet right under a heading is code, as Obsidian shows it;
* Markdown destinations follow CommonMark: spaces only inside ``<...>``,
  balanced parentheses allowed, so ``[x](((uuid)))`` links to ``((uuid))``;
* wiki links are taken first, so ``[x]([[Page]])`` is one wiki link only;
* an empty destination ``[x]()`` is not counted (it names the note itself);
* code spans do not cross line ends;
* wiki/embed/property and Markdown unresolved targets share one namespace of
  ghost nodes (lowercase, no ``.md``); no collision occurs in the test vaults.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import yaml

KINDS = ("wiki", "embed", "markdown", "property")

# ---------------------------------------------------------------- vault walk


def _walk(vault: Path) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    attachments: list[str] = []

    def visit(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                if not entry.name.startswith("."):
                    visit(entry)
            elif entry.is_file():
                rel = entry.relative_to(vault).as_posix()
                if entry.name.lower().endswith(".md"):
                    notes.append(rel)
                else:
                    attachments.append(rel)

    visit(vault)
    return notes, attachments


# ------------------------------------------------------------ front matter

_WIKI_WHOLE = re.compile(r"^\[\[([^\[\]\n]+)\]\]$")


def _front_matter(lines: list[str]) -> int:
    """Number of lines taken by front matter (0 if none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def _property_links(fm_lines: list[str]) -> list[tuple[str, str, int]]:
    try:
        data = yaml.safe_load("\n".join(fm_lines[1:-1]))
    except yaml.YAMLError:
        return []
    if not isinstance(data, dict):
        return []
    out = []
    used: Counter = Counter()
    for value in data.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str):
                continue
            m = _WIKI_WHOLE.match(item.strip())
            if not m:
                continue
            # line: n-th front-matter line containing this link text
            text = m.group(0)
            line = 1
            seen = 0
            for i, raw in enumerate(fm_lines):
                if text in raw:
                    if seen == used[text]:
                        line = i + 1
                        break
                    seen += 1
            used[text] += 1
            out.append(("property", _wiki_target(m.group(1)), line))
    return out


# ------------------------------------------------------------ code masking

_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
# a fence may be indented (inside list items) and may follow list markers on
# the same line (Logseq: "\t\t- ```clojure"); its closing line is the same
# character, at least as long, at any indentation, nothing after it
_FENCE_OPEN = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*(`{3,}|~{3,})(.*)$")
# lines that end a list even without a blank line before them: ATX heading,
# thematic break
_NOT_LAZY = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|(?:[-*_][ \t]*){3,}$)")


def _indent(line: str) -> int:
    n = 0
    for ch in line:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += 4 - n % 4
        else:
            break
    return n


def _mask_blocks(lines: list[str], start: int) -> list[bool]:
    """True for every line that is inside fenced or indented code."""
    code = [False] * len(lines)
    in_list = False
    fence: tuple[str, int] | None = None
    in_indented = False
    prev_blank = True
    prev_heading = False
    for i in range(start, len(lines)):
        line = lines[i]
        blank = line.strip() == ""
        if fence is not None:
            code[i] = True
            m = re.match(r"^[ \t]*(`{3,}|~{3,})[ \t]*$", line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1]:
                fence = None
            prev_blank = False
            continue
        if in_indented:
            if blank or _indent(line) >= 4:
                code[i] = True
                prev_blank = blank
                continue
            in_indented = False
        if blank:
            prev_blank = True
            continue
        after_heading = prev_heading
        prev_heading = bool(re.match(r"^ {0,3}#{1,6}(?:[ \t]|$)", line))
        if _indent(line) >= 4 and (prev_blank or after_heading) and not in_list:
            prev_heading = False
            in_indented = True
            code[i] = True
            prev_blank = False
            continue
        m = _FENCE_OPEN.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)))
            code[i] = True
            if _LIST_MARK.match(line):
                in_list = True
            prev_blank = False
            continue
        if _LIST_MARK.match(line):
            in_list = True
        elif _indent(line) < 4 and (prev_blank or _NOT_LAZY.match(line)):
            # a new top-level paragraph, or a heading / rule (which cannot be
            # a lazy continuation line), ends the list
            in_list = False
        prev_blank = False
    return code


def _mask_inline(text: str) -> str:
    """Blank out inline code spans, HTML comments and %% comments.

    Left-to-right: whichever of a backtick run, ``<!--`` or ``%%`` comes
    first wins. Code spans stay within one line; comments may span lines.
    """
    out = list(text)
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            i += 2
            continue
        if ch == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            run = j - i
            line_end = text.find("\n", j)
            if line_end == -1:
                line_end = n
            close = None
            for m in re.finditer(r"`+", text[j:line_end]):
                if len(m.group(0)) == run:
                    close = j + m.end()
                    break
            if close is None:
                i = j
                continue
            for k in range(i, close):
                if out[k] != "\n":
                    out[k] = " "
            i = close
            continue
        if text.startswith("<!--", i) or text.startswith("%%", i):
            opener, closer = ("<!--", "-->") if ch == "<" else ("%%", "%%")
            end = text.find(closer, i + len(opener))
            end = n if end == -1 else end + len(closer)
            for k in range(i, end):
                if out[k] != "\n":
                    out[k] = " "
            i = end
            continue
        i += 1
    return "".join(out)


# ------------------------------------------------------------ link syntax

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _escaped(text: str, pos: int) -> bool:
    n = 0
    while pos - 1 - n >= 0 and text[pos - 1 - n] == "\\":
        n += 1
    return n % 2 == 1


def _wiki_target(content: str) -> str:
    content = content.replace("\\|", "|")
    return content.split("|", 1)[0].split("#", 1)[0].strip()


def _label_start(text: str, close: int) -> int | None:
    """Index of the '[' matching the ']' at ``close`` (same line), or None."""
    depth = 0
    i = close
    while i >= 0 and text[i] != "\n":
        ch = text[i]
        if ch in "[]" and not _escaped(text, i):
            depth += 1 if ch == "]" else -1
            if depth == 0:
                return i
        i -= 1
    return None


def _link_tail(text: str, i: int) -> tuple[str, int] | None:
    """Parse ``dest [title])`` starting right after '('; (dest, end) or None.

    CommonMark rules, kept small: ``<...>`` destinations may hold spaces;
    bare destinations stop at whitespace and may hold balanced parentheses
    (so ``[x](((uuid)))`` has the destination ``((uuid))``).
    """
    n = len(text)
    while i < n and text[i] in " \t":
        i += 1
    if i < n and text[i] == "<":
        j = i + 1
        while j < n and text[j] not in "<>\n":
            j += 2 if text[j] == "\\" else 1
        if j >= n or text[j] != ">":
            return None
        dest, i = text[i + 1 : j], j + 1
    else:
        j, depth = i, 0
        while j < n:
            ch = text[j]
            if ch == "\\" and j + 1 < n:
                j += 2
                continue
            if ch.isspace() or ord(ch) < 32:
                break
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        if depth:
            return None
        dest, i = text[i:j], j
    k = i
    while k < n and text[k] in " \t":
        k += 1
    if k > i and k < n and text[k] in "\"'(":
        closer = ")" if text[k] == "(" else text[k]
        e = k + 1
        while e < n and text[e] != closer and text[e] != "\n":
            e += 2 if text[e] == "\\" else 1
        if e >= n or text[e] != closer:
            return None
        k = e + 1
        while k < n and text[k] in " \t":
            k += 1
    if k < n and text[k] == ")":
        return dest, k + 1
    return None


def _md_links(text: str) -> list[tuple[int, str]]:
    """(offset of '[' or '!', destination) for every inline link / image."""
    found = []
    pos = text.find("](")
    while pos != -1:
        if not _escaped(text, pos):
            start = _label_start(text, pos)
            tail = _link_tail(text, pos + 2) if start is not None else None
            if tail is not None:
                if start > 0 and text[start - 1] == "!" and not _escaped(text, start - 1):
                    start -= 1
                found.append((start, tail[0]))
        pos = text.find("](", pos + 1)
    return found


def _note_links(raw: str) -> list[tuple[str, str, int]]:
    text = raw.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    fm = _front_matter(lines)
    links: list[tuple[str, str, int]] = []
    if fm:
        links.extend(_property_links(lines[:fm]))
    code = _mask_blocks(lines, fm)
    # blank (not drop) front matter and code lines so offsets map to lines
    body_lines = [" " * len(line) if (i < fm or code[i]) else line for i, line in enumerate(lines)]
    body = _mask_inline("\n".join(body_lines))
    line_starts = [0]
    for i, ch in enumerate(body):
        if ch == "\n":
            line_starts.append(i + 1)

    def line_of(offset: int) -> int:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    found: list[tuple[int, str, str]] = []
    masked = list(body)
    for m in _WIKI.finditer(body):
        bracket = m.start(0) + len(m.group(1))
        if _escaped(body, bracket):  # \[[x]] is text
            continue
        kind = "embed" if m.group(1) and not _escaped(body, m.start(0)) else "wiki"
        found.append((m.start(0), kind, _wiki_target(m.group(2))))
        for k in range(m.start(0), m.end(0)):
            masked[k] = " "
    for offset, dest in _md_links("".join(masked)):
        if not dest or _SCHEME.match(dest) or dest.startswith("//") or dest.startswith("#"):
            continue
        found.append((offset, "markdown", dest))
    found.sort()
    links.extend((kind, target, line_of(off)) for off, kind, target in found)
    return links


# ------------------------------------------------------------ resolution


class _Resolver:
    def __init__(self, notes: list[str], attachments: list[str]):
        self.notes = notes
        self.attachments = attachments
        self.by_path: dict[str, list[str]] = {}
        for p in notes + attachments:
            self.by_path.setdefault(p.lower(), []).append(p)

    @staticmethod
    def _pick(cands: list[str], source: str) -> str | None:
        if not cands:
            return None
        folder = posixpath.dirname(source)
        return sorted(cands, key=lambda p: (posixpath.dirname(p) != folder, len(p), p))[0]

    def wiki(self, target: str, source: str) -> tuple[str | None, str]:
        """(resolved path or None, unresolved group key)."""
        t = target.strip().lstrip("/")
        if t == "":
            return source, ""
        tl = t.lower()
        key = tl[:-3] if tl.endswith(".md") else tl
        exact = [p for p in self.notes if p.lower() in (tl, tl + ".md")]
        exact += [p for p in self.attachments if p.lower() == tl]
        if exact:
            return self._pick(exact, source), key
        if "/" in t:
            cands = [p for p in self.notes if p.lower()[:-3].endswith("/" + key)]
        else:
            cands = [p for p in self.notes if posixpath.basename(p).lower()[:-3] == key]
            cands += [p for p in self.attachments if posixpath.basename(p).lower() == tl]
        return self._pick(cands, source), key

    def markdown(self, dest: str, source: str) -> tuple[str | None, str]:
        d = unquote(dest.split("#", 1)[0])
        if d.startswith("/"):
            joined = d.lstrip("/")
        else:
            joined = posixpath.join(posixpath.dirname(source), d)
        norm = posixpath.normpath(joined) if joined else "."
        key = norm.lower()
        key = key[:-3] if key.endswith(".md") else key
        if norm == ".." or norm.startswith("../") or norm == ".":
            return None, key
        low = norm.lower()
        for cand in (low, low + ".md"):
            if cand in self.by_path:
                return sorted(self.by_path[cand])[0], key
        return None, key


# ------------------------------------------------------------ public API


def reference_links(vault: Path) -> dict[str, list[tuple[str, str, int]]]:
    """Per note: list of (kind, target as written, 1-based line)."""
    vault = Path(vault)
    notes, _ = _walk(vault)
    out = {}
    for note in notes:
        raw = (vault / note).read_bytes().decode("utf-8", errors="replace")
        out[note] = _note_links(raw)
    return out


def reference_resolved(vault: Path) -> dict[str, list[tuple[str, str, int, str | None, str]]]:
    """Per note: (kind, target, line, resolved path or None, unresolved key)."""
    vault = Path(vault)
    notes, attachments = _walk(vault)
    res = _Resolver(notes, attachments)
    out = {}
    for note, links in reference_links(vault).items():
        rows = []
        for kind, target, line in links:
            if kind == "markdown":
                path, key = res.markdown(target, note)
            else:
                path, key = res.wiki(target, note)
            rows.append((kind, target, line, path, key))
        out[note] = rows
    return out


def reference_counts(vault: Path) -> dict:
    vault = Path(vault)
    notes, attachments = _walk(vault)
    per_note = reference_resolved(vault)
    links = Counter({k: 0 for k in KINDS})
    resolved = unresolved = 0
    unresolved_keys: set[str] = set()
    edges: set[tuple[str, tuple[str, str]]] = set()
    for note, rows in per_note.items():
        for kind, _target, _line, path, key in rows:
            links[kind] += 1
            if path is None:
                unresolved += 1
                unresolved_keys.add(key)
                edges.add((note, ("unresolved", key)))
            else:
                resolved += 1
                # a note linking itself is a distinct (source, target) pair: an edge
                edges.add((note, ("node", path)))
    touched = set()
    for src, tgt in edges:
        if tgt == ("node", src):
            continue  # a self-link does not make a note any less of an orphan
        touched.add(("node", src))
        touched.add(tgt)
    orphans = sum(1 for n in notes if ("node", n) not in touched)
    return {
        "notes": len(notes),
        "attachments": len(attachments),
        "links": dict(links),
        "resolved": resolved,
        "unresolved": unresolved,
        "unresolved_targets": len(unresolved_keys),
        "edges": len(edges),
        "orphans": orphans,
    }


if __name__ == "__main__":  # pragma: no cover - manual inspection aid
    import json
    import sys

    for arg in sys.argv[1:]:
        print(arg, json.dumps(reference_counts(Path(arg)), indent=1))
