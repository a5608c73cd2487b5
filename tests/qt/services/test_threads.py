"""The worker threads make no QObject and connect nothing, and delete none: only the GUI
thread does (the rule of the ``services`` package). A CI run hung forever on the linker
thread's ``QTimer.singleShot`` (a connect, interpreter lock held) while the GUI thread, lock
let go in its event loop, deleted an object and waited for the lock in a Python sender's
``disconnectNotify``, Qt's signal-slot mutex held. The race itself is rare; these tests
check the rule that makes it impossible, on the real threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from librarian_gui.core.index import cache as index_cache
from librarian_gui.services import graph_session, linker
from librarian_gui.services.model import VaultModel
from tests.conftest import write


class _Made:
    """Where each QTimer of a module was made, or a single shot was asked for."""

    def __init__(self) -> None:
        self.off_gui: list[str] = []

    def timer_class(self) -> type[QTimer]:
        made = self

        class RecordingTimer(QTimer):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                made.note("QTimer()")
                super().__init__(*args, **kwargs)

            @staticmethod
            def singleShot(*args: Any) -> None:
                made.note("QTimer.singleShot")
                QTimer.singleShot(*args)

        return RecordingTimer

    def note(self, what: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            self.off_gui.append(f"{what} on {threading.current_thread().name}")


@pytest.fixture
def made_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Made]:
    made = _Made()
    recording = made.timer_class()
    monkeypatch.setattr(linker, "QTimer", recording)
    monkeypatch.setattr(graph_session, "QTimer", recording)
    yield made


def _ready_model(vault: Path, qtbot: QtBot) -> VaultModel:
    write(vault, "Hub.md", "# Hub\n")
    write(vault, "A.md", "see [[Hub]]\n")
    write(vault, "B.md", "also [[Hub]] and [[A]]\n")
    model = VaultModel(vault, use_cache=True)
    with qtbot.waitSignal(model.index_ready, timeout=10_000):
        model.start()
    return model


def test_the_linker_thread_makes_no_timer_and_still_saves_the_cache(
    vault: Path, qtbot: QtBot, made_in: _Made
) -> None:
    model = _ready_model(vault, qtbot)
    try:
        # The cache is written after the scan, once the window had time to fill its panes
        # (the linker's timer, started on its thread).
        qtbot.waitUntil(lambda: index_cache.cache_file(vault).is_file(), timeout=10_000)
    finally:
        model.close()
    assert made_in.off_gui == []


def test_the_layout_thread_makes_no_timer_and_its_stepper_outlives_it(
    vault: Path, qtbot: QtBot, made_in: _Made
) -> None:
    model = _ready_model(vault, qtbot)
    session = graph_session.GraphSession(model)
    try:
        with qtbot.waitSignal(session.positions_ready, timeout=30_000):
            session.set_active(True)  # builds the graph, loads it, steps it
    finally:
        session.stop()
        model.close()
    # The layout thread ended without deleting its stepper (a deletion there, the lock let
    # go, is the other half of the deadlock): the GUI thread deletes it, with the session.
    stepper = session._stepper
    assert shiboken6.isValid(stepper)
    assert not stepper._timer.isActive()  # stopped on its own thread as it ended
    assert made_in.off_gui == []
    shiboken6.delete(session)


def test_a_new_graph_waits_for_go_even_while_the_old_one_was_stepping(
    vault: Path, qtbot: QtBot
) -> None:
    """The layout steps a new graph (here a reset) only once the window has shown it
    (``go``): its timer, still running for the old graph, used to step the new one at once
    (test_graph_view's slow window saw it move, on a loaded machine)."""
    write(vault, "Hub.md", "# Hub\n")
    for n in range(300):  # enough nodes that the layout is still stepping when reset
        write(vault, f"N{n}.md", f"[[Hub]] [[N{(n + 1) % 300}]] [[N{(n * 7) % 300}]]\n")
    model = VaultModel(vault, use_cache=False)
    with qtbot.waitSignal(model.index_ready, timeout=20_000):
        model.start()
    session = graph_session.GraphSession(model)
    timer = session._stepper._timer
    try:
        with qtbot.waitSignal(
            session.positions_ready, timeout=30_000, check_params_cb=lambda p, s, r: not s
        ):
            session.set_active(True)  # stepping, far from settled
        stepping_when_reset = timer.isActive()
        with qtbot.waitSignal(session.graph_ready, timeout=10_000):
            session.reset_layout()
        # The new layout was handed to the window; no step until it has shown it.
        assert stepping_when_reset and not timer.isActive()
        with qtbot.waitSignal(session.positions_ready, timeout=10_000):
            pass  # then go() steps it
    finally:
        session.stop()
        model.close()
    shiboken6.delete(session)
