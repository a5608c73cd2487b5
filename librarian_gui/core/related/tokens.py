"""The words a note is compared by (DESIGN §5): its text without code, front matter,
comments, link syntax and URLs; Unicode words, case-folded, English stop words left out;
Chinese and Japanese, written without spaces, as character bigrams."""

from __future__ import annotations

import re
from collections.abc import Iterable

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
# A word: letters and digits of any script that spaces its words; a run of Chinese or
# Japanese characters, cut into bigrams below.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)?")
_IS_CJK = re.compile(rf"[{_CJK}]")
_DIGITS = re.compile(r"\d+")

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "almost",
        "also",
        "although",
        "always",
        "am",
        "among",
        "an",
        "and",
        "another",
        "any",
        "anyone",
        "anything",
        "are",
        "aren't",
        "around",
        "as",
        "at",
        "be",
        "became",
        "because",
        "become",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "done",
        "down",
        "during",
        "each",
        "either",
        "else",
        "enough",
        "etc",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "least",
        "less",
        "let",
        "like",
        "many",
        "may",
        "me",
        "might",
        "mine",
        "more",
        "most",
        "much",
        "must",
        "my",
        "myself",
        "neither",
        "never",
        "no",
        "nor",
        "not",
        "nothing",
        "now",
        "of",
        "off",
        "often",
        "on",
        "once",
        "one",
        "only",
        "onto",
        "or",
        "other",
        "others",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "perhaps",
        "please",
        "quite",
        "rather",
        "really",
        "same",
        "several",
        "shall",
        "she",
        "should",
        "shouldn't",
        "since",
        "so",
        "some",
        "something",
        "still",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they're",
        "thing",
        "things",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "toward",
        "towards",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "wasn't",
        "we",
        "well",
        "were",
        "weren't",
        "what",
        "what's",
        "whatever",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won't",
        "would",
        "wouldn't",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
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
