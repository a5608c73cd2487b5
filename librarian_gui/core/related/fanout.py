"""Counting a large vault's words on two cores: the counting is string work in Python, which
holds the GIL, so a second core helps only from a second process. That process is this
module run by the same Python (``python -m``), not multiprocessing's: a spawned
multiprocessing child imports the caller's main script again, and a fork copies a process
whose other threads (Qt's, watchdog's) may hold locks."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .counting import count_rows

PROCESS_NOTES = 2_000  # fewer notes: starting a process (~0.2 s) costs more than it saves
POLL_S = 0.02  # while the other process finishes: ``check`` this often

Rows = tuple[list[npt.NDArray[np.int32]], list[npt.NDArray[np.int32]], dict[str, int]]


def count_all(
    texts: Sequence[str],
    concepts: Sequence[Collection[str]],
    own: Sequence[str | None],
    basis: tuple[frozenset[str], frozenset[str]],
    check: Callable[[], None] | None = None,
    second_process: bool = True,
) -> Rows:
    """``count_rows`` of every text from an empty word table, to the same result: for a
    large vault the second half is counted by another process meanwhile (not in a frozen
    app, whose executable is the app, nor on one core, nor without ``second_process``;
    counted here when it fails)."""
    total = len(texts)
    alone = not second_process or getattr(sys, "frozen", False) or (os.cpu_count() or 1) < 2
    if total < PROCESS_NOTES or alone:
        return count_rows(texts, concepts, own, basis, {}, check)
    half = total // 2
    with tempfile.TemporaryDirectory(prefix="librarian-count-") as folder:
        given, taken = Path(folder) / "work.pickle", Path(folder) / "rows.pickle"
        work = (texts[half:], concepts[half:], own[half:], basis)
        given.write_bytes(pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL))
        # The same modules as here, wherever they were found (a script may have put the
        # project on sys.path itself).
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        other = subprocess.Popen(
            [sys.executable, "-m", __name__, str(given), str(taken)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            mine = count_rows(texts[:half], concepts[:half], own[:half], basis, {}, check)
            while other.poll() is None:
                if check is not None:
                    check()
                time.sleep(POLL_S)
            if other.returncode != 0:
                return count_rows(texts, concepts, own, basis, {}, check)
            theirs: Rows = pickle.loads(taken.read_bytes())
        finally:
            if other.poll() is None:  # cancelled: the other half is not wanted any more
                other.kill()
                other.wait()
    return merged([mine, theirs])


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


def _serve(given: Path, taken: Path) -> None:
    """The other process: count the work in ``given``, the rows to ``taken``."""
    texts, concepts, own, basis = pickle.loads(given.read_bytes())
    rows = count_rows(texts, concepts, own, basis, {})
    taken.write_bytes(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), Path(sys.argv[2]))
