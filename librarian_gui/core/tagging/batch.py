"""Tagging plans for many notes at once: what ``matching.find_occurrences`` finds, note for
note (a property test holds the two to the same results), with the per-mention work done
in numpy over many notes joined into one text (DESIGN §8: a dry run of 1,000 concepts × 5
aliases over 10,000 notes in seconds; a Python object per match costs ten times that).

* An alias whose ends are both letters or digits of a spaced script can match only from a
  word's first character to a word's last, covering as many words as it holds. Every run
  of 1…k consecutive words is hashed (a polynomial hash over prefix sums of the folded
  text, modulo 2**64) and looked up in a direct table on the hash's low bits (bisection
  where two aliases share them); the length must match too.
* Every other alias ("C++", names in Chinese, very long ones) goes through the Aho–Corasick
  automaton, note by note, as in ``find_occurrences``.
* What a link may not replace (code, comments, front matter, links, URLs, tags, HTML,
  heading lines) becomes spans; a candidate is plain when it meets none of them (found by
  bisection) and has no "!" or "[" before it, nor "]" after it.
* Where plain candidates overlap, the longest wins, then the leftmost: in rounds, every
  candidate that beats all those it overlaps is taken, and what overlaps it dropped.
* First mention only: the first of each concept in a note, none when the note links it.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Sequence

import ahocorasick_rs
import numpy as np

from ..backlinks.unlinked import EXCLUDED_PATTERNS, PATH_SEPARATORS
from ..concepts.dictionary import fold
from ..parse.parser import mask_note
from ..text.analyzer import SPACED_WORD_CHAR
from ..text.lazy_pattern import lazy_pattern
from .matching import (
    WIKI_TARGET,
    AliasMatcher,
    Pattern,
    alias_at,
    checked_matches,
    find_occurrences,
    is_word_char,
    note_concept,
    with_front_matter_links,
)

CHUNK_CHARS = 1 << 19  # notes are joined into pieces of about this many characters
MAX_JOINED = 1 << 20  # a longer note goes through find_occurrences: no arrays its size
MAX_HASHED = 256  # longer aliases go through the automaton
_BASE = 0x9E3779B97F4A7C15  # odd, so it has an inverse modulo 2**64
_INVERSE = pow(_BASE, -1, 1 << 64)
_SLOTS = 1 << 18  # entries of the direct lookup table on a hash's low bits
_WIDEST = 1 << 24  # sort key: start, then longest first (no alias is 16 M characters)
_DENSE_FIRST = 1 << 21  # (notes × concepts) of a piece up to which a table finds firsts
_MAX_ROUNDS = 64  # overlap rounds before the rest is settled one span at a time

# ``matching.WIKI_TARGET`` with the whole match captured too, for ``re.split``
_WIKI_TARGET_SPLIT = re.compile(f"({WIKI_TARGET.pattern})")
_LINK_THEN_SPACE = re.compile(r"\[\[(?=\s)")  # a target that str.strip() shortens
_ATX_NEXT = re.compile(r"\n(?= {0,3}#{1,6}(?:[ \t\r\n]|$))")
_SETEXT_NEXT = re.compile(r"\n(?= {0,3}(?:=+|-+)[ \t]*(?:\r?\n|\r?$))")

# The excluded-span patterns, each also captured whole for ``re.split`` (None where each
# match's preceding character must be looked at).
_SPLIT_EXCLUDED = tuple(
    (marker, pattern, None if marker in "#^" else re.compile(f"({pattern.pattern})", pattern.flags))
    for marker, pattern in EXCLUDED_PATTERNS
)
_ASCII_WORD = np.array([is_word_char(chr(c)) for c in range(128)] + [False] * 128, dtype=bool)
_ASCII_WORD_BYTES = _ASCII_WORD.astype(np.uint8).tobytes()
_BANG, _OPEN, _CLOSE = ord("!"), ord("["), ord("]")
_DOT = ord(".")
_SEPARATORS = np.array([ord(c) for c in PATH_SEPARATORS])
_ASCII_ALNUM = np.array([chr(c).isalnum() if c < 128 else False for c in range(256)], dtype=bool)

# (starts, ends, concept indexes) of one note's chosen mentions, offsets into its text
Spans = tuple[np.ndarray, np.ndarray, np.ndarray]


class _Powers:
    """_BASE**i and its inverse's powers modulo 2**64, grown on demand (by any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._arrays = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))

    def get(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(up, down), each at least ``size`` long."""
        arrays = self._arrays
        if len(arrays[0]) >= size:
            return arrays
        with self._lock:
            if len(self._arrays[0]) < size:
                size = max(size, 2 * len(self._arrays[0]))
                grown = []
                for base in (_BASE, _INVERSE):
                    powers = np.full(size, base, dtype=np.uint64)
                    powers[0] = 1
                    np.cumprod(powers, out=powers)  # wraps modulo 2**64, as the hash does
                    grown.append(powers)
                self._arrays = (grown[0], grown[1])
            return self._arrays


_POWERS = _Powers()


def hashes(keys: Sequence[str]) -> np.ndarray:
    """The hash each key's word run gets, at once: sum of ord(c) * _BASE**i modulo 2**64
    (uint64 arithmetic wraps as the hash does). A loop per character took 1.3 s for the
    180,000 aliases of a 90,000-concept dictionary."""
    out = np.zeros(len(keys), dtype=np.uint64)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    some = np.flatnonzero(lengths)
    if not len(some):
        return out
    lengths = lengths[some]
    joined = "".join(keys[i] for i in some.tolist())
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    starts = np.cumsum(lengths) - lengths
    offsets = np.arange(len(codes), dtype=np.int64) - np.repeat(starts, lengths)
    up, _ = _POWERS.get(int(lengths.max()))
    out[some] = np.add.reduceat(codes.astype(np.uint64) * up[offsets], starts)
    return out


_WORD_RUN = lazy_pattern(SPACED_WORD_CHAR + "+")


def word_count(key: str) -> int:
    """How many runs of letters and digits of spaced scripts ``key`` holds."""
    return len(_WORD_RUN.findall(key))


class BatchMatcher:
    """An ``AliasMatcher`` split for bulk planning: hashed aliases by word count, and an
    automaton for the rest."""

    def __init__(self, matcher: AliasMatcher) -> None:
        self.matcher = matcher
        self.ids = matcher.concept_ids
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        # Concepts whose ids differ only in case are one group: a note named like one
        # of them is the page of all of them (as ``find_occurrences`` compares ids).
        groups: dict[str, int] = {}
        self.group = np.array(
            [groups.setdefault(cid.lower(), len(groups)) for cid in self.ids], dtype=np.int64
        )
        self._groups = groups
        # Each link target that names a concept (its id, its note's names) → the concepts.
        self._folded_ids: dict[str, list[int]] = {}
        for i, cid in enumerate(self.ids):
            for name in sorted(matcher.link_names[cid]):
                self._folded_ids.setdefault(name, []).append(i)
        openers = ["[[" + key for key in self._folded_ids if key]
        self._openers = ahocorasick_rs.AhoCorasick(openers) if openers else None
        patterns: list[Pattern] = matcher.patterns
        hashed: dict[int, dict[int, tuple[int, int]]] = {}  # words → hash → (pattern, length)
        slow_keys: list[str] = []
        self._slow_patterns: list[Pattern] = []
        self._patterns = patterns
        concept_of = []
        keys = matcher.keys
        values = hashes([key if len(key) <= MAX_HASHED else "" for key in keys]).tolist()
        for number, (key, pattern) in enumerate(zip(keys, patterns, strict=True)):
            simple, aliases = pattern
            concept_of.append(self.index[simple[0]] if simple is not None else -1)
            words = word_count(key)
            value = values[number]
            if (
                len(key) <= MAX_HASHED
                and is_word_char(key[0])
                and is_word_char(key[-1])
                and all(a.bounded_start and a.bounded_end for a in aliases)
                and value not in hashed.setdefault(words, {})
            ):
                hashed[words][value] = (number, len(key))
            else:
                slow_keys.append(key)
                self._slow_patterns.append(pattern)
        self._concept_of = np.array(concept_of, dtype=np.int64)
        self._tables = []
        for words, table in sorted(hashed.items()):
            if not table:
                continue
            values = np.fromiter(table, dtype=np.uint64, count=len(table))
            order = np.argsort(values, kind="stable")
            values = values[order]
            found = table.values()
            numbers = np.fromiter((n for n, _ in found), dtype=np.int64, count=len(table))[order]
            lengths = np.fromiter((k for _, k in found), dtype=np.int64, count=len(table))[order]
            # A direct table on the hash's low bits: the slot of the one alias there (+1), or
            # -1 where two aliases share them (those few are looked up by bisection).
            direct = np.zeros(_SLOTS, dtype=np.int16 if len(values) < 32767 else np.int32)
            lows = _low_bits(values)
            direct[lows] = np.arange(1, len(values) + 1)
            direct[np.bincount(lows, minlength=_SLOTS) > 1] = -1
            self._tables.append((words, values, numbers, lengths, direct))
        self._slow = ahocorasick_rs.AhoCorasick(slow_keys) if slow_keys else None
        _POWERS.get(CHUNK_CHARS + 2)  # the powers a piece of notes needs, made once

    # ------------------------------------------------------------ planning

    def plan(
        self,
        texts: Sequence[str],
        rels: Sequence[str],
        *,
        all_mentions: bool = False,
        only: Sequence[str] | None = None,
        chunk_chars: int = CHUNK_CHARS,
        max_joined: int = MAX_JOINED,
    ) -> list[Spans]:
        """Per note (``texts[i]`` is the note ``rels[i]``), the mentions it would link.
        Notes are joined in pieces of about ``chunk_chars``; one longer than
        ``max_joined`` goes alone through ``find_occurrences``."""
        out: list[Spans] = []
        wanted = None
        if only is not None:
            wanted = np.zeros(len(self.ids), dtype=bool)
            wanted[[self.index[c] for c in only if c in self.index]] = True
        at = 0
        while at < len(texts):
            if len(texts[at]) > max_joined:  # a huge note: no arrays of its size
                out.append(self._one_by_one(texts[at], rels[at], all_mentions, wanted))
                at += 1
                continue
            end = at + 1
            size = len(texts[at])
            while (
                end < len(texts)
                and len(texts[end]) <= max_joined
                and size + len(texts[end]) <= chunk_chars
            ):
                size += len(texts[end]) + 1
                end += 1
            out.extend(self._chunk(texts[at:end], rels[at:end], all_mentions, wanted))
            at = end
        return out

    def _chunk(
        self,
        texts: Sequence[str],
        rels: Sequence[str],
        all_mentions: bool,
        wanted: np.ndarray | None,
    ) -> list[Spans]:
        if self.matcher.empty:
            return [_no_spans() for _ in texts]
        # One text: a newline before, between and after the notes (no alias holds one,
        # and it is no word), so every note starts at offset ≥ 1 and no match spans two.
        big = "\n" + "\n".join(texts) + "\n"
        folded = big.lower()
        if len(folded) != len(big):  # "İ" somewhere: fold note by note, as the tagger does
            folded = "\n" + "\n".join(fold(t) for t in texts) + "\n"
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        offsets = np.empty(len(texts), dtype=np.int64)
        offsets[0] = 1
        np.cumsum(lengths[:-1] + 1, out=offsets[1:])
        offsets[1:] += 1
        codes = _codes(big)
        word = _wordness(big, codes)
        folded_codes = _codes(folded)
        if codes.dtype != np.uint8 and not np.array_equal(word, _wordness(folded, folded_codes)):
            # A character whose lowercase is no letter (or the reverse): word runs of the
            # folded text are not the text's. Never seen in practice; be exact anyway.
            pairs = zip(texts, rels, strict=True)
            return [self._one_by_one(t, r, all_mentions, wanted) for t, r in pairs]

        starts, ends, concepts = self._hashed_candidates(big, folded_codes, word)
        if self._slow is not None:
            extra = self._slow_candidates(texts, folded, offsets)
            starts = np.concatenate([starts, extra[0]])
            ends = np.concatenate([ends, extra[1]])
            concepts = np.concatenate([concepts, extra[2]])
        note = np.searchsorted(offsets, starts, side="right") - 1

        keep = np.ones(len(starts), dtype=bool)
        if wanted is not None:
            keep &= wanted[concepts]
        own = np.array([self._groups.get(note_concept(rel), -1) for rel in rels], dtype=np.int64)
        keep &= self.group[concepts] != own[note]
        if self.matcher.page_of:  # a concept's note is never tagged with it either
            page_of = self.matcher.page_of
            page = np.array([self._groups.get(page_of.get(rel, ""), -1) for rel in rels])
            keep &= self.group[concepts] != page[note]

        masks = list(map(mask_note, texts))
        masked = "\n" + "\n".join(masks) + "\n"
        before = codes[starts - 1]
        after = codes[ends]
        keep &= (before != _BANG) & (before != _OPEN) & (after != _CLOSE)
        # Part of a file name or path (``unlinked.in_file_name``): next to "/" or "\\", or
        # right before a dot and an ASCII letter or digit. ``big`` ends with a newline, so
        # a dot has a character after it.
        keep &= ~np.isin(before, _SEPARATORS) & ~np.isin(after, _SEPARATORS)
        dotted = np.flatnonzero(keep & (after == _DOT))
        if dotted.size:
            following = codes[ends[dotted] + 1]
            keep[dotted] = ~_ASCII_ALNUM[np.minimum(following, 255)]
        order = np.flatnonzero(keep)
        order = order[
            np.argsort(starts[order] * _WIDEST - (ends[order] - starts[order]), kind="stable")
        ]
        starts, ends, concepts, note = starts[order], ends[order], concepts[order], note[order]
        plain = _unblocked(big, masked, offsets, lengths, starts, ends)  # faster sorted
        starts, ends, concepts, note = starts[plain], ends[plain], concepts[plain], note[plain]
        taken = _longest_first(starts, ends)
        starts, ends, concepts, note = starts[taken], ends[taken], concepts[taken], note[taken]

        if not all_mentions and len(starts):
            width = len(self.ids)
            pair = note * width + concepts
            shown = [with_front_matter_links(t, m) for t, m in zip(texts, masks, strict=True)]
            links = masked
            if any(a is not b for a, b in zip(shown, masks, strict=True)):  # front matter
                links = "\n" + "\n".join(shown) + "\n"
            linked = self._linked_pairs(links, offsets, lengths, width)
            if linked.size:
                fresh = ~np.isin(pair, linked)
                starts, ends, concepts, note = (
                    starts[fresh],
                    ends[fresh],
                    concepts[fresh],
                    note[fresh],
                )
                pair = pair[fresh]
            first = _first_of_each(pair, len(texts) * width)
            starts, ends, concepts, note = starts[first], ends[first], concepts[first], note[first]

        shift = offsets[note]
        starts = starts - shift
        ends = ends - shift
        bounds = np.searchsorted(note, np.arange(len(texts) + 1)).tolist()
        return [
            (starts[lo:hi], ends[lo:hi], concepts[lo:hi]) for lo, hi in itertools.pairwise(bounds)
        ]

    def _hashed_candidates(
        self, big: str, folded_codes: np.ndarray, word: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = len(folded_codes)
        # ``big`` starts and ends with a newline: word runs alternate start, end, start, …
        edges = np.flatnonzero(word[1:] != word[:-1]) + 1
        run_starts = edges[0::2]
        run_ends = edges[1::2]
        up, down = _POWERS.get(size + 1)
        prefix = np.empty(size + 1, dtype=np.uint64)
        prefix[0] = 0
        np.multiply(folded_codes, up[:size], out=prefix[1:])
        np.cumsum(prefix[1:], out=prefix[1:])
        at_start = prefix[run_starts]
        at_end = prefix[run_ends]
        scale = down[run_starts]
        found_s, found_e, found_p = [], [], []
        count = len(run_starts)
        for words, values, numbers, lengths, direct in self._tables:
            spans = count - words + 1
            if spans <= 0:
                continue
            value = (at_end[words - 1 :] - at_start[:spans]) * scale[:spans]
            slot = direct[_low_bits(value)]
            maybe = np.flatnonzero(slot)  # most word runs miss every alias
            value = value[maybe]
            slot = slot[maybe].astype(np.int64)
            shared = np.flatnonzero(slot < 0)
            if shared.size:
                slot[shared] = np.searchsorted(values, value[shared]) + 1
                np.minimum(slot, len(values), out=slot)
            slot -= 1
            s = run_starts[maybe]
            e = run_ends[maybe + (words - 1)]
            hit = np.flatnonzero((values[slot] == value) & (lengths[slot] == e - s))
            found_s.append(s[hit])
            found_e.append(e[hit])
            found_p.append(numbers[slot[hit]])
        if not found_s:
            return _empty(), _empty(), _empty()
        starts = np.concatenate(found_s)
        ends = np.concatenate(found_e)
        patterns = np.concatenate(found_p)
        concepts = self._concept_of[patterns]
        odd = np.flatnonzero(concepts < 0)
        if odd.size:  # case-sensitive aliases, or several on one key: checked one by one
            keep = np.ones(len(starts), dtype=bool)
            for i in odd.tolist():
                start, end = int(starts[i]), int(ends[i])
                concept = alias_at(self._patterns[int(patterns[i])][1], big, start, end)
                if concept is None:
                    keep[i] = False
                else:
                    concepts[i] = self.index[concept]
            starts, ends, concepts = starts[keep], ends[keep], concepts[keep]
        return starts, ends, concepts

    def _slow_candidates(
        self, texts: Sequence[str], folded: str, offsets: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert self._slow is not None
        found_s: list[int] = []
        found_e: list[int] = []
        found_c: list[int] = []
        index = self.index
        for text, offset in zip(texts, offsets.tolist(), strict=True):
            note_folded = folded[offset : offset + len(text)]
            for start, end, concept in checked_matches(
                self._slow, self._slow_patterns, text, note_folded
            ):
                found_s.append(start + offset)
                found_e.append(end + offset)
                found_c.append(index[concept])
        return (
            np.array(found_s, dtype=np.int64),
            np.array(found_e, dtype=np.int64),
            np.array(found_c, dtype=np.int64),
        )

    def _linked_pairs(
        self, masked: str, offsets: np.ndarray, lengths: np.ndarray, width: int
    ) -> np.ndarray:
        """note * width + concept for each concept a note links already."""
        if "[[" not in masked:
            return _empty()
        low = masked.lower()
        if len(low) == len(masked):
            return self._linked_pairs_found(low, offsets, width)
        # "İ" somewhere: fold each link target alone, as the tagger does.
        pieces = _WIKI_TARGET_SPLIT.split(masked)
        targets = [fold(t).strip() for t in pieces[2::3]]
        linked = self._folded_ids.keys() & set(targets)
        if not linked:  # the common case: no link names a concept
            return _empty()
        # split() gave text, match, target (part of the match), text, …: where each link
        # opens is the sum of the texts and matches before it.
        sizes = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        count = len(targets)
        steps = np.empty(2 * count, dtype=np.int64)
        steps[0::2] = sizes[0:-1:3]
        steps[1::2] = sizes[1::3]
        where = np.cumsum(steps)[0::2]
        owners = np.searchsorted(offsets, where, side="right") - 1
        pairs: set[int] = set()
        folded_ids = self._folded_ids
        for i, target in enumerate(targets):
            if target in linked:
                note = int(owners[i])
                pairs.update(note * width + c for c in folded_ids[target])
        return np.array(sorted(pairs), dtype=np.int64)

    def _linked_pairs_found(self, low: str, offsets: np.ndarray, width: int) -> np.ndarray:
        """``_linked_pairs`` in lowercased text: only the links that can name a concept are
        looked at, those that open with one's id (found by an automaton) or with a space."""
        if self._openers is None:
            return _empty()
        places = {start for _, start, _ in self._openers.find_matches_as_indexes(low)}
        places.update(m.start() for m in _LINK_THEN_SPACE.finditer(low))
        pairs: set[int] = set()
        folded_ids = self._folded_ids
        for place in sorted(places):
            run = place  # "[[[x" is "[[" and "[x": a link opens at an even count of "["
            while run and low[run - 1] == "[":
                run -= 1
            if (place - run) % 2:
                continue
            m = WIKI_TARGET.match(low, place)
            concepts = folded_ids.get(m.group(1).strip()) if m else None
            if concepts:
                note = int(np.searchsorted(offsets, place, side="right")) - 1
                pairs.update(note * width + c for c in concepts)
        return np.array(sorted(pairs), dtype=np.int64)

    def _one_by_one(
        self, text: str, rel: str, all_mentions: bool, wanted: np.ndarray | None
    ) -> Spans:
        only = None if wanted is None else [c for c, w in zip(self.ids, wanted, strict=True) if w]
        found = find_occurrences(
            text, self.matcher, all_mentions=all_mentions, only=only, source=rel
        )
        return (
            np.array([o.start for o in found], dtype=np.int64),
            np.array([o.end for o in found], dtype=np.int64),
            np.array([self.index[o.concept] for o in found], dtype=np.int64),
        )


def _first_of_each(keys: np.ndarray, space: int) -> np.ndarray:
    """Indexes of the first occurrence of each value in ``keys`` (all in [0, space)), in
    order."""
    order = np.arange(len(keys))
    if space <= _DENSE_FIRST:  # a table over every possible key beats sorting them
        first = np.full(space, len(keys), dtype=np.int64)
        np.minimum.at(first, keys, order)
        return np.flatnonzero(first[keys] == order)
    _, found = np.unique(keys, return_index=True)
    found.sort()
    return found


def _low_bits(values: np.ndarray) -> np.ndarray:
    """A slot of the direct table for each hash: bits of one 32-bit half (a view, so no
    64-bit arithmetic; the table is built with this same function)."""
    return values.view(np.uint32)[::2] & np.uint32(_SLOTS - 1)


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


def _no_spans() -> Spans:
    return _empty(), _empty(), _empty()


def _codes(text: str) -> np.ndarray:
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _wordness(text: str, codes: np.ndarray) -> np.ndarray:
    """Per character of ``text`` (``codes`` its code points): a letter or digit of a script
    that spaces its words."""
    if codes.dtype == np.uint8:  # ASCII: one translate, no gather
        return np.frombuffer(text.encode("ascii").translate(_ASCII_WORD_BYTES), dtype=bool)
    word = np.zeros(len(codes), dtype=bool)
    low = codes < 128
    word[low] = _ASCII_WORD[codes[low]]
    high = np.flatnonzero(~low)
    if high.size:
        values, inverse = np.unique(codes[high], return_inverse=True)
        table = np.array([is_word_char(chr(v)) for v in values.tolist()], dtype=bool)
        word[high] = table[inverse]
    return word


def _unblocked(
    big: str,
    masked: str,
    offsets: np.ndarray,
    lengths: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
) -> np.ndarray:
    """Which candidates hold no character a link may not replace: blanked by the mask
    (code, comments, front matter), in a link, URL, tag or HTML tag, or on a heading line."""
    found_starts: list[np.ndarray] = []
    found_ends: list[np.ndarray] = []
    span_starts: list[int] = []
    span_ends: list[int] = []
    for marker, pattern, whole in _SPLIT_EXCLUDED:
        if marker not in masked:
            continue
        if whole is None:  # a tag or block id only after a space (a tag: or "(,;")
            for m in pattern.finditer(masked):
                start = m.start()
                before = masked[start - 1]
                if before.isspace() or (marker == "#" and before in "(,;"):
                    span_starts.append(start)
                    span_ends.append(m.end())
            continue
        # split() with the whole pattern captured gives text, match, text, …: the
        # matches' offsets are sums of lengths, with no Python object per match.
        pieces = whole.split(masked)
        if len(pieces) == 1:
            continue
        bounds = np.cumsum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)))
        found_starts.append(bounds[0:-1:2])
        found_ends.append(bounds[1::2])
    for start, end in _heading_lines(masked, set(offsets.tolist())):
        span_starts.append(start)
        span_ends.append(end)
    if masked != big:  # characters the mask blanked, as runs
        for at, size in zip(offsets.tolist(), lengths.tolist(), strict=True):
            if masked[at : at + size] == big[at : at + size]:
                continue
            differs = _codes(masked[at : at + size]) != _codes(big[at : at + size])
            edges = np.flatnonzero(np.diff(differs, prepend=False, append=False)) + at
            found_starts.append(edges[0::2])
            found_ends.append(edges[1::2])
    all_starts = np.concatenate([np.array(span_starts, dtype=np.int64), *found_starts])
    if not all_starts.size:
        return np.ones(len(starts), dtype=bool)
    all_ends = np.concatenate([np.array(span_ends, dtype=np.int64), *found_ends])
    order = np.argsort(all_starts, kind="stable")
    all_starts = all_starts[order]
    reach = np.maximum.accumulate(all_ends[order])  # the furthest end of the spans so far
    # A candidate meets a span when one starting before its end reaches past its start.
    before_end = np.searchsorted(all_starts, ends, side="left")
    met = (before_end > 0) & (reach[np.maximum(before_end - 1, 0)] > starts)
    return ~met


def _heading_lines(masked: str, note_starts: set[int]) -> list[tuple[int, int]]:
    """(start, end) of each heading line (ATX, or a setext heading's text) of the notes
    joined in ``masked`` (each after a newline), as ``unlinked.is_heading`` decides it."""
    starts: list[int] = []
    if "#" in masked:
        starts.extend(m.start() + 1 for m in _ATX_NEXT.finditer(masked))
    if "=" in masked or "-" in masked:
        for m in _SETEXT_NEXT.finditer(masked):
            line_end = m.start()
            if line_end + 1 in note_starts:  # an underline is the first line of a note
                continue
            line_start = masked.rfind("\n", 0, line_end) + 1
            if masked[line_start:line_end].strip():
                starts.append(line_start)
    out = []
    for start in starts:
        end = masked.find("\n", start)
        out.append((start, len(masked) if end < 0 else end))
    return out


def _longest_first(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Indexes of the spans kept where spans overlap: the longest, then the leftmost, each
    shutting out whatever overlaps it (as ``matching._resolve``). ``starts`` is sorted, and
    where two start together the longer comes first. Returns the kept indexes in order."""
    alive = np.arange(len(starts))
    kept: list[np.ndarray] = []
    rounds = 0
    while alive.size:
        s, e = starts[alive], ends[alive]
        pairs = []
        beaten = np.zeros(alive.size, dtype=bool)
        d = 1
        while d < alive.size:
            overlap = s[d:] < e[:-d]  # (i, i + d): i starts first, or is longer
            if not overlap.any():
                break
            later_wins = overlap & ((e[d:] - s[d:]) > (e[:-d] - s[:-d]))
            beaten[:-d] |= later_wins
            beaten[d:] |= overlap & ~later_wins
            pairs.append((d, overlap))
            d += 1
        if not pairs:  # nothing overlaps any more
            kept.append(alive)
            break
        rounds += 1
        if rounds > _MAX_ROUNDS:
            kept.append(alive[_greedy(s, e)])
            break
        wins = ~beaten
        kept.append(alive[wins])
        out = wins.copy()
        for d, overlap in pairs:
            out[:-d] |= overlap & wins[d:]
            out[d:] |= overlap & wins[:-d]
        alive = alive[~out]
    if not kept:
        return _empty()
    result = np.concatenate(kept)
    result.sort()
    return result


def _greedy(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The same choice one span at a time (for long chains of overlaps)."""
    order = sorted(range(len(starts)), key=lambda i: (starts[i] - ends[i], starts[i]))
    taken: list[int] = []
    taken_spans: list[tuple[int, int]] = []
    for i in order:
        s, e = int(starts[i]), int(ends[i])
        if all(e <= ts or te <= s for ts, te in taken_spans):
            taken.append(i)
            taken_spans.append((s, e))
    return np.array(sorted(taken), dtype=np.int64)


def spans_plan_items(spans: Spans, ids: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, concept id) of a note's spans."""
    starts, ends, concepts = spans
    return [
        (s, e, ids[c])
        for s, e, c in zip(starts.tolist(), ends.tolist(), concepts.tolist(), strict=True)
    ]
