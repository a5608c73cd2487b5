"""Background jobs: one worker thread per runner, and a handle per request that brings its
own result back to the GUI thread."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot


class JobCancelled(Exception):
    """Raised inside a job whose result nobody wants any more; its handle stays silent."""


class JobControl:
    """What a running job sees of its request: whether it was cancelled, and where to tell
    its progress. Made in the GUI thread, read on the worker: a threading event, because a
    "cancel" sent as a queued signal would wait in the worker's queue behind the running job."""

    __slots__ = ("_event", "_last", "_report")

    def __init__(self, report: Callable[[int, int], None]) -> None:
        self._event = threading.Event()
        self._report = report
        self._last = -1

    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        self._event.set()

    def check(self) -> None:
        """Raise ``JobCancelled`` if the job was cancelled: for long loops, between chunks."""
        if self._event.is_set():
            raise JobCancelled

    def progress(self, done: int, total: int) -> None:
        """Tell the handle how far the job is (at most one report per percent, however
        many items); raises ``JobCancelled`` once cancelled."""
        self.check()
        percent = done * 100 // max(total, 1)
        if percent != self._last:
            self._last = percent
            self._report(done, total)


class JobHandle(QObject):
    """One submitted job, in the GUI thread: its result arrives here and nowhere else.

    The result is delivered through the GUI thread's event queue, so a requester that
    connects right after ``submit`` returns never misses it. Once cancelled, the handle
    emits nothing more; the runner lets go of it when its job is over.

    Signals:
        progressed(int, int): items done, of total (only from jobs that report progress).
        finished(object): the job's result.
        failed(object): the exception the job raised (``JobCancelled`` never arrives).
    """

    progressed = Signal(int, int)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, name: str, control: JobControl) -> None:
        super().__init__()
        self.name = name
        self._control = control
        self.done = False  # its job has ended, whether it delivered or not

    def cancel(self) -> None:
        """Drop the result; a job that checks its control stops at its next check."""
        self._control.cancel()

    @property
    def cancelled(self) -> bool:
        return self._control.cancelled()

    def __repr__(self) -> str:
        state = "done" if self.done else "cancelled" if self.cancelled else "pending"
        return f"<JobHandle {self.name or '?'} {state}>"


class JobRunner(QObject):
    """Runs submitted jobs one after another on a thread of its own; each ``submit`` gets
    a ``JobHandle`` that delivers the job's result (or exception) in the GUI thread.

    ``close()`` waits for the running job and stops the thread; results still on their way
    are dropped.

    Signals:
        job_submitted(str): a job of this name was queued (for tests and diagnostics: the
            results never come this way, only on each job's handle).
    """

    job_submitted = Signal(str)
    # Internal: from the worker, queued to this object's (the GUI) thread.
    _worker_ended = Signal(int, bool, object)  # job number, succeeded, result or exception
    _worker_progressed = Signal(int, int, int)  # job number, done, total

    def __init__(self, thread_name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=thread_name)
        # The thread starts now: started by a first job, it kept the GUI thread waiting
        # until it ran, behind the updater for the interpreter lock (up to 20 ms).
        self._pool.submit(lambda: None)
        self._live: dict[int, JobHandle] = {}  # submitted and not ended: kept alive here
        self._numbers = itertools.count(1)
        self._closed = False
        queued = Qt.ConnectionType.QueuedConnection  # even if it were emitted from here
        self._worker_ended.connect(self._on_worker_ended, queued)
        self._worker_progressed.connect(self._on_worker_progressed, queued)

    @property
    def pending(self) -> int:
        """Jobs submitted whose end has not reached the GUI thread yet."""
        return len(self._live)

    def submit(self, job: Callable[[JobControl], Any], *, name: str = "") -> JobHandle:
        """Queue ``job(control)``; its result comes on the returned handle's ``finished``,
        an exception it raises on ``failed``. From the GUI thread only. After ``close()``
        the handle never answers."""
        assert QThread.currentThread() == self.thread(), "submit from the runner's thread"
        number = next(self._numbers)
        ended, progressed = self._worker_ended, self._worker_progressed

        def report(done: int, total: int) -> None:
            progressed.emit(number, done, total)

        control = JobControl(report)
        handle = JobHandle(name, control)
        if self._closed:
            handle.cancel()
            return handle

        def run() -> None:
            result: object
            succeeded, result = False, JobCancelled()
            if not control.cancelled():
                try:
                    succeeded, result = True, job(control)
                except Exception as exc:  # shown by the requester, never fatal
                    succeeded, result = False, exc
            with contextlib.suppress(RuntimeError):  # the runner is gone: nobody to tell
                ended.emit(number, succeeded, result)

        self._live[number] = handle
        self._pool.submit(run)
        self.job_submitted.emit(name)
        return handle

    def close(self, *, drop_queued: bool = True) -> None:
        """Drop the jobs not started yet (or run them too: writes the user asked for),
        wait for the running one, stop the thread. Results not delivered yet are dropped."""
        if self._closed:
            return
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=drop_queued)
        self._live.clear()

    @Slot(int, bool, object)
    def _on_worker_ended(self, number: int, succeeded: bool, result: object) -> None:
        handle = self._live.pop(number, None)
        if handle is None:  # closed meanwhile
            return
        handle.done = True
        if handle.cancelled or isinstance(result, JobCancelled):
            return
        (handle.finished if succeeded else handle.failed).emit(result)

    @Slot(int, int, int)
    def _on_worker_progressed(self, number: int, done: int, total: int) -> None:
        handle = self._live.get(number)
        if handle is not None and not handle.cancelled:
            handle.progressed.emit(done, total)


def start_daemon(name: str, target: Callable[[], None]) -> None:
    """Run ``target`` once on a daemon thread of its own: for loading modules in the
    background, work that touches no Qt object and that nothing waits on at exit."""
    threading.Thread(target=target, name=name, daemon=True).start()
