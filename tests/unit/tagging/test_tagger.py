"""The auto-tagger's matching rules (DESIGN §3), on hand-written notes with hand-written results."""

from __future__ import annotations

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.core.tagging.matching import AliasMatcher, apply_occurrences, find_occurrences

DICT = (
    Concept("prompt-injection", ("prompt injection", "injection", "提示注入"), "security"),
    Concept("ai", ("AI",), "field"),
    Concept("rag", ("RAG", "retrieval augmented generation"), "retrieval"),
    Concept("sandboxing", ("sandboxing", "sandbox"), "security"),
)


def tag(text: str, *, all_mentions: bool = False, concepts=DICT) -> str:
    matcher = AliasMatcher(concepts)
    return apply_occurrences(text, find_occurrences(text, matcher, all_mentions=all_mentions))


def test_first_mention_per_note_with_the_text_kept() -> None:
    text = "Prompt injection is old. A prompt injection again.\n"
    assert tag(text) == (
        "[[prompt-injection|Prompt injection]] is old. A prompt injection again.\n"
    )
    assert tag(text, all_mentions=True) == (
        "[[prompt-injection|Prompt injection]] is old. "
        "A [[prompt-injection|prompt injection]] again.\n"
    )


def test_a_mention_equal_to_the_id_becomes_a_bare_link() -> None:
    assert tag("We use sandboxing.\n") == "We use [[sandboxing]].\n"
    assert tag("We use Sandboxing.\n") == "We use [[sandboxing|Sandboxing]].\n"


def test_longest_alias_wins_where_aliases_overlap() -> None:
    concepts = (
        Concept("injection", ("injection",), "x"),
        Concept("prompt-injection", ("prompt injection",), "x"),
    )
    assert tag("a prompt injection here\n", concepts=concepts) == (
        "a [[prompt-injection|prompt injection]] here\n"
    )


def test_short_capital_aliases_match_only_as_written_on_word_boundaries() -> None:
    assert tag("ai and mia and Ai, then AI.\n") == "ai and mia and Ai, then [[ai|AI]].\n"
    assert tag("RAGS and xRAG\n") == "RAGS and xRAG\n"


def test_scripts_without_spaces_match_inside_a_run_of_text() -> None:
    assert tag("攻击者用提示注入绕过了规则。\n") == (
        "攻击者用[[prompt-injection|提示注入]]绕过了规则。\n"
    )
    assert tag("用RAG检索\n") == "用[[rag|RAG]]检索\n"


def test_never_in_code_front_matter_links_urls_html_or_headings() -> None:
    text = (
        "---\n"
        "title: prompt injection\n"
        "---\n"
        "# Prompt injection\n"
        "Sandbox\n"
        "=======\n"
        "`prompt injection` and\n"
        "```\nprompt injection\n```\n"
        "    prompt injection (indented code)\n"
        "\n"
        "[[notes|prompt injection]] [prompt injection](x.md) <b title='injection'>x</b>\n"
        "https://example.org/injection and #injection %% prompt injection %%\n"
        "<!-- prompt injection -->\n"
        "!injection [injection] then injection.\n"
    )
    expected = text.replace("then injection.", "then [[prompt-injection|injection]].")
    assert tag(text) == expected


def test_a_note_that_links_the_concept_already_gets_no_second_link() -> None:
    text = "See [[Prompt-Injection#Risks]]. Prompt injection again. RAG too.\n"
    assert tag(text) == "See [[Prompt-Injection#Risks]]. Prompt injection again. [[rag|RAG]] too.\n"


def test_a_table_row_gets_an_escaped_pipe() -> None:
    text = "| term | note |\n|---|---|\n| RAG | sandbox |\n\nRAG outside\n"
    assert tag(text, all_mentions=True) == (
        "| term | note |\n|---|---|\n| [[rag\\|RAG]] | [[sandboxing\\|sandbox]] |\n\n"
        "[[rag|RAG]] outside\n"
    )


def test_crlf_is_kept_and_positions_are_reported() -> None:
    text = "first line\r\nabout sandbox\r\n"
    matcher = AliasMatcher(DICT)
    (occ,) = find_occurrences(text, matcher)
    assert (occ.concept, occ.line, occ.column, occ.start, occ.end, occ.text) == (
        "sandboxing",
        2,
        6,
        18,
        25,
        "sandbox",
    )
    assert apply_occurrences(text, [occ]) == "first line\r\nabout [[sandboxing|sandbox]]\r\n"


def test_conflicting_alias_goes_to_the_first_concept_and_unusable_ones_are_skipped() -> None:
    concepts = (
        Concept("first", ("shared term",), "x"),
        Concept("second", ("shared term", "ok term"), "x"),
        Concept("bad|id", ("bad id",), "x"),
        Concept("third", ("a|b", " padded", "", "fine"), "x"),
    )
    matcher = AliasMatcher(concepts)
    assert matcher.concept_ids == ("first", "second", "third")
    text = "shared term, ok term, bad id, a|b, padded, fine\n"
    assert [(o.concept, o.text) for o in find_occurrences(text, matcher)] == [
        ("first", "shared term"),
        ("second", "ok term"),
        ("third", "fine"),
    ]


def test_a_second_run_changes_nothing() -> None:
    text = "RAG and sandboxing; then retrieval augmented generation and AI. AI again\n"
    once = tag(text, all_mentions=True)
    assert once == (
        "[[rag|RAG]] and [[sandboxing]]; then [[rag|retrieval augmented generation]] and "
        "[[ai|AI]]. [[ai|AI]] again\n"
    )
    assert tag(once, all_mentions=True) == once
    assert tag(tag(text)) == tag(text)


# ------------------------------------------------------------ a concept's note (DESIGN §2)

NOTES = {"rag": "research/Retrieval Notes.md"}


def _both(text: str, rel: str = "x.md", notes: dict[str, str] | None = NOTES) -> tuple[str, str]:
    """The note tagged one by one and by the bulk planner: the two must agree."""
    from librarian_gui.core.tagging.batch import BatchMatcher, spans_plan_items

    matcher = AliasMatcher(DICT, notes)
    one = apply_occurrences(text, find_occurrences(text, matcher, source=rel))
    batch = BatchMatcher(matcher)
    items = spans_plan_items(batch.plan([text], [rel])[0], batch.ids)
    out, at = [], 0
    for start, end, cid in items:
        out += [
            text[at:start],
            f"[[{cid}|{text[start:end]}]]" if text[start:end] != cid else f"[[{cid}]]",
        ]
        at = end
    return one, "".join(out) + text[at:]


def test_a_note_linking_the_concepts_note_has_the_concept_already() -> None:
    for link in (
        "[[Retrieval Notes]]",
        "[[research/Retrieval Notes|notes]]",
        "[[retrieval notes.md]]",
    ):
        text = f"See {link}. RAG again. Sandbox too.\n"
        expected = f"See {link}. RAG again. [[sandboxing|Sandbox]] too.\n"
        assert _both(text) == (expected, expected)
    # Without the concept's note, the same link is no link to rag.
    text = "See [[Retrieval Notes]]. RAG again.\n"
    tagged = "See [[Retrieval Notes]]. [[rag|RAG]] again.\n"
    assert _both(text, notes=None) == (tagged, tagged)


def test_a_concepts_note_is_never_tagged_with_its_own_concept() -> None:
    text = "RAG, done right. A sandbox.\n"
    expected = "RAG, done right. A [[sandboxing|sandbox]].\n"
    assert _both(text, rel="research/Retrieval Notes.md") == (expected, expected)


def test_a_link_in_the_front_matter_is_a_link_already() -> None:
    """The index counts a property's link (as Obsidian does): the tagger did not, and linked
    the concept a second time in the body."""
    text = '---\nrelated: "[[rag]]"\n---\nRAG again. Sandbox.\n'
    expected = '---\nrelated: "[[rag]]"\n---\nRAG again. [[sandboxing|Sandbox]].\n'
    assert _both(text, notes=None) == (expected, expected)
    # A YAML comment is no property: its link does not count.
    text = "---\n# [[rag]]\n---\nRAG again.\n"
    expected = "---\n# [[rag]]\n---\n[[rag|RAG]] again.\n"
    assert _both(text, notes=None) == (expected, expected)


def test_a_name_in_a_file_name_or_path_is_no_mention() -> None:
    """Issue 28: "MEMORY.md had 240 lines" became "[[MEMORY]].md had…". A name followed by
    an extension, or next to a path separator, is part of a file name."""
    concepts = (Concept("memory", ("MEMORY",), "x"), Concept("node", ("Node",), "x"))
    for text in (
        "By the end of October MEMORY.md had 240 lines.\n",
        "Node.js runs it.\n",
        "See notes/MEMORY for it.\n",
        "See MEMORY/old for it.\n",
        "A Windows path: C:\\vault\\MEMORY\n",
    ):
        assert tag(text, concepts=concepts) == text
    # The end of a sentence is no extension.
    assert tag("We trimmed MEMORY. Then Node, too.\n", concepts=concepts) == (
        "We trimmed [[memory|MEMORY]]. Then [[node|Node]], too.\n"
    )
