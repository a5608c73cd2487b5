"""``librarian mcp`` as an agent expects it (issue 28, items 10, 11 and 14): arguments
described and refused in one line naming the argument, the command line's limits, a note's
length said plainly, one key for the note a row is about. Through the SDK's real client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- [[a]]\n")
    body = "".join(f"Line {n} about cheese.\n" for n in range(2, 42))
    (root / "a.md").write_text("# A\n" + body + "To [[b]].\n")  # 42 lines
    (root / "b.md").write_text("# B\n\nTo [[c]].\n\n## Later\n\nMore.\n")
    (root / "c.md").write_text("To [[d]].\n")
    (root / "d.md").write_text("The end of the chain.\n")
    return root


async def failure(agent: Agent, tool: str, **arguments: Any) -> str:
    with pytest.raises(ToolFailed) as failed:
        await agent.call(tool, **arguments)
    return str(failed.value)


def test_every_argument_of_every_tool_is_described(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        undescribed = [
            f"{tool.name}.{name}"
            for tool in await agent.tools()
            for name, schema in tool.input_schema["properties"].items()
            if not schema.get("description")
        ]
        assert undescribed == []

    run_agent(vault, scenario)


def test_a_wrong_argument_is_said_in_one_line_naming_it(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        said = {
            "read_note start_line=0": await failure(agent, "read_note", note="a", start_line=0),
            "read_note start_line='x'": await failure(agent, "read_note", note="a", start_line="x"),
            "read_note": await failure(agent, "read_note"),
            "search limit=500": await failure(agent, "search", query="a", limit=500),
            "index_health full_list": await failure(agent, "index_health", full_list="nope"),
            "index_health exclude": await failure(agent, "index_health", exclude="x"),
            "neighbors depth=4 related=1": await failure(
                agent, "neighbors", note="a", depth=4, related=1
            ),
        }
        assert said == {
            "read_note start_line=0": "Error executing tool read_note: start_line: must be 1 "
            "or more, not 0",
            "read_note start_line='x'": "Error executing tool read_note: start_line: must be "
            "a valid integer, not 'x'",
            "read_note": "Error executing tool read_note: note: required, not given",
            "search limit=500": "Error executing tool search: limit: must be 200 or less, not 500",
            "index_health full_list": "Error executing tool index_health: full_list: must be "
            "'unlisted', 'dead_links', 'text_entries' or 'missing_entries', not 'nope'",
            "index_health exclude": "Error executing tool index_health: exclude: must be a "
            "valid list, not 'x'",
            "neighbors depth=4 related=1": "Error executing tool neighbors: depth: must be 3 "
            "or less, not 4; related: must be true or false (a JSON boolean), not 1",
        }

    run_agent(vault, scenario)


def test_a_line_range_past_the_end_says_how_long_the_note_is(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        assert await failure(agent, "read_note", note="a", start_line=500) == (
            "Error executing tool read_note: a.md has 42 lines; start_line 500 is past its end"
        )
        assert await failure(agent, "read_note", note="a", start_line=30, end_line=20) == (
            "Error executing tool read_note: start_line 30 is after end_line 20"
        )
        assert await failure(agent, "read_note", note="b", heading="Later", start_line=9) == (
            "Error executing tool read_note: the section 'Later' of b.md is lines 5–7; "
            "start_line 9 is past its end"
        )
        assert await failure(agent, "read_note", note="b", heading="Later", end_line=3) == (
            "Error executing tool read_note: the section 'Later' of b.md is lines 5–7; "
            "end_line 3 is before it"
        )
        last = await agent.call("read_note", note="a", start_line=42, end_line=99)
        assert (last["text"], last["lines"]) == ("To [[b]].\n", [42, 42])

    run_agent(vault, scenario)


def test_the_command_lines_limits_and_keys(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        near = await agent.call("neighbors", note="a", depth=3, related=False)
        assert [(n["note"], n["node"], n["distance"]) for n in near["neighbors"]] == [
            ("MEMORY.md", "MEMORY.md", 1),
            ("b.md", "b.md", 1),
            ("c.md", "c.md", 2),
            ("d.md", "d.md", 3),
        ]
        back = await agent.call("backlinks", note="b")
        assert [(b["note"], b["source"], b["linked"]) for b in back["backlinks"]] == [
            ("a.md", "a.md", True)
        ]
        # the same line as librarian context says
        assert await failure(agent, "context_pack", query="cheese", budget=10) == (
            "Error executing tool context_pack: a budget of 10 tokens is too small for "
            "anything, not even the pack's header; give more (2000 is the default)"
        )
        told = await failure(agent, "context_pack", query="cheese", budget=100)
        assert told.startswith(
            "Error executing tool context_pack: a budget of 100 tokens is too small for "
            "anything but the pack's header ("
        )
        assert told.endswith(" tokens); give more (2000 is the default)")
        pack = await agent.call("context_pack", query="cheese")
        assert pack["budget"] == 2000 and pack["passages"] != []

    run_agent(vault, scenario)


def test_an_unknown_argument_is_refused_naming_it_and_the_known_ones(vault: Path) -> None:
    """A misspelt argument (``limt=3``) was dropped without a word, so an agent took ten
    hits for the three it asked."""

    async def scenario(agent: Agent) -> None:
        said = await failure(agent, "recent", since="2000-01-01", limt=3)
        assert said == (
            "Error executing tool recent: unknown argument limt; recent takes since, limit, cursor"
        )
        assert (await agent.call("recent", since="2000-01-01", limit=1)) is not None

    run_agent(vault, scenario)
