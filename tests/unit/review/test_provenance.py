"""Who wrote each journal entry (issue 32 item 1): the command line, an agent through the MCP
server with the name and version its client gave, and nothing of it in the notes. (The
window's writes: tests/qt/index_note/test_split_dialog.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.writing.journal import Journal
from tests.unit.agents.mcp_client import Agent, run_agent


def test_an_agent_write_records_its_client(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")

    async def scenario(agent: Agent) -> None:
        await agent.call("write_note", path="diary/2024-06-01.md", text="Started.\n")
        await agent.call("append_to_note", note="diary/2024-06-01.md", text="Then more.")

    run_agent(tmp_path, scenario, "--allow-writes", client=("night-agent", "2.4.1"))
    entries = sorted(Journal(tmp_path).entries(), key=lambda e: e.id)  # ids sort by time
    assert [e.description for e in entries] == [
        "Agent: write diary/2024-06-01.md",
        "Agent: append to diary/2024-06-01.md",
    ]
    for entry in entries:
        assert dict(entry.by) == {
            "kind": "agent",
            "client": "night-agent",
            "version": "2.4.1",
            "session": entry.by["session"],
        }
        assert re.fullmatch(r"[0-9a-f]{12}", entry.by["session"])
    assert len({e.by["session"] for e in entries}) == 1  # one server run
    assert (tmp_path / "diary" / "2024-06-01.md").read_text() == "Started.\nThen more.\n"


def test_a_second_server_run_is_another_session(tmp_path: Path) -> None:
    async def scenario(agent: Agent) -> None:
        await agent.call("append_to_note", note="log.md", text="one line")

    run_agent(tmp_path, scenario, "--allow-writes", client=("a", "1"))
    run_agent(tmp_path, scenario, "--allow-writes", client=("a", "1"))
    sessions = {e.by["session"] for e in Journal(tmp_path).entries()}
    assert len(sessions) == 2


def test_the_command_line_records_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    days = "".join(f"## 2024-01-0{d}\nday {d}\n" for d in range(1, 6))
    (tmp_path / "MEMORY.md").write_text(f"# Memory\n\n{days}")
    assert main(["split", str(tmp_path), "MEMORY", "--apply", "--no-cache"]) == 0
    capsys.readouterr()
    (entry,) = Journal(tmp_path).entries()
    assert dict(entry.by) == {"kind": "command line"}
    record = json.loads((tmp_path / ".librarian" / "journal" / entry.id / "entry.json").read_text())
    assert record["by"] == {"kind": "command line"}
    # nothing of who wrote is in the notes
    assert all("command line" not in p.read_text() for p in tmp_path.rglob("*.md"))


def test_recent_says_who_wrote_each_note(tmp_path: Path) -> None:
    """Two agent appends, then one note edited outside Librarian: MCP ``recent`` names the
    agent for the one, "outside Librarian" for the other, and for a note no write touched."""
    (tmp_path / "old.md").write_text("# Old\nwritten by hand\n")

    async def write(agent: Agent) -> None:
        await agent.call("append_to_note", note="diary/2024-06-02.md", text="first entry")
        await agent.call("append_to_note", note="diary/2024-06-02.md", text="second entry")
        await agent.call("write_note", path="ideas.md", text="# Ideas\n")

    run_agent(tmp_path, write, "--allow-writes", client=("night-agent", "2.4.1"))
    with open(tmp_path / "ideas.md", "a", encoding="utf-8") as note:
        note.write("an editor's line\n")  # another program, after the agent
    rows: list[dict[str, Any]] = []

    async def ask(agent: Agent) -> None:
        rows.extend((await agent.call("recent", since="2000-01-01"))["notes"])

    run_agent(tmp_path, ask, client=("reviewer", "1.0"))
    by = {row["note"]: row["by"] for row in rows}
    (entry,) = [
        e for e in Journal(tmp_path).entries() if e.description.startswith("Agent: append")
    ][:1]
    assert by["diary/2024-06-02.md"] == {
        "kind": "agent",
        "at": entry.created,
        "client": "night-agent",
        "version": "2.4.1",
        "session": entry.by["session"],
        "journal_entry": entry.id,
    }
    assert by["ideas.md"]["kind"] == "outside Librarian"
    assert by["old.md"]["kind"] == "outside Librarian"
    assert set(by["old.md"]) == {"kind", "at"}
