"""The review desk (issue 32 item 2): marks kept outside the vault and read again by another
process, the diff from the reviewed version after two agent appends and one outside edit,
the days newest first; MCP ``recent`` says whether a note's version is reviewed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.review.desk import marks_file
from tests.unit.agents.mcp_client import Agent, run_agent

REPO = Path(__file__).resolve().parents[3]
DAY = 86_400


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main([*args, "--no-cache", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_desk_shows_the_diff_since_the_reviewed_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "diary").mkdir()
    note = tmp_path / "diary" / "2024-06-03.md"
    note.write_text("# June 3\nfirst line\n")
    old = tmp_path / "old.md"
    old.write_text("# Old\n")
    stamp = note.stat().st_mtime
    os.utime(old, (stamp - 3 * DAY, stamp - 3 * DAY))  # changed three days before
    desk = run(capsys, "review", str(tmp_path), "--since", "2000-01-01")
    # by the day each changed, newest first
    assert [[n["note"] for n in d["notes"]] for d in desk["days"]] == [
        ["diary/2024-06-03.md"],
        ["old.md"],
    ]
    assert desk["days"][0]["day"] > desk["days"][1]["day"]
    assert [n["status"] for d in desk["days"] for n in d["notes"]] == ["unreviewed"] * 2
    # nothing reviewed yet: the whole note, as added
    assert desk["days"][1]["notes"][0]["diff"] == (
        "--- old.md (reviewed)\n+++ old.md (now)\n@@ -0,0 +1 @@\n+# Old\n"
    )
    # the reviewer looks at the diary: marked, a copy kept outside the vault
    run(capsys, "review", str(tmp_path), "--mark", "diary/2024-06-03")
    assert marks_file(tmp_path).exists() and not (tmp_path / ".librarian").exists()

    async def agent_appends(agent: Agent) -> None:
        await agent.call("append_to_note", note="diary/2024-06-03.md", text="agent one")
        await agent.call("append_to_note", note="diary/2024-06-03.md", text="agent two")

    run_agent(tmp_path, agent_appends, "--allow-writes", client=("night-agent", "3.0"))
    with open(note, "a", encoding="utf-8") as file:
        file.write("an editor's line\n")  # outside Librarian
    # read by a fresh process: the marks survive a restart
    out = subprocess.run(
        [sys.executable, "-m", "librarian_gui.cli", "review", str(tmp_path), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    items = {n["note"]: n for d in json.loads(out)["days"] for n in d["notes"]}
    diary = items["diary/2024-06-03.md"]
    assert diary["status"] == "changed"
    assert diary["by"]["kind"] == "outside Librarian"  # the last change was the editor's
    # everyone since the review, one after another: the agent (twice, once), then the editor
    assert [(w["kind"], w.get("client")) for w in diary["writers"]] == [
        ("agent", "night-agent"),
        ("outside Librarian", None),
    ]
    assert diary["diff"] == (
        "--- diary/2024-06-03.md (reviewed)\n"
        "+++ diary/2024-06-03.md (now)\n"
        "@@ -1,2 +1,5 @@\n"
        " # June 3\n"
        " first line\n"
        "+agent one\n"
        "+agent two\n"
        "+an editor's line\n"
    )


def test_mark_all_and_recent_reviewed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    run(capsys, "review", str(tmp_path), "--mark-all")
    desk = run(capsys, "review", str(tmp_path))
    assert desk["days"] == []

    async def write_then_ask(agent: Agent) -> None:
        await agent.call("write_note", path="b.md", text="# B\n")
        rows = (await agent.call("recent", since="2000-01-01"))["notes"]
        assert {r["note"]: r["reviewed"] for r in rows} == {"a.md": True, "b.md": False}

    run_agent(tmp_path, write_then_ask, "--allow-writes")
    desk = run(capsys, "review", str(tmp_path))
    assert [n["note"] for d in desk["days"] for n in d["notes"]] == ["b.md"]
    assert desk["days"][0]["notes"][0]["by"]["kind"] == "agent"


PARAGRAPH = (
    "The crawler retries failed fetches twice, waits seven seconds between attempts, "
    "logs every timeout and marks hosts flaky after repeated errors."
)
SIGN_OFF = (
    "Written by the nightly agent run. Review pending, corrections welcome through the "
    "usual channel, thanks kindly everyone involved here."
)


def test_a_change_that_repeats_another_note(tmp_path: Path) -> None:
    from librarian_gui.core.index.index import VaultIndex
    from librarian_gui.core.review.desk import mark_up_to, review_desk
    from librarian_gui.core.review.duplicates import PassageStore

    for k in range(5):  # the sign-off in five notes: boilerplate
        (tmp_path / f"n{k}.md").write_text(f"# N{k}\n\n{SIGN_OFF}\n")
    (tmp_path / "crawler.md").write_text(f"# Crawler\n\n{PARAGRAPH}\n")
    old = tmp_path.stat().st_mtime - 2 * DAY
    for note in tmp_path.glob("*.md"):
        os.utime(note, (old, old))
    import datetime as dt

    mark_up_to(tmp_path, dt.datetime.fromtimestamp(old + 60, dt.UTC))
    # the agent writes a diary that repeats the crawler note (two words changed) and signs off
    edited = PARAGRAPH.replace("twice", "thrice").replace("seven", "nine")
    (tmp_path / "diary.md").write_text(f"# Diary\n\nToday:\n\n{edited}\n\n{SIGN_OFF}\n")
    store = PassageStore()
    desk = review_desk(VaultIndex.scan(tmp_path, use_cache=False), store=store)
    (item,) = [i for _, items in desk.days for i in items]
    assert item.note == "diary.md"
    # 16 content words each (the, between, every, and, after are stop words), 2 changed:
    # 14 shared, 18 in either; line 5 of the diary, after its title and "Today:"
    assert [r.json() for r in item.repeats] == [
        {"lines": [5, 5], "note": "crawler.md", "note_lines": [3, 3], "similarity": 0.778}
    ]
    # the store reads again only what changed
    stamp = (tmp_path / "crawler.md").stat().st_mtime_ns
    (tmp_path / "crawler.md").write_text("# Crawler\n\nNothing alike any more, gardening only.\n")
    os.utime(tmp_path / "crawler.md", ns=(stamp, stamp))  # same time, another size
    desk = review_desk(VaultIndex.scan(tmp_path, use_cache=False), store=store)
    assert [i.repeats for _, items in desk.days for i in items] == [()]


def test_after_mark_all_a_write_through_librarian_shows_as_a_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "Mark all reviewed" keeps no copies, but each note's digest: an agent's append and a
    "supersedes" mark made since show as diffs from the versions the journal still holds;
    a note an editor changed before Librarian wrote to it shows whole (that version was
    never seen by Librarian)."""
    (tmp_path / "diary.md").write_text("# Diary\n\nfirst line\n")
    (tmp_path / "decision.md").write_text("# Decision\n\nWe chose DuckDB.\n")
    (tmp_path / "old.md").write_text("# Old\n\nWe chose Postgres.\n")
    (tmp_path / "edited.md").write_text("# Edited\n")
    run(capsys, "review", str(tmp_path), "--mark-all")

    async def agent_appends(agent: Agent) -> None:
        await agent.call("append_to_note", note="diary.md", text="the agent's line")

    run_agent(tmp_path, agent_appends, "--allow-writes", client=("night-agent", "3.0"))
    run(capsys, "supersede", str(tmp_path), "decision", "old", "--apply")
    with open(tmp_path / "edited.md", "a", encoding="utf-8") as file:
        file.write("an editor's line\n")

    async def agent_appends_after_the_editor(agent: Agent) -> None:
        await agent.call("append_to_note", note="edited.md", text="the agent's line")

    run_agent(tmp_path, agent_appends_after_the_editor, "--allow-writes")
    items = {n["note"]: n for d in run(capsys, "review", str(tmp_path))["days"] for n in d["notes"]}
    assert sorted(items) == ["decision.md", "diary.md", "edited.md"]
    assert (items["diary.md"]["status"], items["diary.md"]["diff"]) == (
        "changed",
        "--- diary.md (reviewed)\n+++ diary.md (now)\n@@ -1,3 +1,4 @@\n"
        " # Diary\n \n first line\n+the agent's line\n",
    )
    assert (items["decision.md"]["status"], items["decision.md"]["diff"]) == (
        "changed",
        "--- decision.md (reviewed)\n+++ decision.md (now)\n@@ -1,3 +1,6 @@\n"
        '+---\n+supersedes: "[[old]]"\n+---\n # Decision\n \n We chose DuckDB.\n',
    )
    assert items["edited.md"]["status"] == "unreviewed"
    # the editor's change came before the agent's append: both, in that order
    assert [(w["kind"], w["at"] == "") for w in items["edited.md"]["writers"]] == [
        ("outside Librarian", True),
        ("agent", False),
    ]
    assert [w["kind"] for w in items["diary.md"]["writers"]] == ["agent"]
    assert [w["kind"] for w in items["decision.md"]["writers"]] == ["command line"]
    assert items["edited.md"]["diff"].endswith("+# Edited\n+an editor's line\n+the agent's line\n")
