"""HTML pieces shared by the side panes' lists of lines: backlinks, search hits, related notes."""

from __future__ import annotations

import html
from collections.abc import Sequence
from urllib.parse import parse_qs, urlsplit

from ..core.vault.urls import path_of_url, url_path

# QTextBrowser's CSS subset; palette(mid) follows the light or dark theme.
LIST_CSS = """
p { margin: 0 0 2px 0; }
.src { margin-top: 8px; font-weight: bold; }
.path { color: palette(mid); font-weight: normal; font-size: small; }
.ctx { margin-left: 10px; }
.line { color: palette(mid); font-size: small; text-decoration: none; }
.hl { background-color: rgba(255, 200, 0, 100); font-weight: bold; }
.mention { background-color: rgba(80, 160, 255, 70); }
.btn { font-weight: bold; text-decoration: none; }
.empty { color: palette(mid); font-style: italic; }
"""


def open_url(rel: str, line: int) -> str:
    """The link that opens a note at a line. The path goes in the URL's path, not its host:
    Qt would mangle a non-ASCII host name (IDNA)."""
    return f"open:///{url_path(rel)}?line={line}"


def parse_open_url(url: str) -> tuple[str, int] | None:
    parts = urlsplit(url)
    if parts.scheme != "open":
        return None
    line = parse_qs(parts.query).get("line", ["1"])[0]
    return path_of_url(parts.path.lstrip("/")), int(line) if line.isdigit() else 1


def marked(text: str, spans: Sequence[tuple[int, int]], cls: str = "hl") -> str:
    """``text`` escaped, with each span wrapped in a highlight of class ``cls``."""
    out = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f'<span class="{cls}">{html.escape(text[start:end])}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def source_header(rel: str, line: int, title: str, note: str = "") -> str:
    """A note's heading in a list of lines: its title (opening it at ``line``), then a
    muted ``note`` (its folder, a count)."""
    muted = f' <span class="path">{html.escape(note)}</span>' if note else ""
    return f'<p class="src"><a href="{open_url(rel, line)}">{html.escape(title)}</a>{muted}</p>'


def context_line(rel: str, line: int, body_html: str) -> str:
    """One line of a note under its heading: the line number (opening it there), then
    ``body_html`` (already escaped and marked)."""
    return (
        f'<p class="ctx"><a class="line" href="{open_url(rel, line)}">{line}</a>&nbsp; '
        f"{body_html}</p>"
    )
