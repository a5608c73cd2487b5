"""The write journal on real files: write-ahead record, per-file outcomes, exact undo."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from librarian_gui.core.writing import journal as journal_module
from librarian_gui.core.writing.journal import (
    AlreadyUndone,
    Edit,
    Journal,
    JournalError,
    JournalFile,
)
from librarian_gui.core.writing.safewrite import Swap, encode_like, read_snapshot, swap_in
from tests.conftest import write


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def edit(root: Path, rel: str, new_text: str) -> Edit:
    snap = read_snapshot(root, rel)
    return Edit(rel, snap, encode_like(snap, new_text))


def entry_folders(root: Path) -> list[str]:
    folder = root / ".librarian" / "journal"
    return sorted(os.listdir(folder)) if folder.exists() else []


def test_apply_writes_files_and_records_the_entry(vault: Path) -> None:
    a = write(vault, "a.md", b"\xef\xbb\xbfone\r\ntwo\r\n")
    b = write(vault, "dir/b.md", b"alpha\n")
    journal = Journal(vault)
    entry = journal.apply(
        "Tag 2 notes",
        [edit(vault, "a.md", "one\r\n[[two]]\r\n"), edit(vault, "dir/b.md", "[[alpha]]\n")],
    )
    assert a.read_bytes() == b"\xef\xbb\xbfone\r\n[[two]]\r\n"
    assert b.read_bytes() == b"[[alpha]]\n"
    assert entry.description == "Tag 2 notes"
    assert entry.written == ("a.md", "dir/b.md")
    assert entry.skipped == ()
    assert entry.files == (
        JournalFile(
            "a.md",
            sha(b"\xef\xbb\xbfone\r\ntwo\r\n"),
            sha(b"\xef\xbb\xbfone\r\n[[two]]\r\n"),
            "written",
        ),
        JournalFile("dir/b.md", sha(b"alpha\n"), sha(b"[[alpha]]\n"), "written"),
    )
    assert journal.entries() == [entry]
    folder = vault / ".librarian" / "journal" / entry.id
    assert sorted(os.listdir(folder)) == ["00000.before", "00001.before", "entry.json"]
    assert (folder / "00000.before").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\n"
    assert (folder / "00001.before").read_bytes() == b"alpha\n"
    record = json.loads((folder / "entry.json").read_bytes())
    assert record["format"] == 1
    assert record["description"] == "Tag 2 notes"
    assert record["undo"] is None
    assert [(f["rel"], f["outcome"], f["blob"]) for f in record["files"]] == [
        ("a.md", "written", "00000.before"),
        ("dir/b.md", "written", "00001.before"),
    ]
    assert sorted(os.listdir(vault)) == [".librarian", "a.md", "dir"]  # no temp files


def test_entry_ids_sort_by_time_and_never_collide(vault: Path) -> None:
    write(vault, "n.md", "0")
    journal = Journal(vault)
    ids = []
    for i in range(1, 6):
        ids.append(journal.apply(f"edit {i}", [edit(vault, "n.md", str(i))]).id)
    assert len(set(ids)) == 5
    assert sorted(ids) == ids
    assert [e.description for e in journal.entries()] == [f"edit {i}" for i in (5, 4, 3, 2, 1)]


def test_changed_file_is_skipped_and_the_others_still_written(vault: Path) -> None:
    write(vault, "a.md", "a\n")
    b = write(vault, "b.md", "b\n")
    write(vault, "c.md", "c\n")
    edits = [edit(vault, "a.md", "A\n"), edit(vault, "b.md", "B\n"), edit(vault, "c.md", "C\n")]
    b.write_bytes(b"b, edited by an agent\n")
    done: list[tuple[int, int]] = []
    entry = Journal(vault).apply("three", edits, progress=lambda d, t: done.append((d, t)))
    assert (vault / "a.md").read_bytes() == b"A\n"
    assert b.read_bytes() == b"b, edited by an agent\n"
    assert (vault / "c.md").read_bytes() == b"C\n"
    assert entry.written == ("a.md", "c.md")
    assert entry.skipped == (
        (
            "b.md",
            "changed on disk since Librarian read it; nothing was written. "
            "Look at the note again and retry.",
        ),
    )
    assert done == [(1, 3), (2, 3), (3, 3)]
    assert Journal(vault).entries() == [entry]


def test_run_that_writes_nothing_leaves_no_entry(vault: Path) -> None:
    a = write(vault, "a.md", "a\n")
    write(vault, "same.md", "same\n")
    edits = [edit(vault, "a.md", "A\n"), edit(vault, "same.md", "same\n")]
    a.unlink()
    journal = Journal(vault)
    entry = journal.apply("nothing", edits)
    assert entry.description == "nothing"
    assert entry.written == ()
    assert entry.skipped == (("a.md", "no longer exists"), ("same.md", "nothing to change"))
    assert journal.entries() == []
    assert journal.apply("empty", []).files == ()
    # No journal either: only the writers' lock, taken before the deleted note was seen.
    assert sorted(os.listdir(vault)) == [".librarian", "same.md"]
    assert os.listdir(vault / ".librarian") == ["lock"]


def test_bad_edits_are_programming_errors(vault: Path) -> None:
    write(vault, "a.md", "a")
    write(vault, "b.md", "b")
    snap = read_snapshot(vault, "a.md")
    with pytest.raises(ValueError, match=r"carries a snapshot of a\.md"):
        Edit("b.md", snap, b"x")
    with pytest.raises(ValueError, match="two edits of the same file"):
        Journal(vault).apply("twice", [Edit("a.md", snap, b"x"), Edit("a.md", snap, b"y")])
    assert (vault / "a.md").read_bytes() == b"a"


def test_undo_restores_every_byte(vault: Path) -> None:
    original = b"\xef\xbb\xbf---\r\ntags: [x]\r\n---\r\nBody \xe2\x80\x94 text\r\nno newline at end"
    path = write(vault, "n.md", original)
    path.chmod(0o604)
    journal = Journal(vault)
    entry = journal.apply("edit", [edit(vault, "n.md", "replaced\n")])
    assert path.read_bytes() == b"\xef\xbb\xbfreplaced\n"
    result = journal.undo()
    assert result.entry_id == entry.id
    assert result.restored == ("n.md",)
    assert result.refused == ()
    assert path.read_bytes() == original
    assert oct(path.stat().st_mode & 0o777) == oct(0o604)
    assert journal.entries()[0].undone is True


def test_undo_twice_is_refused(vault: Path) -> None:
    path = write(vault, "n.md", "x")
    journal = Journal(vault)
    entry = journal.apply("edit", [edit(vault, "n.md", "y")])
    journal.undo(entry.id)
    with pytest.raises(AlreadyUndone, match=r'^"edit" \(.*\) is already undone$'):
        journal.undo(entry.id)
    with pytest.raises(JournalError, match="nothing to undo"):
        journal.undo()
    assert path.read_bytes() == b"x"


def test_undo_refuses_per_file_what_changed_since(vault: Path) -> None:
    a = write(vault, "a.md", "a\n")
    b = write(vault, "b.md", "b\n")
    c = write(vault, "c.md", "c\n")
    journal = Journal(vault)
    entry = journal.apply(
        "three",
        [edit(vault, "a.md", "A\n"), edit(vault, "b.md", "B\n"), edit(vault, "c.md", "C\n")],
    )
    b.write_bytes(b"B, then edited by hand\n")
    c.unlink()
    result = journal.undo()
    assert result.restored == ("a.md",)
    assert result.refused == (
        ("b.md", "changed since this write; left alone so no edit is lost"),
        ("c.md", "was deleted since; not restored"),
    )
    assert a.read_bytes() == b"a\n"
    assert b.read_bytes() == b"B, then edited by hand\n"
    assert not c.exists()
    assert journal.entry(entry.id).undone is True
    record = json.loads((vault / ".librarian" / "journal" / entry.id / "entry.json").read_bytes())
    assert record["undo"]["restored"] == ["a.md"]
    assert [rel for rel, _ in record["undo"]["refused"]] == ["b.md", "c.md"]


def test_undo_refused_everywhere_keeps_the_entry_undoable(vault: Path) -> None:
    path = write(vault, "n.md", "x")
    journal = Journal(vault)
    entry = journal.apply("edit", [edit(vault, "n.md", "y")])
    path.write_bytes(b"z")
    assert journal.undo().refused == (
        ("n.md", "changed since this write; left alone so no edit is lost"),
    )
    path.write_bytes(b"y")  # the user puts the written version back
    assert journal.undo().restored == ("n.md",)
    assert path.read_bytes() == b"x"
    assert journal.entry(entry.id).undone is True


def test_undo_picks_the_newest_entry_not_undone(vault: Path) -> None:
    path = write(vault, "n.md", "0")
    journal = Journal(vault)
    first = journal.apply("one", [edit(vault, "n.md", "1")])
    second = journal.apply("two", [edit(vault, "n.md", "2")])
    assert journal.undo().entry_id == second.id
    assert path.read_bytes() == b"1"
    assert journal.undo().entry_id == first.id
    assert path.read_bytes() == b"0"


def test_undo_of_a_skipped_file_does_nothing_to_it(vault: Path) -> None:
    write(vault, "a.md", "a")
    b = write(vault, "b.md", "b")
    edits = [edit(vault, "a.md", "A"), edit(vault, "b.md", "B")]
    b.write_bytes(b"agent")
    journal = Journal(vault)
    journal.apply("two", edits)
    result = journal.undo()
    assert (result.restored, result.refused, result.untouched) == (("a.md",), (), ())
    assert b.read_bytes() == b"agent"


def test_interrupted_run_can_still_be_undone(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = write(vault, "a.md", "a")
    b = write(vault, "b.md", "b")
    edits = [edit(vault, "a.md", "A"), edit(vault, "b.md", "B")]
    calls = []

    def crash_on_second(
        root: Path, rel: str, data: bytes, digest: str, name: str, base: int | None, **kw: str
    ) -> Swap:
        calls.append(rel)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process dies before recording any outcome
        return swap_in(root, rel, data, digest, name, base, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(journal_module, "swap_in", crash_on_second)
    journal = Journal(vault)
    with pytest.raises(KeyboardInterrupt):
        journal.apply("interrupted", edits)
    monkeypatch.undo()
    [entry] = journal.entries()
    assert entry.interrupted is True
    assert [f.outcome for f in entry.files] == ["pending", "pending"]
    assert (a.read_bytes(), b.read_bytes()) == (b"A", b"b")
    assert sorted(os.listdir(vault)) == [".librarian", "a.md", "b.md"]  # a.md was settled
    result = journal.undo()
    # b.md still holds its bytes from before: the run is settled as not having written it.
    assert (result.restored, result.refused, result.untouched) == (("a.md",), (), ())
    assert journal.entry(result.entry_id).skipped == (
        ("b.md", "interrupted before it was written"),
    )
    assert (a.read_bytes(), b.read_bytes()) == (b"a", b"b")


def test_corrupt_entry_is_reported_and_the_rest_still_works(vault: Path) -> None:
    path = write(vault, "n.md", "0")
    journal = Journal(vault)
    good = journal.apply("good", [edit(vault, "n.md", "1")])
    bad = journal.apply("bad", [edit(vault, "n.md", "2")])
    (vault / ".librarian" / "journal" / bad.id / "entry.json").write_bytes(b'{"format": 1, "id"')
    entries = journal.entries()
    assert [e.id for e in entries] == [bad.id, good.id]
    assert entries[0].error is not None
    assert entries[0].error.startswith(f"journal entry {bad.id} is corrupt (")
    assert entries[1] == good
    with pytest.raises(JournalError, match=f"journal entry {bad.id} is corrupt"):
        journal.undo(bad.id)
    with pytest.raises(JournalError, match=f"the newest journal entry {bad.id} is damaged"):
        journal.undo()
    assert path.read_bytes() == b"2"
    path.write_bytes(b"1")  # back to what the good entry wrote
    assert journal.undo(good.id).restored == ("n.md",)
    assert path.read_bytes() == b"0"


def test_corrupt_blob_is_refused_for_that_file(vault: Path) -> None:
    a = write(vault, "a.md", "a")
    b = write(vault, "b.md", "b")
    journal = Journal(vault)
    entry = journal.apply("two", [edit(vault, "a.md", "A"), edit(vault, "b.md", "B")])
    (vault / ".librarian" / "journal" / entry.id / "00000.before").write_bytes(b"garbage")
    result = journal.undo()
    assert result.refused == (("a.md", "its copy in the journal is damaged; left alone"),)
    assert result.restored == ("b.md",)
    assert (a.read_bytes(), b.read_bytes()) == (b"A", b"b")


def test_malformed_entries_never_crash_the_listing(vault: Path) -> None:
    write(vault, "n.md", "0")
    journal = Journal(vault)
    good = journal.apply("good", [edit(vault, "n.md", "1")])
    folder = vault / ".librarian" / "journal"
    cases = {
        "20000101-000000-000000-000": b"[1, 2]",
        "20000101-000000-000000-001": b'{"format": 99}',
        "20000101-000000-000000-002": b"\xff\xfe",
        "20000101-000000-000000-003": json.dumps(
            {
                "format": 1,
                "id": "20000101-000000-000000-003",
                "description": "x",
                "created": "x",
                "undo": None,
                "files": [
                    {
                        "rel": "n.md",
                        "before": "0",
                        "after": "1",
                        "blob": "../../n.md",
                        "outcome": "written",
                        "reason": "",
                    }
                ],
            }
        ).encode(),
    }
    for name, data in cases.items():
        (folder / name).mkdir()
        (folder / name / "entry.json").write_bytes(data)
    (folder / "20000101-000000-000000-004").mkdir()  # stopped before its record was saved
    (folder / "not-an-entry").mkdir()
    entries = journal.entries()
    assert entries[0] == good
    assert [e.id for e in entries[1:]] == [
        "20000101-000000-000000-004",
        "20000101-000000-000000-003",
        "20000101-000000-000000-002",
        "20000101-000000-000000-001",
        "20000101-000000-000000-000",
    ]
    assert all(e.error for e in entries[1:])
    assert "is incomplete" in (entries[1].error or "")
    with pytest.raises(JournalError, match="is not a journal entry id"):
        journal.undo("../../etc")
    with pytest.raises(JournalError, match="there is no journal entry"):
        journal.undo("20990101-000000-000000-000")
    journal.undo()  # the good entry
    # the newest entry left is incomplete: it wrote nothing, so undo looks past it
    with pytest.raises(JournalError, match="20000101-000000-000000-003 is corrupt"):
        journal.undo()


def test_one_entry_for_a_run_over_many_files(vault: Path) -> None:
    for i in range(120):
        write(vault, f"d{i % 7}/n{i}.md", f"note {i}\r\n")
    edits = [edit(vault, f"d{i % 7}/n{i}.md", f"[[note]] {i}\r\n") for i in range(120)]
    journal = Journal(vault)
    entry = journal.apply("Tag: 120 notes", edits)
    assert len(entry.written) == 120
    assert len(entry_folders(vault)) == 1
    result = journal.undo()
    assert len(result.restored) == 120
    assert all(
        (vault / f"d{i % 7}/n{i}.md").read_bytes() == f"note {i}\r\n".encode() for i in range(120)
    )


def test_text_appended_since_the_snapshot_is_kept_after_the_edit_unless_refused(
    vault: Path,
) -> None:
    note = write(vault, "n.md", "alpha\n")
    snap = read_snapshot(vault, "n.md")
    with open(note, "ab") as agent:
        agent.write(b"an agent's line\n")
    entry = Journal(vault).apply("Link", [Edit("n.md", snap, b"[[alpha]]\n")])
    assert entry.written == ("n.md",)
    assert note.read_bytes() == b"[[alpha]]\nan agent's line\n"

    data = write(vault, "concepts.json", '{"a": {}}')
    snap = read_snapshot(vault, "concepts.json")
    with open(data, "ab") as agent:
        agent.write(b"\n")
    edit = Edit("concepts.json", snap, b'{"b": {}}', keep_appends=False)
    entry = Journal(vault).apply("Save", [edit])
    assert entry.written == ()
    assert data.read_bytes() == b'{"a": {}}\n'
