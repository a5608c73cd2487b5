"""A concept dictionary Librarian must not read: a gigabyte of it (memory runs out, or the
process aborts), a named pipe (the read blocks forever), a link to ``/dev/zero`` (the read
never ends), a folder. Each is refused before a byte is read, saying so about the file,
wherever a dictionary is loaded: the index, the editor's document, the command line, the
MCP server's live vault."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.concepts.dictionary import (
    MAX_DICTIONARY_BYTES,
    DictionaryUnusable,
    load_dictionary,
)
from librarian_gui.core.concepts.dictionary_file import DictionaryFile
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import REPO

GIGABYTE = 1 << 30
TOO_LARGE = (
    "1,073.7 MB, over the 32 MB a concept dictionary may have; not read. "
    "Check that it is the dictionary you meant"
)
PIPE = "a named pipe, not a file; not read. Put the dictionary file there"
DEVICE = "a device, not a file; not read. Put the dictionary file there"
FOLDER = "a folder, not a file; not read. Put the dictionary file there"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "one.md").write_text("We tried RAG, then [[two]].\n")
    (root / "two.md").write_text("# Two\n")
    return root


def gigabyte(path: Path) -> Path:
    """A sparse file of 1 GB: its size is real, its disk use none."""
    with open(path, "wb") as out:
        out.truncate(GIGABYTE)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_gigabyte_dictionary_is_refused_before_it_is_read(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = gigabyte(vault / "concepts.json")
    reads: list[int] = []
    real_read = os.read

    def counted(fd: int, size: int) -> bytes:
        reads.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", counted)
    loaded = load_dictionary(path)
    assert loaded.error == f"concepts.json: {TOO_LARGE}"
    assert loaded.concepts == ()
    with pytest.raises(DictionaryUnusable) as info:
        DictionaryFile.load(path)
    assert (info.value.reason, info.value.strerror, info.value.filename) == (
        TOO_LARGE,
        TOO_LARGE,
        str(path),
    )
    assert reads == []


def test_the_largest_dictionary_allowed_still_loads(tmp_path: Path) -> None:
    body = b'{"rag": {"aliases": ["RAG"]}}'
    path = tmp_path / "concepts.json"
    path.write_bytes(body + b" " * (MAX_DICTIONARY_BYTES - len(body)))
    assert [c.id for c in load_dictionary(path).concepts] == ["rag"]
    assert [c.id for c in DictionaryFile.load(path).concepts()] == ["rag"]
    with open(path, "ab") as out:
        out.write(b" ")
    assert load_dictionary(path).error == (
        "concepts.json: 32.0 MB, over the 32 MB a concept dictionary may have; not read. "
        "Check that it is the dictionary you meant"
    )


def test_a_folder_named_like_the_dictionary(tmp_path: Path) -> None:
    (tmp_path / "concepts.json").mkdir()
    assert load_dictionary(tmp_path / "concepts.json").error == f"concepts.json: {FOLDER}"


def test_the_index_and_the_mcp_servers_vault_say_so_and_go_on(vault: Path) -> None:
    from librarian_gui.core.live.runtime import LiveVault

    gigabyte(vault / "concepts.json")
    index = VaultIndex.scan(vault, use_cache=False)
    assert [(w.path, w.kind, w.message) for w in index.warnings()] == [
        ("concepts.json", "dictionary", TOO_LARGE)
    ]
    assert sorted(index.notes) == ["one.md", "two.md"]
    elsewhere = gigabyte(vault.parent / "big.json")
    live = LiveVault(vault, concepts=elsewhere, use_cache=False, related=False)
    try:
        assert live.index.concepts.error == f"big.json: {TOO_LARGE}"
        assert sorted(live.index.notes) == ["one.md", "two.md"]
    finally:
        live.close()


def test_every_command_that_reads_the_dictionary_says_it_is_too_large(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = gigabyte(vault / "concepts.json")
    said = f"librarian: {path}: {TOO_LARGE}\n"
    for command in (
        ["concepts", "check", str(vault)],
        ["concepts", "suggest", str(vault)],
        ["tag", str(vault), "--dry-run"],
        ["tag", str(vault), "--apply"],
        ["isolated", str(vault)],
        ["cooccur", str(vault), "--all"],
        ["timeline", str(vault), "rag"],
    ):
        assert run(capsys, *command) == (1, "", said), command
    code, out, err = run(capsys, "scan", str(vault), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["warning_details"] == [
        {"path": "concepts.json", "kind": "dictionary", "message": TOO_LARGE}
    ]
    other = gigabyte(vault.parent / "big.json")
    code, out, err = run(capsys, "scan", str(vault), "--concepts", str(other), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["warning_details"] == [
        {"path": str(other), "kind": "dictionary", "message": TOO_LARGE}
    ]
    assert run(capsys, "concepts", "check", str(vault), "--concepts", str(other)) == (
        1,
        "",
        f"librarian: {other}: {TOO_LARGE}\n",
    )


def _limited() -> None:
    # 4 GB of address space: the old reading of /dev/zero ran out in seconds instead of
    # taking the machine's memory; the interpreter and its libraries need far less.
    resource.setrlimit(resource.RLIMIT_AS, (4 * GIGABYTE, 4 * GIGABYTE))


def command_line(*args: str) -> subprocess.CompletedProcess[str]:
    """``librarian`` in a process of its own: a read that blocks or never ends fails the
    test at the timeout instead of hanging the run."""
    return subprocess.run(
        [sys.executable, "-m", "librarian_gui.cli", *args, "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limited,
        check=False,
    )


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: os.mkfifo(path), PIPE),
        (lambda path: os.symlink("/dev/zero", path), DEVICE),
    ],
    ids=["named pipe", "link to /dev/zero"],
)
def test_a_pipe_or_a_device_named_concepts_json_neither_hangs_nor_fills_memory(
    vault: Path, make: object, reason: str
) -> None:
    path = vault / "concepts.json"
    make(path)  # type: ignore[operator]
    for command in (["concepts", "check", str(vault), "--no-usage"], ["isolated", str(vault)]):
        done = command_line(*command)
        assert (done.returncode, done.stdout, done.stderr) == (
            1,
            "",
            f"librarian: {path}: {reason}\n",
        )
    done = command_line("scan", str(vault), "--json")
    assert (done.returncode, done.stderr) == (0, "")
    warnings = json.loads(done.stdout)["warning_details"]
    assert {"path": "concepts.json", "kind": "dictionary", "message": reason} in warnings
