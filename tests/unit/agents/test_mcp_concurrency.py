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


BURST = 2_000


def test_questions_are_answered_while_a_checkout_of_2000_files_is_read(tmp_path: Path) -> None:
    """A ``git checkout`` writes thousands of notes at once. The server reads them in pieces
    (``batches.chunks``) on its update thread; a question asked meanwhile does not read them
    all itself first: it is answered from what is read so far and says which changed notes
    it does not see yet (``still_indexing``). Once the burst is read, every note is found."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "MEMORY.md").write_text("# Memory\n\n- [[a]]\n")
    (vault / "a.md").write_text("# A\n\nThe first note, before the checkout.\n")
    burst = [f"burst/n{n:04d}.md" for n in range(BURST)]
    answers: list[dict[str, object]] = []

    async def scenario(agent: Agent) -> None:
        await agent.call("search", query="first note")  # the server is up and warm
        (vault / "burst").mkdir()
        for n, rel in enumerate(burst):
            (vault / rel).write_text(f"# Burst {n}\n\nA checked out note, tagword{n:04d}.\n")
        while True:
            answers.append(await agent.call("search", query="checked out note", limit=5))
            health = await agent.call("index_health")  # its notes: all but MEMORY.md
            if health["notes"] == BURST + 1 and "still_indexing" not in health:
                break
            await anyio.sleep(0.02)
        found = await agent.call("search", query="tagword1234")
        assert [hit["note"] for hit in found["hits"]][:1] == ["burst/n1234.md"]

    run_agent(vault, scenario)
    told = [a["still_indexing"] for a in answers if "still_indexing" in a]
    assert told, "no question was answered while the burst was read"
    known = set(burst)
    for paths in told:
        assert isinstance(paths, list)
        assert paths == sorted(paths) and 0 < len(paths) <= 50
        assert set(paths) <= known | {"burst"}  # the files, and the folder made for them
    for answer in answers:
        hits = answer["hits"]
        assert isinstance(hits, list)
        assert {hit["note"] for hit in hits} <= known | {"a.md"}
