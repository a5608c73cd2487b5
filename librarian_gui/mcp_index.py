"""The MCP server's index in a process of its own, answering the server's calls over pipes.

Why a second process: the server's start is the ``mcp`` SDK's import (0.45-0.7 s of CPU)
and the index's load from its cache (0.75 s at 50,000 notes), and in one process both hold
the same interpreter lock, one after the other. Forked once the tools' modules are imported,
the index loads on one core while the SDK imports on the other.

``start`` forks; the child runs ``answer`` over the vault's tools until the server closes
its end, then exits. The server's end is an ``IndexProcess``: ``call`` sends a tool's name,
its arguments and the calling client, and waits for the answer or the refusal's message.
Each call is a frame (``reading.write_frame``) of pickled plain data, both ways; calls are
answered concurrently, on threads of the child's, as the SDK runs them on its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .core.vault.forked import fork_joined
from .core.vault.reading import read_frame, write_frame

_log = logging.getLogger(__name__)

# As many calls at once as the SDK runs (anyio's worker threads).
CONCURRENT_CALLS = 40

Caller = tuple[str, str]
Handler = Callable[[str, dict[str, Any], Caller], Any]


class Refused(Exception):
    """A tool's refusal, its message as the agent is told it."""


class IndexGone(LookupError):
    """The index process stopped: every call from then on is refused with this."""


def start(run: Callable[[BinaryIO, BinaryIO], None]) -> IndexProcess | None:
    """Fork a process running ``run(calls, answers)`` until it returns, then exiting; None
    where no process can be forked safely (no ``fork`` on this system, another thread
    running here, the system refusing): the caller then serves in its own process.

    The child keeps nothing of the server's standard input and output (the MCP client's
    pipes): its input is the null device and its output goes to standard error, so that no
    stray print can reach the client."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return None

    def child(calls: BinaryIO, answers: BinaryIO) -> None:
        try:
            # A Ctrl+C in a terminal reaches every process of the group: the server's end
            # of the pipes, not a signal, ends this one, so it never leaves a server
            # running without its index.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(2, 1)
            os.close(null)
            run(calls, answers)
            # As the interpreter's own exit would: a cache still being saved is finished.
            for thread in threading.enumerate():
                if thread is not threading.current_thread() and not thread.daemon:
                    thread.join()
        except BaseException:
            traceback.print_exc()
            raise

    joined = fork_joined(child)
    if joined is None:
        return None
    pid, from_other, to_other = joined
    return IndexProcess(pid, os.fdopen(to_other, "wb"), os.fdopen(from_other, "rb"))


@dataclass
class _Call:
    done: threading.Event = field(default_factory=threading.Event)
    answered: bool = False
    value: Any = None


class IndexProcess:
    """The server's end of the index process."""

    def __init__(self, pid: int, calls: BinaryIO, answers: BinaryIO) -> None:
        self.pid = pid
        self._calls = calls
        self._answers = answers
        self._lock = threading.Lock()  # the pending calls, the next key, the calls' pipe
        self._pending: dict[int, _Call] = {}
        self._next = 0
        self._gone: str | None = None
        self._reader = threading.Thread(target=self._read, name="index-answers", daemon=True)
        self._reader.start()

    def call(self, name: str, arguments: dict[str, Any], caller: Caller) -> Any:
        """The tool's answer, computed in the index process; raises ``Refused`` with the
        message of its refusal, ``IndexGone`` once that process has stopped."""
        waiting = _Call()
        with self._lock:
            if self._gone is not None:
                raise IndexGone(self._gone)
            self._next += 1
            key = self._next
            self._pending[key] = waiting
            # Should it have stopped, its answers' end says how (``_read``).
            with contextlib.suppress(OSError, ValueError):
                write_frame(self._calls, pickle.dumps((key, name, arguments, caller), 5))
        waiting.done.wait()
        if not waiting.answered:
            raise IndexGone(waiting.value)
        ok, value = waiting.value
        if not ok:
            raise Refused(value)
        return value

    def close(self) -> None:
        """Close the calls' end: the index process answers what it was asked, closes the
        vault (its threads, its cache saved) and exits; this waits for it."""
        with self._lock, contextlib.suppress(OSError):
            self._calls.close()
        self._reader.join()

    def _read(self) -> None:
        try:
            while (frame := read_frame(self._answers)) is not None:
                key, ok, value = pickle.loads(frame)
                with self._lock:
                    waiting = self._pending.pop(key)
                waiting.answered = True
                waiting.value = (ok, value)
                waiting.done.set()
        except (OSError, ValueError, EOFError, pickle.UnpicklingError) as exc:
            _log.error("the index process's answers could not be read: %s", exc)
        finally:
            self._answers.close()
            gone = (
                f"the vault's index process stopped ({_status(self.pid)}): start the server again"
            )
            with self._lock:
                self._gone = gone
                pending, self._pending = self._pending, {}
            for waiting in pending.values():
                waiting.value = gone
                waiting.done.set()


def _status(pid: int) -> str:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "exit status unknown"
    code = os.waitstatus_to_exitcode(status)
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def answer(calls: BinaryIO, answers: BinaryIO, handle: Handler) -> None:
    """The index process's loop: each call read from ``calls`` is run by ``handle(name,
    arguments, caller)`` on one of ``CONCURRENT_CALLS`` threads (a long one never holds up
    the next) and its answer, or the message of the ``Refused`` it raised, written to
    ``answers``. Returns once ``calls`` ends and every call is answered."""
    lock = threading.Lock()

    def send(key: int, ok: bool, value: Any) -> None:
        try:
            data = pickle.dumps((key, ok, value), 5)
        except Exception as exc:  # an answer that is not plain data: a bug, said
            _log.error("the answer to call %d could not be sent", key, exc_info=exc)
            data = pickle.dumps((key, False, f"the answer could not be sent ({exc})"), 5)
        # The server gone: nobody to tell.
        with lock, contextlib.suppress(OSError, ValueError):
            write_frame(answers, data)

    def run(key: int, name: str, arguments: dict[str, Any], caller: Caller) -> None:
        try:
            send(key, True, handle(name, arguments, caller))
        except Refused as exc:
            send(key, False, str(exc))
        except Exception as exc:  # ``handle`` refuses with Refused: anything else is a bug
            _log.error("call %s failed", name, exc_info=exc)
            send(key, False, f"the server failed: {type(exc).__name__}: {exc}")

    reading = threading.Lock()

    def take_calls() -> None:
        # Whichever thread is free reads the next call and runs it itself: a call wakes
        # one thread, not a reader and then a worker (each wake waits for the interpreter,
        # held by the index's own updates after a write).
        while True:
            with reading:
                try:
                    frame = read_frame(calls)
                except (OSError, ValueError, EOFError):
                    frame = None
            if frame is None:
                return
            run(*pickle.loads(frame))

    threads = [
        threading.Thread(target=take_calls, name=f"index-call-{n}", daemon=True)
        for n in range(CONCURRENT_CALLS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
