"""What the review desk calls a passage: a paragraph."""

from __future__ import annotations

import re

# A run of lines neither blank nor a heading (a line starting with "#"), in a note's text
# with its front matter, code and comments blanked out (``parse.parser.mask_note``)
PARAGRAPH = re.compile(r"^(?![ \t]*#)[ \t]*\S.*(?:\n(?![ \t]*#)[ \t]*\S.*)*", re.MULTILINE)
