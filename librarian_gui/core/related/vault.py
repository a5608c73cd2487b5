"""Related notes of a vault: the model built from the index's notes, and what every view and
command asks of it (RELATED_TO edges both ways, a note's related notes explained, the notes
with none), as one immutable snapshot that crosses threads."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..index.queries import is_index_note
from ..index.snapshot import IndexView
from ..parse.records import FileStamp
from .model import RelatedModel, build_related

if TYPE_CHECKING:  # numpy loads with the model, not with the package
    import numpy as np
    import numpy.typing as npt

K = 10  # neighbours kept per note (each note's top k; edges are stored both ways)
DEFAULT_THRESHOLD = 0.15  # the cosine a pair needs to be shown (user-adjustable)
# Seconds after the last change before related notes are redone (a burst of saves, a git
# pull: one pass), in the window and the MCP server alike.
REDO_AFTER_CHANGES = 1.5
SHOWN_TERMS = 5
LINK_CHUNK = 4096  # pairs looked up between two chances for the GUI thread
GROUP_AFTER = 16  # notes' pairs looked for by a pass over all pairs before they are grouped


@dataclass(frozen=True, slots=True)
class RelatedNote:
    """One note related to another: its cosine, the shared key terms and concepts that
    explain it, whether the two notes already link (either way), whether they share a
    passage (``passages``: a run of words both hold, which ranks a note higher) and
    whether its cosine is below the threshold asked for (``RelatedIndex.top``: a weaker
    note filling a slot the threshold would leave empty)."""

    note: str
    score: float
    terms: tuple[str, ...]
    concepts: tuple[str, ...]
    linked: bool
    passage: bool = False
    below_threshold: bool = False


@dataclass(frozen=True, slots=True)
class RelatedPair:
    """A RELATED_TO edge: two notes (``a`` before ``b``) and their cosine."""

    a: str
    b: str
    score: float


@dataclass(frozen=True, slots=True, eq=False)
class RelatedIndex:
    """Every note's related notes at threshold 0 (each note's top ``K``, plus every note
    that has it in its own top ``K``: edges stored both ways); views filter by the
    user's threshold, so moving the slider recomputes nothing.

    The RELATED_TO edges as read-only arrays, one entry a pair, ordered by the two notes'
    paths: ``a`` and ``b`` index ``model.notes`` (``a``'s path before ``b``'s), ``scores``
    their cosine, ``linked`` whether either links the other. Made on the worker once per
    pass, so a view only filters them. ``stamps`` and ``concepts``: each note's file stamp
    and concepts as the model read them (what the next pass compares to find changes)."""

    model: RelatedModel
    a: npt.NDArray[np.int64]
    b: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float64]
    linked: npt.NDArray[np.bool_]
    stamps: Mapping[str, FileStamp] = field(default_factory=dict, repr=False)
    concepts: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    # How many times a note's pairs were looked for, then each note's places in the arrays
    # (``_places``).
    _by_note: list[Any] = field(default_factory=list, init=False, repr=False)

    @classmethod
    def of_model(
        cls,
        model: RelatedModel,
        stamps: Mapping[str, FileStamp] | None = None,
        concepts: Mapping[str, tuple[str, ...]] | None = None,
    ) -> RelatedIndex:
        """The pairs of ``model``'s neighbour lists, each once with the better of its two
        cosines; none marked linked yet (``with_links``)."""
        import numpy as np

        notes = model.notes
        total = len(notes)
        rank = np.empty(total, dtype=np.int64)
        rank[sorted(range(total), key=notes.__getitem__)] = np.arange(total)
        width = model.rows.shape[1] if model.rows.ndim == 2 else 0
        src = np.repeat(np.arange(total, dtype=np.int64), width)
        dst = model.rows.reshape(-1).astype(np.int64)
        cos = model.scores.reshape(-1).astype(np.float64)
        keep = dst >= 0
        src, dst, cos = src[keep], dst[keep], cos[keep]
        swap = rank[src] > rank[dst]
        a, b = np.where(swap, dst, src), np.where(swap, src, dst)
        key = rank[a] * max(total, 1) + rank[b]
        order = np.lexsort((-cos, key))  # by the pair's paths, its best cosine first
        first = np.ones(len(order), dtype=bool)
        first[1:] = key[order][1:] != key[order][:-1]
        pick = order[first]
        a, b, cos, linked = a[pick], b[pick], cos[pick], np.zeros(len(pick), dtype=bool)
        for array in (a, b, cos, linked):
            array.setflags(write=False)
        return cls(model, a, b, cos, linked, stamps or {}, concepts or {})

    def with_links(self, index: IndexView) -> RelatedIndex:
        """The same pairs, each marked linked when either note links the other. The lock
        is held only to copy the map of each note's links (a reference a note): the
        lookups run after, a chunk at a time (on the worker, each chunk is a Python call,
        where the courtesy hook lets the GUI thread in)."""
        import numpy as np

        index = index.snapshot()
        out = dict(index.out_edges)
        linked = np.zeros(len(self.a), dtype=bool)
        for start in range(0, len(self.a), LINK_CHUNK):
            end = start + LINK_CHUNK
            linked[start:end] = _links(self.model.notes, out, self.a[start:end], self.b[start:end])
        linked.setflags(write=False)
        return replace(self, linked=linked)

    @property
    def notes(self) -> tuple[str, ...]:
        return self.model.notes

    @property
    def pairs(self) -> tuple[RelatedPair, ...]:
        """Every RELATED_TO edge (made anew at each call: views use the arrays)."""
        return tuple(self._pairs(self.scores >= 0.0))

    def pairs_at(self, threshold: float) -> list[RelatedPair]:
        """The RELATED_TO edges whose cosine is at least ``threshold``."""
        return self._pairs(self.scores >= threshold)

    def _pairs(self, keep: npt.NDArray[np.bool_]) -> list[RelatedPair]:
        notes = self.model.notes
        a, b, scores = self.a[keep].tolist(), self.b[keep].tolist(), self.scores[keep].tolist()
        return [RelatedPair(notes[i], notes[j], s) for i, j, s in zip(a, b, scores, strict=True)]

    def related(self, rel: str, threshold: float = DEFAULT_THRESHOLD) -> list[RelatedNote]:
        """The note's related notes at or above ``threshold``: the ones not linked yet
        first ("similar but not linked"), each group by score, best first."""
        return self._explained(rel, self._ranked(rel, threshold))

    def top(self, rel: str, k: int, threshold: float = DEFAULT_THRESHOLD) -> list[RelatedNote]:
        """The note's ``k`` related notes whose score is above 0, as the model ranks them
        (its own neighbours in their order: cosine less the hub correction, plus the
        bonus for a mention or a shared passage; then the notes that have it among
        theirs, by score), whatever ``threshold``: it marks the notes below it
        ``below_threshold``, it does not leave their slots empty. Listed as ``related``
        lists them, those at the threshold first, then the weaker."""
        row = self.model.row_of.get(rel)
        if row is None:
            return []
        own = [j for j in self.model.rows[row].tolist() if j >= 0]  # the model's order
        place = {self.model.notes[j]: p for p, j in enumerate(own)}
        found = self._ranked(rel, 0.0)
        ranked = sorted(
            found, key=lambda f: (place.get(f[0], len(place)), 0.0 if f[0] in place else -f[1])
        )[:k]
        ranked.sort(key=lambda f: (f[1] < threshold, f[2], -f[1], f[0]))
        return self._explained(rel, ranked, threshold)

    def _places(self, row: int) -> npt.NDArray[np.int64]:
        """Where in the arrays the pairs of note ``row`` are, in their order. The first
        ``GROUP_AFTER`` times, by comparing every pair; then the pairs are grouped by note
        once (a sort), so that every note's related notes (``related --all``) are not each
        a pass over all the pairs, while one note's (a window, an agent) costs no sort."""
        import numpy as np

        memo = self._by_note
        if len(memo) < 2:
            if not memo:
                memo.append(0)
            memo[0] += 1
            if memo[0] <= GROUP_AFTER:
                return np.flatnonzero((self.a == row) | (self.b == row))
            ends = np.concatenate((self.a, self.b))
            order = np.argsort(ends, kind="stable")
            starts = np.searchsorted(ends[order], np.arange(len(self.model.notes) + 1))
            memo.append((order % max(len(self.a), 1), starts))
        order, starts = memo[1]
        return np.unique(order[starts[row] : starts[row + 1]])

    def _ranked(self, rel: str, least: float) -> list[tuple[str, float, bool]]:
        """(note, score, linked) of the note's related notes scoring at least ``least``
        and above 0: the ones not linked first, each group by score, best first."""
        import numpy as np

        row = self.model.row_of.get(rel)
        if row is None:
            return []
        at = self._places(row)
        scores = self.scores[at]
        at = at[(scores >= least) & (scores > 0)]
        others = np.where(self.a[at] == row, self.b[at], self.a[at]).tolist()
        notes = self.model.notes
        found = [
            (notes[other], score, linked)
            for other, score, linked in zip(
                others, self.scores[at].tolist(), self.linked[at].tolist(), strict=True
            )
        ]
        found.sort(key=lambda f: (f[2], -f[1], f[0]))
        return found

    def _explained(
        self, rel: str, found: list[tuple[str, float, bool]], threshold: float | None = None
    ) -> list[RelatedNote]:
        """Each (note, score, linked) of ``found`` as a note related to ``rel``, with what
        explains it; below ``threshold`` (when given) marked weaker."""
        names = [name for name, _, _ in found]
        shared = self.model.shared_terms_of(rel, names, count=SHOWN_TERMS * 2)
        passages = self.model.shares_passages(rel, names)
        out = []
        for (name, score, linked), said, passage in zip(found, shared, passages, strict=True):
            terms = tuple(t for t in said if not t.startswith("concept:"))[:SHOWN_TERMS]
            concepts = tuple(t[len("concept:") :] for t in said if t.startswith("concept:"))
            below = threshold is not None and score < threshold
            out.append(RelatedNote(name, score, terms, concepts, linked, passage, below))
        return out

    def without_related(self, threshold: float = DEFAULT_THRESHOLD) -> list[str]:
        """The notes with no related note at or above ``threshold`` (the index note left
        out: it points everywhere and is like nothing), in path order."""
        import numpy as np

        best = np.zeros(len(self.model.notes))
        np.maximum.at(best, self.a, self.scores)
        np.maximum.at(best, self.b, self.scores)
        notes = self.model.notes
        return sorted(
            notes[i]
            for i in np.flatnonzero(best < threshold).tolist()
            if not is_index_note(notes[i])
        )


def concepts_by_note(index: IndexView) -> dict[str, tuple[str, ...]]:
    """Each note's concepts, as co-occurrence finds them (a link to the concept or to its
    note; the index note left out): boosted terms of the note (read from a snapshot)."""
    from ..insight.cooccurrence import found_in

    by_note: dict[str, list[str]] = {}
    for concept_id, notes in found_in(index).items():
        for rel in notes:
            by_note.setdefault(rel, []).append(concept_id)
    return {rel: tuple(ids) for rel, ids in by_note.items()}


def _links(
    notes: tuple[str, ...],
    out: Mapping[str, Mapping[str, int]],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
) -> list[bool]:
    empty: dict[str, int] = {}
    return [
        notes[j] in out.get(notes[i], empty) or notes[i] in out.get(notes[j], empty)
        for i, j in zip(a.tolist(), b.tolist(), strict=True)
    ]


def note_stamps(index: IndexView) -> dict[str, FileStamp]:
    """The stamps of the notes related notes are found among: all but the index note,
    which points at everything and would be like everything (DESIGN §4; pass a
    snapshot where the index may change)."""
    return {rel: r.stamp for rel, r in index.notes.items() if not is_index_note(rel)}


def related_index(
    index: IndexView,
    read: Callable[[str], str | None],
    *,
    concepts: Mapping[str, Iterable[str]] | None = None,
    k: int = K,
    check: Callable[[], None] | None = None,
    second_process: bool = True,
) -> RelatedIndex:
    """Build the related notes of the whole vault from scratch: every note's text by
    ``read`` (None: unreadable, left out). ``concepts``: the concept ids each note is
    found in (boosted terms); by default, as ``concepts_by_note`` finds them. The index
    note is left out (``note_stamps``). ``check`` is called between chunks of the work:
    it raises to cancel; ``second_process``: see ``build_related``."""
    index = index.snapshot()
    stamps = note_stamps(index)
    if concepts is None:
        concepts = concepts_by_note(index)
    texts = {}
    for rel in sorted(stamps):
        text = read(rel)
        if text is not None:
            texts[rel] = text
    chosen = {rel: tuple(ids) for rel, ids in concepts.items()}
    model = build_related(
        texts,
        concepts=chosen,
        k=k,
        threshold=0.0,
        check=check,
        second_process=second_process,
    )
    return RelatedIndex.of_model(model, stamps, chosen).with_links(index)
