"""Names are not evidence (issue 27): the speaker labels that open most lines of a note.

A chat log or a diary written turn by turn opens every line with its writer's name
(``**Caroline:** I went to…``, ``- Wren: shipped the loader``). Counted as words, that
name would make every line of that person match a question naming them, and the lines
that answer would drown among them. So a label that opens lines of a note where labelled
lines are the most of its lines is taken out of the line's words and kept aside as who
said it: a question naming that person then prefers that person's lines, but the name
alone never makes a line match.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

# A line's label: list or quote markup, bold or italics around a name of at most four
# words (letters, dots, apostrophes, hyphens), a colon inside or outside the emphasis, a
# space. "Note:" and "TODO:" would be labels too, but only one opening most of a note's
# lines counts, and such a note is a log of that label: the same rule holds.
_LABEL = re.compile(
    r"[ \t]*(?:[-*+>][ \t]+)?(?P<em>\*\*|__|\*|_)?"
    r"(?P<name>[^\W\d_][\w.'’-]*(?:[ \t][^\W\d_][\w.'’-]*){0,3})"
)
# Labelled lines must be at least this share of a note's non-blank lines, and at least
# this many, for their labels to be speakers.
LABELLED_SHARE = 0.5
LABELLED_LEAST = 3


def line_label(line: str) -> tuple[str, int] | None:
    """The label opening ``line`` and where the rest of the line starts, or None."""
    m = _LABEL.match(line)
    if m is None:
        return None
    em = m.group("em") or ""
    end = m.end("name")
    for close in (":" + em, em + ":") if em else (":",):
        if line.startswith(close, end) and line[end + len(close) : end + len(close) + 1] in (
            " ",
            "\t",
        ):
            return m.group("name"), end + len(close) + 1
    return None


def speakers(lines: Sequence[str]) -> frozenset[str]:
    """The labels that count as speakers in a note of ``lines`` (its body): each label
    found twice or more, when labelled lines are ``LABELLED_SHARE`` of the non-blank lines
    and at least ``LABELLED_LEAST``."""
    counts: Counter[str] = Counter()
    filled = 0
    for line in lines:
        if not line.strip():
            continue
        filled += 1
        found = line_label(line)
        if found is not None:
            counts[found[0]] += 1
    labelled = sum(counts.values())
    if labelled < LABELLED_LEAST or labelled < LABELLED_SHARE * filled:
        return frozenset()
    return frozenset(name for name, n in counts.items() if n >= 2)


def unlabelled(text: str, known: frozenset[str]) -> tuple[str, frozenset[str]]:
    """``text`` with the labels in ``known`` cut from the lines they open, and the labels
    cut (who speaks in it)."""
    if not known:
        return text, frozenset()
    out = []
    said: set[str] = set()
    for line in text.split("\n"):
        found = line_label(line)
        if found is not None and found[0] in known:
            said.add(found[0])
            line = line[found[1] :]
        out.append(line)
    return "\n".join(out), frozenset(said)
