"""Test-wide set-up: private XDG folders, a patient hypothesis profile, offscreen Qt, the
``gui`` mark on every test that needs a QApplication, and a check that no test leaves a
thread or a timer running behind it."""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from librarian_gui.core.index.index import VaultIndex

# CI shares the machine's ~/.cache and ~/.config with everyone's runs: every test run gets
# its own, so no run reads another's cache or settings.
_XDG = Path(tempfile.mkdtemp(prefix="librarian-tests-xdg-"))
atexit.register(shutil.rmtree, _XDG, ignore_errors=True)  # registered first: runs last
for _name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = str(_XDG / _name.lower())
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# On a loaded 2-core machine an example can take longer than hypothesis's 200 ms deadline:
# no deadline, and a fixed, repeatable example budget instead.
settings.register_profile("librarian", deadline=None, max_examples=200, derandomize=True)
settings.load_profile("librarian")

REPO = Path(__file__).resolve().parents[1]
SHARED_VAULTS = REPO.parent / "shared" / "vaults"


def shared_vault(name: str) -> Path:
    """A vault of ../shared/vaults; missing fails the run under CI and skips elsewhere."""
    path = SHARED_VAULTS / name
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared vault {path} is missing (CI=true: this must not be skipped)")
        pytest.skip(f"shared vault {path} is not here")
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


def write(root: Path, rel: str, text: str | bytes, *, age: float | None = None) -> Path:
    """Write a file under ``root``; ``age`` seconds sets its mtime that far in the past."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    if age is not None:
        import time

        t = time.time() - age
        os.utime(path, (t, t))
    return path


def snapshot(index: VaultIndex) -> tuple[object, ...]:
    """Everything an index knows, as plain values to compare."""
    return (
        {p: (r.stamp, r.parsed, r.date, r.date_source) for p, r in index.notes.items()},
        dict(index.attachments),
        {s: dict(o) for s, o in index.out_edges.items()},
        {t: dict(i) for t, i in index.in_edges.items() if i},
        dict(index.targets),
    )


def assert_same_as_fresh_scan(index: VaultIndex) -> None:
    fresh = VaultIndex.scan(
        index.root, use_cache=False, excluded=index.excluded, dictionary=index.dictionary_path
    )
    assert snapshot(index) == snapshot(fresh)


# -- a hung test fails the run with every thread's stack, instead of stalling CI ------------

HANG_SECONDS = float(os.environ.get("LIBRARIAN_TEST_HANG_SECONDS", "240"))
# The run's own output: standard output, but in a pytest-xdist worker standard error, as
# execnet keeps the worker's standard output for its channel and points fd 1 at /dev/null.
_RUN_OUTPUT = 2 if os.environ.get("PYTEST_XDIST_WORKER") else 1


class _HangWatch:
    """Tells tests/hang_watch.py, a process of its own, when each test starts and ends.
    Past ``HANG_SECONDS`` (no test here takes a tenth of that) it prints the native stack of
    every thread and aborts the run, whose faulthandler prints the Python stacks. A thread
    in this process could not: a hang may hold the interpreter lock."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the watchdog; its standard output is the run's (capture suspended)."""
        self._process = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "hang_watch.py"),
                str(os.getpid()),
                str(HANG_SECONDS),
            ],
            stdin=subprocess.PIPE,
            stdout=_RUN_OUTPUT,
        )
        # After Python joined the threads that are not daemons (watched: "exit"), before
        # the interpreter goes: the watchdog's input closes, and it ends.
        atexit.register(self.close)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def tell(self, line: str) -> None:
        process = self._process
        if process is None or process.stdin is None:
            return
        try:
            process.stdin.write(line.replace("\n", " ").encode("utf-8") + b"\n")
            process.stdin.flush()
        except OSError:  # the watchdog is gone: the run goes on unwatched
            self._process = None


_watch = _HangWatch()


@pytest.hookimpl(trylast=True)  # after pytest's faulthandler plugin, which it overrides
def pytest_configure(config: pytest.Config) -> None:
    """Start the watchdog, and point faulthandler at the run's real output (``_RUN_OUTPUT``):
    pytest's plugin points it at the capture's file, lost when the watchdog aborts the run
    (and CI may keep only what the run prints)."""
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.suspend_global_capture(in_=False)
    try:
        faulthandler.enable(file=os.dup(_RUN_OUTPUT), all_threads=True)
        _watch.start()
    finally:
        if capture is not None:
            capture.resume_global_capture()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Python joins the threads that are not daemons before it exits: one stuck there
    would hang the run after its last test, so the watchdog watches that too (it ends when
    the run's process does)."""
    _watch.tell("start (exit, after the last test)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    _watch.tell(f"start {item.nodeid}")
    try:
        return (yield)
    finally:
        _watch.tell("end")


# -- the gui mark: ``pytest -m "not gui"`` runs the rest without a display -----------------

_GUI_FIXTURES = frozenset({"qtbot", "qapp", "window_on"})
_GUI_FILES = frozenset({"tests/faults/test_window.py"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``gui`` every test that needs a QApplication: all of tests/qt, the window's
    fault tests, and any test that asks for a Qt fixture (directly or through another)."""
    for item in items:
        rel = Path(str(item.path)).resolve().relative_to(REPO).as_posix()
        needs_qt = rel.startswith("tests/qt/") or rel in _GUI_FILES
        if needs_qt or _GUI_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gui)


# -- a test leaves nothing running behind it ---------------------------------------------

# Module preloads (services/preload.py): they import modules for the process, touch no Qt
# object and end by themselves: not a leak of the test that happened to start one. The graph
# modules' import takes 0.5-2 s; a window test that ran past the 3 s quiet delay started it.
_PROCESS_THREADS = frozenset({"librarian-preload", "librarian-graph-import"})
GRACE_S = 2.0  # for threads and QThreads told to stop, to end (joined, not slept)

# Every QThread and QTimer that Python code starts, by weak reference (a strong one would
# keep an unparented timer alive): installed once Qt is imported, emptied before each test.
_qt_started: list[weakref.ref[Any]] = []


def _track_qt_starts() -> None:
    qtcore = sys.modules.get("PySide6.QtCore")
    if qtcore is None or getattr(qtcore.QTimer.start, "_tracked", False):
        return
    for cls in (qtcore.QTimer, qtcore.QThread):
        original = cls.start

        def start(self: Any, *args: Any, _original: Any = original) -> Any:
            _qt_started.append(weakref.ref(self))
            return _original(self, *args)

        start._tracked = True  # type: ignore[attr-defined]
        cls.start = start


def _still_running() -> list[str]:
    """What of the QThreads and QTimers this test started still runs, after the objects
    deleted later are deleted and the garbage is collected."""
    qtcore = sys.modules.get("PySide6.QtCore")
    if qtcore is None or qtcore.QCoreApplication.instance() is None or not _qt_started:
        return []
    qtcore.QCoreApplication.sendPostedEvents(None, qtcore.QEvent.Type.DeferredDelete)

    def running() -> list[Any]:
        out = []
        for ref in _qt_started:
            obj = ref()
            try:
                if obj is not None and (
                    obj.isActive() if isinstance(obj, qtcore.QTimer) else obj.isRunning()
                ):
                    out.append(obj)
            except RuntimeError:  # its C++ object is gone: deleted with its parent
                pass
        return list({id(o): o for o in out}.values())

    found = running()
    if found:  # perhaps garbage not collected yet (a cycle): collect, then look again
        del found
        import gc

        gc.collect()
        qtcore.QCoreApplication.sendPostedEvents(None, qtcore.QEvent.Type.DeferredDelete)
        deadline = time.monotonic() + GRACE_S
        for obj in running():
            if isinstance(obj, qtcore.QThread):
                obj.wait(max(1, int((deadline - time.monotonic()) * 1000)))
        found = running()
    return [_describe_qt(obj, qtcore) for obj in found]


def _describe_qt(obj: Any, qtcore: Any) -> str:
    owner = obj.parent()
    where = f" of {type(owner).__qualname__}" if owner is not None else ""
    if isinstance(obj, qtcore.QTimer):
        kind = "single-shot" if obj.isSingleShot() else "repeating"
        return f"an active {kind} QTimer ({obj.interval()} ms){where}"
    return f"a running {type(obj).__qualname__}{where}"


def _new_threads(before: set[threading.Thread]) -> list[str]:
    """Python threads started during the test and still alive after a short grace."""
    deadline = time.monotonic() + GRACE_S
    left = []
    for thread in threading.enumerate():
        if thread in before or thread.name in _PROCESS_THREADS:
            continue
        if isinstance(thread, threading._DummyThread):  # a foreign thread Python met once
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            kind = "daemon thread" if thread.daemon else "thread"
            left.append(f"a {kind} {thread.name!r} ({type(thread).__qualname__})")
    return left


@pytest.fixture(autouse=True)
def _leaves_nothing_running() -> Iterator[None]:
    """Fail a test that leaves a Python thread, a QThread or an active QTimer behind.
    Autouse, so it is set up before the test's own fixtures and checks after theirs are
    torn down (and after pytest-qt closed the widgets)."""
    _track_qt_starts()
    before = set(threading.enumerate())
    _qt_started.clear()
    yield
    left = _still_running() + _new_threads(before)
    _qt_started.clear()
    if left:
        pytest.fail("the test left running: " + "; ".join(left), pytrace=False)
