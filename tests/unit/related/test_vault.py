"""Related notes of a vault on disk: edges both ways, explained, linked or not, the
threshold applied, the cache reused until a note changes, and ``librarian related``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.vault import (
    cache_key,
    concepts_by_note,
    load_model,
    model_file,
    related_index,
    vault_related,
)
from librarian_gui.core.vault.files import read_note
from tests.conftest import write

from .test_model import NOTES, RELATED, THRESHOLD

PARTNER = {a: b for a, b in RELATED} | {b: a for a, b in RELATED}


@pytest.fixture
def topics(vault: Path) -> Path:
    for rel, text in NOTES.items():
        write(vault, rel, text + "\n", age=5)
    # The chess pair already links: still related, but listed as linked.
    write(vault, "chess/blitz.md", NOTES["chess/blitz.md"] + "\nSee [[sicilian]].\n", age=5)
    return vault


def _reader(root: Path):  # type: ignore[no-untyped-def]
    return lambda rel: read_note(root, rel).text


def test_every_labelled_pair_is_related_both_ways_and_only_the_linked_one_is_linked(
    topics: Path,
) -> None:
    index = VaultIndex.scan(topics, use_cache=False)
    related = related_index(index, _reader(topics))
    for note, partner in PARTNER.items():
        found = {r.note: r for r in related.related(note, THRESHOLD)}
        assert partner in found, note
        linked = {note, partner} == {"chess/sicilian.md", "chess/blitz.md"}
        assert found[partner].linked is linked
    pairs = {(p.a, p.b) for p in related.pairs_at(THRESHOLD)}
    assert {tuple(sorted(pair)) for pair in RELATED} <= pairs


def test_the_explaining_terms_occur_in_both_notes(topics: Path) -> None:
    index = VaultIndex.scan(topics, use_cache=False)
    related = related_index(index, _reader(topics))
    for a, b in RELATED:
        (found,) = [r for r in related.related(a, THRESHOLD) if r.note == b]
        assert found.terms
        for term in found.terms:
            assert term in NOTES[a].casefold() and term in NOTES[b].casefold(), (a, b, term)


def test_similar_but_not_linked_comes_first(topics: Path) -> None:
    write(topics, "chess/endgame.md", "Endgame drills: king and pawn, knight and bishop, rook.")
    write(
        topics,
        "chess/club.md",
        "[[blitz]]: the club plays the Sicilian; the knight and bishop fight for the centre.",
    )
    index = VaultIndex.scan(topics, use_cache=False)
    related = related_index(index, _reader(topics))
    found = related.related("chess/blitz.md", 0.0)
    states = [r.linked for r in found]
    assert states == sorted(states)  # False (not linked) before True
    assert {r.note for r in found if r.linked} == {"chess/sicilian.md", "chess/club.md"}


def test_a_threshold_above_every_score_leaves_every_note_without_related(topics: Path) -> None:
    index = VaultIndex.scan(topics, use_cache=False)
    related = related_index(index, _reader(topics))
    assert related.pairs_at(1.01) == []
    assert related.without_related(1.01) == sorted(NOTES)
    assert related.without_related(0.0) == []


def test_concepts_found_in_both_notes_explain_the_pair(vault: Path) -> None:
    (vault / "concepts.json").write_text(
        json.dumps({"rag": {"aliases": ["retrieval"], "category": "ml"}}), encoding="utf-8"
    )
    write(vault, "a.md", "Alpha words here about [[rag]].")
    write(vault, "b.md", "Beta other things, [[rag]] again.")
    write(vault, "c.md", "Gamma more of nothing.")
    index = VaultIndex.scan(vault, use_cache=False)
    with index.lock:
        assert concepts_by_note(index) == {"a.md": ("rag",), "b.md": ("rag",)}
    related = related_index(index, _reader(vault))
    (found,) = related.related("a.md", 0.0)
    assert (found.note, found.concepts, found.terms) == ("b.md", ("rag",), ())


def test_the_cache_holds_until_a_note_changes(topics: Path) -> None:
    index = VaultIndex.scan(topics, use_cache=False)
    first = vault_related(index, _reader(topics))
    with index.lock:
        key = cache_key(index, concepts_by_note(index), 10)
    cached = load_model(topics, key)
    assert cached is not None
    assert cached.notes == first.model.notes
    assert (cached.rows == first.model.rows).all() and (cached.scores == first.model.scores).all()
    again = vault_related(index, lambda rel: pytest.fail(f"read {rel} again"))
    assert again.pairs == first.pairs
    path = write(topics, "bread/loaf.md", "Now about something else entirely: sailing.", age=5)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    changed = VaultIndex.scan(topics, use_cache=False)
    with changed.lock:
        assert load_model(topics, cache_key(changed, concepts_by_note(changed), 10)) is None
    rebuilt = vault_related(changed, _reader(topics))
    assert "bread/loaf.md" not in {r.note for r in rebuilt.related("bread/starter.md", 0.1)}


def test_a_damaged_cache_is_rebuilt(topics: Path) -> None:
    index = VaultIndex.scan(topics, use_cache=False)
    vault_related(index, _reader(topics))
    with index.lock:
        key = cache_key(index, concepts_by_note(index), 10)
    model_file(topics).write_bytes(b"PK\x03\x04 not a zip at all")
    assert load_model(topics, key) is None
    assert vault_related(index, _reader(topics)).related("ops/rollout.md", THRESHOLD)


def test_cli_related_json(topics: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["related", str(topics), "blitz", "--json", "--no-cache", "--k", "2"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["note"] == "chess/blitz.md"
    assert len(data["related"]) <= 2
    best = next(r for r in data["related"] if r["note"] == "chess/sicilian.md")
    assert best["linked"] is True
    assert set(best) == {"note", "score", "terms", "concepts", "linked"}
    assert "sicilian" in best["terms"] or "knight" in best["terms"]


def test_cli_related_all_json_lists_every_note(
    topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["related", str(topics), "--all", "--json", "--no-cache", "--threshold", "0.1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [d["note"] for d in data] == sorted(NOTES)
    for item in data:
        assert PARTNER[item["note"]] in {r["note"] for r in item["related"]}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--threshold", "2"], 2),
        (["--k", "0"], 2),
        (["--all"], 2),  # a NOTE and --all
        (["--json"], 0),
    ],
)
def test_cli_related_usage(
    topics: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int
) -> None:
    assert main(["related", str(topics), "blitz", "--no-cache", *args]) == code
    capsys.readouterr()


def test_cli_related_unknown_note_exits_4(topics: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["related", str(topics), "nowhere", "--no-cache"]) == 4
    assert "nowhere" in capsys.readouterr().err


def test_the_index_note_is_left_out(topics: Path) -> None:
    write(topics, "MEMORY.md", "\n".join(f"- {text}" for text in NOTES.values()))
    index = VaultIndex.scan(topics, use_cache=False)
    related = related_index(index, _reader(topics))
    assert "MEMORY.md" not in related.notes
    assert all("MEMORY.md" not in (p.a, p.b) for p in related.pairs)
