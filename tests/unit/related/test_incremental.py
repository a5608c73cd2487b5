"""An update equals a full build: after random edits, additions and removals (hypothesis),
``update_related`` gives exactly what ``build_related`` gives for the new texts with the
model's template lines and, until the vocabulary has drifted, its terms and idf."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.related import neighbours
from librarian_gui.core.related.incremental import DRIFT_SHARE, update_related
from librarian_gui.core.related.model import RelatedModel, build_related

WORDS = ["apple", "river", "stone", "cloud", "maple", "engine", "violin", "harbor", "quartz"]
# Plurals of three of them: weighed as their singulars, whichever build first met them.
WORDS += ["rivers", "stones", "apples"]
# Two runs of five words: notes holding one share a passage, unless more than five do
# (boilerplate), which edits cross both ways.
PASSAGES = ["apple river stone cloud maple", "engine violin harbor quartz rivers"]
TEXT = st.lists(st.sampled_from(WORDS + PASSAGES), max_size=10).map(" ".join)
CONCEPTS = st.lists(st.sampled_from(["rag", "ml"]), max_size=2, unique=True)
K = 2  # six candidates each: a vault of a dozen notes fills the lists and cuts them
# Notes named by the words the texts use (their titles are mentioned), two names alike;
# three named by two of them (mentioned where the texts put them in a row).
NAMES = ["river stone.md", "d/apple-cloud.md", "pages/violin___harbor.md"]
NAMES += [f"{word}.md" for word in WORDS] + [f"d/{word}.md" for word in WORDS[:7]]
# One step: a note (of the 22 names) and its new text and concepts, or None to remove it.
STEP = st.tuples(st.integers(0, len(NAMES) - 1), st.none() | st.tuples(TEXT, CONCEPTS))


def assert_same(update: RelatedModel, build: RelatedModel) -> None:
    assert update.notes == build.notes
    assert update.terms == build.terms
    assert np.array_equal(update.idf, build.idf)
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(update.vectors, name), getattr(build.vectors, name))
        assert np.array_equal(getattr(update.named, name), getattr(build.named, name))
    for name in ("cand_rows", "cand_cos", "reach", "rows", "scores"):
        assert np.array_equal(getattr(update, name), getattr(build, name)), name
    for name in ("passage_keys", "passage_owner", "shared", "shared_support"):
        assert np.array_equal(getattr(update, name), getattr(build, name)), name
    assert [word_counts(update, i) for i in range(len(update.notes))] == [
        word_counts(build, i) for i in range(len(build.notes))
    ]


def word_counts(model: RelatedModel, row: int) -> dict[str, int]:
    start, end = model.counts.indptr[row], model.counts.indptr[row + 1]
    return {
        model.words[w]: int(c)
        for w, c in zip(model.counts.indices[start:end], model.counts.data[start:end], strict=True)
    }


@pytest.mark.parametrize("drift_share", [DRIFT_SHARE, 100.0])  # 100: never built again
@settings(max_examples=150)
@given(
    st.lists(st.tuples(TEXT, CONCEPTS), min_size=1, max_size=16),
    st.lists(st.lists(STEP, min_size=1, max_size=3), max_size=4),
)
def test_an_update_equals_a_full_build(
    drift_share: float,
    start: list[tuple[str, list[str]]],
    batches: list[list[tuple[int, object]]],
) -> None:
    texts = {NAMES[i]: text for i, (text, _) in enumerate(start)}
    concepts = {NAMES[i]: ids for i, (_, ids) in enumerate(start)}
    model = build_related(texts, concepts=concepts, k=K)
    frozen = {
        "templates": model.templates,
        "titles": model.titles,
        "max_terms": model.settings.max_terms,
    }
    for batch in batches:
        changed: dict[str, str | None] = {}
        changed_concepts: dict[str, list[str]] = {}
        for number, step in batch:  # a note's last step in the batch is what is sent
            rel = NAMES[number]
            changed[rel] = None if step is None else step[0]  # type: ignore[index]
            changed_concepts[rel] = [] if step is None else step[1]  # type: ignore[index]
        for rel, text in changed.items():  # an edited note keeps its place, a new one last
            if text is None:
                texts.pop(rel, None)
                concepts.pop(rel, None)
            else:
                texts[rel] = text
                concepts[rel] = changed_concepts[rel]
        before = model
        model = update_related(model, changed, concepts=changed_concepts, drift_share=drift_share)
        if model is before:  # only notes it never had, removed
            assert tuple(texts) == model.notes
            continue
        if model.changes == 0:  # the vocabulary had drifted: built again from the counts
            assert before.changes + len(changed) > drift_share * before.built_notes
            expected = build_related(texts, concepts=concepts, k=K, **frozen)
        else:
            basis = (model.terms, model.idf)
            expected = build_related(texts, concepts=concepts, k=K, basis=basis, **frozen)
        assert_same(model, expected)


def test_an_edit_below_the_drift_share_keeps_the_vocabulary() -> None:
    """Forty notes, one edited: 1 change ≤ 10 % of 40, no rebuild; the edit's new word
    ("quartz") is in no term list, and its neighbours are those of the frozen build."""
    texts = {f"n{i:02}.md": f"{WORDS[i % 4]} {WORDS[(i + 1) % 4]} filler{i}" for i in range(40)}
    model = build_related(texts, k=3)
    edited = update_related(model, {"n00.md": "quartz quartz apple"})
    assert edited.changes == 1 and edited.built_notes == 40
    assert edited.terms == model.terms and "quartz" not in edited.terms
    assert "quartz" in edited.words
    # n00 now holds only "apple" of the vocabulary: its neighbours are the notes with apple.
    apple = {rel for rel, text in texts.items() if "apple" in text.split() and rel != "n00.md"}
    assert {rel for rel, _ in edited.neighbours("n00.md")} <= apple
    assert len(edited.neighbours("n00.md")) == 3


def test_five_changes_of_forty_build_again() -> None:
    texts = {f"n{i:02}.md": f"{WORDS[i % 4]} {WORDS[(i + 1) % 4]}" for i in range(40)}
    model = build_related(texts, k=3)
    for i in range(4):  # 4 changes: 10 % of 40, not beyond
        model = update_related(model, {f"n{i:02}.md": "quartz violin"})
    assert model.changes == 4
    assert "quartz" not in model.terms
    model = update_related(model, {"n04.md": "quartz violin"})
    assert model.changes == 0 and model.built_notes == 40
    assert "quartz" in model.terms  # in 5 notes now: a term of the new vocabulary


# A vault wide enough for the candidates' sampled bound (its blocks cut down before they
# are sorted), made so by a sample of 8 columns: an update must still equal a build, with
# every bound let through (SAMPLE_PASS 1) or the usual share.
WIDE_NAMES = [f"w{i:02}.md" for i in range(60)]
WIDE_STEP = st.tuples(st.integers(0, 59), st.none() | st.tuples(TEXT, CONCEPTS))


@pytest.mark.parametrize("sample_pass", [1.0, neighbours.SAMPLE_PASS])
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(TEXT, CONCEPTS), min_size=33, max_size=60),
    st.lists(st.lists(WIDE_STEP, min_size=1, max_size=3), max_size=3),
)
def test_an_update_equals_a_full_build_with_sampled_bounds(
    sample_pass: float,
    start: list[tuple[str, list[str]]],
    batches: list[list[tuple[int, object]]],
) -> None:
    saved = neighbours.SAMPLE, neighbours.SAMPLE_PASS
    neighbours.SAMPLE, neighbours.SAMPLE_PASS = 8, sample_pass
    try:
        texts = {WIDE_NAMES[i]: text for i, (text, _) in enumerate(start)}
        concepts = {WIDE_NAMES[i]: ids for i, (_, ids) in enumerate(start)}
        model = build_related(texts, concepts=concepts, k=K)
        frozen = {
            "templates": model.templates,
            "titles": model.titles,
            "max_terms": model.settings.max_terms,
        }
        for batch in batches:
            changed: dict[str, str | None] = {}
            changed_concepts: dict[str, list[str]] = {}
            for number, step in batch:
                rel = WIDE_NAMES[number]
                changed[rel] = None if step is None else step[0]  # type: ignore[index]
                changed_concepts[rel] = [] if step is None else step[1]  # type: ignore[index]
            for rel, text in changed.items():
                if text is None:
                    texts.pop(rel, None)
                    concepts.pop(rel, None)
                else:
                    texts[rel] = text
                    concepts[rel] = changed_concepts[rel]
            model = update_related(model, changed, concepts=changed_concepts, drift_share=100.0)
            basis = (model.terms, model.idf)
            expected = build_related(texts, concepts=concepts, k=K, basis=basis, **frozen)
            assert_same(model, expected)
    finally:
        neighbours.SAMPLE, neighbours.SAMPLE_PASS = saved
