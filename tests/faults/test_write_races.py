"""Librarian's writes racing an agent that appends to the same note: no line is ever lost.

Each test starts a real appender process (``tests/appender.py``: a line every 2–5 ms, its
own open/append/close per line) and runs one of Librarian's write paths against the same
note in a loop until the appender has written every line. Then every appended line must be
in the note exactly once. Bounded: the appender's count fixes the run's length (~8 s).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from pathlib import Path

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.core.tagging.run import apply_plan, plan_tagging
from librarian_gui.core.writing.journal import Edit, Journal, JournalError
from librarian_gui.core.writing.safewrite import WriteRefused, encode_like, read_snapshot
from tests.conftest import REPO, write

APPENDS = 2000
_LINE = re.compile(r"^agent line (\d+) mentions ", re.M)
HEAD = "# Hot note\n\nalpha is the first word of the body.\n\n"


def start_appender(
    note: Path, seed: int, *extra: str, count: int = APPENDS
) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.appender", str(note), str(count), str(seed), *extra],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    return proc


def appended_numbers(note: Path) -> list[int]:
    """The appended lines' numbers, sorted: two lines written at the very moment a write is
    taken back may end up in the other order (README, "How Librarian writes"); none may be lost
    or doubled."""
    return sorted(int(m.group(1)) for m in _LINE.finditer(note.read_text("utf-8")))


def finish(proc: subprocess.Popen[str]) -> None:
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert out == "done\n"


def toggle_link(text: str) -> str:
    """Link or unlink the body's first word: a one-place edit like the Link button's."""
    if "[[alpha]] is the first" in text:
        return text.replace("[[alpha]] is the first", "alpha is the first", 1)
    return text.replace("alpha is the first", "[[alpha]] is the first", 1)


def test_the_link_path_never_loses_an_appended_line(vault: Path) -> None:
    note = write(vault, "hot.md", HEAD)
    journal = Journal(vault)
    written = refused = 0
    proc = start_appender(note, seed=1)
    while proc.poll() is None:
        snap = read_snapshot(vault, "hot.md")
        entry = journal.apply(
            "Link", [Edit("hot.md", snap, encode_like(snap, toggle_link(snap.text)))]
        )
        written += len(entry.written)
        refused += len(entry.skipped)
    finish(proc)
    assert appended_numbers(note) == list(range(APPENDS))
    assert written > 0  # the race was run, not only refused
    assert written + refused > 100


def test_tagging_apply_and_undo_never_lose_an_appended_line(vault: Path) -> None:
    note = write(vault, "hot.md", HEAD)
    write(vault, "other.md", "alpha elsewhere\n")
    concepts = [Concept("alpha", ("alpha",), "test")]
    journal = Journal(vault)
    applied = undone = 0
    proc = start_appender(note, seed=2)
    while proc.poll() is None:
        plan = plan_tagging(vault, ["hot.md", "other.md"], concepts, all_mentions=True)
        entry = apply_plan(vault, plan, journal=journal)
        applied += len(entry.written)
        if entry.written:
            with contextlib.suppress(JournalError):  # the note changed since: refused
                undone += len(journal.undo(entry.id).restored)
    finish(proc)
    assert appended_numbers(note) == list(range(APPENDS))
    assert applied > 0
    assert undone > 0


def test_a_writer_holding_the_note_open_loses_nothing(vault: Path) -> None:
    note = write(vault, "hot.md", HEAD)
    journal = Journal(vault)
    proc = start_appender(note, 3, "--hold")
    while proc.poll() is None:
        try:
            snap = read_snapshot(vault, "hot.md")
        except WriteRefused:
            continue
        journal.apply("Link", [Edit("hot.md", snap, encode_like(snap, toggle_link(snap.text)))])
    finish(proc)
    assert appended_numbers(note) == list(range(APPENDS))
