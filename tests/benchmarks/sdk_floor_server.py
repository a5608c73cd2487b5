"""The floor under ``librarian mcp``'s start: a server of the same SDK that knows nothing.

``bench_mcp.py`` spawns it as it spawns ``librarian mcp`` and times its first answer the same
way: the interpreter's start, the ``mcp`` SDK's import and one tool registered, with no
vault, no index and none of Librarian's modules. No server built on this SDK can be ready
sooner on the same machine, so the ready target is read against it."""

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="floor", log_level="WARNING")


@server.tool()
def neighbors(note: str, related: bool = True) -> str:
    """Answers at once, whatever it is asked."""
    return note


if __name__ == "__main__":
    server.run("stdio")
