"""Unlinked mentions and the "Link" action, on real files in a temporary vault."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from librarian_gui.core.backlinks.unlinked import (
    Mention,
    link_mention,
    link_name,
    mention_names,
    unlinked_mentions,
)
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import FileChanged, WriteRefused
from tests.conftest import write

TARGET = "Alpha Beta.md"
TARGET_TEXT = "---\naliases: [AB, 阿尔法, x]\n---\nAlpha Beta mentions itself, AB too.\n"

SOURCE = """---
title: Alpha Beta
---
Alpha Beta starts here.
See `Alpha Beta` inline and [[Alpha Beta]] and [ab](Alpha%20Beta.md).
```text
Alpha Beta in a fence
```
    Alpha Beta indented code

<!-- Alpha Beta --> %% AB %% then ab.
https://example.org/Alpha-Beta and <https://x.org/AB> #AB mail ab@ab.org ![[AB]]
Alphabet, AlphaBeta, alpha betas, xAB and ABx are not words; (AB) is.
我喜欢阿尔法模型, and x marks nothing.
"""


def scan(root: Path) -> VaultIndex:
    return VaultIndex.scan(root, use_cache=False)


def reader(index: VaultIndex) -> Callable[[str], str | None]:
    return lambda rel: read_note(index.root, rel).text


def find(index: VaultIndex, rel: str = TARGET) -> list[Mention]:
    return unlinked_mentions(index, rel, reader(index))


def test_names_are_title_and_aliases_of_two_characters_or_more(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    assert mention_names(scan(vault), TARGET) == ("Alpha Beta", "AB", "阿尔法")


def test_mentions_skip_code_links_front_matter_urls_and_the_note_itself(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    write(vault, "notes/src.md", SOURCE)
    write(vault, "notes/none.md", "Nothing to see.\n")
    assert find(scan(vault)) == [
        Mention("notes/src.md", 4, 0, 26, 36, "Alpha Beta", "Alpha Beta starts here."),
        Mention("notes/src.md", 11, 34, 218, 220, "ab", "<!-- Alpha Beta --> %% AB %% then ab."),
        Mention(
            "notes/src.md",
            13,
            62,
            365,
            367,
            "AB",
            "Alphabet, AlphaBeta, alpha betas, xAB and ABx are not words; (AB) is.",
        ),
        Mention(
            "notes/src.md", 14, 3, 376, 379, "阿尔法", "我喜欢阿尔法模型, and x marks nothing."
        ),
    ]


def test_offsets_count_without_bom_and_keep_crlf(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    write(vault, "b.md", "\ufeffIntro\r\nalpha beta and AB\r\n".encode())
    write(vault, "a.md", "用Python写的Alpha Beta工具\n")
    assert find(scan(vault)) == [
        Mention("a.md", 1, 9, 9, 19, "Alpha Beta", "用Python写的Alpha Beta工具"),
        Mention("b.md", 2, 0, 7, 17, "alpha beta", "alpha beta and AB"),
        Mention("b.md", 2, 15, 22, 24, "AB", "alpha beta and AB"),
    ]


def test_longest_name_wins_where_names_overlap(vault: Path) -> None:
    write(vault, "Learning Rate Schedule.md", "---\naliases: [deep learning, learning]\n---\n")
    write(vault, "s.md", "Deep learning rate schedule; deep learning; learning.\n")
    assert [(m.start, m.text) for m in find(scan(vault), "Learning Rate Schedule.md")] == [
        (5, "learning rate schedule"),
        (29, "deep learning"),
        (44, "learning"),
    ]


def test_lowercasing_that_changes_length_keeps_offsets_right(vault: Path) -> None:
    write(vault, "Ankara.md", "")
    write(vault, "s.md", "İİ to ankara\n")  # "İ".lower() is two characters
    assert find(scan(vault), "Ankara.md") == [
        Mention("s.md", 1, 6, 6, 12, "ankara", "İİ to ankara")
    ]


def test_unreadable_and_one_letter_names_are_skipped(vault: Path) -> None:
    write(vault, "X.md", "")
    write(vault, "s.md", "x marks the spot, X too\n")
    index = scan(vault)
    assert find(index, "X.md") == []
    write(vault, TARGET, TARGET_TEXT)
    index = scan(vault)
    assert unlinked_mentions(index, TARGET, lambda rel: None) == []


# ------------------------------------------------------------------ linking


def test_link_keeps_bom_crlf_and_every_other_byte(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    path = write(
        vault,
        "log.md",
        "\ufeffFirst line\r\nWe use alpha beta daily, alpha beta!\r\nEnd, no newline".encode(),
    )
    index = scan(vault)
    mentions = find(index)
    assert [(m.line, m.start) for m in mentions] == [(2, 19), (2, 37)]
    journal = Journal(index.root)
    entry = link_mention(index, journal, mentions[1], TARGET)
    assert path.read_bytes() == (
        b"\xef\xbb\xbfFirst line\r\n"
        b"We use alpha beta daily, [[Alpha Beta|alpha beta]]!\r\n"
        b"End, no newline"
    )
    assert entry.description == 'Link "alpha beta" → Alpha Beta in log.md'
    assert entry.written == ("log.md",)
    journal.undo()
    assert path.read_bytes() == (
        b"\xef\xbb\xbfFirst line\r\nWe use alpha beta daily, alpha beta!\r\nEnd, no newline"
    )


def test_link_with_the_exact_name_and_in_a_table_row(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    path = write(
        vault,
        "t.md",
        "Alpha Beta here.\n\n| tool | note |\n| --- | --- |\n  | alpha beta | AB |\n",
    )
    index = scan(vault)
    mentions = find(index)
    assert [m.text for m in mentions] == ["Alpha Beta", "alpha beta", "AB"]
    journal = Journal(index.root)
    for mention in reversed(mentions):
        link_mention(index, journal, mention, TARGET)
    assert path.read_text(encoding="utf-8") == (
        "[[Alpha Beta]] here.\n\n| tool | note |\n| --- | --- |\n"
        "  | [[Alpha Beta\\|alpha beta]] | [[Alpha Beta\\|AB]] |\n"
    )
    assert find(index) == []


def test_link_uses_the_path_when_the_title_resolves_elsewhere(vault: Path) -> None:
    write(vault, "a/Topic.md", "")
    write(vault, "b/Topic.md", "")
    write(vault, "b/near.md", "a topic\n")
    top = write(vault, "top.md", "a topic\n")
    index = scan(vault)
    assert link_name(index, "top.md", "b/Topic.md") == "b/Topic"
    assert link_name(index, "b/near.md", "b/Topic.md") == "Topic"
    mentions = find(index, "b/Topic.md")
    assert [(m.source, m.text) for m in mentions] == [("b/near.md", "topic"), ("top.md", "topic")]
    journal = Journal(index.root)
    link_mention(index, journal, mentions[0], "b/Topic.md")
    link_mention(index, journal, mentions[1], "b/Topic.md")
    assert (vault / "b/near.md").read_bytes() == b"a [[Topic|topic]]\n"
    assert top.read_bytes() == b"a [[b/Topic|topic]]\n"


def test_link_refused_when_the_note_changed_since(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    path = write(vault, "s.md", "one alpha beta\n")
    index = scan(vault)
    [mention] = find(index)
    path.write_bytes(b"one alpha gamma\n")
    journal = Journal(index.root)
    with pytest.raises(FileChanged, match=r"^s\.md: changed since the mention"):
        link_mention(index, journal, mention, TARGET)
    assert path.read_bytes() == b"one alpha gamma\n"
    path.write_bytes(b"[[x|alpha beta]]\n")
    moved = mention._replace(start=4, end=14)
    with pytest.raises(FileChanged, match="is now inside a link, code"):
        link_mention(index, journal, moved, TARGET)
    assert path.read_bytes() == b"[[x|alpha beta]]\n"
    assert journal.entries() == []


def test_link_refused_in_a_note_that_is_not_utf8(vault: Path) -> None:
    write(vault, TARGET, TARGET_TEXT)
    path = write(vault, "latin.md", b"caf\xe9 and alpha beta\n")
    index = scan(vault)
    [mention] = find(index)  # found in the text read with a replacement character
    with pytest.raises(WriteRefused, match=r"^latin\.md: is not valid UTF-8"):
        link_mention(index, Journal(index.root), mention, TARGET)
    assert path.read_bytes() == b"caf\xe9 and alpha beta\n"
    assert sorted(p.name for p in vault.iterdir()) == ["Alpha Beta.md", "latin.md"]


# ------------------------------------------------------------------ property

PIECES = [
    "Alpha Beta",
    "alpha beta",
    "ALPHA BETA",
    "AB",
    "ab",
    "阿尔法",
    " ",
    " ",
    "\n",
    "\r\n",
    "\n| ",
    " | ",
    "word",
    "Alphabet",
    "é",
    "数据",
    "`Alpha Beta`",
    "\n```\nAlpha Beta\n```\n",
    "\n\n    AB code\n\n",
    "[[Alpha Beta]]",
    "[[Other|AB]]",
    "[ab](Alpha%20Beta.md)",
    "https://x.org/AB",
    "<!-- AB -->",
    "%% Alpha Beta %%",
    "#AB",
    "(",
    ")",
    "!",
    "[",
    "]",
]


@settings(max_examples=150)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", " ", ", ", "\n"])),
        min_size=3,
        max_size=30,
    ),
    bom=st.booleans(),
    front_matter=st.booleans(),
)
def test_link_then_unlink_gives_back_the_original_bytes(
    pieces: list[tuple[str, str]], bom: bool, front_matter: bool
) -> None:
    body = "".join(piece + gap for piece, gap in pieces)
    text = ("---\nalias: AB\n---\n" if front_matter else "") + body
    original = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, TARGET, TARGET_TEXT)
        path = write(root, "src.md", original)
        index = scan(root)
        mentions = find(index)
        event(f"{min(len(mentions), 4)} mentions (4: 4 or more)")
        journal = Journal(index.root)
        for mention in reversed(mentions):  # from the end: earlier offsets stay valid
            link_mention(index, journal, mention, TARGET)
        linked = path.read_bytes()
        assert linked.startswith(b"\xef\xbb\xbf") == bom
        rest = linked.decode("utf-8").removeprefix("\ufeff") if bom else linked.decode("utf-8")
        # Take each inserted link apart again, left to right; each moved the text after
        # it by the length of what it added.
        pos = 0
        shift = 0
        parts = []
        for mention in mentions:
            at = mention.start + shift
            parts.append(rest[pos:at])
            # the exact name links bare; other text keeps itself as the label
            if mention.text == "Alpha Beta":
                openings: tuple[str, ...] = ("[[",)
            else:
                openings = ("[[Alpha Beta|", "[[Alpha Beta\\|")
            for opening in openings:
                if rest.startswith(opening + mention.text + "]]", at):
                    break
            else:
                raise AssertionError(f"no link around {mention!r} at {at}")
            parts.append(mention.text)
            pos = at + len(opening) + len(mention.text) + 2
            shift += len(opening) + 2
        parts.append(rest[pos:])
        assert "".join(parts) == text
        assert find(index) == []  # nothing left to link
        for _ in mentions:
            journal.undo()
        assert path.read_bytes() == original
        assert all(entry.undone for entry in journal.entries())


WORDY = st.text(alphabet="abAB ß中é-.\n1", max_size=40)


@given(texts=st.lists(WORDY, min_size=1, max_size=4), name=WORDY)
@settings(max_examples=150, deadline=None)
def test_the_word_index_never_leaves_out_a_note_holding_a_mention(
    texts: list[str], name: str
) -> None:
    """Narrowed by the word index, the search finds exactly what reading every note finds."""
    from librarian_gui.core.backlinks.word_index import WordIndex
    from librarian_gui.core.parse.records import FileStamp

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clean = name.replace("\n", " ").strip(" .-")
        title = clean if len(clean) >= 2 else "ab"
        write(root, "target.md", f"---\ntitle: {title}\naliases: [{name.strip()!r}]\n---\n")
        for i, text in enumerate(texts):
            write(root, f"n{i}.md", text)
        index = scan(root)
        words = WordIndex()
        for rel in index.notes:
            words.put(rel, FileStamp(0, 0, 0), read_note(root, rel).text or "")
        words.complete = True
        everywhere = unlinked_mentions(index, "target.md", reader(index))
        among = words.holding(mention_names(index, "target.md"))
        event("narrowed" if among is not None else "not narrowed")
        narrowed = unlinked_mentions(index, "target.md", reader(index), among=among)
        assert narrowed == everywhere


def test_no_mention_in_a_file_name_a_path_or_a_heading(vault: Path) -> None:
    """Issue 28: Link offered on "MEMORY.md had 240 lines" wrote "[[MEMORY]].md had…",
    and Link was offered in a heading the tagger refuses. Where the tagger would not
    link, no mention is listed."""
    write(vault, "MEMORY.md", "# Memory\n")
    write(
        vault,
        "decisions/compaction.md",
        "# Weekly MEMORY compaction\n"  # line 1: a heading
        "\n"
        "By the end of October MEMORY.md had 240 lines.\n"  # 3: a file name
        "It lives at notes/MEMORY and ~/MEMORY/old.\n"  # 4: paths
        "Setext MEMORY heading\n"  # 5: a setext heading's text
        "---\n"
        "\n"
        "We trimmed MEMORY. Then we slept.\n",  # 8: the one mention
    )
    found = find(scan(vault), "MEMORY.md")
    assert [(m.source, m.line, m.column) for m in found] == [("decisions/compaction.md", 8, 11)]
