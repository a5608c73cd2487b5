"""The write path's hostile cases: damaged journals, a journal that is a file, two of
Librarian's writers at once, and the temporary files a killed write leaves behind."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.writing.journal import Edit, Journal, JournalError, temp_name
from librarian_gui.core.writing.lock import VaultBusy, vault_lock
from librarian_gui.core.writing.safewrite import WriteRefused, encode_like, read_snapshot
from tests.conftest import REPO, write

DICTIONARY = (
    b'{"rag": {"aliases": ["RAG"], "category": "retrieval"},\n'
    b' "crdt": {"aliases": ["CRDT"], "category": "sync"}}\n'
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hashes(root: Path) -> dict[str, str]:
    """Every file of the vault outside .librarian, by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(".librarian/"):
            out[rel] = sha(path)
    return out


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "concepts.json").write_bytes(DICTIONARY)
    (root / "a.md").write_bytes(b"RAG and CRDT.\n")
    (root / "b.md").write_bytes(b"Only CRDT.\n")
    return root


def entries_of(root: Path) -> list[Path]:
    return sorted((root / ".librarian" / "journal").iterdir())


# ------------------------------------------------------------------ damaged journal


def test_undo_refuses_when_the_newest_entry_is_damaged(
    tagged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "tag", str(tagged), "--apply", "--concept", "rag")[0] == 0
    assert run(capsys, "tag", str(tagged), "--apply", "--concept", "crdt")[0] == 0
    newest = entries_of(tagged)[-1]
    (newest / "entry.json").write_bytes(b'{"format": 1, "id": tru')
    before = hashes(tagged)
    code, out, err = run(capsys, "tag", str(tagged), "--undo")
    assert code == 1
    assert out == ""
    assert err == (
        f"librarian: the newest journal entry {newest.name} is damaged (journal entry "
        f"{newest.name} is corrupt (Expecting value: line 1 column 21 (char 20)); it cannot "
        "be undone), so nothing was undone: it may be the tagging run you mean. Undo an older "
        f"tagging run with --entry ID, or move the folder .librarian/journal/{newest.name} "
        "away.\n"
    )
    assert hashes(tagged) == before  # the older run was not undone instead


def test_undo_of_a_lone_damaged_entry_says_it_is_damaged(
    tagged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "tag", str(tagged), "--apply")[0] == 0
    [entry] = entries_of(tagged)
    (entry / "entry.json").write_bytes(b"[]")
    before = hashes(tagged)
    code, _, err = run(capsys, "tag", str(tagged), "--undo")
    assert code == 1
    assert err.startswith(f"librarian: the newest journal entry {entry.name} is damaged (")
    assert "no tagging run" not in err
    assert hashes(tagged) == before


def test_undo_by_entry_id_passes_a_damaged_newer_entry(
    tagged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = hashes(tagged)
    assert run(capsys, "tag", str(tagged), "--apply", "--concept", "rag")[0] == 0
    after_rag = (tagged / "a.md").read_bytes()
    assert run(capsys, "tag", str(tagged), "--apply", "--concept", "crdt")[0] == 0
    older, newest = entries_of(tagged)
    (newest / "entry.json").write_bytes(b"{")
    # a.md holds both runs' links; undoing only the older one finds it changed since.
    code, out, _ = run(capsys, "tag", str(tagged), "--undo", "--entry", older.name, "--json")
    assert code == 1
    assert json.loads(out) == {
        "entry": older.name,
        "restored": [],
        "refused": [
            {"path": "a.md", "reason": "changed since this write; left alone so no edit is lost"}
        ],
        "untouched": [],
    }
    assert after_rag != (tagged / "a.md").read_bytes() != original["a.md"]


def test_a_journal_that_is_a_file_is_a_clear_message(
    tagged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tagged / ".librarian").mkdir()
    (tagged / ".librarian" / "journal").write_bytes(b"not a folder\n")
    before = hashes(tagged)
    code, out, err = run(capsys, "tag", str(tagged), "--undo")
    assert (code, out) == (1, "")
    assert err == (
        "librarian: .librarian/journal is a file, not a folder: Librarian keeps its undo "
        "journal there, so it writes nothing. Move that file away.\n"
    )
    assert run(capsys, "tag", str(tagged), "--apply") == (1, "", err)
    assert hashes(tagged) == before
    assert (tagged / ".librarian" / "journal").read_bytes() == b"not a folder\n"


# ------------------------------------------------------------------ the writers' lock

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from librarian_gui.core.writing.lock import vault_lock
    with vault_lock(Path(sys.argv[1]), doing="a test holding the lock"):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def hold_lock(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_second_writer_waits_then_fails_naming_the_first(
    tagged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = hashes(tagged)
    holder = hold_lock(tagged)
    try:
        started = time.monotonic()
        code, out, err = run(capsys, "tag", str(tagged), "--apply", "--wait", "0.5")
        waited = time.monotonic() - started
    finally:
        holder.communicate("\n", timeout=30)
    assert (code, out) == (6, "")
    assert err == (
        f"librarian: {tagged}: is being written by another Librarian (pid {holder.pid}: a "
        "test holding the lock); nothing was written. Try again when it has finished.\n"
    )
    assert waited >= 0.5  # it did wait before giving up
    assert hashes(tagged) == before
    # Once the holder is gone (as when it dies: the kernel drops its lock), writing works.
    assert run(capsys, "tag", str(tagged), "--apply")[0] == 0


def test_threads_of_one_process_take_turns_and_may_nest(vault: Path) -> None:
    with vault_lock(vault), vault_lock(vault):  # a holder may take it again
        pass
    import threading

    held = threading.Event()
    release = threading.Event()

    def other() -> None:
        with vault_lock(vault, doing="the other thread"):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert held.wait(10)
    try:
        with pytest.raises(VaultBusy), vault_lock(vault, wait=0.1):
            pass
    finally:
        release.set()
        thread.join(10)
    with vault_lock(vault, wait=0.1):
        pass


def test_two_applies_at_once_keep_every_reported_write(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "concepts.json").write_bytes(DICTIONARY)
    for n in range(150):
        write(root, f"n{n:03d}.md", f"Note {n}: RAG here, and CRDT there.\n")
    tag = [sys.executable, "-m", "librarian_gui.cli", "tag", str(root), "--apply", "--json"]
    commands = [[*tag, "--no-cache", "--concept", c, "--wait", "60"] for c in ("rag", "crdt")]
    procs = [subprocess.Popen(c, cwd=REPO, stdout=subprocess.PIPE, text=True) for c in commands]
    reports = [json.loads(proc.communicate(timeout=120)[0]) for proc in procs]
    links = {"rag": "[[rag|RAG]]", "crdt": "[[crdt|CRDT]]"}
    for concept, report in zip(("rag", "crdt"), reports, strict=True):
        for rel in report["written"]:
            assert links[concept] in (root / rel).read_text("utf-8"), (concept, rel)
    # Every note was written by one run or skipped by it with a reason; none is both.
    for report in reports:
        skipped = {item["path"] for item in report["skipped"]}
        assert skipped.isdisjoint(report["written"])
        assert len(skipped) + len(report["written"]) == 150
    assert sum(len(r["written"]) for r in reports) >= 150  # the first run wrote them all


# ------------------------------------------------------------------ killed writes

KILLED = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from librarian_gui.core.writing import safewrite
    from librarian_gui.core.writing.journal import Edit, Journal
    from librarian_gui.core.writing.safewrite import encode_like, read_snapshot

    root, point = Path(sys.argv[1]), sys.argv[2]
    real_exchange = safewrite._exchange

    def die(*args):
        os.kill(os.getpid(), 9)

    if point == "before-swap":
        safewrite._exchange = die
    else:  # after the swap, before settle looks at the displaced file
        def exchange_then_die(folder_fd, a, b):
            real_exchange(folder_fd, a, b)
            if point == "appended":  # an agent's line lands in the displaced file
                fd = os.open(a, os.O_WRONLY | os.O_APPEND, dir_fd=folder_fd)
                os.write(fd, b"agent line\\n")
                os.close(fd)
            die()
        safewrite._exchange = exchange_then_die
    snap = read_snapshot(root, "a.md")
    Journal(root).apply("Killed", [Edit("a.md", snap, encode_like(snap, "[[x]] edit\\n"))])
    """
)


def kill_mid_write(root: Path, point: str) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED, str(root), point], cwd=REPO)
    assert proc.returncode == -signal.SIGKILL


def temps(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".librarian-"))


@pytest.mark.parametrize(
    ("point", "note_after"), [("before-swap", b"x edit\n"), ("after-swap", b"[[x]] edit\n")]
)
def test_the_next_write_clears_what_a_killed_write_left(
    vault: Path, point: str, note_after: bytes
) -> None:
    write(vault, "a.md", "x edit\n")
    write(vault, "b.md", "b\n")
    kill_mid_write(vault, point)
    [entry] = [p.name for p in entries_of(vault)]
    assert temps(vault) == [temp_name(entry, 0)]
    assert (vault / "a.md").read_bytes() == note_after
    journal = Journal(vault)
    snap = read_snapshot(vault, "b.md")
    journal.apply("Next", [Edit("b.md", snap, encode_like(snap, "B\n"))])
    assert temps(vault) == []
    assert not (vault / ".librarian" / "writing").exists()
    assert (vault / "b.md").read_bytes() == b"B\n"
    assert (vault / "a.md").read_bytes() == note_after


@pytest.mark.parametrize(("point", "which"), [("before-swap", "after"), ("after-swap", "before")])
def test_scan_repair_removes_a_copy_the_journal_knows(
    vault: Path, capsys: pytest.CaptureFixture[str], point: str, which: str
) -> None:
    write(vault, "a.md", "x edit\n")
    kill_mid_write(vault, point)
    [temp] = temps(vault)
    [entry] = [p.name for p in entries_of(vault)]
    code, out, _ = run(capsys, "scan", str(vault), "--repair", "--json")
    assert code == 0
    # Killed before the swap, the run wrote nothing: its entry goes, and undo never meets it.
    dropped = f'journal entry {entry} ("Killed") was interrupted before it wrote anything; removed'
    assert json.loads(out)["repaired"] == [
        f"{temp}: removed (a copy of a.md from {which} the write)",
        *([dropped] if point == "before-swap" else []),
    ]
    assert temps(vault) == []
    if point == "before-swap":
        assert not (vault / ".librarian" / "journal").exists()
    else:
        assert [p.name for p in entries_of(vault)] == [entry]


def test_scan_repair_puts_back_what_an_agent_wrote_into_the_displaced_file(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "a.md", "x edit\n")
    kill_mid_write(vault, "appended")
    [entry] = [p.name for p in entries_of(vault)]
    [temp] = temps(vault)
    # The killed write's version is in place; the agent's line only in the leftover.
    assert (vault / "a.md").read_bytes() == b"[[x]] edit\n"
    code, out, _ = run(capsys, "scan", str(vault), "--repair")
    assert code == 0
    assert (
        f"  repaired: {temp}: held what another program wrote to a.md during an "
        "interrupted write; put back in a.md"
    ) in out.splitlines()
    assert (vault / "a.md").read_bytes() == b"x edit\nagent line\n"
    assert temps(vault) == []
    assert entry


def test_scan_repair_keeps_an_unknown_temporary_file(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "sub/.librarian-k2j3h4.tmp", "something only this file holds\n")
    code, out, _ = run(capsys, "scan", str(vault), "--repair")
    assert code == 0
    [kept] = os.listdir(vault / ".librarian" / "recovered")
    assert kept.endswith("-0-sub__.librarian-k2j3h4.tmp")
    assert (vault / ".librarian" / "recovered" / kept).read_bytes() == (
        b"something only this file holds\n"
    )
    assert (
        "  repaired: sub/.librarian-k2j3h4.tmp: its bytes are not in the journal; moved to "
        f".librarian/recovered/{kept}"
    ) in out.splitlines()
    assert not (vault / "sub" / ".librarian-k2j3h4.tmp").exists()


def test_a_refused_write_names_the_note(vault: Path) -> None:
    write(vault, "a.md", "a\n")
    snap = read_snapshot(vault, "a.md")
    write(vault, "a.md", "changed\n")
    entry = Journal(vault).apply("Link", [Edit("a.md", snap, encode_like(snap, "A\n"))])
    assert entry.skipped == (
        (
            "a.md",
            "changed on disk since Librarian read it; nothing was written. "
            "Look at the note again and retry.",
        ),
    )
    with pytest.raises(JournalError):
        Journal(vault).undo()
    with pytest.raises(WriteRefused):
        raise VaultBusy("v", "x")


OPEN_FOR_WRITING = textwrap.dedent(
    """
    import os, sys
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
    print("open", flush=True)
    sys.stdin.readline()
    os.write(fd, b"written after Librarian's try\\n")
    os.close(fd)
    """
)


def test_a_note_another_program_holds_open_for_writing_is_left_to_it(vault: Path) -> None:
    note = write(vault, "log.md", "first line\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", OPEN_FOR_WRITING, str(note)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "open\n"
    name = Path(f"/proc/{holder.pid}/comm").read_text().strip()
    try:
        snap = read_snapshot(vault, "log.md")
        entry = Journal(vault).apply("Link", [Edit("log.md", snap, b"[[first]] line\n")])
    finally:
        holder.communicate("\n", timeout=30)
    assert entry.written == ()
    assert entry.skipped == (
        (
            "log.md",
            f"is open for writing in another program (pid {holder.pid} ({name})); Librarian's "
            "change was taken back and theirs kept, so nothing it writes is lost. Look at the "
            "note again and retry.",
        ),
    )
    # What it wrote through the descriptor it held is in the note, not in a removed file.
    assert note.read_bytes() == b"first line\nwritten after Librarian's try\n"
    assert sorted(os.listdir(vault)) == [".librarian", "log.md"]
