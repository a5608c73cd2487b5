"""The postings' first count on worker processes (``count_worker``, ``corpus.FilesText``):
real files, real worker interpreters; what they count is what this process counts."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from librarian_gui.core.agents import corpus
from librarian_gui.core.agents.corpus import FilesText
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.search import postings
from librarian_gui.core.search.postings import NoteTerms, WorkerRow
from librarian_gui.core.text.analyzer import terms
from librarian_gui.core.vault.files import read_note
from librarian_gui.core.vault.reading import CHUNK

WORDS = [
    "cat", "Cats", "the", "of", "don't", "rock'n'roll", "e-mail", "2024", "naïve", "café",
    "東京の会議", "Straße", "running", "ran", "memory", "vault", "—", "[[link]]", "#tag",
]  # fmt: skip


@dataclass(frozen=True)
class Record:
    stamp: int
    title: str


def _vault(root: Path, count: int) -> dict[str, Record]:
    rng = random.Random(7)
    notes = {}
    for i in range(count):
        rel = f"{'sub/' if i % 3 else ''}n{i:04}.md"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 60)))
        (root / rel).write_text(text, encoding="utf-8")
        notes[rel] = Record(0, " ".join(rng.sample(WORDS, 2)))
    return notes


def _read(root: Path) -> FilesText:
    return FilesText(root, lambda rel: read_note(root, rel).text)


def _text(read: FilesText) -> postings.Text:
    """What ``corpus.candidates`` gives the postings: a note that cannot be read as ""."""
    return functools.partial(corpus._read, read)


def _same(a: NoteTerms, b: NoteTerms, notes: dict[str, Record], root: Path) -> None:
    every = {t for rel in notes for t in terms(read_note(root, rel).text or "")}
    every |= {t for r in notes.values() for t in terms(r.title)}
    sa, sb = a.stats(), b.stats()
    assert (sa.size, sa.mean_length) == (sb.size, sb.mean_length)
    assert {t: a.df(t) for t in every} == {t: b.df(t) for t in every}
    for term in sorted(every):
        got, want = a._scores([term]), b._scores([term])
        assert got.keys() == want.keys()
        assert all(math.isclose(got[r], want[r], rel_tol=1e-6) for r in want)


def _workers(root: Path) -> tuple[FilesText, postings.Many]:
    """The vault's texts read from its files, and the counting workers ``corpus`` gives."""
    read = _read(root)
    many = corpus._many(VaultIndex.scan(root, use_cache=False), read)
    assert many is not None
    return read, many


@pytest.fixture
def few_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings, "MANY_LEAST", 20)


@pytest.mark.usefixtures("few_enough")
def test_workers_count_each_note_as_this_process_does(tmp_path: Path) -> None:
    # more than one chunk a worker (reading.CHUNK): later chunks' terms number on
    notes = _vault(tmp_path, 2 * CHUNK + 50)
    (tmp_path / "n0000.md").unlink()  # gone since the scan: an empty text, both ways
    read, many = _workers(tmp_path)
    asked: list[int] = []

    def counted(items: list[str]) -> Iterable[object]:
        asked.append(len(items))
        return many(items)

    here, apart = NoteTerms(), NoteTerms()
    here.best(notes, _text(read), (), (), 0)
    apart.best(notes, _text(read), (), (), 0, counted)
    assert asked == [len(notes)]
    _same(apart, here, notes, tmp_path)
    assert apart.best(notes, _text(read), set(notes), ["cat"], 5) == here.best(
        notes, _text(read), set(notes), ["cat"], 5
    )


@pytest.mark.usefixtures("few_enough")
def test_a_note_no_worker_delivers_is_counted_here(tmp_path: Path) -> None:
    notes = _vault(tmp_path, 40)
    read, many = _workers(tmp_path)
    delivered: list[str] = []

    def losing(items: list[str]) -> Iterable[object]:
        for chunk in many(items):
            worker, new_terms, rows = cast(tuple[int, list[str], list[WorkerRow]], chunk)
            kept = [row for row in rows if not row[0].startswith("sub/")]
            delivered.extend(row[0] for row in kept)
            yield worker, new_terms, kept

    here, apart = NoteTerms(), NoteTerms()
    here.best(notes, _text(read), (), (), 0)
    apart.best(notes, _text(read), (), (), 0, losing)
    assert sorted(delivered) == sorted(rel for rel in notes if not rel.startswith("sub/"))
    _same(apart, here, notes, tmp_path)


@pytest.mark.usefixtures("few_enough")
def test_workers_only_read_the_index_s_own_files(tmp_path: Path) -> None:
    _vault(tmp_path / "a", 5)
    _vault(tmp_path / "b", 5)
    index = VaultIndex.scan(tmp_path / "a", use_cache=False)
    assert corpus._many(index, _read(tmp_path / "b")) is None
    assert corpus._many(index, lambda rel: read_note(tmp_path / "a", rel).text) is None
    assert corpus._many(index, _read(tmp_path / "a")) is not None


def test_below_many_least_no_worker_is_asked(tmp_path: Path) -> None:
    notes = _vault(tmp_path, postings.MANY_LEAST - 1)
    asked: list[int] = []

    def counted(items: list[str]) -> Iterable[object]:
        asked.append(len(items))
        return []

    NoteTerms().best(notes, _text(_read(tmp_path)), (), (), 0, counted)
    assert asked == []
