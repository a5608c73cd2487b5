"""A warm start of a large vault walks it in another process while this one loads the cache
(issue 30): the walk there must list what a walk here lists, a warm scan through it must
see what changed while nothing watched, and a walk that fails there is done here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from librarian_gui.core.index import index as index_module
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault import walk_apart
from librarian_gui.core.vault.files import IgnoreRules, walk_vault
from librarian_gui.core.vault.walk_apart import WalkApart
from tests.conftest import write


def _vault_with_every_kind(root: Path) -> None:
    write(root, "a.md", "[[b]]", age=3600)
    write(root, "sub/b.md", "[[a]]", age=3600)
    write(root, "sub/deep/c.md", "c", age=3600)
    write(root, "sub/pic.png", b"\x89PNG", age=3600)
    write(root, ".hidden/d.md", "hidden", age=3600)
    write(root, "skipped/e.md", "ignored by the file", age=3600)
    write(root, "away/f.md", "excluded in the app", age=3600)
    write(root, ".librarianignore", "skipped/\n", age=3600)
    write(root, "g.md~", "a temporary file", age=3600)
    os.symlink(root / "sub", root / "sub" / "deep" / "loop")  # a folder holding the link
    (root / "folder.md").mkdir()  # a folder named like a note


def test_the_walk_apart_lists_what_a_walk_here_lists(vault: Path) -> None:
    _vault_with_every_kind(vault)
    apart = WalkApart(vault, ("away",)).result()
    assert apart is not None
    assert sorted(apart.notes) == ["a.md", "sub/b.md", "sub/deep/c.md"]
    assert sorted(apart.attachments) == ["sub/pic.png"]
    assert sorted((w.path, w.kind) for w in apart.warnings) == [
        ("folder.md", "not-a-file"),
        ("sub/deep/loop", "symlink-loop"),
    ]
    st = os.stat(vault / "sub" / "b.md")
    assert tuple(apart.notes["sub/b.md"]) == (st.st_size, st.st_mtime_ns, st.st_ino)
    here = walk_vault(vault, IgnoreRules(vault, ("away",)))
    assert apart == here


def test_a_warm_scan_walked_apart_sees_what_changed_while_closed(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "a.md", "[[b]]", age=3600)
    write(vault, "b.md", "b", age=3600)
    write(vault, "c.md", "[[a]]", age=3600)
    VaultIndex.scan(vault).wait_saved()
    write(vault, "a.md", "[[c]] and [[d]]", age=1800)  # changed while nothing watched
    write(vault, "d.md", "new", age=1800)
    (vault / "c.md").unlink()
    monkeypatch.setattr(walk_apart, "APART_FROM_CACHE_BYTES", 0)

    def not_here(*args: object, **kwargs: object) -> object:
        raise AssertionError("the vault was walked in this process")

    monkeypatch.setattr(index_module, "walk_vault", not_here)
    warm = VaultIndex.scan(vault)
    assert warm.last_parsed == 2  # a.md and d.md
    assert sorted(warm.notes) == ["a.md", "b.md", "d.md"]
    assert dict(warm.out_edges["a.md"]) == {"//unresolved/c": 1, "d.md": 1}
    assert dict(warm.in_edges["d.md"]) == {"a.md": 1}
    assert "a.md" not in warm.in_edges


def test_a_walk_that_fails_apart_is_done_here(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(vault, "a.md", "[[b]]", age=3600)
    write(vault, "b.md", "b", age=3600)
    VaultIndex.scan(vault).wait_saved()
    write(vault, "b.md", "[[a]]", age=1800)
    monkeypatch.setattr(walk_apart, "APART_FROM_CACHE_BYTES", 0)
    monkeypatch.setattr(walk_apart.sys, "executable", "/bin/false")  # exits 1 at once
    assert WalkApart(vault, ()).result() is None
    warm = VaultIndex.scan(vault)
    assert warm.last_parsed == 1
    assert dict(warm.in_edges["a.md"]) == {"b.md": 1}


def test_a_small_cache_walks_here(vault: Path) -> None:
    write(vault, "a.md", "a", age=3600)
    VaultIndex.scan(vault).wait_saved()
    from librarian_gui.core.index import cache

    size = os.stat(cache.cache_file(vault)).st_size
    assert size < walk_apart.APART_FROM_CACHE_BYTES
    assert not walk_apart.useful(cache.cache_file(vault))
    assert not walk_apart.useful(vault / "no-such-cache.bin")
