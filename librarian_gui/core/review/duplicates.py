"""Near-duplicate passages across the vault: the same paragraph kept twice, with small edits.

- **A passage** is a paragraph: lines between blank lines, outside front matter, code and
  comments, heading lines left out, with at least ``MIN_WORDS`` distinct content words
  (``text.analyzer.word_set_of``: case-folded, stop words and numbers out).
- **Nearly the same**: the Jaccard similarity of two passages' word sets is at least
  ``threshold`` (0.5). Words dropped, changed or put in another order lower it slowly: a
  fifth of the words changed leaves about two thirds.
- **Found without comparing every pair**: MinHash signatures (``PERMUTATIONS`` hashes of each
  word set) cut into bands of ``ROWS``; passages sharing a band are candidates, and each
  candidate's exact similarity decides. Two passages at 0.5 share a band 97 % of the time.
- **Boilerplate is not a repeat**: a passage nearly the same as passages of at least
  ``BOILERPLATE_NOTES`` − 1 other notes (a template's text, a sign-off, a disclaimer) is
  boilerplate; such passages are reported apart, in groups. A pair with one of them is a
  repeat only when the two are alike beyond their group's template (the words half its
  passages hold): at least ``MIN_WORDS`` // 2 words and ``threshold`` of the rest shared — a
  sign-off copied everywhere never is, a page's property block copied into another page is.
  Each passage counts its own likes, not a chain's: pages that each open with a property
  block like the next page's do not make a paragraph copied into one of them boilerplate.
- Pairs inside one note are not reported: the review is about notes holding what another
  note holds already.
"""

from __future__ import annotations

import marshal
import os
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..parse.parser import mask_note
from ..text.analyzer import word_set_of
from ..vault.files import read_note
from ..vault.reading import POOL_THRESHOLD, ParsePool
from .paragraphs import PARAGRAPH

MIN_WORDS = 10
THRESHOLD = 0.5
BOILERPLATE_NOTES = 5
PERMUTATIONS = 24
ROWS = 2  # hashes per band: 12 bands
SLACK = 0.15  # how far below the threshold a pair's estimated similarity may be to be checked
STAR = 64  # a band's group larger than this is compared to its first member only
_CHUNK = 1 << 20  # word occurrences hashed at once (PERMUTATIONS × 4 MB)
# Passages' signatures put side by side at once: numpy's concatenation of many small arrays
# holds the interpreter throughout, and one over 10,000 notes' passages froze the window's
# thread 50-70 ms (the review desk's look after each change).
_STACKED = 4096
_PRIME = (1 << 61) - 1


@dataclass(frozen=True, slots=True, eq=False)
class Passage:
    note: str
    first: int  # 1-based, inclusive
    last: int
    words: np.ndarray  # its distinct content words, each as its CRC-32 (``word_hash``), sorted
    signature: np.ndarray | None = None  # its MinHash (``signatures``), when made already

    @property
    def count(self) -> int:
        return len(self.words)


def word_hash(word: str) -> int:
    """A word as a number, the same in every process (unlike ``hash``)."""
    return zlib.crc32(word.encode("utf-8"))


def _hashes(words: set[str]) -> np.ndarray:
    return np.unique(np.fromiter(map(word_hash, words), dtype=np.uint32, count=len(words)))


def from_bytes(data: bytes) -> np.ndarray:
    """A passage's words as a worker sends them (``np.ndarray.tobytes``)."""
    return np.frombuffer(data, dtype=np.uint32)


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    a: Passage
    b: Passage
    similarity: float

    def json(self) -> dict[str, Any]:
        return {
            "a": self.a.note,
            "b": self.b.note,
            "a_lines": [self.a.first, self.a.last],
            "b_lines": [self.b.first, self.b.last],
            "similarity": round(self.similarity, 3),
        }


@dataclass(frozen=True, slots=True)
class Boilerplate:
    """Passages nearly the same in many notes: one of them, and where the others are."""

    example: Passage
    passages: tuple[Passage, ...]

    @property
    def notes(self) -> int:
        return len({p.note for p in self.passages})

    def json(self) -> dict[str, Any]:
        return {
            "notes": self.notes,
            "passages": len(self.passages),
            "example": {
                "note": self.example.note,
                "lines": [self.example.first, self.example.last],
            },
        }


@dataclass(frozen=True, slots=True)
class Duplicates:
    pairs: tuple[DuplicatePair, ...]
    boilerplate: tuple[Boilerplate, ...]
    passages: int  # passages compared

    def json(self) -> dict[str, Any]:
        return {
            "pairs": [p.json() for p in self.pairs],
            "boilerplate": [b.json() for b in self.boilerplate],
            "passages": self.passages,
        }


def passages_of(note: str, text: str, min_words: int = MIN_WORDS) -> list[Passage]:
    """The note's paragraphs with at least ``min_words`` content words (see the module)."""
    masked = mask_note(text.removeprefix("\ufeff"))
    out: list[Passage] = []
    line, at = 0, 0
    for m in PARAGRAPH.finditer(masked):
        line += masked.count("\n", at, m.start())
        at = m.start()
        words = _hashes(word_set_of(m.group()))
        if len(words) >= min_words:
            out.append(Passage(note, line + 1, line + 1 + m.group().count("\n"), words))
    return out


def find_duplicates(
    notes: Iterable[tuple[str, str]],
    threshold: float = THRESHOLD,
    min_words: int = MIN_WORDS,
) -> Duplicates:
    """Near-duplicate passage pairs across ``notes`` ((path, text) pairs), most alike first,
    and the boilerplate groups left out (see the module's docstring)."""
    passages = [p for note, text in notes for p in passages_of(note, text, min_words)]
    return compare(passages, threshold)


def find_in_vault(
    root: Path, rels: Sequence[str], threshold: float = THRESHOLD, min_words: int = MIN_WORDS
) -> Duplicates:
    """``find_duplicates`` over the notes ``rels`` of the vault at ``root``, read from
    disk: on worker processes when there are many (``reading.ParsePool``)."""
    return compare(read_passages(root, rels, min_words), threshold)


def read_passages(root: Path, rels: Sequence[str], min_words: int = MIN_WORDS) -> list[Passage]:
    """The passages of the notes ``rels``, read from disk, signed, in (note, line) order: on
    worker processes when there are many (``reading.ParsePool``)."""
    passages: list[Passage] = []
    pending = list(rels)
    if len(pending) >= POOL_THRESHOLD and ParsePool.useful():
        pool = ParsePool(root, "librarian_gui.core.review.passage_worker", str(min_words))
        done: set[str] = set()
        for chunk in pool.run(pending):
            read, rows, made = cast(
                tuple[list[str], list[tuple[str, int, int, bytes]], bytes], chunk
            )
            done.update(read)
            signed = np.frombuffer(made, dtype=np.uint32).reshape(len(rows), PERMUTATIONS)
            passages.extend(
                Passage(n, f, la, from_bytes(w), signed[k]) for k, (n, f, la, w) in enumerate(rows)
            )
        pending = [rel for rel in pending if rel not in done]  # what a worker did not deliver
    for rel in pending:
        text = read_note(root, rel).text
        if text is not None:
            passages.extend(passages_of(rel, text, min_words))
    passages.sort(key=lambda p: (p.note, p.first))
    return passages


class PassageStore:
    """Each note's passages kept between two looks at the vault (the review desk's): only
    notes whose file changed (size, modification time) are read again. ``dump`` and
    ``undump`` carry it to the next process (``passage_cache``). Not thread-safe: one
    thread uses it."""

    def __init__(self, min_words: int = MIN_WORDS) -> None:
        self.min_words = min_words
        self._notes: dict[str, tuple[tuple[int, int], list[Passage]]] = {}
        self.changed = False  # since it was made, loaded or dumped

    def update(self, root: Path, rels: Sequence[str]) -> list[Passage]:
        """The passages of ``rels`` now (a note no longer listed is forgotten)."""
        stamps: dict[str, tuple[int, int]] = {}
        for rel in rels:
            try:
                st = os.stat(Path(root) / rel)
            except OSError:
                continue
            stamps[rel] = (st.st_size, st.st_mtime_ns)
        stale = [
            rel for rel, stamp in stamps.items() if self._notes.get(rel, ((-1, -1),))[0] != stamp
        ]
        fresh: dict[str, list[Passage]] = {rel: [] for rel in stale}
        for passage in read_passages(root, stale, self.min_words):
            fresh[passage.note].append(passage)
        if stale or self._notes.keys() - stamps.keys():
            self.changed = True
        self._notes = {
            rel: (stamp, fresh[rel] if rel in fresh else self._notes[rel][1])
            for rel, stamp in stamps.items()
        }
        return [p for rel in sorted(self._notes) for p in self._notes[rel][1]]

    def stamps(self) -> list[tuple[int, int]]:
        """Each kept note's (size, modification time in ns)."""
        return [stamp for stamp, _ in self._notes.values()]

    def dump(self) -> bytes:
        """The passages kept, each signed (its MinHash made now if it had none), as bytes
        for ``undump`` in another process: per note its stamp and its passages' lines,
        word counts, words and signatures as arrays."""
        unsigned = [p for _, kept in self._notes.values() for p in kept if p.signature is None]
        if unsigned:
            made = iter(signatures(unsigned).T)
            self._notes = {
                rel: (
                    stamp,
                    [
                        p if p.signature is not None else replace(p, signature=next(made))
                        for p in kept
                    ],
                )
                for rel, (stamp, kept) in self._notes.items()
            }
        rows = []
        for rel, ((size, mtime), kept) in self._notes.items():
            rows.append(
                (
                    rel,
                    size,
                    mtime,
                    np.array([p.first for p in kept], np.int32).tobytes(),
                    np.array([p.last for p in kept], np.int32).tobytes(),
                    np.array([p.count for p in kept], np.int32).tobytes(),
                    b"".join(p.words.astype(np.uint32).tobytes() for p in kept),
                    b"".join(cast(np.ndarray, p.signature).tobytes() for p in kept),
                )
            )
        self.changed = False
        return marshal.dumps((_DUMP_FORMAT, PERMUTATIONS, self.min_words, _probe(), rows))

    @classmethod
    def undump(cls, data: bytes, min_words: int = MIN_WORDS) -> PassageStore | None:
        """The store ``dump`` made, or None when it is not usable here: another format,
        another ``min_words``, words or signatures made another way (the probe's differ),
        or not whole."""
        try:
            form, permutations, kept_words, probe, rows = marshal.loads(data)
            if (form, permutations, kept_words) != (_DUMP_FORMAT, PERMUTATIONS, min_words):
                return None
            if probe != _probe():
                return None
            store = cls(min_words)
            for rel, size, mtime, firsts, lasts, counts, words, signed in rows:
                first = np.frombuffer(firsts, np.int32).tolist()
                last = np.frombuffer(lasts, np.int32).tolist()
                count = np.frombuffer(counts, np.int32)
                held = np.frombuffer(words, np.uint32)
                made = np.frombuffer(signed, np.uint32)
                if not (
                    isinstance(rel, str)
                    and isinstance(size, int)
                    and isinstance(mtime, int)
                    and len(first) == len(last) == len(count)
                    and int(count.sum()) == len(held)
                    and len(made) == PERMUTATIONS * len(count)
                ):
                    return None
                ends = np.cumsum(count).tolist()
                made = made.reshape(len(count), PERMUTATIONS)
                passages = [
                    Passage(rel, a, b, held[end - n : end], made[k])
                    for k, (a, b, n, end) in enumerate(
                        zip(first, last, count.tolist(), ends, strict=True)
                    )
                ]
                store._notes[rel] = ((size, mtime), passages)
        except (ValueError, TypeError, EOFError):
            return None
        return store


_DUMP_FORMAT = 1
# A paragraph whose words and signature a dump keeps: words or hashes made another way (a
# newer Librarian) give others, and that dump is not used.
_PROBE = "Every paragraph a vault keeps twice is found by signing its words with MinHash bands"


def _probe() -> tuple[bytes, bytes]:
    found = passages_of("probe.md", _PROBE, 1)
    return found[0].words.astype(np.uint32).tobytes(), signatures(found).tobytes()


def compare(passages: list[Passage], threshold: float = THRESHOLD) -> Duplicates:
    """The near-duplicate pairs among ``passages`` (see ``find_duplicates``)."""
    if len(passages) < 2:
        return Duplicates((), (), len(passages))
    unsigned = [p for p in passages if p.signature is None]
    made = iter(signatures(unsigned).T) if unsigned else iter(())
    signed = np.empty((PERMUTATIONS, len(passages)), dtype=np.uint32)
    for at in range(0, len(passages), _STACKED):
        part = passages[at : at + _STACKED]
        signed[:, at : at + len(part)] = np.stack(
            [p.signature if p.signature is not None else next(made) for p in part], axis=1
        )
    links = _likely(signed, _candidates(signed), threshold)
    parent = list(range(len(passages)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    alike: list[tuple[int, int, float]] = []
    for i, j in links:
        a, b = passages[i], passages[j]
        if a.note == b.note:
            continue
        shared = len(np.intersect1d(a.words, b.words, assume_unique=True))
        similarity = shared / (a.count + b.count - shared)
        if similarity >= threshold:
            alike.append((i, j, similarity))
    # boilerplate: a passage nearly the same as passages of BOILERPLATE_NOTES - 1 other notes
    # itself (not through a chain: the property blocks of a wiki's pages are each like the
    # next, and a paragraph copied into one page is not made boilerplate by them)
    partners: dict[int, set[str]] = {}
    for i, j, _ in alike:
        partners.setdefault(i, set()).add(passages[j].note)
        partners.setdefault(j, set()).add(passages[i].note)
    boiler = {k for k, notes in partners.items() if len(notes) >= BOILERPLATE_NOTES - 1}
    groups: dict[int, list[int]] = {}
    for i, j, _ in alike:
        if i in boiler and j in boiler:
            parent[root(i)] = root(j)
    for k in boiler:
        groups.setdefault(root(k), []).append(k)
    boilerplate = []
    for members in groups.values():
        unique = sorted(set(members), key=lambda k: (passages[k].note, passages[k].first))
        chosen = tuple(passages[k] for k in unique)
        boilerplate.append(Boilerplate(chosen[0], chosen))
    # what half a group's passages hold is its template; a pair that is alike beyond it
    # (two pages' property blocks, one a copy of the other) is a repeat all the same
    common: dict[int, np.ndarray] = {}
    for key, members in groups.items():
        words, counts = np.unique(
            np.concatenate([passages[k].words for k in members]), return_counts=True
        )
        common[key] = words[counts * 2 >= len(members)]
    pairs = []
    for i, j, s in alike:
        if i in boiler or j in boiler:
            template = common[root(i if i in boiler else j)]
            own_i = np.setdiff1d(passages[i].words, template, assume_unique=True)
            own_j = np.setdiff1d(passages[j].words, template, assume_unique=True)
            shared = len(np.intersect1d(own_i, own_j, assume_unique=True))
            union = len(own_i) + len(own_j) - shared
            if shared < MIN_WORDS // 2 or shared < threshold * union:
                continue
        pairs.append(_ordered(passages[i], passages[j], s))
    pairs.sort(key=lambda p: (-p.similarity, p.a.note, p.a.first, p.b.note, p.b.first))
    boilerplate.sort(key=lambda b: (-b.notes, b.example.note, b.example.first))
    return Duplicates(tuple(pairs), tuple(boilerplate), len(passages))


def _ordered(a: Passage, b: Passage, similarity: float) -> DuplicatePair:
    if (b.note, b.first) < (a.note, a.first):
        a, b = b, a
    return DuplicatePair(a, b, similarity)


def signatures(passages: list[Passage]) -> np.ndarray:
    """Each passage's MinHash signature: ``PERMUTATIONS`` × passages, uint32."""
    sizes = np.fromiter((p.count for p in passages), dtype=np.int64, count=len(passages))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    # each distinct word hashed once per permutation, then looked up by its place
    base, ids = np.unique(np.concatenate([p.words for p in passages]), return_inverse=True)
    base = base.astype(np.uint64)
    rng = np.random.default_rng(20_240_531)  # fixed: the same vault gives the same pairs
    a = rng.integers(1, 1 << 31, size=(PERMUTATIONS, 1), dtype=np.uint64)
    b = rng.integers(0, 1 << 31, size=(PERMUTATIONS, 1), dtype=np.uint64)
    # (a·x + b) mod 2^61−1, kept to 32 bits: a universal hash per permutation
    hashed = ((a * base[None, :] + b) % np.uint64(_PRIME)).astype(np.uint32)
    flat = ids.astype(np.int64).ravel()
    offsets = np.asarray(starts, dtype=np.int64)
    out = np.empty((PERMUTATIONS, len(passages)), dtype=np.uint32)
    done = 0
    while done < len(passages):
        # whole passages, about _CHUNK word occurrences at a time
        end = int(np.searchsorted(offsets, offsets[done] + _CHUNK, side="right"))
        end = max(end, done + 1)
        lo = offsets[done]
        hi = offsets[end] if end < len(passages) else len(flat)
        block = hashed[:, flat[lo:hi]]
        out[:, done:end] = np.minimum.reduceat(block, offsets[done:end] - lo, axis=1)
        done = end
    return out


def _likely(
    signatures: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], threshold: float
) -> list[tuple[int, int]]:
    """The candidate pairs whose signatures agree often enough to be worth an exact look:
    the share of equal hashes estimates the similarity (its standard error is about 0.1 at
    24 hashes); only pairs estimated below ``threshold`` − ``SLACK`` are dropped."""
    left, right = pairs
    kept: list[tuple[int, int]] = []
    step = 1 << 15  # pairs compared in one numpy call, which holds the interpreter (_STACKED)
    for at in range(0, len(left), step):
        i, j = left[at : at + step], right[at : at + step]
        agree = (signatures[:, i] == signatures[:, j]).mean(axis=0)
        chosen = np.flatnonzero(agree >= threshold - SLACK)
        kept.extend(zip(i[chosen].tolist(), j[chosen].tolist(), strict=True))
    return kept


def _candidates(signatures: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of passages that share a band of their signatures, once each: two arrays, the
    lower index of each pair and the higher. Arrays, not a set of tuples: over 10,000 notes'
    passages there are millions of pairs, and freeing them held the interpreter ~60 ms."""
    count = signatures.shape[1]
    lefts: list[np.ndarray] = []
    rights: list[np.ndarray] = []
    for band in range(0, PERMUTATIONS, ROWS):
        rows = signatures[band : band + ROWS].astype(np.uint64)
        keys = rows[0]
        for extra in rows[1:]:
            keys = keys * np.uint64(0x1_0000_0001) + extra
        order = np.argsort(keys, kind="stable")
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(keys[order])) + 1, [count]))
        sizes = np.diff(bounds)
        two = bounds[:-1][sizes == 2]  # most groups: one pair each, all at once
        a, b = order[two], order[two + 1]
        lefts.append(np.minimum(a, b))
        rights.append(np.maximum(a, b))
        for g in np.flatnonzero(sizes > 2):
            members = np.sort(order[bounds[g] : bounds[g + 1]])
            if len(members) > STAR:  # boilerplate-sized: a star is enough to group them
                lefts.append(np.full(len(members) - 1, members[0]))
                rights.append(members[1:])
                continue
            i, j = np.triu_indices(len(members), 1)
            lefts.append(members[i])
            rights.append(members[j])
    both = np.concatenate(lefts) * count + np.concatenate(rights)
    both.sort()  # in place, without the interpreter (np.unique's hash table holds it)
    if len(both):  # no two passages sharing a band leaves none
        both = both[np.concatenate(([True], both[1:] != both[:-1]))]
    return both // count, both % count
