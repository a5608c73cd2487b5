"""``librarian mcp`` while its vault folder is deleted and made again: the SDK's real stdio
client against the real server."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio

from tests.conftest import write
from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent

DEADLINE = 10.0  # seconds


async def answer_or_error(agent: Agent, tool: str, **arguments: object) -> object:
    """The tool's answer, or its error's text: a failed assertion shows either."""
    try:
        return await agent.call(tool, **arguments)
    except ToolFailed as exc:
        return f"error: {exc}"


def test_a_deleted_vault_is_said_gone_and_a_new_one_answers(vault: Path) -> None:
    write(vault, "MEMORY.md", "# Memory\n\n- [[alpha]]\n")
    write(vault, "alpha.md", "# Alpha\n\nThe old alpha, about orchards.\n")

    async def scenario(agent: Agent) -> None:
        first = await agent.call("search", query="orchards")
        assert [hit["note"] for hit in first["hits"]] == ["alpha.md"]

        shutil.rmtree(vault)
        assert await answer_or_error(agent, "search", query="orchards") == (
            f"error: Error executing tool search: the vault folder {vault} is gone (deleted "
            "or moved away); questions are answered again once a folder is back at that path"
        )

        vault.mkdir()
        write(vault, "MEMORY.md", "# Memory\n\n- [[alpha]]\n- [[gamma]]\n")
        write(vault, "alpha.md", "# Alpha\n\nThe new alpha, about harbours.\n")
        write(vault, "gamma.md", "# Gamma\n\nHarbours and ships.\n")
        found = await agent.call("search", query="harbours")
        assert sorted(hit["note"] for hit in found["hits"]) == ["alpha.md", "gamma.md"]
        assert (await agent.call("search", query="orchards"))["hits"] == []
        note = await agent.call("read_note", note="alpha")
        assert note["text"] == "# Alpha\n\nThe new alpha, about harbours.\n"
        back = await agent.call("backlinks", note="gamma", unlinked=False)
        assert [row["source"] for row in back["backlinks"]] == ["MEMORY.md"]

        # The new folder is watched: a note written into it by another program is found.
        write(vault, "delta.md", "# Delta\n\nMore harbours.\n")
        with anyio.fail_after(DEADLINE):
            while True:
                found = await agent.call("search", query="harbours")
                if "delta.md" in {hit["note"] for hit in found["hits"]}:
                    break
                await anyio.sleep(0.05)

    run_agent(vault, scenario)


def test_a_write_first_after_the_vault_was_replaced_goes_by_the_new_one(vault: Path) -> None:
    """The first call after the folder was made anew is a write: it is refused while no
    folder is there, and then answers from the new folder's notes (its links resolve
    there), not from the old index."""
    write(vault, "alpha.md", "# Alpha\n")

    async def scenario(agent: Agent) -> None:
        assert (await agent.call("search", query="alpha"))["hits"]
        shutil.rmtree(vault)
        refused = await answer_or_error(agent, "write_note", path="x.md", text="[[gamma]]\n")
        assert refused == (
            f"error: Error executing tool write_note: the vault folder {vault} is gone "
            "(deleted or moved away); questions are answered again once a folder is back at "
            "that path"
        )
        assert not vault.exists()
        vault.mkdir()
        write(vault, "gamma.md", "# Gamma\n")
        made = await agent.call("write_note", path="x.md", text="[[gamma]] [[alpha]]\n")
        assert [(row["target"], row["resolved"]) for row in made["links"]] == [
            ("gamma", True),
            ("alpha", False),
        ]

    run_agent(vault, scenario, "--allow-writes")
