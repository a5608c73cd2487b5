"""Isolated concepts: found in at most N notes, never-linked and mentioned-only told apart;
the counts worked out by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from tests.conftest import write

DICTIONARY = {
    "alpha": {"aliases": ["Alpha"]},
    "beta": {"aliases": ["Beta"]},
    "gamma": {"aliases": ["Gamma"], "category": "greek"},
    "delta": {"aliases": ["Delta"]},
}


@pytest.fixture
def worklist_vault(vault: Path) -> Path:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "MEMORY.md", "[[alpha]] [[beta]] [[gamma]] [[delta]]\n")  # the index note
    write(vault, "n1.md", "[[alpha]] and [[beta]]\n")
    write(vault, "n2.md", "[[alpha]]\n")
    write(vault, "n3.md", "[[alpha]]\n")
    write(vault, "n4.md", "Gamma is named here, not linked.\n")
    write(vault, "n5.md", "Gamma again.\n")
    write(vault, "n6.md", "[[beta]]\n")
    return vault


# Found in (MEMORY.md left out): alpha {n1, n2, n3}, beta {n1, n6}, gamma {}, delta {}.
# Mentioned without a link: gamma in n4 and n5; no other alias is written outside a link.


def rows(vault: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[tuple[object, ...]]:
    assert main(["isolated", str(vault), "--json", "--no-cache", *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["concepts"] == 4
    return [
        (r["concept"], r["status"], r["found_in"], r["mentioned"], r["notes"], r["category"])
        for r in data["isolated"]
    ]


def test_the_worklist_lists_the_least_found_first_and_says_why(
    worklist_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rows(worklist_vault, capsys) == [
        ("gamma", "mentioned, never linked", 0, 2, [], "greek"),
        ("delta", "never linked", 0, 0, [], ""),
        ("beta", "rarely linked", 2, 0, ["n1.md", "n6.md"], ""),
    ]
    assert rows(worklist_vault, capsys, "--max-notes", "0") == [
        ("gamma", "mentioned, never linked", 0, 2, [], "greek"),
        ("delta", "never linked", 0, 0, [], ""),
    ]


def test_the_index_note_counts_only_when_asked_for(
    worklist_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # With MEMORY.md every concept is found in it once more: alpha 4, beta 3, gamma 1, delta 1.
    assert rows(worklist_vault, capsys, "--include-index", "--max-notes", "1") == [
        ("gamma", "rarely linked", 1, 2, ["MEMORY.md"], "greek"),
        ("delta", "rarely linked", 1, 0, ["MEMORY.md"], ""),
    ]


def test_a_negative_limit_is_a_usage_error(
    worklist_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["isolated", str(worklist_vault), "--max-notes", "-1", "--no-cache"]) == 2
    assert capsys.readouterr().err == "librarian: --max-notes must be 0 or more\n"
