"""Pages the preview shows for places that are not a rendered note: attachments, concepts
without a note, targets no note exists for yet."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:  # markdown-it loads on the job threads
    from ..core.render import RenderedNote


def attachment_page(rel: str) -> RenderedNote:
    """An attachment's page: the image itself, or a line saying where to open it."""
    from ..core.render import RenderedNote

    name = html.escape(rel.rsplit("/", 1)[-1])
    lower = rel.lower()
    body = (
        f'<p><img src="note:///{quote(rel)}"></p>'
        if lower.endswith((".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp"))
        else "<p>This file is an attachment; open it in its own application.</p>"
    )
    return RenderedNote(html=f"<h1>{name}</h1>{body}", title=name, truncated=False, headings=())


def node_page(kind: str, label: str, sources: list[str], concept: object) -> RenderedNote:
    """The page of a concept without a note, or of a target no note exists for yet."""
    from ..core.render import RenderedNote

    title = html.escape(label)
    if kind == "concept":
        aliases = ", ".join(html.escape(a) for a in getattr(concept, "aliases", ()) or ())
        category = html.escape(str(getattr(concept, "category", "") or ""))
        head = f"<h1>{title}</h1><p><i>Concept</i>{' · ' + category if category else ''}</p>"
        if aliases:
            head += f"<p>Aliases: {aliases}</p>"
    else:
        head = (
            f"<h1>{title}</h1><p><i>No note of this name exists yet.</i> "
            "The links below point at it.</p>"
        )
    items = "".join(
        f'<li><a href="note:///{quote(s)}">{html.escape(s.removesuffix(".md"))}</a></li>'
        for s in sources
    )
    body = f"<h2>Linked from {len(sources)} notes</h2><ul>{items}</ul>" if sources else ""
    return RenderedNote(html=head + body, title=label, truncated=False, headings=())
