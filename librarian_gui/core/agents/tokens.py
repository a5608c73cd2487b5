"""The token estimate every budget check uses: an upper bound by arithmetic, no tables.

Real tokenizers need their tables (``tiktoken`` downloads them at run time), so the text is
cut the way the cl100k and o200k pre-tokenizers cut it, and each piece priced at what it
costs at most in common text, in tenths of a token:

- a run of letters A–Z (a word): 1 token; a word after a space (BPE words carry their
  leading space, and common ones are one token) plus 0.2 for each letter past 6 when all
  lower case, plus 0.5 for each letter past 4 when it holds a capital (names split more);
  a word after anything else (line starts, ``[[links]]``, paths, code) plus 0.4 for each
  letter past 2; plus 1 for each turn from lower to upper case (camelCase, and the random
  letters of keys and signed URLs, which split densely);
- a run of digits: 1 token per 3 digits (cl100k and o200k group digits by three), and 1
  more for a space before it (a space before a digit is a token of its own);
- ASCII punctuation: 1 token for each run of one character (``**``, ``[[``, ``---`` merge
  into one token; ``:**`` costs 2), 1 more for each 3 past the first of a long run; an
  apostrophe between letters before one or two letters (``I'm``, ``don't``, ``we'll``)
  joins them and costs nothing; a run of newlines right after punctuation joins it
  (``.\\n\\n``) and costs nothing;
- other characters by their class: a Chinese, Japanese or Korean character 1.5 (most
  common ones are 1, rarer ones 2 or 3); any other non-ASCII letter 1 (accented, Greek,
  Cyrillic, Arabic...: BPE spends up to a token on each); a symbol of Latin-1 or general
  punctuation (``–``, ``…``, ``“``) 1, another symbol 2, an emoji (outside the basic
  plane) 3;
- a run of newlines: 1; a tab: 1; a run of two spaces or more (indentation): 1; any other
  space or control character (``\\r``, no-break space): 1; a single space: nothing;

then the sum times ``MARGIN`` (1.05), rounded up.

Checked against the real cl100k and o200k encodings (``tests/benchmarks/bench_tokens.py``:
tiktoken, its tables built offline) on 5,580 texts — every note and passage of LoCoMo's
three vaults, the demo vault (German, French and CJK notes among them), foam-docs,
logseq-docs and 200 interconnected-10k notes — and on the 1,146 context packs of the LoCoMo
questions: no text of 50 tokens or more is under-estimated by either (the closest at
1.03 ×, an index note's list of ``[[diary/2023-05-08]]`` links); over all texts it counts
1.25 × the cl100k tokens and 1.26 × the o200k tokens (the former estimate: 1.33 × and
1.34 ×, with two German passages under), over the packs 1.19 × and 1.21 × (was 1.32 × and
1.35 ×). Short texts of symbols and digits can be under-counted by a token or two; a pack
is checked as one text. Text dense in rare words (Polish or Turkish prose, lists of Latin
names, long German compounds) can cost more than priced; the margin covers them mixed into
ordinary text, and Cyrillic, Greek, Arabic or Thai cost more per letter in cl100k than in
o200k, so they are over-priced for the latter.

It never decreases as text is appended, and two texts joined at a newline cost at most the
sum of their estimates (no piece grows across a newline but a run of newlines, which costs
at most one, and no piece's price looks past a newline), so the blocks of a pack, each
ending with a newline, can be reserved one by one.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

_CJK = (  # Hangul jamo, kana, Hangul compatibility jamo, CJK ideographs, Hangul, half-width
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_PUNCT = r"!-/:-@\[-`{-~"  # ASCII punctuation
_PUNCT_CHARS = frozenset(string.punctuation)
# A word's extra tenths for each letter past a length, by what comes before it and its case.
LOWER_PAST, LOWER_TENTHS = 6, 2  # after a blank, all lower case
CAPITAL_PAST, CAPITAL_TENTHS = 4, 5  # after a blank, a capital in it
BARE_PAST, BARE_TENTHS = 3, 4  # after anything else
DIGITS_PER_TOKEN = 3
LONG_RUN = 3  # a run of one punctuation character: 1 more for each this many past the first
CJK_TENTHS = 15
MARGIN = 1.05
MARGIN_PERCENT = 105  # MARGIN in percent

# Each kind of piece on its own, for counting over a whole text at once. The words' own
# patterns run over the text after a newline, so that a text's start reads as a line's:
# a word after a blank (space, tab, newline) is matched with that blank, any other word
# with the character before it.
_WORD = re.compile(r"[A-Za-z]+")
_SPACED_LONG = re.compile(rf"[ \t\n][A-Za-z]{{{CAPITAL_PAST + 1},}}")
_BARE_LONG = re.compile(rf"[^ \t\nA-Za-z][A-Za-z]{{{BARE_PAST + 1},}}")
_TURN = re.compile(r"[A-Z](?<=[a-z][A-Z])")
_SPACED_NUM = re.compile(r" \d")
_RUN = re.compile(rf"([{_PUNCT}])\1*")
_LONG_RUN = re.compile(rf"([{_PUNCT}])\1{{{LONG_RUN},}}")
_CONTRACTION = re.compile(r"'(?<=[A-Za-z]')(?=[A-Za-z]{1,2}(?![A-Za-z]))")
_NEWLINES = re.compile(r"\n+")
_PUNCT_NEWLINE = re.compile(rf"[{_PUNCT}]\n")
_SPACES = re.compile(r" {2,}")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
# ASCII text needs no Unicode classes (three times faster): \d is 0-9 there, and the
# blanks Python's \s holds besides space, tab and newline are these.
_ASCII_DIGITS = re.compile(rf"[0-9]{{1,{DIGITS_PER_TOKEN}}}")  # a run of digits, by threes
_ASCII_ODD_SPACE = re.compile(r"[\r\x0b\x0c\x1c-\x1f]")
_ASCII_RARE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # an odd space or a control character
_DIGITS = re.compile(rf"\d{{1,{DIGITS_PER_TOKEN}}}")
_ODD_SPACE = re.compile(r"[^\S \n\t]")  # also no-break, ideographic and other spaces
_CJK_CHAR = re.compile(f"[{_CJK}]")
_LETTER = re.compile(rf"[^\W\d_\x00-\x7f{_CJK}]")
_SYMBOL_1 = re.compile(r"[^\w\s\x00-\x7f\u0100-\u1fff\u2070-\U0010ffff]")
_SYMBOL_2 = re.compile(r"[^\w\s\x00-\xff\u2000-\u206f\U00010000-\U0010ffff]")
_SYMBOL_3 = re.compile(r"[^\w\s\x00-\uffff]")


def estimate_tokens(text: str) -> int:
    """An upper estimate of the tokens ``text`` takes (see the module's docstring)."""
    return from_tenths(tenths(text))


def from_tenths(count: int) -> int:
    """The estimate of a text priced ``count`` tenths of a token: the margin, rounded up."""
    return -(-count * MARGIN_PERCENT // 1000)


def tenths(text: str) -> int:
    """What ``text`` costs in tenths of a token before the margin (``estimate_tokens``).

    The pieces are counted kind by kind over the whole text: each kind's characters are
    its own, so a kind's runs are its pieces, whatever lies between them. In tenths of a
    token, so the margin rounds exactly. Every sum is taken in C (``map``, ``filter``), and
    a kind that cannot occur (no newline, no apostrophe, no digit) is not looked for: a
    question cuts about 100 notes into passages, and pricing them was half its time."""
    if not text:
        return 0
    lined = "\n" + text
    spaced = _SPACED_LONG.findall(lined)  # each with its blank: one letter fewer
    lower = list(filter(str.islower, spaced))
    # the lower-case words long enough to cost more (``_SPACED_LONG`` takes whole words)
    lower_long = [w for w in lower if len(w) > LOWER_PAST + 1]
    bare = _BARE_LONG.findall(lined)
    count = (
        10 * len(_WORD.findall(text))
        + LOWER_TENTHS * (sum(map(len, lower_long)) - (LOWER_PAST + 1) * len(lower_long))
        + CAPITAL_TENTHS
        * (
            sum(map(len, spaced))
            - sum(map(len, lower))
            - (CAPITAL_PAST + 1) * (len(spaced) - len(lower))
        )
        + BARE_TENTHS * (sum(map(len, bare)) - (BARE_PAST + 1) * len(bare))
    )
    ascii_text = text.isascii()
    digits = len((_ASCII_DIGITS if ascii_text else _DIGITS).findall(text))
    pieces = len(_TURN.findall(text)) + digits + len(_RUN.findall(text)) + text.count("\t")
    if digits:
        pieces += len(_SPACED_NUM.findall(text))
    if "'" in text:
        pieces -= len(_CONTRACTION.findall(text))
    if "\n" in text:
        pieces += len(_NEWLINES.findall(text)) - len(_PUNCT_NEWLINE.findall(text))
    if "  " in text:
        pieces += len(_SPACES.findall(text))
    long_runs = _LONG_RUN.finditer(text)
    pieces += sum((m.end() - m.start() - 1) // LONG_RUN for m in long_runs)
    if not ascii_text:
        pieces += len(_ODD_SPACE.findall(text)) + len(_CONTROL.findall(text))
    elif _ASCII_RARE.search(text):
        pieces += len(_ASCII_ODD_SPACE.findall(text)) + len(_CONTROL.findall(text))
    count += 10 * pieces
    if not ascii_text:
        count += CJK_TENTHS * len(_CJK_CHAR.findall(text)) + 10 * (
            len(_LETTER.findall(text))
            + len(_SYMBOL_1.findall(text))
            + 2 * len(_SYMBOL_2.findall(text))
            + 3 * len(_SYMBOL_3.findall(text))
        )
    return count


def joined_tenths(lines: Sequence[str], priced: Sequence[int]) -> int:
    """``tenths("\\n".join(lines))`` from each line's own ``tenths`` (``priced``), without
    reading the lines again: no piece but a run of newlines spans a newline, and every
    line starts as a text does (after a blank). A run of newlines is one piece, and none
    after punctuation; a blank line continues the run before it."""
    count = sum(priced)
    for i, line in enumerate(lines[:-1]):
        if line:
            count += 0 if line[-1] in _PUNCT_CHARS else 10
        elif i == 0:
            count += 10  # the text opens with a newline: a run of its own
    return count
