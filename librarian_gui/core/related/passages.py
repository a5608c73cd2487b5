"""Passages two notes share: a run of ``PASSAGE_WORDS`` words in a row that both hold, that
at most ``PASSAGE_NOTES`` notes hold, and ``PASSAGE_CONTENT`` of whose words at least are no
stop words. One note quotes the other (an index's line describing a note, a summary copying
its first sentence) or both quote one source: as plain a sign of a link as a mention of a
name, and a bonus of the same size in the ranking (``neighbours.MENTION_BONUS``). A run more
notes hold is boilerplate; a run of stop words ("it is what it is") says nothing.
P@10 of the benchmark without and with them: foam-docs 0.400 and 0.414, logseq-docs 0.185
and 0.186 (runs of 6 or 7 words, or up to 3 or 20 notes, did about as well; 4 words worse;
3 words no stop words as well but a lower recall, 4 worse).

Each note's passages are kept as hashes of its runs (the words case-folded, stop words
included, as ``counting`` splits its prose), all notes' in one array sorted by hash (the
"postings"), from which the pairs that share one are found again in one pass. A word's code
is its CRC-32: the same in every process and every build, so a saved model and an update
agree with a full build."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..text.analyzer import kept, word_spans

PASSAGE_WORDS = 5
PASSAGE_NOTES = 5
PASSAGE_CONTENT = 2
# One odd 64-bit factor a place in the run: a run's hash is the sum of its words' codes, each
# times its place's factor (wrapping at 2**64).
_FACTORS = np.array(
    [
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
    ],
    dtype=np.uint64,
)

Hashes = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.int32]
Keys = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


class WordCodes(dict[str, int]):
    """Each word's code: its UTF-8 CRC-32, plus 2**32 for a word worth comparing
    (``analyzer.kept``: no stop word), computed once a word: looked up in C for a word
    already met (``map(codes.__getitem__, words)``)."""

    def __missing__(self, word: str) -> int:
        code = zlib.crc32(word.encode("utf-8")) | (kept(word) << 32)
        self[word] = code
        return code


def passage_hashes(sequence: Sequence[str], codes: WordCodes) -> Hashes:
    """The hashes of every run of ``PASSAGE_WORDS`` words of ``sequence`` (a note's words in
    order), in order (a run the note repeats, as often: ``postings`` keeps it once)."""
    runs = len(sequence) - PASSAGE_WORDS + 1
    if runs <= 0:
        return np.zeros(0, dtype=np.uint64)
    coded = np.fromiter(map(codes.__getitem__, sequence), dtype=np.uint64, count=len(sequence))
    hashes: Hashes = coded[:runs] * _FACTORS[0]
    for place in range(1, PASSAGE_WORDS):
        hashes += coded[place : place + runs] * _FACTORS[place]
    # How many words of each run are worth comparing: a run of stop words is no passage.
    worth = (coded >> np.uint64(32)).astype(np.int8)
    content = np.convolve(worth, np.ones(PASSAGE_WORDS, dtype=np.int8), "valid")
    return hashes[content >= PASSAGE_CONTENT]


def postings(per_note: Sequence[Hashes]) -> tuple[Hashes, Ints]:
    """Every note's passage hashes in one array sorted by hash (by note within a hash), each
    note's once, and the note each is of."""
    if not per_note:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int32)
    sizes = np.fromiter(map(len, per_note), dtype=np.int64, count=len(per_note))
    keys = np.concatenate(per_note) if sizes.sum() else np.zeros(0, dtype=np.uint64)
    owner = np.repeat(np.arange(len(per_note), dtype=np.int32), sizes)
    order = np.argsort(keys, kind="stable")  # the notes are in order: they stay so in a hash
    keys, owner = keys[order], owner[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = (keys[1:] != keys[:-1]) | (owner[1:] != owner[:-1])
    return keys[first], owner[first]


def updated(
    postings_now: tuple[Hashes, Ints],
    shared: tuple[Keys, Ints],
    new_of_old: Ints,
    dropped: Ints,
    fresh: Sequence[tuple[int, Hashes]],
) -> tuple[tuple[Hashes, Ints], tuple[Keys, Ints], Ints]:
    """The postings and the shared pairs with their support (how many passages each pair
    shares: ``shared_pairs``) after an update: the entries of the ``dropped`` notes (old
    numbers: removed or edited) out, the others renumbered (``new_of_old``, which keeps
    their order), each ``fresh`` note's hashes (its new number, its hashes) in; and the
    notes (new numbers) whose shared pairs changed. Only the passages of the changed notes
    are looked at again: a pair of two other notes changes only through a passage of
    theirs a changed note held or holds (it became boilerplate, or no more)."""
    keys, owner = postings_now
    out = np.zeros(len(new_of_old), dtype=bool)
    out[dropped] = True
    gone = out[owner]
    add_keys, add_owner = postings([hashes for _, hashes in fresh])
    add_owner = np.array([row for row, _ in fresh], dtype=np.int32)[add_owner]
    touched = np.unique(np.concatenate([keys[gone], add_keys]))
    before, _ = _renumbered(_pairs_of(keys, owner, touched), new_of_old)
    keys, owner = keys[~gone], new_of_old[owner[~gone]].astype(np.int32)
    keys, owner = _merged(keys, owner, add_keys, add_owner)
    after = _pairs_of(keys, owner, touched)
    pairs, kept = _renumbered(shared[0], new_of_old)
    every = np.concatenate([pairs, before, after])
    weight = np.concatenate(
        [shared[1][kept], np.full(len(before), -1, np.int32), np.ones(len(after), np.int32)]
    )
    found, inverse = np.unique(every, return_inverse=True)
    total = np.bincount(inverse, weights=weight, minlength=len(found)).astype(np.int32)
    held = total > 0
    new_pairs, new_support = found[held], total[held]
    moved = np.setxor1d(pairs, new_pairs)
    return (keys, owner), (new_pairs, new_support), np.unique(moved >> 32).astype(np.int32)


def _merged(keys: Hashes, owner: Ints, add_keys: Hashes, add_owner: Ints) -> tuple[Hashes, Ints]:
    """Sorted postings with sorted new entries merged in at their places (by hash, then
    note), without sorting all again."""
    if len(add_keys) == 0:
        return keys, owner
    # Each new entry's place: after the entries of a smaller hash, and of the same hash and
    # a smaller note: a step at a time over a hash's few notes, a search in a long run.
    at = np.searchsorted(keys, add_keys, side="left")
    for _ in range(PASSAGE_NOTES + 1):
        inside = np.flatnonzero(at < len(keys))
        later = inside[
            (keys[at[inside]] == add_keys[inside]) & (owner[at[inside]] < add_owner[inside])
        ]
        if len(later) == 0:
            break
        at[later] += 1
    else:
        for i in later.tolist():
            end = int(np.searchsorted(keys, add_keys[i], side="right"))
            at[i] += int(np.searchsorted(owner[at[i] : end], add_owner[i]))
    order = np.lexsort((add_owner, add_keys, at))  # going to one place: by hash, by note
    return (
        np.insert(keys, at[order], add_keys[order]),
        np.insert(owner, at[order], add_owner[order]),
    )


def _pairs_of(keys: Hashes, owner: Ints, hashes: Hashes) -> Keys:
    """The pairs (each way, a pair once a passage) that the passages ``hashes`` (sorted,
    each once) make in the postings."""
    first = np.searchsorted(keys, hashes, side="left")
    sizes = np.searchsorted(keys, hashes, side="right") - first
    return _group_pairs(owner, first, sizes)


def _group_pairs(owner: Ints, first: npt.NDArray[np.int64], sizes: npt.NDArray[np.int64]) -> Keys:
    """The pairs of notes among each run of the postings (its first entry, its length)
    held by two to ``PASSAGE_NOTES`` notes: a pair each way, once a run."""
    held = (sizes >= 2) & (sizes <= PASSAGE_NOTES)
    found = [np.zeros(0, dtype=np.int64)]
    for one in range(PASSAGE_NOTES - 1):
        for two in range(one + 1, PASSAGE_NOTES):
            at = first[held & (sizes > two)]
            a = owner[at + one].astype(np.int64)
            b = owner[at + two].astype(np.int64)
            found.append((a << 32) | b)
            found.append((b << 32) | a)
    return np.concatenate(found)


def _renumbered(pairs: Keys, new_of_old: Ints) -> tuple[Keys, npt.NDArray[np.bool_]]:
    """Pair keys in the new numbering, those of a removed note left out, and which were
    kept. (The numbering keeps the notes' order: sorted keys stay sorted.)"""
    a, b = new_of_old[pairs >> 32], new_of_old[pairs & 0xFFFFFFFF]
    kept = (a >= 0) & (b >= 0)
    return (a[kept].astype(np.int64) << 32) | b[kept], kept


def shared_pairs(keys: Hashes, owner: Ints) -> tuple[Keys, Ints]:
    """The pairs of notes that share a passage (one held by two to ``PASSAGE_NOTES``
    notes), each way, as sorted keys ``(note << 32) | other``, and how many passages each
    pair shares."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    sizes = np.diff(starts, append=len(keys))
    pairs, support = np.unique(_group_pairs(owner, starts, sizes), return_counts=True)
    return pairs, support.astype(np.int32)


def passage_bonus(rows: Ints, cand_rows: Ints, shared: Keys, bonus: float) -> Floats:
    """``bonus`` for each candidate (``cand_rows`` of the notes ``rows``) that shares a
    passage with its note, else 0."""
    out = np.zeros(cand_rows.shape, dtype=np.float64)
    if len(shared) == 0:
        return out
    mine = np.repeat(rows.astype(np.int64), cand_rows.shape[1])
    theirs = cand_rows.ravel().astype(np.int64)
    key = (mine << 32) | np.maximum(theirs, 0)
    at = np.minimum(np.searchsorted(shared, key), len(shared) - 1)
    hit = (shared[at] == key) & (theirs >= 0)
    out.ravel()[hit] = bonus
    return out


def shares_passage(shared: Keys, a: int, b: int) -> bool:
    """Whether notes ``a`` and ``b`` (rows) share a passage."""
    return shares_passages(shared, a, [b])[0]


def shares_passages(shared: Keys, a: int, others: Sequence[int]) -> list[bool]:
    """Whether note ``a`` shares a passage with each note of ``others`` (rows; a negative
    row shares none)."""
    if len(shared) == 0 or not others:
        return [False] * len(others)
    theirs = np.asarray(others, dtype=np.int64)
    key = (np.int64(a) << 32) | np.maximum(theirs, 0)
    at = np.minimum(np.searchsorted(shared, key), len(shared) - 1)
    hit = (shared[at] == key) & (theirs >= 0)
    return [bool(h) for h in hit.tolist()]


def common_passage(text: str, other: str) -> tuple[int, int] | None:
    """Where in ``text`` the longest run of words the two texts share stands (the first
    such run), at least ``PASSAGE_WORDS`` long and ``PASSAGE_CONTENT`` of them no stop
    words (compared case-folded); None when none. For showing why two notes are related:
    the model keeps hashes, not words."""
    mine = word_spans(text)
    theirs = [word for word, _, _ in word_spans(other)]
    if len(mine) < PASSAGE_WORDS or len(theirs) < PASSAGE_WORDS:
        return None
    starts: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(theirs) - PASSAGE_WORDS + 1):
        starts.setdefault(tuple(theirs[i : i + PASSAGE_WORDS]), []).append(i)
    best: tuple[int, int] | None = None  # (length, start in mine)
    for i in range(len(mine) - PASSAGE_WORDS + 1):
        run = tuple(word for word, _, _ in mine[i : i + PASSAGE_WORDS])
        if run not in starts or sum(map(kept, run)) < PASSAGE_CONTENT:
            continue
        longest = 0
        for j in starts[run]:
            length = PASSAGE_WORDS
            while (
                i + length < len(mine)
                and j + length < len(theirs)
                and mine[i + length][0] == theirs[j + length]
            ):
                length += 1
            longest = max(longest, length)
        if best is None or longest > best[0]:
            best = (longest, i)
    if best is None:
        return None
    length, first = best
    return mine[first][1], mine[first + length - 1][2]
