"""Parse workers run at their caller's priority unless a window asks them to run lower: a
command line or an MCP server waits for the parse (niced, a cold scan beside two busy
processes took 4-6 times as long), a window's GUI thread needs the cores first."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from librarian_gui.core.vault import reading
from librarian_gui.core.vault.reading import ParsePool, lower_worker_priority


def _nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[16])  # field 19: nice


def _settled_nice(pid: int, wanted: int) -> int:
    """The worker's nice value once it has had time to set it (it does so first)."""
    end = time.monotonic() + 10
    nice = _nice_of(pid)
    while nice != wanted and time.monotonic() < end:
        time.sleep(0.01)
        nice = _nice_of(pid)
    return nice


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_workers_keep_the_callers_priority_unless_lowered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "_worker_nice", 0)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    pool = ParsePool(tmp_path)
    try:
        assert pool.procs
        for proc in pool.procs:
            assert proc.args[-1] == "0"  # type: ignore[index]
    finally:
        pool.close()
    lower_worker_priority()
    pool = ParsePool(tmp_path)
    try:
        assert pool.procs
        for proc in pool.procs:
            assert proc.args[-1] == "10"  # type: ignore[index]
            assert _settled_nice(proc.pid, min(base + 10, 19)) == min(base + 10, 19)
    finally:
        pool.close()
