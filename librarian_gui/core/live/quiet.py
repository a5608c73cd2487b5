"""Background loops hold back while file changes are on their way to the index.

A save should reach the index and the panes (or an agent's next answer) at once, not after
a background loop (unlinked mentions across the vault, related notes) has had its share of
the interpreter lock. The runtime says when a batch of changes ``arrived`` and when it was
``applied``; long loops call ``pause`` between steps, which waits while changes are on their
way, ``pause_max`` seconds at most at a time.
"""

from __future__ import annotations

import threading
import time

HOLD_AFTER_BATCH = 1.0  # seconds a batch holds loops back at most, if no update comes of it
HOLD_AFTER_UPDATE = 0.15  # after its update: the head start of what the update sets off
PAUSE_MAX = 0.3  # seconds one pause waits at most


class UpdateQuiet:
    """Whether changes are on their way: set (quiet) or not, as a ``threading.Event`` is.
    Thread-safe; ``stop`` lets every loop go for good (the vault is closing)."""

    def __init__(
        self,
        *,
        hold_after_batch: float = HOLD_AFTER_BATCH,
        hold_after_update: float = HOLD_AFTER_UPDATE,
        pause_max: float = PAUSE_MAX,
    ) -> None:
        self._after_batch = hold_after_batch
        self._after_update = hold_after_update
        self._pause_max = pause_max
        self._changed = threading.Condition()
        self._until = 0.0  # monotonic time until which loops hold back
        self._stopped = False

    def is_set(self) -> bool:
        """Quiet: no change on its way, a pause returns at once."""
        return self._stopped or time.monotonic() >= self._until

    def arrived(self) -> None:
        """A batch of changes came: loops hold back until it is applied (or for
        ``hold_after_batch`` seconds, if no update comes of it)."""
        with self._changed:
            if not self._stopped:
                self._until = time.monotonic() + self._after_batch
                self._changed.notify_all()

    def applied(self) -> None:
        """The batch's update is out: loops go on ``hold_after_update`` seconds later, if
        they are still held back."""
        with self._changed:
            if self.is_set():
                return
            self._until = min(self._until, time.monotonic() + self._after_update)
            self._changed.notify_all()

    def stop(self) -> None:
        """Let every loop go, now and from now on."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def pause(self) -> None:
        """Wait while changes are on their way, ``pause_max`` seconds at most."""
        with self._changed:
            end = time.monotonic() + self._pause_max
            while not self._stopped:
                left = min(self._until, end) - time.monotonic()
                if left <= 0:
                    return
                self._changed.wait(left)
