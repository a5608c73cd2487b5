"""Thin spots on a vault whose related notes, links and concepts are known by hand."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.insight.thin_spots import thin_spots
from tests.related_vault import (
    HIGH_THRESHOLD,
    ISOLATED,
    LONELY,
    ORPHANS,
    TOPIC_PAIRS,
    build_related,
    write_related_vault,
)


def test_the_three_groups_hold_exactly_the_thin_spots(tmp_path: Path) -> None:
    write_related_vault(tmp_path)
    index, related = build_related(tmp_path)
    spots = thin_spots(index, related, 0.10)
    assert spots.unrelated == (LONELY,)  # like no other note, whatever the threshold
    assert spots.orphans == tuple(sorted(ORPHANS))
    assert {c.id: len(c.notes) for c in spots.isolated} == ISOLATED
    assert [c.id for c in spots.isolated] == ["kubernetes", "heron", "sourdough"]  # least first
    assert spots.threshold == 0.10 and spots.max_notes == 2


def test_above_every_score_every_note_but_the_index_note_is_unrelated(tmp_path: Path) -> None:
    write_related_vault(tmp_path)
    index, related = build_related(tmp_path)
    assert set(thin_spots(index, related, 1.01).unrelated or ()) == set(index.notes)
    topical = {rel for pair in TOPIC_PAIRS for rel in pair}
    assert set(thin_spots(index, related, HIGH_THRESHOLD).unrelated or ()) == (
        set(index.notes) - topical
    )


def test_before_the_related_notes_are_found_that_group_is_unknown(tmp_path: Path) -> None:
    write_related_vault(tmp_path)
    index, _related = build_related(tmp_path)
    spots = thin_spots(index, None, 0.10)
    assert spots.unrelated is None
    assert spots.orphans == tuple(sorted(ORPHANS))
