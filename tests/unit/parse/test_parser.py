"""The fast scanner on hand-written notes: every expected value below is counted by eye.

Wiki links are cases of ``fixtures/wiki_links.md`` (``test_wiki_links.py``)."""

from __future__ import annotations

import datetime as dt
import struct

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.parse.parser import parse_date_text, parse_note
from librarian_gui.core.parse.records import FileStamp, NoteRecord, encode_parsed, names_of_blob


def rows(text: str) -> list[tuple[object, ...]]:
    return [
        (lk.kind, lk.target, lk.fragment, lk.label, lk.line, lk.column)
        for lk in parse_note(text).links
    ]


def test_markdown_links() -> None:
    text = (
        '[one](notes/a.md) [two](<b c.md>) [three](d%20e.md#Sec "title") ![img](x.png)\n'
        "[web](https://example.org/a.md) [mail](mailto:a@b.c) [frag](#top) [proto](//host/x)\n"
    )
    assert rows(text) == [
        ("markdown", "notes/a.md", None, "one", 1, 0),
        ("markdown", "b c.md", None, "two", 1, 18),
        ("markdown", "d e.md", "Sec", "three", 1, 34),
        ("markdown", "x.png", None, "img", 1, 64),
    ]
    assert parse_note(text).links[3].embed is True


def test_front_matter_aliases_tags_date() -> None:
    # Its links are a case of fixtures/wiki_links.md.
    text = (
        "---\n"
        'aliases: [Alpha, "Beta gamma"]\n'
        'tags: [one, "#two"]\n'
        'up: "[[Parent]]"\n'
        "rel: ['[[A#h]]', \"[[B|bee]]\"]\n"
        "bare: [[NotALink]]\n"
        "date: 2024-03-05\n"
        "---\n"
        "Body [[x]] #three\n"
    )
    parsed = parse_note(text)
    assert parsed.aliases == ("Alpha", "Beta gamma")
    assert [t.name for t in parsed.tags] == ["one", "two", "three"]
    assert parsed.front_matter_date == dt.date(2024, 3, 5)
    assert parsed.warnings == ()


def test_alias_as_plain_string_and_tags_as_string() -> None:
    parsed = parse_note("---\naliases: Cam\ntags: a, b c\n---\n")
    assert parsed.aliases == ("Cam",)
    assert [t.name for t in parsed.tags] == ["a", "b", "c"]


def test_malformed_front_matter_warns_and_body_still_counts() -> None:
    parsed = parse_note("---\ntitle: [unclosed\n---\n[[x]]\n")
    assert parsed.warnings == (
        "front matter is not valid YAML at line 3, column 1: did not find expected ',' or ']'; "
        "properties ignored",
    )
    assert [(lk.target, lk.line) for lk in parsed.links] == [("x", 4)]


def test_front_matter_that_is_not_a_mapping() -> None:
    parsed = parse_note("---\n- a\n- b\n---\ntext\n")
    assert parsed.warnings == ("front matter is not a set of key: value properties; ignored",)


def test_crlf_and_bom_offsets_point_into_the_raw_text() -> None:
    text = '\ufeff---\r\nup: "[[P]]"\r\n---\r\nline [[A|b]]\r\n\r\n[m](c.md)\r\n'
    parsed = parse_note(text)
    assert [text[lk.start : lk.end] for lk in parsed.links] == ["[[P]]", "[[A|b]]", "[m](c.md)"]
    assert [(lk.line, lk.column) for lk in parsed.links] == [(2, 5), (4, 5), (6, 0)]


def test_tags() -> None:
    text = (
        "# Heading #intitle\n#start mid#no (#paren) #nested/tag/ #1984 #y1984 #a_1\n"
        "http://x.org/#frag `#code` [[#NotTag]]\n"
    )
    assert [(t.name, t.line) for t in parse_note(text).tags] == [
        ("intitle", 1),
        ("start", 2),
        ("paren", 2),
        ("nested/tag", 2),
        ("y1984", 2),
        ("a_1", 2),
    ]


def test_headings_and_block_ids() -> None:
    text = "# One\ntext ^abc-1\n\nTwo\n===\n## Three ##\n```\n# not\n```\nSub\n---\n"
    parsed = parse_note(text)
    assert [(h.level, h.text, h.line) for h in parsed.headings] == [
        (1, "One", 1),
        (1, "Two", 4),
        (2, "Three", 6),
        (2, "Sub", 10),
    ]
    assert parsed.block_ids == ("abc-1",)


def test_atx_closing_sequences() -> None:
    """A closing run of "#" goes when spaces come before it; otherwise it is text."""
    text = "## A ##  \n# B#\n### #\n#\tC \t#\t\r\n#  #\n####### no\n#x\n# D # E ##\r\n#\n"
    assert [(h.level, h.text, h.line) for h in parse_note(text).headings] == [
        (2, "A", 1),
        (1, "B#", 2),
        (3, "#", 3),
        (1, "C", 4),
        (1, "#", 5),
        (1, "D # E", 8),
        (1, "", 9),
    ]


def test_thematic_break_after_list_is_not_a_heading() -> None:
    assert parse_note("- item\n---\n").headings == ()


def test_dates_in_names() -> None:
    assert parse_date_text("diary/2024-02-29.md") == dt.date(2024, 2, 29)
    assert parse_date_text("journals/2021_05_14.md") == dt.date(2021, 5, 14)
    assert parse_date_text("20230102 standup.md") == dt.date(2023, 1, 2)
    assert parse_date_text("2023-07 review.md") == dt.date(2023, 7, 1)
    assert parse_date_text("2023-02-30.md") is None
    assert parse_date_text("v202401.md") is None
    assert parse_date_text("notes.md") is None


_word = st.text(alphabet="abc XY#|[]()!`%\\\n-*>^", max_size=40)


@given(st.lists(_word, max_size=12).map("".join))
def test_offsets_always_cover_the_link_text(text: str) -> None:
    """Whatever the input, the scanner never raises and each link's offsets frame it."""
    for link in parse_note(text).links:
        raw = text[link.start : link.end]
        assert raw.startswith(("[[", "![[", "[", "![")), raw
        assert raw.endswith(("]]", ")")), raw
        assert text.count("\n", 0, link.start) + 1 == link.line


def test_a_link_to_a_heading_of_the_same_note_is_no_tag() -> None:
    # foam-docs' tables of contents: [Install](#install-guide) is a link, not #install-guide
    text = "See [Install](#install-guide), [x](a.md#frag) and (#real) here.\n"
    assert [t.name for t in parse_note(text).tags] == ["real"]


def test_a_cached_record_gives_its_aliases_without_decoding_its_parse() -> None:
    parsed = parse_note("---\naliases: [Rose, Rosa]\n---\n# Roses\n[[soil]] and #garden\n")
    record = NoteRecord(
        "roses.md", FileStamp(1, 2, 3), dt.date(2026, 1, 1), "mtime", blob=encode_parsed(parsed)
    )
    assert record.aliases == ("Rose", "Rosa")
    assert record._parsed is None  # every question reads every alias: no whole parse kept
    assert record.parsed.aliases == ("Rose", "Rosa")
    assert record.aliases == ("Rose", "Rosa")


NAMES = st.sampled_from(["Rose", "Rosa", "東京", "naïve café", "a/b", "x y"])
TAGS = st.sampled_from(["garden", "garden/roses", "über", "t-1", "2026"])


@given(
    st.lists(NAMES, max_size=3),
    st.lists(TAGS, max_size=3),
    st.lists(TAGS, max_size=3),
    st.lists(st.sampled_from(["[[soil]]", "[[b#h|x]]", "![[img.png]]", "[m](c.md)"]), max_size=4),
)
def test_a_record_reads_its_names_and_links_from_the_parse_s_bytes_alone(
    aliases: list[str], front_tags: list[str], inline_tags: list[str], links: list[str]
) -> None:
    """Aliases, tag names and links as the parse has them, read from the bytes without
    decoding the whole parse; the names from their own part of the bytes (the parse cut
    off after it still gives them)."""
    text = (
        f"---\naliases: [{', '.join(repr(a) for a in aliases)}]\n"
        f"tags: [{', '.join(repr(t) for t in front_tags)}]\n---\n# N\n"
        + " ".join(links)
        + " "
        + " ".join(f"#{t}" for t in inline_tags)
        + "\n"
    )
    parsed = parse_note(text)
    blob = encode_parsed(parsed)
    record = NoteRecord("n.md", FileStamp(1, 2, 3), dt.date(2026, 1, 1), "mtime", blob=blob)
    assert record.aliases == parsed.aliases
    assert record.tag_names == tuple(tag.name for tag in parsed.tags)
    assert record.read_links() == parsed.links
    assert record._parsed is None
    assert record.parsed == parsed
    (size,) = struct.unpack_from("<I", blob)
    cut = blob[: 4 + size]
    assert names_of_blob(cut) == (parsed.aliases, tuple(tag.name for tag in parsed.tags))
