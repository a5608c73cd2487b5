"""A worker process for the postings' first count (``postings.NoteTerms``, ``Many``): reads
notes and counts their terms, as ``parse_worker`` parses them (``reading.ParsePool`` runs
it: a vault's first question counts every note, on the cores there are).

Input: one frame, the marshalled list of "path\\0title" items. Output: per chunk of notes,
a frame of the marshalled ``(process id, terms new to this process, [WorkerRow])``: each
row's term ids number this process's terms in the order they were first sent, so the
caller maps them to its own as the chunks come; then end of stream. A note that cannot be
read counts as an empty text, as the caller's own reading does."""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
from pathlib import Path

from ..vault.files import read_note
from ..vault.reading import CHUNK, read_frame, write_frame
from .postings import TermCounter, WorkerRow


def text_of(root: Path, rel: str) -> str:
    """A note's text as the agents' reading gives it (``corpus._read``): none → ""."""
    try:
        return read_note(root, rel).text or ""
    except (OSError, UnicodeError):
        return ""


def main() -> int:
    gc.disable()  # arrays and small tuples, no cycles
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if step:  # a window's workers let its GUI thread go first (see parse_worker)
        with contextlib.suppress(OSError, AttributeError):
            os.nice(step)
    root = Path(sys.argv[1])
    frame = read_frame(sys.stdin.buffer)
    items: list[str] = marshal.loads(frame) if frame else []
    vocab: dict[str, int] = {}
    counter = TermCounter(vocab)
    sent = 0
    out = sys.stdout.buffer
    worker = os.getpid()
    for i in range(0, len(items), CHUNK):
        rows: list[WorkerRow] = []
        for item in items[i : i + CHUNK]:
            rel, _, title = item.partition("\0")
            ids, tfs, length = counter.count(title, text_of(root, rel))
            rows.append((rel, ids.tobytes(), tfs.tobytes(), length))
        new_terms = list(vocab)[sent:]
        sent = len(vocab)
        write_frame(out, marshal.dumps((worker, new_terms, rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
