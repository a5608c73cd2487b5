"""The cache folder kept within its limit (``cache_room``): whole vaults' caches, the vault
used longest ago first, never the vault being saved."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from librarian_gui.core.index import cache, cache_room
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write

A, B, C = "a" * 24, "b" * 24, "c" * 24


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return cache.cache_dir()


def _file(folder: Path, kind: str, name: str, size: int, mtime_s: int) -> Path:
    path = folder / kind / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (mtime_s, mtime_s))
    return path


def test_the_vaults_used_longest_ago_go_first_and_whole(folder: Path) -> None:
    a = [
        _file(folder, "index", f"{A}.bin", 300, 1000),
        _file(folder, "postings", f"{A}.bin", 200, 900),
    ]
    b = [
        _file(folder, "related", f"{B}.npz", 500, 2000),
        _file(folder, "related", f"{B}.json", 10, 3000),
    ]
    c = [_file(folder, "index", f"{C}.bin", 100, 500), _file(folder, "words", f"{C}.bin", 100, 500)]
    other = [
        _file(folder, "index", ".index-tmp123", 5000, int(time.time())),  # being written
        _file(folder, "notes.txt", "x", 5000, 1),
    ]
    # by hand: 1,210 bytes of vaults' caches; A's newest file is older than B's; C is kept
    assert cache_room.trim(keep=C, limit=800) == [A]  # 1,210 - 500 = 710 fits
    assert not any(p.exists() for p in a)
    assert all(p.exists() for p in (*b, *c, *other))
    assert cache_room.trim(keep=C, limit=800) == []
    assert cache_room.trim(keep=C, limit=0) == [B]  # C is never removed
    assert all(p.exists() for p in (*c, *other)) and not any(p.exists() for p in b)


def test_temporary_files_a_save_left_an_hour_ago_are_removed(folder: Path) -> None:
    now = int(time.time())
    left = [
        _file(folder, "index", ".index-abandoned", 5000, now - 3700),
        _file(folder, "postings", ".librarian-tmp-x", 10, now - 7200),
    ]
    kept = [
        _file(folder, "index", ".index-writing", 5000, now - 60),  # a save under way
        _file(folder, "index", f"{A}.bin", 300, now - 9000),  # a vault's cache, within limit
    ]
    assert cache_room.trim(keep=C, limit=10_000) == []
    assert not any(p.exists() for p in left)
    assert all(p.exists() for p in kept)


def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache_room.LIMIT_ENV, "3")
    assert cache_room.limit_bytes() == 3 * 1024 * 1024
    monkeypatch.setenv(cache_room.LIMIT_ENV, "lots")
    assert cache_room.limit_bytes() == 4096 * 1024 * 1024
    monkeypatch.delenv(cache_room.LIMIT_ENV)
    assert cache_room.limit_bytes() == 4096 * 1024 * 1024


def test_saving_a_vaults_index_makes_room_and_loading_it_marks_it_used(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\n[[b]]\n")
    os.utime(vault / "a.md", (1_000_000_000, 1_000_000_000))  # long past: the cache trusts it
    stale = [
        _file(folder, "index", f"{A}.bin", 1000, 1000),
        _file(folder, "words", f"{A}.bin", 10, 1000),
    ]
    monkeypatch.setenv(cache_room.LIMIT_ENV, "0")  # nothing but the vault being saved
    index = VaultIndex.scan(vault, use_cache=True)
    index.wait_saved()
    mine = cache.cache_file(vault)
    assert mine.exists() and not any(p.exists() for p in stale)

    os.utime(mine, (1000, 1000))
    again = VaultIndex.scan(vault, use_cache=True)  # read from the cache: touched
    again.wait_saved()
    assert (again.notes.keys(), again.last_parsed) == ({"a.md"}, 0)  # nothing saved again
    assert mine.stat().st_mtime > 1000


def test_every_cache_of_a_vault_goes_with_it(folder: Path) -> None:
    # Each kind of per-vault cache a command writes, the review's passages too: a vault
    # trimmed loses all of them, so none grows outside the limit.
    kinds = ("index", "postings", "related", "words", "mentions", "passages", "names")
    a = [_file(folder, kind, f"{A}.bin", 100, 1000) for kind in kinds]
    c = _file(folder, "index", f"{C}.bin", 100, 5000)
    assert cache_room.trim(keep=C, limit=100) == [A]
    assert [p.exists() for p in a] == [False] * len(kinds)
    assert c.exists()
