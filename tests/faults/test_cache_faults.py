"""Hostile cache files (issue 26): a FIFO, a link to ``/dev/zero`` or to a file elsewhere, a
file too large, a flipped byte at the place of each of Librarian's caches. Each is refused
without blocking, said once, and made again; the commands answer as with a good cache, and
nothing is written through the link."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.graph.layout import Layout, layout_file, load_positions, save_positions
from librarian_gui.core.index import cache
from librarian_gui.core.related import fanout
from librarian_gui.core.related.counting import count_rows
from librarian_gui.core.tagging.mention_cache import counts_file
from tests.faults.cases import base_vault

HOUR = 3600  # older than the caches' grace for same-tick rewrites: every cache is kept
PATIENCE = 10.0  # seconds a read may take before the test calls it blocked
CACHES = ("index", "mentions", "related model", "related stamps", "layout")
COMMANDS = {
    "index": ("links", "{vault}", "good/A", "--json"),
    "mentions": ("isolated", "{vault}", "--json"),
    "related model": ("related", "{vault}", "--all", "--json"),
    "related stamps": ("related", "{vault}", "--all", "--json"),
}
IGNORED = "cache file {path} {reason}; ignored and made again"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    base_vault(root)
    past = time.time() - HOUR
    for path in root.rglob("*"):
        os.utime(path, (past, past))
    return root


def cache_path(root: Path, which: str) -> Path:
    index = cache.cache_file(root)
    return {
        "index": index,
        "mentions": counts_file(root),
        "related model": cache.cache_dir() / "related" / f"{index.stem}.npz",
        "related stamps": cache.cache_dir() / "related" / f"{index.stem}.json",
        "layout": layout_file(root),
    }[which]


def ask(root: Path, which: str, capsys: pytest.CaptureFixture[str], caplog: Any) -> Any:
    """What the reader of that cache answers now, and what was said about it: the command's
    exit code and output, or the graph's cached positions; the lines on stderr (every one
    of them "librarian: …") or in the log."""
    caplog.clear()
    if which == "layout":
        return load_positions(root), [r.getMessage() for r in caplog.records]
    args = [arg.format(vault=root) for arg in COMMANDS[which]]
    code = main(args)
    cache.wait_for_save(root)  # the index cache is written on a thread
    out, err = capsys.readouterr()
    assert all(line.startswith("librarian: ") for line in err.splitlines()), err
    return (code, json.loads(out)), [line.removeprefix("librarian: ") for line in err.splitlines()]


def prime(root: Path, which: str, capsys: pytest.CaptureFixture[str], caplog: Any) -> Any:
    """Make that cache (as its own writer does) and return the answer read from it."""
    if which == "layout":
        save_positions(root, graph_layout())
    else:
        ask(root, which, capsys, caplog)
    assert stat.S_ISREG(os.lstat(cache_path(root, which)).st_mode)
    answer, said = ask(root, which, capsys, caplog)  # from the cache
    assert said == []
    return answer


def rewrite(root: Path, which: str) -> None:
    """Let the cache's writer run again (the commands already did; the window's graph
    saves its positions as it closes)."""
    if which == "layout":
        save_positions(root, graph_layout())


def graph_layout() -> Layout:
    layout = Layout(seed=1)
    layout.set_graph(["good/A.md", "good/B.md", "//concept/rag"], [[0, 1], [0, 2]])
    layout.step(5)
    return layout


def in_time(fn: Callable[[], Any], fifos: Sequence[Path] = ()) -> Any:
    """``fn()`` on a thread, failing the test if it has not returned within PATIENCE; who
    is blocked on one of the ``fifos`` (a list that may fill meanwhile) is let go first
    (``release``), so that no thread outlives the test."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as exc:  # handed to the test's thread
            result["error"] = exc

    thread = threading.Thread(target=run, name="cache-fault-reader")
    thread.start()
    thread.join(PATIENCE)
    blocked = thread.is_alive()
    while thread.is_alive() and fifos:
        for fifo in fifos:
            release(fifo)
        thread.join(0.1)
    thread.join()
    if blocked:
        pytest.fail(f"blocked for {PATIENCE:.0f} s on {', '.join(map(str, fifos))}")
    if "error" in result:
        raise result["error"]
    return result["value"]


def release(fifo: Path) -> None:
    """Let go whoever is blocked on ``fifo``: a reader waiting for a writer, a writer for a
    reader (drained)."""
    for flags in (os.O_WRONLY, os.O_RDONLY):
        try:
            fd = os.open(fifo, flags | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if flags == os.O_RDONLY:
                while True:
                    try:
                        if not os.read(fd, 1 << 16):
                            break
                    except BlockingIOError:
                        time.sleep(0.01)
        finally:
            os.close(fd)


@pytest.mark.parametrize("which", CACHES)
def test_a_fifo_at_a_cache_is_refused_without_blocking(
    vault: Path, which: str, capsys: pytest.CaptureFixture[str], caplog: Any
) -> None:
    clean = prime(vault, which, capsys, caplog)
    path = cache_path(vault, which)
    path.unlink()
    os.mkfifo(path)
    answer, said = in_time(lambda: ask(vault, which, capsys, caplog), [path])
    assert answer == ({} if which == "layout" else clean)
    assert said == [IGNORED.format(path=path, reason="is not a regular file")]
    rewrite(vault, which)
    assert stat.S_ISREG(os.lstat(path).st_mode)  # the FIFO itself replaced
    assert ask(vault, which, capsys, caplog)[1] == []


@pytest.mark.parametrize("which", CACHES)
def test_a_link_at_a_cache_is_refused_and_never_written_through(
    vault: Path, which: str, capsys: pytest.CaptureFixture[str], caplog: Any, tmp_path: Path
) -> None:
    """A link to a good cache elsewhere: not read through, and replaced by a private file
    of its own (not given the mode of the file it pointed to), that file left as it was."""
    clean = prime(vault, which, capsys, caplog)
    path = cache_path(vault, which)
    elsewhere = tmp_path / "elsewhere" / path.name
    elsewhere.parent.mkdir()
    os.replace(path, elsewhere)
    elsewhere.chmod(0o666)
    kept = elsewhere.read_bytes()
    os.symlink(elsewhere, path)
    answer, said = in_time(lambda: ask(vault, which, capsys, caplog))
    assert answer == ({} if which == "layout" else clean)
    assert said == [IGNORED.format(path=path, reason="is a symbolic link")]
    rewrite(vault, which)
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert elsewhere.read_bytes() == kept
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o666


def _flip_index(data: bytes) -> bytes:
    return data.replace(b"good/B.md", b"good/Z.md")


def _flip_count(data: bytes) -> bytes:
    assert data.count(b'"rag": 1') == 1
    return data.replace(b'"rag": 1', b'"rag": 7')


def _flip_middle(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :]


def _flip_k(data: bytes) -> bytes:
    assert data.count(b'"k": 10') == 1
    return data.replace(b'"k": 10', b'"k": 11')


def _flip_position(data: bytes) -> bytes:
    return data[:-40] + bytes([data[-40] ^ 1]) + data[-39:]  # a position's lowest byte


FLIPS = {
    "index": _flip_index,
    "mentions": _flip_count,  # a flipped count was reported as it was
    "related model": _flip_middle,
    "related stamps": _flip_k,
    "layout": _flip_position,
}


@pytest.mark.parametrize("which", CACHES)
def test_a_flipped_byte_in_a_cache_is_found_and_the_cache_made_again(
    vault: Path, which: str, capsys: pytest.CaptureFixture[str], caplog: Any
) -> None:
    clean = prime(vault, which, capsys, caplog)
    path = cache_path(vault, which)
    damaged = FLIPS[which](path.read_bytes())
    path.write_bytes(damaged)
    answer, said = ask(vault, which, capsys, caplog)
    assert answer == ({} if which == "layout" else clean)
    assert said == [IGNORED.format(path=path, reason="is damaged (its checksum does not match)")]
    rewrite(vault, which)
    assert path.read_bytes() != damaged
    assert ask(vault, which, capsys, caplog) == (clean, [])


# Run in a process of its own, its memory capped: a reader that follows the link reads
# /dev/zero until the cap (or, uncapped, until the OOM killer), and one that reads a file
# of any size reads the sparse one whole. Each step links the caches it names to
# /dev/zero, makes one a sparse file of the size it gives, then asks: the command line, or
# (no command) the graph's cached positions.
DEV_ZERO_CHILD = """
import json, os, resource, sys
from pathlib import Path

resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from librarian_gui.cli import main
from librarian_gui.core.graph.layout import load_positions
from librarian_gui.core.index import cache

vault = Path(sys.argv[2])
answers = []
for args, links, grown, size in json.loads(sys.argv[3]):
    for path in map(Path, links):
        path.unlink()
        path.symlink_to("/dev/zero")
    if grown:
        os.truncate(grown, size)
    answers.append(main(args) if args else load_positions(vault))
    cache.wait_for_save(vault)
# This process's own peak (ru_maxrss would start from the test run's, the spawning one).
status = Path("/proc/self/status").read_text().splitlines()
peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps([answers, peak]), file=sys.stderr)
"""
MEMORY = 1 << 30  # the child's address space: about 600 MB of it is numpy's and scipy's


def test_a_link_to_dev_zero_and_a_file_too_large_are_refused_unread(
    vault: Path, capsys: pytest.CaptureFixture[str], caplog: Any
) -> None:
    for which in CACHES:
        prime(vault, which, capsys, caplog)
    index, mentions, model, stamps, layout = (cache_path(vault, which) for which in CACHES)
    links = ["links", str(vault), "good/A", "--json"]
    related = ["related", str(vault), "--all", "--json"]
    too_large = cache.MAX_BYTES + 1
    steps = [
        (links, [index], None, 0),
        (["isolated", str(vault), "--json"], [index, mentions], None, 0),
        (related, [index, stamps], None, 0),  # the model is not read without its stamps
        (related, [index, model], None, 0),
        ([], [layout], None, 0),
        (links, [], index, too_large),  # as the index cache was just written again
    ]
    plan = json.dumps([(a, list(map(str, paths)), g and str(g), n) for a, paths, g, n in steps])
    done = subprocess.run(
        [sys.executable, "-c", DEV_ZERO_CHILD, str(MEMORY), str(vault), plan],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    *said, last = done.stderr.splitlines()
    answers, peak = json.loads(last)
    assert answers == [0, 0, 0, 0, {}, 0]
    assert peak < 400e6  # bytes: never a buffer of zeros
    link = "is a symbolic link"
    size = f"is too large ({too_large} bytes, at most {cache.MAX_BYTES})"
    assert said == [
        "librarian: " + IGNORED.format(path=path, reason=reason)
        for path, reason in (
            *((path, link) for path in (index, index, mentions, index, stamps, index, model)),
            (layout, link),  # said on stderr as the command line says it (its handler)
            (index, size),
        )
    ]
    assert index.stat().st_size < 1 << 20  # written again


def test_the_other_process_does_not_write_through_a_fifo_in_its_place(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The second process of a large count hands its rows back in a file of a private
    folder: a FIFO made at that name (by the same user) is replaced, not written to (the
    other process blocked there, and the count waited for it forever)."""
    texts = [f"note {n} apple river stone {n % 7} cloud" for n in range(40)]
    concepts: list[tuple[str, ...]] = [()] * len(texts)
    own: list[str | None] = [None] * len(texts)
    basis: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    monkeypatch.setattr(fanout, "PROCESS_NOTES", 2)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    planted: list[Path] = []

    def plant() -> None:
        deadline = time.monotonic() + PATIENCE
        while not planted and time.monotonic() < deadline:
            for folder in tmp_path.glob("librarian-count-*"):
                os.mkfifo(folder / "rows.pickle")
                planted.append(folder / "rows.pickle")
            time.sleep(0.001)

    planter = threading.Thread(target=plant, name="fifo-planter")
    planter.start()
    try:
        ids, values, table = in_time(lambda: fanout.count_all(texts, concepts, own, basis), planted)
    finally:
        planter.join()
    assert len(planted) == 1, "the count's folder never appeared"
    one_ids, one_values, one_table = count_rows(texts, concepts, own, basis, {})
    assert list(table) == list(one_table)
    assert [row.tolist() for row in ids] == [row.tolist() for row in one_ids]
    assert [row.tolist() for row in values] == [row.tolist() for row in one_values]
