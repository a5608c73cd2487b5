"""The index note's health on a vault whose answers are known by hand (tests/index_vault.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from librarian_gui.core.agents.tokens import estimate_tokens
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.index_note import (
    MAX_BYTES,
    DeadLink,
    IndexNoteHealth,
    NotAnIndexNote,
    date_named,
    dated_folders,
    excluded_by,
    health_json,
    index_note_health,
    index_note_named,
    text_entries,
)
from librarian_gui.core.parse.parser import parse_note
from tests.index_vault import EXCLUDE, LISTED, LONG, UNLISTED, index_text, write_index_vault
from tests.secret_vault import REFUSED_PAIRS, refusal, secret_vault


def scan(root: Path) -> VaultIndex:
    return VaultIndex.scan(root, use_cache=False)


def test_findings_are_exactly_the_ones_known_by_hand(tmp_path: Path) -> None:
    data = write_index_vault(tmp_path)
    health = index_note_health(scan(tmp_path), exclude=EXCLUDE)
    assert health.exists and health.error is None
    assert health.unlisted == UNLISTED
    assert health.listed == LISTED
    assert health.notes == 16 and health.excluded == 1
    assert health.dead_links == (DeadLink(11, "Missing Note", "[[Missing Note]]"),)
    assert [(t.line, t.end_line, t.chars) for t in health.text_entries] == [(15, 15, len(LONG))]
    assert health.folder_entries == ("logs",)
    assert [(d.folder, len(d.notes), d.listed, d.entries) for d in health.dated_folders] == [
        ("diary", 3, True, 1),  # one link to one of its notes lists it
        ("journal", 2, False, 0),
        ("logs", 2, True, 0),  # a folder entry
    ]
    assert [(m.kind, m.path, m.group) for m in health.missing] == [
        ("note", "omega.md", ""),
        ("note", "archive/old.md", "archive"),
        ("folder", "journal", "journal"),
        ("note", "notes/a#b.md", "notes"),
        ("note", "projects/delta.md", "projects"),
        ("note", "topics/epsilon.md", "topics"),
    ]
    assert (health.lines, health.bytes) == (19, len(data))
    assert not health.too_long and health.warnings == () and not health.healthy


def test_without_exclude_patterns_the_template_is_not_listed_either(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    health = index_note_health(scan(tmp_path))
    assert health.unlisted == tuple(sorted((*UNLISTED, "templates/daily.md")))
    assert health.excluded == 0 and health.notes == 17


def test_crlf_and_bom_give_the_same_findings(tmp_path: Path) -> None:
    write_index_vault(tmp_path, newline="\r\n", bom=True)
    health = index_note_health(scan(tmp_path), exclude=EXCLUDE)
    assert health.unlisted == UNLISTED
    assert health.dead_links == (DeadLink(11, "Missing Note", "[[Missing Note]]"),)
    assert [t.line for t in health.text_entries] == [15]
    assert health.lines == 19


def test_a_missing_index_note_is_a_finding_with_every_note_unlisted(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    (tmp_path / "MEMORY.md").unlink()
    health = index_note_health(scan(tmp_path), exclude=EXCLUDE)
    assert not health.exists and not health.healthy
    assert health.unlisted == tuple(sorted((*UNLISTED, *LISTED)))
    assert health.warnings == ("there is no index note MEMORY.md: Fix creates it",)
    folders = [m.path for m in health.missing if m.kind == "folder"]
    assert folders == ["diary", "journal", "logs"]
    assert health_json(health)["exists"] is False


def test_another_index_note_by_path(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "Index.md").write_text("- [all](../)\n- [[Alpha]]\n- [t](../topics/)\n")
    health = index_note_health(scan(tmp_path), index_note="hub/Index.md", exclude=EXCLUDE)
    # ``../`` is the vault root, not a folder entry: a dead link; ``../topics/`` is one.
    assert health.folder_entries == ("topics",)
    assert [d.text for d in health.dead_links] == ["[all](../)"]
    assert "MEMORY.md" in health.unlisted and "topics/epsilon.md" not in health.unlisted


def test_a_dated_folder_listed_note_by_note(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    with (tmp_path / "MEMORY.md").open("a") as f:
        f.write("- [[diary/2024-01-01]]\n- [[diary/2024-01-03]]\n")
    health = index_note_health(scan(tmp_path), exclude=EXCLUDE)
    assert [(d.folder, d.entries, d.note_by_note) for d in health.dated_folders] == [
        ("diary", 3, True),  # first, newest and one between: a list, not a range
        ("journal", 0, False),
        ("logs", 0, False),
    ]
    assert health.unlisted == UNLISTED


def test_length_warnings_past_200_lines_and_25_kb(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("x\n" * 200)
    assert index_note_health(scan(tmp_path)).warnings == ()
    (tmp_path / "MEMORY.md").write_text("x\n" * 201)
    health = index_note_health(scan(tmp_path))
    assert health.too_long and health.lines == 201
    assert health.warnings == ("201 lines, over 200: agents load only the first 200",)
    (tmp_path / "MEMORY.md").write_text("y" * MAX_BYTES)
    assert index_note_health(scan(tmp_path)).warnings == ()
    (tmp_path / "MEMORY.md").write_text("y" * (MAX_BYTES + 1))
    assert index_note_health(scan(tmp_path)).warnings == ("25.0 KB, over 25 KB: agents load less",)


def test_entries_holding_text() -> None:
    item = "- [[a]] — " + "w" * 120  # 120 characters besides the link: an entry
    long_item = "- [[a]] — " + "w" * 121
    continued = "- [[a]] — " + "w" * 60 + "\n  " + "v" * 60  # 121 with the joining space
    paragraph = "p" * 240
    long_paragraph = "q" * 241
    setext = "s" * 241 + "\n===\n"  # a heading, not a paragraph
    code = "```\n" + "c" * 300 + "\n```\n"
    text = "\n\n".join([item, long_item, continued, paragraph, long_paragraph, setext, code])
    found = text_entries(text, parse_note(text).links)
    assert [(t.line, t.end_line, t.chars) for t in found] == [
        (3, 3, 121),
        (5, 6, 121),
        (10, 10, 241),
    ]
    assert found[2].preview == "q" * 60 + "…"


def test_dated_names_and_folders() -> None:
    for name in ("2023-05-08.md", "2021_05_14.md", "20210514 standup.md", "2023-05.md"):
        assert date_named(name), name
    for name in ("2023-13-01.md", "202305.md", "2023-05-081.md", "notes 2023-05-08.md"):
        assert not date_named(name), name
    notes = [
        "j/2023/2023-01-01.md",
        "j/2023/2023-01-02.md",
        "j/2024/2024-01-01.md",
        "j/readme.md",  # 3 of 4 dated: still a log
        "p/one.md",
        "p/2023-01-01.md",  # 1 of 2: topical
        "p/s/2023-02-01.md",
        "solo/2023-01-01.md",  # one note is no log
    ]
    found = dated_folders(notes)
    assert list(found) == ["j"]  # p: 2 of 3 dated; p/s: a single note
    assert found["j"] == tuple(sorted(n for n in notes if n.startswith("j/")))


def test_exclude_patterns_match_paths_and_folders() -> None:
    assert excluded_by("templates/daily.md", ["templates"])
    assert excluded_by("a/templates/daily.md", ["*/templates"])
    assert excluded_by("archive/2020/x.md", ["archive/*"])
    assert excluded_by("x.draft.md", ["*.draft.md"])
    assert not excluded_by("templates.md", ["templates"])
    assert not excluded_by("Templates/x.md", ["templates"])  # case-sensitive


def test_json_keys_are_stable(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    doc = health_json(index_note_health(scan(tmp_path), exclude=EXCLUDE))
    assert list(doc) == [
        "index",
        "exists",
        "error",
        "healthy",
        "lines",
        "bytes",
        "tokens",
        "limits",
        "too_long",
        "warnings",
        "notes",
        "excluded",
        "listed",
        "unlisted",
        "dead_links",
        "text_entries",
        "folder_entries",
        "dated_folders",
        "missing_entries",
        "dumps",
    ]
    assert doc["missing_entries"][2] == {
        "kind": "folder",
        "path": "journal",
        "notes": 2,
        "group": "journal",
    }
    assert doc["tokens"] == estimate_tokens(index_text())


def test_web_links_urls_and_reference_definitions_are_pointers() -> None:
    url = "https://example.com/" + "u" * 100
    text = "\n\n".join(
        [
            f"- [the site]({url}) — " + "w" * 110,  # the link and its label out: 110
            f"- <{url}> and {url} " + "w" * 110,  # "and" stays: 3 + 1 + 110 = 114
            "\n".join(f"[ref{n}]: notes/some-long-note-name-{n}.md" for n in range(10)),
            f"- [[a]] [b](#heading) {url} " + "x" * 121,  # 121 besides every pointer
        ]
    )
    found = text_entries(text, parse_note(text).links)
    assert [(t.line, t.chars) for t in found] == [(16, 121)]  # after 1 + 1 + 1 + 1 + 10 + 1


def test_what_is_not_a_note_of_the_vault_is_refused_alike_whether_it_exists(
    tmp_path: Path,
) -> None:
    index = scan(secret_vault(tmp_path))
    assert sorted(index.notes) == ["MEMORY.md", "a.md"]
    for there, gone in REFUSED_PAIRS:
        for rel in (there, gone):
            health = index_note_health(index, index_note=rel)
            assert health == IndexNoteHealth(rel, False, notes=2, error=refusal(rel)), rel
    for name in (str(tmp_path / "outside.md"), str(tmp_path / "gone.md")):  # absolute
        assert index_note_health(index, index_note=name).error == refusal(name)


def test_index_note_named_refuses_before_reading_and_adds_md(tmp_path: Path) -> None:
    index = scan(secret_vault(tmp_path))
    assert index_note_named(index, "memory") == "MEMORY.md"
    assert index_note_named(index, "notes/new") == "notes/new.md"  # not there yet: allowed
    assert index_note_named(index, "notes/../new.md") == "new.md"
    # a name is a note's: data.json names data.json.md, which is not there
    assert index_note_named(index, "attachments/data.json") == "attachments/data.json.md"
    for there, gone in REFUSED_PAIRS:
        if there.startswith("attachments/"):
            continue
        for name in (there, gone):
            with pytest.raises(NotAnIndexNote) as caught:
                index_note_named(index, name)
            assert str(caught.value) == refusal(name), name
