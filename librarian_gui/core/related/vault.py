"""Related notes of a vault: the model built from the index's notes, and what every view and
command asks of it (RELATED_TO edges both ways, a note's related notes explained, the notes
with none), as one immutable snapshot that crosses threads."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..index.index import VaultIndex
from ..index.queries import is_index_note
from ..parse.records import FileStamp
from .model import RelatedModel, build_related

K = 10  # neighbours kept per note (each note's top k; edges are stored both ways)
DEFAULT_THRESHOLD = 0.15  # the cosine a pair needs to be shown (user-adjustable)
SHOWN_TERMS = 5


@dataclass(frozen=True, slots=True)
class RelatedNote:
    """One note related to another: its cosine, the shared key terms and concepts that
    explain it, and whether the two notes already link (either way)."""

    note: str
    score: float
    terms: tuple[str, ...]
    concepts: tuple[str, ...]
    linked: bool


@dataclass(frozen=True, slots=True)
class RelatedPair:
    """A RELATED_TO edge: two notes (``a`` before ``b``) and their cosine."""

    a: str
    b: str
    score: float


@dataclass(frozen=True, slots=True)
class RelatedIndex:
    """Every note's related notes at threshold 0 (each note's top ``K``, plus every note
    that has it in its own top ``K``: edges stored both ways); views filter by the
    user's threshold, so moving the slider recomputes nothing.

    ``linked`` holds the pairs of notes that link each other in either direction, as
    ``(a, b)`` with ``a < b``. ``stamps`` and ``concepts``: each note's file stamp and
    concepts as the model read them (what the next pass compares to find changed notes)."""

    model: RelatedModel
    pairs: tuple[RelatedPair, ...]
    linked: frozenset[tuple[str, str]]
    _by_note: dict[str, tuple[tuple[str, float], ...]] = field(repr=False, compare=False)
    stamps: Mapping[str, FileStamp] = field(default_factory=dict, repr=False, compare=False)
    concepts: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of_model(
        cls,
        model: RelatedModel,
        linked: Iterable[tuple[str, str]],
        stamps: Mapping[str, FileStamp] | None = None,
        concepts: Mapping[str, tuple[str, ...]] | None = None,
    ) -> RelatedIndex:
        best: dict[tuple[str, str], float] = {}
        for rel in model.notes:
            for other, score in model.neighbours(rel):
                key = (rel, other) if rel < other else (other, rel)
                best[key] = max(score, best.get(key, 0.0))
        pairs = tuple(
            RelatedPair(a, b, s) for (a, b), s in sorted(best.items(), key=lambda kv: kv[0])
        )
        by_note: dict[str, list[tuple[str, float]]] = {}
        for pair in pairs:
            by_note.setdefault(pair.a, []).append((pair.b, pair.score))
            by_note.setdefault(pair.b, []).append((pair.a, pair.score))
        frozen = {
            rel: tuple(sorted(found, key=lambda ns: (-ns[1], ns[0])))
            for rel, found in by_note.items()
        }
        ordered = frozenset((a, b) if a < b else (b, a) for a, b in linked if a != b)
        return cls(model, pairs, ordered, frozen, stamps or {}, concepts or {})

    @property
    def notes(self) -> tuple[str, ...]:
        return self.model.notes

    def pairs_at(self, threshold: float) -> list[RelatedPair]:
        """The RELATED_TO edges whose cosine is at least ``threshold``."""
        return [p for p in self.pairs if p.score >= threshold]

    def is_linked(self, a: str, b: str) -> bool:
        return ((a, b) if a < b else (b, a)) in self.linked

    def related(self, rel: str, threshold: float = DEFAULT_THRESHOLD) -> list[RelatedNote]:
        """The note's related notes at or above ``threshold``: the ones not linked yet
        first ("similar but not linked"), each group by score, best first."""
        found = []
        for other, score in self._by_note.get(rel, ()):
            if score < threshold:
                continue
            shared = self.model.shared_terms(rel, other, count=SHOWN_TERMS * 2)
            terms = tuple(t for t in shared if not t.startswith("concept:"))[:SHOWN_TERMS]
            concepts = tuple(t[len("concept:") :] for t in shared if t.startswith("concept:"))
            found.append(RelatedNote(other, score, terms, concepts, self.is_linked(rel, other)))
        found.sort(key=lambda r: (r.linked, -r.score, r.note))
        return found

    def without_related(self, threshold: float = DEFAULT_THRESHOLD) -> list[str]:
        """The notes with no related note at or above ``threshold`` (the index note left
        out: it points everywhere and is like nothing), in path order."""
        return sorted(
            rel
            for rel in self.model.notes
            if not is_index_note(rel)
            and not any(score >= threshold for _, score in self._by_note.get(rel, ()))
        )


def linked_pairs(index: VaultIndex) -> set[tuple[str, str]]:
    """The pairs of notes that link each other in either direction (hold ``index.lock``)."""
    notes = index.notes
    pairs = set()
    for source, targets in index.out_edges.items():
        for target in targets:
            if target in notes and target != source:
                pairs.add((source, target) if source < target else (target, source))
    return pairs


def concepts_by_note(index: VaultIndex) -> dict[str, tuple[str, ...]]:
    """Each note's concepts, as co-occurrence finds them (a link to the concept or to its
    note; the index note left out): boosted terms of the note (hold ``index.lock``)."""
    from ..insight.cooccurrence import found_in

    by_note: dict[str, list[str]] = {}
    for concept_id, notes in found_in(index).items():
        for rel in notes:
            by_note.setdefault(rel, []).append(concept_id)
    return {rel: tuple(ids) for rel, ids in by_note.items()}


def note_stamps(index: VaultIndex) -> dict[str, FileStamp]:
    """The stamps of the notes related notes are found among: all but the index note,
    which points at everything and would be like everything (DESIGN §4; hold
    ``index.lock``)."""
    return {rel: r.stamp for rel, r in index.notes.items() if not is_index_note(rel)}


def related_index(
    index: VaultIndex,
    read: Callable[[str], str | None],
    *,
    concepts: Mapping[str, Iterable[str]] | None = None,
    k: int = K,
    check: Callable[[], None] | None = None,
) -> RelatedIndex:
    """Build the related notes of the whole vault from scratch: every note's text by
    ``read`` (None: unreadable, left out). ``concepts``: the concept ids each note is
    found in (boosted terms); by default, as ``concepts_by_note`` finds them. The index
    note is left out (``note_stamps``). ``check`` is called between chunks of the work:
    it raises to cancel."""
    with index.lock:
        stamps = note_stamps(index)
        linked = linked_pairs(index)
        if concepts is None:
            concepts = concepts_by_note(index)
    texts = {}
    for rel in sorted(stamps):
        text = read(rel)
        if text is not None:
            texts[rel] = text
    chosen = {rel: tuple(ids) for rel, ids in concepts.items()}
    model = build_related(texts, concepts=chosen, k=k, threshold=0.0, check=check)
    return RelatedIndex.of_model(model, linked, stamps, chosen)
