"""A worker process for ``duplicates``: reads note paths on stdin, writes each note's
passages on stdout (as ``parse_worker`` does for parsing; ``reading.ParsePool`` runs it).

Input: one frame, the marshalled list of vault-relative paths. Output: per chunk of notes, a
frame of the marshalled ``(paths read, [(path, first, last, word hashes as bytes)],
signatures)`` (the passages' MinHash signatures, a row of ``PERMUTATIONS`` uint32 each, as
bytes), then end of stream."""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
from pathlib import Path

from ..vault.files import read_note
from ..vault.reading import CHUNK, read_frame, write_frame
from .duplicates import MIN_WORDS, Passage, passages_of, signatures


def main() -> int:
    gc.disable()  # many small objects, no cycles
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if step:  # a window's workers let its GUI thread go first (see parse_worker)
        with contextlib.suppress(OSError, AttributeError):
            os.nice(step)
    root = Path(sys.argv[1])
    min_words = int(sys.argv[3]) if len(sys.argv) > 3 else MIN_WORDS
    frame = read_frame(sys.stdin.buffer)
    rels: list[str] = marshal.loads(frame) if frame else []
    out = sys.stdout.buffer
    for i in range(0, len(rels), CHUNK):
        passages: list[Passage] = []
        for rel in rels[i : i + CHUNK]:
            text = read_note(root, rel).text
            if text is not None:
                passages.extend(passages_of(rel, text, min_words))
        rows = [(p.note, p.first, p.last, p.words.tobytes()) for p in passages]
        # their MinHash signatures too, a row each: the main process only compares
        made = signatures(passages).T.copy().tobytes() if passages else b""
        write_frame(out, marshal.dumps((rels[i : i + CHUNK], rows, made)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
