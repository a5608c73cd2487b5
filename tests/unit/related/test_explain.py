"""The context line that explains a related note: the line holding most shared terms, whole
words in any case, cut around them with the spans kept on the terms."""

from __future__ import annotations

from librarian_gui.core.related.explain import LINE_MAX, best_line, explain
from librarian_gui.core.related.vault import RelatedNote


def test_the_line_with_most_distinct_terms_wins_and_spans_cover_the_terms() -> None:
    text = "# Title\nThe heron flew.\n  Heron and egret at the marsh; a HERON again.\nEgret.\n"
    number, line, spans = best_line(text, ["heron", "egret"])
    assert (number, line) == (3, "Heron and egret at the marsh; a HERON again.")
    assert [line[a:b] for a, b in spans] == ["Heron", "egret", "HERON"]


def test_terms_match_whole_words_only() -> None:
    number, line, spans = best_line("a restarter\nthe starterkit\nthe starter\n", ["starter"])
    assert (number, line, spans) == (3, "the starter", ((4, 11),))


def test_a_term_matches_its_plurals_as_the_model_weighs_them() -> None:
    _, line, spans = best_line("starters, queries and classes\n", ["starter", "query", "class"])
    assert [line[a:b] for a, b in spans] == ["starters", "queries", "classes"]


def test_an_apostrophe_matches_either_form_and_cjk_matches_inside_a_run() -> None:
    assert best_line("Jonas’s plan", ["jonas's"])[2] == ((0, 7),)
    number, line, spans = best_line("前言\n我们研究提示注入攻击\n", ["注入"])
    assert (number, [line[a:b] for a, b in spans]) == (2, ["注入"])


def test_a_long_line_is_cut_around_its_first_term_with_ellipses() -> None:
    text = "x " * 200 + "kubernetes pods " + "y " * 200
    _, line, spans = best_line(text, ["kubernetes", "pods"])
    assert line.startswith("…") and line.endswith("…")
    assert len(line) == LINE_MAX + 2
    assert [line[a:b] for a, b in spans] == ["kubernetes", "pods"]


def test_no_term_no_line() -> None:
    assert best_line("nothing here", ["heron"]) == (0, "", ())
    assert best_line("nothing here", []) == (0, "", ())


def test_explain_reads_only_notes_with_terms() -> None:
    read: list[str] = []

    def reader(rel: str) -> str | None:
        read.append(rel)
        return "a heron\n"

    found = [
        RelatedNote("a.md", 0.5, ("heron",), (), False),
        RelatedNote("b.md", 0.4, (), ("birds",), True),
    ]
    out = explain(found, reader)
    assert read == ["a.md"]
    assert [(e.line, e.text, e.spans) for e in out] == [(1, "a heron", ((2, 7),)), (0, "", ())]


def test_a_term_inside_a_link_or_url_is_not_highlighted() -> None:
    text = "see [[redis-notes|redis]] and https://redis.io\nRedis runs on mini-3.\n"
    assert best_line(text, ["redis"]) == (2, "Redis runs on mini-3.", ((0, 5),))
    _, line, spans = best_line("Redis, not [[redis]].", ["redis"])
    assert [line[a:b] for a, b in spans] == ["Redis"]


def test_a_shared_passage_is_shown_on_its_line_instead_of_the_terms() -> None:
    texts = {
        "tools.md": "# Tools\n\n| [[daily]] | Show or create the daily note for a date |\n",
        "daily.md": "# Daily\n\n  Show or create the DAILY note for a date.\nOptions.\n",
    }
    found = [RelatedNote("daily.md", 0.3, ("date",), (), False, True)]
    (out,) = explain(found, texts.get, "tools.md")
    assert (out.line, out.text) == (3, "Show or create the DAILY note for a date.")
    assert [out.text[a:b] for a, b in out.spans] == ["Show or create the DAILY note for a date"]
    assert out.passage == "Show or create the DAILY note for a date"
    # Without the note they are related to, or without a passage: the terms' line.
    (plain,) = explain(found, texts.get)
    assert (plain.line, plain.passage) == (3, "")
    assert [plain.text[a:b] for a, b in plain.spans] == ["date"]


def test_a_passage_inside_link_syntax_or_code_is_no_passage() -> None:
    # The shared words stand in a link's label in one note and in code in the other: the
    # model never counted them, so neither does the explanation.
    texts = {
        "a.md": "See [[x|show or create the daily note]] here.\n",
        "b.md": "`show or create the daily note` and more.\n",
    }
    found = [RelatedNote("b.md", 0.2, (), (), False, True)]
    (out,) = explain(found, texts.get, "a.md")
    assert (out.line, out.text, out.passage) == (0, "", "")


def test_a_long_passage_line_is_cut_around_the_passage() -> None:
    line = "x " * 150 + "show or create the daily note for a date" + " y" * 150
    (out,) = explain(
        [RelatedNote("b.md", 0.2, (), (), False, True)],
        {"a.md": "show or create the daily note for a date", "b.md": line}.get,
        "a.md",
    )
    assert out.text.startswith("…") and out.text.endswith("…") and len(out.text) == LINE_MAX + 2
    assert [out.text[a:b] for a, b in out.spans] == ["show or create the daily note for a date"]


def test_a_term_in_code_is_not_highlighted() -> None:
    text = "- `foam.orphans.exclude`: list of orphans\n```\norphans\n```\n"
    number, line, spans = best_line(text, ["orphans"])
    assert (number, [line[a:b] for a, b in spans]) == (1, ["orphans"])
    assert spans == ((34, 41),)  # the last word, not the one in code
