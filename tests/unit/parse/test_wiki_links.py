"""Wiki links as the scanner reads them, from the cases in ``fixtures/wiki_links.md``.

Each case there is written as mdit-py-plugins writes its fixtures: a title line, ``.``, the
note, ``.``, the expected links, ``.``. One expected line per link, in order:
``kind line:column target | fragment | label``, each part a JSON string, ``-`` when absent.
No line means the note holds no link. Every value there is worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file

from librarian_gui.core.parse.parser import parse_note, split_wiki
from librarian_gui.core.parse.records import Link

CASES = read_fixture_file(Path(__file__).parent / "fixtures" / "wiki_links.md")


def _part(value: str | None) -> str:
    return "-" if value is None else json.dumps(value, ensure_ascii=False)


def _row(link: Link) -> str:
    parts = " | ".join(_part(p) for p in (link.target, link.fragment, link.label))
    return f"{link.kind} {link.line}:{link.column} {parts}"


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), CASES, ids=[case[1] for case in CASES]
)
def test_wiki_links(line: int, title: str, text: str, expected: str) -> None:
    # A note need not end with a newline: without one it holds the same links.
    for note in (text, text.removesuffix("\n")):
        links = parse_note(note).links
        assert [_row(link) for link in links] == expected.splitlines()
        for link in links:
            # The one splitter, called on the link's own text, gives the parts the scanner
            # reported: also for plain [[Note]], which the scanner reads without it.
            raw = note[link.start : link.end]
            inner = raw[raw.index("[[") + 2 : -2]
            assert split_wiki(inner) == (link.target, link.fragment, link.label), raw


def _squeezed(text: str) -> str:
    return "".join(text.split())


@given(st.text(alphabet="ab #|\\^ \t") | st.text())
def test_split_wiki_parts_join_back_into_the_inner_text(inner: str) -> None:
    """Splitting never raises, and the parts joined with ``#`` and ``|`` give back the text
    but for the whitespace trimmed off target and fragment and the ``\\`` of an escaped
    first ``|``."""
    target, fragment, label = split_wiki(inner)
    assert "#" not in target and "|" not in target and target == target.strip()
    assert fragment is None or ("|" not in fragment and fragment == fragment.strip())
    joined = (
        target
        + ("" if fragment is None else "#" + fragment)
        + ("" if label is None else "|" + label)
    )
    head, bar, tail = inner.partition("|")
    if bar:
        head = head.removesuffix("\\")
    assert _squeezed(joined) == _squeezed(head + bar + tail)
