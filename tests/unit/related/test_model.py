"""Related notes on a fixture written by hand: six topics, two notes each, in different
words. The labelled pairs and the threshold (0.10) were fixed before any score was seen."""

from __future__ import annotations

import pytest

from librarian_gui.core.related.model import build_related

NOTES = {
    "bread/starter.md": (
        "# Feeding the starter\nMy sourdough starter needs flour and water every morning. "
        "The levain doubles in six hours when the kitchen is warm; a sluggish starter "
        "means the flour is too cold or the feeding ratio too thin."
    ),
    "bread/loaf.md": (
        "Baked a sourdough loaf with a young levain. Long cold proof overnight, then a hot "
        "Dutch oven. The crumb was open, the crust dark; next time more water in the dough "
        "and a longer bulk ferment, since the starter was barely active."
    ),
    "ops/rollout.md": (
        "Rolled out the new deployment to the kubernetes cluster. The pods crashed on a "
        "missing secret until the helm chart mounted it; readiness probes now gate traffic."
    ),
    "ops/incident.md": (
        "Incident: a kubernetes node ran out of memory and evicted pods of the payment "
        "deployment. We raised the memory limits in the helm chart and added probes."
    ),
    "birds/marsh.md": (
        "Birdwatching at the marsh at dawn: a heron stalking the reeds, two egrets, and the "
        "call of a bittern. Binoculars fogged in the cold; the heron flew off at noon."
    ),
    "birds/garden-feeder.md": (
        "The garden feeder drew a woodpecker, blue tits and a robin. Through the binoculars "
        "the woodpecker's red nape was clear; birdwatching from the kitchen window works."
    ),
    "money/tax-return.md": (
        "Filed the tax return: income from the consultancy, deductions for the home office, "
        "and the receipts scanned. The refund should arrive before the deadline next spring."
    ),
    "money/receipts.md": (
        "Keep every receipt for deductions: the accountant wants the home office costs and "
        "consultancy invoices before the tax deadline, or the refund is delayed."
    ),
    "chess/sicilian.md": (
        "Studied the Sicilian defence: after the opening moves the knight and bishop fight "
        "for the centre, and white castles early. The Najdorf line suits my style."
    ),
    "chess/blitz.md": (
        "Blitz games tonight: lost twice in the opening by moving the bishop too soon, won "
        "with the Sicilian when my knight reached the centre. Castle before attacking."
    ),
    "garden/tomatoes.md": (
        "Planted tomatoes along the fence; they need staking, compost and deep watering. "
        "Pinch the side shoots so the tomato plants put their strength into the fruit."
    ),
    "garden/compost.md": (
        "Turned the compost heap: kitchen scraps, leaves and grass clippings. Ready compost "
        "goes to the tomatoes and the beans; watering the heap keeps it working."
    ),
}
RELATED = [
    ("bread/starter.md", "bread/loaf.md"),
    ("ops/rollout.md", "ops/incident.md"),
    ("birds/marsh.md", "birds/garden-feeder.md"),
    ("money/tax-return.md", "money/receipts.md"),
    ("chess/sicilian.md", "chess/blitz.md"),
    ("garden/tomatoes.md", "garden/compost.md"),
]
UNRELATED = [
    ("bread/loaf.md", "ops/incident.md"),
    ("ops/rollout.md", "birds/marsh.md"),
    ("birds/garden-feeder.md", "money/receipts.md"),
    ("money/tax-return.md", "chess/blitz.md"),
    ("chess/sicilian.md", "garden/compost.md"),
    ("garden/tomatoes.md", "bread/starter.md"),
]
THRESHOLD = 0.10


@pytest.fixture(scope="module")
def scores() -> dict[tuple[str, str], float]:
    model = build_related(NOTES, k=3, threshold=THRESHOLD)
    return {(a, b): s for a in NOTES for b, s in model.neighbours(a)}


@pytest.mark.parametrize(("a", "b"), RELATED)
def test_each_related_pair_is_found_both_ways_above_the_threshold(
    scores: dict[tuple[str, str], float], a: str, b: str
) -> None:
    assert scores.get((a, b), 0.0) >= THRESHOLD
    assert scores.get((b, a), 0.0) >= THRESHOLD


@pytest.mark.parametrize(("a", "b"), UNRELATED)
def test_no_unrelated_pair_is_found(scores: dict[tuple[str, str], float], a: str, b: str) -> None:
    assert (a, b) not in scores and (b, a) not in scores


def test_each_notes_best_is_its_partner_and_the_terms_explain_it() -> None:
    model = build_related(NOTES, k=3, threshold=THRESHOLD)
    partner = {a: b for a, b in RELATED} | {b: a for a, b in RELATED}
    for note in NOTES:
        assert model.neighbours(note)[0][0] == partner[note]
    shared = model.shared_terms("ops/rollout.md", "ops/incident.md")
    assert set(shared) <= {"kubernetes", "pods", "deployment", "helm", "chart", "probes"}
    assert "kubernetes" in shared
    text = {rel: NOTES[rel].casefold() for rel in NOTES}
    for a, b in RELATED:  # every explaining term occurs in both notes
        for term in model.shared_terms(a, b):
            assert term in text[a] and term in text[b]


def test_a_template_line_repeated_in_many_notes_makes_no_pair() -> None:
    """Eight notes share only a template's heading: no note is related to another."""
    notes = {
        f"diary/{day}.md": f"## Mood and energy today\n{word} {word}.\n"
        for day, word in enumerate(
            ["apples", "boats", "clouds", "drums", "eels", "forks", "gems", "hats"]
        )
    }
    model = build_related(notes, k=3)
    assert all(model.neighbours(rel) == [] for rel in notes)


def test_concepts_found_in_two_notes_relate_them() -> None:
    notes = {"a.md": "alpha words here", "b.md": "beta other things", "c.md": "gamma more"}
    plain = build_related(notes, k=2)
    assert all(plain.neighbours(rel) == [] for rel in notes)
    boosted = build_related(notes, k=2, concepts={"a.md": ["rag"], "b.md": ["rag"]})
    assert [rel for rel, _ in boosted.neighbours("a.md")] == ["b.md"]
    assert boosted.shared_terms("a.md", "b.md") == ["concept:rag"]
