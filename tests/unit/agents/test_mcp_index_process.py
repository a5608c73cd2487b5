"""``librarian mcp``'s index in a process of its own: it answers every tool, leaves with the
server, and a stop of it is said on each call; ``--one-process`` keeps it in the server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


def test_the_index_process_never_loads_pydantic(vault: Path) -> None:
    # The tools' argument types need pydantic; only the server that registers them does.
    # Its import is a tenth of a second of the index process's load, the start's longest path.
    async def scenario(agent: Agent) -> None:
        await agent.call("neighbors", note="alpha", related=False)
        server = server_pid()
        (index,) = children(server)
        assert "pydantic_core" in Path(f"/proc/{server}/maps").read_text()
        assert "pydantic_core" not in Path(f"/proc/{index}/maps").read_text()

    run_agent(vault, scenario)


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


def _spoken(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _heard(proc: subprocess.Popen[bytes], ident: int) -> dict[str, Any]:
    """The server's answer to request ``ident`` (notifications on the way skipped)."""
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        message = json.loads(line)
        if message.get("id") == ident:
            return message  # type: ignore[no-any-return]
    raise AssertionError(f"the server stopped before answering request {ident}")


@pytest.mark.parametrize("mode", [(), ("--one-process",)], ids=["index-process", "one-process"])
def test_ctrl_c_stops_a_server_whose_input_stays_open(
    vault: Path, tmp_path: Path, mode: tuple[str, ...]
) -> None:
    # A person trying the server at a terminal: its input stays open and Ctrl+C is how it
    # ends. Before, the server went on until the input closed (the SDK waits for the read
    # of its input to return).
    from mcp.types import LATEST_PROTOCOL_VERSION

    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen(
        [sys.executable, "-m", "librarian_gui.cli", "mcp", str(vault), *mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo), "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    try:
        _spoken(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "a person", "version": "1"}}})  # fmt: skip
        assert "result" in _heard(proc, 1)
        _spoken(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _spoken(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "backlinks", "arguments": {"note": "beta"}}})  # fmt: skip
        answer = _heard(proc, 2)["result"]
        assert answer["isError"] is False
        assert [row["source"] for row in answer["structuredContent"]["backlinks"]] == ["alpha.md"]
        index = children(proc.pid)
        assert len(index) == (0 if mode else 1)
        proc.send_signal(signal.SIGINT)  # the input still open
        try:
            code = proc.wait(timeout=60)  # not a timing figure: without the fix, forever
        except subprocess.TimeoutExpired:
            pytest.fail("the server went on after Ctrl+C")
        assert code == 130
        assert proc.stderr is not None
        assert b"librarian mcp: interrupted, closing the vault" in proc.stderr.read()
        assert not any(alive(pid) for pid in index)  # the server waited for it to close
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
