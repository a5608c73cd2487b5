"""Additions through the journal (an agent's writes): a new note, text appended; exact undo."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from librarian_gui.core.writing.additions import Addition
from librarian_gui.core.writing.journal import Edit, Journal
from librarian_gui.core.writing.safewrite import read_snapshot

REPO = Path(__file__).resolve().parents[3]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "diary").mkdir(parents=True)
    (root / "diary" / "2024-05-01.md").write_bytes(b"# May 1\r\n\r\nfirst line\r\n")
    return root


def test_create_writes_the_bytes_and_undo_moves_them_into_the_journal(vault: Path) -> None:
    journal = Journal(vault)
    data = b"# Decision\n\nWe use [[Postgres]].\n"
    entry = journal.add(
        "agent: write decisions/db.md", [Addition("decisions/db.md", data, "create")]
    )
    assert (vault / "decisions" / "db.md").read_bytes() == data
    assert entry.written == ("decisions/db.md",)
    assert [f.kind for f in entry.files] == ["create"]
    record = json.loads((vault / ".librarian/journal" / entry.id / "entry.json").read_text())
    assert record["format"] == 2
    assert record["files"][0]["before"] == "absent"
    assert record["files"][0]["after"] == sha(data)
    assert (vault / ".librarian/journal" / entry.id / "00000.added").read_bytes() == data

    result = journal.undo()
    assert result.restored == ("decisions/db.md",)
    assert not (vault / "decisions" / "db.md").exists()
    # the undone note's bytes stay in the journal: nothing is lost by an undo either
    assert (vault / ".librarian/journal" / entry.id / "00000.undone").read_bytes() == data
    assert journal.entry(entry.id).undone


def test_undo_removes_the_folders_a_create_made_and_only_those(vault: Path) -> None:
    """Two notes created in new folders (one nested), one in a folder that was there, empty:
    undo takes back the folders the entry made, deepest first, and leaves the one that was
    there before; a folder another file went into meanwhile stays."""
    (vault / "empty").mkdir()
    journal = Journal(vault)
    entry = journal.add(
        "three notes",
        [
            Addition("logs/2024/05-01.md", b"# a\n", "create"),
            Addition("logs/2024/05-02.md", b"# b\n", "create"),
            Addition("empty/c.md", b"# c\n", "create"),
            Addition("topics/d.md", b"# d\n", "create"),
        ],
    )
    record = json.loads((vault / ".librarian/journal" / entry.id / "entry.json").read_text())
    assert [f.get("made") for f in record["files"]] == ["logs", "logs", None, "topics"]
    (vault / "topics" / "kept.md").write_bytes(b"# another program's note\n")
    result = journal.undo()
    assert result.restored == (
        "logs/2024/05-01.md",
        "logs/2024/05-02.md",
        "empty/c.md",
        "topics/d.md",
    )
    assert not (vault / "logs").exists()
    assert (vault / "empty").is_dir() and not any((vault / "empty").iterdir())
    assert sorted(p.name for p in (vault / "topics").iterdir()) == ["kept.md"]


def test_create_never_replaces_an_existing_note(vault: Path) -> None:
    journal = Journal(vault)
    before = (vault / "diary" / "2024-05-01.md").read_bytes()
    entry = journal.add("agent", [Addition("diary/2024-05-01.md", b"new\n", "create")])
    assert entry.written == ()
    assert entry.skipped == (
        ("diary/2024-05-01.md", "exists already; nothing was written (ask to overwrite it)"),
    )
    assert (vault / "diary" / "2024-05-01.md").read_bytes() == before
    assert journal.entries() == []  # nothing written: no entry kept


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("../outside.md", "is not a path inside the vault; refused"),
        (".hidden/x.md", "is in a hidden folder or is a hidden file; Librarian never writes there"),
        ("a//b.md", "is not a path inside the vault; refused"),
    ],
)
def test_create_refuses_paths_outside_or_hidden(vault: Path, rel: str, reason: str) -> None:
    entry = Journal(vault).add("agent", [Addition(rel, b"x\n", "create")])
    assert entry.skipped == ((rel, reason),)
    assert not (vault.parent / "outside.md").exists()
    assert not (vault / ".hidden").exists()


def test_append_adds_exact_bytes_and_undo_restores_them(vault: Path) -> None:
    note = vault / "diary" / "2024-05-01.md"
    before = note.read_bytes()
    journal = Journal(vault)
    entry = journal.add("agent: append", [Addition("diary/2024-05-01.md", b"second\r\n", "append")])
    assert note.read_bytes() == b"# May 1\r\n\r\nfirst line\r\nsecond\r\n"
    record = json.loads((vault / ".librarian/journal" / entry.id / "entry.json").read_text())
    assert record["files"][0]["offset"] == len(before)
    assert record["files"][0]["before"] == sha(before)
    result = journal.undo()
    assert result.restored == ("diary/2024-05-01.md",)
    assert note.read_bytes() == before


def test_undo_of_an_append_keeps_what_another_program_wrote_after_it(vault: Path) -> None:
    note = vault / "diary" / "2024-05-01.md"
    journal = Journal(vault)
    journal.add("agent", [Addition("diary/2024-05-01.md", b"ours\r\n", "append")])
    with open(note, "ab") as other:  # an editor appends after the agent
        other.write(b"theirs\r\n")
    result = journal.undo()
    assert result.restored == ("diary/2024-05-01.md",)
    assert note.read_bytes() == b"# May 1\r\n\r\nfirst line\r\ntheirs\r\n"


def test_undo_is_refused_when_the_added_text_was_edited(vault: Path) -> None:
    note = vault / "diary" / "2024-05-01.md"
    journal = Journal(vault)
    journal.add("agent", [Addition("diary/2024-05-01.md", b"ours\r\n", "append")])
    edited = note.read_bytes().replace(b"ours", b"OURS")
    note.write_bytes(edited)
    result = journal.undo()
    assert result.restored == ()
    assert result.refused == (
        ("diary/2024-05-01.md", "changed since the text was appended; left alone"),
    )
    assert note.read_bytes() == edited


def test_undo_of_a_created_note_edited_since_is_refused(vault: Path) -> None:
    journal = Journal(vault)
    journal.add("agent", [Addition("new.md", b"one\n", "create")])
    (vault / "new.md").write_bytes(b"one\ntwo\n")
    result = journal.undo()
    assert result.refused == (("new.md", "changed since it was created; left alone"),)
    assert (vault / "new.md").read_bytes() == b"one\ntwo\n"


def test_append_to_a_missing_or_binary_note_is_refused(vault: Path) -> None:
    (vault / "bin.md").write_bytes(b"\x00\x01binary")
    entry = Journal(vault).add(
        "agent",
        [Addition("nope.md", b"x\n", "append"), Addition("bin.md", b"x\n", "append")],
    )
    assert entry.skipped == (
        ("nope.md", "no longer exists"),
        ("bin.md", "holds binary content, so Librarian does not edit it"),
    )
    assert (vault / "bin.md").read_bytes() == b"\x00\x01binary"
    assert not (vault / "nope.md").exists()


def test_additions_and_edits_share_one_undo_history(vault: Path) -> None:
    journal = Journal(vault)
    snap = read_snapshot(vault, "diary/2024-05-01.md")
    journal.apply("tag", [Edit("diary/2024-05-01.md", snap, snap.data.replace(b"first", b"1st"))])
    journal.add("agent", [Addition("diary/2024-05-01.md", b"more\r\n", "append")])
    assert journal.undo().restored == ("diary/2024-05-01.md",)  # the append, newest first
    assert (vault / "diary" / "2024-05-01.md").read_bytes() == b"# May 1\r\n\r\n1st line\r\n"
    assert journal.undo().restored == ("diary/2024-05-01.md",)
    assert (vault / "diary" / "2024-05-01.md").read_bytes() == snap.data


def test_appends_racing_another_appender_lose_no_line(vault: Path) -> None:
    note = vault / "log.md"
    note.write_bytes(b"# Log\n")
    with subprocess.Popen(
        [sys.executable, "-m", "tests.appender", str(note), "200", "7"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ) as other:
        assert other.stdout is not None
        assert other.stdout.readline().strip() == "ready"
        journal = Journal(vault)
        for n in range(100):
            journal.add("agent", [Addition("log.md", f"ours {n}\n".encode(), "append")])
        assert other.wait(timeout=60) == 0
    lines = note.read_text().splitlines()
    assert sorted(line for line in lines if line.startswith("ours ")) == sorted(
        f"ours {n}" for n in range(100)
    )
    assert [line for line in lines if line.startswith("agent line ")] == [
        f"agent line {n} mentions alpha" for n in range(200)
    ]
    assert len(lines) == 301
