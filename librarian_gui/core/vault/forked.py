"""A process forked from this one and joined to it by two pipes: the command line's parse
workers (``reading.ForkedWorker``) and the MCP server's index process (``mcp_index``)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import BinaryIO


def fork_joined(child: Callable[[BinaryIO, BinaryIO], None]) -> tuple[int, int, int] | None:
    """Fork a process that runs ``child(from_parent, to_parent)`` and exits (status 0, or 1
    if it raised; its output flushed, nothing else of this process's run at exit). This
    process's buffered output is written out first, else the child could write it again.

    Returns ``(pid, from_child, to_child)``: this side's file descriptors, the child's ends
    closed here. None when the system made no process. The caller must be alone (no other
    thread): forked, a thread holding a lock would hold it in the child for ever."""
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
    if pid == 0:  # the child: never returns into the caller's code
        status = 1
        try:
            os.close(down_write)
            os.close(up_read)
            with os.fdopen(down_read, "rb") as calls, os.fdopen(up_write, "wb") as answers:
                child(calls, answers)
            status = 0
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            os._exit(status)
    os.close(down_read)
    os.close(up_write)
    return pid, up_read, down_write
