"""``librarian mcp``'s index in a process of its own: it answers every tool, leaves with the
server, and a stop of it is said on each call; ``--one-process`` keeps it in the server."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the processes from /proc"
)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found.append(int(stat.parent.name))
    return found


def server_pid() -> int:
    """The ``librarian mcp`` this test process started (the SDK's client spawns it)."""
    for pid in children(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"librarian_gui.cli\0mcp" in cmdline:
            return pid
    raise LookupError("no librarian mcp child process")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent has not waited yet


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "alpha.md").write_text("# Alpha\n\nAlpha uses [[beta]].\n")
    (root / "beta.md").write_text("# Beta\n\nNothing more.\n")
    return root


def test_the_index_process_answers_and_leaves_with_the_server(vault: Path) -> None:
    seen: dict[str, object] = {}

    async def scenario(agent: Agent) -> None:
        server = server_pid()
        index = children(server)
        assert len(index) == 1  # the index process, and nothing else
        seen["index"] = index[0]
        answer = await agent.call("neighbors", note="alpha", related=False)
        assert [(row["note"], row["distance"]) for row in answer["neighbors"]] == [("beta.md", 1)]
        answer = await agent.call("backlinks", note="beta")
        assert [row["source"] for row in answer["backlinks"]] == ["alpha.md"]

    run_agent(vault, scenario)
    index = seen["index"]
    assert isinstance(index, int)
    end = time.monotonic() + 10
    while alive(index):  # the server waited for it: it is gone, or going
        assert time.monotonic() < end, "the index process outlived its server"
        time.sleep(0.05)


def test_the_index_process_saves_its_cache_before_it_leaves(vault: Path) -> None:
    from librarian_gui.core.index import cache
    from librarian_gui.core.index.index import VaultIndex

    settled = time.time() - 3600  # trusted by the next start (not near the save)
    for note in vault.iterdir():
        os.utime(note, (settled, settled))
    assert not cache.cache_file(vault).exists()

    async def scenario(agent: Agent) -> None:
        await agent.call("neighbors", note="alpha", related=False)

    run_agent(vault, scenario)
    again = VaultIndex.scan(vault)
    assert again.last_parsed == 0  # every note from the cache the index process wrote
    assert again.targets["alpha.md"] == ("beta.md",)


def test_a_ctrl_c_leaves_the_index_process_answering(vault: Path) -> None:
    # A terminal's Ctrl+C reaches every process of its group; the index process lives
    # as long as the server holds its end of the pipes, whatever the server does with it.
    async def scenario(agent: Agent) -> None:
        (index,) = children(server_pid())
        os.kill(index, signal.SIGINT)
        time.sleep(0.3)
        answer = await agent.call("neighbors", note="alpha", related=False)
        assert [(row["note"], row["distance"]) for row in answer["neighbors"]] == [("beta.md", 1)]

    run_agent(vault, scenario)


def test_a_stopped_index_process_is_said_on_each_call(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        await agent.call("neighbors", note="alpha", related=False)
        (index,) = children(server_pid())
        os.kill(index, signal.SIGKILL)
        for _ in range(2):  # the call that finds it gone, and each one after
            with pytest.raises(ToolFailed) as told:
                await agent.call("neighbors", note="alpha", related=False)
            assert str(told.value) == (
                "Error executing tool neighbors: the vault's index process stopped (killed by "
                "signal 9): start the server again"
            )

    run_agent(vault, scenario)


def test_one_process_keeps_the_index_in_the_server(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        assert children(server_pid()) == []
        answer = await agent.call("neighbors", note="alpha", related=False)
        assert [(row["note"], row["distance"]) for row in answer["neighbors"]] == [("beta.md", 1)]
        with pytest.raises(ToolFailed) as told:
            await agent.call("neighbors", note="gamma")
        assert str(told.value).startswith("Error executing tool neighbors: no note named 'gamma'")

    run_agent(vault, scenario, "--one-process")
