"""The quick switcher's index: fuzzy lookup of notes, aliases and concepts by name."""

from __future__ import annotations

import bisect
import copy
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt
from rapidfuzz import distance, process, utils

from ..index.queries import concept_notes
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView

if TYPE_CHECKING:
    from ..concepts.dictionary import ConceptDictionary
    from ..parse.records import NoteRecord

CandidateKind = Literal["note", "alias", "concept"]
_KIND_RANK: dict[CandidateKind, int] = {"note": 0, "alias": 1, "concept": 2}
_AFTER_ALL = "\U0010ffff"  # sorts after any character: the end of a prefix's range
_SHORTLIST = 8  # rows ranked per result wanted, so that dropping duplicates leaves enough
_SCAN = 4000  # most names a tier looks at per keystroke (see the class docstring)
_CACHE = 16  # typo searches kept for the next keystroke
_HEAD = 12  # letters of each word suffix kept in a fixed-width array for the typo search
_PAD = "\x1f"  # whitespace to str.split, so never in a key; not NUL, which numpy drops

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]
_NO_ROWS: IntArray = np.empty(0, np.int32)
_NO_SCORES: FloatArray = np.empty(0)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A name the switcher can find, and where it leads.

    ``kind`` "note": a note's title, ``node`` its path. "alias": another name of a note (a
    front-matter alias, or a concept's id or alias when that concept's page is the note).
    "concept": a concept's id or alias, ``node`` ``//concept/<id>``. So ``node`` is a
    concept node exactly when ``kind`` is "concept". ``detail`` is the note's path, or the
    concept's category.
    """

    label: str
    kind: CandidateKind
    node: str
    detail: str


def match_key(text: str) -> str:
    """What is compared: lowercase, punctuation as spaces (``prompt-injection`` matches
    "prompt inj"), one space between words. Text of symbols only is kept, lowercased."""
    words = utils.default_process(text).split() or text.lower().split()
    return " ".join(words)


def _head(suffix: str, size: int) -> str:
    """The first ``size`` letters, padded with a character no key holds, so that both
    strings compared grow by one letter per keystroke (see ``_typo_entries``)."""
    return suffix[:size].ljust(size, _PAD)


def _typo_budget(length: int) -> int:
    """Letters of a query that may be wrong: none in a short query (any three letters
    would match too much), one from four letters, two from nine."""
    return 0 if length < 4 else 1 if length < 9 else 2


class SwitcherIndex:
    """Candidates prepared for per-keystroke lookup in a few milliseconds at 50,000.

    Three tiers, each searched only while the ones before it found fewer rows than asked:
    1. names, and words of names, that *start with* the query: one sorted list of every
       word-start suffix, bisected, so the cost hardly grows with the vault;
    2. names holding the query elsewhere (mid-word, or inside a run of CJK text): one
       scan of all names joined into one string;
    3. a typo (from four letters on): rapidfuzz compares the query with the first as many
       letters of each name and word, keeping those within the typo budget. Only words
       starting with the query's first letter are compared (its first two, when there
       are more than ``_SCAN`` of those), and words starting with its first two letters
       swapped: the first letter of a word is rarely the wrong one.

    Immutable once built but for a small cache that lets each keystroke's typo search
    start from the previous one's (guarded by a lock, so any thread may query).
    """

    def __init__(self, candidates: Iterable[Candidate], recent: Iterable[str] = ()) -> None:
        unique: dict[tuple[str, str], Candidate] = {}
        for cand in candidates:
            key = match_key(cand.label)
            if key and (key, cand.node) not in unique:  # one row per name and place
                unique[key, cand.node] = cand
        self.candidates: tuple[Candidate, ...] = tuple(unique.values())
        self._keys = [key for key, _ in unique]
        node_ids: dict[str, int] = {}
        self._node = np.array(
            [node_ids.setdefault(c.node, len(node_ids)) for c in self.candidates], np.int32
        )
        self._length = np.array([len(k) for k in self._keys], np.float64)
        # A hair below: equal names sort note, alias, concept.
        self._kind_penalty = np.array([_KIND_RANK[c.kind] * 1e-3 for c in self.candidates])
        suffixes: list[tuple[str, int, bool]] = []
        for i, key in enumerate(self._keys):
            suffixes.append((key, i, True))
            start = key.find(" ")
            while start != -1:
                suffixes.append((key[start + 1 :], i, False))
                start = key.find(" ", start + 1)
        suffixes.sort()
        self._suffixes = [s for s, _, _ in suffixes]
        self._suffix_owner = np.array([i for _, i, _ in suffixes], np.int32)
        self._suffix_whole = np.array([whole for _, _, whole in suffixes], np.bool_)
        self._heads = np.array([_head(s, _HEAD) for s in self._suffixes], f"<U{_HEAD}")
        # "\n" cannot occur in a key (it is whitespace), so a match never spans two keys.
        self._joined = "\n".join(self._keys)
        self._key_start = np.cumsum([0] + [len(k) + 1 for k in self._keys[:-1]], dtype=np.int64)
        self._node_ids = node_ids
        self._first_row = np.unique(self._node, return_index=True)[1]
        self._set_recent(recent)
        self._typo_cache: OrderedDict[tuple[str, int], tuple[IntArray, IntArray]] = OrderedDict()
        self._lock = threading.Lock()
        # What ``build`` made these from (``names_hold``); None when made from candidates.
        self._notes: Mapping[str, NoteRecord] | None = None
        self._concepts: ConceptDictionary | None = None

    def _set_recent(self, recent: Iterable[str]) -> None:
        """The nodes in ``recent`` order (newest first): what an empty query lists, and
        the last tie-break between rows alike in score and name (the newer note first;
        then the candidates' own order)."""
        node_ids = self._node_ids
        ids = np.array([node_ids.get(node, -1) for node in recent], np.int64)
        nodes, first = np.unique(ids[ids >= 0], return_index=True)  # a node's first place
        ranks = np.full(len(node_ids), len(node_ids), np.int64)
        ranks[nodes] = first
        rows = np.arange(len(self.candidates))
        self._order = np.empty(len(rows), np.int64)
        self._order[np.lexsort((rows, ranks[self._node]))] = rows
        # Each node by its first row: its title for a note (``build`` lists titles first).
        self._recent = tuple(self._first_row[nodes[np.argsort(first)]].tolist())

    @classmethod
    def build(cls, index: IndexView, previous: SwitcherIndex | None = None) -> SwitcherIndex:
        """Every note title and alias, every concept id and alias; recently modified
        notes are what an empty query shows. ``previous``, when built from the same names
        (the same notes with the same aliases, the same dictionary), is shared with a new
        order of recent notes: after a note's text changed, that is all that changed (at
        50,000 notes 0.1 s instead of 1.1-1.4 s)."""
        index = index.snapshot()  # a consistent snapshot; records are immutable, read them after
        notes = index.notes
        paths = sorted(notes)
        mtimes = np.array([notes[rel].stamp.mtime_ns for rel in paths], np.int64)
        recent = [paths[i] for i in np.argsort(-mtimes, kind="stable").tolist()]
        if previous is not None and previous.names_hold(index):
            return previous._with_recent(recent, notes)
        pages = concept_notes(index)
        concepts = [(c, pages.get(c.id)) for c in index.concepts.concepts]
        cands = [Candidate(notes[rel].title, "note", rel, rel) for rel in paths]
        for rel in paths:
            cands.extend(Candidate(a, "alias", rel, rel) for a in notes[rel].aliases)
        for concept, page in concepts:
            names = (concept.id, *concept.aliases)
            if page is not None:  # the concept is its page's note (one node, not two)
                cands.extend(Candidate(name, "alias", page, page) for name in names)
            else:
                node = CONCEPT_PREFIX + concept.id
                cands.extend(Candidate(name, "concept", node, concept.category) for name in names)
        built = cls(cands, recent=recent)
        built._notes, built._concepts = notes, index.concepts
        return built

    def names_hold(self, index: IndexView) -> bool:
        """Whether ``index`` has the names these were built from: the same notes, each with
        the same aliases (a note rewritten keeps its record's aliases or not), the same
        dictionary. A note's title is its path; the dictionary's pages follow from both."""
        old = self._notes
        notes = index.notes
        if old is None or index.concepts is not self._concepts or notes.keys() != old.keys():
            return False
        return all(
            old[rel] is record or old[rel].aliases == record.aliases
            for rel, record in notes.items()
        )

    def _with_recent(self, recent: Iterable[str], notes: Mapping[str, NoteRecord]) -> SwitcherIndex:
        """These names with another order of recent notes, and ``notes`` (which hold the
        same names) as what they were built from: the records replaced are let go.
        Everything else is shared, the typo searches kept for the next keystroke too (they
        do not depend on the order)."""
        made = copy.copy(self)
        made._notes = notes
        made._set_recent(recent)
        return made

    def __len__(self) -> int:
        return len(self.candidates)

    def query(self, text: str, limit: int = 20) -> list[tuple[Candidate, float]]:
        """The best candidates for ``text``, at most one per node (its best name), with
        scores: 100 for the exact name; 90–99 when the name starts with the query; 80–89
        when one of its words does; 70–79 when it holds the query elsewhere; below 70
        with a typo. Within a band, the shorter name scores higher. An empty query lists
        recently modified notes (score 0)."""
        if limit <= 0:
            return []
        q = match_key(text) if text.strip() else ""
        if not q:
            return [(self.candidates[i], 0.0) for i in self._recent[:limit]]
        found: list[tuple[int, float]] = []
        taken: set[int] = set()
        for tier in (self._prefix_matches, self._inner_matches, self._typo_matches):
            rows, scores = tier(q)
            picked = self._pick(rows, scores, limit - len(found), taken)
            found += picked
            if len(found) >= limit:
                break
            taken.update(int(self._node[row]) for row, _ in picked)
        return [(self.candidates[i], round(score, 3)) for i, score in found]

    def _prefix_matches(self, q: str) -> tuple[IntArray, FloatArray]:
        lo, hi = self._range(q)
        rows = self._suffix_owner[lo:hi]
        whole = self._suffix_whole[lo:hi]
        length = self._length[rows]
        share = len(q) / length  # the shorter the name, the more of it the query is
        scores = np.where(whole, 90.0 + 9.0 * share, 80.0 + 9.0 * share)
        scores[whole & (length == len(q))] = 100.0
        return rows, scores - self._kind_penalty[rows]

    def _inner_matches(self, q: str) -> tuple[IntArray, FloatArray]:
        """Names holding the query anywhere (word starts were found already)."""
        if len(q) < 2:  # one letter inside words matches nearly every name
            return _NO_ROWS, _NO_SCORES
        joined = self._joined
        at: list[int] = []
        pos = joined.find(q)  # str.find beats a regex scan of the joined names tenfold
        while pos != -1 and len(at) < _SCAN:
            at.append(pos)
            pos = joined.find(q, pos + 1)
        rows = (np.searchsorted(self._key_start, at, side="right") - 1).astype(np.int32)
        share = np.minimum(1.0, len(q) / self._length[rows])
        return rows, 70.0 + 9.0 * share - self._kind_penalty[rows]

    def _typo_matches(self, q: str) -> tuple[IntArray, FloatArray]:
        """Names and words whose first ``len(q)`` letters are within the typo budget of
        the query. Counting insertions and deletions only (Indel), one wrong, swapped,
        missing or extra letter costs at most 2 against a prefix of the query's length."""
        budget = _typo_budget(len(q))
        if not budget:
            return _NO_ROWS, _NO_SCORES
        entries, cost = self._typo_entries(q, budget)
        rows = self._suffix_owner[entries]
        share = np.minimum(1.0, len(q) / self._length[rows])
        whole = np.where(self._suffix_whole[entries], 4.0, 0.0)
        # ≤ 60 + 5 + 4: below any name that holds the query as typed.
        scores = 60.0 + 5.0 * share + whole - 2.5 * cost
        return rows, scores - self._kind_penalty[rows]

    def _typo_entries(self, q: str, budget: int) -> tuple[IntArray, IntArray]:
        """Suffix entries within ``budget`` typos of the query, and their Indel cost.

        Removing the last letter of both strings never raises their Indel distance, so
        an entry close to a grown query was close to the query it grew from (at the same
        budget): the next keystroke compares only the entries kept for the last one.
        Heads are padded to the query's length for that to hold for short names too (a
        missing letter costs like a wrong one).
        """
        size = len(q)
        with self._lock:
            for known in range(size, 3, -1):
                hit = self._typo_cache.get((q[:known], budget))
                if hit is not None:
                    self._typo_cache.move_to_end((q[:known], budget))
                    if known == size:
                        return hit
                    scope = hit[0]
                    break
            else:
                scope = self._typo_scope(q)
        # Cut in C from the fixed-width heads: slicing thousands of str in Python was most
        # of a keystroke. Past _HEAD letters that is a first filter, then the real heads.
        width = min(size, _HEAD)
        found = self._close(
            q[:width], self._heads[scope].astype(f"<U{width}").tolist(), scope, budget
        )
        if size > _HEAD:
            suffixes = self._suffixes
            heads = [_head(suffixes[e], size) for e in found[0].tolist()]
            found = self._close(q, heads, found[0], budget)
        with self._lock:
            self._typo_cache[q, budget] = found
            while len(self._typo_cache) > _CACHE:
                self._typo_cache.popitem(last=False)
        return found

    @staticmethod
    def _close(
        q: str, heads: list[str], entries: IntArray, budget: int
    ) -> tuple[IntArray, IntArray]:
        cost = process.cdist(
            [q], heads, scorer=distance.Indel.distance, score_cutoff=2 * budget, dtype=np.int32
        )[0]
        close = np.flatnonzero(cost <= 2 * budget)
        return entries[close], cost[close]

    def _typo_scope(self, q: str) -> IntArray:
        """The entries a typo search starts from: words starting with the query's first
        letter (its first two when there are more than ``_SCAN`` of those), and words
        starting with its first two letters swapped."""
        first = self._range(q[0])
        if first[1] - first[0] > _SCAN:
            first = self._range(q[:2])
        spans = {first, self._range(q[1] + q[0])}
        return np.concatenate([np.arange(lo, hi, dtype=np.int32) for lo, hi in sorted(spans)])

    def _range(self, prefix: str) -> tuple[int, int]:
        """The suffixes starting with ``prefix``: a slice of the sorted list."""
        lo = bisect.bisect_left(self._suffixes, prefix)
        return lo, bisect.bisect_left(self._suffixes, prefix + _AFTER_ALL, lo)

    def _pick(
        self,
        rows: IntArray,
        scores: FloatArray,
        limit: int,
        taken: set[int],
    ) -> list[tuple[int, float]]:
        """The best ``limit`` rows, one per node (its best name), none of ``taken``."""
        if not rows.size or limit <= 0:
            return []
        wanted = limit * _SHORTLIST
        while True:
            if rows.size > wanted:  # rank a shortlist; widen it if duplicates ate it
                part = np.argpartition(-scores, wanted - 1)[:wanted]
                picked = self._distinct(rows[part], scores[part], limit, taken)
                if len(picked) == limit:
                    return picked
                wanted *= 4
            else:
                return self._distinct(rows, scores, limit, taken)

    def _distinct(
        self,
        rows: IntArray,
        scores: FloatArray,
        limit: int,
        taken: set[int],
    ) -> list[tuple[int, float]]:
        keys = self._keys
        ranked = sorted(
            zip(
                scores.tolist(),
                rows.tolist(),
                self._node[rows].tolist(),
                self._order[rows].tolist(),
                strict=True,
            ),
            key=lambda row: (-row[0], len(keys[row[1]]), keys[row[1]], row[3]),
        )
        picked: list[tuple[int, float]] = []
        seen = set(taken)
        for score, row, node, _ in ranked:
            if node not in seen:
                seen.add(node)
                picked.append((row, score))
                if len(picked) == limit:
                    break
        return picked
