"""The test run's watchdog, a process of its own: ``python hang_watch.py PID SECONDS``.

The run tells it on standard input when a test starts (``start NAME``) and ends (``end``).
A test that runs over SECONDS is a hang: it prints the native stack of every thread of PID
(gdb, when here), then sends PID SIGABRT, on which pytest's faulthandler prints every
thread's Python stack, and SIGKILL if that did not end it.

Out of the process, because a hang may hold the interpreter lock: a deadlock between the
lock and a Qt mutex (a C++ call that PySide makes without letting the lock go) stops every
Python thread of the run, a watchdog thread in it too (CI then waited for its limit).
Ends when its standard input closes (the run is over, or died)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time


def native_stacks(pid: int) -> str:
    gdb = shutil.which("gdb")
    if gdb is None:
        return "(no gdb here: no native stacks)\n"
    command = [gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 30"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"(gdb failed: {exc})\n"
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(("#", "Thread"))]
    return "\n".join(lines) + "\n" if lines else f"(gdb printed no stack: {done.stderr})\n"


def report(pid: int, test: str, seconds: float) -> None:
    out = sys.stdout  # beside the run's own report (CI may keep only the standard output)
    out.write(f"\n\n=== HANG: {test} ran over {seconds:.0f} s; native stacks follow ===\n")
    out.flush()
    out.write(native_stacks(pid))
    out.write(f"=== HANG: {test}: SIGABRT, for every thread's Python stack ===\n")
    out.flush()
    try:
        os.kill(pid, signal.SIGABRT)
        deadline = time.monotonic() + 20
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def alive(pid: int) -> bool:
    """Still running: neither gone nor a zombie waiting for its parent."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def main() -> None:
    pid, seconds = int(sys.argv[1]), float(sys.argv[2])
    test: str | None = None
    started = 0.0
    pending = b""
    while True:
        ready, _, _ = select.select([sys.stdin.buffer], [], [], 2.0)
        if ready:
            chunk = os.read(sys.stdin.fileno(), 65536)
            if not chunk:
                return  # the run is over
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                word, _, rest = line.decode("utf-8", "replace").partition(" ")
                if word == "start":
                    test, started = rest, time.monotonic()
                elif word == "end":
                    test = None
        if test is not None and time.monotonic() - started > seconds:
            report(pid, test, seconds)
            return


if __name__ == "__main__":
    main()
