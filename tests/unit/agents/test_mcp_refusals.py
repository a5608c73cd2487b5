"""``librarian mcp`` refuses what is not the vault's (issue 26): the index note read from
outside the vault, a dot-folder or an ignored folder; through the SDK's real client."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.secret_vault import REFUSED_PAIRS, refusal, secret_vault
from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent


def test_index_health_refuses_what_is_not_a_note_alike_whether_it_exists(
    tmp_path: Path,
) -> None:
    vault = secret_vault(tmp_path)
    names = [name for pair in REFUSED_PAIRS for name in pair if "attachments/" not in name]
    names += [str(tmp_path / "outside.md"), str(tmp_path / "gone.md")]

    async def scenario(agent: Agent) -> None:
        for name in names:
            with pytest.raises(ToolFailed) as failed:
                await agent.call("index_health", index=name)
            assert str(failed.value) == f"Error executing tool index_health: {refusal(name)}"
        # a name is a note's: data.json names data.json.md, not there (nothing is read)
        json_note = await agent.call("index_health", index="attachments/data.json")
        assert (json_note["index"], json_note["exists"], json_note["error"]) == (
            "attachments/data.json.md",
            False,
            None,
        )
        # an index note not written yet, where one may be: its health says so
        new = await agent.call("index_health", index="notes/new.md")
        assert (new["index"], new["exists"], new["error"]) == ("notes/new.md", False, None)
        assert new["unlisted"] == ["MEMORY.md", "a.md"]

    run_agent(vault, scenario)
