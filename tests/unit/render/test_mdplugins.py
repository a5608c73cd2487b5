"""Tokens of the Obsidian markdown-it plugins: wiki links, embeds and ``%%`` comments."""

from __future__ import annotations

from typing import Any

import pytest

from librarian_gui.core.render.mdplugins import make_markdown

MD = make_markdown()


def inline(text: str) -> list[tuple[str, str, dict[Any, Any] | None]]:
    """(type, content, meta) of every inline child token; meta only for links."""
    return [
        (child.type, child.content, child.meta if child.type.startswith("wiki") else None)
        for token in MD.parse(text)
        if token.type == "inline"
        for child in token.children or []
    ]


def blocks(text: str) -> list[tuple[str, list[int] | None, str]]:
    """(type, map, content) of the block tokens that carry content."""
    return [(t.type, t.map, t.content) for t in MD.parse(text) if t.nesting == 0]


def wiki(target: str, fragment: str | None = None, label: str | None = None) -> dict[str, Any]:
    return {"target": target, "fragment": fragment, "label": label}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("[[Note]]", [("wikilink", "Note", wiki("Note"))], id="plain"),
        pytest.param(
            "see [[My Note|the note]].",
            [
                ("text", "see ", None),
                ("wikilink", "My Note|the note", wiki("My Note", None, "the note")),
                ("text", ".", None),
            ],
            id="label",
        ),
        pytest.param(
            "[[folder/Note#Some Heading]]",
            [("wikilink", "folder/Note#Some Heading", wiki("folder/Note", "Some Heading"))],
            id="fragment",
        ),
        pytest.param(
            "[[#Heading]]", [("wikilink", "#Heading", wiki("", "Heading"))], id="same-note"
        ),
        pytest.param(
            "[[Note#^block-1|b]]",
            [("wikilink", "Note#^block-1|b", wiki("Note", "^block-1", "b"))],
            id="block-ref",
        ),
        pytest.param(
            "![[diagram.png|300]]",
            [("wikiembed", "diagram.png|300", wiki("diagram.png", None, "300"))],
            id="embed",
        ),
        pytest.param(
            "[[Note\\|label]]",
            [("wikilink", "Note\\|label", wiki("Note", None, "label"))],
            id="escaped-pipe-outside-table",
        ),
        pytest.param("\\[[x]]", [("text", "[[x]]", None)], id="escaped"),
        pytest.param(
            "\\![[x]]", [("text", "!", None), ("wikilink", "x", wiki("x"))], id="escaped-embed"
        ),
        pytest.param(
            "\\\\[[x]]",
            [("text", "\\", None), ("wikilink", "x", wiki("x"))],
            id="escaped-backslash",
        ),
        pytest.param(
            "`[[x]]` and ``a ` [[y]]``",
            [
                ("code_inline", "[[x]]", None),
                ("text", " and ", None),
                ("code_inline", "a ` [[y]]", None),
            ],
            id="code-span",
        ),
        pytest.param(
            "[[ ]] [[a\nb]] [[a[b]]",
            [
                ("text", "[[ ]] [[a", None),
                ("softbreak", "", None),
                ("text", "b]] [[a[b]]", None),
            ],
            id="not-links",
        ),
        pytest.param(
            "*[[a]]* [t](b.md)",
            [
                ("em_open", "", None),
                ("wikilink", "a", wiki("a")),
                ("em_close", "", None),
                ("text", " ", None),
                ("link_open", "", None),
                ("text", "t", None),
                ("link_close", "", None),
            ],
            id="beside-markdown",
        ),
        pytest.param(
            "a %% [[x]] %% b",
            [("text", "a ", None), ("obsidian_comment", " [[x]] ", None), ("text", " b", None)],
            id="inline-comment",
        ),
        pytest.param(
            "a %% [[x]]\nb",
            [("text", "a ", None), ("obsidian_comment", " [[x]]\nb", None)],
            id="inline-comment-to-paragraph-end",
        ),
        pytest.param(
            "`%%` [[x]] %% `",
            [
                ("code_inline", "%%", None),
                ("text", " ", None),
                ("wikilink", "x", wiki("x")),
                ("text", " ", None),
                ("obsidian_comment", " `", None),
            ],
            id="first-opener-wins",
        ),
    ],
)
def test_inline_tokens(text: str, expected: list[tuple[str, str, dict[str, Any] | None]]) -> None:
    assert inline(text) == expected


def test_fenced_code_holds_no_link() -> None:
    assert blocks("```\n[[x]]\n```\n~~~md\n![[y]]\n~~~\n") == [
        ("fence", [0, 3], "[[x]]\n"),
        ("fence", [3, 6], "![[y]]\n"),
    ]


def test_table_cell_escaped_pipe() -> None:
    text = "| a | b |\n|---|---|\n| [[Note\\|label]] | [[#H\\|h]] |\n"
    assert [t for t in inline(text) if t[0] == "wikilink"] == [
        ("wikilink", "Note|label", wiki("Note", None, "label")),
        ("wikilink", "#H|h", wiki("", "H", "h")),
    ]


def test_block_comment_spans_blank_lines() -> None:
    assert blocks("a\n%%\n[[x]]\n\n[[y]]\n%%\nb\n") == [
        ("inline", [0, 1], "a"),
        ("obsidian_comment", [1, 6], "\n[[x]]\n\n[[y]]\n"),
        ("inline", [6, 7], "b"),
    ]


def test_block_comment_then_text_on_its_closing_line() -> None:
    assert blocks("%%\n[[x]]\n%% after [[y]]\n") == [
        ("obsidian_comment", [0, 2], "\n[[x]]\n"),
        ("inline", [2, 3], "after [[y]]"),
    ]
    assert inline("%%\n[[x]]\n%% after [[y]]\n") == [
        ("text", "after ", None),
        ("wikilink", "y", wiki("y")),
    ]


def test_unclosed_block_comment_runs_to_the_end() -> None:
    assert blocks("a\n\n%% [[x]]\n\n# [[y]]\n") == [
        ("inline", [0, 1], "a"),
        ("obsidian_comment", [2, 5], " [[x]]\n\n# [[y]]"),
    ]


def test_one_line_comment_stays_in_its_paragraph() -> None:
    assert blocks("%% note %%\ntext") == [("inline", [0, 2], "%% note %%\ntext")]


def test_front_matter_is_not_parsed() -> None:
    assert blocks("---\nup: '[[x]]'\n---\n[[y]]\n") == [
        ("front_matter", [0, 3], "up: '[[x]]'"),
        ("inline", [3, 4], "[[y]]"),
    ]


def test_render_defaults() -> None:
    assert MD.render("[[a#b|c<]] ![[i.png]] %% hidden %%\n\n%%\nhidden\n%%\n") == (
        '<p><a class="wikilink" href="a#b">c&lt;</a> '
        '<a class="wikiembed" href="i.png">i.png</a> </p>\n'
    )
