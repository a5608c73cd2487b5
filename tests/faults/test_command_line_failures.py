"""When the system stops a command of ``librarian`` (issue 26, item 14): the writers' lock
cannot be made, the journal is a file, the disk is full, an ``--index`` path cannot be a
note, memory runs out, something is nested too deeply. Each ends in one ``librarian:`` line
naming the file and what to do, and a non-zero exit code — never a traceback."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from tests.faults.test_write_safety import DICTIONARY, hashes

LOCK_DIR = (
    "librarian: .librarian/lock: the vault's write lock cannot be made (Is a directory); "
    "nothing was written. .librarian/lock is a folder: remove it, and Librarian makes its "
    "lock file there.\n"
)
LOCK_RO = (
    "librarian: .librarian/lock: the vault's write lock cannot be made (Read-only file "
    "system); nothing was written. Make the folder .librarian in the vault writable, and "
    "retry.\n"
)
FULL = (
    "librarian: .librarian/journal: the undo journal cannot be written (the disk is full); "
    "nothing was written. Free some space and retry.\n"
)
JOURNAL_FILE = (
    "librarian: .librarian/journal is a file, not a folder: Librarian keeps its undo "
    "journal there, so it writes nothing. Move that file away.\n"
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def make_vault(root: Path) -> Path:
    """Notes that mention both concepts, one tagging run (rag) in the journal, and an index
    note that lists nothing: every writing command has something to write."""
    root.mkdir(exist_ok=True)
    (root / "concepts.json").write_bytes(DICTIONARY)
    (root / "a.md").write_bytes(b"RAG and CRDT.\n")
    (root / "b.md").write_bytes(b"Only CRDT.\n")
    (root / "MEMORY.md").write_bytes(b"# Memory\n")
    assert main(["tag", str(root), "--apply", "--concept", "rag", "--no-cache"]) == 0
    return root


@pytest.fixture
def vault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = make_vault(tmp_path / "vault")
    capsys.readouterr()
    return root


# Every command that writes the vault, as it is given: (arguments after VAULT).
WRITERS = {
    "tag --apply": ("tag", "{vault}", "--apply", "--concept", "crdt", "--wait", "0"),
    "tag --undo": ("tag", "{vault}", "--undo", "--wait", "0"),
    "index --fix": ("index", "{vault}", "--fix", "--wait", "0"),
    "undo": ("undo", "{vault}", "--wait", "0"),
    "scan --repair": ("scan", "{vault}", "--repair", "--wait", "0"),
}


def writers(vault: Path) -> list[tuple[str, list[str]]]:
    """Each writing command for ``vault``; and an interrupted write's leftover there, so
    that --repair has a reason to take the lock."""
    (vault / ".librarian-k2j3h4.tmp").write_bytes(b"a whole copy of a note\n")
    return [(name, [arg.format(vault=vault) for arg in args]) for name, args in WRITERS.items()]


def test_a_lock_that_is_a_folder_is_one_line_for_every_writer(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = vault / ".librarian" / "lock"
    lock.unlink()
    lock.mkdir()
    commands = writers(vault)
    before = hashes(vault)
    for name, args in commands:
        code, out, err = run(capsys, *args)
        assert (name, code, err) == (name, 1, LOCK_DIR)
        assert out == ""
    assert hashes(vault) == before


@contextlib.contextmanager
def mounted(folder: Path, *options: str) -> Iterator[None]:
    """``folder`` mounted with ``options`` (root only), unmounted after."""
    if os.geteuid() != 0:
        pytest.skip("mounting a file system needs root")
    done = subprocess.run(["mount", *options, str(folder)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"mount {' '.join(options)} failed: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_read_only_librarian_folder_is_one_line_for_every_writer(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Root writes through permissions, so the folder is a read-only mount of itself."""
    own = vault / ".librarian"
    commands = writers(vault)
    before = hashes(vault)
    with mounted(own, "--bind", str(own)):
        subprocess.run(["mount", "-o", "remount,ro,bind", str(own)], check=True)
        for name, args in commands:
            code, out, err = run(capsys, *args)
            assert (name, code, err) == (name, 1, LOCK_RO)
            assert out == ""
    assert hashes(vault) == before


def test_a_journal_that_is_a_file_is_one_line_for_every_writer(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = vault / ".librarian" / "journal"
    for entry in journal.iterdir():
        for item in entry.iterdir():
            item.unlink()
        entry.rmdir()
    journal.rmdir()
    journal.write_bytes(b"not a folder\n")
    commands = writers(vault)
    before = hashes(vault)
    for name, args in commands:
        code, out, err = run(capsys, *args)
        if name == "scan --repair":  # it needs no journal to clear the leftover
            assert (code, err) == (0, "")
            assert "  repaired: .librarian-k2j3h4.tmp: its bytes are not in the journal" in out
            continue
        assert (name, code, err) == (name, 1, JOURNAL_FILE)
        assert out == ""
    del before[".librarian-k2j3h4.tmp"]
    assert hashes(vault) == before


def test_a_full_disk_stops_a_write_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The vault on a small file system, filled up after the first tagging run."""
    root = tmp_path / "vault"
    root.mkdir()
    with mounted(root, "-t", "tmpfs", "-o", "size=256k", "tmpfs"):
        make_vault(root)
        capsys.readouterr()
        with open(root / ".filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        before = hashes(root)
        entries = sorted(os.listdir(root / ".librarian" / "journal"))
        for args in (
            ["tag", str(root), "--apply", "--concept", "crdt"],
            ["index", str(root), "--fix"],
        ):
            code, out, err = run(capsys, *args)
            assert (code, out, err) == (1, "", FULL)
        assert hashes(root) == before
        assert sorted(os.listdir(root / ".librarian" / "journal")) == entries


def test_no_space_for_the_journal_said_by_the_os_call_itself(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same, without a mount: the system call that writes the journal's copy fails."""
    from librarian_gui.core.writing import safewrite

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(safewrite.os, "write", full)
    before = hashes(vault)
    code, out, err = run(capsys, "tag", str(vault), "--apply", "--concept", "crdt")
    assert (code, out, err) == (1, "", FULL)
    assert hashes(vault) == before


def test_an_index_note_inside_a_file_is_refused_before_anything_is_written(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = hashes(vault)
    said = (
        "librarian: --index 'MEMORY.md/child.md': MEMORY.md is a file, so no note can be "
        "made inside it; give another path\n"
    )
    for extra in ((), ("--fix",)):
        assert run(capsys, "index", str(vault), "--index", "MEMORY.md/child.md", *extra) == (
            2,
            "",
            said,
        )
    assert hashes(vault) == before


def test_an_index_note_2100_folders_deep_is_refused_before_anything_is_written(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "/".join(["e"] * 2100) + "/x.md"
    before = hashes(vault)
    length = len(os.fsencode(vault / deep))
    said = (
        f"librarian: --index '{deep[:40]}…{deep[-20:]}': {length:,} bytes long with the "
        "vault's folder, more than the 4,095 a path may have; give a shorter path\n"
    )
    for extra in ((), ("--fix",)):
        assert run(capsys, "index", str(vault), "--index", deep, *extra) == (2, "", said)
    long_name = "n" * 300
    assert run(capsys, "index", str(vault), "--index", long_name, "--fix") == (
        2,
        "",
        f"librarian: --index '{long_name[:40]}…{long_name[-20:]}': a name in it is 303 bytes "
        "long, more than the 255 a file name may have; give a shorter one\n",
    )
    assert hashes(vault) == before
    assert not (vault / "e").exists()


def test_an_index_note_too_deep_to_watch_is_refused_before_anything_is_written(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1,500 folders: a short enough path, but making its folders one inside the other
    went past Python's recursion limit (RecursionError, os.makedirs), and watchdog, which
    walks a new folder as deep, would stop watching the vault."""
    deep = "/".join(["e"] * 1500) + "/x.md"
    before = hashes(vault)
    code, out, err = run(capsys, "index", str(vault), "--index", deep, "--fix")
    assert (code, out) == (2, "")
    assert err == (
        f"librarian: --index '{deep[:40]}…{deep[-20:]}': 1,500 folders deep, more than the "
        "800 Librarian makes notes in (the depth its watcher can follow); give a shorter path\n"
    )
    assert hashes(vault) == before
    assert not (vault / "e").exists()


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            MemoryError(),
            "{vault}: out of memory; librarian isolated stopped. Close other programs, or "
            "leave large folders out with --exclude, then run it again",
        ),
        (
            RecursionError("maximum recursion depth exceeded"),
            "{vault}: something is nested too deeply to follow; librarian isolated stopped. "
            "Look for a folder path or a file nested thousands of levels deep",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "/somewhere/file.md"),
            "/somewhere/file.md: Permission denied; librarian isolated stopped. Check its "
            "permissions, then run it again",
        ),
        (
            OSError(errno.EIO, "Input/output error"),
            "{vault}: Input/output error; librarian isolated stopped. Check the disk, then "
            "run it again",
        ),
        (
            OSError(errno.ENOTCONN, "Transport endpoint is not connected", "/mnt/x"),
            "/mnt/x: Transport endpoint is not connected; librarian isolated stopped",
        ),
    ],
    ids=["memory", "recursion", "permission", "io", "other"],
)
def test_what_no_command_catches_is_still_one_line(
    vault: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    said: str,
) -> None:
    def fail(*args: object, **kwargs: object) -> VaultIndex:
        raise error

    monkeypatch.setattr(VaultIndex, "scan", fail)
    assert run(capsys, "isolated", str(vault)) == (
        1,
        "",
        f"librarian: {said.format(vault=vault)}\n",
    )
