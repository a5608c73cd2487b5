"""markdown-it-py plugins for Obsidian syntax: wiki links, embeds and ``%%`` comments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

__all__ = ["comment_plugin", "make_markdown", "split_wiki", "wikilink_plugin"]


def make_markdown() -> MarkdownIt:
    """The parser the project renders and indexes with: CommonMark, GFM tables and
    strikethrough, YAML front matter, wiki links and ``%%`` comments."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    front_matter_plugin(md)
    wikilink_plugin(md)
    comment_plugin(md)
    return md


# ---------------------------------------------------------------- wiki links


def split_wiki(inner: str) -> tuple[str, str | None, str | None]:
    """``target#fragment|label`` → (target, fragment, label).

    The first ``|`` splits off the label; a ``\\|`` splits too, because a link written in a
    table cell must escape its pipe. The first ``#`` then splits off the fragment.
    """
    label: str | None = None
    bar = inner.find("|")
    if bar >= 0:
        label = inner[bar + 1 :]
        inner = inner[: bar - 1] if inner.endswith("\\", 0, bar) else inner[:bar]
    fragment: str | None = None
    hash_ = inner.find("#")
    if hash_ >= 0:
        fragment = inner[hash_ + 1 :].strip()
        inner = inner[:hash_]
    return inner.strip(), fragment, label


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


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos, pos_max = state.src, state.pos, state.posMax
    embed = src.startswith("![[", pos)
    start = pos + 1 if embed else pos
    if not src.startswith("[[", start):
        return False
    close = src.find("]]", start + 2, pos_max)
    if close < 0:
        return False
    inner = src[start + 2 : close]
    # Same content rule as Obsidian: one line, no nested brackets, not blank.
    if not inner.strip() or "\n" in inner or "[" in inner or "]" in inner:
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
