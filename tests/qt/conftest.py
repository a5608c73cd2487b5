"""Qt tests run offscreen; a Qt warning fails the test unless it is a known harmless one."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.windows import window_on  # noqa: F401  (the fixture, for these tests)
