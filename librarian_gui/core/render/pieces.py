"""HTML pieces of the preview in the subset QTextBrowser shows: page, boxes, code, properties."""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Callable
from typing import Any

import yaml
from markdown_it.common.utils import escapeHtml
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from ...resources import preview_css

try:
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _YamlLoader = yaml.SafeLoader

# QTextBrowser has no CSS classes for Pygments' spans to hook into reliably, but it renders
# inline ``style`` colours and weights: emit those, with a style chosen for each theme's
# code background (see td.code in the preview CSS).
_FORMATTERS = {
    False: HtmlFormatter(nowrap=True, noclasses=True, style="default"),
    True: HtmlFormatter(nowrap=True, noclasses=True, style="one-dark"),
}


def page(body: str, *, dark: bool) -> str:
    """A whole document: the theme's style sheet in the head, ``body`` in the body."""
    return (
        '<html><head><meta charset="utf-8"><style>'
        f"{_css(dark)}</style></head><body>\n{body}</body></html>"
    )


@functools.cache
def _css(dark: bool) -> str:
    return preview_css(dark)


# ---------------------------------------------------------------- code


@functools.lru_cache(maxsize=128)
def _lexer(lang: str) -> Lexer | None:
    try:
        return get_lexer_by_name(lang, stripnl=False)
    except ClassNotFound:
        return None


def code_block(code: str, lang: str, *, dark: bool, line: str = "") -> str:
    """A fenced or indented code block: highlighted when the language is known, in a tinted
    one-cell table because QTextBrowser gives ``<pre>`` neither padding nor a box."""
    code = code.removesuffix("\n")
    lexer = _lexer(lang.lower()) if lang else None
    body = (
        highlight(code, lexer, _FORMATTERS[dark]).removesuffix("\n")
        if lexer is not None
        else escapeHtml(code)
    )
    return (
        '<table class="code" width="100%" cellspacing="0" cellpadding="10">'
        f'<tr><td class="code"><pre{line}>{body}</pre></td></tr></table>\n'
    )


# ---------------------------------------------------------------- boxes

# Obsidian's callout types and their aliases → the colour family the CSS styles.
CALLOUT_FAMILIES = {
    "note": "note",
    "abstract": "abstract",
    "summary": "abstract",
    "tldr": "abstract",
    "info": "info",
    "todo": "info",
    "tip": "tip",
    "hint": "tip",
    "important": "tip",
    "success": "success",
    "check": "success",
    "done": "success",
    "question": "question",
    "help": "question",
    "faq": "question",
    "warning": "warning",
    "caution": "warning",
    "attention": "warning",
    "failure": "danger",
    "fail": "danger",
    "missing": "danger",
    "danger": "danger",
    "error": "danger",
    "bug": "danger",
    "example": "example",
    "quote": "quote",
    "cite": "quote",
}
# Symbols DejaVu Sans has (the offscreen and most Linux desktops' fallback font).
_CALLOUT_ICONS = {
    "note": "✎",
    "abstract": "☰",
    "info": "ℹ",
    "tip": "✦",
    "success": "✔",
    "question": "?",
    "warning": "⚠",
    "danger": "✖",
    "example": "☷",
    "quote": "❝",
}


def callout_open(kind: str, title_html: str, line: str) -> str:
    """A callout as a two-cell table: a coloured bar, then the title and body. QTextBrowser
    draws no left border on a block, but it does fill a narrow table cell."""
    family = CALLOUT_FAMILIES.get(kind, "note")
    icon = _CALLOUT_ICONS[family]
    return (
        f'<table class="callout callout-{family}" width="100%" cellspacing="0" cellpadding="0">'
        f'<tr><td class="bar" width="4"></td><td class="body">\n'
        f'<p class="callout-title"{line}>{icon} {title_html}</p>\n'
    )


def quote_open() -> str:
    return (
        '<table class="quote" width="100%" cellspacing="0" cellpadding="0">'
        '<tr><td class="bar" width="3"></td><td class="body">\n'
    )


BOX_CLOSE = "</td></tr></table>\n"


def embed_box(title_html: str, body: str) -> str:
    return (
        '<table class="embed" width="100%" cellspacing="0" cellpadding="0"><tr><td class="body">\n'
        f'<p class="embed-title">{title_html}</p>\n{body}</td></tr></table>\n'
    )


def notice(text: str, line: str = "") -> str:
    """A visible warning inside the page (truncation, bad front matter)."""
    return (
        '<table class="notice" width="100%" cellspacing="0" cellpadding="8">'
        f"<tr><td{line}>{text}</td></tr></table>\n"
    )


# ---------------------------------------------------------------- raw HTML

# Tags without attributes that cannot load anything or run anything; everything else a note
# writes as HTML is shown as its source text.
_SAFE_TAGS = {
    "b": "b",
    "i": "i",
    "em": "em",
    "strong": "strong",
    "u": "u",
    "s": "s",
    "del": "s",
    "ins": "u",
    "sub": "sub",
    "sup": "sup",
    "kbd": "kbd",
    "mark": 'span class="hl"',
}
_SIMPLE_TAG = re.compile(r"<(/?)([A-Za-z]+)\s*(/?)>")
_COMMENT = re.compile(r"\s*<!--.*?-->\s*", re.DOTALL)


def is_comment(html: str) -> bool:
    return _COMMENT.fullmatch(html) is not None


def simple_tag(html: str) -> tuple[str, bool] | None:
    """``<b>`` → ("b", False), ``</b>`` → ("b", True), ``<br>`` → ("br", False); ``None``
    for anything with attributes or not on the safe list."""
    match = _SIMPLE_TAG.fullmatch(html)
    if match is None:
        return None
    name = match.group(2).lower()
    if name != "br" and name not in _SAFE_TAGS:
        return None
    return name, bool(match.group(1))


def safe_tag(name: str, closing: bool) -> str:
    if name == "br":
        return "<br>"
    tag = _SAFE_TAGS[name]
    return f"</{tag.split()[0]}>" if closing else f"<{tag}>"


def raw_html_block(html: str, line: str) -> str:
    """An HTML block shown as its source (the front matter's fallback)."""
    return f'<pre class="raw-html"{line}>{escapeHtml(html.removesuffix(chr(10)))}</pre>\n'


# HTML a note may hold and the preview shows (DESIGN §9: nothing runs, nothing remote loads):
# text, lists, tables, details; links to the web only, opened in the browser. What is not
# on the list is dropped, its text kept, except the content of the tags below.
_HTML_TAGS = frozenset(
    [
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "s",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    ]
)
_HTML_DROPPED = frozenset(
    [
        "script",
        "style",
        "title",
        "noscript",
        "template",
        "textarea",
        "select",
        "iframe",
        "object",
        "embed",
    ]
)
_HTML_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"alt"},
    "td": {"align", "colspan", "rowspan", "valign"},
    "th": {"align", "colspan", "rowspan", "valign"},
    "ol": {"start"},
}
_IMG = re.compile(r'<img(?: alt="([^"]*)")?>')


def _web_links_only(tag: str, attribute: str, value: str) -> str | None:
    if tag == "a" and attribute == "href":
        scheme = value.split(":", 1)[0].lower() if ":" in value else ""
        return value if scheme in ("http", "https", "mailto") else None
    return value


def safe_html_block(html: str, line: str) -> str:
    """An HTML block rendered with only what cannot run or reach out: the tags and
    attributes above (nh3, the Rust sanitizer ammonia); a link keeps a web address only
    and opens in the browser; an image, which would load from elsewhere, shows its alt
    text instead."""
    import nh3  # only a note with an HTML block pays for it

    clean = nh3.clean(
        html,
        tags=set(_HTML_TAGS),
        clean_content_tags=set(_HTML_DROPPED),
        attributes={tag: set(names) for tag, names in _HTML_ATTRIBUTES.items()},
        attribute_filter=_web_links_only,
        link_rel=None,
        url_schemes={"http", "https", "mailto"},
        set_tag_attribute_values={"a": {"class": "external"}},
        strip_comments=True,
    )
    # After cleaning, an image is exactly <img> or <img alt="…"> (escaped by nh3).
    clean = _IMG.sub(lambda m: f'<span class="image-alt">[{m.group(1) or "image"}]</span>', clean)
    return f'<div class="html-block"{line}>{clean.strip()}</div>\n'


# ---------------------------------------------------------------- front matter


def properties_table(yaml_text: str, render_value: Callable[[str], str], line: str) -> str:
    """Front matter as a key/value table; ``render_value`` turns one value's text into HTML
    (so ``"[[Note]]"`` values become links). Bad YAML is shown as text with a notice."""
    try:
        data = yaml.load(yaml_text, Loader=_YamlLoader)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        problem = getattr(exc, "problem", None) or "syntax error"
        return notice(
            f"Front matter is not valid YAML ({escapeHtml(str(problem))}): shown as text.", line
        ) + raw_html_block(yaml_text, "")
    if data is None:
        return ""
    if not isinstance(data, dict):
        return notice("Front matter is not a set of key: value properties.", line)
    rows = []
    for key, value in data.items():
        rows.append(
            f'<tr><td class="key"{line}>{escapeHtml(str(key))}</td>'
            f"<td>{render_value(_value_text(value))}</td></tr>"
        )
        line = ""
    return '<table class="props" cellspacing="0" cellpadding="4">' + "".join(rows) + "</table>\n"


def _value_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(_value_text(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_value_text(v)}" for k, v in value.items())
    return str(value)
