"""The note preview renderer: exact HTML for each Markdown and Obsidian feature, no Qt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import node_kind
from librarian_gui.core.render.mdplugins import (
    callout_plugin,
    highlight_plugin,
    make_markdown,
    tasklist_plugin,
)
from librarian_gui.core.render.render import RenderedNote, heading_anchor, render_note
from librarian_gui.resources import preview_css
from tests.conftest import write

NOTES = {
    "folder/My Note.md": "# My Note\n\nIntro.\n\n## Some Heading\n\nSection text. ^para-1\n\n"
    "### Deeper\n\nStill in it.\n\n## Next\n\nNot in it.\n",
    "Café.md": "Accents.",
    "Self.md": "Before.\n\n![[Self]]\n",
    "A.md": "In A.\n\n![[B]]\n",
    "B.md": "In B.\n\n![[C]]\n",
    "C.md": "In C.\n\n![[D]]\n",
    "D.md": "In D.\n",
    "Ping.md": "Ping.\n\n![[Pong]]\n",
    "Pong.md": "Pong.\n\n![[Ping]]\n",
    "Props.md": "---\ntags: [x]\n---\nBody of Props.\n",
    "Toc.md": "## Part\n\nSee [[#Part]] and [up](#Part).\n",
}
ATTACHMENTS = {"attachments/pic.png", "attachments/report.pdf"}
CONCEPTS = {"prompt-injection"}


def resolve(markdown: bool, target: str, source: str) -> str:
    """A small stand-in for the index's resolver: exact path, else file name, else concept."""
    lower = target.strip().lower()
    if markdown:
        folder = source.rsplit("/", 1)[0] + "/" if "/" in source else ""
        lower = (folder + lower).lower() if not lower.startswith("/") else lower[1:]
    for path in (*NOTES, *ATTACHMENTS):
        p = path.lower()
        if lower in (p, p.removesuffix(".md")):
            return path
        if not markdown and lower in (p.rsplit("/", 1)[-1], p.rsplit("/", 1)[-1][:-3]):
            return path
    base = lower.removesuffix(".md")
    return f"//concept/{base}" if base in CONCEPTS else f"//unresolved/{base}"


def kind(node: str) -> str:
    if node.startswith("//concept/"):
        return "concept"
    if node.startswith("//unresolved/"):
        return "unresolved"
    return "note" if node in NOTES else "attachment"


def render(text: str, source: str = "Here.md", **kw: object) -> RenderedNote:
    return render_note(
        text,
        source=source,
        resolve=resolve,
        node_exists=kind,
        read_note=NOTES.get,
        **kw,  # type: ignore[arg-type]
    )


def body(text: str, source: str = "Here.md", **kw: object) -> str:
    """The HTML between <body> and </body>."""
    html = render(text, source, **kw).html
    return html.split("<body>\n", 1)[1].removesuffix("</body></html>")


# ---------------------------------------------------------------- links


def test_wiki_link_to_a_note_puts_the_path_in_the_url_path() -> None:
    assert body("[[My Note]]") == (
        '<p style="-qt-user-state: 1"><a href="note:///folder/My%20Note.md" class="internal" '
        'title="folder/My Note.md">My Note</a></p>\n'
    )


def test_wiki_link_with_heading_and_label() -> None:
    assert body("[[My Note#Some Heading|see there]]") == (
        '<p style="-qt-user-state: 1"><a href="note:///folder/My%20Note.md#some-heading" '
        'class="internal" title="folder/My Note.md">see there</a></p>\n'
    )


def test_wiki_link_without_label_shows_target_and_heading() -> None:
    assert ">My Note &gt; Some Heading</a>" in body("[[My Note#Some Heading]]")


def test_non_ascii_note_name_is_percent_encoded_in_the_path() -> None:
    assert 'href="note:///Caf%C3%A9.md"' in body("[[Café]]")


def test_unresolved_wiki_link_is_a_dotted_ghost_with_a_tooltip() -> None:
    assert body("[[Missing Idea]]") == (
        '<p style="-qt-user-state: 1"><a href="ghost:///Missing%20Idea" class="ghost" '
        'style="text-underline-style: dotted" '
        'title="Unresolved link: no note or concept named “Missing Idea”">Missing Idea</a></p>\n'
    )


def test_concept_link() -> None:
    assert body("[[prompt-injection|injection]]") == (
        '<p style="-qt-user-state: 1"><a href="concept:///prompt-injection" class="concept" '
        'title="Concept: prompt-injection">injection</a></p>\n'
    )


def test_markdown_link_with_percent_20_and_heading() -> None:
    assert body("[there](folder/My%20Note.md#Some%20Heading)") == (
        '<p style="-qt-user-state: 1"><a href="note:///folder/My%20Note.md#some-heading" '
        'class="internal" title="folder/My Note.md">there</a></p>\n'
    )


def test_markdown_link_in_angle_brackets() -> None:
    assert 'href="note:///folder/My%20Note.md"' in body("[x](<folder/My Note.md>)")


def test_unresolved_markdown_link_says_no_file() -> None:
    assert body("[x](nowhere/file.md)") == (
        '<p style="-qt-user-state: 1"><a href="ghost:///nowhere/file.md" class="ghost" '
        'style="text-underline-style: dotted" '
        'title="Unresolved link: no file at “nowhere/file.md”">x</a></p>\n'
    )


def test_markdown_link_outside_the_vault_is_a_ghost() -> None:
    html = body("[x](../../etc/passwd)")
    assert 'href="ghost:///../../etc/passwd" class="ghost"' in html
    assert "note:///" not in html


def test_external_links_stay_as_written() -> None:
    assert body("[site](https://example.com/a?b=1&c=2) <me@example.com>") == (
        '<p style="-qt-user-state: 1"><a href="https://example.com/a?b=1&amp;c=2" class="external" '
        'title="https://example.com/a?b=1&amp;c=2">site</a> '
        '<a href="mailto:me@example.com" class="external" title="mailto:me@example.com">'
        "me@example.com</a></p>\n"
    )


def test_javascript_link_is_not_a_link() -> None:
    assert (
        body("[x](javascript:alert(1))")
        == '<p style="-qt-user-state: 1">[x](javascript:alert(1))</p>\n'
    )


def test_same_note_links_are_fragments() -> None:
    html = body("# Top Part\n\n[[#Top Part]] and [up](#Top%20Part)")
    assert '<a href="#top-part" class="internal">Top Part</a>' in html
    assert '<a href="#top-part" class="internal">up</a>' in html


def test_link_to_this_note_by_name_with_heading_scrolls_in_place() -> None:
    html = body("[[My Note#Next]]", source="folder/My Note.md")
    assert '<a href="#next" class="internal">My Note &gt; Next</a>' in html


def test_attachment_link_uses_note_scheme() -> None:
    assert 'href="note:///attachments/report.pdf" class="internal"' in body("[[report.pdf]]")


# ---------------------------------------------------------------- headings and anchors


def test_heading_gets_slug_and_line_anchors() -> None:
    assert body("# Hello, World!") == (
        '<h1 style="-qt-user-state: 1"><a name="hello-world"></a>Hello, World!</h1>\n'
    )


def test_repeated_headings_get_numbered_anchors_and_an_outline() -> None:
    note = render("# Plan\n\n## Steps\n\ntext\n\n## Steps\n\n### `code` *and* [[My Note]]\n")
    assert note.headings == (
        (1, "Plan", "plan"),
        (2, "Steps", "steps"),
        (2, "Steps", "steps-1"),
        (3, "code and My Note", "code-and-my-note"),
    )
    assert '<h2 style="-qt-user-state: 7"><a name="steps-1"></a>Steps</h2>' in note.html


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("Some Heading", "some-heading"),
        ("  Trailing  spaces ", "trailing-spaces"),
        ("Über große Dinge", "über-große-dinge"),
        ("a - b -- c", "a-b-c"),
        ("?!", "section"),
    ],
)
def test_heading_anchor(text: str, anchor: str) -> None:
    assert heading_anchor(text) == anchor


def test_every_block_is_marked_with_its_source_line() -> None:
    text = "para\n\n- one\n- two\n\n> quoted\n\n```\ncode\n```\n\n| a |\n|---|\n| 1 |\n\n"
    html = body(text + "<div>\nx\n</div>\n")
    lines = [int(n) for n in re.findall(r'style="-qt-user-state: (\d+)"', html)]
    assert lines == [1, 3, 4, 6, 8, 12, 14, 16]


def test_block_id_becomes_an_anchor_and_leaves_the_text() -> None:
    assert (
        body("A claim. ^claim-1")
        == '<p style="-qt-user-state: 1"><a name="^claim-1"></a>A claim.</p>\n'
    )


def test_title_is_the_file_stem() -> None:
    assert render("x", source="folder/My Note.md").title == "My Note"


# ---------------------------------------------------------------- Markdown features


def test_task_list_shows_ballot_boxes() -> None:
    assert body("- [ ] todo\n- [x] done\n") == (
        '<ul class="tasks">\n'
        '<li style="-qt-user-state: 1"><span class="task">☐</span> todo\n</li>\n'
        '<li class="done" style="-qt-user-state: 2"><span class="task">☑</span> done\n</li>\n'
        "</ul>\n"
    )


def test_mixed_list_keeps_its_bullets() -> None:
    html = body("- [ ] todo\n- plain\n")
    assert html.startswith("<ul>\n") and '<span class="task">☐</span> todo' in html


def test_list_whose_last_item_nests_a_list_gets_a_spacer() -> None:
    assert body("1. a\n2. b\n   - c\n") == (
        '<ol class="open-end">\n<li style="-qt-user-state: 1">a\n</li>\n'
        '<li style="-qt-user-state: 2">b\n'
        '<ul>\n<li style="-qt-user-state: 3">c\n</li>\n</ul>\n</li>\n</ol>\n'
        '<p class="spacer">&nbsp;</p>\n'
    )


def test_callout_is_a_box_with_its_title() -> None:
    assert body("> [!warning] Mind the *gap*\n> Body text.\n") == (
        '<table class="callout callout-warning" width="100%" cellspacing="0" cellpadding="0">'
        '<tr><td class="bar" width="4"></td><td class="body">\n'
        '<p class="callout-title" style="-qt-user-state: 1">⚠ Mind the <em>gap</em></p>\n'
        '<p style="-qt-user-state: 2">Body text.</p>\n'
        "</td></tr></table>\n"
    )


@pytest.mark.parametrize(
    ("text", "family", "title"),
    [
        ("> [!TIP]\n> x", "tip", "✦ Tip"),
        ("> [!caution]- Folded\n> x", "warning", "⚠ Folded"),
        ("> [!danger] D\n> x", "danger", "✖ D"),
        ("> [!info]\n> x", "info", "ℹ Info"),
        ("> [!quote] Ada\n> x", "quote", "❝ Ada"),
        ("> [!note]\n> x", "note", "✎ Note"),
        ("> [!whatever] Odd\n> x", "note", "✎ Odd"),
    ],
)
def test_callout_types(text: str, family: str, title: str) -> None:
    html = body(text)
    assert f'class="callout callout-{family}"' in html
    assert f'<p class="callout-title" style="-qt-user-state: 1">{title}</p>' in html


def test_callout_with_only_a_title() -> None:
    html = body("> [!info] Heads up\n")
    assert '<p class="callout-title" style="-qt-user-state: 1">ℹ Heads up</p>\n</td>' in html


def test_plain_blockquote_is_a_barred_box() -> None:
    assert body("> said\n") == (
        '<table class="quote" width="100%" cellspacing="0" cellpadding="0">'
        '<tr><td class="bar" width="3"></td><td class="body">\n'
        '<p style="-qt-user-state: 1">said</p>\n</td></tr></table>\n'
    )


def test_highlight_and_strikethrough() -> None:
    assert body("==marked== ~~gone~~ a == b") == (
        '<p style="-qt-user-state: 1"><span class="hl">marked</span> <s>gone</s> a == b</p>\n'
    )


def test_footnote_reference_and_list() -> None:
    assert body("Claim.[^1]\n\n[^1]: Source.\n") == (
        '<p style="-qt-user-state: 1">Claim.'
        '<a name="fnref1"></a><sup><a href="#fn1">[1]</a></sup></p>\n'
        '<hr>\n<ol class="footnotes">\n'
        '<li><a name="fn1"></a><p style="-qt-user-state: 3">Source. '
        '<a href="#fnref1" title="Back to the text">↩</a></p>\n'
        "</li>\n</ol>\n"
    )


def test_front_matter_is_a_properties_table() -> None:
    text = '---\ntags: [a, b]\nup: "[[My Note]]"\ndate: 2026-10-14\ndraft: true\nnone:\n---\nBody\n'
    assert body(text) == (
        '<table class="props" cellspacing="0" cellpadding="4">'
        '<tr><td class="key" style="-qt-user-state: 1">tags</td><td>a, b</td></tr>'
        '<tr><td class="key">up</td><td><a href="note:///folder/My%20Note.md" class="internal" '
        'title="folder/My Note.md">My Note</a></td></tr>'
        '<tr><td class="key">date</td><td>2026-10-14</td></tr>'
        '<tr><td class="key">draft</td><td>true</td></tr>'
        '<tr><td class="key">none</td><td></td></tr></table>\n'
        '<p style="-qt-user-state: 8">Body</p>\n'
    )


def test_malformed_front_matter_is_shown_with_a_notice() -> None:
    html = body("---\na: [unclosed\n---\nBody\n")
    assert "Front matter is not valid YAML" in html
    assert '<pre class="raw-html">a: [unclosed</pre>' in html
    assert '<p style="-qt-user-state: 4">Body</p>' in html


def test_code_block_is_highlighted_with_inline_styles() -> None:
    assert body("```python\ndef f(): pass\n```\n") == (
        '<table class="code" width="100%" cellspacing="0" cellpadding="10"><tr><td class="code">'
        '<pre style="-qt-user-state: 1"><span style="color: #008000; font-weight: bold">def</span>'
        '<span style="color: #BBB"> </span><span style="color: #00F">f</span>(): '
        '<span style="color: #008000; font-weight: bold">pass</span></pre></td></tr></table>\n'
    )


def test_code_block_in_an_unknown_language_is_escaped_text() -> None:
    assert '<pre style="-qt-user-state: 1">a &lt;b&gt; &amp; c</pre>' in body(
        "```nolang\na <b> & c\n```"
    )


def test_dark_theme_uses_its_css_and_code_style() -> None:
    html = render("```python\ndef f(): pass\n```\n", dark=True).html
    assert "background-color: #1e1f22" in html
    assert '<span style="color: #C678DD">def</span>' in html


def test_table_has_borders_and_cell_alignment() -> None:
    assert body("| a | b |\n|:--|--:|\n| 1 | 2 |\n") == (
        '<table class="md" border="1" cellspacing="0" cellpadding="6">\n<thead>\n<tr>\n'
        '<th align="left" style="-qt-user-state: 1">a</th>\n'
        '<th align="right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n'
        '<td align="left" style="-qt-user-state: 3">1</td>\n<td align="right">2</td>\n'
        "</tr>\n</tbody>\n</table>\n"
    )


def test_preview_css_styles_table_borders_in_both_themes() -> None:
    for dark in (False, True):
        css = preview_css(dark)
        assert "table.md th, table.md td { border-width: 1px; border-style: solid;" in css


# ---------------------------------------------------------------- raw HTML


def test_script_is_shown_as_text() -> None:
    assert body("x <script>alert(1)</script> y") == (
        '<p style="-qt-user-state: 1">x &lt;script&gt;alert(1)&lt;/script&gt; y</p>\n'
    )


def test_an_html_block_is_rendered_with_nothing_that_runs_or_loads() -> None:
    assert body('<img src="https://tracker.example/p.png" onerror="alert(1)">\n') == (
        '<div class="html-block" style="-qt-user-state: 1">'
        '<span class="image-alt">[image]</span></div>\n'
    )
    block = (
        '<div class="website-only" onclick="x()">\n'
        '<a href="https://github.com/foam" data-icon="star">Star</a>\n'
        '<a href="javascript:alert(1)">js</a> <a href="other.md">rel</a>\n'
        '<script>alert(1)</script><style>p {}</style><iframe src="https://x"></iframe>\n'
        '<table><tr><td align="center" width="14%"><img src="https://a/b.png" alt="Jani"/>'
        "<br /><sub><b>Jani</b></sub></td></tr></table>\n"
        "</div>\n"
    )
    assert body(block) == (
        '<div class="html-block" style="-qt-user-state: 1"><div>\n'
        '<a href="https://github.com/foam" class="external">Star</a>\n'
        '<a class="external">js</a> <a class="external">rel</a>\n\n'
        '<table><tbody><tr><td align="center"><span class="image-alt">[Jani]</span>'
        "<br><sub><b>Jani</b></sub></td></tr></tbody></table>\n"
        "</div></div>\n"
    )


def test_simple_closed_inline_tags_are_kept_and_others_escaped() -> None:
    assert body("<b>bold</b> <kbd>K</kbd> <mark>m</mark> <i>open <span style=x>s</span>") == (
        '<p style="-qt-user-state: 1"><b>bold</b> <kbd>K</kbd> <span class="hl">m</span> '
        "&lt;i&gt;open &lt;span style=x&gt;s&lt;/span&gt;</p>\n"
    )


def test_html_comments_are_hidden() -> None:
    assert (
        body("a <!-- hidden --> b\n\n<!--\nblock\n-->\n")
        == '<p style="-qt-user-state: 1">a  b</p>\n'
    )


# ---------------------------------------------------------------- images and embeds


def test_remote_image_is_a_link_not_an_image() -> None:
    html = body("![chart](https://example.com/chart.png)")
    assert "<img" not in html
    assert (
        '<a href="https://example.com/chart.png" class="external" '
        'title="Remote image, not loaded: https://example.com/chart.png">chart</a>'
    ) in html


def test_local_image_resolves_inside_the_vault() -> None:
    assert body("![a pic](attachments/pic.png)") == (
        '<p class="media" style="-qt-user-state: 1">'
        '<img src="note:///attachments/pic.png" alt="a pic" title="a pic"></p>\n'
    )


def test_image_outside_the_vault_is_not_loaded() -> None:
    html = body("![x](../../etc/secret.png) ![y](file:///etc/secret.png)")
    assert "<img" not in html


def test_image_embed_with_width() -> None:
    assert body("![[pic.png|300]]") == (
        '<p class="media"><img src="note:///attachments/pic.png" alt="pic.png" '
        'title="pic.png" width="300"></p>\n'
    )


def test_note_embed_is_a_box_with_its_title() -> None:
    note = render("![[Props]]")
    assert note.html.split("<body>\n")[1].removesuffix("</body></html>") == (
        '<table class="embed" width="100%" cellspacing="0" cellpadding="0"><tr><td class="body">\n'
        '<p class="embed-title"><a href="note:///Props.md" class="internal" title="Props.md">'
        "Props</a></p>\n<p>Body of Props.</p>\n</td></tr></table>\n"
    )
    assert note.embeds == ("Props.md",)


def test_heading_embed_shows_that_section_only() -> None:
    html = body("![[My Note#Some Heading]]")
    assert "<h2>Some Heading</h2>\n<p>Section text.</p>\n<h3>Deeper</h3>\n<p>Still in it.</p>" in (
        html
    )
    assert "Not in it" not in html and "Intro" not in html


def test_block_embed_shows_that_paragraph() -> None:
    html = body("![[My Note#^para-1]]")
    assert "<p>Section text.</p>\n</td>" in html and "Intro" not in html


def test_missing_section_says_so() -> None:
    assert "No “Nowhere” in this note." in body("![[My Note#Nowhere]]")


def test_embeds_nest_two_levels_then_stop() -> None:
    note = render("![[A]]")
    assert "<p>In A.</p>" in note.html and "<p>In B.</p>" in note.html
    assert "<p>In C.</p>" not in note.html
    assert "Embeds nest deeper than 2 levels here" in note.html
    assert note.embeds == ("A.md", "B.md", "C.md")


def test_a_note_embedding_itself_shows_a_notice() -> None:
    html = render("Before.\n\n![[Self]]\n", source="Self.md").html
    assert html.count('<table class="embed"') == 1
    assert "This note embeds itself: not shown again, to avoid a loop." in html


def test_embed_cycle_between_two_notes_stops() -> None:
    html = render(NOTES["Ping.md"], source="Ping.md").html
    assert html.count("<p>Pong.</p>") == 1
    assert "This note embeds itself" in html


def test_embed_in_a_sentence_is_a_link() -> None:
    assert body("see ![[Props]] here") == (
        '<p style="-qt-user-state: 1">see <a href="note:///Props.md" class="internal" '
        'title="Props.md">Props</a> here</p>\n'
    )


def test_embedded_notes_have_no_line_anchors_and_no_front_matter() -> None:
    html = body("![[Props]]")
    assert "-qt-user-state" not in html and "tags" not in html


def test_same_note_links_inside_an_embed_open_the_embedded_note() -> None:
    html = body("![[Toc]]")
    assert html.count('<a href="note:///Toc.md#part" class="internal" title="Toc.md">') == 2


def test_unresolved_embed_is_a_ghost_link() -> None:
    assert body("![[Nothing Here]]") == (
        '<p><a href="ghost:///Nothing%20Here" class="ghost" style="text-underline-style: dotted" '
        'title="Unresolved link: no note or concept named “Nothing Here”">Nothing Here</a></p>\n'
    )


def test_unreadable_embed_says_so() -> None:
    html = render_note(
        "![[Props]]", source="x.md", resolve=resolve, node_exists=kind, read_note=lambda _: None
    ).html
    assert '<p class="embed-note">This note could not be read.</p>' in html


# ---------------------------------------------------------------- size


def test_large_note_is_truncated_at_a_line_end_with_a_notice() -> None:
    text = "".join(f"line {i}\n\n" for i in range(100))
    note = render(text, max_chars=50)
    assert note.truncated
    notice = (
        '<table class="notice" width="100%" cellspacing="0" cellpadding="8"><tr><td>'
        "This note is too large to preview in full: showing the first 47 of 890 characters. "
        "Open it in an editor to see the rest.</td></tr></table>\n"
    )
    assert note.html.count(notice) == 2
    assert "line 5" in note.html and "line 6" not in note.html


def test_small_note_is_not_truncated() -> None:
    note = render("short")
    assert not note.truncated and "too large" not in note.html


# ---------------------------------------------------------------- robustness


# Pieces of Markdown and Obsidian syntax, so random text often forms real constructs.
MARKDOWNISH = st.lists(
    st.sampled_from(
        [*"ab #*_`~=![]()|^%<>/-:\\\n\t>x1.", "[[", "]]", "```", "> [!", "---\n", "- [ ] ", "![["]
    ),
    max_size=80,
).map("".join)


@given(st.one_of(st.text(max_size=300), MARKDOWNISH))
def test_rendering_arbitrary_text_never_raises(text: str) -> None:
    note = render(text)
    assert note.html.startswith("<html>") and note.html.endswith("</body></html>")
    assert "<script" not in note.html


# ---------------------------------------------------------------- plugins


def test_plugins_produce_tokens_with_meta() -> None:
    md = make_markdown()
    highlight_plugin(md)
    callout_plugin(md)
    tasklist_plugin(md)
    tokens = md.parse("> [!tip]+ Title here\n> body\n\n- [x] done\n\n==hi==\n")
    callout = next(t for t in tokens if t.type == "callout_open")
    assert callout.meta == {"kind": "tip", "title": "Title here", "fold": "+"}
    item = next(t for t in tokens if t.type == "list_item_open")
    assert item.meta == {"task": "x"}
    inline = [t for t in tokens if t.type == "inline"][-1]
    assert [c.type for c in inline.children or []] == ["mark_open", "text", "mark_close"]
    assert md.render("==a== - [ ] b") == "<p><mark>a</mark> - [ ] b</p>\n"


# ---------------------------------------------------------------- with a real index


def test_renders_against_a_real_index(vault: Path) -> None:
    write(vault, "notes/Target Note.md", "# Target\n\n## Part two\n\ntext\n")
    write(vault, "notes/Source.md", "x")
    write(vault, "img/diagram.png", b"\x89PNG\r\n")
    index = VaultIndex.scan(vault, use_cache=False)
    note = render_note(
        "[[Target Note#Part two]] [[nothing]] [rel](Target%20Note.md) ![[diagram.png]]",
        source="notes/Source.md",
        resolve=index.resolver.resolve_target,
        node_exists=lambda node: node_kind(index, node),
        read_note=lambda rel: (vault / rel).read_text(encoding="utf-8"),
    )
    assert 'href="note:///notes/Target%20Note.md#part-two"' in note.html
    assert 'href="ghost:///nothing"' in note.html
    assert 'href="note:///notes/Target%20Note.md" class="internal"' in note.html
    assert '<img src="note:///img/diagram.png"' in note.html


# ---------------------------------------------------------------- hostile text


def test_a_long_word_gets_a_break_every_100_characters_outside_code() -> None:
    word = "ab" * 300  # 600 characters without a space
    pieces = "\u200b".join(word[at : at + 100] for at in range(0, 600, 100))
    assert body(word) == f'<p style="-qt-user-state: 1">{pieces}</p>\n'
    assert word in body(f"```\n{word}\n```")  # a code block keeps its text as written
    short = "x" * 499
    assert body(short) == f'<p style="-qt-user-state: 1">{short}</p>\n'


def test_a_link_text_over_300_characters_is_cut_and_says_its_length() -> None:
    target = "y" * 1000
    html = body(f"[[{target}]]")
    assert f'href="ghost:///{target}"' in html  # it still leads where it was written
    assert f">{'y' * 300}… (1,000 characters)</a>" in html  # 301 characters: no breaks


def test_a_line_of_unclosed_brackets_renders_as_text_with_its_one_link() -> None:
    html = body("[[" * 20_000 + " [[My Note]]")
    assert html.count("[[") >= 19_000
    assert '<a href="note:///folder/My%20Note.md" class="internal"' in html


def test_a_huge_note_of_one_long_line_is_cut_at_the_limit_not_after_its_heading() -> None:
    html = render("# Head\n" + "word " * 1000, max_chars=2000).html
    assert "showing the first 2,000 of 5,007 characters" in html
    html = render("line\n" * 1000, max_chars=2002).html  # a line end near the limit: there
    assert "showing the first 1,999 of 5,000 characters" in html


def test_bare_urls_with_a_scheme_are_links_and_nothing_else_is() -> None:
    html = body(
        "See https://example.org/a?b=1, `https://in.code/x`, notes.md and www.example.org; "
        "mail a@b.org.\n"
    )
    assert html == (
        '<p style="-qt-user-state: 1">See <a href="https://example.org/a?b=1" class="external" '
        'title="https://example.org/a?b=1">https://example.org/a?b=1</a>, '
        "<code>https://in.code/x</code>, notes.md and www.example.org; mail a@b.org.</p>\n"
    )
