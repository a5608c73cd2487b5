"""A question's words as the vault writes them: a word the vault never uses is looked for
in its forms that it does use (issue 27, paraphrase from the vault itself).

The stemmer (``analyzer.stem``) folds inflections by rule and cannot know every word:
"decided" folds to "decid" while "decide" stays, "emotion" and "emotional" stay apart, and
an agent's question may hold a typo ("funraiser"). Rather than a dictionary, the vault's own
vocabulary says which form is meant: for a term no note holds, the term of the vault that
is the same word with another ending (one is the other's beginning, the shorter at least
``LEAST_STEM`` letters, at most ``MOST_ENDING`` apart), else, for a long term, one typing
slip away (a letter left out, added, changed, or two swapped). Only absent terms are
looked up, so a question whose words the vault holds is scored as before."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

LEAST_STEM = 5  # the shorter of the two forms: "decid" and "decide", not "even" and "event"
MOST_ENDING = 4  # letters one form may have past the other ("mentor", "mentorship")
LEAST_SLIP = 7  # terms this long may be a typing slip away ("funraiser"; not "status")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def vault_form(
    term: str,
    held: Callable[[str], int],
    vocabulary: Sequence[str],
) -> str | None:
    """The form of ``term`` the vault uses, when it never uses ``term`` itself (``held``:
    how many documents hold a term; ``vocabulary``: every term held, sorted), or None.
    Of several forms, the one closest in length, then the most used, then the first."""
    if held(term) or len(term) < LEAST_STEM or not term.isascii() or not term.isalpha():
        return None
    found: list[str] = []
    # longer forms: the vocabulary's terms starting with this one
    at = bisect.bisect_left(vocabulary, term)
    while at < len(vocabulary) and vocabulary[at].startswith(term):
        if len(vocabulary[at]) - len(term) <= MOST_ENDING:
            found.append(vocabulary[at])
        at += 1
    # shorter forms: this term's own beginnings
    for size in range(max(LEAST_STEM, len(term) - MOST_ENDING), len(term)):
        if held(term[:size]):
            found.append(term[:size])
    if not found and len(term) >= LEAST_SLIP:
        found = [w for w in sorted(_slips(term)) if held(w)]
    if not found:
        return None
    return min(found, key=lambda w: (abs(len(w) - len(term)), -held(w), w))


def _slips(word: str) -> set[str]:
    """Every string one typing slip from ``word``: a letter left out, two swapped, one
    changed, one added (Damerau-Levenshtein distance 1)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in _LETTERS)
    out.update(a + c + b for a, b in splits for c in _LETTERS)
    out.discard(word)
    return out
