"""A note's related notes explained all at once (``related --all`` explains 100,000 pairs at
10,000 notes) say what each pair, looked at alone over the whole arrays, says: the pairs of
a note, the terms two notes share by the product of their weights, and whether they share
a passage. The expected values are worked out here by the plain loops the batch replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.related.model import TITLE_PREFIX, RelatedModel, build_related
from librarian_gui.core.related.vault import RelatedIndex

WORDS = [
    "heron",
    "egret",
    "reed",
    "marsh",
    "kettle",
    "oven",
    "flour",
    "starter",
    "levain",
    "dough",
    "crust",
    "proof",
    "pawn",
    "knight",
    "bishop",
    "castle",
    "tomato",
    "compost",
    "fence",
    "stake",
    "cluster",
    "pod",
    "helm",
    "probe",
    "refund",
    "receipt",
]
# Five words in a row two notes can share (a passage), and a name one note can give another.
PASSAGE = "the quiet heron stalked reeds at dawn near the marsh"


def _notes(draw: st.DrawFn) -> dict[str, str]:
    count = draw(st.integers(min_value=3, max_value=9))
    names = WORDS[::3][:count]  # a note named by one word has that word as a title term
    notes = {}
    for name in names:
        words = draw(st.lists(st.sampled_from(WORDS), min_size=4, max_size=30))
        text = " ".join(words)
        if draw(st.booleans()):
            text += ". " + PASSAGE
        if draw(st.booleans()):
            text += f". See {draw(st.sampled_from(names))}"
        notes[f"{name}.md"] = text
    return notes


vaults = st.composite(_notes)


def _pairs_alone(related: RelatedIndex, rel: str, least: float) -> list[tuple[str, float, bool]]:
    row = related.model.row_of[rel]
    out = []
    for a, b, score, linked in zip(
        related.a.tolist(),
        related.b.tolist(),
        related.scores.tolist(),
        related.linked.tolist(),
        strict=True,
    ):
        if row in (a, b) and score >= least and score > 0:
            out.append((related.model.notes[b if a == row else a], score, linked))
    return sorted(out, key=lambda f: (f[2], -f[1], f[0]))


def _weights(model: RelatedModel, row: int) -> dict[int, float]:
    start, end = model.vectors.indptr[row], model.vectors.indptr[row + 1]
    return dict(
        zip(
            model.vectors.indices[start:end].tolist(),
            model.vectors.data[start:end].tolist(),
            strict=True,
        )
    )


def _shared_alone(model: RelatedModel, a: str, b: str, count: int) -> list[str]:
    mine, theirs = _weights(model, model.row_of[a]), _weights(model, model.row_of[b])
    both = [t for t in mine.keys() & theirs.keys() if not model.terms[t].startswith(TITLE_PREFIX)]
    both.sort(key=lambda t: (-mine[t] * theirs[t], t))
    return [model.terms[t] for t in both[:count]]


@settings(max_examples=60, deadline=None)
@given(vaults(), st.sampled_from([0.0, 0.05, 0.2]), st.integers(min_value=1, max_value=6))
def test_each_notes_pairs_and_explanations_are_those_of_each_pair_alone(
    notes: dict[str, str], least: float, count: int
) -> None:
    model = build_related(notes, second_process=False, passages=True)
    related = RelatedIndex.of_model(model)
    shared = set(model.shared.tolist())
    # Asked three times over: a note's pairs are found by a pass over all the pairs at
    # first, then through the pairs grouped by note (``GROUP_AFTER`` asks later).
    for rel in [*notes] * 3:
        found = related._ranked(rel, least)
        assert found == _pairs_alone(related, rel, least)
        others = [name for name, _, _ in related._ranked(rel, 0.0)] + ["no such note.md"]
        assert model.shared_terms_of(rel, others, count) == [
            *[_shared_alone(model, rel, b, count) for b in others[:-1]],
            [],
        ]
        row = model.row_of[rel]
        assert model.shares_passages(rel, others) == [
            *[((row << 32) | model.row_of[b]) in shared for b in others[:-1]],
            False,
        ]
        assert model.shares_passages(rel, [rel]) == [False]
