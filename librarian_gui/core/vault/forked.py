"""A process forked from this one and joined to it by two pipes: the command line's parse
workers (``reading.ForkedWorker``) and the MCP server's index process (``mcp_index``)."""

from __future__ import annotations

import contextlib
import os
import sys


def fork_joined() -> tuple[int, int, int] | None:
    """Fork a process joined to this one by two pipes, this process's buffered output
    written out first (else the child could write it a second time).

    In this process: ``(pid, from_child, to_child)``; in the child: ``(0, from_parent,
    to_parent)``; file descriptors, the other side's ends closed in each. None when the
    system made no process. The caller must be alone (no other thread): forked, a thread
    holding a lock would hold it in the child for ever."""
    down_read, down_write = os.pipe()
    up_read, up_write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    try:
        pid = os.fork()
    except OSError:
        for fd in (down_read, down_write, up_read, up_write):
            os.close(fd)
        return None
    if pid == 0:
        os.close(down_write)
        os.close(up_read)
        return 0, down_read, up_write
    os.close(down_read)
    os.close(up_write)
    return pid, up_read, down_write
