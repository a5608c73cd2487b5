"""The test run's watchdog (tests/hang_watch.py) on a real process that hangs holding the
interpreter lock, the kind of hang a watchdog thread inside the run never saw."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WATCH = Path(__file__).resolve().parents[1] / "hang_watch.py"

# A process whose faulthandler prints to its standard output, and whose second thread holds
# the interpreter lock in a C call that never lets it go (ctypes.PyDLL keeps the lock).
VICTIM = """
import ctypes, faulthandler, sys, threading, time
faulthandler.enable(file=sys.stdout, all_threads=True)
def hold_the_lock():
    ctypes.PyDLL(None).sleep(600)
print("ready", flush=True)
threading.Thread(target=hold_the_lock, name="lock-holder").start()
time.sleep(600)
"""


@contextmanager
def running(command: list[str], **pipes: int) -> Iterator[subprocess.Popen[str]]:
    """The process, killed on the way out if it still runs, its pipes closed."""
    with subprocess.Popen(command, text=True, **pipes) as process:  # type: ignore[call-overload]
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def test_a_hang_holding_the_interpreter_lock_is_reported_and_ended() -> None:
    pipe = subprocess.PIPE
    with running([sys.executable, "-c", VICTIM], stdout=pipe) as victim:
        assert victim.stdout is not None
        assert victim.stdout.readline() == "ready\n"
        with running(
            [sys.executable, str(WATCH), str(victim.pid), "1"], stdin=pipe, stdout=pipe
        ) as watch:
            assert watch.stdin is not None and watch.stdout is not None
            watch.stdin.write("start tests/x.py::test_stuck\n")
            watch.stdin.flush()
            told = watch.stdout.read()  # its input stays open: the run is not over
            assert watch.wait(timeout=30) == 0
        said = victim.stdout.read()
        assert victim.wait(timeout=30) == -signal.SIGABRT
    assert "=== HANG: tests/x.py::test_stuck ran over 1 s" in told
    assert "=== HANG: tests/x.py::test_stuck: SIGABRT" in told
    # faulthandler's report of the aborted process names the thread holding the lock
    assert "Fatal Python error: Aborted" in said
    assert "in hold_the_lock" in said


def test_a_test_that_ends_in_time_is_left_alone() -> None:
    pipe = subprocess.PIPE
    with running([sys.executable, "-c", "import time; time.sleep(600)"]) as victim:
        with running(
            [sys.executable, str(WATCH), str(victim.pid), "1"], stdin=pipe, stdout=pipe
        ) as watch:
            told, _ = watch.communicate("start a\nend\nstart b\nend\n", timeout=30)
        # the input closed (the run is over): the watchdog ended, and the process lives on
        assert told == ""
        assert watch.returncode == 0
        assert victim.poll() is None
