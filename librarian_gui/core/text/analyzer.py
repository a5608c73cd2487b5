"""The words of a text, as every scorer compares them: Unicode words, case-folded (``’`` as
``'``), English stop words, digits-only runs and one-letter words left out; Chinese and
Japanese, written without spaces, as character bigrams (``words``); the searchable terms,
each word folded by a light English stemmer (``terms``).

Two other splits are kept apart on purpose, each for what it must agree with:

- ``word_set`` and ``mention_words``: words as the unlinked-mention matcher bounds a name
  (runs of ``SPACED_WORD_CHAR``, underscore included, lowercased with ``str.lower``), so the
  word index narrows the notes to exactly those the matcher can find a name in;
- ``phrase_runs`` and ``phrase_words``: words as written, hyphens and apostrophes inside
  ("follow-up", "Wren's"), in runs spaces alone separate: the phrases concept suggestions
  count.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

from .lazy_pattern import lazy_pattern
from .stopwords import STOP_WORDS

# Chinese and Japanese: a run of them is cut into bigrams (``words``).
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
# Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Myanmar,
# Khmer): a name in them is found anywhere, and a neighbour in them is a word boundary,
# so "Python" is found in "用Python写".
NO_SPACES = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f"
    "\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
SPACED_WORD_CHAR = f"[^\\W{NO_SPACES}]"
IS_SPACED_WORD_CHAR = lazy_pattern(SPACED_WORD_CHAR)

# A word: letters and digits of any script that spaces its words, one apostrophe inside
# ("don't"); a run of Chinese or Japanese characters, cut into bigrams.
_WORD = lazy_pattern(rf"[{CJK}]+|[^\W_{CJK}]+(?:['’][^\W_{CJK}]+)?")
_IS_CJK = lazy_pattern(rf"[{CJK}]")
_DIGITS = re.compile(r"\d+")
# ``_WORD`` for a piece without Chinese or Japanese and with "’" already made "'".
_APOSTROPHE_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Every ASCII character but letters, digits and the apostrophe, as a space; capitals as
# small letters (one pass over the text, not two with ``str.lower``).
_ASCII_SPACES = str.maketrans(
    {chr(c): " " for c in range(128) if not chr(c).isalnum() and chr(c) != "'"}
    | {chr(c): chr(c).lower() for c in range(ord("A"), ord("Z") + 1)}
)
# The same for UTF-8 bytes; a byte of a multi-byte character (128 and over) as it is.
_BYTE_SPACES = bytes(ord(_ASCII_SPACES.get(c, chr(c))) if c < 128 else c for c in range(256))

_MENTION_WORD = lazy_pattern(f"{SPACED_WORD_CHAR}+")
_UNSPACED = lazy_pattern(f"[{NO_SPACES}]")

_PHRASE_WORD = lazy_pattern(rf"[^\W_{NO_SPACES}]+(?:['’\-][^\W_{NO_SPACES}]+)*")
# Within a sentence clause, words are separated by spaces only; anything else (punctuation,
# a line end, a link that was cut out) ends the run of words a phrase may span.
_PHRASE_RUN = lazy_pattern(rf"{_PHRASE_WORD.pattern}(?:[ \t]+{_PHRASE_WORD.pattern})*")


def words(text: str) -> list[str]:
    """The comparable words of some prose, in order: case-folded, without stop words,
    digits-only runs and one-letter words; a Chinese or Japanese run as its bigrams (a
    lone character as itself)."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        if _IS_CJK.match(word):
            out.extend(_bigrams(word))
            continue
        folded = word.casefold().replace("’", "'")
        if kept(folded):
            out.append(folded)
    return out


def raw_words(text: str) -> list[str]:
    """``words`` before stop words, digits-only runs and one-letter words are taken out,
    for prose without Chinese or Japanese: matched, then case-folded all at once (a word at
    a time in Python was most of the time on a vault in accented Latin)."""
    found = _WORD.findall(text)
    if not found:
        return []
    # Case folding maps each character alone, and no word holds a NUL: folding the words
    # joined by NULs folds each word.
    return "\x00".join(found).casefold().replace("’", "'").split("\x00")


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """Each word of ``text`` as ``raw_words`` folds it (a Chinese or Japanese run whole),
    with where it starts and ends: for showing the words two texts share."""
    return [
        (m.group().casefold().replace("’", "'"), m.start(), m.end()) for m in _WORD.finditer(text)
    ]


def has_cjk(text: str) -> bool:
    """Whether the text holds Chinese or Japanese (which ``words`` cuts into bigrams)."""
    return _IS_CJK.search(text) is not None


def kept(word: str) -> bool:
    """Whether a case-folded word is worth comparing: two characters at least (or a Chinese
    or Japanese character), not a stop word, not digits only."""
    if len(word) < 2:
        return _IS_CJK.match(word) is not None
    return word not in STOP_WORDS and _DIGITS.fullmatch(word) is None


def _bigrams(run: str) -> Iterable[str]:
    if len(run) == 1:
        return (run,)
    return (run[i : i + 2] for i in range(len(run) - 1))


def ascii_words(text: str) -> list[str]:
    """The words of an ASCII text split in C: at everything but letters, digits and
    apostrophes, lowercased; a piece with an apostrophe kept whole ("'tis", "a'b'c":
    ``apostrophe_words`` splits it as ``raw_words`` would)."""
    return text.translate(_ASCII_SPACES).split()


def apostrophe_words(piece: str) -> list[str]:
    """``raw_words`` of a folded piece without Chinese or Japanese ("'tis" → "tis",
    "a'b'c" → "a'b", "c")."""
    return _APOSTROPHE_WORD.findall(piece)


def counted_words(prose: str, sequence: bool = False) -> tuple[Counter[str], list[str]]:
    """How often each of ``raw_words`` occurs in ``prose`` (Chinese and Japanese as
    ``words`` cuts them), and with ``sequence`` the words in order (else an empty list;
    ASCII prose in order as ``ascii_words`` splits it)."""
    if not prose.isascii():
        return _counts_beyond_ascii(prose), raw_words(prose) if sequence else []
    # The same words as ``raw_words`` for ASCII, counted in C (a vault of 50 MB in about a
    # second).
    split = prose.translate(_ASCII_SPACES).split()
    counts = Counter(split)
    if "'" in prose:  # "don't" is a word, "'tis" and "dogs'" are "tis" and "dogs"
        for token in [t for t in counts if "'" in t]:
            times = counts.pop(token)
            for word in _APOSTROPHE_WORD.findall(token):
                counts[word] += times
    return counts, split if sequence else []


def _counts_beyond_ascii(prose: str) -> Counter[str]:
    """``counted_words`` of prose that is not all ASCII. Without Chinese or Japanese, its
    UTF-8 bytes are split as ASCII is (a multi-byte character stays inside its word) and
    each distinct piece is decoded and folded once; a piece that is not all letters and
    digits (an apostrophe, a dash, a combining mark) is matched as ``words`` matches (a
    regex over the whole text was two thirds of the time on a vault in accented Latin)."""
    if has_cjk(prose):
        return Counter(words(prose))
    counts: Counter[str] = Counter()
    for piece, times in Counter(prose.encode().translate(_BYTE_SPACES).split()).items():
        word = piece.decode()
        if word.isalnum():  # folded alone, as ``words`` folds each word ("İ" is two)
            counts[word if piece.isascii() else word.casefold()] += times
            continue
        for part in raw_words(word):
            counts[part] += times
    return counts


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix fold, the same for the query and the text ("paints",
    "painted", "painting" → "paint"; "stories" → "story"); short words stay as they are.
    Folded until it stays, so a word and its forms meet: "paintings" → "painting" →
    "paint", as "painting" does (once, "paintings" stopped at "painting").

    "-ing" and "-ed" come off as in Porter's stemmer (Porter 1980, step 1b): only where a
    vowel is left ("string", "spring", "speed" stay), and the silent "e" they took comes
    back after "at", "bl", "iz" and a short consonant-vowel-consonant stem ("hiking",
    "hiked" → "hike", as "hike"; "making" → "make"; "caring" → "care", not "car";
    "created" → "create"); "-ied" is "-y" as "-ies" is ("married" → "marry"). Porter's
    step 5 (an "e" off longer words: "decide" as "decided") is not taken: measured, it let
    "decide" match every "decided" of a vault's logs, and the demo vault's decision record
    fell out of a 1,000-token pack."""
    while True:
        folded = _fold(word)
        if folded == word:
            return word
        word = folded  # each fold shortens the word (an "e" given back, by less): this ends


def _fold(word: str) -> str:
    """One suffix off, or the word as it is."""
    if len(word) <= 3 or not word.isascii():
        return word
    if word.endswith("'s"):
        word = word[:-2]
    if word.endswith(("ies", "ied")) and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("eed"):  # "agreed" as "agree"; "speed", "need" stay
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return _restored(word, word[: -len(suffix)])
    if word.endswith("ly") and len(word) > 5:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _restored(word: str, base: str) -> str:
    """``word`` without "-ing" or "-ed" (``base``), as Porter's step 1b leaves it: an "e"
    given back after "at", "bl", "iz" and a short consonant-vowel-consonant stem, a doubled
    consonant undoubled; the word as it is when no vowel is left."""
    if not any(not _consonant(base, i) for i in range(len(base))):
        return word
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
        return base[:-1]
    if _measure(base) == 1 and _cvc(base):
        return base + "e"
    return base


def _consonant(word: str, i: int) -> bool:
    """Whether ``word[i]`` is a consonant ("y" after a consonant is a vowel)."""
    c = word[i]
    if c in "aeiou":
        return False
    if c == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(base: str) -> int:
    """Porter's m: how many vowel-then-consonant runs ``base`` holds."""
    m = 0
    vowel = False
    for i in range(len(base)):
        consonant = _consonant(base, i)
        if consonant and vowel:
            m += 1
        vowel = not consonant
    return m


def _cvc(base: str) -> bool:
    """Whether ``base`` ends consonant, vowel, consonant, the last not "w", "x" or "y"
    (Porter's *o: "hik", "car", not "paint")."""
    n = len(base)
    return (
        n >= 3
        and base[-1] not in "wxy"
        and _consonant(base, n - 1)
        and not _consonant(base, n - 2)
        and _consonant(base, n - 3)
    )


def terms(text: str) -> list[str]:
    """The searchable terms of a text: its ``words``, each folded by ``stem``. ASCII text
    is split in C (``ascii_words``) and each distinct piece turned into its terms once
    (a question reads about 100 notes: cutting each word in Python was a third of it);
    other text too, as its UTF-8 bytes (``_terms_beyond_ascii``)."""
    if not text.isascii():
        return _terms_beyond_ascii(text)
    out: list[str] = []
    known = _PIECE_TERMS
    for piece in text.translate(_ASCII_SPACES).split():
        found = known.get(piece)
        if found is None:
            found = _piece_terms(piece)
        out += found
    return out


def term_pieces(text: str) -> list[str] | list[bytes]:
    """The pieces ``terms`` cuts ``text`` into, each to be turned into its terms by
    ``piece_terms``: ``terms(text)`` is their terms in order. ASCII text as ``str``
    pieces, other text as its UTF-8 bytes' pieces (see ``_terms_beyond_ascii``); a
    ``str`` piece never equals a ``bytes`` one, so both can key one mapping."""
    if text.isascii():
        return text.translate(_ASCII_SPACES).split()
    return text.encode("utf-8", "surrogatepass").translate(_BYTE_SPACES).split()


def piece_terms(piece: str | bytes) -> tuple[str, ...]:
    """The terms of one of ``term_pieces``' pieces (none for a stop word)."""
    if isinstance(piece, str):
        found = _PIECE_TERMS.get(piece)
        return found if found is not None else _piece_terms(piece)
    found = _BYTE_PIECE_TERMS.get(piece)
    return found if found is not None else _byte_piece_terms(piece)


def _terms_beyond_ascii(text: str) -> list[str]:
    """``terms`` of a text that is not all ASCII. Its UTF-8 bytes are split in C as ASCII
    text is (``_BYTE_SPACES``: a multi-byte character stays inside its piece), and each
    distinct piece is turned into its terms once, by ``words`` (so Chinese and Japanese as
    bigrams, other blanks and punctuation as ``words`` splits them), and kept. The first
    search of a fresh vault counts every note: 10,000 generated notes with a few accented
    words each, 6.3 → 0.9-1.0 s (a regex match, a casefold and a filter a word before)."""
    out: list[str] = []
    known = _BYTE_PIECE_TERMS
    for piece in text.encode("utf-8", "surrogatepass").translate(_BYTE_SPACES).split():
        found = known.get(piece)
        if found is None:
            found = _byte_piece_terms(piece)
        out += found
    return out


def _byte_piece_terms(piece: bytes) -> tuple[str, ...]:
    found = tuple(stem(w) for w in words(piece.decode("utf-8", "surrogatepass")))
    if len(_BYTE_PIECE_TERMS) >= _PIECES_KEPT:
        _BYTE_PIECE_TERMS.clear()
    _BYTE_PIECE_TERMS[piece] = found
    return found


def word_set_of(text: str) -> set[str]:
    """The distinct ``words`` of a text (not stemmed), an ASCII text split in C: for
    comparing many passages at once."""
    if not text.isascii():
        return set(words(text))
    # bytes.translate runs a 256-byte table; str.translate looks each character up in a dict
    split = set(text.encode("ascii").translate(_BYTE_SPACES).split())
    pieces = {piece.decode("ascii") for piece in split} - STOP_WORDS
    # ``kept`` for ASCII pieces, with string methods: a regex call apiece was most of it
    out = {p for p in pieces if len(p) > 1 and "'" not in p and not p.isdigit()}
    for piece in pieces:
        if "'" in piece:
            out.update(w for w in apostrophe_words(piece) if kept(w))
    return out


# An ASCII piece (see ``ascii_words``) → its terms; forgotten past ``_PIECES_KEPT`` pieces.
_PIECE_TERMS: dict[str, tuple[str, ...]] = {}
_BYTE_PIECE_TERMS: dict[bytes, tuple[str, ...]] = {}  # the same for ``_terms_beyond_ascii``
_PIECES_KEPT = 200_000


def _piece_terms(piece: str) -> tuple[str, ...]:
    found = tuple(
        stem(w) for w in (apostrophe_words(piece) if "'" in piece else (piece,)) if kept(w)
    )
    if len(_PIECE_TERMS) >= _PIECES_KEPT:
        _PIECE_TERMS.clear()
    _PIECE_TERMS[piece] = found
    return found


def word_set(text: str) -> frozenset[str]:
    """The words of ``text`` as the unlinked-mention matcher bounds a name: runs of
    ``SPACED_WORD_CHAR`` (letters, digits and "_" of the scripts that space their words:
    "alpha中文" holds "alpha"), lowercased with ``str.lower`` as the matcher's first test
    is. For the word index, which must never rule out a note the matcher would find."""
    return frozenset(_MENTION_WORD.findall(text.lower()))


def mention_words(name: str) -> list[str]:
    """A name's words as ``word_set`` splits a text."""
    return _MENTION_WORD.findall(name.lower())


def has_unspaced(text: str) -> bool:
    """Whether the text holds a script written without spaces (``NO_SPACES``)."""
    return _UNSPACED.search(text) is not None


def phrase_runs(text: str) -> list[str]:
    """The runs of ``phrase_words`` that only spaces and tabs separate, as written: the
    stretches of a clause a phrase may span. Scripts written without spaces have no word
    boundaries to count phrases by; they are left out."""
    return _PHRASE_RUN.findall(text)


def phrase_words(text: str) -> list[str]:
    """Words as written, for phrases: letters or digits of a spaced script, with inner
    hyphens or apostrophes ("follow-up", "Wren's"); not folded."""
    return _PHRASE_WORD.findall(text)
