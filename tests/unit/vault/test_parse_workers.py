"""Parse workers run at their caller's priority unless a window asks them to run lower: a
command line or an MCP server waits for the parse (niced, a cold scan beside two busy
processes took 4-6 times as long), a window's GUI thread needs the cores first."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from librarian_gui.core.vault import reading
from librarian_gui.core.vault.reading import ForkedWorker, ParsePool, lower_worker_priority


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
@pytest.mark.parametrize("alone", [True, False], ids=["forked", "interpreters"])
def test_workers_keep_the_callers_priority_unless_lowered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alone: bool
) -> None:
    monkeypatch.setattr(reading, "_worker_nice", 0)
    monkeypatch.setattr(reading, "_alone", lambda: alone)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    pool = ParsePool(tmp_path)
    try:
        assert pool.procs
        for proc in pool.procs:
            assert isinstance(proc, ForkedWorker) is alone
            assert _nice_of(proc.pid) == base
    finally:
        pool.close()
    lower_worker_priority()
    pool = ParsePool(tmp_path)
    try:
        assert pool.procs
        for proc in pool.procs:
            assert _settled_nice(proc.pid, min(base + 10, 19)) == min(base + 10, 19)
    finally:
        pool.close()


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_forked_workers_read_what_interpreters_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process with no other thread (the command line's scan) forks its workers, the parser
    # already imported, instead of starting interpreters: the same rows either way.
    rels = []
    for i in range(30):
        rel = f"folder {i % 3}/note {i}.md"
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(
            f"---\ntags: [t{i % 4}]\n---\n# Note {i}\n\nSee [[note {i + 1}]] and "
            f"[the next](note%20{i + 2}.md#Part) #tag{i % 5}\n"
        )
        rels.append(rel)
    (tmp_path / "binary.md").write_bytes(b"\x00\x01 not text")
    rels += ["binary.md", "gone.md"]
    answers = {}
    for alone in (True, False):
        monkeypatch.setattr(reading, "_alone", lambda alone=alone: alone)
        pool = ParsePool(tmp_path)
        assert pool.procs
        for proc in pool.procs:
            assert isinstance(proc, ForkedWorker) is alone
            if alone:
                assert _parent_of(proc.pid) == os.getpid()
        answers[alone] = sorted(row for chunk in pool.run(rels) for row in chunk)
    assert len(answers[True]) == len(rels)
    assert answers[True] == answers[False]
