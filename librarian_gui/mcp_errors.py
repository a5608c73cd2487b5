"""What an MCP client is told when a tool fails: what happened, to which file, and what to do.

The SDK answers a tool's unexpected exception with a bare "Error executing tool X", and an
agent that cannot tell a full disk from a bug retries, or gives up on a write that was
refused for a reason it could fix. Every exception a tool raises is turned into the SDK's
``ToolError`` here; the ones nobody planned for are logged with their traceback (stderr,
the server's log), and the agent is told so.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from .core.agents.writes import WriteFailed
from .core.writing.journal import JournalError
from .core.writing.safewrite import WriteRefused

T = TypeVar("T")
_log = logging.getLogger(__name__)
MAX_MESSAGE = 2000  # characters of a message: it may quote an argument of any length
SEE_LOG = "the server's log has the details"


class ReadOnly(Exception):
    """A write asked of a server started without ``--allow-writes``."""


# Refusals whose message already says what happened and what to do: told as they are.
EXPECTED: tuple[type[Exception], ...] = (
    LookupError,
    ValueError,
    ReadOnly,
    WriteFailed,
    WriteRefused,
    JournalError,
)
# ... but not these: a missing key or index, a bad byte, is a bug, and its text ('x') says
# nothing to an agent.
BUGS: tuple[type[Exception], ...] = (KeyError, IndexError, UnicodeError)


def expected(exc: Exception) -> bool:
    """Whether ``exc`` is a refusal told as it is (not logged)."""
    return isinstance(exc, EXPECTED) and not isinstance(exc, BUGS)


def explain(exc: Exception) -> str:
    """The message an agent is told for ``exc``."""
    said = _cut(str(exc))
    if expected(exc):
        return said
    if isinstance(exc, RecursionError):
        return (
            f"too deeply nested for the server (RecursionError: {said}): use a path with "
            f"fewer folders, or less deeply nested text; {SEE_LOG}"
        )
    if isinstance(exc, MemoryError):
        return (
            "the server ran out of memory (MemoryError): ask for less at once (a shorter "
            f"text, a smaller page or budget); {SEE_LOG}"
        )
    if isinstance(exc, OSError) and exc.strerror:
        where = _cut(str(exc.filename)) if exc.filename is not None else "a file of the vault"
        return (
            f"{where}: {exc.strerror} ({type(exc).__name__}). Check that path (a file where "
            f"a folder should be, permissions, free space) and try again; {SEE_LOG}"
        )
    return f"an unexpected error in the server ({type(exc).__name__}: {said}); {SEE_LOG}"


def failing_as(method: Callable[..., T], error: type[Exception]) -> Callable[..., T]:
    """``method``, every exception it raises raised as ``error`` (the SDK's ``ToolError``)
    with ``explain``'s message; the unexpected ones logged with their traceback."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            if not expected(exc):
                _log.error("tool %s failed", method.__name__, exc_info=exc)
            raise error(explain(exc)) from None

    return call


def _cut(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}… ({len(message) - MAX_MESSAGE:,} characters more)"


SHOWN_VALUE = 60  # characters of a refused value quoted back (it may be a whole note)


def argument_errors(errors: list[dict[str, Any]]) -> str:
    """What was wrong with which argument, in one line: pydantic's ``errors()`` of a tool's
    arguments without their boilerplate (the model's name, the error type, the input's
    type, a documentation URL), e.g. ``start_line: must be 1 or more, not 0``."""
    said = []
    for error in errors:
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        ).lstrip(".")
        if error["type"] == "missing":
            said.append(f"{where}: required, not given")
            continue
        limits = error.get("ctx") or {}
        if error["type"] == "greater_than_equal":
            what = f"must be {limits['ge']} or more"
        elif error["type"] == "less_than_equal":
            what = f"must be {limits['le']} or less"
        else:  # "Input should be a valid integer, unable to parse string as an integer"
            what = error["msg"].removeprefix("Input should be ").split(", unable to")[0]
            what = what if error["type"] == "boolean" else f"must be {what}"
        given = repr(error["input"])
        if len(given) > SHOWN_VALUE:
            given = f"{given[:SHOWN_VALUE]}… ({len(given) - SHOWN_VALUE:,} characters more)"
        said.append(f"{where}: {what}, not {given}")
    return "; ".join(said)
