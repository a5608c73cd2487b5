"""DESIGN §9: every kind of bad input is a warning on that item; the rest is indexed."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault import files as vault_module
from librarian_gui.core.vault import reading as reading_module
from tests.conftest import assert_same_as_fresh_scan, write


def good_notes(root: Path) -> None:
    write(root, "good/A.md", "[[B]]\n")
    write(root, "good/B.md", "[[A]]\n")


def assert_rest_indexed(index: VaultIndex) -> None:
    assert index.targets["good/A.md"] == ("good/B.md",)
    assert index.targets["good/B.md"] == ("good/A.md",)


def warnings_of(index: VaultIndex) -> list[tuple[str, str, str]]:
    return [(w.path, w.kind, w.message) for w in index.warnings()]


def test_non_utf8_is_read_with_replacement_and_flagged(vault: Path) -> None:
    good_notes(vault)
    write(vault, "latin1.md", "caf\xe9 [[good/A]]\n".encode("latin-1"))
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert index.notes["latin1.md"].lossy is True
    assert index.targets["latin1.md"] == ("good/A.md",)
    assert warnings_of(index) == [
        (
            "latin1.md",
            "encoding",
            "not valid UTF-8 (first bad byte at offset 3); read with replacement characters "
            "and never written back",
        )
    ]


def test_binary_note(vault: Path) -> None:
    good_notes(vault)
    write(vault, "blob.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00[[A]]")
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert index.notes["blob.md"].links == ()
    assert warnings_of(index) == [
        ("blob.md", "binary", "binary content in a .md file; listed, not parsed")
    ]


def test_fifty_megabyte_note(vault: Path) -> None:
    good_notes(vault)
    line = b"[[good/A]] " + b"x" * 89 + b"\n"
    with open(vault / "huge.md", "wb") as fh:
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            fh.write(line)
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert index.notes["huge.md"].links == ()
    assert warnings_of(index) == [
        (
            "huge.md",
            "too-large",
            "too large to index (52.4 MB, limit 16 MB); listed, links not read",
        )
    ]


def test_fifo_and_folder_named_like_notes(vault: Path) -> None:
    good_notes(vault)
    os.mkfifo(vault / "pipe.md")
    write(vault, "folder.md/inside.md", "[[good/A]]")
    index = VaultIndex.scan(vault, use_cache=False)  # must not block on the pipe
    assert_rest_indexed(index)
    assert "pipe.md" not in index.notes
    assert index.targets["folder.md/inside.md"] == ("good/A.md",)
    assert warnings_of(index) == [
        ("folder.md", "not-a-file", "a folder named like a note; read as a folder"),
        ("pipe.md", "not-a-file", "not a regular file (a pipe or device); skipped"),
    ]


def test_symlink_loop_and_broken_link(vault: Path) -> None:
    good_notes(vault)
    os.symlink(vault / "good", vault / "good" / "loop")
    os.symlink(vault / "nowhere.md", vault / "dangling.md")
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert sorted(index.notes) == ["good/A.md", "good/B.md"]
    assert warnings_of(index) == [
        ("dangling.md", "broken-link", "symbolic link to nothing; skipped"),
        (
            "good/loop",
            "symlink-loop",
            "folder link points to a folder already indexed (a loop); skipped",
        ),
    ]


def test_unreadable_file(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runs as root, where chmod 000 does not stop a read: inject the PermissionError
    the operating system would raise for an ordinary user."""
    good_notes(vault)
    write(vault, "secret.md", "[[good/A]]")
    real_open = os.open

    def guarded_open(path: object, flags: int, *args: object) -> int:
        if str(path).endswith("secret.md"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vault_module.os, "open", guarded_open)
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert "secret.md" in index.notes
    assert warnings_of(index) == [("secret.md", "unreadable", "cannot be read: permission denied")]


def test_file_vanishing_mid_scan(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good_notes(vault)
    write(vault, "zz-gone.md", "[[good/A]]")
    real_read = reading_module.read_note

    def read_and_delete(root: Path, rel: str) -> object:
        # the first read deletes a note that was listed but is not read yet
        if (root / "zz-gone.md").exists():
            os.remove(root / "zz-gone.md")
        return real_read(root, rel)

    monkeypatch.setattr(reading_module, "read_note", read_and_delete)
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert "zz-gone.md" not in index.notes
    assert warnings_of(index) == [("zz-gone.md", "vanished", "vanished while reading")]


def test_malformed_front_matter(vault: Path) -> None:
    good_notes(vault)
    write(vault, "fm.md", "---\ntags: [a, b\n---\n[[good/B]]\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert_rest_indexed(index)
    assert index.targets["fm.md"] == ("good/B.md",)
    assert warnings_of(index) == [
        (
            "fm.md",
            "front-matter",
            "front matter is not valid YAML at line 3, column 1: did not find expected ',' or "
            "']'; properties ignored",
        )
    ]


def test_hostile_files_made_while_the_index_is_live_are_reported_as_a_scan_would(
    vault: Path,
) -> None:
    good_notes(vault)
    index = VaultIndex.scan(vault, use_cache=False)
    os.mkfifo(vault / "pipe.md")
    write(vault, "y.md/in.md", "inside [[good/A]]")
    os.symlink("b.md", vault / "a.md")
    os.symlink("a.md", vault / "b.md")
    index.update(["pipe.md", "y.md", "a.md", "b.md"])
    assert [(w.path, w.kind) for w in index.warnings()] == [
        ("a.md", "symlink-loop"),
        ("b.md", "symlink-loop"),
        ("pipe.md", "not-a-file"),
        ("y.md", "not-a-file"),
    ]
    assert_same_as_fresh_scan(index)
