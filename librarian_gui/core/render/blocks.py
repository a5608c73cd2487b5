"""markdown-it render rules for the preview's block tokens, in the HTML QTextBrowser shows."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, Protocol

from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.token import Token

from . import pieces as H

Env = MutableMapping[str, Any]
Rule = Callable[..., str]
LIST_OPEN = ("bullet_list_open", "ordered_list_open")
LIST_CLOSE = ("bullet_list_close", "ordered_list_close")


class Document(Protocol):
    """What the rules need of the document being rendered, found at ``env["librarian"]``."""

    @property
    def anchors(self) -> bool:
        """Whether to mark source lines and write heading and block anchors: for the note
        itself, not for an embed (its lines and headings are not the note's)."""
        ...

    @property
    def dark(self) -> bool: ...

    def inline(self, text: str) -> str:
        """One line of Markdown (a title, a property value) as inline HTML."""
        ...


def document(env: Env) -> Document:
    doc: Document = env["librarian"]
    return doc


def line_attr(token: Token, env: Env) -> str:
    """The attribute marking a block with its first source line (1-based), for jumping to a
    line: the block's user state. Not ``<a name="L12">`` anchors: QTextDocument hashes anchor
    names poorly, and one per block made setHtml quadratic (8,000 paragraphs: 20 s)."""
    if token.map is None or not document(env).anchors:
        return ""
    return f' style="-qt-user-state: {token.map[0] + 1}"'


def mark_list_ends(tokens: Sequence[Token]) -> None:
    """QTextBrowser puts a list's bottom margin under its last item's first line: when that
    item holds a nested list, the gap opens above the nested list instead of below the list.
    Such a top-level list gets ``meta["open_end"]``: no margin, and a spacer after it."""
    stack: list[list[Any]] = []  # [open token, does its current item hold a list?]
    for token in tokens:
        if token.type in LIST_OPEN:
            if stack:
                stack[-1][1] = True
            stack.append([token, False])
        elif token.type == "list_item_open" and stack:
            stack[-1][1] = False
        elif token.type in LIST_CLOSE and stack:
            opener, nested = stack.pop()
            if nested and not stack:
                opener.meta["open_end"] = token.meta["open_end"] = True


def _paragraph_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    if token.meta.get("embeds"):
        return ""  # each embed renders its own block
    block_id = token.meta.get("block_id")
    name = ""
    if block_id and document(env).anchors:
        name = f'<a name="{escapeHtml(block_id)}"></a>'
    # A tight list item's paragraph is hidden: its text (and line) go to the <li>.
    if token.hidden:
        return name
    css = ' class="media"' if token.meta.get("media") else ""
    return f"<p{css}{line_attr(token, env)}>{name}"


def _paragraph_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    if token.meta.get("embeds"):
        return ""
    return "\n" if token.hidden else "</p>\n"


def _heading_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    anchor = token.meta.get("anchor")
    name = f'<a name="{escapeHtml(anchor)}"></a>' if anchor else ""
    return f"<{token.tag}{line_attr(token, env)}>{name}"


def _fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    info = unescapeAll(token.info).strip() if token.info else ""
    lang = info.split(maxsplit=1)[0] if info else ""
    return H.code_block(token.content, lang, dark=document(env).dark, line=line_attr(token, env))


def _html_block(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    if H.is_comment(token.content):
        return ""
    return H.safe_html_block(token.content, line_attr(token, env))


def _html_inline(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    if token.meta.get("safe"):
        tag = H.simple_tag(token.content)
        assert tag is not None
        return H.safe_tag(*tag)
    if H.is_comment(token.content):
        return ""
    return escapeHtml(token.content)


def _front_matter(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    doc = document(env)
    if not doc.anchors:
        return ""  # an embed shows its body only, as Obsidian does
    token = tokens[idx]

    def value(text: str) -> str:
        # Only a value holding a wiki link is Markdown (a property link); others are text.
        return doc.inline(text) if "[[" in text else escapeHtml(text)

    return H.properties_table(token.content, value, line_attr(token, env))


def _callout_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    kind, title = token.meta["kind"], token.meta["title"]
    family = H.CALLOUT_FAMILIES.get(kind, "note")
    title_html = document(env).inline(title) if title else escapeHtml(family.capitalize())
    return H.callout_open(kind, title_html, line_attr(token, env))


def _cell_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    # markdown-it writes alignment as CSS text-align, which QTextBrowser ignores on cells.
    style = str(token.attrGet("style") or "")
    align = style.partition("text-align:")[2].strip() or "left"
    line = line_attr(tokens[idx - 1], env) if tokens[idx - 1].type == "tr_open" else ""
    return f'<{token.tag} align="{escapeHtml(align)}"{line}>'


def _list_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    classes = []
    if token.meta.get("tasks") and token.tag == "ul":
        classes.append("tasks")  # boxes instead of bullets
    if token.meta.get("open_end"):
        classes.append("open-end")
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    start = token.attrGet("start")
    if start is not None:
        attrs += f' start="{escapeHtml(str(start))}"'
    return f"<{token.tag}{attrs}>\n"


def _list_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    spacer = '<p class="spacer">&nbsp;</p>\n' if token.meta.get("open_end") else ""
    return f"</{token.tag}>\n{spacer}"


def _list_item_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    token = tokens[idx]
    task = token.meta.get("task")
    css = ' class="done"' if task is not None and task != " " else ""
    return f"<li{css}{line_attr(token, env)}>"


def _task_marker(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    # QTextBrowser has no <input>: ballot box characters instead.
    box = "☑" if tokens[idx].meta["done"] else "☐"
    return f'<span class="task">{box}</span> '


def _footnote_ref(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    ident = self.rules["footnote_anchor_name"](tokens, idx, options, env)
    caption = self.rules["footnote_caption"](tokens, idx, options, env)
    anchor = f'<a name="fnref{_ref(tokens[idx], ident)}"></a>'
    return f'{anchor}<sup><a href="#fn{ident}">{caption}</a></sup>'


def _footnote_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    ident = self.rules["footnote_anchor_name"](tokens, idx, options, env)
    return f'<li><a name="fn{ident}"></a>'


def _footnote_anchor(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Env) -> str:
    ident = self.rules["footnote_anchor_name"](tokens, idx, options, env)
    return f' <a href="#fnref{_ref(tokens[idx], ident)}" title="Back to the text">↩</a>'


def _ref(token: Token, ident: str) -> str:
    """A footnote reference's own anchor: the second reference to one note is ``n:1``."""
    sub = token.meta.get("subId", -1)
    return f"{ident}:{sub}" if sub > 0 else ident


def _constant(html: str) -> Rule:
    return lambda *_args: html


BLOCK_RULES: dict[str, Rule] = {
    "paragraph_open": _paragraph_open,
    "paragraph_close": _paragraph_close,
    "heading_open": _heading_open,
    "fence": _fence,
    "code_block": _fence,
    "html_block": _html_block,
    "html_inline": _html_inline,
    "front_matter": _front_matter,
    "callout_open": _callout_open,
    "callout_close": _constant(H.BOX_CLOSE),
    "blockquote_open": _constant(H.quote_open()),
    "blockquote_close": _constant(H.BOX_CLOSE),
    "table_open": _constant('<table class="md" border="1" cellspacing="0" cellpadding="6">\n'),
    "th_open": _cell_open,
    "td_open": _cell_open,
    "bullet_list_open": _list_open,
    "ordered_list_open": _list_open,
    "bullet_list_close": _list_close,
    "ordered_list_close": _list_close,
    "list_item_open": _list_item_open,
    "task_marker": _task_marker,
    "mark_open": _constant('<span class="hl">'),
    "mark_close": _constant("</span>"),
    "footnote_ref": _footnote_ref,
    "footnote_open": _footnote_open,
    "footnote_anchor": _footnote_anchor,
    "footnote_block_open": _constant('<hr>\n<ol class="footnotes">\n'),
    "footnote_block_close": _constant("</ol>\n"),
}
