"""Note-level postings (``core/search/postings.py``): the candidates a question splits, found
without reading every note. Scores here are BM25 computed by hand in the test, over the
words written in each note (titles count twice)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.search import postings
from librarian_gui.core.search.postings import NoteTerms
from librarian_gui.core.text.analyzer import terms

K1, B = 1.2, 0.75


def _bm25(notes: dict[str, list[str]], query: list[str]) -> dict[str, float]:
    """BM25 of each note (its words as a list) for ``query``, written out by hand."""
    size = len(notes)
    mean = sum(len(w) for w in notes.values()) / size
    out: dict[str, float] = {}
    for rel, words in notes.items():
        score = 0.0
        for term in dict.fromkeys(query):
            df = sum(1 for w in notes.values() if term in w)
            tf = words.count(term)
            if not tf:
                continue
            idf = math.log(1 + (size - df + 0.5) / (df + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(words) / mean))
        if score > 0:
            out[rel] = score
    return out


def _order(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda rel: (-scores[rel], rel))


@dataclass(frozen=True)
class Record:
    """What the postings read of a note's index record."""

    stamp: int
    title: str


class Vault:
    """Notes as (stamp, title, text); each write gets a new stamp, as a file's changes."""

    def __init__(self, notes: dict[str, tuple[str, str]]) -> None:
        self.notes = {rel: (0, title, text) for rel, (title, text) in notes.items()}
        self.reads: list[str] = []
        self.writes = 0

    def stamps(self) -> dict[str, Record]:
        return {rel: Record(stamp, title) for rel, (stamp, title, _t) in self.notes.items()}

    def text_of(self, rel: str) -> str:
        self.reads.append(rel)
        return self.notes[rel][2]

    def edit(self, rel: str, title: str, text: str) -> None:
        self.writes += 1
        self.notes[rel] = (self.writes, title, text)

    def words(self) -> dict[str, list[str]]:
        return {
            rel: [*title.split(), *title.split(), *text.split()]
            for rel, (_s, title, text) in self.notes.items()
        }


def _best(found: NoteTerms, vault: Vault, query: list[str], limit: int = 10) -> list[str]:
    return found.best(vault.stamps(), vault.text_of, set(vault.notes), query, limit)


def test_best_ranks_by_whole_note_bm25_with_the_title_twice() -> None:
    vault = Vault(
        {
            "a.md": ("", "cat cat dog"),
            "b.md": ("cat", "bird fish"),  # cat in the title: counts twice
            "c.md": ("", "dog bird"),
            "d.md": ("", "fish"),
        }
    )
    found = NoteTerms()
    assert _best(found, vault, ["cat", "dog"]) == ["a.md", "b.md", "c.md"]
    # by hand: 10 words, mean 2.5; cat df 2, dog df 2 → idf ln(1 + 2.5/2.5) = ln 2 for both
    # a: cat tf 2 len 3, dog tf 1 ; b: cat tf 2 len 4 ; c: dog tf 1 len 2
    a = math.log(2) * (4.4 / (2 + 1.2 * (0.25 + 0.9)) + 2.2 / (1 + 1.2 * (0.25 + 0.9)))
    b = math.log(2) * 4.4 / (2 + 1.2 * (0.25 + 0.75 * 4 / 2.5))
    c = math.log(2) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 2.5))
    assert a > b > c
    hand = _bm25(vault.words(), ["cat", "dog"])
    assert sorted(hand) == ["a.md", "b.md", "c.md"]
    assert all(math.isclose(hand[rel], want) for rel, want in zip(hand, (a, b, c), strict=True))
    assert _best(found, vault, ["cat", "dog"], limit=2) == ["a.md", "b.md"]
    stats = found.stats()
    assert (stats.size, stats.mean_length) == (4, 2.5)
    assert (stats.df("fish"), stats.df("cat"), stats.df("zebra")) == (2, 2, 0)


def test_only_notes_among_are_ranked_and_only_notes_holding_a_term() -> None:
    vault = Vault({"a.md": ("", "cat"), "b.md": ("", "cat dog"), "c.md": ("", "bird")})
    found = NoteTerms()
    assert found.best(vault.stamps(), vault.text_of, {"b.md", "c.md"}, ["cat"], 10) == ["b.md"]
    assert found.best(vault.stamps(), vault.text_of, {"a.md"}, ["zebra"], 10) == []


def test_a_later_question_reads_only_the_notes_changed_since() -> None:
    vault = Vault({f"{i}.md": ("", "cat " * (i + 1)) for i in range(5)})
    found = NoteTerms()
    _best(found, vault, ["cat"])
    assert sorted(vault.reads) == [f"{i}.md" for i in range(5)]
    vault.reads.clear()
    vault.edit("2.md", "", "dog")
    del vault.notes["4.md"]
    vault.edit("new.md", "", "dog dog cat")
    assert _best(found, vault, ["dog"]) == _order(_bm25(vault.words(), ["dog"]))
    assert sorted(vault.reads) == ["2.md", "new.md"]
    assert found.stats().df("cat") == 4  # 0, 1, 3 and new; 2 lost it, 4 is gone
    assert len(found) == 5


EDITS = st.lists(
    st.tuples(
        st.sampled_from([f"n{i}.md" for i in range(8)]),
        st.sampled_from(["", "cat", "dog fish"]),
        st.lists(st.sampled_from(["cat", "dog", "bird", "fish", "zebra"]), max_size=6),
        st.booleans(),  # True: the note is deleted
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(EDITS, st.integers(1, 4))
def test_incremental_postings_score_as_a_fresh_count(
    edits: list[tuple[str, str, list[str], bool]], every: int
) -> None:
    """Whatever the edits, and however often the fresh notes are packed, the scores and
    the vault's figures are those of the notes as they stand, counted afresh."""
    least = postings.FRESH_LEAST
    postings.FRESH_LEAST = 2  # pack often: the packed arrays and the fresh rows both serve
    try:
        vault = Vault({})
        found = NoteTerms()
        for step, (rel, title, words, gone) in enumerate(edits):
            if gone:
                vault.notes.pop(rel, None)
            else:
                vault.edit(rel, title, " ".join(words))
            if step % every == 0 and vault.notes:
                _best(found, vault, ["cat"])
        query = ["cat", "dog", "zebra"]
        expected = _bm25(vault.words(), query) if vault.notes else {}
        got = _best(found, vault, query, limit=100)
        assert got == _order(expected)
        for rel, score in found._scores(query).items():
            assert math.isclose(score, expected[rel], rel_tol=1e-5)
        if vault.notes:
            words = vault.words()
            stats = found.stats()
            assert stats.size == len(words)
            assert math.isclose(stats.mean_length, sum(map(len, words.values())) / len(words))
            for term in ["cat", "dog", "bird", "fish", "zebra"]:
                assert stats.df(term) == sum(1 for w in words.values() if term in w)
    finally:
        postings.FRESH_LEAST = least


@settings(max_examples=100, deadline=None)
@given(EDITS, EDITS)
def test_postings_dumped_and_loaded_score_as_a_fresh_count_and_read_only_what_changed(
    before: list[tuple[str, str, list[str], bool]], after: list[tuple[str, str, list[str], bool]]
) -> None:
    """Postings dumped (another process's, say) and loaded: a question then reads only the
    notes changed since the dump, and scores the vault as it stands, counted afresh."""
    vault = Vault({})

    def apply(edits: list[tuple[str, str, list[str], bool]]) -> set[str]:
        touched = set()
        for rel, title, words, gone in edits:
            if gone:
                vault.notes.pop(rel, None)
            else:
                vault.edit(rel, title, " ".join(words))
                touched.add(rel)
        return touched

    apply(before)
    counted = NoteTerms()
    _best(counted, vault, ["cat"])
    loaded = NoteTerms.undump(counted.dump())
    assert loaded is not None
    assert loaded.stamps() == {rel: r.stamp for rel, r in vault.stamps().items()}
    changed = apply(after)
    vault.reads.clear()
    query = ["cat", "dog", "zebra"]
    expected = _bm25(vault.words(), query) if vault.notes else {}
    assert _best(loaded, vault, query, limit=100) == _order(expected)
    assert sorted(vault.reads) == sorted(changed & vault.notes.keys())
    for rel, score in loaded._scores(query).items():
        assert math.isclose(score, expected[rel], rel_tol=1e-5)


def test_postings_of_another_analyzer_or_cut_short_are_not_loaded() -> None:
    vault = Vault({"a.md": ("", "cat dog"), "b.md": ("dog", "bird")})
    counted = NoteTerms()
    _best(counted, vault, ["cat"])
    data = counted.dump()
    assert NoteTerms.undump(data) is not None
    assert NoteTerms.undump(data[: len(data) // 2]) is None
    original = postings._PROBE
    postings._PROBE = "Another analyzer splits this otherwise"  # its terms differ
    try:
        assert NoteTerms.undump(data) is None
    finally:
        postings._PROBE = original


# Pieces the analyzer turns into no term (stop words, a lone letter), one, or several
# ("rock'n'roll", a Japanese run as its bigrams), in ASCII notes and in notes that are not.
MIXED = [
    "cat", "Cats", "the", "of", "a", "x", "don't", "rock'n'roll", "O'Reilly's", "e-mail",
    "HTTP/2", "3D", "2024", "naïve", "café", "東京の会議", "Straße", "running", "ran", "—",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(MIXED), max_size=3),
            st.lists(st.sampled_from(MIXED), max_size=12),
            st.sampled_from([" ", "\n", ", ", " — "]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.sampled_from(MIXED), min_size=1, max_size=4),
)
def test_a_note_counts_as_the_analyzer_cuts_its_title_twice_and_its_text(
    notes: list[tuple[list[str], list[str], str]], question: list[str]
) -> None:
    """The postings count each note's terms as ``analyzer.terms`` gives them, whatever
    mix of pieces with no term, one and several the notes hold, however many notes of one
    pass share a piece: the scores are BM25 over those lists, written out by hand. The
    same when the counter forgets the pieces it met after every two."""
    _counts_as_the_analyzer_cuts(notes, question)
    kept = postings.PIECES_KEPT
    postings.PIECES_KEPT = 2
    try:
        _counts_as_the_analyzer_cuts(notes, question)
    finally:
        postings.PIECES_KEPT = kept


def _counts_as_the_analyzer_cuts(
    notes: list[tuple[list[str], list[str], str]], question: list[str]
) -> None:
    vault = Vault({f"n{i}.md": (" ".join(t), sep.join(w)) for i, (t, w, sep) in enumerate(notes)})
    counted = {
        rel: [*terms(title), *terms(title), *terms(text)]
        for rel, (_s, title, text) in vault.notes.items()
    }
    query = terms(" ".join(question))
    found = NoteTerms()
    got = _best(found, vault, query, limit=100)
    expected = _bm25(counted, query)
    assert got == _order(expected)
    for rel, score in found._scores(query).items():
        assert math.isclose(score, expected[rel], rel_tol=1e-5)
    stats = found.stats()
    assert stats.size == len(counted)
    assert math.isclose(stats.mean_length, sum(map(len, counted.values())) / len(counted))
