"""A parsing worker process: reads note paths on stdin, writes parsed rows to stdout.

Started by ``reading.read_many`` as ``python -m librarian_gui.core.vault.parse_worker ROOT
NICE`` (NICE: how much lower to run, 0 for as the caller).
Input: one frame, the marshalled list of vault-relative paths. Output: frames of
marshalled ``read_chunk`` results, then end of stream."""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
from pathlib import Path
from typing import BinaryIO

from .reading import CHUNK, read_chunk, read_frame, write_frame


def main() -> int:
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    serve(Path(sys.argv[1]), step, sys.stdin.buffer, sys.stdout.buffer)
    return 0


def serve(root: Path, step: int, calls: BinaryIO, out: BinaryIO) -> None:
    """Read the paths from ``calls``, write their parsed rows to ``out`` (a worker's life,
    in a fresh interpreter or in a process forked from its caller: ``reading.ParsePool``)."""
    # The parse makes many small tuples and no reference cycles; the cyclic collector would
    # only walk them again and again (a third of the worker's time on 5,000 notes).
    gc.disable()
    # Started by a window: when the cores are busy, its GUI thread goes first (with idle
    # cores this changes nothing). Started by the command line or an MCP server: nothing
    # waits for the cores but the parse itself, so the workers keep its priority.
    if step:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(step)
    frame = read_frame(calls)
    rels: list[str] = marshal.loads(frame) if frame else []
    for i in range(0, len(rels), CHUNK):
        write_frame(out, marshal.dumps(read_chunk(root, rels[i : i + CHUNK])))


if __name__ == "__main__":
    sys.exit(main())
