"""The note preview: Markdown → the HTML subset QTextBrowser renders, with vault-aware links.

Links get custom URLs with the vault path in the URL *path* (a host would be IDNA-mangled):
``note:///folder/My%20Note.md#heading`` for notes and attachments, ``concept:///<id>`` for
concepts, ``ghost:///<target as written>`` for unresolved targets, ``#anchor`` within the
note. Fragments are anchors: a heading's slug (:func:`heading_anchor`) or a block id
(``^id``). Every block carries its 1-based source line as its Qt user state
(``style="-qt-user-state: 12"``), which the preview widget jumps to.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from ..index.resolver import CONCEPT_PREFIX
from ..vault.urls import url_path
from . import pieces as H
from .blocks import BLOCK_RULES, Env, mark_list_ends
from .mdplugins import callout_plugin, highlight_plugin, make_markdown, tasklist_plugin

__all__ = ["MAX_EMBED_DEPTH", "RenderedNote", "heading_anchor", "render_note"]

MAX_EMBED_DEPTH = 2
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp")


@dataclass(frozen=True, slots=True)
class RenderedNote:
    """A rendered note. ``headings`` are (level, text, anchor) in order (the outline);
    ``embeds`` are the vault paths shown inline, so a change to one can refresh the preview."""

    html: str
    title: str
    truncated: bool
    headings: tuple[tuple[int, str, str], ...]
    embeds: tuple[str, ...] = ()


@dataclass(slots=True)
class _Shared:
    """What one ``render_note`` call and all its embeds share."""

    resolve: Callable[[bool, str, str], str]
    node_kind: Callable[[str], str]
    read_note: Callable[[str], str | None]
    dark: bool
    max_chars: int
    embeds: list[str] = field(default_factory=list)
    doc_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


@dataclass(frozen=True, slots=True)
class _Doc:
    """One document being rendered: the note itself (depth 0) or an embed."""

    shared: _Shared
    source: str
    depth: int
    chain: tuple[str, ...]  # the notes being rendered, outermost first: a cycle guard

    @property
    def anchors(self) -> bool:
        # Only the note itself: an embed's lines and headings are not this note's.
        return self.depth == 0

    @property
    def dark(self) -> bool:
        return self.shared.dark

    def inline(self, text: str) -> str:
        # A fresh env: the document's would make the footnote rule append its list here too.
        return str(_MD.renderInline(text, {"librarian": self}))


def render_note(
    text: str,
    *,
    source: str,
    resolve: Callable[[bool, str, str], str],
    node_exists: Callable[[str], str],
    read_note: Callable[[str], str | None],
    dark: bool = False,
    max_chars: int = 2_000_000,
    notice: str = "",
    body_only: bool = False,
) -> RenderedNote:
    """Render the note at vault path ``source`` whose text is ``text``.

    ``resolve(markdown, target, source)`` is the index's link resolution (a node id),
    ``node_exists(node)`` says what a node is ("note", "attachment", "concept" or
    "unresolved") and ``read_note(path)`` gives an embedded note's text (``None`` if it
    cannot be read). Text past ``max_chars`` is cut at a line end, with a notice.
    ``notice`` (plain text) is shown above the note, e.g. that it is not UTF-8.
    ``body_only``: the body's HTML without the document around it, to go inside a page.
    """
    size = len(text)
    truncated = size > max_chars
    if truncated:
        text = _cut(text, max_chars)
    shared = _Shared(resolve, node_exists, read_note, dark, max_chars)
    headings: list[tuple[int, str, str]] = []
    body = breakable(_render_doc(text, _Doc(shared, source, 0, (source,)), headings))
    if truncated:
        warning = H.notice(
            f"This note is too large to preview in full: showing the first {len(text):,} of "
            f"{size:,} characters. Open it in an editor to see the rest."
        )
        body = warning + body + warning
    if notice:
        body = H.notice(escapeHtml(notice)) + body
    return RenderedNote(
        body if body_only else H.page(body, dark=dark),
        _title(source),
        truncated,
        tuple(headings),
        tuple(dict.fromkeys(shared.embeds)),
    )


MAX_LINK_TEXT = 300  # characters of a link's text shown; a longer one is cut, with its length
_LONG_RUN_AT = 500  # QTextBrowser lays out an unbreakable run in time quadratic in its length
_LONG_RUN = re.compile(rf"[^\s<>&\u200b]{{{_LONG_RUN_AT},}}")
_TAG = re.compile(r"(<[^>]*>)")


def breakable(page: str) -> str:
    """``page`` with a zero-width space every 100 characters of any run of text longer
    than 500 characters without a space (a base64 blob, a one-megabyte link target), outside
    ``<pre>``: QTextBrowser takes about a second and a half to lay out one 50,000-character
    word, minutes for a megabyte, in the GUI thread. Code keeps its text as written."""
    if _LONG_RUN.search(page) is None:
        return page  # nearly every note
    parts = _TAG.split(page)  # text, tag, text, tag, …
    in_pre = 0
    for i, part in enumerate(parts):
        if i % 2:
            low = part[:5].lower()
            in_pre += low.startswith("<pre") - low.startswith("</pre")
        elif not in_pre and len(part) >= _LONG_RUN_AT:
            parts[i] = _LONG_RUN.sub(_with_breaks, part)
    return "".join(parts)


def _with_breaks(found: re.Match[str]) -> str:
    run = found.group()
    return "\u200b".join(run[at : at + 100] for at in range(0, len(run), 100))


def heading_anchor(text: str) -> str:
    """The anchor of a heading (or of a link fragment naming it): lowercase words joined by
    ``-``, punctuation dropped; a repeated heading gets ``-1``, ``-2``… in document order."""
    slug = _SPACES.sub("-", _NOT_SLUG.sub("", text.strip().lower())).strip("-")
    return slug or "section"


_NOT_SLUG = re.compile(r"[^\w\- ]+")
_SPACES = re.compile(r"[\s-]+")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_NEWLINES = re.compile(r"\r\n?|\n")
_SIZE = re.compile(r"(\d+)(?:x(\d+))?")


def _cut(text: str, limit: int) -> str:
    """The first ``limit`` characters at most, cut at a line end — unless the last one
    comes early (a note that is one long line after its heading), then at ``limit``."""
    end = text.rfind("\n", 0, limit)
    return text[: end if end > limit // 2 else limit]


def _title(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def _render_doc(text: str, doc: _Doc, headings: list[tuple[int, str, str]]) -> str:
    env: Env = {"librarian": doc}
    if doc.depth:
        # Footnote anchors must not collide with the host note's or another embed's.
        env["docId"] = f"e{next(doc.shared.doc_ids)}"
    tokens = _MD.parse(text, env)
    _prepare(tokens, doc, headings)
    return str(_MD.renderer.render(tokens, _MD.options, env))


def _prepare(tokens: list[Token], doc: _Doc, headings: list[tuple[int, str, str]]) -> None:
    """Before rendering: heading anchors, block ids, embed-only paragraphs, which inline
    HTML tags are safe to keep, and list ends."""
    mark_list_ends(tokens)
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type != "inline" or not token.children or i == 0:
            continue
        parent, children = tokens[i - 1], token.children
        _mark_safe_html(children)
        if parent.type == "heading_open" and doc.anchors:
            text = _plain(children)
            anchor = heading_anchor(text)
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            if count:
                anchor = f"{anchor}-{count}"
            parent.meta["anchor"] = anchor
            headings.append((int(parent.tag[1:]), text, anchor))
        elif parent.type == "paragraph_open":
            last = children[-1]
            match = _BLOCK_ID.search(last.content) if last.type == "text" else None
            if match is not None:
                parent.meta["block_id"] = "^" + match.group(1)
                last.content = last.content[: match.start()]
            media = _media_only(children)
            if media == "embeds":
                parent.meta["embeds"] = tokens[i + 1].meta["embeds"] = True
                for child in children:
                    child.meta["block"] = True
            elif media == "images":
                parent.meta["media"] = True


def _media_only(children: Sequence[Token]) -> str:
    """What a paragraph holding only media is: "embeds" for ``![[…]]`` only (each renders
    as its own block), "images" when Markdown images are among them (the paragraph's line
    height must not stretch them), else ""."""
    kinds = set()
    for child in children:
        if child.type in ("wikiembed", "image"):
            kinds.add(child.type)
        elif child.type not in ("softbreak", "hardbreak") and not (
            child.type == "text" and not child.content.strip()
        ):
            return ""
    if kinds == {"wikiembed"}:
        return "embeds"
    return "images" if kinds else ""


def _mark_safe_html(children: Sequence[Token]) -> None:
    """Keep an allowed inline tag only when it is closed in the same paragraph: an unclosed
    ``<b>`` must not turn the rest of the note bold."""
    open_tags: list[tuple[str, Token]] = []
    for child in children:
        if child.type != "html_inline":
            continue
        tag = H.simple_tag(child.content)
        if tag is None:
            continue
        name, closing = tag
        if name == "br":
            child.meta["safe"] = True
        elif not closing:
            open_tags.append((name, child))
        elif open_tags and open_tags[-1][0] == name:
            open_tags.pop()[1].meta["safe"] = True
            child.meta["safe"] = True


def _plain(children: Sequence[Token]) -> str:
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type in ("wikilink", "wikiembed"):
            parts.append(_wiki_text(child.meta))
        elif child.type == "image":
            parts.append(_plain(child.children or []))
    return "".join(parts).strip()


# ---------------------------------------------------------------- links


def _doc(env: Env) -> _Doc:
    doc = env["librarian"]
    assert isinstance(doc, _Doc)
    return doc


def _fragment_anchor(fragment: str) -> str:
    """A link fragment → the anchor it scrolls to: ``^id`` as is, else the slug of its last
    ``#`` part (Obsidian's ``Note#Heading#Subheading``)."""
    fragment = fragment.strip()
    if fragment.startswith("^"):
        return fragment
    return heading_anchor(fragment.rsplit("#", 1)[-1])


def _fragment_url(fragment: str | None) -> str:
    if not fragment:
        return ""
    return "#" + quote(_fragment_anchor(fragment), safe="^")


def _self_link(doc: _Doc, fragment: str | None) -> str:
    """``[[#Heading]]``: a scroll within the page, except in an embed, whose headings have no
    anchors here: that one opens the embedded note there."""
    if doc.anchors:
        return f'href="{_fragment_url(fragment)}" class="internal"'
    href = "note:///" + url_path(doc.source) + _fragment_url(fragment)
    return f'href="{href}" class="internal" title="{escapeHtml(doc.source)}"'


def _link_attrs(doc: _Doc, node: str, written: str, fragment: str | None, *, markdown: bool) -> str:
    """``href``, ``class`` and ``title`` of a link from ``doc`` to ``node``."""
    kind = doc.shared.node_kind(node)
    if kind in ("note", "attachment"):
        if node == doc.source and fragment:
            return _self_link(doc, fragment)
        href = "note:///" + url_path(node) + _fragment_url(fragment)
        return f'href="{href}" class="internal" title="{escapeHtml(node)}"'
    if kind == "concept":
        concept = node.removeprefix(CONCEPT_PREFIX)
        href = "concept:///" + url_path(concept)
        return f'href="{href}" class="concept" title="Concept: {escapeHtml(concept)}"'
    href = "ghost:///" + url_path(written) + _fragment_url(fragment)
    what = "no file at" if markdown else "no note or concept named"
    # The dotted underline is inline: QTextBrowser applies "text-decoration: none" (all
    # links) after a class's underline style, but an inline style after both.
    return (
        f'href="{href}" class="ghost" style="text-underline-style: dotted" '
        f'title="Unresolved link: {what} “{escapeHtml(written)}”"'
    )


def _wiki_text(meta: dict[Any, Any]) -> str:
    if meta["label"]:
        text = str(meta["label"])
    elif not meta["fragment"]:
        text = str(meta["target"])
    else:
        target, fragment = meta["target"], meta["fragment"]
        text = f"{target} > {fragment}" if target else str(fragment)
    if len(text) > MAX_LINK_TEXT:  # the link still leads there; its text need not be all shown
        return f"{text[:MAX_LINK_TEXT]}… ({len(text):,} characters)"
    return text


def _render_wikilink(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    doc, meta = _doc(env), tokens[idx].meta
    text = escapeHtml(_wiki_text(meta))
    if not meta["target"]:  # [[#Heading]]: this note
        return f"<a {_self_link(doc, meta['fragment'])}>{text}</a>"
    node = doc.shared.resolve(False, meta["target"], doc.source)
    attrs = _link_attrs(doc, node, meta["target"], meta["fragment"], markdown=False)
    return f"<a {attrs}>{text}</a>"


def _render_link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    doc, token = _doc(env), tokens[idx]
    href = str(token.attrGet("href") or "")
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        # http(s)/mailto open in the system browser; any other scheme is shown but the
        # widget ignores it.
        return f'<a href="{escapeHtml(href)}" class="external" title="{escapeHtml(href)}">'
    path, _, fragment = href.partition("#")
    fragment = unquote(fragment)
    if not path:
        return f"<a {_self_link(doc, fragment)}>"
    written = unquote(path)
    node = doc.shared.resolve(True, written, doc.source)
    return f"<a {_link_attrs(doc, node, written, fragment, markdown=True)}>"


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    doc, token = _doc(env), tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = _plain(token.children or [])
    parts = urlsplit(src)
    if parts.scheme in ("http", "https"):
        # Never fetched: a remote image would tell its server the note was opened.
        label = escapeHtml(alt or src)
        return (
            f'<a href="{escapeHtml(src)}" class="external" '
            f'title="Remote image, not loaded: {escapeHtml(src)}">{label}</a>'
        )
    if parts.scheme or parts.netloc:
        return f'<span class="ghost">{escapeHtml(alt)}</span>'
    written = unquote(parts.path)
    node = doc.shared.resolve(True, written, doc.source)
    kind = doc.shared.node_kind(node)
    if kind == "attachment":
        doc.shared.embeds.append(node)
        return _img(node, alt or _title(node), "")
    if kind == "note":
        return f"<a {_link_attrs(doc, node, written, None, markdown=True)}>{escapeHtml(alt)}</a>"
    return (
        f'<span class="ghost" title="Image not found in the vault: {escapeHtml(written)}">'
        f"{escapeHtml(alt or written)}</span>"
    )


def _img(node: str, alt: str, size: str) -> str:
    dims = ""
    match = _SIZE.fullmatch(size.strip())
    if match is not None:
        dims = f' width="{match.group(1)}"'
        if match.group(2):
            dims += f' height="{match.group(2)}"'
    src = "note:///" + url_path(node)
    return f'<img src="{src}" alt="{escapeHtml(alt)}" title="{escapeHtml(alt)}"{dims}>'


# ---------------------------------------------------------------- embeds


def _render_wikiembed(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    doc, meta = _doc(env), tokens[idx].meta
    block = bool(meta.get("block"))
    target, fragment = meta["target"], meta["fragment"]
    node = doc.shared.resolve(False, target, doc.source) if target else doc.source
    kind = doc.shared.node_kind(node)
    if kind == "attachment":
        doc.shared.embeds.append(node)
        if node.lower().endswith(IMAGE_SUFFIXES):
            html = _img(node, _title(node), meta["label"] or "")
        else:
            attrs = _link_attrs(doc, node, target, None, markdown=False)
            html = f"<a {attrs}>{escapeHtml(meta['label'] or _title(node))}</a>"
        return f'<p class="media">{html}</p>\n' if block else html
    attrs = _link_attrs(doc, node, target, fragment, markdown=False)
    link = f"<a {attrs}>{escapeHtml(_wiki_text(meta))}</a>"
    if kind != "note" or not block:
        return f"<p>{link}</p>\n" if block else link
    doc.shared.embeds.append(node)
    return H.embed_box(link, _embed_body(doc, node, fragment))


def _embed_body(doc: _Doc, node: str, fragment: str | None) -> str:
    if node in doc.chain:
        return _embed_note("This note embeds itself: not shown again, to avoid a loop.")
    if doc.depth >= MAX_EMBED_DEPTH:
        return _embed_note(
            f"Embeds nest deeper than {MAX_EMBED_DEPTH} levels here: open the note to see it."
        )
    text = doc.shared.read_note(node)
    if text is None:
        return _embed_note("This note could not be read.")
    if len(text) > doc.shared.max_chars:
        text = _cut(text, doc.shared.max_chars)
    if fragment:
        section = _section(text, fragment)
        if section is None:
            return _embed_note(f"No “{escapeHtml(fragment)}” in this note.")
        text = section
    inner = _Doc(doc.shared, node, doc.depth + 1, (*doc.chain, node))
    return _render_doc(text, inner, [])


def _embed_note(text: str) -> str:
    return f'<p class="embed-note">{text}</p>\n'


def _section(text: str, fragment: str) -> str | None:
    """The lines of ``text`` that ``#Heading`` (heading to the next one of its level or
    higher) or ``#^block-id`` (that paragraph) names; ``None`` if there is none."""
    anchor = _fragment_anchor(fragment)
    lines = _NEWLINES.split(text)
    tokens = _MD.parse(text, {"librarian": None})
    start = level = -1
    for i, token in enumerate(tokens):
        if token.map is None or token.type not in ("heading_open", "paragraph_open"):
            continue
        children = tokens[i + 1].children or []
        if start >= 0:
            if token.type == "heading_open" and int(token.tag[1:]) <= level:
                return "\n".join(lines[start : token.map[0]])
        elif token.type == "heading_open" and heading_anchor(_plain(children)) == anchor:
            start, level = token.map[0], int(token.tag[1:])
        elif anchor.startswith("^") and token.type == "paragraph_open" and children:
            match = _BLOCK_ID.search(children[-1].content)
            if match is not None and "^" + match.group(1) == anchor:
                return "\n".join(lines[token.map[0] : token.map[1]])
    return "\n".join(lines[start:]) if start >= 0 else None


def _build() -> MarkdownIt:
    md = make_markdown()
    # Bare URLs are links, as Obsidian shows them: only those with a scheme (https://…),
    # never a bare domain ("notes.md" would be a link to Moldova's .md).
    md.options["linkify"] = True
    md.enable("linkify")
    assert md.linkify is not None  # linkify-it-py is installed (a dependency)
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False})
    footnote_plugin(md)
    highlight_plugin(md)
    callout_plugin(md)
    tasklist_plugin(md)
    rules: dict[str, Callable[..., str]] = {
        **BLOCK_RULES,
        "wikilink": _render_wikilink,
        "wikiembed": _render_wikiembed,
        "link_open": _render_link_open,
        "image": _render_image,
    }
    for name, rule in rules.items():
        md.add_render_rule(name, rule)
    return md


# One parser for every render: parsing keeps its state in the call, so threads may share it.
_MD = _build()
