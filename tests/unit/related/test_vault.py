"""Related notes of a vault on disk: edges both ways, explained, linked or not, the
threshold applied, the cache reused until a note changes, and ``librarian related``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.cached import _files, load_cached, vault_related
from librarian_gui.core.related.incremental import update_related
from librarian_gui.core.related.vault import concepts_by_note, related_index
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
    index = index.snapshot()
    assert concepts_by_note(index) == {"a.md": ("rag",), "b.md": ("rag",)}
    related = related_index(index, _reader(vault))
    (found,) = related.related("a.md", 0.0)
    assert (found.note, found.concepts, found.terms) == ("b.md", ("rag",), ())


class Reader:
    """Reads notes from disk and remembers which."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.read: list[str] = []

    def __call__(self, rel: str) -> str | None:
        self.read.append(rel)
        return read_note(self.root, rel).text


def _scan(root: Path) -> VaultIndex:
    return VaultIndex.scan(root, use_cache=False)


def test_a_second_pass_reads_only_what_changed_and_equals_an_update(topics: Path) -> None:
    first = vault_related(_scan(topics), Reader(topics), use_cache=False)
    reader = Reader(topics)
    again = vault_related(_scan(topics), reader, previous=first, use_cache=False)
    assert reader.read == [] and again.model is first.model
    write(topics, "bread/loaf.md", "Now about something else entirely: sailing boats.", age=5)
    write(topics, "sail/harbour.md", "Sailing boats in the harbour, sails and a mast.", age=5)
    (topics / "money/receipts.md").unlink()
    reader = Reader(topics)
    updated = vault_related(_scan(topics), reader, previous=first, use_cache=False)
    assert sorted(reader.read) == ["bread/loaf.md", "sail/harbour.md"]
    expected = update_related(
        first.model,
        {
            "bread/loaf.md": read_note(topics, "bread/loaf.md").text,
            "sail/harbour.md": read_note(topics, "sail/harbour.md").text,
            "money/receipts.md": None,
        },
    )
    assert updated.model.notes == expected.notes
    assert (updated.model.rows == expected.rows).all()
    assert (updated.model.scores == expected.scores).all()
    assert "money/receipts.md" not in updated.notes
    assert "bread/loaf.md" not in {r.note for r in updated.related("bread/starter.md", 0.1)}
    assert "sail/harbour.md" in {r.note for r in updated.related("bread/loaf.md", 0.0)}


def test_a_restart_reads_only_the_notes_changed_since_the_cache(topics: Path) -> None:
    first = vault_related(_scan(topics), Reader(topics))
    reader = Reader(topics)
    again = vault_related(_scan(topics), reader)  # another process: from the cache
    assert reader.read == []
    assert again.pairs == first.pairs
    path = write(topics, "bread/loaf.md", "Now about something else entirely: sailing.", age=5)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    reader = Reader(topics)
    rebuilt = vault_related(_scan(topics), reader)
    assert reader.read == ["bread/loaf.md"]
    assert "bread/loaf.md" not in {r.note for r in rebuilt.related("bread/starter.md", 0.1)}
    reader = Reader(topics)
    vault_related(_scan(topics), reader)  # and that update was cached in turn
    assert reader.read == []


def test_a_damaged_cache_is_rebuilt(topics: Path) -> None:
    index = _scan(topics)
    vault_related(index, Reader(topics))
    model_path, stamps_path = _files(topics)
    assert load_cached(topics) is not None
    stamps_path.write_text("{not json", encoding="utf-8")
    assert load_cached(topics) is None
    vault_related(index, Reader(topics))
    model_path.write_bytes(b"PK\x03\x04 not a zip at all")
    assert load_cached(topics) is None
    reader = Reader(topics)
    assert vault_related(index, reader).related("ops/rollout.md", THRESHOLD)
    assert sorted(reader.read) == sorted(NOTES)


def test_cli_related_json(topics: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["related", str(topics), "blitz", "--json", "--no-cache", "--k", "2"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["note"] == "chess/blitz.md"
    assert len(data["related"]) <= 2
    best = next(r for r in data["related"] if r["note"] == "chess/sicilian.md")
    assert best["linked"] is True
    assert set(best) == {
        "note",
        "score",
        "terms",
        "concepts",
        "linked",
        "passage",
        "below_threshold",
    }
    assert "sicilian" in best["terms"] or "knight" in best["terms"]


def test_cli_related_says_which_notes_share_a_passage(
    topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (topics / "feeding.md").write_text(
        "Feed the starter with rye flour every morning, then wait.\n", encoding="utf-8"
    )
    (topics / "routine.md").write_text(
        "My routine: feed the starter with rye flour every morning.\n", encoding="utf-8"
    )
    code = main(["related", str(topics), "routine", "--json", "--no-cache", "--threshold", "0"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    shared = {r["note"]: r["passage"] for r in data["related"]}
    assert shared["feeding.md"] is True
    assert not any(v for note, v in shared.items() if note != "feeding.md")
    main(["related", str(topics), "routine", "--no-cache", "--threshold", "0"])
    assert "a passage in common" in capsys.readouterr().out


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


def test_cli_related_says_the_index_note_is_not_compared(
    topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(topics, "MEMORY.md", "- [[loaf]]\n- [[starter]]\n")
    assert main(["related", str(topics), "MEMORY", "--no-cache"]) == 0
    assert capsys.readouterr().out == (
        "related to MEMORY.md:\n  not compared: the index note points at every note\n"
    )


# Every word below is in exactly two notes, so every term has the same idf and a vector's
# weights are its 1 + ln(tf), normalised. a: four words once, 1/2 each. b: two of them,
# 1/√2 each: cos(a, b) = 2 · 1/2 · 1/√2 = 0.7071. c: "marble" once (1) and "pepper" 20 times
# (1 + ln 20 = 3.9957): cos(a, c) = 1/2 · 1 / √(1 + 3.9957²) = 0.1214. d: "lantern" once,
# "ginger" 50 times (1 + ln 50 = 4.9120): cos(a, d) = 1/2 / √(1 + 4.9120²) = 0.0997. e and f
# share no word with a: cos 0. So at the threshold 0.15 only b is shown; c and d are weaker.
SLOTS = {
    "a.md": "heron quill marble lantern",
    "b.md": "heron quill",
    "c.md": "marble " + "pepper " * 20,
    "d.md": "lantern " + "ginger " * 50,
    "e.md": "walrus",
    "f.md": "pepper ginger walrus",
}


@pytest.fixture
def slots(vault: Path) -> Path:
    for rel, text in SLOTS.items():
        write(vault, rel, text + "\n", age=5)
    return vault


def test_top_fills_k_slots_with_weaker_notes_marked(slots: Path) -> None:
    related = related_index(VaultIndex.scan(slots, use_cache=False), _reader(slots))
    found = [(r.note, round(r.score, 4), r.below_threshold) for r in related.top("a.md", 3)]
    assert found == [("b.md", 0.7071, False), ("c.md", 0.1214, True), ("d.md", 0.0997, True)]
    # Only notes scoring above 0: e and f never fill a slot.
    assert [r.note for r in related.top("a.md", 10)] == ["b.md", "c.md", "d.md"]
    assert [r.note for r in related.top("a.md", 2)] == ["b.md", "c.md"]
    # At or above the threshold, nothing is marked; the view's list is unchanged.
    assert [(r.note, r.below_threshold) for r in related.top("a.md", 3, 0.1)] == [
        ("b.md", False),
        ("c.md", False),
        ("d.md", True),
    ]
    assert [r.note for r in related.related("a.md")] == ["b.md"]
    assert related.top("a.md", 3)[1].terms == ("marble",)


def test_cli_related_returns_k_notes_marking_the_weaker(
    slots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["related", str(slots), "a", "--json", "--no-cache", "--k", "3"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(r["note"], r["score"], r["below_threshold"]) for r in data["related"]] == [
        ("b.md", 0.7071, False),
        ("c.md", 0.1214, True),
        ("d.md", 0.0997, True),
    ]
    assert main(["related", str(slots), "a", "--no-cache", "--k", "3"]) == 0
    assert capsys.readouterr().out == (
        "related to a.md:\n"
        "  0.71  b.md  (not linked: heron, quill)\n"
        "  0.12  c.md  (weaker, below 0.15; not linked: marble)\n"
        "  0.10  d.md  (weaker, below 0.15; not linked: lantern)\n"
    )
    main(["related", str(slots), "--all", "--json", "--no-cache", "--k", "3"])
    rows = {item["note"]: item["related"] for item in json.loads(capsys.readouterr().out)}
    assert [(r["note"], r["below_threshold"]) for r in rows["e.md"]] == [("f.md", False)]
    assert len(rows["f.md"]) == 3


# SLOTS with "cobalt" added to a (five words: 1/√5 each) and g, h: g holds "cobalt" once and
# "otter" 19 times (1 + ln 19 = 3.9444), h "otter" once. cos(a, b) = 2 / (√5 · √2) = 0.6325;
# cos(a, c) = (1/√5) / √(1 + 3.9957²) = 0.1086; cos(a, g) = (1/√5) / √(1 + 3.9444²) = 0.1099,
# the higher of the two; but g is close to h (3.9444 / 4.0692 = 0.9693), so its reach (the mean
# of its 10 best cosines) is (0.9693 + 0.1099) / 10 = 0.1079, c's (f: 0.5601) 0.0669, and
# the model ranks c above g: 0.1086 - 0.1 · 0.0669 = 0.1019 > 0.1099 - 0.1 · 0.1079 = 0.0991.
RANKED = {
    **SLOTS,
    "a.md": SLOTS["a.md"] + " cobalt",
    "g.md": "cobalt " + "otter " * 19,
    "h.md": "otter",
}


def test_the_slots_are_filled_in_the_models_order_not_by_cosine(vault: Path) -> None:
    for rel, text in RANKED.items():
        write(vault, rel, text + "\n", age=5)
    related = related_index(VaultIndex.scan(vault, use_cache=False), _reader(vault))
    found = [(r.note, round(r.score, 4), r.below_threshold) for r in related.top("a.md", 2)]
    assert found == [("b.md", 0.6325, False), ("c.md", 0.1086, True)]
    # Listed weaker ones by score, as the threshold's own are.
    assert [r.note for r in related.top("a.md", 4)] == ["b.md", "g.md", "c.md", "d.md"]


def test_a_note_dated_in_the_future_does_not_stop_the_cache(topics: Path) -> None:
    """One note whose mtime is ahead of the clock (synced from another machine) kept the
    related-notes cache from ever being saved: every start rebuilt the model (a 50,000-note
    generated vault has 644 such diaries). Only a note changed within the last second
    holds a save back."""
    import time

    future = time.time_ns() + 365 * 86_400 * 1_000_000_000
    os.utime(topics / "bread/loaf.md", ns=(future, future))
    vault_related(_scan(topics), Reader(topics))
    assert load_cached(topics) is not None
    reader = Reader(topics)
    vault_related(_scan(topics), reader)
    assert reader.read == []
    from librarian_gui.core.index.cache import changed_too_recently

    now = 10_000_000_000  # by hand, around a clock at 10 s: the grace is one second
    assert changed_too_recently([now - 500_000_000], now)  # half a second ago
    assert changed_too_recently([now + 500_000_000], now)  # a tick ahead: still racy
    assert not changed_too_recently([now - 2_000_000_000], now)  # settled
    assert not changed_too_recently([now + 400 * 86_400 * 10**9], now)  # a clock ahead
