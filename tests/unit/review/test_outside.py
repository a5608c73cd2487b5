"""Changes of other programs, logged when the live runtime (the window's and the MCP
server's) sees them (issue 32 item 1): an editor's change between two agent appends is on
the desk in its place, with its time; the agent's own writes are never logged as outside."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.agents.writes import append_to_note
from librarian_gui.core.live.runtime import LiveVault
from librarian_gui.core.review.outside import OutsideLog, outside_changes, outside_file
from librarian_gui.core.writing.journal import Journal, agent


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main([*args, "--no-cache", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_an_editors_change_between_two_agent_appends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "diary.md"
    note.write_text("# Diary\n")
    run(capsys, "review", str(tmp_path), "--mark-all")
    by = agent("night-agent", "3.0", "s1")
    live = LiveVault(tmp_path, related=False)
    try:

        def seen_now() -> None:  # what the watcher tells, applied and logged before we go on
            live.changed(["diary.md"])
            live.fresh()
            assert live.outside.drain()

        append_to_note(live.index, "the agent's first line", "diary.md", by=by)
        seen_now()
        assert not outside_file(tmp_path).exists()  # its own write: nothing logged
        with open(note, "a", encoding="utf-8") as file:
            file.write("an editor's line\n")
        # a file's time is the kernel's coarse clock, milliseconds behind the journal's: the
        # editor's change may bear a time before the agent's first write; the order holds
        # all the same (the agent's second write started from the editor's bytes)
        (first,) = Journal(tmp_path).entries()
        created = dt.datetime.fromisoformat(first.created)
        stamp = int(created.timestamp() * 1e9) - 1_000_000  # a millisecond before it
        os.utime(note, ns=(stamp, stamp))
        edited = dt.datetime.fromtimestamp(stamp / 1e9, dt.UTC)
        seen_now()
        append_to_note(live.index, "the agent's second line", "diary.md", by=by)
        seen_now()
    finally:
        live.close()
    rows = [json.loads(line) for line in outside_file(tmp_path).read_text().splitlines()]
    assert [(r["note"], r["at"]) for r in rows] == [
        ("diary.md", edited.isoformat(timespec="microseconds"))
    ]
    (item,) = [n for d in run(capsys, "review", str(tmp_path))["days"] for n in d["notes"]]
    assert [(w["kind"], w.get("client")) for w in item["writers"]] == [
        ("agent", "night-agent"),
        ("outside Librarian", None),
        ("agent", "night-agent"),
    ]
    assert item["writers"][1]["at"] == edited.isoformat(timespec="microseconds")
    assert item["by"]["kind"] == "agent"  # the version on disk is the agent's


def test_the_log_counts_a_change_once_and_keeps_its_size(tmp_path: Path) -> None:
    """Two runtimes watching one vault (the window and a server) log one change twice: it
    counts once. Past LOG_BYTES the older half goes."""
    import librarian_gui.core.review.outside as outside

    (tmp_path / "a.md").write_text("# A\n")
    for _ in range(2):
        OutsideLog(tmp_path).look(["a.md"])
    since = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    assert list(outside_changes(tmp_path, since)) == ["a.md"]
    assert len(outside_changes(tmp_path, since)["a.md"]) == 1
    log = OutsideLog(tmp_path)
    old = outside.LOG_BYTES
    outside.LOG_BYTES = 2_000
    try:
        for k in range(40):
            (tmp_path / "a.md").write_text(f"# A {k}\n")
            log.look(["a.md"])
    finally:
        outside.LOG_BYTES = old
    size = outside_file(tmp_path).stat().st_size
    assert size <= 2_000
    times = outside_changes(tmp_path, since)["a.md"]
    assert 10 < len(times) < 41  # the newest kept
