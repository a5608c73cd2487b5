"""The write path's cost: one Link click, a tagging run's apply and undo, and the Link path
while an agent appends to the same note (lines lost, writes that had to stand back).

    .venv/bin/python tests/benchmarks/bench_write.py [--notes 1000] [--clicks 200]

Runs against whichever ``librarian_gui`` is importable first (``PYTHONPATH=OLD_CHECKOUT``
times an older one on the same machine). Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APPENDER = REPO / "tests" / "appender.py"
if "PYTHONPATH" not in os.environ:  # this checkout, not an installed copy
    sys.path.insert(0, str(REPO))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def link_clicks(root: Path, clicks: int) -> list[float]:
    from librarian_gui.core.writing.journal import Edit, Journal
    from librarian_gui.core.writing.safewrite import encode_like, read_snapshot

    note = root / "click.md"
    note.write_text("# Click\n\nalpha is the word.\n" + "filler line\n" * 100)
    journal = Journal(root)
    times = []
    for n in range(clicks):
        snap = read_snapshot(root, "click.md")
        text = (
            snap.text.replace("alpha", "[[alpha]]", 1)
            if n % 2 == 0
            else snap.text.replace("[[alpha]]", "alpha", 1)
        )
        started = time.perf_counter()
        journal.apply("Link", [Edit("click.md", snap, encode_like(snap, text))])
        times.append(time.perf_counter() - started)
    return times


def tagging(root: Path, notes: int) -> tuple[float, float, int]:
    from librarian_gui.core.concepts.dictionary import Concept
    from librarian_gui.core.tagging.run import apply_plan, plan_tagging
    from librarian_gui.core.writing.journal import Journal

    rels = []
    for n in range(notes):
        rel = f"t/n{n:05d}.md"
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(f"# Note {n}\n\nSome prose about alpha and beta.\n" * 20)
        rels.append(rel)
    plan = plan_tagging(root, rels, [Concept("alpha", ("alpha",), "x")])
    journal = Journal(root)
    started = time.perf_counter()
    entry = apply_plan(root, plan, journal=journal)
    applied = time.perf_counter() - started
    started = time.perf_counter()
    journal.undo(entry.id)
    undone = time.perf_counter() - started
    return applied, undone, len(entry.written)


def under_appender(root: Path, appends: int) -> tuple[int, int, int]:
    """(lines lost, writes kept, writes that stood back) over ``appends`` appends."""
    from librarian_gui.core.writing.journal import Edit, Journal
    from librarian_gui.core.writing.safewrite import encode_like, read_snapshot

    note = root / "hot.md"
    note.write_text("# Hot\n\nalpha is the first word.\n\n")
    journal = Journal(root)
    proc = subprocess.Popen(
        [sys.executable, str(APPENDER), str(note), str(appends), "7"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    kept = stood_back = 0
    while proc.poll() is None:
        snap = read_snapshot(root, "hot.md")
        text = snap.text
        text = (
            text.replace("[[alpha]] is", "alpha is", 1)
            if "[[alpha]] is" in text
            else text.replace("alpha is", "[[alpha]] is", 1)
        )
        entry = journal.apply("Link", [Edit("hot.md", snap, encode_like(snap, text))])
        kept += len(entry.written)
        stood_back += len(entry.skipped)
    proc.communicate(timeout=60)
    found = {int(m) for m in re.findall(r"agent line (\d+) ", note.read_text())}
    return appends - len(found), kept, stood_back


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--appends", type=int, default=2000)
    args = parser.parse_args()
    import librarian_gui

    print(f"librarian_gui from {Path(librarian_gui.__file__).parent}\n")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clicks = link_clicks(root, args.clicks)
        applied, undone, written = tagging(root, args.notes)
        lost, kept, stood_back = under_appender(root, args.appends)
    print("| measure | value |")
    print("|---|---:|")
    print(
        f"| Link click, median ({args.clicks} clicks) | {statistics.median(clicks) * 1e3:.1f} ms |"
    )
    print(f"| Link click, p95 | {pct(clicks, 0.95) * 1e3:.1f} ms |")
    per_note = applied / written * 1e3
    print(f"| tagging apply, {written} notes | {applied:.2f} s ({per_note:.1f} ms/note) |")
    print(f"| tagging undo, {written} notes | {undone:.2f} s |")
    print(f"| appender (2–5 ms), lines lost of {args.appends} | {lost} |")
    print(f"| appender, Link writes kept / stood back | {kept} / {stood_back} |")


if __name__ == "__main__":
    main()
