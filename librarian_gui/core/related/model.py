"""Related notes (DESIGN §5): each note as a pruned TF-IDF vector of its key terms, and its
nearest notes by cosine, re-ranked so that a hub does not sit in every list.

- Terms: ``analyzer.words`` of the note's prose, lines that many notes repeat (a template's
  headings) left out, a plural weighed as its singular where the vault holds that word
  (``weights.singular``); each concept a note is found in adds a term of its own, boosted; a
  note named by one word has it as a title term, boosted, and so has each note naming it. A
  name of several words is found where its words follow one another, only for the bonus.
- Weights: sublinear term frequency (1 + ln tf) times a smoothed idf; a term in one note
  only, or in more than half of them (fewer in a large vault: ``weights.vocabulary``),
  explains no pair and is dropped. Each note keeps its ``max_terms`` heaviest terms
  (``terms_for`` the vault's size), L2-normalised.
- Neighbours: the cosine of every pair (a sparse product in float32, a block of rows at a
  time on two threads), then
  for each note its ``k`` best by cosine less ``hub_penalty`` times the candidate's own mean
  top-k cosine (a CSLS-style correction: a note close to everything is discounted), plus a
  bonus when one of the two names the other (``neighbours.mention_bonus``) and one when they
  share a passage of five words in a row (``passages``; vaults of ``PHRASE_NOTES`` notes or
  fewer), kept when the cosine is at least ``threshold``. The score given is the cosine.

The model keeps what an update needs (``incremental.update_related``): every note's raw word
counts, the vocabulary and idf of the last full build, each note's candidates; it is saved
and loaded by ``store``. A large vault's words are counted on two cores (``fanout``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .counting import CONCEPT_PREFIX, TITLE_PREFIX, note_counts, raw_counts, template_lines

if TYPE_CHECKING:  # numpy and scipy load with the model, not with the package
    import numpy as np
    import numpy.typing as npt
    from scipy import sparse

__all__ = [
    "CONCEPT_PREFIX",
    "RelatedModel",
    "Settings",
    "build_related",
    "from_counts",
    "note_counts",
    "raw_counts",
    "template_lines",
]

# Terms a note keeps: as many as a budget of vector entries for the vault allows, between
# the two bounds. The similarity's cost grows with the entries (and the notes): a vault of
# 10,000 notes keeps 100 terms a note, one of 2,500 or fewer 400 (which found more links
# among long notes: P@10 with 100 terms and 400 at hub penalty 0.25, foam-docs 0.369 and
# 0.381, logseq-docs 0.143 and 0.155).
TERM_BUDGET = 1_000_000
MIN_TERMS = 100
MAX_TERMS = 400
HUB_PENALTY = 0.1  # 10,000 notes: the largest hub in 2.5 % of the lists (5.1 % with none)
# Names of several words, and passages two notes share (``passages``), are looked for in
# vaults up to this size: finding names is a pass over every note's word pairs, a third
# more counting (10,000 notes: 0.45 s on one core); passages keep a hash a word of prose.
PHRASE_NOTES = 5_000


@dataclass(frozen=True, slots=True)
class Settings:
    """What a model was built with: neighbours per note, the least cosine shown, terms kept
    per note, the hub correction, whether shared passages are looked for."""

    k: int = 10
    threshold: float = 0.0
    max_terms: int = MAX_TERMS
    hub_penalty: float = HUB_PENALTY
    passages: bool = True


@dataclass(frozen=True, slots=True)
class RelatedModel:
    """The vectors and each note's neighbours. ``rows[i]`` / ``scores[i]``: note ``i``'s
    neighbours, best first, padded with -1 / 0.

    For updates: ``counts`` (notes × ``words``, raw counts, template lines out, concepts
    in), ``columns`` (each word's term column or -1), the ``idf`` of the ``terms`` and the
    ``templates`` and ``titles`` (note names, ``counting.title_of``) of the last full build,
    each note's candidates (``cand_rows`` / ``cand_cos``) and ``reach``; ``built_notes``
    notes at the last full build and ``changes`` note changes since; ``postings``, the vectors
    transposed (each term's notes) as they were at some point, and each note's column
    there (``posting_col``, -1 for a note changed or added since); ``named``, each note's
    title terms (``neighbours.named_of``: the names it mentions, its own); every note's
    passage hashes sorted (``passage_keys``, each of note ``passage_owner``), the pairs of
    notes that share one (``shared``, ``passages.shared_pairs``) and how many they share
    (``shared_support``)."""

    notes: tuple[str, ...]
    terms: tuple[str, ...]
    vectors: sparse.csr_matrix
    rows: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float64]
    row_of: Mapping[str, int]
    settings: Settings
    words: tuple[str, ...]
    word_index: Mapping[str, int]
    counts: sparse.csr_matrix
    columns: npt.NDArray[np.int32]
    idf: npt.NDArray[np.float64]
    templates: frozenset[str]
    titles: frozenset[str]
    cand_rows: npt.NDArray[np.int32]
    cand_cos: npt.NDArray[np.float32]
    reach: npt.NDArray[np.float64]
    built_notes: int
    changes: int
    postings: sparse.csr_matrix
    posting_col: npt.NDArray[np.int32]
    named: sparse.csr_matrix
    passage_keys: npt.NDArray[np.uint64]
    passage_owner: npt.NDArray[np.int32]
    shared: npt.NDArray[np.int64]
    shared_support: npt.NDArray[np.int32]
    _memo: list[npt.NDArray[np.bool_]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    def neighbours(self, rel: str) -> list[tuple[str, float]]:
        """The note's related notes, best first, with their cosine."""
        i = self.row_of.get(rel)
        if i is None:
            return []
        return [
            (self.notes[j], float(s))
            for j, s in zip(self.rows[i].tolist(), self.scores[i].tolist(), strict=True)
            if j >= 0
        ]

    def key_terms(self, rel: str, count: int = 10) -> list[tuple[str, float]]:
        """The note's heaviest terms (concepts as ``concept:ID``), heaviest first."""
        i = self.row_of.get(rel)
        if i is None:
            return []
        weights = self._weights(i)
        order = sorted(weights, key=lambda t: (-weights[t], self.terms[t]))
        return [(_shown(self.terms[t]), weights[t]) for t in order[:count]]

    def shared_terms(self, a: str, b: str, count: int = 5) -> list[str]:
        """The terms that make two notes close: in both (their titles aside), by the product
        of their weights."""
        return self.shared_terms_of(a, (b,), count)[0]

    def shared_terms_of(self, a: str, others: Sequence[str], count: int = 5) -> list[list[str]]:
        """``shared_terms(a, b, count)`` for each note ``b`` of ``others``, in one pass of
        array operations (``related --all`` explains 100,000 pairs at 10,000 notes)."""
        import numpy as np

        i = self.row_of.get(a)
        rows = [self.row_of.get(b) for b in others]
        out: list[list[str]] = [[] for _ in others]
        wanted = [(slot, j) for slot, j in enumerate(rows) if j is not None]
        if i is None or not wanted:
            return out
        indptr, indices, data = self.vectors.indptr, self.vectors.indices, self.vectors.data
        # A title term is left out: a note's name need not be in its text, and an
        # explanation points at words the reader finds in both notes (the word itself,
        # when both hold it, is a term of its own).
        mine = indices[indptr[i] : indptr[i + 1]].astype(np.int64)
        weight = data[indptr[i] : indptr[i + 1]].astype(np.float64)
        keep = ~self._title_terms()[mine]
        order = np.argsort(mine[keep], kind="stable")
        mine, weight = mine[keep][order], weight[keep][order]
        if not len(mine):
            return out
        # Every other note's terms in one array, each with its place in ``wanted``.
        their = np.array([j for _, j in wanted], dtype=np.int64)
        starts, ends = indptr[their].astype(np.int64), indptr[their + 1].astype(np.int64)
        lengths = ends - starts
        owner = np.repeat(np.arange(len(wanted)), lengths)
        offset = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        place = np.arange(int(lengths.sum()), dtype=np.int64) + offset
        terms_there = indices[place].astype(np.int64)
        at = np.minimum(np.searchsorted(mine, terms_there), len(mine) - 1)
        both = mine[at] == terms_there
        product = weight[at[both]] * data[place[both]].astype(np.float64)
        owner, held = owner[both], terms_there[both]
        # Per note, by the product of the two weights, then the term's number.
        ranked = np.lexsort((held, -product, owner))
        owner, held = owner[ranked], held[ranked]
        first = np.searchsorted(owner, np.arange(len(wanted)))
        shown = np.arange(len(owner)) - first[owner] < count
        terms = self.terms
        for who, term in zip(owner[shown].tolist(), held[shown].tolist(), strict=True):
            out[wanted[who][0]].append(_shown(terms[term]))
        return out

    def _title_terms(self) -> npt.NDArray[np.bool_]:
        """Whether each term is a title term, worked out once per model."""
        import numpy as np

        if not self._memo:
            self._memo.append(
                np.fromiter(
                    (t.startswith(TITLE_PREFIX) for t in self.terms),
                    dtype=bool,
                    count=len(self.terms),
                )
            )
        return self._memo[0]

    def mentions(self, a: str, b: str) -> list[str]:
        """The names that relate two notes by a mention (what ``neighbours.mention_bonus``
        reads): ``b``'s name where ``a`` writes it, ``a``'s where ``b`` does, each as its
        title (words case-folded, joined by one space), in that order, without repeats."""
        from .counting import TITLE_SELF

        i, j = self.row_of.get(a), self.row_of.get(b)
        if i is None or j is None or i == j:
            return []
        held = [self._named(i), self._named(j)]
        found: list[str] = []
        for reader, owner in ((0, 1), (1, 0)):
            for term, count in held[owner].items():
                name = self.terms[term][len(TITLE_PREFIX) :]
                if count == TITLE_SELF and term in held[reader] and name not in found:
                    found.append(name)
        return found

    def shares_passage(self, a: str, b: str) -> bool:
        """Whether the two notes share a passage (see ``passages``)."""
        return self.shares_passages(a, (b,))[0]

    def shares_passages(self, a: str, others: Sequence[str]) -> list[bool]:
        """``shares_passage(a, b)`` for each note ``b`` of ``others``, looked up at once."""
        from .passages import shares_passages

        i = self.row_of.get(a)
        if i is None:
            return [False] * len(others)
        rows = [self.row_of.get(b, -1) for b in others]
        return [
            found and j != i
            for found, j in zip(shares_passages(self.shared, i, rows), rows, strict=True)
        ]

    def _named(self, row: int) -> dict[int, int]:
        start, end = self.named.indptr[row], self.named.indptr[row + 1]
        return dict(
            zip(
                self.named.indices[start:end].tolist(),
                self.named.data[start:end].tolist(),
                strict=True,
            )
        )

    def _weights(self, row: int) -> dict[int, float]:
        start, end = self.vectors.indptr[row], self.vectors.indptr[row + 1]
        return dict(
            zip(
                self.vectors.indices[start:end].tolist(),
                self.vectors.data[start:end].tolist(),
                strict=True,
            )
        )


def _shown(term: str) -> str:
    if term.startswith(CONCEPT_PREFIX):
        return "concept:" + term[len(CONCEPT_PREFIX) :]
    return term[len(TITLE_PREFIX) :] if term.startswith(TITLE_PREFIX) else term


def terms_for(notes: int) -> int:
    """The terms each note keeps in a vault of ``notes`` notes (see ``TERM_BUDGET``)."""
    return max(MIN_TERMS, min(MAX_TERMS, TERM_BUDGET // max(notes, 1)))


def build_related(
    texts: Mapping[str, str],
    *,
    concepts: Mapping[str, Collection[str]] | None = None,
    k: int = 10,
    threshold: float = 0.0,
    max_terms: int | None = None,
    hub_penalty: float = HUB_PENALTY,
    templates: frozenset[str] | None = None,
    titles: frozenset[str] | None = None,
    basis: tuple[Sequence[str], npt.NDArray[np.float64]] | None = None,
    check: Callable[[], None] | None = None,
    second_process: bool = True,
    passages: bool | None = None,
) -> RelatedModel:
    """The model of the notes ``texts`` (vault path → Markdown); ``concepts``: the concept
    ids each note is found in, each a boosted term of that note. ``templates`` (the
    template lines), ``titles`` (the notes' names, ``counting.title_of``; only those of one
    word in a vault of more than ``PHRASE_NOTES`` notes) and ``basis`` (terms and their
    idf) are found in the texts unless given: an update's result equals a build given its
    model's. ``max_terms``: the terms each note keeps (None: ``terms_for`` the vault's
    size). ``check`` is called between chunks of work (a few tens of ms): it raises to
    cancel. ``second_process``: a large vault's words may be counted on a second core
    (``fanout``); the window's background pass does without, leaving that core to it.
    ``passages``: whether passages two notes share are looked for (None: in a vault of
    ``PHRASE_NOTES`` notes or fewer). The cyclic garbage collector is paused meanwhile
    (``fanout.collector_paused``)."""
    from .fanout import collector_paused

    with collector_paused():
        return _build(
            texts,
            concepts,
            k,
            threshold,
            max_terms,
            hub_penalty,
            templates,
            titles,
            basis,
            check,
            second_process,
            len(texts) <= PHRASE_NOTES if passages is None else passages,
        )


def _build(
    texts: Mapping[str, str],
    concepts: Mapping[str, Collection[str]] | None,
    k: int,
    threshold: float,
    max_terms: int | None,
    hub_penalty: float,
    templates: frozenset[str] | None,
    titles: frozenset[str] | None,
    basis: tuple[Sequence[str], npt.NDArray[np.float64]] | None,
    check: Callable[[], None] | None,
    second_process: bool,
    passages: bool,
) -> RelatedModel:
    """``build_related``'s work (see there)."""
    from .counting import counts_matrix, title_of, titles_of
    from .fanout import count_all
    from .passages import postings

    notes = tuple(texts)
    lines = template_lines(texts.values(), check) if templates is None else templates
    names = titles_of(notes) if titles is None else titles
    if titles is None and len(notes) > PHRASE_NOTES:
        names = frozenset(name for name in names if " " not in name)
    found = concepts or {}
    hashes: list[npt.NDArray[np.uint64]] | None = [] if passages else None
    ids, values, index = count_all(
        [texts[rel] for rel in notes],
        [found.get(rel, ()) for rel in notes],
        [title_of(rel) for rel in notes],
        (lines, names),
        check,
        second_process,
        hashes,
    )
    counts = counts_matrix((ids, values), len(index))
    if max_terms is None:
        max_terms = terms_for(len(notes))
    settings = Settings(k, threshold, max_terms, hub_penalty, passages)
    return from_counts(
        notes,
        tuple(index),
        index,
        counts,
        (lines, names),
        settings,
        postings(hashes or []),
        basis=basis,
        check=check,
    )


def from_counts(
    notes: tuple[str, ...],
    words: Sequence[str],
    word_index: Mapping[str, int],
    counts: sparse.csr_matrix,
    lines: tuple[frozenset[str], frozenset[str]],
    settings: Settings,
    passages: tuple[npt.NDArray[np.uint64], npt.NDArray[np.int32]],
    *,
    basis: tuple[Sequence[str], npt.NDArray[np.float64]] | None = None,
    check: Callable[[], None] | None = None,
) -> RelatedModel:
    """The model of notes already counted: a full build (or, given ``basis``, one with the
    vocabulary and idf of an earlier build); ``lines``: the template lines and titles they
    were counted with; ``passages``: their passage postings (``passages.postings``)."""
    import numpy as np

    from .neighbours import bonus_of, candidates, named_of, rank, reach, width
    from .passages import shared_pairs
    from .weights import term_boost, term_columns, vocabulary, weigh_all

    if basis is None:
        terms, idf = vocabulary(words, counts)
    else:
        terms, idf = tuple(basis[0]), np.asarray(basis[1], dtype=np.float64)
    columns = term_columns(words, terms)
    vectors = weigh_all(counts, columns, idf, term_boost(terms), settings.max_terms, check)
    cand_rows, cand_cos, postings = candidates(vectors, width(settings.k), check)
    reaches = reach(cand_cos, settings.k)
    named = named_of(counts, columns, terms)
    shared, support = shared_pairs(*passages)
    bonus = bonus_of(np.arange(len(notes), dtype=np.int32), cand_rows, named, idf, shared)
    rows, scores = rank(
        cand_rows, cand_cos, reaches, settings.k, settings.threshold, settings.hub_penalty, bonus
    )
    return RelatedModel(
        notes=notes,
        terms=terms,
        vectors=vectors,
        rows=rows,
        scores=scores,
        row_of={rel: i for i, rel in enumerate(notes)},
        settings=settings,
        words=tuple(words),
        word_index=word_index,
        counts=counts,
        columns=columns,
        idf=idf,
        templates=lines[0],
        titles=lines[1],
        cand_rows=cand_rows,
        cand_cos=cand_cos,
        reach=reaches,
        built_notes=len(notes),
        changes=0,
        postings=postings,
        posting_col=np.arange(len(notes), dtype=np.int32),
        named=named,
        passage_keys=passages[0],
        passage_owner=passages[1],
        shared=shared,
        shared_support=support,
    )
