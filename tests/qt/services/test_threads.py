"""The worker threads make no QObject and connect nothing, and delete none: only the GUI
thread does (the rule of the ``services`` package). A CI run hung forever on the linker
thread's ``QTimer.singleShot`` (a connect, interpreter lock held) while the GUI thread, lock
let go in its event loop, deleted an object and waited for the lock in a Python sender's
``disconnectNotify``, Qt's signal-slot mutex held. The race itself is rare; these tests
check the rule that makes it impossible, on the real threads."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from librarian_gui.core.index import cache as index_cache
from librarian_gui.services import graph
from librarian_gui.services.model import VaultModel
from tests.conftest import write


@pytest.fixture
def made_off_gui(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each QTimer the layout modules make, and each single shot they ask for, on a thread
    other than the GUI thread."""
    found: list[str] = []

    def note(what: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            found.append(f"{what} on {threading.current_thread().name}")

    class RecordingTimer(QTimer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            note("QTimer()")
            super().__init__(*args, **kwargs)

        @staticmethod
        def singleShot(*args: Any) -> None:
            note("QTimer.singleShot")
            QTimer.singleShot(*args)

    monkeypatch.setattr(graph, "QTimer", RecordingTimer)
    return found


SMALL_VAULT = {"Hub.md": "# Hub\n", "A.md": "see [[Hub]]\n", "B.md": "also [[Hub]] and [[A]]\n"}


def _ready_model(
    vault: Path, qtbot: QtBot, notes: dict[str, str], *, use_cache: bool = True
) -> VaultModel:
    for rel, text in notes.items():
        write(vault, rel, text)
    model = VaultModel(vault, use_cache=use_cache)
    with qtbot.waitSignal(model.index_ready, timeout=20_000):
        model.start()
    return model


def test_the_updater_thread_makes_no_timer_and_still_saves_the_cache(
    vault: Path, qtbot: QtBot, made_off_gui: list[str]
) -> None:
    model = _ready_model(vault, qtbot, SMALL_VAULT)
    try:
        # The cache is written after the scan, once the window had time to fill its panes
        # (the updater's thread, Qt-free, keeps the time itself).
        qtbot.waitUntil(lambda: index_cache.cache_file(vault).is_file(), timeout=10_000)
    finally:
        model.close()
    assert made_off_gui == []


def test_the_layout_thread_makes_no_timer_and_its_stepper_outlives_it(
    vault: Path, qtbot: QtBot, made_off_gui: list[str]
) -> None:
    model = _ready_model(vault, qtbot, SMALL_VAULT)
    session = graph.GraphService(model)
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
    assert made_off_gui == []
    shiboken6.delete(session)


def test_a_new_graph_waits_for_go_even_while_the_old_one_was_stepping(
    vault: Path, qtbot: QtBot
) -> None:
    """The layout steps a new graph (here a reset) only once the window has shown it
    (``go``): its timer, still running for the old graph, used to step the new one at once
    (test_graph_view's slow window saw it move, on a loaded machine)."""
    # Enough nodes that the layout is still stepping when reset.
    ring = {f"N{n}.md": f"[[Hub]] [[N{(n + 1) % 300}]] [[N{(n * 7) % 300}]]\n" for n in range(300)}
    model = _ready_model(vault, qtbot, {"Hub.md": "# Hub\n", **ring}, use_cache=False)
    session = graph.GraphService(model)
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
