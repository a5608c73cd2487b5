"""The bulk planner (``tagger_batch``) finds exactly what ``find_occurrences`` finds, note by
note: on generated notes and dictionaries (hypothesis), and on hand-written cases where
the joined text could leak one note into the next."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.core.tagging.batch import (
    BatchMatcher,
    _longest_first,
    hashes,
    spans_plan_items,
    word_count,
)
from librarian_gui.core.tagging.matching import AliasMatcher, _resolve, find_occurrences

WORDS = ["memory", "agent", "vault", "graph", "link", "note", "ai", "rag", "tool", "plan"]
ODD = ["C++", "node.js", "記憶", "検索", "ΟΔΟΣ", "İstanbul", "café", "e-mail", "x", "über"]
IDS = ["memory", "agent-vault", "c1", "c2", "c3", "C3", "Memory"]
JOIN = [" ", " ", " ", "  ", "-", "\t", ", ", "\n", "\r\n", "\n\n", ""]


@st.composite
def dictionaries(draw: st.DrawFn) -> tuple[Concept, ...]:
    count = draw(st.integers(1, len(IDS)))
    concepts = []
    for cid in IDS[:count]:
        alias = st.one_of(
            st.sampled_from(WORDS),
            st.sampled_from(ODD),
            st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join),
            st.sampled_from(["AI", "RAG", "Rag", "MCP", cid, cid.upper(), "agent.vault"]),
        )
        aliases = draw(st.lists(alias, min_size=1, max_size=5))
        concepts.append(Concept(cid, tuple(aliases), "x"))
    return tuple(concepts)


def _word(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from(WORDS + ODD + IDS))
    style = draw(st.sampled_from(["lower", "title", "upper", "as is"]))
    return {"lower": word.lower(), "title": word.title(), "upper": word.upper()}.get(style, word)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Text with everything the tagger must step around, in any order."""
    parts = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(
            st.sampled_from(
                ["word"] * 8
                + ["join"] * 6
                + [
                    "heading",
                    "setext",
                    "fence",
                    "code",
                    "wiki",
                    "embed",
                    "md",
                    "url",
                    "mail",
                    "tag",
                    "html",
                    "front",
                    "table",
                    "bang",
                    "bracket",
                    "block",
                    "file",
                    "path",
                ]
            )
        )
        word = _word(draw)
        parts.append(
            {
                "word": word,
                "join": draw(st.sampled_from(JOIN)),
                "heading": f"\n## {word}\n",
                "setext": f"\n{word}\n---\n",
                "fence": f"\n```\n{word}\n```\n",
                "code": f"`{word}`",
                "wiki": draw(st.sampled_from(["[[", "[[[", "[[[[", "[[ "]))
                + draw(st.sampled_from(IDS + WORDS))
                + draw(st.sampled_from(["]]", "|x]]", " ]]"])),
                "embed": f"![[{word}]]",
                "md": f"[{word}](x.md)",
                "url": f"https://example.org/{word}",
                "mail": f"{word}@example.org",
                "tag": f"{draw(st.sampled_from([' ', '', '(', 'a', ';']))}#{word}",
                "html": f"<span title='{word}'>",
                "front": f"---\ntitle: {word}\n---\n",
                "table": f"\n| {word} | b |\n|---|---|\n| {word} | c |\n",
                "bang": f"!{word}",
                "bracket": f"[{word}]",
                "block": f"{word} ^{word[:3].lower() or 'x'}\n",
                "file": word
                + "."
                + draw(st.sampled_from(["md", "js", "PNG", " ", ".", "", "é", "2"])),
                "path": draw(st.sampled_from(["/", "\\", "~/", "a/"])) + word,
            }[kind]
        )
    return "".join(parts)


def _expected(texts_: list[str], rels: list[str], matcher: AliasMatcher, **kw: object):
    return [
        [(o.start, o.end, o.concept) for o in find_occurrences(t, matcher, source=r, **kw)]
        for t, r in zip(texts_, rels, strict=True)
    ]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(texts(), min_size=1, max_size=6),
    dictionaries(),
    st.booleans(),
    st.sampled_from([1, 40, 1 << 19]),
    st.sampled_from([8, 1 << 22]),
    st.data(),
)
def test_the_bulk_planner_finds_what_find_occurrences_finds(
    notes: list[str],
    concepts: tuple[Concept, ...],
    every: bool,
    chunk: int,
    huge: int,
    data: st.DataObject,
) -> None:
    rels = [data.draw(st.sampled_from(["n.md", "memory.md", "c1.md", "dir/c3.md"])) for _ in notes]
    matcher = AliasMatcher(concepts)
    batch = BatchMatcher(matcher)
    only = data.draw(st.none() | st.lists(st.sampled_from(IDS), max_size=3))
    got = batch.plan(notes, rels, all_mentions=every, only=only, chunk_chars=chunk, max_joined=huge)
    found = [spans_plan_items(spans, batch.ids) for spans in got]
    assert found == _expected(notes, rels, matcher, all_mentions=every, only=only)


def _plan(notes: list[str], concepts: list[Concept], every: bool = False) -> list:
    batch = BatchMatcher(AliasMatcher(concepts))
    rels = [f"n{i}.md" for i in range(len(notes))]
    return [spans_plan_items(s, batch.ids) for s in batch.plan(notes, rels, all_mentions=every)]


def test_an_underline_opening_a_note_makes_no_heading_of_the_note_before() -> None:
    # Joined, "agent" would sit on the line above "---"; alone it is the note's last line.
    concepts = [Concept("agent", ("agent",), "x")]
    assert _plan(["an agent", "---\nno front matter"], concepts) == [[(3, 8, "agent")], []]
    assert _plan(["an agent\n---\n"], concepts) == [[]]  # in one note it is a heading


def test_a_link_in_one_note_does_not_stop_the_first_mention_in_the_next() -> None:
    concepts = [Concept("agent", ("agent",), "x")]
    notes = ["see [[agent]] and agent", "agent here"]
    assert _plan(notes, concepts) == [[], [(0, 5, "agent")]]
    assert _plan(notes, concepts, every=True) == [[(18, 23, "agent")], [(0, 5, "agent")]]


def test_word_boundaries_at_the_edges_of_notes() -> None:
    concepts = [Concept("ai", ("AI",), "x"), Concept("rag", ("rag",), "x")]
    # Each note starts and ends on a word: the join must not glue "AI" to "rag".
    assert _plan(["AI", "rag", "xAI", "ragx", "AI."], concepts) == [
        [(0, 2, "ai")],
        [(0, 3, "rag")],
        [],
        [],
        [(0, 2, "ai")],
    ]


def test_overlapping_aliases_the_longest_then_the_leftmost() -> None:
    concepts = [
        Concept("c1", ("agent vault",), "x"),
        Concept("c2", ("vault graph",), "x"),
        Concept("c3", ("graph link note",), "x"),
    ]
    # Two of one length: the leftmost. Then "graph link note" is longer than both.
    assert _plan(["agent vault graph"], concepts) == [[(0, 11, "c1")]]
    assert _plan(["agent vault graph link note"], concepts) == [[(0, 11, "c1"), (12, 27, "c3")]]
    assert _plan(["vault graph link note"], concepts) == [[(6, 21, "c3")]]


def test_a_link_opens_at_an_even_count_of_brackets() -> None:
    # "[[[agent]]" is "[[" with an empty target, then "[agent]]": agent is not linked.
    concepts = [Concept("agent", ("agent",), "x")]
    assert _plan(["see [[[agent]] and agent"], concepts) == [[(19, 24, "agent")]]
    assert _plan(["see [[[[agent]] and agent"], concepts) == [[]]
    assert _plan(["see [[ Agent |x]] and agent"], concepts) == [[]]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12)), max_size=80, unique=True))
def test_overlaps_are_settled_as_the_note_by_note_tagger_settles_them(
    spans: list[tuple[int, int]],
) -> None:
    pairs = sorted({(start, start + size) for start, size in spans}, key=lambda p: (p[0], -p[1]))
    starts = np.array([p[0] for p in pairs], dtype=np.int64)
    ends = np.array([p[1] for p in pairs], dtype=np.int64)
    kept = [pairs[i] for i in _longest_first(starts, ends).tolist()]
    expected = [(s, e) for s, e, _ in _resolve([(s, e, "c") for s, e in pairs])]
    assert kept == expected


def test_a_long_chain_of_overlaps_is_settled_past_the_round_limit() -> None:
    # Each span overlaps the next by one: every round settles only the leftmost of the
    # chain, so 400 of them go past the round limit and finish one by one.
    pairs = [(3 * i, 3 * i + 4) for i in range(400)]
    starts = np.array([p[0] for p in pairs], dtype=np.int64)
    ends = np.array([p[1] for p in pairs], dtype=np.int64)
    kept = _longest_first(starts, ends).tolist()
    assert kept == list(range(0, 400, 2))


def _reference_hash(key: str) -> int:
    # The hash as its definition says, one character at a time, in Python's integers.
    base = 0x9E3779B97F4A7C15
    return sum(ord(char) * pow(base, i, 1 << 64) for i, char in enumerate(key)) % (1 << 64)


def test_hashes_by_hand() -> None:
    base = 0x9E3779B97F4A7C15
    assert hashes(["", "a", "ab"]).tolist() == [0, 97, (97 + 98 * base) % (1 << 64)]


@given(st.lists(st.text(max_size=40), max_size=30))
def test_hashes_are_the_polynomial_hash_of_each_key(keys: list[str]) -> None:
    assert hashes(keys).tolist() == [_reference_hash(key) for key in keys]


def test_word_count_counts_runs_of_letters_and_digits_of_spaced_scripts() -> None:
    assert [word_count(k) for k in ["", "ai", "agent vault", "c++ x", "記憶", "e-mail", "x 1"]] == [
        0,
        1,
        2,
        2,
        0,
        2,
        2,
    ]
