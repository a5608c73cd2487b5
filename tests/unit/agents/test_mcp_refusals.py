"""``librarian mcp`` refuses what it must not take (issue 26): an index note outside the
vault, in a dot-folder or an ignored folder; a boolean that is not true or false. Through
the SDK's real client."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Annotated

import pytest

from librarian_gui.mcp_server import DESCRIPTIONS, Tools, argument_types
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


def not_boolean(tool: str, name: str, given: object) -> str:
    return (
        f"Error executing tool {tool}: {name}: must be true or false (a JSON boolean), "
        f"not {given!r}"
    )


def test_boolean_parameters_take_true_or_false_only(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "alpha.md").write_text("# Alpha\n\nSee [[beta]].\n")
    (vault / "beta.md").write_text("# Beta\n\nalpha, unlinked.\n")

    async def scenario(agent: Agent) -> None:
        schemas = {tool.name: tool.input_schema for tool in await agent.tools()}
        assert schemas["write_note"]["properties"]["overwrite"]["type"] == "boolean"
        for given in ("yes", 1, "true", "false", 0):
            with pytest.raises(ToolFailed) as failed:
                await agent.call("write_note", path="alpha.md", text="gone", overwrite=given)
            assert str(failed.value) == not_boolean("write_note", "overwrite", given)
        assert (vault / "alpha.md").read_text() == "# Alpha\n\nSee [[beta]].\n"
        assert not (vault / ".librarian").exists()  # not even the lock: nothing was tried
        with pytest.raises(ToolFailed) as failed:
            await agent.call("backlinks", note="alpha", unlinked="no")
        assert str(failed.value) == not_boolean("backlinks", "unlinked", "no")
        with pytest.raises(ToolFailed) as failed:
            await agent.call("neighbors", note="alpha", related=0)
        assert str(failed.value) == not_boolean("neighbors", "related", 0)

        back = await agent.call("backlinks", note="alpha", unlinked=False)
        assert [b["source"] for b in back["backlinks"]] == []
        made = await agent.call("write_note", path="alpha.md", text="# New\n", overwrite=True)
        assert (made["note"], made["created"]) == ("alpha.md", False)
        assert (vault / "alpha.md").read_text() == "# New\n"

    run_agent(vault, scenario, "--allow-writes")


def test_every_boolean_parameter_of_every_tool_is_strict() -> None:
    flag = argument_types()["Flag"]  # as a server's build makes them
    flags = []
    for name in DESCRIPTIONS:
        hints = typing.get_type_hints(getattr(Tools, name), include_extras=True)
        for parameter, hint in hints.items():
            # Annotated[Flag, Field(...)] is one Annotated over bool: Flag's validator in it
            extras = hint.__metadata__ if typing.get_origin(hint) is Annotated else ()
            if typing.get_origin(hint) is Annotated:
                hint = hint.__origin__
            if hint is bool:
                assert flag.__metadata__[0] in extras, (name, parameter)
                flags.append(f"{name}.{parameter}")
    assert flags == ["backlinks.unlinked", "neighbors.related", "write_note.overwrite"]
