"""The prose a note is compared by (DESIGN §5): its text without code, front matter,
comments, link syntax, URLs and tags. Its words are ``text.analyzer``'s."""

from __future__ import annotations

import re

from ..parse.parser import mask_note

# Link syntax goes whole, target and label: a link already says the two notes belong
# together, and related notes are about the ones that do not say so yet.
# (An embed's "!" is left behind: no word. A pattern opening with a literal is searched
# for fast; "!?" in front made the pass over a vault of links 4 times slower.)
WIKI_LINK = re.compile(r"\[\[[^\]\n]*\]\]")
MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)")
URL = re.compile(r"\b(?:[Hh][Tt][Tt][Pp][Ss]?|[Ff][Tt][Pp])://\S+|\b[Ww][Ww][Ww]\.\S+")
# A link reference definition ("[daily]: cli/daily.md 'foam daily'"): link syntax too, its
# label, target and title (a vault's index of them made passages and the term "md" shared).
LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S.*$", re.MULTILINE)
_TAG = re.compile(r"(?<![\w#])#[\w/-]+")
# Each pattern with what a text holds when it can match: most notes skip most passes.
_STRIPPED = (
    (WIKI_LINK, "[["),
    (MARKDOWN_LINK, "]("),
    (LINK_DEFINITION, "]:"),
    (URL, ""),
    (_TAG, "#"),
)


def plain_text(text: str) -> str:
    """The note's prose: code, front matter and comments blanked (``mask_note``), then link
    syntax, URLs and tags taken out."""
    body = mask_note(text)
    for pattern, marker in _STRIPPED:
        if marker and marker not in body:
            continue
        if not marker and not ("://" in body or "ww." in body or "WW." in body or "Ww." in body):
            continue
        body = pattern.sub(" ", body)
    return body
