"""The installed Qt binding itself: defects that would crash the app are caught here."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal(object)


def test_emitting_signals_keeps_the_reference_count_of_true() -> None:
    # PySide6 6.12.0 returned a borrowed True from emit(): each emit dropped one reference,
    # and on Python 3.11 the interpreter aborted once the count reached zero.
    emitter = _Emitter()
    received: list[object] = []
    emitter.fired.connect(received.append)
    before = sys.getrefcount(True)
    for i in range(1000):
        emitter.fired.emit(i)
    after = sys.getrefcount(True)
    assert len(received) == 1000
    assert abs(after - before) < 50
