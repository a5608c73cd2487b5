"""Whether a context pack's budget left room for anything, and the line that says it did not
(``librarian context`` and the MCP ``context_pack`` tool refuse such a budget alike)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads the numbers below without loading packs
    from .context import ContextPack

DEFAULT_BUDGET = 2000  # tokens: the command line's and the MCP tool's default
INDEX_SHARE = 0.25  # of a pack's budget, the index note's at most (``context_pack``)
# The MCP tool's most: a pack's text and its description (a row per passage) in one answer
# below the page size (``paging``), under the 25,000 tokens a client takes.
MAX_PACK_TOKENS = 15_000


def too_small(pack: ContextPack, repack: Callable[[int], ContextPack]) -> str | None:
    """The line saying ``pack``'s budget is too small for anything, or None when the pack
    holds something. A pack holding only its header is too small only when a budget of
    ``DEFAULT_BUDGET`` would hold something (``repack(budget)`` makes that pack): a
    question nothing answers, in a vault without an index note, gets its header at any
    budget, and that is an answer."""
    if pack.index_lines or pack.passages:
        return None
    advice = f"give more ({DEFAULT_BUDGET} is the default)"
    if not pack.text:
        return (
            f"a budget of {pack.budget} tokens is too small for anything, not even the "
            f"pack's header; {advice}"
        )
    if pack.budget >= DEFAULT_BUDGET:
        return None
    roomy = repack(DEFAULT_BUDGET)
    if not (roomy.index_lines or roomy.passages):
        return None
    return (
        f"a budget of {pack.budget} tokens is too small for anything but the pack's header "
        f"({pack.tokens} tokens); {advice}"
    )
