"""Each warning keeps its own kind (binary, too-large, encoding, unreadable, front-matter, …)
from reading, through the cache, to ``librarian scan --json``."""

from __future__ import annotations

import errno
import json
import marshal
import os
import struct
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index import cache
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault import files as vault_module
from tests.conftest import write

HOUR = 3600  # old enough that the warm scan trusts the cached records

EXPECTED = [
    ("big.md", "too-large", "too large to index (16.0 MB, limit 16 MB); listed, links not read"),
    ("blob.md", "binary", "binary content in a .md file; listed, not parsed"),
    (
        "fm.md",
        "front-matter",
        "front matter is not valid YAML at line 3, column 1: did not find expected ',' or "
        "']'; properties ignored",
    ),
    ("latin1.md", "front-matter", "front matter date 'someday' is not a date; ignored"),
    (
        "latin1.md",
        "encoding",
        "not valid UTF-8 (first bad byte at offset 25); read with replacement characters and "
        "never written back",
    ),
    ("secret.md", "unreadable", "cannot be read: permission denied"),
]


@pytest.fixture
def bad_vault(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(vault, "good.md", "[[blob]]\n", age=HOUR)
    write(vault, "blob.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00[[good]]", age=HOUR)
    write(vault, "big.md", b"x" * (vault_module.MAX_NOTE_BYTES + 1), age=HOUR)
    write(vault, "latin1.md", "---\ndate: someday\n---\ncaf\xe9\n".encode("latin-1"), age=HOUR)
    write(vault, "fm.md", "---\ntags: [a, b\n---\n[[good]]\n", age=HOUR)
    write(vault, "secret.md", "[[good]]\n", age=HOUR)
    # CI runs as root, where chmod 000 does not stop a read: the PermissionError an
    # ordinary user would get is raised here instead.
    real_open = os.open

    def guarded_open(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("secret.md"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vault_module.os, "open", guarded_open)
    return vault


def kinds_of(index: VaultIndex) -> list[tuple[str, str, str]]:
    return [(w.path, w.kind, w.message) for w in index.warnings()]


def test_each_warning_has_its_own_kind(bad_vault: Path) -> None:
    assert kinds_of(VaultIndex.scan(bad_vault, use_cache=False)) == EXPECTED


def test_kinds_survive_the_cache(bad_vault: Path) -> None:
    VaultIndex.scan(bad_vault).wait_saved()
    warm = VaultIndex.scan(bad_vault)
    assert warm.last_parsed == 0  # every record came from the cache
    assert kinds_of(warm) == EXPECTED


def test_scan_json_gives_each_warning_its_kind(
    bad_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", str(bad_vault), "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == 6
    assert data["warning_details"] == [
        {"path": path, "kind": kind, "message": message} for path, kind, message in EXPECTED
    ]


def _frame(value: object) -> bytes:
    data = marshal.dumps(value)
    return struct.pack("<Q", len(data)) + data


def test_a_cache_of_the_version_before_kinds_is_rebuilt(vault: Path) -> None:
    """Version 4 stored a record's warnings as messages only (9 fields a row)."""
    write(vault, "blob.md", b"\x00binary", age=HOUR)
    stamp = os.stat(vault / "blob.md")
    row = (
        "blob.md",
        (stamp.st_size, stamp.st_mtime_ns, stamp.st_ino),
        738000,
        "mtime",
        False,
        ("binary content in a .md file; listed, not parsed",),
        "",
        (),
        marshal.dumps(((), (), (), (), (), None, ("binary content",), 0, ())),
        (),  # resolved targets
        {},  # out edges
    )
    header = {
        "version": 4,
        "root": str(vault.resolve()),
        "saved_at_ns": stamp.st_mtime_ns + 10 * HOUR * 10**9,
        "fingerprint": VaultIndex(vault).fingerprint(),
        "note_frames": 1,
        "edge_frames": 0,
    }
    path = cache.cache_file(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cache._MAGIC + _frame(header) + _frame([row]) + _frame([]))
    index = VaultIndex.scan(vault)
    assert index.last_parsed == 1
    assert kinds_of(index) == [
        ("blob.md", "binary", "binary content in a .md file; listed, not parsed")
    ]
