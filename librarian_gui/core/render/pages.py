"""The pages the preview shows: a note rendered, a concept's page, and the pages of places
that are not a rendered note (attachments, concepts without a note, targets no note exists
for yet, notes the index lists but cannot parse). Built on job threads."""

from __future__ import annotations

import errno
import html
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..index.queries import concept_notes, node_kind, node_label
from ..vault.files import MAX_NOTE_BYTES, wide_encoding
from ..vault.urls import url_path

BINARY_SNIFF = 8192  # as much of the start as the index looks at for NUL bytes
# The preview lays out its page in the GUI thread (setHtml): 200,000 characters take about
# 0.3 s there, 2,000,000 took 8 s. Past it, the note is shown cut, with a notice.
PREVIEW_MAX_CHARS = 200_000
LOSSY_NOTICE = (
    "Not UTF-8: shown with replacement characters; Librarian never writes this note back."
)

if TYPE_CHECKING:  # markdown-it loads on the job threads
    from ..index.snapshot import IndexView
    from ..vault.textstore import TextStore
    from .render import RenderedNote


def note_page(
    index: IndexView,
    store: TextStore,
    root: Path,
    rel: str,
    *,
    dark: bool,
    read_note: Callable[[str], str | None],
    body_only: bool = False,
) -> RenderedNote | LookupError:
    """The preview's page of the note or attachment at ``rel``; a LookupError (to show
    instead) when the vault no longer holds it. ``read_note`` reads embedded notes;
    ``body_only`` leaves out the document around the body (see ``render_note``)."""
    index = index.snapshot()
    record = index.notes.get(rel)
    if record is None:
        if rel in index.attachments:
            return attachment_page(rel)
        return LookupError(f"{rel} is not in the vault (deleted or moved away)")
    text = store.get(rel, record.stamp)
    if text is None:  # binary, too large, unreadable: listed, not parsed
        return not_parsed_page(root, rel, dark)

    def resolve(markdown: bool, target: str, source: str) -> str:
        return index.resolver.resolve_target(markdown, target, source)

    def kind_of(node: str) -> str:
        return node_kind(index, node)

    from .render import render_note

    return render_note(
        text,
        source=rel,
        resolve=resolve,
        node_exists=kind_of,
        read_note=read_note,
        dark=dark,
        max_chars=PREVIEW_MAX_CHARS,
        notice=LOSSY_NOTICE if record.lossy else "",
        body_only=body_only,
    )


def place_page(
    index: IndexView,
    kind: str,
    node: str,
    read_note: Callable[[str], str | None],
    cancelled: Callable[[], bool],
    *,
    note_body: Callable[[str], str] | None = None,
    dark: bool = False,
) -> RenderedNote:
    """The preview's page of a graph node that is no note: a concept (its full page when
    the dictionary holds it, with its note's preview under its header: ``note_body(rel)``
    gives the note's rendered body), a tag, a link target no note exists for yet."""
    index = index.snapshot()
    label = node_label(index, node)
    sources = sorted(s for s in index.in_edges.get(node, {}) if s in index.notes)
    concept = index.concepts.get(label) if kind == "concept" else None
    note = concept_notes(index).get(concept.id) if concept is not None else None
    if concept is not None:
        from . import pieces
        from .concept_page import concept_page
        from .render import RenderedNote

        body = note_body(note) if note is not None and note_body is not None else ""
        built = concept_page(index, concept, read_note, cancelled, note=note, note_html=body)
        return RenderedNote(
            html=pieces.page(built.html, dark=dark),
            title=concept.id,
            truncated=False,
            headings=(),
        )
    return node_page(kind, label, sources, concept)


def attachment_page(rel: str) -> RenderedNote:
    """An attachment's page: the image itself, or a line saying where to open it."""
    from .render import RenderedNote

    name = html.escape(rel.rsplit("/", 1)[-1])
    lower = rel.lower()
    body = (
        f'<p><img src="note:///{url_path(rel)}"></p>'
        if lower.endswith((".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp"))
        else "<p>This file is an attachment; open it in its own application.</p>"
    )
    return RenderedNote(html=f"<h1>{name}</h1>{body}", title=name, truncated=False, headings=())


def node_page(kind: str, label: str, sources: list[str], concept: object) -> RenderedNote:
    """The page of a concept without a note, or of a target no note exists for yet."""
    from .render import RenderedNote

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
        f'<li><a href="note:///{url_path(s)}">{html.escape(s.removesuffix(".md"))}</a></li>'
        for s in sources
    )
    body = f"<h2>Linked from {len(sources)} notes</h2><ul>{items}</ul>" if sources else ""
    return RenderedNote(html=head + body, title=label, truncated=False, headings=())


_NOT_PARSED_ADVICE = {
    "binary": "If it is not a note, give it its own extension.",
    "too-large": "Open it in your editor (Ctrl+E) to read it.",
    "utf-16": "Save it as UTF-8 to read it here.",
    "utf-32": "Save it as UTF-8 to read it here.",
    "unreadable": "Check its permissions.",
}
# Non-blocking, so a FIFO named x.md does not hang the open until something writes to it.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


def not_parsed_page(root: Path, rel: str, dark: bool) -> RenderedNote | LookupError:
    """The page of a note the index lists but does not parse: what the file is, and what
    to do about it. On a job thread: it opens the file again to see why (a look at its
    first bytes), since the index keeps only the warning's text."""
    from . import pieces as H
    from .render import RenderedNote

    why = _why_not_parsed(root, rel)
    if isinstance(why, LookupError):
        return why
    kind, headline = why
    title = rel.rsplit("/", 1)[-1].removesuffix(".md")
    advice = f"{_NOT_PARSED_ADVICE.get(kind, '')} Links to it still work.".lstrip()
    body = (
        f"<h1>{html.escape(title)}</h1>\n"
        + H.notice(html.escape(headline))
        + f"<p>{html.escape(advice)}</p>\n"
    )
    return RenderedNote(H.page(body, dark=dark), title, truncated=False, headings=())


def _why_not_parsed(root: Path, rel: str) -> tuple[str, str] | LookupError:
    """(kind, the sentence the page leads with), or why nothing can be shown at all."""
    try:
        fd = os.open(root / rel, _READ_FLAGS)
    except FileNotFoundError:
        return LookupError(f"{rel} was deleted outside Librarian.")
    except OSError as exc:
        return "unreadable", f"{rel} cannot be read ({_reason(exc)}); not shown."
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return LookupError(f"{rel} is no longer a regular file (a pipe or device).")
        if st.st_size > MAX_NOTE_BYTES:
            return "too-large", (
                f"{rel} is {st.st_size / 1e6:.1f} MB, over the "
                f"{MAX_NOTE_BYTES / 1e6:.0f} MB limit; not shown."
            )
        head = os.read(fd, BINARY_SNIFF)
    except OSError as exc:
        return "unreadable", f"{rel} cannot be read ({_reason(exc)}); not shown."
    finally:
        os.close(fd)
    wide = wide_encoding(head)
    if wide is not None:
        return wide.lower(), f"{rel} is {wide} text, not UTF-8; not shown."
    if b"\x00" in head:
        return "binary", f"{rel} is a binary file named .md; not shown."
    # Readable text now: it changed since the index read it, and the update is on its way.
    return LookupError(f"{rel} changed while it was read; it is shown once it is indexed again.")


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)
