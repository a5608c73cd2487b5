"""Counting a large vault's words on two cores: the counting is string work in Python, which
holds the GIL, so a second core helps only from a second process. That process is this
module run by the same Python (``python -m``), not multiprocessing's: a spawned
multiprocessing child imports the caller's main script again, and a fork copies a process
whose other threads (Qt's, watchdog's) may hold locks."""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..index import cachefile
from .counting import count_rows

PROCESS_NOTES = 2_000  # fewer notes: starting a process (~0.2 s) costs more than it saves
POLL_S = 0.02  # while the other process finishes: ``check`` this often
# The other process's share of the notes: less than half, as it also starts, takes the work
# in and hands its rows back (50,000 notes: about 1.5 s of its time).
OTHER_SHARE = 0.45

Rows = tuple[list[npt.NDArray[np.int32]], list[npt.NDArray[np.int32]], dict[str, int]]
Hashes = npt.NDArray[np.uint64]
# The other process's rows as one array of word numbers, one of counts and each row's length
# (25,000 small arrays took ten times as long to pickle and unpickle), and its word table.
Packed = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int64], dict[str, int]]


def count_all(
    texts: Sequence[str],
    concepts: Sequence[Collection[str]],
    own: Sequence[str | None],
    basis: tuple[frozenset[str], frozenset[str]],
    check: Callable[[], None] | None = None,
    second_process: bool = True,
    passages: list[Hashes] | None = None,
) -> Rows:
    """``count_rows`` of every text from an empty word table, to the same result: for a
    large vault the last ``OTHER_SHARE`` is counted by another process meanwhile (not in a
    frozen app, whose executable is the app, nor on one core, nor without
    ``second_process``; counted here when it fails). ``passages``: see ``count_rows``."""
    total = len(texts)
    alone = not second_process or getattr(sys, "frozen", False) or (os.cpu_count() or 1) < 2
    if total < PROCESS_NOTES or alone:
        return _counted(texts, concepts, own, basis, check, passages)
    half = total - int(total * OTHER_SHARE)
    with tempfile.TemporaryDirectory(prefix="librarian-count-") as folder:
        taken = Path(folder) / "rows.pickle"
        # The same modules as here, wherever they were found (a script may have put the
        # project on sys.path itself).
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        # Started first: it imports while the work is pickled; it reads the work from a pipe.
        other = subprocess.Popen(
            [sys.executable, "-m", __name__, str(taken)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        work = (texts[half:], concepts[half:], own[half:], basis, passages is not None)
        try:
            payload = pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL)
            _feed(other, payload)
            found: list[Hashes] | None = None if passages is None else []
            mine = _counted(texts[:half], concepts[:half], own[:half], basis, check, found)
            while other.poll() is None:
                if check is not None:
                    check()
                time.sleep(POLL_S)
            # Rows are 8 bytes a distinct word of a note, passages 8 a word at most, and a
            # word takes 2 bytes of the work at least: 16 times the work bounds them.
            data = cachefile.read_cache(taken, 16 * len(payload) + (1 << 20))
            if other.returncode != 0 or data is None:
                return _counted(texts, concepts, own, basis, check, passages)
            rows, their_passages = pickle.loads(data)
            theirs = unpacked(rows)
            if passages is not None and found is not None:
                passages.extend(found)
                passages.extend(_split(their_passages))
        finally:
            if other.poll() is None:  # cancelled: the other half is not wanted any more
                other.kill()
                other.wait()
    return merged([mine, theirs])


def _counted(
    texts: Sequence[str],
    concepts: Sequence[Collection[str]],
    own: Sequence[str | None],
    basis: tuple[frozenset[str], frozenset[str]],
    check: Callable[[], None] | None,
    passages: list[Hashes] | None = None,
) -> Rows:
    """``count_rows`` from an empty table with the cyclic garbage collector paused."""
    with collector_paused():
        return count_rows(texts, concepts, own, basis, {}, check, passages)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (as it was after): building a model makes and
    drops objects that hold no cycle (a Counter and a set a note), and each collection they
    set off walks every object of the process; in one holding a large index (the command
    line, the benchmark's) that was 3 s of a 50,000-note build."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _feed(other: subprocess.Popen[bytes], payload: bytes) -> None:
    """Hand the other process its work (as fast as it reads: a tenth of a second for 100 MB);
    a process that failed meanwhile takes none (it is counted here, after its exit)."""
    assert other.stdin is not None
    try:
        other.stdin.write(payload)
        other.stdin.close()
    except OSError:
        pass


def packed(rows: Rows) -> Packed:
    """Rows as ``Packed`` (see there)."""
    ids, values, table = rows
    lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    empty = np.zeros(0, dtype=np.int32)
    return (
        np.concatenate(ids) if ids else empty,
        np.concatenate(values) if values else empty,
        lengths,
        table,
    )


def unpacked(rows: Packed) -> Rows:
    """``packed`` rows as they were: an array a row."""
    ids, values, lengths, table = rows
    if len(lengths) == 0:
        return [], [], table
    cuts = np.cumsum(lengths)[:-1]
    return list(np.split(ids, cuts)), list(np.split(values, cuts)), table


def merged(parts: Sequence[Rows]) -> Rows:
    """Rows counted in parts, each over its own word table, over one table: each part's
    words in the order first met, after the words of the parts before (so, numbered as one
    ``count_rows`` over all the texts would number them)."""
    index: dict[str, int] = {}
    ids: list[npt.NDArray[np.int32]] = []
    values: list[npt.NDArray[np.int32]] = []
    for part_ids, part_values, table in parts:
        renumber = np.fromiter(
            (index.setdefault(word, len(index)) for word in table), np.int32, len(table)
        )
        ids.extend(renumber[row] for row in part_ids)
        values.extend(part_values)
    return ids, values, index


def _serve(taken: Path) -> None:
    """The other process: count the work on its standard input, the rows to ``taken``."""
    gc.disable()  # a process of one job: nothing to collect that its end does not free
    texts, concepts, own, basis, wanted = pickle.load(sys.stdin.buffer)
    passages: list[Hashes] | None = [] if wanted else None
    rows = packed(count_rows(texts, concepts, own, basis, {}, None, passages))
    # Each note's passage hashes as one array and each note's length, as the rows are.
    joined = None
    if passages is not None:
        lengths = np.fromiter(map(len, passages), dtype=np.int64, count=len(passages))
        joined = (np.concatenate(passages) if passages else np.zeros(0, np.uint64), lengths)
    # A new file moved over the name, as Librarian's caches are: whatever was made there
    # meanwhile (a FIFO would block this write, and the count waiting for it, forever) is
    # replaced, not written to or through.
    fd, tmp = tempfile.mkstemp(prefix=".rows-", dir=taken.parent)
    with os.fdopen(fd, "wb") as out:
        pickle.dump((rows, joined), out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, taken)


def _split(joined: tuple[Hashes, npt.NDArray[np.int64]] | None) -> list[Hashes]:
    """The other process's passage hashes, an array a note again."""
    if joined is None:
        return []
    hashes, lengths = joined
    return list(np.split(hashes, np.cumsum(lengths)[:-1])) if len(lengths) else []


if __name__ == "__main__":
    _serve(Path(sys.argv[1]))
