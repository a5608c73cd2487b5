"""The concept timeline: notes dated by front matter, by the three forms of a date in their
path and by a month, the file-time ones apart; bins worked out by hand below."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.cli.exits import EXIT_NO_NOTE
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.timeline import (
    DatedMention,
    bin_mentions,
    concept_mentions,
    period_end,
    period_label,
    period_start,
    periods_between,
)
from librarian_gui.core.vault.files import read_note
from tests.conftest import write

D = dt.date
DICTIONARY = {"alpha": {"aliases": ["Alpha"]}, "beta": {"aliases": ["Beta"]}}
FILE_DAY = D(2026, 3, 5)  # the modification day of the notes with no date of their own


def _at_noon(path: Path, day: dt.date) -> None:
    t = time.mktime((day.year, day.month, day.day, 12, 0, 0, 0, 0, -1))
    os.utime(path, (t, t))


@pytest.fixture
def dated_vault(vault: Path) -> Path:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "fm.md", "---\ndate: 2026-03-04\n---\nSome [[alpha]] work.\nBeta appears.\n")
    write(vault, "diary/2026-03-02.md", "Alpha without a link.\n")
    write(vault, "journals/2026_03_15.md", "[[alpha|the A]] and Alpha\n")
    write(vault, "log/20260401.md", "intro\nalpha again\n")
    write(vault, "months/2026-02 review.md", "# Review\n\n[[alpha]]\n")
    # front matter wins over the date in the name
    write(vault, "2025-01-01 created.md", "---\ncreated: 2026-03-03\n---\nAlpha.\n")
    write(vault, "diary/2026-03-06.md", "```\nAlpha\n```\n")  # code: no mention
    write(vault, "MEMORY.md", "[[alpha]] Alpha [[beta]]\n")  # the index note: left out
    write(vault, "beta.md", "Beta is its own note, never its own mention.\n")
    write(vault, "b-linker.md", "---\ndate: 2026-03-20\n---\nsee [[beta]]\n")
    for rel, text in (("loose.md", "[[alpha]]\n"), ("loose2.md", "x\nAlpha here\n")):
        _at_noon(write(vault, rel, text), FILE_DAY)
    _at_noon(vault / "beta.md", FILE_DAY)
    return vault


def _mentions(vault: Path, concepts: list[str]) -> list[DatedMention]:
    index = VaultIndex.scan(vault, use_cache=False)
    return concept_mentions(index, concepts, lambda rel: read_note(vault, rel).text)


def _counts(timeline_concept: object) -> list[tuple[str, int, int, int]]:
    return [
        (b.start.isoformat(), b.linked, b.unlinked, b.file_time)
        for b in timeline_concept.bins  # type: ignore[attr-defined]
    ]


# Alpha's notes: months/2026-02 review (2026-02-01, linked), diary/2026-03-02 (unlinked),
# "2025-01-01 created" (front matter 2026-03-03, unlinked), fm (2026-03-04, linked),
# journals/2026_03_15 (linked; its unlinked "Alpha" is the same note), log/20260401
# (unlinked); by file time: loose (linked), loose2 (unlinked), 2026-03-05.
# ISO weeks start on Monday: 2026-01-26, 2026-03-02, 2026-03-09, 2026-03-30.


def test_the_notes_mentioning_a_concept_with_their_dates_and_lines(dated_vault: Path) -> None:
    got = {
        (m.note, m.date, m.dated_by, m.linked, m.line, m.text)
        for m in _mentions(dated_vault, ["alpha"])
    }
    assert got == {
        ("months/2026-02 review.md", D(2026, 2, 1), "name", True, 3, "[[alpha]]"),
        ("diary/2026-03-02.md", D(2026, 3, 2), "name", False, 1, "Alpha without a link."),
        ("2025-01-01 created.md", D(2026, 3, 3), "front-matter", False, 4, "Alpha."),
        ("fm.md", D(2026, 3, 4), "front-matter", True, 4, "Some [[alpha]] work."),
        (
            "journals/2026_03_15.md",
            D(2026, 3, 15),
            "name",
            True,
            1,
            "[[alpha|the A]] and Alpha",
        ),
        ("log/20260401.md", D(2026, 4, 1), "name", False, 2, "alpha again"),
        ("loose.md", FILE_DAY, "mtime", True, 1, "[[alpha]]"),
        ("loose2.md", FILE_DAY, "mtime", False, 2, "Alpha here"),
    }


def test_bins_by_week_start_on_monday(dated_vault: Path) -> None:
    timeline = bin_mentions(_mentions(dated_vault, ["alpha"]), ["alpha"], "week")
    (alpha,) = timeline.concepts
    assert _counts(alpha) == [
        ("2026-01-26", 1, 0, 0),
        ("2026-03-02", 1, 2, 0),
        ("2026-03-09", 1, 0, 0),
        ("2026-03-30", 0, 1, 0),
    ]
    assert (alpha.first, alpha.last, alpha.dated) == (D(2026, 2, 1), D(2026, 4, 1), 6)
    assert [m.note for m in alpha.by_file_time] == ["loose.md", "loose2.md"]
    assert timeline.periods == tuple(D(2026, 1, 26) + dt.timedelta(weeks=w) for w in range(10))


def test_bins_by_day_and_by_month(dated_vault: Path) -> None:
    mentions = _mentions(dated_vault, ["alpha"])
    (by_day,) = bin_mentions(mentions, ["alpha"], "day").concepts
    assert _counts(by_day) == [
        ("2026-02-01", 1, 0, 0),
        ("2026-03-02", 0, 1, 0),
        ("2026-03-03", 0, 1, 0),
        ("2026-03-04", 1, 0, 0),
        ("2026-03-15", 1, 0, 0),
        ("2026-04-01", 0, 1, 0),
    ]
    by_month = bin_mentions(mentions, ["alpha"], "month")
    assert _counts(by_month.concepts[0]) == [
        ("2026-02-01", 1, 0, 0),
        ("2026-03-01", 2, 2, 0),
        ("2026-04-01", 0, 1, 0),
    ]
    assert by_month.periods == (D(2026, 2, 1), D(2026, 3, 1), D(2026, 4, 1))


def test_notes_dated_by_file_time_are_binned_apart_on_request(dated_vault: Path) -> None:
    timeline = bin_mentions(_mentions(dated_vault, ["alpha"]), ["alpha"], "week", file_time=True)
    (alpha,) = timeline.concepts
    assert ("2026-03-02", 1, 2, 2) in _counts(alpha)
    # first and last appearance only by the notes' own dates
    assert (alpha.first, alpha.last) == (D(2026, 2, 1), D(2026, 4, 1))


def test_a_concepts_own_note_and_the_index_note_are_left_out(dated_vault: Path) -> None:
    got = [(m.note, m.linked) for m in _mentions(dated_vault, ["beta"])]
    assert sorted(got) == [("b-linker.md", True), ("fm.md", False)]


def test_a_periods_notes_newest_first_over_several_concepts(dated_vault: Path) -> None:
    mentions = _mentions(dated_vault, ["alpha", "beta"])
    timeline = bin_mentions(mentions, ["alpha", "beta"], "week")
    assert [(c.concept, _counts(c)) for c in timeline.concepts][1] == (
        "beta",
        [("2026-03-02", 0, 1, 0), ("2026-03-16", 1, 0, 0)],
    )
    assert [(m.note, m.concept, m.line) for m in timeline.notes_in(D(2026, 3, 2))] == [
        ("fm.md", "alpha", 4),
        ("fm.md", "beta", 5),
        ("2025-01-01 created.md", "alpha", 4),
        ("diary/2026-03-02.md", "alpha", 1),
    ]
    assert timeline.notes_in(D(2026, 3, 23)) == ()


def test_periods_and_their_labels() -> None:
    assert period_start(D(2026, 3, 15), "week") == D(2026, 3, 9)  # a Sunday: its Monday
    assert period_start(D(2027, 1, 1), "week") == D(2026, 12, 28)
    assert period_start(D(2026, 3, 15), "month") == D(2026, 3, 1)
    assert period_end(D(2026, 2, 1), "month") == D(2026, 2, 28)
    assert period_end(D(2026, 12, 1), "month") == D(2026, 12, 31)
    assert period_label(D(2026, 9, 7), "week") == "2026-W37 (7–13 Sep)"
    assert period_label(D(2026, 9, 28), "week") == "2026-W40 (28 Sep – 4 Oct)"
    assert period_label(D(2026, 12, 28), "week") == "2026-W53 (28 Dec – 3 Jan)"
    assert period_label(D(2026, 9, 1), "month") == "2026-09"
    assert periods_between(D(2026, 11, 15), D(2027, 1, 2), "month") == (
        D(2026, 11, 1),
        D(2026, 12, 1),
        D(2027, 1, 1),
    )


# ------------------------------------------------------------------ the command line


def test_the_command_lines_json(dated_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["timeline", str(dated_vault), "Beta", "--by", "month", "--json", "--no-cache"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "by": "month",
        "file_time": False,
        "from": "2026-03-01",
        "to": "2026-03-31",
        "concepts": [
            {
                "concept": "beta",
                "first": "2026-03-04",
                "last": "2026-03-20",
                "dated": 2,
                "bins": [
                    {
                        "period": "2026-03-01",
                        "end": "2026-03-31",
                        "label": "2026-03",
                        "linked": 1,
                        "unlinked": 1,
                        "file_time": 0,
                        "notes": [
                            {
                                "note": "b-linker.md",
                                "date": "2026-03-20",
                                "dated_by": "front-matter",
                                "linked": True,
                                "line": 4,
                                "text": "see [[beta]]",
                            },
                            {
                                "note": "fm.md",
                                "date": "2026-03-04",
                                "dated_by": "front-matter",
                                "linked": False,
                                "line": 5,
                                "text": "Beta appears.",
                            },
                        ],
                    }
                ],
                "by_file_time": [],
            }
        ],
    }


def test_the_command_line_counts_file_time_apart(
    dated_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["timeline", str(dated_vault), "alpha", "--json", "--no-cache"]
    assert main(argv) == 0
    apart = json.loads(capsys.readouterr().out)["concepts"][0]
    assert [(b["period"], b["file_time"]) for b in apart["bins"]][1] == ("2026-03-02", 0)
    assert [m["note"] for m in apart["by_file_time"]] == ["loose.md", "loose2.md"]
    assert main([*argv, "--file-time"]) == 0
    counted = json.loads(capsys.readouterr().out)["concepts"][0]
    assert [(b["period"], b["file_time"]) for b in counted["bins"]][1] == ("2026-03-02", 2)


def test_an_unknown_concept_exits_4(dated_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["timeline", str(dated_vault), "alpha", "gamma", "--no-cache"]) == EXIT_NO_NOTE
    assert capsys.readouterr().err == "librarian: 'gamma': no such concept in the dictionary\n"


def test_the_command_lines_table(dated_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["timeline", str(dated_vault), "beta", "--by", "week", "--no-cache"]) == 0
    assert capsys.readouterr().out == (
        "beta: 2 dated notes, first 2026-03-04, last 2026-03-20\n"
        "  period                   linked unlinked\n"
        "  2026-W10 (2–8 Mar)            0        1\n"
        "  2026-W12 (16–22 Mar)          1        0\n"
    )


def test_the_mentioning_line_of_a_note_with_a_bom_and_crlf_line_ends(vault: Path) -> None:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "2026-05-01.md", "\ufeffintro\r\nsee Alpha here\r\nand [[beta]]\r\n")
    got = [(m.concept, m.linked, m.line, m.text) for m in _mentions(vault, ["alpha", "beta"])]
    assert got == [("alpha", False, 2, "see Alpha here"), ("beta", True, 3, "and [[beta]]")]
