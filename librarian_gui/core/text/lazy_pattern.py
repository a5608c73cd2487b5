"""Regular expressions compiled at their first use instead of at import.

Python compiles a character class over large Unicode ranges ("any letter but Chinese,
Japanese, Thai…") in 2-5 ms, walking the ranges in Python. The analyzer and the token
estimate hold eleven such patterns: 33 ms of every process start, the MCP server's and
the command line's included, though a server answers its first question (``neighbors``)
without any of them.
"""

from __future__ import annotations

import re
from typing import Any, cast

# What the project calls on a pattern: bound once, on the first use, to the instance, so
# every later call finds the compiled pattern's method directly (no ``__getattr__``).
_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class _LazyPattern:
    """A pattern that compiles itself when one of its methods is first looked up."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        # Only reached for what the instance does not hold yet: the first use. Two threads
        # may both compile; each binds an equal pattern's methods.
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used. It answers a compiled
    pattern's methods and its ``pattern``; it is not an ``re.Pattern`` to ``isinstance``,
    nor to ``re``'s functions (give them ``.pattern``)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
