"""A model updated for changed notes without a full build (DESIGN §5, issue 16 point 1).

The changed notes are counted and weighed against the vocabulary and idf of the last full
build; their candidates are redone, and so are those of every note that had one of them (or a
removed note) as a candidate; a note that did not but finds a changed note among its best now
takes it in. Reaches that moved and the rankings that read them are redone too.

What "equal" means (tested with hypothesis): the result is exactly, to the last bit (same
notes in the same order, vectors, candidates, reaches, neighbours and scores),
``build_related`` of the new texts given the model's template lines, titles, settings and
``basis`` (its terms and idf). An edited note keeps its place; an added one comes last.

Drift: new words and moved document frequencies reach the vocabulary only at a full build.
Once the note changes (edits, additions and removals, each counted) since the last one
exceed ``DRIFT_SHARE`` of the notes it had, the update is a full build from the counts the
model keeps: new vocabulary and idf, exactly ``build_related`` of the new texts given the
model's template lines, titles and settings (those three change only at a build from texts).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
from scipy import sparse

from .counting import count_rows, counts_matrix, title_of
from .model import RelatedModel, from_counts
from .neighbours import bonus_of, named_of, rank, reach, top_of
from .passages import updated
from .weights import term_boost, term_columns, weigh

DRIFT_SHARE = 0.10  # of the notes at the last full build, changed since: build again

Ints = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]
Cosines = npt.NDArray[np.float32]
# A run of a matrix's old rows (first, end) or new rows, in the order the result holds them.
Piece: TypeAlias = tuple[int, int] | sparse.csr_matrix


def update_related(
    model: RelatedModel,
    changed: Mapping[str, str | None],
    *,
    concepts: Mapping[str, Collection[str]] | None = None,
    check: Callable[[], None] | None = None,
    drift_share: float = DRIFT_SHARE,
) -> RelatedModel:
    """``model`` with the notes of ``changed`` (vault path → new Markdown, None for a removed
    note; a path the model lacks is added, after the others) redone. ``concepts``: the
    concept ids each changed note is found in now (a changed note it lacks has none).
    ``drift_share``: see the module's docstring."""
    removed = [rel for rel, text in changed.items() if text is None and rel in model.row_of]
    edited = [rel for rel, text in changed.items() if text is not None and rel in model.row_of]
    added = [rel for rel, text in changed.items() if text is not None and rel not in model.row_of]
    if not (removed or edited or added):
        return model
    old_total = len(model.notes)
    gone = np.zeros(old_total, dtype=bool)
    gone[[model.row_of[rel] for rel in removed]] = True
    kept = np.flatnonzero(~gone).astype(np.int32)
    new_of_old = np.full(old_total, -1, dtype=np.int32)
    new_of_old[kept] = np.arange(len(kept), dtype=np.int32)
    if removed:
        notes = tuple(model.notes[i] for i in kept.tolist()) + tuple(added)
        row_of: Mapping[str, int] = {rel: i for i, rel in enumerate(notes)}
    elif added:  # the others keep their numbers
        notes = model.notes + tuple(added)
        row_of = {**model.row_of, **{rel: old_total + i for i, rel in enumerate(added)}}
    else:
        notes, row_of = model.notes, model.row_of
    redone = np.array(
        [new_of_old[model.row_of[rel]] for rel in edited] + list(range(len(kept), len(notes))),
        dtype=np.int32,
    )
    # Their counts, in the order of ``redone``; words never seen numbered after the others.
    found = concepts or {}
    fresh_rels = edited + added
    hashes: list[npt.NDArray[np.uint64]] | None = [] if model.settings.passages else None
    ids, values, fresh = count_rows(
        [changed[rel] or "" for rel in fresh_rels],
        [found.get(rel, ()) for rel in fresh_rels],
        [title_of(rel) for rel in fresh_rels],
        (model.templates, model.titles),
        model.word_index,
        check,
        hashes,
    )
    dropped = np.array([model.row_of[rel] for rel in removed + edited], dtype=np.int32)
    passages, (shared, support), rerank = updated(
        (model.passage_keys, model.passage_owner),
        (model.shared, model.shared_support),
        new_of_old,
        dropped,
        [] if hashes is None else list(zip(redone.tolist(), hashes, strict=True)),
    )
    width = len(model.words) + len(fresh)
    fresh_counts = counts_matrix((ids, values), width)
    old_rows = [model.row_of[rel] for rel in edited]
    counts = _splice(model.counts, gone, old_rows, fresh_counts, width)
    words, word_index, columns = model.words, model.word_index, model.columns
    if fresh:
        words = words + tuple(fresh)
        word_index = {**word_index, **fresh}
        # A word never seen may still be a term's other form ("widgets" of "widget").
        columns = np.concatenate([columns, term_columns(tuple(fresh), model.terms)])
    changes = model.changes + len(removed) + len(edited) + len(added)
    if changes > drift_share * model.built_notes:
        basis = (model.templates, model.titles)
        return from_counts(
            notes, words, word_index, counts, basis, model.settings, passages, check=check
        )
    boost = term_boost(model.terms)
    fresh_vectors = weigh(fresh_counts, columns, model.idf, boost, model.settings.max_terms)
    vectors = _splice(model.vectors, gone, old_rows, fresh_vectors, len(model.terms))
    posting_col = np.concatenate([model.posting_col[kept], np.full(len(added), -1, np.int32)])
    posting_col[redone] = -1

    fresh_named = named_of(fresh_counts, columns, model.terms)
    named = _splice(model.named, gone, old_rows, fresh_named, len(model.terms))

    def bonus(rows: Ints, cand_rows: Ints) -> Floats:
        return bonus_of(rows, cand_rows, named, model.idf, shared)

    redone_model = _neighbours_redone(
        model, vectors, posting_col, kept, new_of_old, redone, check, bonus, rerank
    )
    return replace(
        redone_model,
        notes=notes,
        row_of=row_of,
        words=words,
        word_index=word_index,
        counts=counts,
        columns=columns,
        changes=changes,
        posting_col=posting_col,
        named=named,
        passage_keys=passages[0],
        passage_owner=passages[1],
        shared=shared,
        shared_support=support,
    )


def _splice(
    matrix: sparse.csr_matrix,
    gone: npt.NDArray[np.bool_],
    old_rows: Sequence[int],
    fresh: sparse.csr_matrix,
    width: int,
) -> sparse.csr_matrix:
    """``matrix`` without its ``gone`` rows, its ``old_rows`` replaced by the first rows of
    ``fresh`` (in that order) and the rest of ``fresh`` appended: runs of untouched rows are
    copied whole, so a change costs a few copies, not a pass per row."""
    pieces: list[Piece] = []
    replaced = dict(zip(old_rows, range(len(old_rows)), strict=True))
    cuts = sorted({*old_rows, *np.flatnonzero(gone).tolist()})
    at = 0
    for row in cuts:
        if at < row:
            pieces.append((at, row))
        if row in replaced:
            pieces.append(fresh[replaced[row] : replaced[row] + 1])
        at = row + 1
    if at < matrix.shape[0]:
        pieces.append((at, matrix.shape[0]))
    if len(old_rows) < fresh.shape[0]:
        pieces.append(fresh[len(old_rows) :])
    datas, indices, sizes = [], [], []
    for piece in pieces:
        if isinstance(piece, tuple):
            first, end = piece
            a, b = matrix.indptr[first], matrix.indptr[end]
            datas.append(matrix.data[a:b])
            indices.append(matrix.indices[a:b])
            sizes.append(np.diff(matrix.indptr[first : end + 1]))
        else:
            datas.append(piece.data)
            indices.append(piece.indices)
            sizes.append(np.diff(piece.indptr))
    size = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int32)
    indptr = np.zeros(len(size) + 1, dtype=np.int32)
    np.cumsum(size, out=indptr[1:])
    data = np.concatenate(datas) if datas else np.zeros(0, dtype=matrix.dtype)
    index = np.concatenate(indices).astype(np.int32, copy=False) if indices else indptr[:0]
    return sparse.csr_matrix((data, index, indptr), shape=(len(size), width))


def _neighbours_redone(
    model: RelatedModel,
    vectors: sparse.csr_matrix,
    posting_col: Ints,
    kept: Ints,
    new_of_old: Ints,
    redone: Ints,
    check: Callable[[], None] | None,
    bonus: Callable[[Ints, Ints], Floats],
    rerank: Ints,
) -> RelatedModel:
    """The model's candidates, reaches and neighbours for ``vectors`` (rows renumbered by
    ``new_of_old``, the ``redone`` rows new), redoing only the rows that can differ (and
    ranking the ``rerank`` rows again, whose bonuses may have)."""
    total = vectors.shape[0]
    settings = model.settings
    wide = model.cand_rows.shape[1]
    added = total - len(kept)
    renumber = len(kept) < len(model.notes)
    if renumber:
        cand_rows = _renumbered(model.cand_rows[kept], new_of_old, added)
        lost = ((model.cand_rows[kept] >= 0) & (cand_rows[: len(kept)] < 0)).any(axis=1)
    else:
        cand_rows = _renumbered(model.cand_rows, None, added)
    cand_cos = np.concatenate([model.cand_cos[kept], np.zeros((added, wide), np.float32)])
    is_redone = np.zeros(total, dtype=bool)
    is_redone[redone] = True
    full = is_redone | _holds(cand_rows, is_redone)
    if renumber:
        full[: len(kept)] |= lost
    again = np.flatnonzero(full).astype(np.int32)
    if check is not None:
        check()
    block = _cosines(vectors[again], vectors, model.postings, posting_col)
    merge_cos = block[np.searchsorted(again, redone)].T
    cand_rows[again], cand_cos[again] = top_of(block, again, wide)
    merged = _merge(cand_rows, cand_cos, merge_cos, redone, full)
    moved = full | merged
    reaches = np.concatenate([model.reach[kept], np.full(added, np.nan)])
    fresh_reach = reach(cand_cos[moved], settings.k)
    reach_moved = np.zeros(total, dtype=bool)
    reach_moved[moved] = fresh_reach != reaches[moved]
    reaches[moved] = fresh_reach
    ranked = moved | _holds(cand_rows, reach_moved)
    ranked[rerank] = True
    rows = _renumbered(model.rows[kept], new_of_old if renumber else None, added).astype(np.int64)
    scores = np.concatenate([model.scores[kept], np.zeros((added, model.scores.shape[1]))])
    rows[ranked], scores[ranked] = rank(
        cand_rows[ranked],
        cand_cos[ranked],
        reaches,
        settings.k,
        settings.threshold,
        settings.hub_penalty,
        bonus(np.flatnonzero(ranked).astype(np.int32), cand_rows[ranked]),
    )
    return replace(
        model,
        vectors=vectors,
        rows=rows,
        scores=scores,
        cand_rows=cand_rows,
        cand_cos=cand_cos,
        reach=reaches,
    )


def _cosines(
    rows: sparse.csr_matrix, vectors: sparse.csr_matrix, postings: sparse.csr_matrix, col: Ints
) -> Cosines:
    """The cosine of each of ``rows`` with every note: through the postings for the notes
    unchanged since they were made (``col`` ≥ 0), directly for the others. Each way adds a
    pair's terms in the order of the row's columns, as a full build does: the same bits."""
    block = np.zeros((rows.shape[0], vectors.shape[0]), dtype=np.float32)
    live = np.flatnonzero(col >= 0)
    block[:, live] = (rows @ postings).toarray()[:, col[live]]
    stale = np.flatnonzero(col < 0)
    if len(stale):
        block[:, stale] = (rows @ vectors[stale].T).toarray()
    return block


def _renumbered(table: npt.NDArray[np.integer], new_of_old: Ints | None, added: int) -> Ints:
    """Rows of note numbers in the new numbering (a removed note as -1; None: numbers kept),
    ``added`` rows of -1 appended."""
    out = (
        table if new_of_old is None else np.where(table >= 0, new_of_old[np.maximum(table, 0)], -1)
    )
    return np.concatenate([out, np.full((added, table.shape[1]), -1)]).astype(np.int32)


def _holds(cand_rows: Ints, marked: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The rows whose candidates include a marked note."""
    hit = (cand_rows >= 0) & marked[np.maximum(cand_rows, 0)]
    return np.asarray(hit.any(axis=1), dtype=np.bool_)


def _merge(
    cand_rows: Ints, cand_cos: Cosines, cos: Cosines, redone: Ints, full: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Rows not redone whole (``full``) that take a redone note (cosines ``cos``, a column
    per note of ``redone``) among their candidates: merged in place, in the canonical order
    (cosine descending, note ascending). Their other candidates did not change, so the
    best of the old list and the redone notes is the best of all."""
    wide = cand_rows.shape[1]
    last_row, last_cos = cand_rows[:, -1:], cand_cos[:, -1:]
    beats = (cos > 0) & (
        (last_row < 0) | (cos > last_cos) | ((cos == last_cos) & (redone[None, :] < last_row))
    )
    merged = np.asarray(beats.any(axis=1) & ~full, dtype=np.bool_)
    rows = np.flatnonzero(merged)
    if len(rows) == 0:
        return merged
    both_rows = np.concatenate(
        [cand_rows[rows], np.broadcast_to(redone, (len(rows), len(redone)))], axis=1
    )
    both_cos = np.concatenate([cand_cos[rows], cos[rows]], axis=1)
    valid = (both_rows >= 0) & (both_cos > 0)
    order = np.lexsort(
        (np.where(valid, both_rows, np.iinfo(np.int32).max), np.where(valid, -both_cos, np.inf)),
        axis=1,
    )[:, :wide]
    keep = np.take_along_axis(valid, order, axis=1)
    cand_rows[rows] = np.where(keep, np.take_along_axis(both_rows, order, axis=1), -1)
    cand_cos[rows] = np.where(keep, np.take_along_axis(both_cos, order, axis=1), 0.0)
    return merged
