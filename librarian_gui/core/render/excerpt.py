"""The start of a note as a hover shows it (Obsidian's page preview): its title and first
lines of prose, as HTML for a tooltip."""

from __future__ import annotations

import html

from ..parse.parser import split_front_matter

EXCERPT_LINES = 14
EXCERPT_CHARS = 900
LINE_CHARS = 160


def note_excerpt(title: str, rel: str, text: str | None) -> str:
    """``title`` in bold, ``rel`` muted, then the note's first lines after its front matter
    (blank lines collapsed; each line cut at LINE_CHARS; at most EXCERPT_LINES lines and
    EXCERPT_CHARS characters, "…" where it was cut). ``text`` None: the note cannot be read."""
    head = f"<b>{html.escape(title)}</b> <span style='color:gray'>{html.escape(rel)}</span>"
    if text is None:
        return f"{head}<br><i>This note cannot be read as text.</i>"
    body = text[split_front_matter(text)[0] :]
    lines: list[str] = []
    used = 0
    cut = False
    for raw in body.splitlines():
        line = raw.rstrip()
        if not line:
            if lines and lines[-1]:
                lines.append("")
            continue
        if len(line) > LINE_CHARS:
            line = line[: LINE_CHARS - 1] + "…"
        if len(lines) >= EXCERPT_LINES or used + len(line) > EXCERPT_CHARS:
            cut = True
            break
        lines.append(line)
        used += len(line)
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return f"{head}<br><i>This note is empty.</i>"
    shown = "<br>".join(html.escape(line) for line in lines) + ("<br>…" if cut else "")
    return f"{head}<hr>{shown}"
