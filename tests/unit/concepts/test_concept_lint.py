"""The concept dictionary's linter: each rule on hand-made concepts, and the bundled files."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz

from librarian_gui.core.concepts.dictionary import Concept, LintIssue, load_dictionary
from librarian_gui.core.concepts.lint import lint_concepts, lint_errors

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = [
    ROOT / "resources" / "demo-vault" / "concepts.json",
    *sorted((ROOT / "concepts").glob("starter-*.json")),
]


def c(concept_id: str, *aliases: str) -> Concept:
    return Concept(concept_id, aliases, "test")


def found(
    *concepts: Concept,
    linked: Mapping[str, int] | None = None,
    mentioned: Mapping[str, int] | None = None,
) -> list[tuple[str | None, str, str, str | None]]:
    issues = lint_concepts(concepts, linked=linked, mentioned=mentioned)
    return [(i.concept, i.severity, i.code, i.alias) for i in issues]


def message(issues: list[LintIssue], code: str, alias: str | None) -> str:
    (only,) = [i.message for i in issues if i.code == code and i.alias == alias]
    return only


def test_a_clean_dictionary_has_no_issues() -> None:
    assert (
        found(
            c("prompt-injection", "prompt injection", "Prompteinschleusung", "提示注入"),
            c("rag", "RAG", "retrieval augmented generation"),
            c("mcp", "MCP", "Model Context Protocol"),
        )
        == []
    )


def test_empty_aliases_are_errors() -> None:
    issues = lint_concepts([c("a", "", "vector store", "  ")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("a", "error", "empty-alias", ""),
        ("a", "error", "empty-alias", "  "),
    ]
    assert message(issues, "empty-alias", "  ") == "Alias 3 is empty; remove it."


def test_an_alias_listed_twice_as_the_matcher_sees_it() -> None:
    issues = lint_concepts([c("a", "vector store", "Vector Store", "RAG", "RAG", "rag", "MCP")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("a", "warning", "duplicate-alias", "RAG"),
        ("a", "warning", "duplicate-alias", "Vector Store"),
        ("a", "warning", "duplicate-alias", "rag"),
    ]
    assert message(issues, "duplicate-alias", "rag") == (
        '"rag" is listed twice (also as "RAG"); remove one.'
    )
    assert message(issues, "duplicate-alias", "RAG") == '"RAG" is listed twice; remove one.'


def test_an_alias_claimed_by_two_concepts_is_a_conflict_on_both() -> None:
    issues = lint_concepts([c("x", "vector store"), c("y", "Vector store", "embedding")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("x", "error", "conflict", "vector store"),
        ("y", "error", "conflict", "Vector store"),
    ]
    assert message(issues, "conflict", "vector store") == (
        '"vector store" matches the same text as "Vector store" of "y"; a mention would tag '
        "both. Keep it in one concept."
    )
    assert '"x"' in message(issues, "conflict", "Vector store")


def test_a_case_insensitive_alias_conflicts_with_the_same_in_capitals() -> None:
    # "ai" would match the text "AI", so it overlaps the case-sensitive "AI".
    assert found(c("x", "ai"), c("y", "AI")) == [
        ("x", "error", "conflict", "ai"),
        ("x", "warning", "short", "ai"),
        ("x", "warning", "stop-word", "ai"),  # French "j'ai"
        ("y", "error", "conflict", "AI"),
    ]
    assert found(c("x", "AI"), c("y", "AI")) == [
        ("x", "error", "conflict", "AI"),
        ("y", "error", "conflict", "AI"),
    ]


def test_stop_words_in_four_languages() -> None:
    issues = lint_concepts([c("a", "the", "und", "les", "que", "in the", "the matrix", "memory")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("a", "warning", "stop-word", "in the"),
        ("a", "warning", "stop-word", "les"),
        ("a", "warning", "stop-word", "que"),
        ("a", "warning", "stop-word", "the"),
        ("a", "warning", "stop-word", "und"),
    ]
    assert message(issues, "stop-word", "que") == (
        '"que" is a very common word in French and Spanish; it would tag nearly every note '
        "written in it. Use a longer phrase."
    )
    assert message(issues, "stop-word", "in the").startswith(
        '"in the" is made only of very common words in English;'
    )
    # In capitals a short alias matches only as written: "THE", "US" or "IT" are names.
    assert found(c("a", "THE"), c("b", "US"), c("c", "IT")) == []


def test_short_aliases() -> None:
    issues = lint_concepts([c("a", "ml", "go", "AI", "R2", "X", "k8s", "人", "提示注入")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("a", "warning", "inside-words", "人"),
        ("a", "warning", "short", "X"),
        ("a", "warning", "short", "go"),
        ("a", "warning", "short", "ml"),
        ("a", "warning", "short", "人"),
    ]
    assert message(issues, "short", "ml") == (
        '"ml" has only 2 characters; it would tag unrelated text. Use a longer alias, or '
        'write an abbreviation in capitals ("ML") so it matches only as written.'
    )
    assert message(issues, "short", "X") == (
        '"X" has only 1 character; it would tag unrelated text. Use a longer alias.'
    )


def test_aliases_that_can_match_inside_words() -> None:
    issues = lint_concepts(
        [c("a", "-ing", "C++", "(sic)", "e.g.", "人工", "人工智能", "AI助手", "pass@k")]
    )
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("a", "warning", "inside-words", "(sic)"),
        ("a", "warning", "inside-words", "-ing"),
        ("a", "warning", "inside-words", "C++"),
        ("a", "warning", "inside-words", "e.g."),
    ]
    assert message(issues, "inside-words", "-ing") == (
        '"-ing" can match inside longer words: its start ("-") needs no word boundary, so a '
        "letter may touch it. Use a longer alias if it tags unrelated text."
    )
    assert 'its end ("+")' in message(issues, "inside-words", "C++")
    assert 'its start and end ("(" and ")")' in message(issues, "inside-words", "(sic)")
    # Two Chinese characters make a word specific enough; one does not (test_short_aliases).
    assert "Chinese, Japanese" in message(lint_concepts([c("a", "人")]), "inside-words", "人")


def test_ids_that_are_not_slugs() -> None:
    concepts = [
        c("Prompt Injection", "prompt injection"),
        c("rag_pipeline", "RAG pipeline"),
        c("Übergröße", "Übergröße"),
        c("++", "double plus"),
        c("ok-id", "fine alias"),
        c("提示注入", "提示注入"),
    ]
    issues = lint_concepts(concepts)
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("Prompt Injection", "warning", "slug", None),
        ("rag_pipeline", "warning", "slug", None),
        ("Übergröße", "warning", "slug", None),
        ("++", "warning", "slug", None),
    ]
    assert [i.message for i in issues] == [
        'The id "Prompt Injection" is not a slug (lowercase words joined by hyphens); '
        'rename it to "prompt-injection".',
        'The id "rag_pipeline" is not a slug (lowercase words joined by hyphens); '
        'rename it to "rag-pipeline".',
        'The id "Übergröße" is not a slug (lowercase words joined by hyphens); '
        'rename it to "übergröße".',
        'The id "++" is not a slug (lowercase words joined by hyphens); '
        "rename it to lowercase words joined by hyphens.",
    ]


def test_a_concept_without_aliases() -> None:
    assert found(c("orphan"), c("fine", "fine alias")) == [
        ("orphan", "warning", "no-aliases", None)
    ]


def test_unused_only_when_both_counts_are_given() -> None:
    concepts = (c("linked", "alpha"), c("mentioned", "beta"), c("idle", "gamma"))
    assert found(*concepts, linked={"linked": 2}, mentioned={"mentioned": 1, "idle": 0}) == [
        ("idle", "warning", "unused", None)
    ]
    assert found(*concepts, linked={}) == []
    assert found(*concepts, mentioned={}) == []
    issues = lint_concepts([c("idle", "gamma")], linked={}, mentioned={})
    assert issues[0].message == (
        "No note links or mentions it; add an alias your notes use, or remove it."
    )


def test_near_duplicates_across_concepts_are_reported_on_both() -> None:
    issues = lint_concepts([c("x", "prompt injection"), c("y", "prompt injections")])
    assert [(i.concept, i.severity, i.code, i.alias) for i in issues] == [
        ("x", "warning", "near-duplicate", "prompt injection"),
        ("y", "warning", "near-duplicate", "prompt injections"),
    ]
    assert issues[0].message == (
        '"prompt injection" is nearly the same as "prompt injections" of "y"; merge the two '
        "concepts or tell their names apart."
    )
    assert '"prompt injection" of "x"' in issues[1].message


def test_near_duplicates_within_one_concept_are_fine() -> None:
    assert found(c("x", "prompt injection", "prompt injections", "Prompt-Injection")) == []


def test_different_lengths_are_not_near_duplicates() -> None:
    assert found(c("x", "retrieval"), c("y", "retrieval augmented generation")) == []
    assert found(c("x", "embedding model"), c("y", "embedding")) == []


def test_names_that_differ_only_in_a_number_are_a_series() -> None:
    assert found(c("python-3-11", "python 3.11"), c("python-3-12", "python 3.12")) == []
    assert found(*(c(f"adr-{n:04}", f"decision {n:04}") for n in range(1, 30))) == []
    assert found(c("x", "gpt-4 turbo"), c("y", "gpt 4 turbo")) == [
        ("x", "warning", "near-duplicate", "gpt-4 turbo"),
        ("y", "warning", "near-duplicate", "gpt 4 turbo"),
    ]


def test_one_near_duplicate_per_pair_of_concepts_naming_the_closest_names() -> None:
    issues = lint_concepts(
        [
            c("x", "prompt injection", "prompt injection attack"),
            c("y", "prompt injections", "prompt injection attacks"),
        ]
    )
    assert [(i.concept, i.code, i.alias) for i in issues] == [
        ("x", "near-duplicate", "prompt injection attack"),
        ("y", "near-duplicate", "prompt injection attacks"),
    ]


def test_ids_are_compared_with_aliases_and_ids() -> None:
    issues = lint_concepts(
        [
            c("vector-index", "ANN index"),
            c("vector-store", "vector-index"),
            c("prompt-injection", "jailbreak"),
            c("prompt-injections", "escape"),
            c("rag", "retrieval augmented generation"),
            c("search", "rag"),  # too short to compare
        ]
    )
    assert [(i.concept, i.code, i.alias) for i in issues] == [
        ("vector-index", "near-duplicate", None),
        ("vector-store", "near-duplicate", "vector-index"),
        ("prompt-injection", "near-duplicate", None),
        ("prompt-injections", "near-duplicate", None),
    ]
    assert issues[0].message == (
        'The id "vector-index" is the same as "vector-index" of "vector-store"; merge the two '
        "concepts or tell their names apart."
    )
    assert issues[1].message.startswith('"vector-index" is the same as the id of "vector-index";')
    assert issues[2].message.startswith(
        'The id "prompt-injection" is nearly the same as the id of "prompt-injections";'
    )


def test_near_duplicates_match_comparing_every_pair() -> None:
    # The linter compares each length only with the lengths that can reach the cutoff; on
    # names of many lengths, many one letter apart, it must find what comparing every pair
    # finds. Ids of three characters are too short to be compared themselves.
    rng = random.Random(7)
    names: list[str] = []
    while len(names) < 300:
        word = "".join(rng.choice("abcde fgh") for _ in range(rng.randint(4, 40))).strip()
        cut = rng.randrange(len(word) + 1)
        for name in (word, word[:cut] + "x" + word[cut:]):
            if len(name) >= 4 and name not in names:
                names.append(name)
    concepts = [c(f"{n:03x}", name) for n, name in enumerate(names)]
    alias_of = {concept.id: concept.aliases[0] for concept in concepts}
    expected = {
        frozenset((a, b))
        for a, b in itertools.combinations(names, 2)
        if fuzz.ratio(a, b) >= 90 and a != b
    }
    assert len(expected) > 50
    reported = set()
    for issue in lint_concepts(concepts):
        assert issue.code == "near-duplicate", issue
        other = re.search(r'of "([0-9a-f]{3})";', issue.message)
        assert other is not None, issue.message
        reported.add(frozenset((issue.alias, alias_of[other[1]])))
    assert reported == expected


def test_equal_aliases_are_conflicts_not_near_duplicates() -> None:
    assert found(c("x", "prompt injection"), c("y", "Prompt Injection")) == [
        ("x", "error", "conflict", "prompt injection"),
        ("y", "error", "conflict", "Prompt Injection"),
    ]


def test_order_is_by_concept_then_severity_then_code_then_alias() -> None:
    concepts = [
        c("zeta", "the", "", "ml", "vector store"),
        c("Alpha", "ml", "Vector Store"),
    ]
    expected = [
        ("zeta", "error", "conflict", "ml"),
        ("zeta", "error", "conflict", "vector store"),
        ("zeta", "error", "empty-alias", ""),
        ("zeta", "warning", "short", "ml"),
        ("zeta", "warning", "stop-word", "the"),
        ("Alpha", "error", "conflict", "Vector Store"),
        ("Alpha", "error", "conflict", "ml"),
        ("Alpha", "warning", "short", "ml"),
        ("Alpha", "warning", "slug", None),
    ]
    assert found(*concepts) == expected
    assert lint_concepts(concepts) == lint_concepts(concepts)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_dictionaries_have_no_errors(path: Path) -> None:
    dictionary = load_dictionary(path)
    assert dictionary.error is None
    assert len(dictionary.concepts) >= 10
    errors = [i for i in lint_concepts(dictionary.concepts) if i.severity == "error"]
    assert errors == []


def test_the_bundled_dictionaries_are_all_found() -> None:
    assert len(BUNDLED) == 3
    assert all(p.is_file() for p in BUNDLED)


def test_slugify_is_the_one_id_rule_of_lint_editor_and_suggestions() -> None:
    from librarian_gui.core.concepts.dictionary import is_slug, slugify

    assert slugify("Vector  Store!") == "vector-store"
    assert slugify("Wren's idea") == "wrens-idea"
    assert slugify("Wren’s") == "wrens"
    assert slugify("snake_case id") == "snake-case-id"
    assert slugify("检索 系统") == "检索-系统"
    assert slugify("---") == "" and not is_slug("")


def test_the_errors_alone_as_a_tagging_run_asks_them() -> None:
    # Warnings (a stop word, a short alias, a near-duplicate, a slug) are not looked for.
    issues = lint_errors(
        [
            c("Vectors", "vector store", "the", ""),
            c("y", "Vector Store", "vector stores"),
            c("z", "ai", " "),
            c("w", "AI"),
        ]
    )
    assert [(i.concept, i.severity, i.code, i.alias, i.message) for i in issues] == [
        ("Vectors", "error", "conflict", "vector store", VECTORS_CONFLICT),
        ("Vectors", "error", "empty-alias", "", "Alias 3 is empty; remove it."),
        ("y", "error", "conflict", "Vector Store", Y_CONFLICT),
        ("z", "error", "conflict", "ai", Z_CONFLICT),
        ("z", "error", "empty-alias", " ", "Alias 2 is empty; remove it."),
        ("w", "error", "conflict", "AI", W_CONFLICT),
    ]


VECTORS_CONFLICT = (
    '"vector store" matches the same text as "Vector Store" of "y"; a mention would tag '
    "both. Keep it in one concept."
)
Y_CONFLICT = (
    '"Vector Store" matches the same text as "vector store" of "Vectors"; a mention would '
    "tag both. Keep it in one concept."
)
Z_CONFLICT = (
    '"ai" matches the same text as "AI" of "w"; a mention would tag both. Keep it in one concept.'
)
W_CONFLICT = (
    '"AI" matches the same text as "ai" of "z"; a mention would tag both. Keep it in one concept.'
)

_ALIASES = st.sampled_from(["", " ", "ai", "AI", "Ai", "rag", "RAG", "the", "vector store"])


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "B", "c-d", "e"]), st.lists(_ALIASES, max_size=4)),
        max_size=5,
    )
)
def test_the_errors_alone_are_the_errors_of_the_whole_lint(
    drawn: list[tuple[str, list[str]]],
) -> None:
    concepts = [c(cid, *aliases) for cid, aliases in drawn]
    whole = [i for i in lint_concepts(concepts) if i.severity == "error"]
    assert lint_errors(concepts) == whole
