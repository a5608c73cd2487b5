"""The job API on real threads: each handle gets its own result, in the GUI thread, even
when connected late; a cancelled job is silent; an exception arrives as a failure."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QThread
from pytestqt.qtbot import QtBot

from librarian_gui.services.jobs import JobCancelled, JobControl, JobHandle, JobRunner
from librarian_gui.services.model import VaultModel
from tests.conftest import write

WAIT_S = 10  # a worker's wait for the test to let it go; never reached when all is well


@pytest.fixture
def runner(qtbot: QtBot) -> Iterator[JobRunner]:
    made = JobRunner("test-job")
    yield made
    made.close()


def recorded(handle: JobHandle) -> tuple[list[object], list[object]]:
    """What the handle delivered: its results and its exceptions."""
    results: list[object] = []
    errors: list[object] = []
    handle.finished.connect(results.append)
    handle.failed.connect(errors.append)
    return results, errors


def test_two_concurrent_jobs_each_deliver_their_own_result_to_their_own_handle(
    qtbot: QtBot,
) -> None:
    quick, slow = JobRunner("test-quick"), JobRunner("test-slow")
    both_running = threading.Barrier(2, timeout=WAIT_S)
    go = threading.Event()

    def job(answer: str) -> object:
        def run(_control: JobControl) -> str:
            both_running.wait()  # the two run at the same time, on two threads
            go.wait(WAIT_S)
            return f"{answer} from {threading.current_thread().name.split('_')[0]}"

        return run

    one = quick.submit(job("one"), name="one")
    two = slow.submit(job("two"), name="two")
    got_one, failed_one = recorded(one)
    got_two, failed_two = recorded(two)
    with qtbot.waitSignals([one.finished, two.finished], timeout=WAIT_S * 1000):
        go.set()
    assert got_one == ["one from test-quick"]
    assert got_two == ["two from test-slow"]
    assert failed_one == failed_two == []
    assert (one.done, two.done) == (True, True)
    assert (quick.pending, slow.pending) == (0, 0)
    quick.close()
    slow.close()


def test_a_cancelled_job_delivers_nothing_and_stops_at_its_next_check(
    runner: JobRunner, qtbot: QtBot
) -> None:
    started, stopped = threading.Event(), threading.Event()

    def loop(control: JobControl) -> str:
        started.set()
        try:
            while not stopped.wait(0.01):  # a long loop, checking between chunks
                control.check()
        except JobCancelled:
            stopped.set()
            raise
        return "never"

    handle = runner.submit(loop, name="loop")
    results, errors = recorded(handle)
    assert started.wait(WAIT_S)
    handle.cancel()
    after = runner.submit(lambda _c: "after", name="after")  # behind it, on the same thread
    with qtbot.waitSignal(after.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args == ["after"]
    assert stopped.is_set()
    assert handle.cancelled and handle.done
    assert results == errors == []
    assert runner.pending == 0


def test_a_job_cancelled_before_it_starts_never_runs(runner: JobRunner, qtbot: QtBot) -> None:
    gate, ran = threading.Event(), threading.Event()
    first = runner.submit(lambda _c: gate.wait(WAIT_S), name="first")
    second = runner.submit(lambda _c: ran.set(), name="second")
    results, errors = recorded(second)
    second.cancel()
    with qtbot.waitSignal(first.finished, timeout=WAIT_S * 1000):
        gate.set()
    third = runner.submit(lambda _c: "third", name="third")
    with qtbot.waitSignal(third.finished, timeout=WAIT_S * 1000):
        pass
    assert not ran.is_set()
    assert results == errors == []


def test_an_exception_arrives_on_failed_and_nothing_on_finished(
    runner: JobRunner, qtbot: QtBot
) -> None:
    go = threading.Event()

    def broken(_control: JobControl) -> object:
        go.wait(WAIT_S)
        raise ValueError("the note is not there")

    handle = runner.submit(broken, name="broken")
    results, _errors = recorded(handle)
    with qtbot.waitSignal(handle.failed, timeout=WAIT_S * 1000) as blocker:
        go.set()
    [error] = blocker.args
    assert type(error) is ValueError
    assert str(error) == "the note is not there"
    assert results == []
    # The thread serves the next job.
    after = runner.submit(lambda _c: 42)
    with qtbot.waitSignal(after.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args == [42]


def test_results_and_progress_are_delivered_in_the_gui_thread(
    runner: JobRunner, qtbot: QtBot
) -> None:
    gui = threading.current_thread()
    go = threading.Event()
    worker: list[str] = []
    seen: list[tuple[str, object]] = []

    def job(control: JobControl) -> str:
        go.wait(WAIT_S)
        worker.append(threading.current_thread().name)
        for done in range(201):
            control.progress(done, 200)
        return "done"

    handle = runner.submit(job, name="counted")
    progress: list[tuple[int, int]] = []
    # A lambda has no thread of its own: it runs in the thread that emits, so the handle
    # must emit in the GUI thread.
    handle.progressed.connect(lambda done, total: progress.append((done, total)))
    handle.progressed.connect(lambda *_: seen.append(("progress", threading.current_thread())))
    handle.finished.connect(lambda _r: seen.append(("finished", threading.current_thread())))
    gui_qthread = QThread.currentThread()
    handle.finished.connect(
        lambda _r: seen.append(("qthread", QThread.currentThread() == gui_qthread))
    )
    with qtbot.waitSignal(handle.finished, timeout=WAIT_S * 1000):
        go.set()
    assert worker[0].startswith("test-job")
    assert {thread for kind, thread in seen if kind != "qthread"} == {gui}
    assert ("qthread", True) in seen
    # One report per percent (0 to 100), in order, all before the result.
    assert len(progress) == 101
    assert progress[0] == (0, 200) and progress[-1] == (200, 200)
    assert [kind for kind, _ in seen if kind != "qthread"] == ["progress"] * 101 + ["finished"]


def test_connecting_after_submit_returns_never_misses_the_result(
    runner: JobRunner, qtbot: QtBot
) -> None:
    handle = runner.submit(lambda _c: "early", name="early")
    behind = threading.Event()
    runner.submit(lambda _c: behind.set())
    # Once the job behind it runs, this one has ended and sent its result: the GUI thread
    # has not looked at its queue yet, so the result waits there for a late connection.
    assert behind.wait(WAIT_S)
    with qtbot.waitSignal(handle.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args == ["early"]


def test_a_handle_is_let_go_once_its_job_has_ended(runner: JobRunner, qtbot: QtBot) -> None:
    handle = runner.submit(lambda _c: "x", name="x")
    gone = weakref.ref(handle)
    got, _ = recorded(handle)
    del handle
    assert gone() is not None  # kept by the runner until the result is delivered
    qtbot.waitUntil(lambda: got == ["x"], timeout=WAIT_S * 1000)
    gc.collect()
    assert gone() is None
    assert runner.pending == 0


def test_close_waits_for_the_running_job_drops_its_result_and_stops_the_thread(
    qtbot: QtBot,
) -> None:
    runner = JobRunner("test-closing")
    started, go = threading.Event(), threading.Event()

    def job(_control: JobControl) -> str:
        started.set()
        go.wait(WAIT_S)
        return "too late"

    handle = runner.submit(job)
    results, errors = recorded(handle)
    assert started.wait(WAIT_S)
    go.set()
    runner.close()  # waits for the job, whose result is already on its way
    QCoreApplication.processEvents()
    assert results == errors == []
    assert runner.pending == 0
    assert not [t for t in threading.enumerate() if t.name.startswith("test-closing")]
    late = runner.submit(lambda _c: "never")
    assert late.cancelled
    assert runner.pending == 0


def test_the_model_runs_quick_and_slow_jobs_on_their_own_threads(vault: Path, qtbot: QtBot) -> None:
    write(vault, "A.md", "# A\n")
    model = VaultModel(vault, use_cache=False)
    go = threading.Event()

    def where(_control: JobControl) -> str:
        go.wait(WAIT_S)
        return threading.current_thread().name.split("_")[0]

    quick = model.submit(where, name="quick")
    slow = model.submit(where, slow=True, name="slow")
    got_quick, got_slow = recorded(quick), recorded(slow)
    with qtbot.waitSignals([quick.finished, slow.finished], timeout=WAIT_S * 1000):
        go.set()
    assert got_quick == (["librarian-job"], [])
    assert got_slow == (["librarian-scan"], [])
    model.close()
    late = model.submit(where)
    assert late.cancelled
    assert not [t for t in threading.enumerate() if t.name.startswith("librarian-scan")]


def test_the_result_of_a_job_that_ignores_its_cancel_is_dropped(
    runner: JobRunner, qtbot: QtBot
) -> None:
    started, go = threading.Event(), threading.Event()

    def stubborn(_control: JobControl) -> str:
        started.set()
        go.wait(WAIT_S)
        return "unwanted"

    handle = runner.submit(stubborn, name="stubborn")
    results, errors = recorded(handle)
    assert started.wait(WAIT_S)
    handle.cancel()
    go.set()
    after = runner.submit(lambda _c: "after")
    with qtbot.waitSignal(after.finished, timeout=WAIT_S * 1000):
        pass
    assert handle.done
    assert results == errors == []
