"""A tool that fails says what happened, to which file, and what to do: never the SDK's bare
"Error executing tool X" (issue 26). Real causes in a temporary vault, through the SDK's
real client; the server answers on afterwards, and logs the unexpected ones."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.agents.answers import UnknownNote
from librarian_gui.mcp_errors import failing_as
from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent

DEEP = "d/" * 2100 + "n.md"  # deeper than Python's recursion limit, folder by folder


async def failure(agent: Agent, tool: str, **arguments: Any) -> str:
    with pytest.raises(ToolFailed) as failed:
        await agent.call(tool, **arguments)
    return str(failed.value)


def test_failed_writes_say_why_and_the_server_answers_on(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n")
    (vault / "a.md").write_text("# A\n")
    state = vault / ".librarian"
    log = tmp_path / "server.log"

    async def scenario(agent: Agent) -> None:
        (state / "lock").mkdir(parents=True)
        assert await failure(agent, "append_to_note", note="a", text="x") == (
            "Error executing tool append_to_note: .librarian/lock: the vault's write lock "
            "cannot be made (Is a directory); nothing was written. .librarian/lock is a "
            "folder: remove it, and Librarian makes its lock file there."
        )
        shutil.rmtree(state)
        state.mkdir()
        (state / "journal").write_text("not a folder")
        assert await failure(agent, "append_to_note", note="a", text="x") == (
            "Error executing tool append_to_note: .librarian/journal is a file, not a "
            "folder: Librarian keeps its undo journal there, so it writes nothing. Move that "
            "file away."
        )
        shutil.rmtree(state)
        assert await failure(agent, "append_to_note", note="MEMORY.md/child.md", text="x") == (
            "Error executing tool append_to_note: MEMORY.md/child.md: MEMORY.md is a file, "
            "not a folder; give a path whose folders are folders"
        )
        told = await failure(agent, "write_note", path=DEEP, text="x")
        assert told.startswith(f"Error executing tool write_note: {DEEP[:80]}…: is too long (")
        assert told.endswith("; the system's limit for a path is 4,096); give a shorter path")
        # still answering, and still writing
        assert (await agent.call("read_note", note="a"))["text"] == "# A\n"
        assert (await agent.call("append_to_note", note="a", text="later"))["note"] == "a.md"

    with log.open("w") as errlog:
        run_agent(vault, scenario, "--allow-writes", errlog=errlog)
    assert (vault / "a.md").read_text() == "# A\nlater\n"
    logged = log.read_text()
    # every one a refusal the agent can act on: nothing unexpected, no traceback logged
    assert "Traceback" not in logged
    assert "write lock" not in logged and "undo journal" not in logged


class Failed(Exception):
    pass


def test_what_cannot_be_built_in_a_vault_is_told_too(caplog: pytest.LogCaptureFixture) -> None:
    def raising(exc: Exception) -> None:
        raise exc

    tool = failing_as(raising, Failed)
    told = {}
    for exc in (MemoryError(), KeyError("x"), UnknownNote("no note named " + "n" * 5000, [])):
        with pytest.raises(Failed) as failed:
            tool(exc)
        told[type(exc).__name__] = str(failed.value)
    assert told["MemoryError"] == (
        "the server ran out of memory (MemoryError): ask for less at once (a shorter text, a "
        "smaller page or budget); the server's log has the details"
    )
    assert told["KeyError"] == (
        "an unexpected error in the server (KeyError: 'x'); the server's log has the details"
    )
    assert told["UnknownNote"] == "no note named " + "n" * 1986 + "… (3,014 characters more)"
    assert [(r.getMessage(), r.exc_info and r.exc_info[0]) for r in caplog.records] == [
        ("tool raising failed", MemoryError),
        ("tool raising failed", KeyError),
    ]


def test_a_dictionary_that_does_not_parse_is_told_with_line_and_column_as_the_cli_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nOn [[rag]].\n")
    (vault / "concepts.json").write_text(
        '{\n  "rag": {"aliases": ["retrieval"]},\n  "lonely": {"aliases": ["x"],}\n}\n'
    )
    assert main(["concepts", "check", str(vault), "--no-cache"]) == 1
    said = (
        f"{vault / 'concepts.json'}: line 3, column 31: Expecting property name enclosed in "
        "double quotes; fix the dictionary"
    )
    assert capsys.readouterr().err == f"librarian: {said}\n"

    async def scenario(agent: Agent) -> None:
        for tool, arguments in (
            ("concept", {"name": "rag"}),
            ("isolated", {}),
            ("search", {"query": "", "concept": "rag"}),
        ):
            assert await failure(agent, tool, **arguments) == f"Error executing tool {tool}: {said}"
        # the rest of the vault still answers
        assert (await agent.call("read_note", note="a"))["text"] == "# A\n\nOn [[rag]].\n"

    run_agent(vault, scenario)
