"""The agent side, Qt-free: search and context packs for agents (the CLI and the MCP server)."""
