"""How often each word occurs in each note: template lines found across a vault, one note's
counts, and many notes' counts as the three arrays of a sparse matrix over a word table."""

from __future__ import annotations

import functools
import itertools
import math
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..text.analyzer import (
    apostrophe_words,
    ascii_words,
    counted_words,
    has_cjk,
    kept,
    raw_words,
    words,
)
from .prose import plain_text

if TYPE_CHECKING:  # numpy and scipy load with the model, not with the package
    import numpy as np
    import numpy.typing as npt
    from scipy import sparse

CONCEPT_PREFIX = "\x00concept:"  # a concept's term: no word can look like it
# A note named by one word ("wikilinks.md") has that word as a term of its own, and so does
# every note that mentions it: a mention of a note's name is the best hint of a link to it.
# A name of several words ("daily-notes.md", logseq's "Snap to grid.md") is a term too, its
# words joined by one space, found in a note where they follow one another; such a term only
# marks the mention (``neighbours.mention_bonus``), it is no part of the vectors (as a term
# it found fewer links in the benchmark's vaults).
TITLE_PREFIX = "\x00title:"
TITLE_SELF = 3  # the count of a note's own name: what the note is about, whatever its length
TEMPLATE_SHARE = 0.02  # a line in this share of the notes (and in 4 at least) is a template's
TEMPLATE_MIN = 4
TEMPLATE_LINE_MAX = 80  # only short lines count as a template's: headings, labels
# ... and only lines that short before stripping, indentation aside: a paragraph's line is
# passed over without being stripped and folded (most of the time on long notes).
TEMPLATE_RAW_MAX = TEMPLATE_LINE_MAX + 40
CHUNK_NOTES = 200  # notes counted between two calls of ``check`` (a few tens of ms)


def template_lines(texts: Iterable[str], check: Callable[[], None] | None = None) -> frozenset[str]:
    """The short lines so many notes hold that they come from a template, not the note."""
    seen: Counter[str] = Counter()
    total = 0
    for text in texts:
        if check is not None and total % CHUNK_NOTES == 0:
            check()
        total += 1
        lines = {
            line.strip().casefold() for line in text.splitlines() if len(line) <= TEMPLATE_RAW_MAX
        }
        seen.update(line for line in lines if line and len(line) <= TEMPLATE_LINE_MAX)
    least = max(TEMPLATE_MIN, math.ceil(TEMPLATE_SHARE * total))
    # A line without a letter or digit ("-", "---") holds no word: leaving it in costs
    # nothing, and taking it out would cost a pass over every line of every note.
    return frozenset(
        line for line, count in seen.items() if count >= least and any(c.isalnum() for c in line)
    )


@functools.lru_cache(maxsize=1 << 16)
def title_of(rel: str) -> str | None:
    """The note's name as a title term: its file name without extension (``%xx`` escapes
    decoded), when that is one comparable word, or its words joined by one space when it
    has several and one of them is comparable (split as ``raw_counts`` splits prose: "-",
    "_" and logseq's namespace "___" part words). None for a name of no comparable word (a
    journal's date) or several in Chinese or Japanese."""
    stem = rel.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    if "%" in stem:
        stem = urllib.parse.unquote(stem)
    if stem.isascii():
        found = ascii_words(stem)
    elif has_cjk(stem):
        found = words(stem)
        return found[0] if len(found) == 1 else None
    else:
        found = raw_words(stem)
    if len(found) == 1:
        return found[0] if kept(found[0]) else None
    return " ".join(found) if any(map(kept, found)) else None


def titles_of(notes: Iterable[str]) -> frozenset[str]:
    """The names of ``notes`` (see ``title_of``)."""
    return frozenset(title for title in map(title_of, notes) if title is not None)


@functools.lru_cache(maxsize=4)
def _phrases(titles: frozenset[str]) -> dict[tuple[str, str], tuple[tuple[str, ...], ...]]:
    """The names of several words among ``titles``, by their first two words."""
    found: defaultdict[tuple[str, str], list[tuple[str, ...]]] = defaultdict(list)
    for title in titles:
        if " " in title:
            parts = tuple(title.split(" "))
            found[parts[0], parts[1]].append(parts)
    return {pair: tuple(names) for pair, names in found.items()}


def mentioned(
    sequence: Sequence[str], phrases: Mapping[tuple[str, str], Sequence[tuple[str, ...]]]
) -> list[str]:
    """The names of several words (``_phrases``) that occur in a note's ``sequence`` of
    words, each as a title (its words joined by one space), sorted."""
    pairs = phrases.keys() & itertools.pairwise(sequence)
    if not pairs:
        return []
    out = set()
    joined: str | None = None
    for pair in pairs:
        for parts in phrases[pair]:
            title = " ".join(parts)
            if len(parts) > 2:
                joined = joined if joined is not None else " " + " ".join(sequence) + " "
                if f" {title} " not in joined:
                    continue
            out.add(title)
    return sorted(out)


def note_counts(text: str, templates: frozenset[str] = frozenset()) -> Counter[str]:
    """How often each comparable word occurs in a note (``analyzer.words``), the template's
    lines left out."""
    counts = raw_counts(text, templates)
    for word in [w for w in counts if not kept(w)]:
        del counts[word]
    return counts


def raw_counts(text: str, templates: frozenset[str] = frozenset()) -> Counter[str]:
    """``note_counts`` before stop words, one-letter words and numbers are taken out (the
    model takes them out of its vocabulary once, not out of every note)."""
    return _counted(text, templates, False)[0]


def _counted(
    text: str, templates: frozenset[str], sequence: bool
) -> tuple[Counter[str], list[str]]:
    """``raw_counts``, and with ``sequence`` the note's words in order (as ``title_of``
    splits a name; else an empty list)."""
    prose = plain_text(text)
    if templates:
        prose = "\n".join(
            line
            for line in prose.splitlines()
            if len(line) > TEMPLATE_RAW_MAX or line.strip().casefold() not in templates
        )
    return counted_words(prose, sequence)


def _title_words(title: str | None) -> list[str]:
    """The words of a note's name (``title_of``), split as its text is: the name is the
    note's title (DESIGN §2), in the note as a heading would hold it, so each of its words
    counts once more. Most notes of logseq and of many vaults hold no heading of their
    name, and a short one is then little more than its name. (Counted only where the text
    lacked the word, P@10 foam-docs 0.417 and logseq-docs 0.182, with the passages; once
    more always, 0.414 and 0.186: a word of the name is what the note is about.) Added after
    the names a note mentions are looked for: a note's own name mentions no other note
    (that made a short note named by two common words a hub of 5 % of the lists on
    interconnected-10k, and its words a longer similarity)."""
    if title is None:
        return []
    if "'" not in title:
        return title.split(" ")
    return [w for part in title.split(" ") for w in (apostrophe_words(part) or [part])]


def counts_matrix(
    rows: tuple[list[npt.NDArray[np.int32]], list[npt.NDArray[np.int32]]], width: int
) -> sparse.csr_matrix:
    """The matrix of ``count_rows``'s rows (each note's word numbers and counts)."""
    import numpy as np
    from scipy import sparse

    ids, values = rows
    indptr = np.zeros(len(ids) + 1, dtype=np.int32)
    np.cumsum([len(row) for row in ids], out=indptr[1:])
    empty = np.zeros(0, dtype=np.int32)
    return sparse.csr_matrix(
        (
            np.concatenate(values) if values else empty,
            np.concatenate(ids) if ids else empty,
            indptr,
        ),
        shape=(len(ids), width),
    )


def count_rows(
    texts: Sequence[str],
    concepts: Sequence[Collection[str]],
    own: Sequence[str | None],
    basis: tuple[frozenset[str], frozenset[str]],
    index: Mapping[str, int],
    check: Callable[[], None] | None = None,
    passages: list[npt.NDArray[np.uint64]] | None = None,
) -> tuple[list[npt.NDArray[np.int32]], list[npt.NDArray[np.int32]], dict[str, int]]:
    """Each text's raw counts (plus one count of each of its concepts' terms, one of each
    title of ``basis`` it mentions, ``TITLE_SELF`` of its ``own`` title, one more of each
    word of that title): for each text its words' numbers and their counts, over a word
    table: ``index`` (word → place) and the words it lacks (returned), numbered after it,
    in the order first met (so a full build's table is the same for the same texts). Given
    a list, ``passages`` gets each text's passage hashes (``passages.passage_hashes``)."""
    size = len(index)
    fresh: defaultdict[str, int] = defaultdict()

    def known_or_fresh(word: str) -> int:
        at = index.get(word)
        return fresh.setdefault(word, size + len(fresh)) if at is None else at

    place: Callable[[str], int] = known_or_fresh
    if not index:  # a full build: a word met for the first time takes the next number, in C
        fresh.default_factory = fresh.__len__
        place = fresh.__getitem__
    # An array a note, filled from iterators: as fast as one list for the vault made into an
    # array at the end, without a Python int per count (10k notes: 80 MB less at the peak).
    import numpy as np

    from .passages import WordCodes, passage_hashes

    ids: list[npt.NDArray[np.int32]] = []
    values: list[npt.NDArray[np.int32]] = []
    templates, titles = basis
    phrases = _phrases(titles)
    codes = WordCodes()
    for n, (text, found, mine) in enumerate(zip(texts, concepts, own, strict=True)):
        if check is not None and n % CHUNK_NOTES == 0:
            check()
        counts, sequence = _counted(text, templates, bool(phrases) or passages is not None)
        if passages is not None:
            passages.append(passage_hashes(sequence, codes))
        for cid in found:
            counts[CONCEPT_PREFIX + cid] = 1
        # Sorted: the order of a note's counts decides ties when its terms are pruned.
        for title in sorted(titles.intersection(counts)):
            counts[TITLE_PREFIX + title] = 1
        for title in mentioned(sequence, phrases) if phrases else ():
            counts[TITLE_PREFIX + title] = 1
        if mine is not None and mine in titles:
            counts[TITLE_PREFIX + mine] = TITLE_SELF
        for word in _title_words(mine):
            counts[word] += 1
        ids.append(np.fromiter(map(place, counts), dtype=np.int32, count=len(counts)))
        values.append(np.fromiter(counts.values(), dtype=np.int32, count=len(counts)))
    fresh.default_factory = None
    return ids, values, fresh
