"""markdown-it-py plugins for Obsidian syntax: wiki links, embeds, ``%%`` comments, callouts,
``==highlights==`` and task lists."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from ..parse.parser import split_wiki

__all__ = [
    "callout_plugin",
    "comment_plugin",
    "highlight_plugin",
    "make_markdown",
    "tasklist_plugin",
    "wikilink_plugin",
]


def make_markdown() -> MarkdownIt:
    """The parser the project renders and indexes with: CommonMark, GFM tables and
    strikethrough, YAML front matter, wiki links and ``%%`` comments."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    front_matter_plugin(md)
    wikilink_plugin(md)
    comment_plugin(md)
    return md


# ---------------------------------------------------------------- wiki links


def wikilink_plugin(md: MarkdownIt) -> None:
    """``[[target#fragment|label]]`` → a ``wikilink`` token, ``![[...]]`` → ``wikiembed``.

    ``token.meta`` holds ``target``, ``fragment`` and ``label`` (``None`` when absent);
    ``token.content`` is the text between the brackets, ``token.markup`` the opening marker.
    """
    # Before "link", so "[[x]]" is never read as a shortcut reference "[x]" in brackets,
    # and before "image", so "![[x]]" is an embed rather than "!" followed by text.
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    # Plain defaults so rendering never fails; the preview installs its own rules.
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("wikiembed", _render_wikilink)


_WIKI_STOP = re.compile(r"[\[\]\n]")


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos, pos_max = state.src, state.pos, state.posMax
    embed = src.startswith("![[", pos)
    start = pos + 1 if embed else pos
    if not src.startswith("[[", start):
        return False
    # Same content rule as Obsidian: one line, no nested brackets, not blank. So the link
    # ends at the first bracket or line end after "[[", or it is no link: looking only that
    # far keeps a line of 100,000 unclosed "[[" linear, not quadratic.
    found = _WIKI_STOP.search(src, start + 2, pos_max)
    if found is None or not src.startswith("]]", found.start()):
        return False
    close = found.start()
    inner = src[start + 2 : close]
    if not inner.strip():
        return False
    if not silent:
        target, fragment, label = split_wiki(inner)
        token = state.push("wikiembed" if embed else "wikilink", "", 0)
        token.content = inner
        token.markup = "![[" if embed else "[["
        token.meta = {"target": target, "fragment": fragment, "label": label}
    state.pos = close + 2
    return True


def _render_wikilink(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    meta = token.meta
    href = meta["target"] + ("#" + meta["fragment"] if meta["fragment"] is not None else "")
    text = meta["label"] if meta["label"] is not None else token.content
    return f'<a class="{token.type}" href="{escapeHtml(href)}">{escapeHtml(text)}</a>'


# ---------------------------------------------------------------- %% comments


def comment_plugin(md: MarkdownIt) -> None:
    """Obsidian ``%% comments %%`` → ``obsidian_comment`` tokens whose text is never parsed.

    Two rules, because a comment is either inline (inside a paragraph, closed there or
    running to the end of it) or a block opened at the start of a line, which may span
    blank lines; an unclosed block comment runs to the end of its container (the document).
    """
    md.block.ruler.before(
        "paragraph",
        "obsidian_comment",
        _comment_block_rule,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    # Rules run left to right, so whichever of "`", "<!--" and "%%" opens first wins.
    md.inline.ruler.before("backticks", "obsidian_comment", _comment_inline_rule)
    md.add_render_rule("obsidian_comment", lambda *_args: "")  # comments never show


def _comment_inline_rule(state: StateInline, silent: bool) -> bool:
    src, pos, pos_max = state.src, state.pos, state.posMax
    if not src.startswith("%%", pos):
        return False
    close = src.find("%%", pos + 2, pos_max)
    end = pos_max if close < 0 else close + 2
    if not silent:
        token = state.push("obsidian_comment", "", 0)
        token.content = src[pos + 2 : close if close >= 0 else pos_max]
        token.markup = "%%"
    state.pos = end
    return True


def _comment_block_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    src = state.src
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if not src.startswith("%%", begin):
        return False
    line, search, close = start_line, begin + 2, -1
    while line < end_line:
        close = src.find("%%", search, state.eMarks[line])
        if close >= 0:
            break
        line += 1
        if line < end_line:
            search = state.bMarks[line] + state.tShift[line]
    if close >= 0 and line == start_line:
        return False  # "%% note %%" on one line is an inline comment, as in a paragraph
    tail = src[close + 2 : state.eMarks[line]] if close >= 0 else ""
    if silent:
        return True
    if close < 0:
        line = end_line - 1
        close = state.eMarks[line]
    token = state.push("obsidian_comment", "", 0)
    token.block = True
    token.content = src[begin + 2 : close]
    token.markup = "%%"
    if tail.strip():
        # Text after a multi-line comment's close: parse the rest of that line as a new block.
        rest = close + 2
        state.bMarks[line] = rest
        state.tShift[line] = len(tail) - len(tail.lstrip(" \t"))
        state.sCount[line] = state.blkIndent
        token.map = [start_line, line]
        state.line = line
    else:
        token.map = [start_line, line + 1]
        state.line = line + 1
    return True


# ---------------------------------------------------------------- ==highlights==

_EQUALS = 0x3D


def highlight_plugin(md: MarkdownIt) -> None:
    """``==text==`` → ``mark_open``/``mark_close`` tokens (tag ``mark``).

    Paired through the delimiter list exactly like ``~~strikethrough~~``, so it nests with
    emphasis and links the same way and a lone ``==`` (``a == b``) stays text.
    """
    md.inline.ruler.before("emphasis", "mark", _mark_tokenize)
    md.inline.ruler2.before("emphasis", "mark", _mark_post_process)


def _mark_tokenize(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if silent or state.src[start] != "=":
        return False
    scanned = state.scanDelims(start, True)
    length = scanned.length
    if length < 2:
        return False
    if length % 2:
        token = state.push("text", "", 0)
        token.content = "="
        length -= 1
    for _ in range(length // 2):
        token = state.push("text", "", 0)
        token.content = "=="
        state.delimiters.append(
            Delimiter(
                marker=_EQUALS,
                length=0,  # no "rule of 3": that is for emphasis only
                token=len(state.tokens) - 1,
                end=-1,
                open=scanned.can_open,
                close=scanned.can_close,
            )
        )
    state.pos += scanned.length
    return True


def _mark_pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    lone: list[int] = []
    for start in delimiters:
        if start.marker != _EQUALS or start.end == -1:
            continue
        end = delimiters[start.end]
        opener, closer = state.tokens[start.token], state.tokens[end.token]
        opener.type, opener.nesting = "mark_open", 1
        closer.type, closer.nesting = "mark_close", -1
        for token in (opener, closer):
            token.tag, token.markup, token.content = "mark", "==", ""
        before = state.tokens[end.token - 1]
        if before.type == "text" and before.content == "=":
            lone.append(end.token - 1)
    # An odd run "===" left one "=" before its pair: move it after the closing tags, as
    # markdown-it does for "~~~".
    while lone:
        i = lone.pop()
        j = i + 1
        while j < len(state.tokens) and state.tokens[j].type == "mark_close":
            j += 1
        j -= 1
        if i != j:
            state.tokens[i], state.tokens[j] = state.tokens[j], state.tokens[i]


def _mark_post_process(state: StateInline) -> None:
    _mark_pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _mark_pair(state, meta["delimiters"])


# ---------------------------------------------------------------- callouts

_CALLOUT = re.compile(r"\[!([^\]\s]+)\]([+-]?)[ \t]*(.*)")


def callout_plugin(md: MarkdownIt) -> None:
    """Obsidian callouts: a blockquote whose first line is ``[!type]`` becomes
    ``callout_open`` … ``callout_close``.

    ``meta`` of the open token holds ``kind`` (the type, lowercased), ``title`` (the rest of
    the marker line, ``""`` when absent) and ``fold`` (``"+"``, ``"-"`` or ``""``). The marker
    line is removed from the body before inline parsing, so the title is never parsed as text.
    """
    # Before "inline": the marker line must go before its text is parsed into children.
    md.core.ruler.before("inline", "callout", _callout_rule)
    md.add_render_rule("callout_open", _render_callout_open)
    md.add_render_rule("callout_close", lambda *_args: "</div>\n")


def _callout_rule(state: StateCore) -> None:
    tokens = state.tokens
    i = 0
    while i < len(tokens) - 2:
        token = tokens[i]
        if (
            token.type == "blockquote_open"
            and tokens[i + 1].type == "paragraph_open"
            and tokens[i + 2].type == "inline"
        ):
            inline = tokens[i + 2]
            first, _, rest = inline.content.partition("\n")
            match = _CALLOUT.fullmatch(first.rstrip())
            if match is not None:
                token.type, token.tag = "callout_open", "div"
                token.meta = {
                    "kind": match.group(1).lower(),
                    "title": match.group(3).strip(),
                    "fold": match.group(2),
                }
                close = _closing(tokens, i)
                tokens[close].type, tokens[close].tag = "callout_close", "div"
                if rest.strip():
                    inline.content = rest
                    for body in (tokens[i + 1], inline):
                        if body.map:
                            body.map = [body.map[0] + 1, body.map[1]]
                else:  # the marker line was the whole paragraph
                    del tokens[i + 1 : i + 4]
        i += 1


def _closing(tokens: Sequence[Token], open_index: int) -> int:
    """Index of the token closing ``tokens[open_index]`` (same level, negative nesting)."""
    level = tokens[open_index].level
    for j in range(open_index + 1, len(tokens)):
        if tokens[j].level == level and tokens[j].nesting == -1:
            return j
    return len(tokens) - 1  # unreachable for a well-formed stream


def _render_callout_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    meta = tokens[idx].meta
    title = meta["title"] or meta["kind"].capitalize()
    return (
        f'<div class="callout" data-callout="{escapeHtml(meta["kind"])}">\n'
        f'<div class="callout-title">{escapeHtml(title)}</div>\n'
    )


# ---------------------------------------------------------------- task lists

_TASK = re.compile(r"\[([^\]\n])\](?:[ \t]+|$)")


def tasklist_plugin(md: MarkdownIt) -> None:
    """``- [ ] item`` / ``- [x] item`` → task items.

    The item's ``list_item_open`` gets ``meta["task"]`` (the character between the brackets;
    Obsidian reads a space as open and any other character as done), the marker leaves the
    item's text and a ``task_marker`` token (``meta["done"]``) is inserted in its place. A list
    whose items are all tasks gets ``meta["tasks"] = True`` on its open token.
    """
    # After "inline": the item's first text child is where the marker is.
    md.core.ruler.after("inline", "tasklist", _tasklist_rule)
    md.add_render_rule("task_marker", _render_task_marker)


def _tasklist_rule(state: StateCore) -> None:
    tokens = state.tokens
    lists: list[tuple[Token, list[bool]]] = []  # open list token, is-task of each item
    for i, token in enumerate(tokens):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append((token, []))
        elif token.type in ("bullet_list_close", "ordered_list_close") and lists:
            opener, items = lists.pop()
            if items and all(items):
                opener.meta["tasks"] = True
        elif token.type == "list_item_open" and lists:
            lists[-1][1].append(_make_task(tokens, i))


def _make_task(tokens: Sequence[Token], i: int) -> bool:
    if i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_open":
        return False
    inline = tokens[i + 2]
    children = inline.children
    if inline.type != "inline" or not children or children[0].type != "text":
        return False
    match = _TASK.match(children[0].content)
    if match is None:
        return False
    char = match.group(1)
    tokens[i].meta["task"] = char
    children[0].content = children[0].content[match.end() :]
    inline.content = inline.content[match.end() :]
    marker = Token("task_marker", "", 0)
    marker.meta = {"done": char != " "}
    children.insert(0, marker)
    return True


def _render_task_marker(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    checked = " checked" if tokens[idx].meta["done"] else ""
    return f'<input type="checkbox" disabled{checked}> '
