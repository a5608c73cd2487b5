"""The ``librarian`` command line's exit codes, one table every command takes them from, and
the two ways a command hands one to ``main``: a failure (``CommandFailed``) or a result."""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_FINDINGS = 1  # lint errors; files refused by an apply or undo
EXIT_STOPPED = 1  # a write refused, a full disk, no memory left (failures.py says which)
EXIT_USAGE = 2
EXIT_NO_VAULT = 3
EXIT_NO_NOTE = 4
EXIT_NO_CONCEPT = 4
EXIT_AMBIGUOUS = 5
EXIT_BUSY = 6  # another of Librarian's writers holds the vault (core/writing/lock.py)

# What a command gives the command line: the JSON document, the human text, the exit code.
Result = tuple[dict[str, Any], str, int]


class CommandFailed(Exception):
    """A command stopped: ``main`` prints the message after ``librarian:`` and exits with
    ``code``."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
