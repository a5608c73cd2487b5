"""An agent appending to a note while Librarian writes it: ``python -m tests.appender``.

Usage: ``python -m tests.appender NOTE COUNT SEED [--hold]``. Appends ``COUNT`` lines
``agent line N mentions alpha`` (N from 0), one every 2–5 ms (a seeded random pause), each
with its own ``os.open(O_APPEND)``, write, close — as an agent's append does. With
``--hold`` it opens the note once and keeps that descriptor across every write instead (a
logger holding the file open). It prints ``ready`` once started and ``done`` at the end.
"""

from __future__ import annotations

import os
import random
import sys
import time


def main(argv: list[str]) -> int:
    note, count, seed = argv[0], int(argv[1]), int(argv[2])
    hold = "--hold" in argv[3:]
    pause = random.Random(seed)
    print("ready", flush=True)
    held = os.open(note, os.O_WRONLY | os.O_APPEND) if hold else -1
    for number in range(count):
        line = f"agent line {number} mentions alpha\n".encode()
        if hold:
            os.write(held, line)
        else:
            fd = os.open(note, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        time.sleep(pause.uniform(0.002, 0.005))  # an agent writing line by line, not at once
    if hold:
        os.close(held)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
