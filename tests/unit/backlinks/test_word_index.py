"""The word index's arrays against the plain definition: a note can hold a name when it holds
every word of it. Puts, puts again and removals in any order, packing at any point."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.backlinks import word_index
from librarian_gui.core.backlinks.word_index import WordIndex
from librarian_gui.core.parse.records import FileStamp

WORDS = ["red", "green", "blue", "Red", "sky", "the", "a-b", "über", "x1"]
NOTES = ["a.md", "b.md", "dir/c.md", "d.md", "e.md"]
NAMES = ["red", "green blue", "sky the", "über", "a-b", "nothing", "red sky blue"]

texts = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
ops = st.lists(
    st.tuples(st.sampled_from(["put", "remove"]), st.sampled_from(NOTES), texts), max_size=25
)


@pytest.fixture(autouse=True)
def _pack_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_index, "FRESH_LEAST", 2)


def _apply(index: WordIndex, held: dict[str, str], op: str, rel: str, text: str, n: int) -> None:
    """Put or remove a note in ``index`` (at stamp ``n``) and in ``held``, its texts."""
    if op == "put":
        index.put(rel, FileStamp(n, n, n), text)
        held[rel] = text
    else:
        index.remove(rel)
        held.pop(rel, None)


def _by_definition(held: dict[str, str], name: str) -> set[str]:
    wanted = set(name.lower().split())
    return {rel for rel, text in held.items() if wanted <= set(text.lower().split())}


@given(before=ops, after=ops)
@settings(max_examples=200, deadline=None)
def test_the_notes_holding_a_name_are_those_holding_all_its_words(
    before: list[tuple[str, str, str]], after: list[tuple[str, str, str]]
) -> None:
    index = WordIndex()
    held: dict[str, str] = {}
    for n, (op, rel, text) in enumerate(before):
        _apply(index, held, op, rel, text, n)
    assert index.holding(["red"]) is None  # not complete yet: cannot narrow
    index.complete = True  # packs what was put
    for n, (op, rel, text) in enumerate(after, start=len(before)):
        _apply(index, held, op, rel, text, n)
        for name in NAMES:
            assert index.holding([name]) == _by_definition(held, name), (name, held)
    assert index.holding(["red", "über"]) == _by_definition(held, "red") | _by_definition(
        held, "über"
    )
    for rel in held:
        assert index.stamp(rel) is not None
    assert index.holding(["中文"]) is None  # an unspaced script: every note is looked in


@given(before=ops, after=ops)
@settings(max_examples=100, deadline=None)
def test_words_dumped_and_loaded_hold_the_same_notes_and_stamps(
    before: list[tuple[str, str, str]], after: list[tuple[str, str, str]]
) -> None:
    """What another process loads (``undump``, then ``take``) answers as the words it was
    dumped from did, and keeps following puts and removals."""
    index = WordIndex()
    held: dict[str, str] = {}
    for n, (op, rel, text) in enumerate(before):
        _apply(index, held, op, rel, text, n)
    loaded = WordIndex.undump(index.dump())
    assert loaded is not None
    again = WordIndex()
    assert again.take(loaded)
    assert again.stamps() == index.stamps()
    assert again.holding(["red"]) is None  # loaded, not complete: the owner checks stamps
    again.complete = True
    for n, (op, rel, text) in enumerate(after, start=len(before)):
        _apply(again, held, op, rel, text, n)
    for name in NAMES:
        assert again.holding([name]) == _by_definition(held, name), (name, held)


def test_words_of_another_format_or_damaged_are_not_loaded() -> None:
    import marshal

    index = WordIndex()
    index.put("a.md", FileStamp(1, 1, 1), "red sky")
    data = index.dump()
    parts = list(marshal.loads(data))
    assert WordIndex.undump(data) is not None
    assert WordIndex.undump(data[:-3]) is None  # cut short
    assert WordIndex.undump(marshal.dumps((2, *parts[1:]))) is None  # another format
    assert WordIndex.undump(marshal.dumps((parts[0], ["other"], *parts[2:]))) is None
    bad_rows = marshal.dumps((*parts[:6], b"\x07\x00\x00\x00" * 2))  # rows past the notes
    assert WordIndex.undump(bad_rows) is None
    fuller = WordIndex()
    fuller.put("b.md", FileStamp(2, 2, 2), "green")
    assert not fuller.take(WordIndex.undump(data))  # type: ignore[arg-type]  # words put
