"""A note is old or new, never in between (issue 26, items 7-10 and 14): appends cut short
by a full disk or a kill, entries a kill left "pending", the leftovers of killed writes,
and the reasons a write is refused when the journal or the lock cannot be made.

Kills are real (the process sends itself SIGKILL at a chosen system call); a full disk is
a real small tmpfs when the tests run as root, and an injected ENOSPC otherwise."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.agents.writes import WriteFailed, append_to_note
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.writing import additions
from librarian_gui.core.writing.additions import Addition
from librarian_gui.core.writing.journal import Journal, temp_name
from tests.conftest import REPO, write
from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent

NOTE = b"# A\n"
PAGE = 4096


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def entries(root: Path) -> list[str]:
    folder = root / ".librarian" / "journal"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def own_temps(root: Path) -> list[str]:
    """Every temporary file of Librarian's anywhere in the vault, its own folder included."""
    return sorted(str(path.relative_to(root)) for path in root.rglob(".librarian-*.tmp"))


# ------------------------------------------------------------------ killed mid-write

KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from librarian_gui.core.writing.additions import Addition
    from librarian_gui.core.writing.journal import Journal

    root, point, rel, kind = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    data = sys.argv[5].encode()
    note = root / rel
    real_write, real_link, real_replace = os.write, os.link, os.replace

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    def torn(fd, view):
        # The kernel stops a killed write between the pages it copies: the bytes up to the
        # first page boundary past half of them land, then the process is gone.
        if os.path.exists(note) and os.path.samestat(os.fstat(fd), os.stat(note)):
            start = os.fstat(fd).st_size
            cut = ((start + len(view) // 2) // 4096 + 1) * 4096 - start
            if point == "none":
                die()
            real_write(fd, bytes(view[:cut]))
            die()
        return real_write(fd, view)

    if point in ("half", "none"):
        os.write = torn
    elif point == "link":
        os.link = die
    elif point == "record":
        os.replace = die
    Journal(root).add("Agent: killed", [Addition(rel, data + b"\\n", kind)])
    """
)


def killed_addition(root: Path, point: str, rel: str, kind: str, text: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILLED, str(root), point, rel, kind, text], cwd=REPO
    )
    assert proc.returncode == -signal.SIGKILL


def append_by_another_program(path: Path, data: bytes) -> None:
    with open(path, "ab") as other:
        other.write(data)


@pytest.fixture
def noted(vault: Path) -> Path:
    write(vault, "a.md", NOTE)
    write(vault, "b.md", "# B\n")
    return vault


TEXT = "x" * 20_000  # five pages: a kill lands between two of them


def test_an_append_killed_part_way_is_undone_exactly_keeping_what_came_after(
    noted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    killed_addition(noted, "half", "a.md", "append", TEXT)
    landed = (noted / "a.md").read_bytes()
    assert NOTE < landed < NOTE + TEXT.encode() + b"\n"  # torn: part of the text is there
    assert len(landed) % PAGE == 0
    append_by_another_program(noted / "a.md", b"theirs\n")
    code, out, err = run(capsys, "scan", str(noted))
    assert code == 0
    [entry] = entries(noted)
    assert (
        f"  warning: .librarian/writing/{entry}: a Librarian write was interrupted (killed) "
        "before it finished; `librarian scan --repair` finishes it (a torn append's bytes "
        "removed), `librarian undo` takes it back"
    ) in out.splitlines()
    code, out, err = run(capsys, "undo", str(noted), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["restored"] == ["a.md"]
    assert (noted / "a.md").read_bytes() == NOTE + b"theirs\n"
    assert own_temps(noted) == []


APPENDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from librarian_gui.core.writing.additions import Addition
    from librarian_gui.core.writing.journal import Journal

    root = Path(sys.argv[1])
    data = b"w" * (48 << 20) + b"\\n"
    Journal(root).add("Agent: append", [Addition("a.md", data, "append")])
    """
)


def test_a_real_kill_9_during_a_48_mb_append_is_undone_to_the_byte(
    noted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Killed by a real SIGKILL as soon as its first bytes land (wherever the kernel is in
    the copy by then), then another program appends: undo leaves the note as it was before
    the append, with their line — however much of the append had landed."""
    note = noted / "a.md"
    proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(noted)], cwd=REPO)
    try:
        while note.stat().st_size == len(NOTE) and proc.poll() is None:
            pass
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    landed = note.stat().st_size - len(NOTE)
    assert landed > 0
    append_by_another_program(note, b"theirs\n")
    code, _, err = run(capsys, "undo", str(noted))
    assert (code, err) == (0, ""), f"{landed:,} bytes had landed"
    assert note.read_bytes() == NOTE + b"theirs\n", f"{landed:,} bytes had landed"


def test_scan_repair_removes_a_torn_append(noted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    killed_addition(noted, "half", "a.md", "append", TEXT)
    torn = len((noted / "a.md").read_bytes()) - len(NOTE)
    append_by_another_program(noted / "a.md", b"theirs\n")
    code, out, err = run(capsys, "scan", str(noted), "--repair", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["repaired"] == [
        f"a.md: removed the {torn:,} bytes an interrupted append left (of {len(TEXT) + 1:,}); "
        "the rest of the note is kept"
    ]
    assert (noted / "a.md").read_bytes() == NOTE + b"theirs\n"
    assert entries(noted) == []  # it wrote nothing that stays: nothing left to undo


def test_an_entry_killed_before_its_bytes_landed_does_not_block_older_undos(
    noted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    older = Journal(noted).add("Agent: append to b.md", [Addition("b.md", b"one\n", "append")])
    assert older.written == ("b.md",)
    killed_addition(noted, "none", "a.md", "append", TEXT)
    [_, killed] = entries(noted)
    assert (noted / "a.md").read_bytes() == NOTE
    code, out, err = run(capsys, "undo", str(noted))
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f'passed over: journal entry {killed} ("Agent: killed") was interrupted before it '
        "wrote anything; removed",
        f"undid 'Agent: append to b.md' ({older.id})",
        "  restored  b.md",
    ]
    assert (noted / "b.md").read_bytes() == b"# B\n"
    assert entries(noted) == [older.id]


def test_the_next_write_clears_a_killed_creation_and_its_temporary_file(noted: Path) -> None:
    killed_addition(noted, "link", "new/c.md", "create", "# C\n")
    [killed] = entries(noted)
    assert own_temps(noted) == [f"new/{temp_name(killed, 0)}"]
    assert not (noted / "new" / "c.md").exists()
    entry = Journal(noted).add("next", [Addition("b.md", b"two\n", "append")])
    assert own_temps(noted) == []
    assert entries(noted) == [entry.id]  # the creation never happened: its entry is gone
    assert not (noted / ".librarian" / "writing").exists()


def test_the_next_write_clears_an_entry_killed_before_its_record(noted: Path) -> None:
    killed_addition(noted, "record", "a.md", "append", "more")
    [killed] = entries(noted)
    assert not (noted / ".librarian" / "journal" / killed / "entry.json").exists()
    assert len(own_temps(noted)) == 1  # the record's temporary file, in the entry's folder
    entry = Journal(noted).add("next", [Addition("b.md", b"two\n", "append")])
    assert entries(noted) == [entry.id]
    assert own_temps(noted) == []
    assert (noted / "a.md").read_bytes() == NOTE


# ------------------------------------------------------------------ a full disk, injected


@contextlib.contextmanager
def disk_fills_up(
    monkeypatch: pytest.MonkeyPatch, note: Path, after: int, then: bytes = b""
) -> Iterator[None]:
    """Writes to ``note`` stop with ENOSPC after ``after`` bytes; ``then`` is appended to
    it by another program just before the error (so the torn bytes cannot be taken back)."""
    real_write = os.write
    room = [after]

    def full(fd: int, data: bytes) -> int:
        if os.path.samestat(os.fstat(fd), os.stat(note)):
            if room[0]:  # a short write, as the kernel does when the disk fills up
                done = real_write(fd, bytes(data[: room[0]]))
                room[0] = 0
                if then:
                    append_by_another_program(note, then)
                return done
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(additions.os, "write", full)
    yield
    monkeypatch.undo()


def test_a_full_disk_mid_append_takes_its_bytes_back(
    noted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = VaultIndex.scan(noted, use_cache=False)
    with disk_fills_up(monkeypatch, noted / "a.md", 4092), pytest.raises(WriteFailed) as info:
        append_to_note(index, "y" * 8192, "a.md")
    assert str(info.value) == "a.md: cannot be written (the disk is full); nothing was appended"
    assert (noted / "a.md").read_bytes() == NOTE
    assert entries(noted) == []


def test_a_full_disk_mid_append_with_text_after_it_leaves_a_torn_tail_undo_removes(
    noted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = VaultIndex.scan(noted, use_cache=False)
    note = noted / "a.md"
    with (
        disk_fills_up(monkeypatch, note, 4092, then=b"theirs\n"),
        pytest.raises(WriteFailed) as info,
    ):
        append_to_note(index, "y" * 8192, "a.md")
    [entry] = entries(noted)
    assert str(info.value) == (
        "a.md: could not be written whole (the disk is full): 4,092 of 8,193 bytes landed "
        "and could not be taken back; undo this write to remove exactly them "
        f"(librarian undo VAULT --entry {entry})"
    )
    assert note.read_bytes() == NOTE + b"y" * 4092 + b"theirs\n"
    result = Journal(noted).undo()
    assert (result.entry_id, result.restored) == (entry, ("a.md",))
    assert note.read_bytes() == NOTE + b"theirs\n"


# ------------------------------------------------------------------ a real full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs, mounted for the test (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the injected full disk runs instead")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(disk: Path, leave: int) -> None:
    """Fill the disk, then free ``leave`` bytes again."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for block in (65536, 512):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * block):
                    pass
    finally:
        os.close(fd)
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - leave))


def test_on_a_real_full_disk_every_append_leaves_the_note_old_or_new(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An 8 KB append on a disk with 0 to 7 pages free, through the real server: each call
    either appends all of it or says the disk is full and leaves the note as it was."""
    vault = small_disk / "vault"
    write(vault, "a.md", NOTE)
    write(vault, "concepts.json", '{"rag": {"aliases": ["RAG"], "category": "x"}}\n')
    write(vault, "b.md", "We use RAG.\n")
    text = "z" * 8191
    outcomes: list[str] = []

    async def scenario(agent: Agent) -> None:
        expected = NOTE
        for pages in range(8):
            fill(small_disk, pages * PAGE)
            try:
                await agent.call("append_to_note", note="a.md", text=text)
                expected += text.encode() + b"\n"
                outcomes.append("appended")
            except ToolFailed as exc:
                assert "the disk is full" in str(exc), str(exc)
                outcomes.append("refused")
            assert (vault / "a.md").read_bytes() == expected
            (small_disk / "filler").unlink()

    run_agent(vault, scenario, "--allow-writes")
    assert "refused" in outcomes and "appended" in outcomes, outcomes
    fill(small_disk, 0)
    before = (vault / "b.md").read_bytes()
    for command in (["tag", str(vault), "--apply"], ["index", str(vault), "--fix"]):
        code, _, err = run(capsys, *command)
        assert code != 0, command
        assert err.startswith("librarian: ") and err.count("\n") == 1, err
        assert "the disk is full" in err and "Traceback" not in err, err
    assert (vault / "b.md").read_bytes() == before


# ------------------------------------------------------------------ refusals with reasons


def test_every_refused_write_names_the_file_and_what_to_do(vault: Path) -> None:
    write(vault, "MEMORY.md", "# Memory\n")
    write(vault, "a.md", NOTE)
    (vault / ".librarian").mkdir()
    (vault / ".librarian" / "lock").mkdir()
    deep = "/".join(["d"] * 2100) + "/deep.md"
    failures: dict[str, str] = {}

    async def scenario(agent: Agent) -> None:
        async def attempt(key: str, tool: str, **arguments: object) -> None:
            try:
                await agent.call(tool, **arguments)
                failures[key] = "written"
            except ToolFailed as exc:
                failures[key] = str(exc)

        await attempt("lock", "append_to_note", note="a.md", text="x")
        (vault / ".librarian" / "lock").rmdir()
        (vault / ".librarian" / "journal").write_text("not a folder")
        await attempt("journal", "append_to_note", note="a.md", text="x")
        (vault / ".librarian" / "journal").unlink()
        await attempt("child", "write_note", path="MEMORY.md/child.md", text="x")
        await attempt("deep", "write_note", path=deep, text="x")

    run_agent(vault, scenario, "--allow-writes")
    prefix = "Error executing tool"
    assert failures == {
        "lock": f"{prefix} append_to_note: .librarian/lock: the vault's write lock cannot be "
        "made (Is a directory); nothing was written. .librarian/lock is a folder: remove it, "
        "and Librarian makes its lock file there.",
        "journal": f"{prefix} append_to_note: .librarian/journal is a file, not a folder: "
        "Librarian keeps its undo journal there, so it writes nothing. Move that file away.",
        "child": f"{prefix} write_note: MEMORY.md/child.md: MEMORY.md is a file, not a folder; "
        "give a path whose folders are folders",
        "deep": f"{prefix} write_note: {deep[:80]}…: is too long ("
        f"{len(os.fsencode(str(vault.resolve()))) + 1 + len(deep):,} bytes with the vault's "
        "folder; the system's limit for a path is 4,096); give a shorter path",
    }
    assert (vault / "a.md").read_bytes() == NOTE
    assert not (vault / "MEMORY.md" / "child.md").exists() and not (vault / "d").exists()
