"""Related notes of a vault: the model built from the index's notes, and what every view and
command asks of it (RELATED_TO edges both ways, a note's related notes explained, the notes
with none), as one immutable snapshot that crosses threads."""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..index.cache import MTIME_GRACE_NS, cache_dir, cache_file
from ..index.index import VaultIndex
from ..index.queries import is_index_note
from ..writing.safewrite import atomic_write
from .model import RelatedModel, build_related

K = 10  # neighbours kept per note (each note's top k; edges are stored both ways)
DEFAULT_THRESHOLD = 0.15  # the cosine a pair needs to be shown (user-adjustable)
SHOWN_TERMS = 5
CACHE_VERSION = 1  # bump when the model's arrays or their meaning change


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
    ``(a, b)`` with ``a < b``."""

    model: RelatedModel
    pairs: tuple[RelatedPair, ...]
    linked: frozenset[tuple[str, str]]
    _by_note: dict[str, tuple[tuple[str, float], ...]] = field(repr=False, compare=False)

    @classmethod
    def of_model(cls, model: RelatedModel, linked: Iterable[tuple[str, str]]) -> RelatedIndex:
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
        return cls(model, pairs, ordered, frozen)

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


def related_index(
    index: VaultIndex,
    read: Callable[[str], str | None],
    *,
    concepts: Mapping[str, Iterable[str]] | None = None,
    k: int = K,
) -> RelatedIndex:
    """Build the related notes of the whole vault from scratch: every note's text by
    ``read`` (None: unreadable, left out). ``concepts``: the concept ids each note is
    found in (boosted terms); by default, as ``concepts_by_note`` finds them. The index
    note is left out: it points at everything and would be like everything (DESIGN §4)."""
    with index.lock:
        notes = sorted(rel for rel in index.notes if not is_index_note(rel))
        linked = linked_pairs(index)
        if concepts is None:
            concepts = concepts_by_note(index)
    texts = {}
    for rel in notes:
        text = read(rel)
        if text is not None:
            texts[rel] = text
    chosen = {rel: tuple(ids) for rel, ids in concepts.items()}
    model = build_related(texts, concepts=chosen, k=k, threshold=0.0)
    return RelatedIndex.of_model(model, linked)


def vault_related(
    index: VaultIndex,
    read: Callable[[str], str | None],
    *,
    k: int = K,
    use_cache: bool = True,
) -> RelatedIndex:
    """The vault's related notes, from the cache beside the index's when no note and no
    concept of a note changed since it was saved (a command-line query or a restart
    recomputes nothing), else built and saved."""
    with index.lock:
        concepts = concepts_by_note(index)
        key = cache_key(index, concepts, k)
        linked = linked_pairs(index) if use_cache else None
    model = load_model(index.root, key) if use_cache else None
    if model is not None and linked is not None:
        return RelatedIndex.of_model(model, linked)
    related = related_index(index, read, concepts=concepts, k=k)
    if use_cache:
        save_model(index, key, related.model)
    return related


def cache_key(index: VaultIndex, concepts: Mapping[str, Iterable[str]], k: int) -> str:
    """What the model depends on, as a digest: every note's stamp, each note's concepts,
    ``k`` (hold ``index.lock``)."""
    notes = sorted((rel, tuple(record.stamp)) for rel, record in index.notes.items())
    found = sorted((rel, sorted(ids)) for rel, ids in concepts.items())
    text = json.dumps([CACHE_VERSION, k, notes, found], ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def model_file(root: Path) -> Path:
    return cache_dir() / "related" / cache_file(root).with_suffix(".npz").name


def load_model(root: Path, key: str) -> RelatedModel | None:
    """The model saved under ``key``, or None (none saved, another key, damaged)."""
    import numpy as np
    from scipy import sparse

    try:
        raw = model_file(root).read_bytes()  # np.load of a damaged file leaks its handle
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            if str(data["key"]) != key:
                return None
            notes = tuple(str(n) for n in data["notes"])
            terms = tuple(str(t) for t in data["terms"])
            vectors = sparse.csr_matrix(
                (data["data"], data["indices"], data["indptr"]), shape=(len(notes), len(terms))
            )
            rows, scores = data["rows"], data["scores"]
    except FileNotFoundError:
        return None
    except Exception:  # any damage to the cache means "rebuild it"
        return None
    if rows.shape != scores.shape or rows.shape[0] != len(notes):
        return None
    return RelatedModel(
        notes, terms, vectors, rows, scores, {rel: i for i, rel in enumerate(notes)}
    )


def save_model(index: VaultIndex, key: str, model: RelatedModel) -> bool:
    """Keep ``model`` under ``key``, unless a note changed so recently that a rewrite in
    the same timestamp tick could go unseen (as the index cache does); False when not kept."""
    import numpy as np

    with index.lock:
        newest = max((r.stamp.mtime_ns for r in index.notes.values()), default=0)
    if newest > time.time_ns() - MTIME_GRACE_NS:
        return False
    buffer = io.BytesIO()
    vectors = model.vectors
    np.savez(
        buffer,
        key=np.array(key),
        notes=np.array(model.notes, dtype=str),
        terms=np.array(model.terms, dtype=str),
        data=vectors.data,
        indices=vectors.indices,
        indptr=vectors.indptr,
        rows=model.rows,
        scores=model.scores,
    )
    path = model_file(index.root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, buffer.getvalue())
    except OSError:
        return False  # the cache is a convenience: the model was made all the same
    return True
