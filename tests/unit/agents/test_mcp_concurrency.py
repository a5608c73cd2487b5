"""A big write does not hold up the other questions (issue 26): the server answers a read
while it processes a write of 5 MB with 200,000 links. Through the SDK's real client.

The SDK runs a tool that is a plain function on a worker thread (``anyio.to_thread``), so
the event loop stays free for the read; the write's reply resolves its links a chunk at a
time under the index's lock; the read does not stop to index the new note
(``LiveVault.fresh``, ``FRESH_BYTES``), and the index resolves its names outside the lock.
This test keeps it so: before, the read waited 2.3 s here, and answered after the write.
"""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.unit.agents.mcp_client import Agent, run_agent

LINKS = 200_000


def test_a_read_is_answered_while_a_big_write_is_processed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    big = "".join(f"[[n{n:07d}]] and a word\n" for n in range(LINKS))  # 5 MB
    order: list[str] = []

    async def scenario(agent: Agent) -> None:
        async def write() -> None:
            result = await agent.session.call_tool("write_note", {"path": "big.md", "text": big})
            assert not result.is_error, result.content
            order.append("write")

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(write)
            # The note is on disk: the write is under way, its reply (200,000 links to
            # parse and resolve) still to come.
            while not (vault / "big.md").exists():
                await anyio.sleep(0.01)
            read = await agent.call("read_note", note="a")
            order.append("read")
        assert read["text"] == "# A\n"
        assert order == ["read", "write"]
        assert (vault / "big.md").stat().st_size == len(big)

    run_agent(vault, scenario, "--allow-writes")
