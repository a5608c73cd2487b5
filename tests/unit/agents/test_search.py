"""agent_search: exact filters on a small vault, and questions on the demo vault whose
answer note was found by reading the notes."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import pytest

from librarian_gui.core.agents.search import UnknownConcept, agent_search
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from tests.conftest import REPO


def _search(root: Path, query: str, **kw: object) -> list[str]:
    index = VaultIndex.scan(root, use_cache=False)
    hits = agent_search(index, lambda rel: read_note(index.root, rel).text, query, **kw)  # type: ignore[arg-type]
    return [h.note for h in hits]


def test_text_match_ranks_and_skips_non_matching(agent_vault: Path) -> None:
    # "cinnamon" is in pie.md only
    assert _search(agent_vault, "cinnamon") == ["pie.md"]
    assert _search(agent_vault, "nothing-like-this") == []


def test_a_word_the_vault_writes_in_another_form_or_misspelled(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("The colleague stayed home.\n", encoding="utf-8")
    (tmp_path / "z.md").write_text("The colleague invited him along.\n", encoding="utf-8")
    (tmp_path / "m.md").write_text("A fundraiser for the shelter.\n", encoding="utf-8")
    # "invite" folds to itself and "invited" to "invit": the vault's form is taken, so
    # z.md comes before a.md, which only shares "colleague" (a tie would go to the path)
    assert _search(tmp_path, "what did the colleague invite him to") == ["z.md", "a.md"]
    assert _search(tmp_path, "the funraiser") == ["m.md"]  # a letter left out


def test_tag_filter_takes_nested_tags_not_prefixes(agent_vault: Path) -> None:
    # pie.md: alpha/beta (nested); b/2026-02-10: #alpha; bb/tart.md: #alphabet (not alpha)
    assert sorted(_search(agent_vault, "apple", tag="alpha")) == ["b/2026-02-10.md", "pie.md"]
    assert _search(agent_vault, "apple", tag="#Alpha/Beta") == ["pie.md"]


def test_folder_filter_is_whole_folder_names(agent_vault: Path) -> None:
    assert _search(agent_vault, "tart", folder="b") == ["b/2026-02-10.md"]
    assert _search(agent_vault, "tart", folder="bb/") == ["bb/tart.md"]


def test_date_range_inclusive(agent_vault: Path) -> None:
    # dates: pie 2026-01-05 (front matter), b/2026-02-10 (name), bb/tart 2026-03-01
    got = _search(agent_vault, "apple", since=_dt.date(2026, 2, 10), until=_dt.date(2026, 3, 1))
    assert sorted(got) == ["b/2026-02-10.md", "bb/tart.md"]


def test_concept_filter_links_and_mentions(agent_vault: Path) -> None:
    # orchard.md links [[fruit]]; the three others say "apple", the concept's alias
    got = _search(agent_vault, "", concept="fruit")
    # an empty query lists them newest first
    assert got == ["orchard.md", "bb/tart.md", "b/2026-02-10.md", "pie.md"]
    assert _search(agent_vault, "", concept="//concept/fruit") == got  # the node id too


def test_unknown_concept_is_an_error(agent_vault: Path) -> None:
    with pytest.raises(UnknownConcept):
        _search(agent_vault, "apple", concept="vegetable")


def test_hit_lines_and_json(agent_vault: Path) -> None:
    index = VaultIndex.scan(agent_vault, use_cache=False)
    (hit,) = agent_search(index, lambda rel: read_note(index.root, rel).text, "cinnamon")
    assert hit.lines == ((7, "Baked an apple pie with cinnamon."),)
    data = hit.to_json()
    assert {k: data[k] for k in ("note", "title", "date", "date_source", "lines")} == {
        "note": "pie.md",
        "title": "pie",
        "date": "2026-01-05",
        "date_source": "front-matter",
        "lines": [{"line": 7, "text": "Baked an apple pie with cinnamon."}],
    }


def test_limit(agent_vault: Path) -> None:
    assert len(_search(agent_vault, "apple", limit=2)) == 2
    assert _search(agent_vault, "apple", limit=0) == []


DEMO = REPO / "resources" / "demo-vault"

# Each answer found by reading the demo vault's notes, not by running the search.
DEMO_QUESTIONS = [
    ("which database do we stage the nightly exports in", "decisions/use-duckdb-for-staging.md"),
    ("why is the judge model pinned to a dated version", "decisions/pin-judge-model.md"),
    ("could two people editing the same note merge instead of overwrite", "research/crdt-sync.md"),
    ("is HNSW worth it or is a flat index enough", "research/vector-indexes.md"),
    ("tokenizer quirks", "inbox/tokenizer-quirks.md"),  # a note's name
    ("tokenizer quirsk", "inbox/tokenizer-quirks.md"),  # … with a typo
    ("shared editing", "research/crdt-sync.md"),  # its front matter's alias
    ("how many tokens does German text cost compared to English", "inbox/tokenizer-quirks.md"),
    ("shared token bucket per API key refilled at 90%", "decisions/token-bucket-for-api-calls.md"),
]


@pytest.fixture(scope="module")
def demo_index() -> VaultIndex:
    return VaultIndex.scan(DEMO, use_cache=False)


@pytest.mark.parametrize(("question", "expected"), DEMO_QUESTIONS)
def test_demo_vault_question_finds_its_note_first(
    demo_index: VaultIndex, question: str, expected: str
) -> None:
    hits = agent_search(demo_index, lambda rel: read_note(demo_index.root, rel).text, question)
    assert hits[0].note == expected


class _Vault:
    """The figures of a larger set of documents, as ``DocumentStats`` asks them."""

    size = 10
    mean_length = 2.0

    def df(self, term: str) -> int:
        return {"cat": 5}.get(term, 0)


def test_bm25_over_some_documents_scores_them_as_in_the_larger_set() -> None:
    import math

    from librarian_gui.core.agents.bm25 import BM25

    alone = BM25([{"cat": 1}])
    assert alone.size == 1 and alone.mean_length == 1.0
    within = BM25([{"cat": 1}], _Vault())
    # by hand: N 10, df 5 → idf ln(1 + 5.5/5.5); length 1 of mean 2 → norm 1.2·(0.25 + 0.375)
    assert math.isclose(within.scores(["cat"])[0], math.log(2) * 2.2 / (1 + 1.2 * 0.625))
    # a word the set never counted weighs by the few documents' own count
    assert math.isclose(BM25([{"dog": 1}], _Vault()).idf("dog"), math.log(1 + 9.5 / 1.5))


def test_a_tag_filter_reads_tags_without_keeping_every_notes_parse(agent_vault: Path) -> None:
    """Tags are read from a cached record's parse bytes, not its whole parse decoded and
    kept (one tag search kept 243 MB of parses at 50,000 notes, 2.8 s)."""
    import os

    for rel in ("MEMORY.md", "pie.md", "b/2026-02-10.md", "bb/tart.md", "orchard.md"):
        os.utime(agent_vault / rel, (1_000_000_000, 1_000_000_000))  # the cache trusts them
    VaultIndex.scan(agent_vault, use_cache=True).wait_saved()
    index = VaultIndex.scan(agent_vault, use_cache=True)  # records from the cache's rows
    assert index.last_parsed == 0
    hits = agent_search(index, lambda rel: read_note(index.root, rel).text, "apple", tag="alpha")  # type: ignore[arg-type]
    assert sorted(h.note for h in hits) == ["b/2026-02-10.md", "pie.md"]
    # by hand: the tags of each note, as written in the fixture
    assert {rel: r.tag_names for rel, r in index.notes.items()} == {
        "MEMORY.md": ("index",),
        "pie.md": ("alpha/beta",),
        "b/2026-02-10.md": ("alpha",),
        "bb/tart.md": ("alphabet",),
        "orchard.md": (),
    }
    assert [rel for rel, r in index.notes.items() if r._parsed is not None] == []


def test_an_empty_question_lists_the_newest_first_and_follows_an_update(tmp_path: Path) -> None:
    from librarian_gui.core.agents.corpus import newest_notes

    dates = {"a.md": "2026-03-01", "b.md": "2026-05-01", "c.md": "2026-05-01", "d.md": "2026-01-09"}
    for rel, day in dates.items():
        (tmp_path / rel).write_text(f"---\ndate: {day}\n---\nSome text.\n", encoding="utf-8")
    index = VaultIndex.scan(tmp_path, use_cache=False)

    def ask() -> list[str]:
        hits = agent_search(index, lambda rel: read_note(index.root, rel).text, "", limit=10)
        return [h.note for h in hits]

    # by date, newest first; b and c share a day: by path
    assert ask() == ["b.md", "c.md", "a.md", "d.md"]
    assert index.snapshot().sorted_notes() == ("a.md", "b.md", "c.md", "d.md")
    assert list(newest_notes(index, ["d.md", "a.md", "gone.md"])) == ["a.md", "d.md"]

    (tmp_path / "e.md").write_text("---\ndate: 2026-06-30\n---\nNewer.\n", encoding="utf-8")
    index.update(["e.md"])
    assert ask() == ["e.md", "b.md", "c.md", "a.md", "d.md"]


def test_the_newest_of_many_notes_come_in_the_order_of_the_whole_vault(tmp_path: Path) -> None:
    from librarian_gui.core.agents.corpus import PREFILTER_ABOVE, newest_notes

    count = PREFILTER_ABOVE + 50
    day = {f"n{i:03d}.md": _dt.date(2026, 1, 1) + _dt.timedelta(days=i % 40) for i in range(count)}
    for rel, date in day.items():
        (tmp_path / rel).write_text(f"---\ndate: {date}\n---\nText.\n", encoding="utf-8")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    expected = sorted(day, key=lambda rel: (-day[rel].toordinal(), rel))  # newest, then path
    whole = index.snapshot().sorted_notes()
    assert list(newest_notes(index, whole)) == expected
    assert newest_notes(index, whole) is newest_notes(index, whole)  # kept with the snapshot
    less = [rel for rel in whole if rel != "n007.md"] + ["gone.md"]  # less one, one unknown
    assert list(newest_notes(index, less)) == [rel for rel in expected if rel != "n007.md"]
