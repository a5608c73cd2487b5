"""Modules imported ahead on a thread of their own, so that a feature's first use imports
nothing in the GUI thread (nor on a job thread the GUI waits for)."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from functools import partial

from ..core.courtesy import courteous, gc_paused
from .jobs import start_daemon


def preload(modules: Sequence[str], *, name: str, done: threading.Event | None = None) -> None:
    """Import ``modules`` (dotted names) on a daemon thread called ``name``; ``done`` is
    set after, whether or not they imported. They define classes only: no Qt object is
    made on that thread."""
    start_daemon(name, partial(_load, tuple(modules), done))


def _load(modules: tuple[str, ...], done: threading.Event | None) -> None:
    """The collector paused: a full collection that the imports' allocations set off held
    the interpreter lock 40-60 ms. What an import makes lives as long as the process and is
    frozen out of the collector's sight afterwards (each full collection walked it again:
    0.1 s, lock held). ``courteous``: the imports' own code pauses for the GUI thread."""
    try:
        with gc_paused(), courteous():
            for name in modules:
                importlib.import_module(name)
    finally:
        if done is not None:
            done.set()
