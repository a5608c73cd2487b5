"""The safe-write path on real files: snapshots, refusals, atomic replace, symlinks, modes."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

import pytest

from librarian_gui.core.writing.place import open_direct
from librarian_gui.core.writing.safewrite import (
    FileChanged,
    WriteRefused,
    _read_fd,
    atomic_write,
    create_file,
    encode_like,
    read_snapshot,
    replace_file,
)
from tests.conftest import write

# sha256 of these exact bytes, computed once outside this code base (sha256sum)
EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_snapshot_keeps_crlf_and_strips_bom(vault: Path) -> None:
    data = b"\xef\xbb\xbf# T\xc3\xadtulo\r\nline two\r\nlast\n"
    write(vault, "n.md", data)
    snap = read_snapshot(vault, "n.md")
    assert snap.rel == "n.md"
    assert snap.data == data
    assert snap.text == "# Título\r\nline two\r\nlast\n"
    assert snap.bom is True
    assert snap.newline == "\r\n"  # two CRLF against one LF
    assert snap.digest == hashlib.sha256(data).hexdigest()
    assert encode_like(snap, snap.text) == data


def test_snapshot_of_plain_lf_file(vault: Path) -> None:
    write(vault, "sub/n.md", "a\r\nb\nc\n")
    snap = read_snapshot(vault, "sub/n.md")
    assert (snap.bom, snap.newline, snap.text) == (False, "\n", "a\r\nb\nc\n")
    write(vault, "empty.md", b"")
    empty = read_snapshot(vault, "empty.md")
    assert (empty.text, empty.newline, empty.digest) == ("", "\n", EMPTY_SHA256)


def test_encode_like_adds_bom_only_when_the_file_had_one(vault: Path) -> None:
    write(vault, "bom.md", b"\xef\xbb\xbfx")
    write(vault, "plain.md", b"x")
    assert encode_like(read_snapshot(vault, "bom.md"), "y\r\n") == b"\xef\xbb\xbfy\r\n"
    assert encode_like(read_snapshot(vault, "plain.md"), "é") == b"\xc3\xa9"


def test_non_utf8_file_is_refused(vault: Path) -> None:
    write(vault, "latin.md", b"caf\xe9 au lait\n")
    with pytest.raises(WriteRefused) as info:
        read_snapshot(vault, "latin.md")
    assert str(info.value) == (
        "latin.md: is not valid UTF-8 (first bad byte at offset 3); Librarian does not "
        "edit it, so no byte of it is lost. Convert it to UTF-8 to edit it here."
    )
    assert info.value.rel == "latin.md"


def test_binary_missing_and_non_regular_files_are_refused(vault: Path) -> None:
    write(vault, "bin.md", b"PK\x03\x04\x00\x00data")
    with pytest.raises(WriteRefused, match=r"^bin\.md: holds binary content"):
        read_snapshot(vault, "bin.md")
    with pytest.raises(FileChanged, match=r"^gone\.md: no longer exists$"):
        read_snapshot(vault, "gone.md")
    (vault / "folder.md").mkdir()
    with pytest.raises(WriteRefused, match=r"^folder\.md: is not a regular file"):
        read_snapshot(vault, "folder.md")
    os.mkfifo(vault / "pipe.md")  # opening it must not block
    with pytest.raises(WriteRefused, match=r"^pipe\.md: is not a regular file"):
        read_snapshot(vault, "pipe.md")


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("../outside.md", "is not a path inside the vault; refused"),
        ("/etc/hostname", "is an absolute path; give a path inside the vault"),
        ("a/../../x.md", "is not a path inside the vault; refused"),
        ("", "is empty; give a vault path such as notes/idea.md"),
        ("a//b.md", "is not a path inside the vault; refused"),
        ("a\\..\\..\\x.md", "is not a path inside the vault; refused"),
        ("C:x.md", "is an absolute path; give a path inside the vault"),
        ("\\\\server\\share\\x.md", "is an absolute path; give a path inside the vault"),
    ],
)
def test_paths_outside_the_vault_are_refused(vault: Path, rel: str, reason: str) -> None:
    write(vault.parent, "outside.md", "keep")
    with pytest.raises(WriteRefused, match=re.escape(reason)):
        read_snapshot(vault, rel)
    with pytest.raises(WriteRefused, match=re.escape(reason)):
        replace_file(vault, rel, b"x", EMPTY_SHA256)
    assert (vault.parent / "outside.md").read_bytes() == b"keep"


def test_replace_writes_new_bytes_keeps_mode_and_leaves_no_temp(vault: Path) -> None:
    path = write(vault, "notes/n.md", b"old\r\n")
    path.chmod(0o640)
    snap = read_snapshot(vault, "notes/n.md")
    replace_file(vault, "notes/n.md", b"new\r\ntext\r\n", snap.digest)
    assert path.read_bytes() == b"new\r\ntext\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert listing(vault / "notes") == ["n.md"]


def test_replace_keeps_an_executable_mode(vault: Path) -> None:
    path = write(vault, "x.md", b"a")
    path.chmod(0o755)
    replace_file(vault, "x.md", b"b", read_snapshot(vault, "x.md").digest)
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_file_changed_between_read_and_write_is_refused_untouched(vault: Path) -> None:
    path = write(vault, "n.md", b"as read\n")
    snap = read_snapshot(vault, "n.md")
    path.write_bytes(b"an agent wrote this meanwhile\n")
    with pytest.raises(FileChanged) as info:
        replace_file(vault, "n.md", b"my edit\n", snap.digest)
    assert str(info.value) == (
        "n.md: changed on disk since Librarian read it; nothing was written. "
        "Look at the note again and retry."
    )
    assert (
        info.value.current_digest == hashlib.sha256(b"an agent wrote this meanwhile\n").hexdigest()
    )
    assert path.read_bytes() == b"an agent wrote this meanwhile\n"
    assert listing(vault) == ["n.md"]


def test_file_deleted_between_read_and_write_is_refused(vault: Path) -> None:
    path = write(vault, "n.md", b"x")
    snap = read_snapshot(vault, "n.md")
    path.unlink()
    with pytest.raises(FileChanged) as info:
        replace_file(vault, "n.md", b"y", snap.digest)
    assert info.value.current_digest is None
    assert listing(vault) == []


def test_symlinked_note_replaces_the_target_and_keeps_the_link(vault: Path) -> None:
    target = write(vault, "real/target.md", b"before\n")
    link = vault / "link.md"
    link.symlink_to(Path("real") / "target.md")
    snap = read_snapshot(vault, "link.md")
    assert snap.text == "before\n"
    replace_file(vault, "link.md", b"after\n", snap.digest)
    assert link.is_symlink()
    assert os.readlink(link) == "real/target.md"
    assert target.read_bytes() == b"after\n"
    assert listing(vault / "real") == ["target.md"]
    assert listing(vault) == ["link.md", "real"]


def test_symlink_to_a_file_outside_the_vault_is_refused(vault: Path) -> None:
    outside = write(vault.parent, "elsewhere.md", b"private\n")
    (vault / "link.md").symlink_to(outside)
    with pytest.raises(WriteRefused, match="outside the vault"):
        read_snapshot(vault, "link.md")
    digest = hashlib.sha256(b"private\n").hexdigest()
    with pytest.raises(WriteRefused, match="outside the vault"):
        replace_file(vault, "link.md", b"overwritten", digest)
    assert outside.read_bytes() == b"private\n"
    assert listing(vault.parent) == ["elsewhere.md", "vault"]


def test_note_in_a_folder_linked_from_outside_is_refused(vault: Path) -> None:
    outside = write(vault.parent, "shared/n.md", b"shared\n")
    (vault / "linked").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(
        WriteRefused, match=r"^linked/n\.md: is, through the symbolic link linked, outside the"
    ):
        read_snapshot(vault, "linked/n.md")
    assert outside.read_bytes() == b"shared\n"


def test_symlink_loop_is_refused(vault: Path) -> None:
    (vault / "a.md").symlink_to("b.md")
    (vault / "b.md").symlink_to("a.md")
    with pytest.raises(WriteRefused, match="symbolic link loop"):
        read_snapshot(vault, "a.md")


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "rename"])
def test_failed_rename_leaves_file_and_folder_as_they_were(
    vault: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool
) -> None:
    path = write(vault, "n.md", b"original\n")
    snap = read_snapshot(vault, "n.md")

    def full_disk(*args: object, **kwargs: object) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device")

    if exchange:
        monkeypatch.setattr("librarian_gui.core.writing.safewrite._exchange", full_disk)
    else:  # a file system that cannot exchange two names: the plain rename fails
        monkeypatch.setattr(
            "librarian_gui.core.writing.safewrite._exchange", lambda fd, a, b: False
        )
        monkeypatch.setattr("librarian_gui.core.writing.safewrite.os.replace", full_disk)
    with pytest.raises(WriteRefused) as info:
        replace_file(vault, "n.md", b"new\n", snap.digest)
    assert str(info.value) == (
        "n.md: could not be written (the disk is full); the note is unchanged"
    )
    assert path.read_bytes() == b"original\n"
    assert listing(vault) == ["n.md"]


def test_atomic_write_of_own_files(tmp_path: Path) -> None:
    path = tmp_path / "entry.json"
    atomic_write(path, b"{}")
    assert path.read_bytes() == b"{}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it may hold copies of notes
    path.chmod(0o644)
    atomic_write(path, b"[]")
    assert path.read_bytes() == b"[]"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert listing(tmp_path) == ["entry.json"]


def test_atomic_write_over_a_link_replaces_the_link_and_takes_nothing_from_its_target(
    tmp_path: Path,
) -> None:
    """A link planted at the name of one of Librarian's files (a cache's): the new file is
    private, as a new one is, not given the mode of what the link points to (a device, a
    world-writable file), and that is left as it was."""
    target = tmp_path / "elsewhere.json"
    target.write_bytes(b"theirs")
    target.chmod(0o666)
    path = tmp_path / "cache.json"
    path.symlink_to(target)
    atomic_write(path, b"ours")
    assert not path.is_symlink()
    assert path.read_bytes() == b"ours"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert target.read_bytes() == b"theirs"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666


def test_atomic_write_by_a_writer_function(tmp_path: Path) -> None:
    """A large file written as it is made: the function's bytes, seekable as zip needs,
    and nothing left behind when it raises."""
    path = tmp_path / "model.npz"
    path.write_bytes(b"old")

    def writer(file: BinaryIO) -> None:
        file.write(b"abcdef")
        file.seek(2)
        file.write(b"XY")

    atomic_write(path, writer)
    assert path.read_bytes() == b"abXYef"

    def broken(file: BinaryIO) -> None:
        file.write(b"half")
        raise RuntimeError("the model could not be made")

    with pytest.raises(RuntimeError):
        atomic_write(path, broken)
    assert path.read_bytes() == b"abXYef"
    assert listing(tmp_path) == ["model.npz"]


def test_a_path_through_a_link_above_the_vault_is_refused(vault: Path) -> None:
    note = write(vault, "n.md", b"n\n")
    (vault / "up").symlink_to("..", target_is_directory=True)
    rel = f"up/{vault.name}/n.md"  # leads back to n.md, through a link to the parent
    with pytest.raises(WriteRefused) as info:
        read_snapshot(vault, rel)
    assert str(info.value) == (
        f"{rel}: is a symbolic link loop, or reached through a link to the vault or a folder "
        "above it; refused"
    )
    with pytest.raises(WriteRefused):
        replace_file(vault, rel, b"x", hashlib.sha256(b"n\n").hexdigest())
    assert note.read_bytes() == b"n\n"


def test_create_file_makes_a_readable_new_file_and_never_replaces_one(tmp_path: Path) -> None:
    target = tmp_path / "concepts.json"
    create_file(target, b'{"rag": {}}\n')
    assert target.read_bytes() == b'{"rag": {}}\n'
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # the user's file, not a private one
    assert listing(tmp_path) == ["concepts.json"]  # the temporary file is gone
    with pytest.raises(FileExistsError):
        create_file(target, b"{}\n")
    assert target.read_bytes() == b'{"rag": {}}\n'
    assert listing(tmp_path) == ["concepts.json"]


def test_a_note_with_no_link_on_its_way_is_opened_directly(vault: Path) -> None:
    write(vault, "a/b/n.md", b"deep\n")
    write(vault, "top.md", b"top\n")
    for rel, data in (("a/b/n.md", b"deep\n"), ("top.md", b"top\n")):
        found = open_direct(vault, rel)
        assert found is not None
        fd, st = found
        try:
            assert st.st_size == len(data)
            assert os.pread(fd, 100, 0) == data
        finally:
            os.close(fd)


def test_a_link_or_anything_but_a_note_on_the_way_sends_a_reader_the_long_way(
    vault: Path,
) -> None:
    write(vault, "real/target.md", b"target\n")
    (vault / "linked.md").symlink_to(Path("real") / "target.md")
    (vault / "alias").symlink_to("real")
    (vault / "folder.md").mkdir()
    os.mkfifo(vault / "pipe.md")
    held = len(os.listdir("/proc/self/fd"))
    for rel in ("linked.md", "alias/target.md", "gone.md", "nope/x.md", "folder.md", "pipe.md"):
        assert open_direct(vault, rel) is None, rel
    assert len(os.listdir("/proc/self/fd")) == held  # no descriptor left open
    # ... where the link rule decides: followed inside the vault, refused for an agent
    assert read_snapshot(vault, "linked.md").data == b"target\n"
    assert read_snapshot(vault, "alias/target.md").data == b"target\n"
    with pytest.raises(WriteRefused, match=r"^linked\.md: is a symbolic link"):
        read_snapshot(vault, "linked.md", links="refuse")
    with pytest.raises(WriteRefused, match=r"^alias/target\.md: is reached through"):
        read_snapshot(vault, "alias/target.md", links="refuse")


def test_a_read_told_a_size_that_no_longer_holds_still_reads_the_whole_file(
    vault: Path,
) -> None:
    data = bytes(range(256)) * 400  # 102,400 bytes: more than one read of 65,536
    path = write(vault, "n.md", data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _read_fd(fd, "n.md", 10) == data  # it grew since the size was taken
        assert _read_fd(fd, "n.md", 200_000) == data  # it shrank
        assert _read_fd(fd, "n.md", 0) == data
        assert _read_fd(fd, "n.md") == data
    finally:
        os.close(fd)
