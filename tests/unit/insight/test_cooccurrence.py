"""Co-occurrence of concepts: a concept's note counts as the concept, the index note is left
out unless asked for; counts, Jaccard and lift worked out by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import concept_note
from librarian_gui.core.index.summaries import concept_links
from librarian_gui.core.insight.cooccurrence import (
    all_pairs,
    cooccurring,
    counted_notes,
    found_in,
    pair_table,
)
from librarian_gui.core.tagging.run import concept_usage
from librarian_gui.resources import bundled_demo_vault
from tests.conftest import write

DICTIONARY = {
    "alpha": {"aliases": ["Alpha"]},
    "beta": {"aliases": ["B-thing"]},
    "gamma": {"aliases": []},
    "delta": {"aliases": ["Delta Note"]},
}


@pytest.fixture
def concept_vault(vault: Path) -> Path:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "MEMORY.md", "[[alpha]] [[beta]] [[gamma]] [[delta]]\n")  # the index note
    write(vault, "alpha.md", "The note of alpha (its title is the id); see [[beta]].\n")
    write(vault, "Delta Note.md", "The note of delta, by its alias.\n")
    write(vault, "n1.md", "[[alpha]] and [[beta]]\n")  # [[alpha]] leads to alpha.md
    write(vault, "n2.md", "[[alpha]] and [[gamma]]\n")
    write(vault, "n3.md", "[[beta]] and [[gamma]]\n")
    write(vault, "n4.md", "[[Delta Note]] and [[beta]]\n")
    write(vault, "n5.md", "no links\n")
    return vault


# Found in (index note left out; a concept's own note is not one of its notes):
#   alpha {n1, n2}   beta {alpha.md, n1, n3, n4}   gamma {n2, n3}   delta {n4}
# 7 notes counted (8 less MEMORY.md). Lift = 7 × shared / (|a| × |b|).
#   alpha+gamma: 1 shared, union 3, lift 7/4 = 1.75
#   beta+delta:  1 shared, union 4, lift 7/4 = 1.75
#   alpha+beta:  1 shared, union 5, lift 7/8 = 0.875
#   beta+gamma:  1 shared, union 5, lift 7/8 = 0.875


def test_a_concepts_note_is_found_by_its_id_or_an_alias(concept_vault: Path) -> None:
    index = VaultIndex.scan(concept_vault, use_cache=False)
    notes = {c.id: concept_note(index, c) for c in index.concepts.concepts}
    assert notes == {"alpha": "alpha.md", "beta": None, "gamma": None, "delta": "Delta Note.md"}


def test_links_to_a_concepts_note_count_as_links_to_the_concept(concept_vault: Path) -> None:
    index = VaultIndex.scan(concept_vault, use_cache=False)
    assert found_in(index) == {
        "alpha": frozenset({"n1.md", "n2.md"}),
        "beta": frozenset({"alpha.md", "n1.md", "n3.md", "n4.md"}),
        "gamma": frozenset({"n2.md", "n3.md"}),
        "delta": frozenset({"n4.md"}),
    }
    assert counted_notes(index) == 7
    with_index = found_in(index, include_index=True)
    assert all("MEMORY.md" in notes for notes in with_index.values())
    assert counted_notes(index, include_index=True) == 8


def test_pairs_have_count_jaccard_and_lift(concept_vault: Path) -> None:
    index = VaultIndex.scan(concept_vault, use_cache=False)
    found = found_in(index)
    rows = [
        (p.b, p.count, round(p.jaccard, 4), p.lift, p.notes) for p in cooccurring(found, "alpha", 7)
    ]
    assert rows == [("gamma", 1, 0.3333, 1.75, ("n2.md",)), ("beta", 1, 0.2, 0.875, ("n1.md",))]
    every = [(p.a, p.b, p.count, p.jaccard, p.lift) for p in all_pairs(found, 7)]
    assert every == [
        ("alpha", "gamma", 1, 1 / 3, 1.75),
        ("beta", "delta", 1, 0.25, 1.75),
        ("alpha", "beta", 1, 0.2, 0.875),
        ("beta", "gamma", 1, 0.2, 0.875),
    ]
    assert len(all_pairs(found, 7, min_count=2)) == 0


def test_the_command_line_prints_them(
    concept_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cooccur", str(concept_vault), "beta", "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["concept"] == "beta" and data["found_in"] == 4
    assert [(r["concept"], r["count"], r["lift"]) for r in data["with"]] == [
        ("delta", 1, 1.75),
        ("alpha", 1, 0.875),
        ("gamma", 1, 0.875),
    ]
    # With the index note, which links all four: every pair shares it; 8 notes counted.
    assert main(["cooccur", str(concept_vault), "--all", "--json", "--no-cache",
                 "--include-index", "--min-count", "2"]) == 0  # fmt: skip
    pairs = {(r["a"], r["b"]): (r["count"], r["lift"]) for r in json.loads(capsys.readouterr().out)}
    # alpha {n1,n2,M} beta {alpha.md,n1,n3,n4,M} gamma {n2,n3,M} delta {n4,M}
    assert pairs == {
        ("alpha", "gamma"): (2, round(8 * 2 / 9, 4)),
        ("alpha", "beta"): (2, round(8 * 2 / 15, 4)),
        ("beta", "gamma"): (2, round(8 * 2 / 15, 4)),
        ("beta", "delta"): (2, round(8 * 2 / 10, 4)),
    }
    assert main(["cooccur", str(concept_vault), "omega", "--no-cache"]) == 4
    assert "'omega': no such concept in the dictionary" in capsys.readouterr().err
    assert main(["cooccur", str(concept_vault), "--no-cache"]) == 2


def test_on_the_demo_vault_a_concept_with_a_note_is_found_through_it() -> None:
    """Six notes link [[prompt-injection]], which resolves to research/prompt-injection.md
    (grep -rl '\\[\\[prompt-injection' resources/demo-vault); MEMORY.md is the index note."""
    index = VaultIndex.scan(bundled_demo_vault(), use_cache=False)
    found = found_in(index)
    # The editor's and the concepts pane's counts take the index note too: six.
    linked, _ = concept_usage(index, index.concepts.concepts, lambda rel: None)
    assert linked["prompt-injection"] == 6
    rows = {row.id: row.linked for row in concept_links(index)}
    assert rows["prompt-injection"] == 6
    assert found["prompt-injection"] == {
        "decisions/tool-output-quarantine.md",
        "diary/2026-10-01.md",
        "projects/Eval Harness.md",
        "research/Overview.md",
        "research/Retrieval Notes.md",
    }


@pytest.mark.parametrize("include_index", [False, True])
def test_the_table_from_the_index_is_the_table_of_found_in(
    concept_vault: Path, include_index: bool
) -> None:
    """``pair_table`` (straight from the edges, for --all) and ``all_pairs`` over
    ``found_in`` (worked out by hand above) give the same rows, on this vault and the demo."""
    for root in (concept_vault, bundled_demo_vault()):
        index = VaultIndex.scan(root, use_cache=False)
        found = found_in(index, include_index=include_index)
        total = counted_notes(index, include_index=include_index)
        expected = list(all_pairs(found, total).rows())
        assert list(pair_table(index, include_index=include_index).rows()) == expected
        assert expected  # each vault has pairs


def test_found_in_at_most_n_notes_keeps_exactly_those(concept_vault: Path) -> None:
    """As worked out above: alpha 2, beta 4, gamma 2, delta 1 (the index note left out);
    with it, each one more."""
    index = VaultIndex.scan(concept_vault, use_cache=False)
    assert found_in(index, at_most=2) == {
        "alpha": frozenset({"n1.md", "n2.md"}),
        "gamma": frozenset({"n2.md", "n3.md"}),
        "delta": frozenset({"n4.md"}),
    }
    assert set(found_in(index, at_most=1)) == {"delta"}
    assert set(found_in(index, include_index=True, at_most=2)) == {"delta"}
    assert found_in(index, at_most=4) == found_in(index)
