"""Passages: exact line ranges, headings, front matter skipped, code kept whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents import passages
from librarian_gui.core.agents.passages import Passage, split_passages
from librarian_gui.core.agents.tokens import estimate_tokens, tenths

NOTE = """---
tags: [x]
---
Intro line.

# Top
Short section.

## Code
```python
a = 1

# not a heading
```
"""


def test_sections_with_their_lines() -> None:
    assert split_passages("n.md", NOTE) == [
        Passage("n.md", (), 4, 4, "Intro line."),
        Passage("n.md", ("Top",), 6, 7, "# Top\nShort section."),
        Passage(
            "n.md",
            ("Top", "Code"),
            9,
            14,
            "## Code\n```python\na = 1\n\n# not a heading\n```",
        ),
    ]


def test_long_section_cut_into_paragraphs() -> None:
    # 80 words: 88 tokens; the "# Log" section (two of them, the heading, newlines) is
    # (2 + 1 + 80 + 1 + 80 + 1 + 2) × 1.1 → 184, past 160; "### Deep" with one, 94
    para = " ".join(["word"] * 80)
    text = f"# Log\n\n{para}\n\n{para}\nsecond line\n\n### Deep\n\n{para}\n"
    assert split_passages("log.md", text) == [
        Passage("log.md", ("Log",), 3, 3, para),
        Passage("log.md", ("Log",), 5, 6, f"{para}\nsecond line"),
        Passage("log.md", ("Log", "Deep"), 8, 10, f"### Deep\n\n{para}"),
    ]


def test_sibling_heading_replaces_deeper_ones() -> None:
    text = "# A\n## B\nb\n# C\nc\n"
    got = [(p.heading, p.first, p.last) for p in split_passages("x.md", text)]
    assert got == [(("A", "B"), 2, 3), (("C",), 4, 5)]


def test_crlf_and_bom() -> None:
    text = "\ufeffone\r\n\r\ntwo\r\n"
    # a short section (here: all before any heading) is one passage; "\r" is dropped
    assert split_passages("w.md", text) == [Passage("w.md", (), 1, 3, "one\n\ntwo")]


def test_long_paragraph_cut_at_lines_but_not_code() -> None:
    # 100 words: 110 tokens (+1 a line): three lines a piece (333), not four (444)
    line = " ".join(["word"] * 100)
    text = "\n".join([line] * 4) + "\n\n```\n" + "\n".join([line] * 4) + "\n```\n"
    got = split_passages("big.md", text)
    assert [(p.first, p.last) for p in got] == [(1, 3), (4, 4), (6, 11)]
    assert passages.PARAGRAPH_TOKENS == 400  # the figure the ranges above were worked with


_LINE = st.text(alphabet=st.sampled_from(list("ab Z9.,*'#`[]-\t中é")), max_size=120)


@given(st.lists(_LINE | st.sampled_from(["", "# H", "## Sub", "```", "- item."]), max_size=40))
def test_each_passage_knows_its_price_and_its_blocks_cost_what_they_print(
    lines: list[str],
) -> None:
    """A passage carries its text's price from the cut (each line priced once), and a
    pack's reservation for its block built from it is the block's own estimate."""
    from librarian_gui.core.agents.context import _passage_block, _passage_cost

    for p in split_passages("n.md", "\n".join(lines)):
        assert p.tenths == tenths(p.text)
        assert _passage_cost(p) == estimate_tokens(_passage_block(p, True))
