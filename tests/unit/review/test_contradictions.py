"""Contradiction candidates (issue 32 item 4) on notes written by hand: a choice, a
negation and a number about one concept, each found with both sides and dated; what does
not conflict (the same value, another concept, the same note) is not a candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.core.review.contradictions import find_contradictions

CONCEPTS = [
    Concept("staging-database", ("staging database",), "decision"),
    Concept("crawler", ("crawler",), "project"),
]
NOTES = [
    ("decisions/db.md", "# DB\n\nFor the staging database we chose Postgres.\n", "2024-03-01"),
    (
        "diary/2024-05-02.md",
        "# Diary\n\nRevisited the staging database: we chose DuckDB instead.\n\n"
        "The crawler timeout is 60 s now.\n",
        "2024-05-02",
    ),
    (
        "notes/crawler.md",
        "# Crawler\n\nThe crawler timeout is 30 s and retries twice.\n\n"
        "The crawler cache is shared between all workers.\n",
        "2024-01-10",
    ),
    ("diary/2024-06-01.md", "The crawler cache is not shared between all workers.\n", "2024-06-01"),
    # agrees with the first: no candidate
    ("notes/agree.md", "The staging database: we chose Postgres, it stays.\n", "2024-02-01"),
]


def test_the_candidates() -> None:
    found = [c.json() for c in find_contradictions(NOTES, CONCEPTS)]
    assert [(c["concept"], c["kind"], c["newer"]["note"], c["older"]["note"]) for c in found] == [
        ("staging-database", "choice", "diary/2024-05-02.md", "decisions/db.md"),
        ("staging-database", "choice", "diary/2024-05-02.md", "notes/agree.md"),
        ("crawler", "negation", "diary/2024-06-01.md", "notes/crawler.md"),
        ("crawler", "number", "diary/2024-05-02.md", "notes/crawler.md"),
    ]
    choice = found[0]
    assert (choice["newer"]["says"], choice["older"]["says"]) == ("DuckDB", "Postgres")
    assert (choice["newer"]["date"], choice["older"]["date"]) == ("2024-05-02", "2024-03-01")
    assert choice["newer"]["lines"] == [3, 3] and choice["sureness"] == 0.9
    number = found[3]
    assert (number["about"], number["newer"]["says"], number["older"]["says"]) == (
        "timeout (seconds)",
        "60 s",
        "30 s",
    )
    assert found[2]["older"]["says"] == "The crawler cache is shared between all workers."


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for rel, text, date in NOTES:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndate: {date}\n---\n{text}")
    (tmp_path / "concepts.json").write_text(
        json.dumps({c.id: {"aliases": list(c.aliases), "category": c.category} for c in CONCEPTS})
    )
    assert main(["contradictions", str(tmp_path), "--json", "--no-cache"]) == 0
    found = json.loads(capsys.readouterr().out)["candidates"]
    assert [(c["kind"], c["newer"]["note"], c["newer"]["lines"]) for c in found] == [
        ("choice", "diary/2024-05-02.md", [6, 6]),  # three lines of front matter above
        ("choice", "diary/2024-05-02.md", [6, 6]),
        ("negation", "diary/2024-06-01.md", [4, 4]),
        ("number", "diary/2024-05-02.md", [8, 8]),
    ]


def test_a_superseded_note_settles_its_candidates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The "supersedes" mark written by ``librarian supersede`` settles the pair: its
    candidates are gone, the others stay; each side carries its paragraph as written."""
    for rel, text, date in NOTES:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndate: {date}\n---\n{text}")
    (tmp_path / "concepts.json").write_text(
        json.dumps({c.id: {"aliases": list(c.aliases), "category": c.category} for c in CONCEPTS})
    )
    assert main(["contradictions", str(tmp_path), "--json", "--no-cache"]) == 0
    first = json.loads(capsys.readouterr().out)["candidates"][0]
    assert first["newer"]["passage"] == "Revisited the staging database: we chose DuckDB instead."
    assert first["older"]["passage"] == "For the staging database we chose Postgres."
    assert first["supersede"] == (
        f"librarian supersede {tmp_path} diary/2024-05-02.md decisions/db.md --apply"
    )
    args = ["supersede", str(tmp_path), "diary/2024-05-02.md", "decisions/db.md", "--apply"]
    assert main([*args, "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["contradictions", str(tmp_path), "--json", "--no-cache"]) == 0
    found = json.loads(capsys.readouterr().out)["candidates"]
    assert [(c["kind"], c["newer"]["note"], c["older"]["note"]) for c in found] == [
        ("choice", "diary/2024-05-02.md", "notes/agree.md"),
        ("negation", "diary/2024-06-01.md", "notes/crawler.md"),
        ("number", "diary/2024-05-02.md", "notes/crawler.md"),
    ]


def test_a_choice_is_a_name_and_a_pronoun_is_none() -> None:
    """Capitalised words go on a name ("Bright Futures", not "Bright"); "chose them"
    names nothing, so it contradicts nothing."""
    concepts = [Concept("adoption", ("adoption",), "topic")]
    notes = [
        ("a.md", "For the adoption she chose Hopeful Hearts, the agency.\n", "2023-08-20"),
        ("b.md", "The adoption: she switched to Bright Futures after the visit.\n", "2023-10-24"),
        ("c.md", "Adoption agencies: she chose them with care.\n", "2023-05-25"),
    ]
    found = [c.json() for c in find_contradictions(notes, concepts)]
    assert [(c["newer"]["says"], c["older"]["says"]) for c in found] == [
        ("Bright Futures", "Hopeful Hearts")
    ]


CACHE = [Concept("build-cache", ("build cache",), "project"), Concept("proxy", ("proxy",), "x")]


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # a second value beside the first: they share 30, no conflict
        ("The build cache timeout is 30 s.", "The build cache timeout is 30 s, and 85 s.", []),
        # another concept's value in a paragraph that names the cache in passing
        (
            "The build cache timeout is 30 s.",
            "Unlike the build cache, the proxy has its own limits. The proxy timeout is 85 s.",
            [],
        ),
        # a written date against an ISO one, the same day: none; another day: one
        (
            "The build cache deadline is 2024-03-03.",
            "The build cache deadline is March 3, 2024.",
            [],
        ),
        (
            "The build cache deadline is 2024-03-03.",
            "The build cache deadline is 17 March 2024.",
            [("date", "deadline", "2024-03-17", "2024-03-03")],
        ),
        # a verb negated with "doesn't": the stemmed words meet
        (
            "The build cache requires a VPN connection.",
            "The build cache doesn't require a VPN connection.",
            [
                (
                    "negation",
                    "build cache connection require vpn",
                    "The build cache doesn't require a VPN connection.",
                    "The build cache requires a VPN connection.",
                )
            ],
        ),
        # the negation is about something the other does not say: no candidate
        (
            "The build cache must be idempotent: a re-run replaces the day's partition.",
            "The build cache must be idempotent: a re-run replaces the day's partition, "
            "never appends to it.",
            [],
        ),
        # "without" is no negation; "the selected" is no choice; "30th" is no unit
        (
            "The build cache is kept on disk.",
            "The build cache is kept on disk, without exception.",
            [],
        ),
        (
            "For the build cache we chose Redis.",
            "In the build cache, the selected keys expire.",
            [],
        ),
        (
            "The build cache release is on Apr 30th.",
            "The build cache release is on Apr 12th.",
            [("number", "apr", "12", "30")],
        ),
        # one quantity in two units: the same amount is no conflict, another is
        ("The build cache size is 2 GB.", "The build cache size is 2000 MB.", []),
        (
            "The build cache size is 512 MB.",
            "The build cache size is 2 GB.",
            [("number", "size (bytes)", "2 GB", "512 MB")],
        ),
        # a count of things, in digits or in words
        (
            "The build cache runs three replicas.",
            "The build cache runs 5 replicas.",
            [("number", "replicas", "5", "3")],
        ),
        ("The build cache runs three replicas.", "The build cache has 3 replicas.", []),
        # "1.5 GB" is one number, not the end of a sentence
        (
            "The build cache size is 1.5 GB.",
            "The build cache size is 2.5 GB.",
            [("number", "size (bytes)", "2.5 GB", "1.5 GB")],
        ),
    ],
)
def test_general_rules(older: str, newer: str, expected: list[tuple[str, ...]]) -> None:
    notes = [("old.md", older + "\n", "2024-01-01"), ("new.md", newer + "\n", "2024-02-01")]
    found = find_contradictions(notes, CACHE)
    assert [(c.kind, c.about, c.newer.said, c.older.said) for c in found] == expected
