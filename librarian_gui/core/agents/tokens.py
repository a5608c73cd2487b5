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

import functools
import re
import string
from collections.abc import Sequence
from typing import Any

from ..text.lazy_pattern import lazy_pattern

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
_CJK_CHAR = lazy_pattern(f"[{_CJK}]")
_LETTER = lazy_pattern(rf"[^\W\d_\x00-\x7f{_CJK}]")
_SYMBOL_1 = lazy_pattern(r"[^\w\s\x00-\x7f\u0100-\u1fff\u2070-\U0010ffff]")
_SYMBOL_2 = lazy_pattern(r"[^\w\s\x00-\xff\u2000-\u206f\U00010000-\U0010ffff]")
_SYMBOL_3 = lazy_pattern(r"[^\w\s\x00-\uffff]")


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


# Below this many characters of ASCII lines, ``line_tenths`` prices them one by one: its
# array arithmetic costs about 0.1 ms whatever the text's length (measured on sections of
# 4-32 lines: faster from about 12 lines and 1,500 characters on).
VECTOR_CHARS = 1500
VECTOR_LINES = 12  # … or fewer lines than this: what it saves is a dozen calls a line
_BLANK_BYTES = (32, 9, 10)
_PUNCT_BYTES = bytes(string.punctuation, "ascii")


def line_tenths(lines: Sequence[str]) -> list[int]:
    """``[tenths(line) for line in lines]`` (no line holding a newline), the ASCII lines
    priced together: each kind of piece found once over all of them with array
    arithmetic, not a dozen regular expressions a line. A question cuts about 50 notes
    into passages, pricing each line, and a line of interconnected-10k (250 characters)
    took 25 us."""
    if len(lines) < VECTOR_LINES or sum(map(len, lines)) < VECTOR_CHARS:
        return [tenths(line) for line in lines]
    ascii_at = [i for i, line in enumerate(lines) if line.isascii()]
    if len(ascii_at) < VECTOR_LINES:
        return [tenths(line) for line in lines]
    wanted = set(ascii_at)
    out = [0 if i in wanted else tenths(line) for i, line in enumerate(lines)]
    for i, price in zip(ascii_at, _ascii_line_tenths([lines[i] for i in ascii_at]), strict=True):
        out[i] = price
    return out


@functools.cache
def _byte_tables() -> tuple[Any, Any]:
    """Whether each byte is ASCII punctuation, and whether it is a blank (before a word)."""
    import numpy as np

    punct = np.zeros(256, bool)
    punct[np.frombuffer(_PUNCT_BYTES, np.uint8)] = True
    blank = np.zeros(256, bool)
    blank[list(_BLANK_BYTES)] = True
    return punct, blank


def _ascii_line_tenths(lines: list[str]) -> list[int]:
    """``tenths`` of each of these ASCII lines, by array arithmetic over them joined with
    newlines (no piece but a run of newlines spans one, and none is counted here)."""
    import numpy as np

    # A newline before the first line: each line then starts after a newline, as
    # ``tenths`` reads a text (its words' patterns run over "\n" + text).
    b = np.frombuffer(("\n" + "\n".join(lines)).encode("ascii"), np.uint8)
    n = len(b)
    line_of = np.cumsum(b == 10) - 1  # line 0 starts after the first newline
    lines_count = len(lines)

    def per_line(at: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(line_of[at], weights=weights, minlength=lines_count)

    upper = (b >= 65) & (b <= 90)
    lower = (b >= 97) & (b <= 122)
    letter = upper | lower
    digit = (b >= 48) & (b <= 57)
    punct_table, blank_table = _byte_tables()
    punct = punct_table[b]
    blank = blank_table[b]
    before = np.concatenate(([False], letter[:-1]))
    after = np.concatenate((letter[1:], [False]))

    # Words: runs of letters. Each 10; past a length, by what comes before and its case.
    starts = np.flatnonzero(letter & ~before)
    ends = np.flatnonzero(letter & ~after)
    length = ends - starts + 1
    uppers = np.concatenate(([0], np.cumsum(upper)))
    capital = uppers[ends + 1] - uppers[starts] > 0
    spaced = blank[starts - 1]  # the first byte is the newline: a word never starts there
    extra = np.where(
        spaced,
        np.where(
            capital,
            np.where(length > CAPITAL_PAST, CAPITAL_TENTHS * (length - CAPITAL_PAST), 0),
            np.where(length > LOWER_PAST, LOWER_TENTHS * (length - LOWER_PAST), 0),
        ),
        np.where(length > BARE_PAST, BARE_TENTHS * (length - BARE_PAST), 0),
    )
    count = per_line(starts, 10 + extra)

    pieces = np.zeros(lines_count)
    # camelCase turns: a capital after a lower-case letter
    pieces += per_line(np.flatnonzero(upper[1:] & lower[:-1]) + 1)
    # digits by threes; a space before a digit
    digit_before = np.concatenate(([False], digit[:-1]))
    d_starts = np.flatnonzero(digit & ~digit_before)
    d_ends = np.flatnonzero(digit & ~np.concatenate((digit[1:], [False])))
    pieces += per_line(d_starts, -(-(d_ends - d_starts + 1) // DIGITS_PER_TOKEN))
    pieces += per_line(np.flatnonzero((b[:-1] == 32) & digit[1:]))
    # punctuation: runs of one character; a long run costs more
    same = np.concatenate(([False], b[1:] == b[:-1]))
    p_starts = np.flatnonzero(punct & ~same)
    p_ends = np.flatnonzero(punct & ~np.concatenate((same[1:], [False])))
    pieces += per_line(p_starts)
    run = p_ends - p_starts + 1
    long = run > LONG_RUN
    pieces += per_line(p_starts[long], (run[long] - 1) // LONG_RUN)
    # an apostrophe after a letter, before one or two letters: joined, costs nothing
    word_at = np.full(n, 0)
    word_at[starts] = length
    quote = np.flatnonzero(b[1:-1] == 39) + 1
    joined = quote[before[quote] & (word_at[quote + 1] >= 1) & (word_at[quote + 1] <= 2)]
    pieces -= per_line(joined)
    # tabs; runs of two spaces or more; other spaces and control characters
    pieces += per_line(np.flatnonzero(b == 9))
    space = b == 32
    s_before = np.concatenate(([False], space[:-1]))
    s_starts = np.flatnonzero(space & ~s_before)
    s_ends = np.flatnonzero(space & ~np.concatenate((space[1:], [False])))
    pieces += per_line(s_starts[s_ends > s_starts])
    odd = ((b < 32) & (b != 9) & (b != 10)) | (b == 127)
    pieces += per_line(np.flatnonzero(odd))
    return [int(x) for x in np.rint(count + 10 * pieces)]


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
