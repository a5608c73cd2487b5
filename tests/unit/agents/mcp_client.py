"""The MCP SDK's real stdio client, driving a real ``librarian mcp`` process (test helper)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation

REPO = Path(__file__).resolve().parents[3]


class Agent:
    """One client session: ``call`` returns the structured answer, or raises ToolFailed."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.session.call_tool(tool, arguments)
        text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
        if result.is_error:
            raise ToolFailed(text)
        assert result.structured_content is not None, text
        # The text content is the same answer as JSON (what a client without structured
        # output reads).
        assert json.loads(text) == result.structured_content
        return result.structured_content

    async def tools(self) -> list[Any]:
        return (await self.session.list_tools()).tools


class ToolFailed(Exception):
    pass


def run_agent(
    vault: Path,
    scenario: Callable[[Agent], Awaitable[None]],
    *extra: str,
    errlog: TextIO = sys.stderr,
    client: tuple[str, str] | None = None,
) -> None:
    """Start ``librarian mcp VAULT *extra`` and run ``scenario`` against it; the server's
    stderr (its log) goes to ``errlog``. ``client``: the name and version the client gives
    when it connects (the SDK's own by default)."""

    async def main() -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "librarian_gui.cli", "mcp", str(vault), *extra],
            env=env,
            cwd=str(REPO),
        )
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(params, errlog))
            info = None if client is None else Implementation(name=client[0], version=client[1])
            session = await stack.enter_async_context(ClientSession(read, write, client_info=info))
            await session.initialize()
            with anyio.fail_after(120):
                await scenario(Agent(session))

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # the task groups wrap the scenario's own failure
        raise _leaf(group) from None


def _leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error
