"""A big write does not hold up the other questions (issue 26): the server answers a read
while it processes a write of 50 MB with 2 million links. Through the SDK's real client.

The SDK runs a tool that is a plain function on a worker thread (``anyio.to_thread``), so
the event loop stays free for the read; this test keeps it so.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.unit.agents.mcp_client import Agent, run_agent

LINKS = 2_000_000


@pytest.mark.skip(
    reason="needs the write's reply bounded (core/agents/writes.py, issue 26): its 2 million "
    "link rows, 258 MB of JSON, take the SDK client minutes to read"
)
def test_a_read_is_answered_while_a_big_write_is_processed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    big = "".join(f"[[n{n:07d}]] and a word\n" for n in range(LINKS))  # 50 MB
    order: list[str] = []

    async def scenario(agent: Agent) -> None:
        async def write() -> None:
            result = await agent.session.call_tool("write_note", {"path": "big.md", "text": big})
            assert not result.is_error, result.content
            order.append("write")

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(write)
            # The note is on disk: the write is under way, its reply (2 million links to
            # parse and resolve) still to come.
            while not (vault / "big.md").exists():
                await anyio.sleep(0.01)
            read = await agent.call("read_note", note="a")
            order.append("read")
        assert read["text"] == "# A\n"
        assert order == ["read", "write"]
        assert (vault / "big.md").stat().st_size == len(big)

    run_agent(vault, scenario, "--allow-writes")
