"""``librarian search`` and ``librarian context``: output, JSON keys, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", str(agent_vault), "cinnamon", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["query"] == "cinnamon"
    assert [(h["note"], h["date"], h["lines"]) for h in data["hits"]] == [
        ("pie.md", "2026-01-05", [{"line": 7, "text": "Baked an apple pie with cinnamon."}])
    ]


def test_search_text_and_filters(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "search", str(agent_vault), "apple", "--folder", "b", "--since", "2026-02-01"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("  b/2026-02-10.md  (2026-02-10)")
    assert lines[1:] == ["        3: An apple tart for #alpha friends."]


def test_search_nothing(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "search", str(agent_vault), "zebra")[:2] == (0, "no note matches\n")


def test_search_bad_date_and_concept(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "search", str(agent_vault), "apple", "--until", "May 3")
    assert code == 2 and "--until 'May 3': give a date as YYYY-MM-DD" in err
    code, _, err = run(capsys, "search", str(agent_vault), "apple", "--concept", "veg")
    assert code == 4 and "no concept 'veg'" in err
    code, _, err = run(capsys, "search", str(agent_vault), "apple", "--limit", "0")
    assert code == 2


def test_context_text(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "context", str(agent_vault), "cinnamon", "--budget", "500")
    assert code == 0
    assert out.startswith("# Context for: cinnamon\nWithin 500 tokens")
    assert "## pie.md (2026-01-05)\n[L5–9]\n" in out


def test_context_json(agent_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "context",
        str(agent_vault),
        "cinnamon",
        "--budget",
        "500",
        "--json",
        "--index",
        "memory.md",
    )
    assert code == 0
    data = json.loads(out)
    assert data["budget"] == 500 and data["tokens"] <= 500
    assert data["index_note"] == {
        "note": "MEMORY.md",
        "lines": 4,
        "of": 4,
        "dated_links_as_ranges": 0,
    }
    assert [(p["note"], p["lines"]) for p in data["passages"]] == [("pie.md", [5, 9])]
    assert data["text"].startswith("# Context for: cinnamon")


def test_context_budget_must_be_positive(
    agent_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "context", str(agent_vault), "x", "--budget", "0")
    assert code == 2 and "--budget must be 1 token or more" in err


def test_an_empty_query_is_a_usage_error_unless_a_filter_lists_notes(
    agent_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for query in ("", "   "):
        code, out, err = run(capsys, "search", str(agent_vault), query)
        assert (code, out) == (2, "")
        assert err == (
            "librarian: QUERY is empty: give words to search for, or a filter (--tag, "
            "--folder, --since, --until, --concept) to list its notes newest first\n"
        )
    # with a filter, an empty query lists the notes it keeps, newest first
    code, out, _ = run(capsys, "search", str(agent_vault), "", "--folder", "b", "--json")
    assert (code, [h["note"] for h in json.loads(out)["hits"]]) == (0, ["b/2026-02-10.md"])


def test_a_budget_too_small_for_anything_is_a_usage_error(
    agent_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "context", str(agent_vault), "cinnamon", "--budget", "10")
    assert (code, out) == (2, "")
    assert err == (
        "librarian: a budget of 10 tokens is too small for anything, not even the pack's "
        "header; give more (2000 is the default)\n"
    )
    code, out, err = run(capsys, "context", str(agent_vault), "cinnamon", "--budget", "100")
    assert (code, out) == (2, "")
    assert err == (
        "librarian: a budget of 100 tokens is too small for anything but the pack's header "
        "(89 tokens); give more (2000 is the default)\n"
    )
    # a header is all there is to say when nothing answers and there is no index note
    code, out, _ = run(
        capsys, "context", str(agent_vault), "zebra", "--budget", "200", "--index", "none.md"
    )
    assert code == 0 and out.startswith("# Context for: zebra\nWarning: nothing in memory")
    assert "\nWithin 200 tokens (estimated; 94 used): no index note; 0 passages" in out
