"""Full-text search: the query language, matching, ranking and snippets, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.search.search import (
    Clause,
    Query,
    SearchHit,
    Snippet,
    parse_query,
    search,
    snippets,
)
from librarian_gui.core.vault.textstore import TextStore
from tests.conftest import write

NOTES = {
    "Agent memory.md": (
        "# Agent memory\n\nThe agent keeps its memory in notes.\nSee [[Prompt injection]].\n"
    ),
    "Memory.md": "A short note.\nmemory once.\n",
    "research/recall.md": "memory memory memory memory memory\nagent\n",
    "projects/alpha.md": (
        "---\ntags: [project/alpha]\n---\nAlpha uses agent memory heavily.\n#status/active\n"
    ),
    "projects/beta.md": "Beta has #project tag.\nNothing else here.\n",
    "diary/2024-05-01.md": "今天讨论了提示注入的风险。\n",
    "notes/links.md": "Linking notes: links, linked, LINKS.\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[VaultIndex, TextStore]:
    root = tmp_path_factory.mktemp("search") / "vault"
    for rel, text in NOTES.items():
        write(root, rel, text, age=3600)
    index = VaultIndex.scan(root, use_cache=False)
    return index, TextStore(index.root)


def run(indexed: tuple[VaultIndex, TextStore], text: str, **kw: object) -> list[SearchHit]:
    index, store = indexed
    return search(index, store, text, **kw)  # type: ignore[arg-type]


def rels(hits: list[SearchHit]) -> list[str]:
    return [hit.rel for hit in hits]


# ---------------------------------------------------------------- the query language


def test_every_operator_parses_to_its_clause() -> None:
    q = parse_query(
        'agent "prompt injection" tag:#project PATH:Diary file:2024 -draft -"old stuff" -tag:x'
    )
    assert q.clauses == (
        Clause("term", "agent"),
        Clause("phrase", "prompt injection"),
        Clause("tag", "project"),
        Clause("path", "Diary"),
        Clause("file", "2024"),
        Clause("term", "draft", negated=True),
        Clause("phrase", "old stuff", negated=True),
        Clause("tag", "x", negated=True),
    )
    assert q.terms == ("agent",)
    assert q.phrases == ("prompt injection",)
    assert q.tags == ("project",)
    assert q.paths == ("Diary",)
    assert q.files == ("2024",)
    assert str(q) == (
        'agent "prompt injection" tag:project path:Diary file:2024 -draft -"old stuff" -tag:x'
    )


def test_an_operator_value_may_be_quoted() -> None:
    q = parse_query('path:"my folder" file:"a"')
    assert q.clauses == (Clause("path", "my folder"), Clause("file", "a"))
    assert str(q) == 'path:"my folder" file:a'


def test_unbalanced_quotes_are_plain_text() -> None:
    assert parse_query('"agent memory').terms == ('"agent', "memory")
    assert parse_query('agent "memory').terms == ("agent", '"memory')
    q = parse_query('say "a b" c"d')
    assert q.terms == ("say", 'c"d')
    assert q.phrases == ("a b",)
    assert parse_query('"quoted"rest').clauses == (
        Clause("phrase", "quoted"),
        Clause("term", "rest"),
    )


def test_empty_operators_and_lone_signs_are_plain_text() -> None:
    assert parse_query('tag: path:"" file: -tag:#').clauses == (
        Clause("term", "tag:"),
        Clause("term", 'path:""'),
        Clause("term", "file:"),
        Clause("term", "tag:#", negated=True),
    )
    assert parse_query('""').clauses == (Clause("term", '""'),)
    assert parse_query("a - --x").clauses == (
        Clause("term", "a"),
        Clause("term", "-"),
        Clause("term", "-x", negated=True),
    )
    assert parse_query(" \t\n ").empty
    assert parse_query("").clauses == ()


@given(st.text())
def test_parse_query_never_raises_and_its_text_parses_back_to_it(text: str) -> None:
    query = parse_query(text)
    assert parse_query(str(query)) == query


_WORD = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12)


@given(st.lists(_WORD, min_size=1, max_size=6))
def test_words_come_back_as_terms(words: list[str]) -> None:
    assert parse_query(" ".join(words)).terms == tuple(words)


@given(st.lists(st.text(st.characters(exclude_characters='"'), min_size=1), max_size=4))
def test_quoted_text_comes_back_as_phrases(phrases: list[str]) -> None:
    q = parse_query(" ".join(f'"{p}"' for p in phrases))
    assert q.phrases == tuple(phrases)
    assert q.terms == ()


# ---------------------------------------------------------------- matching and ranking


def test_title_matches_come_first_then_match_count(indexed: tuple[VaultIndex, TextStore]) -> None:
    hits = run(indexed, "memory")
    # Memory.md is the exact title; "Agent memory" holds it; then by occurrences.
    assert [(h.rel, h.score, h.match_count) for h in hits] == [
        ("Memory.md", 20001.0, 1),
        ("Agent memory.md", 10002.0, 2),
        ("research/recall.md", 5.0, 5),
        ("projects/alpha.md", 1.0, 1),
    ]
    assert rels(run(indexed, "memory", limit=2)) == ["Memory.md", "Agent memory.md"]


def test_every_word_must_match_in_the_text_or_the_title(
    indexed: tuple[VaultIndex, TextStore],
) -> None:
    hits = run(indexed, "agent memory")
    assert [(h.rel, h.score, h.match_count) for h in hits] == [
        ("Agent memory.md", 30004.0, 4),
        ("research/recall.md", 6.0, 6),
        ("projects/alpha.md", 2.0, 2),
    ]
    # Upper case finds the same; "projects/alpha.md" and "research/recall.md" tie (by path).
    assert rels(run(indexed, "AGENT")) == [
        "Agent memory.md",
        "projects/alpha.md",
        "research/recall.md",
    ]


def test_a_term_matches_inside_words(indexed: tuple[VaultIndex, TextStore]) -> None:
    [hit] = run(indexed, "link")
    assert (hit.rel, hit.match_count) == ("notes/links.md", 4)
    assert hit.snippets == (
        Snippet(1, "Linking notes: links, linked, LINKS.", ((0, 4), (15, 19), (22, 26), (30, 34))),
    )


def test_a_phrase_matches_only_as_written(indexed: tuple[VaultIndex, TextStore]) -> None:
    [hit] = run(indexed, '"memory in notes"')
    assert hit.rel == "Agent memory.md"
    assert hit.snippets == (Snippet(3, "The agent keeps its memory in notes.", ((20, 35),)),)
    assert run(indexed, '"notes in memory"') == []


def test_chinese_text_is_found_inside_a_longer_run(indexed: tuple[VaultIndex, TextStore]) -> None:
    [hit] = run(indexed, "提示注入")
    assert hit.rel == "diary/2024-05-01.md"
    assert hit.snippets == (Snippet(1, "今天讨论了提示注入的风险。", ((5, 9),)),)
    assert rels(run(indexed, "注入")) == ["diary/2024-05-01.md"]


def test_tags_from_front_matter_and_text_with_nesting(
    indexed: tuple[VaultIndex, TextStore],
) -> None:
    hits = run(indexed, "tag:project")
    assert rels(hits) == ["projects/alpha.md", "projects/beta.md"]  # project/alpha, #project
    assert [h.snippets for h in hits] == [
        (),  # only in front matter, which names it without "#"
        (Snippet(1, "Beta has #project tag.", ((9, 17),)),),
    ]
    assert rels(run(indexed, "tag:#project/alpha")) == ["projects/alpha.md"]
    assert rels(run(indexed, "tag:project/")) == ["projects/alpha.md", "projects/beta.md"]
    assert rels(run(indexed, "tag:STATUS")) == ["projects/alpha.md"]  # #status/active
    assert run(indexed, "tag:proj") == []  # a tag's prefix is not a parent tag
    assert rels(run(indexed, "agent -tag:project")) == ["Agent memory.md", "research/recall.md"]


def test_path_and_file_filters(indexed: tuple[VaultIndex, TextStore]) -> None:
    assert rels(run(indexed, "path:PROJECTS")) == ["projects/alpha.md", "projects/beta.md"]
    assert rels(run(indexed, "path:diary/")) == ["diary/2024-05-01.md"]
    assert rels(run(indexed, "file:alpha")) == ["projects/alpha.md"]
    assert run(indexed, "file:projects") == []  # the folder is not part of the file name
    assert rels(run(indexed, "agent -path:projects")) == [
        "Agent memory.md",
        "research/recall.md",
    ]


def test_negated_words_and_phrases(indexed: tuple[VaultIndex, TextStore]) -> None:
    assert rels(run(indexed, "memory -agent")) == ["Memory.md"]
    assert rels(run(indexed, 'agent -"in notes"')) == ["projects/alpha.md", "research/recall.md"]
    assert rels(run(indexed, "-memory")) == [
        "diary/2024-05-01.md",
        "notes/links.md",
        "projects/beta.md",
    ]


def test_odd_queries_search_for_their_literal_text(indexed: tuple[VaultIndex, TextStore]) -> None:
    assert run(indexed, "") == []
    assert run(indexed, "   ") == []
    assert run(indexed, '"') == []
    assert run(indexed, "tag:") == []
    # "-" alone is a character to find: in a title (a date) and in front matter fences.
    assert [(h.rel, h.score) for h in run(indexed, "-")] == [
        ("diary/2024-05-01.md", 10000.0),
        ("projects/alpha.md", 6.0),
    ]


@settings(max_examples=60)
@given(st.text(max_size=30))
def test_search_never_raises_on_any_query(indexed: tuple[VaultIndex, TextStore], text: str) -> None:
    for hit in run(indexed, text):
        assert len(hit.snippets) <= 3
        for snip in hit.snippets:
            assert all(0 <= a < b <= len(snip.text) for a, b in snip.highlights)


def test_cancelled_is_polled_between_notes(indexed: tuple[VaultIndex, TextStore]) -> None:
    polls = 0

    def after_three() -> bool:
        nonlocal polls
        polls += 1
        return polls > 3

    assert run(indexed, "memory", cancelled=after_three) == []
    assert polls == 4
    assert run(indexed, "memory", cancelled=lambda: True) == []
    assert len(run(indexed, "memory", cancelled=lambda: False)) == 4


def test_a_changed_note_is_searched_as_it_is_now(vault: Path) -> None:
    write(vault, "a.md", "nothing here\n", age=60)
    index = VaultIndex.scan(vault, use_cache=False)
    store = TextStore(index.root)
    assert search(index, store, "zebra") == []
    write(vault, "a.md", "now a zebra lives here\n", age=10)
    index.update([vault / "a.md"])
    [hit] = search(index, store, "zebra")
    assert hit.snippets == (Snippet(1, "now a zebra lives here", ((6, 11),)),)


# ---------------------------------------------------------------- snippets


def test_snippets_prefer_lines_with_more_words_and_show_them_in_file_order() -> None:
    text = "agent\nmemory\nagent memory\nagent\nmemory and agent\n"
    assert snippets(text, ("agent", "memory")) == (
        Snippet(1, "agent", ((0, 5),)),
        Snippet(3, "agent memory", ((0, 5), (6, 12))),
        Snippet(5, "memory and agent", ((0, 6), (11, 16))),
    )


def test_snippets_give_line_numbers_counting_front_matter(
    indexed: tuple[VaultIndex, TextStore],
) -> None:
    [hit] = run(indexed, "heavily")
    assert hit.snippets == (Snippet(4, "Alpha uses agent memory heavily.", ((24, 31),)),)


def test_overlapping_matches_make_one_highlight() -> None:
    assert snippets("an agent\n", ("age", "agent")) == (Snippet(1, "an agent", ((3, 8),)),)


def test_a_long_line_is_cut_around_its_first_match() -> None:
    line = "x" * 100 + " agent " + "y" * 300
    # 160 characters from 40 before the match (offset 101): 61 to 221, "…" both ends.
    assert snippets(line, ("agent",)) == (Snippet(1, "…" + line[61:221] + "…", ((41, 46),)),)
    tail = "x" * 100 + " agent " + "y" * 100  # 207 long: the window slides to the end
    assert snippets(tail, ("agent",)) == (Snippet(1, "…" + tail[47:], ((55, 60),)),)


def test_indentation_is_trimmed_and_offsets_follow() -> None:
    assert snippets("    - agent here  \r\n", ("agent",)) == (
        Snippet(1, "- agent here", ((2, 7),)),
    )


def test_offsets_stay_right_when_lowercasing_changes_length() -> None:
    # "İ" lowercases to two characters; the highlight must still cover "agent" as shown.
    assert snippets("İİ agent\n", ("agent",)) == (Snippet(1, "İİ agent", ((3, 8),)),)
    assert snippets("İstanbul\n", ("i\u0307stan",)) == (Snippet(1, "İstanbul", ((0, 5),)),)


def test_query_equality_is_by_clauses() -> None:
    assert parse_query("a  b") == Query((Clause("term", "a"), Clause("term", "b")))


def test_matches_rank_as_the_agents_search_ranks_them(tmp_path: Path) -> None:
    """Issue 27 (9): the window's search and the agents' are one ranking. Both notes hold
    "garden" and "water"; the long one says them 7 times among 200 other words, the short
    one 4 times in 7 words. By count the long one came first; by BM25 (k1 1.2, b 0.75,
    worked by hand: 2.36 × idf against 3.73 × idf) the short one does."""
    from librarian_gui.core.agents.search import note_relevance

    filler = " ".join(f"word{n}" for n in range(200))
    write(tmp_path, "long.md", f"garden {filler} water water water water water water\n")
    write(tmp_path, "short.md", "The garden needs water. Water the garden.\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    store = TextStore(index.root)

    def text_of(rel: str) -> str | None:
        return store.get(rel, index.notes[rel].stamp)

    def relevance(paths: list[str], words: str) -> dict[str, float]:
        return note_relevance(index, text_of, paths, words)

    assert rels(search(index, store, "garden water")) == ["long.md", "short.md"]
    assert rels(search(index, store, "garden water", relevance=relevance)) == [
        "short.md",
        "long.md",
    ]
    # A title holding the words still comes first, whatever the text.
    write(tmp_path, "Garden water.md", "Nothing else.\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    store = TextStore(index.root)
    assert rels(search(index, store, "garden water", relevance=relevance))[0] == "Garden water.md"
