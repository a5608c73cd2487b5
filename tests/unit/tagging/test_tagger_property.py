"""Property tests of the auto-tagger (issue 5): on generated notes and dictionaries, removing
the inserted links gives back the original bytes, a second run changes nothing, nothing in
code, front matter, headings or existing links changes, and undo restores every byte.

The generator builds each note from blocks and knows where its protected spans are, so the
checks do not depend on the tagger's own masking.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.core.tagging.matching import AliasMatcher, apply_occurrences, find_occurrences
from librarian_gui.core.tagging.run import apply_plan, plan_tagging, undo_last_run
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import read_snapshot

WORDS = ["memory", "agent", "vault", "graph", "link", "note", "ai", "rag", "tool", "plan"]
CJK = ["记忆", "代理", "图谱", "检索"]
IDS = ["memory", "agent-vault", "c1", "c2", "c3", "c4"]


@st.composite
def dictionaries(draw: st.DrawFn) -> tuple[Concept, ...]:
    count = draw(st.integers(1, 5))
    concepts = []
    for cid in IDS[:count]:
        aliases = draw(
            st.lists(
                st.one_of(
                    st.sampled_from(WORDS),
                    st.sampled_from(CJK),
                    st.lists(st.sampled_from(WORDS), min_size=2, max_size=3).map(" ".join),
                    st.sampled_from(["AI", "RAG", cid]),
                ),
                min_size=1,
                max_size=4,
            )
        )
        concepts.append(Concept(cid, tuple(aliases), "x"))
    return tuple(concepts)


def _case(draw: st.DrawFn, word: str) -> str:
    style = draw(st.sampled_from(["lower", "title", "upper"]))
    return {"lower": word, "title": word.title(), "upper": word.upper()}[style]


@st.composite
def phrases(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["word", "word", "word", "cjk", "punct"]))
        if kind == "word":
            parts.append(_case(draw, draw(st.sampled_from(WORDS))))
        elif kind == "cjk":
            parts.append("".join(draw(st.lists(st.sampled_from(CJK), min_size=1, max_size=3))))
        else:
            parts.append(draw(st.sampled_from([",", ".", "(x)", "!", "-", "é"])))
    return " ".join(parts)


@st.composite
def notes(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A note and the spans (offsets into it) that must never change."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    pieces: list[tuple[str, bool]] = []  # (text, protected)
    if draw(st.booleans()):
        pieces.append((f"---{nl}title: {draw(phrases())}{nl}---{nl}", True))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["para", "para", "para", "fence", "heading", "table"]))
        if kind == "para":
            for _ in range(draw(st.integers(1, 4))):
                inline = draw(st.sampled_from(["text", "text", "code", "wiki", "md"]))
                text = draw(phrases())
                if inline == "text":
                    pieces.append((text, False))
                elif inline == "code":
                    pieces.append((f"`{text}`", True))
                elif inline == "wiki":
                    pieces.append((f"[[note-x|{text}]]", True))
                else:
                    pieces.append((f"[{text}](other.md)", True))
                pieces.append((" ", False))
            pieces.append((nl, False))
        elif kind == "fence":
            pieces.append((f"```{nl}{draw(phrases())}{nl}```{nl}", True))
        elif kind == "heading":
            pieces.append((f"## {draw(phrases())}{nl}", True))
        else:
            pieces.append((f"| a | b |{nl}|---|---|{nl}| ", False))
            pieces.append((draw(phrases()), False))
            pieces.append((" | ", False))
            pieces.append((draw(phrases()), False))
            pieces.append((f" |{nl}", False))
        pieces.append((nl, False))
    text = ""
    protected = []
    for piece, keep in pieces:
        if keep:
            protected.append((len(text), len(text) + len(piece)))
        text += piece
    return text, protected


_INSERTED = re.compile(r"\[\[(" + "|".join(map(re.escape, IDS)) + r")(?:\\?\|([^\]]*))?\]\]")


def _strip_links(text: str) -> str:
    return _INSERTED.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(1), text)


@settings(max_examples=300, deadline=None)
@given(notes(), dictionaries(), st.booleans())
def test_removing_the_links_gives_back_the_original(
    note: tuple[str, list[tuple[int, int]]], concepts: tuple[Concept, ...], every: bool
) -> None:
    text, protected = note
    matcher = AliasMatcher(concepts)
    found = find_occurrences(text, matcher, all_mentions=every)
    tagged = apply_occurrences(text, found)
    assert _strip_links(tagged) == text
    for occ in found:
        assert all(occ.end <= start or end <= occ.start for start, end in protected), occ
        assert text[occ.start : occ.end] == occ.text
    # A second run changes nothing.
    assert find_occurrences(tagged, matcher, all_mentions=every) == []
    if not every:
        assert len({o.concept for o in found}) == len(found)


@settings(max_examples=40, deadline=None)
@given(st.lists(notes(), min_size=1, max_size=4), dictionaries(), st.booleans())
def test_undo_after_apply_restores_every_byte(
    batch: list[tuple[str, list[tuple[int, int]]]], concepts: tuple[Concept, ...], bom: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        originals = {}
        for number, (text, _) in enumerate(batch):
            data = ("\ufeff" if bom and number == 0 else "") + text
            originals[f"n{number}.md"] = data.encode("utf-8")
            (root / f"n{number}.md").write_bytes(originals[f"n{number}.md"])
        plan = plan_tagging(root, sorted(originals), concepts)
        journal = Journal(root)
        entry = apply_plan(root, plan, journal=journal)
        assert sorted(entry.written) == sorted(n.rel for n in plan.notes)
        for rel, data in originals.items():
            now = read_snapshot(root, rel)
            assert now.bom == (data.startswith(b"\xef\xbb\xbf"))
            assert _strip_links(now.text).encode("utf-8") == data.removeprefix(b"\xef\xbb\xbf")
        if plan.notes:
            result = undo_last_run(journal)
            assert sorted(result.restored) == sorted(n.rel for n in plan.notes)
        for rel, data in originals.items():
            assert (root / rel).read_bytes() == data
