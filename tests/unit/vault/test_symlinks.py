"""DESIGN §9, one symlink rule: a link is followed only when its real target lies inside the
vault; a link out of the vault, or to the vault or a folder above it, is refused and reported
once, by the walk, the live update, note reading and the renderer alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import node_kind
from librarian_gui.core.parse.records import ScanWarning
from librarian_gui.core.render.render import render_note
from librarian_gui.core.vault.files import IgnoreRules, ReadResult, classify_file, read_note
from tests.conftest import assert_same_as_fresh_scan, write

ABOVE = (
    "symbolic link to the vault itself or a folder above it: following it would include the "
    "vault in itself; skipped"
)
ALREADY = "folder link points to a folder already indexed (a loop); skipped"
LOOP = "symbolic link loop: following it never reaches a file; skipped"


def outside_message(target: Path) -> str:
    return f"symbolic link points outside the vault (to {target}); skipped"


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    """A folder of vaults (``vault`` and ``sibling``) next to a folder ``outside`` them."""
    root = tmp_path / "shelf"
    write(root, "vault/home.md", "Home: [[real]], [[leak]] and [[ext/inner]].\n")
    write(root, "vault/real.md", "Real note.\n")
    write(root, "sibling/other.md", "A sibling vault's note, [[home]].\n")
    write(tmp_path, "outside/secret.md", "TOP SECRET\n")
    write(tmp_path, "outside/pic.png", b"\x89PNG\r\n\x1a\n")
    write(tmp_path, "outside/folder/inner.md", "Inner secret.\n")
    return root


def warnings_of(index: VaultIndex) -> list[tuple[str, str, str]]:
    return [(w.path, w.kind, w.message) for w in index.warnings()]


# ------------------------------------------------------------------ the walk


def test_a_link_to_the_folder_above_the_vault_is_refused_not_walked(shelf: Path) -> None:
    vault = shelf / "vault"
    os.symlink("..", vault / "shelf")
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["home.md", "real.md"]
    assert warnings_of(index) == [("shelf", "symlink-loop", ABOVE)]


def test_a_link_to_the_vault_itself_says_it_would_include_the_vault(shelf: Path) -> None:
    vault = shelf / "vault"
    write(vault, "sub/n.md", "")
    os.symlink(vault, vault / "sub" / "again")
    os.symlink("/", vault / "root-of-everything")
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["home.md", "real.md", "sub/n.md"]
    assert warnings_of(index) == [
        ("root-of-everything", "symlink-loop", ABOVE),
        ("sub/again", "symlink-loop", ABOVE),
    ]


def test_a_link_to_a_folder_inside_already_indexed_is_reported_as_before(shelf: Path) -> None:
    vault = shelf / "vault"
    write(vault, "a/b/n.md", "")
    os.symlink("..", vault / "a" / "b" / "up")  # a/b/up -> a
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["a/b/n.md", "home.md", "real.md"]
    assert warnings_of(index) == [("a/b/up", "symlink-loop", ALREADY)]


def test_a_note_folder_and_image_linked_from_outside_are_not_indexed(
    shelf: Path, tmp_path: Path
) -> None:
    vault = shelf / "vault"
    outside = tmp_path / "outside"
    os.symlink(outside / "secret.md", vault / "leak.md")
    os.symlink(outside / "folder", vault / "ext")
    os.symlink("../../outside/pic.png", vault / "pic.png")  # relative links too
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["home.md", "real.md"]
    assert index.attachments == {}
    assert warnings_of(index) == [
        ("ext", "symlink-outside", outside_message(outside / "folder")),
        ("leak.md", "symlink-outside", outside_message(outside / "secret.md")),
        ("pic.png", "symlink-outside", outside_message(outside / "pic.png")),
    ]
    assert index.targets["home.md"] == (
        "real.md",
        "//unresolved/leak",
        "//unresolved/ext/inner",
    )


def test_links_whose_target_is_inside_the_vault_are_followed(shelf: Path) -> None:
    vault = shelf / "vault"
    write(vault, "sub/deep.md", "Deep.\n")
    os.symlink("real.md", vault / "alias.md")
    os.symlink(vault / "sub" / "deep.md", vault / "absolute.md")
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["absolute.md", "alias.md", "home.md", "real.md", "sub/deep.md"]
    assert warnings_of(index) == []


def test_a_vault_opened_through_a_link_follows_links_inside_its_real_folder(
    shelf: Path, tmp_path: Path
) -> None:
    os.symlink(shelf / "vault", tmp_path / "vault-link")
    os.symlink(shelf / "vault" / "real.md", shelf / "vault" / "alias.md")
    index = VaultIndex.scan(tmp_path / "vault-link", use_cache=False)
    assert sorted(index.notes) == ["alias.md", "home.md", "real.md"]
    assert warnings_of(index) == []


def test_file_link_loops_are_loops_and_only_a_dangling_link_links_to_nothing(
    vault: Path,
) -> None:
    os.symlink("b.md", vault / "a.md")
    os.symlink("a.md", vault / "b.md")
    os.symlink("x.md", vault / "x.md")
    os.symlink("nowhere.md", vault / "dangling.md")
    index = VaultIndex.scan(vault, use_cache=False)
    assert index.notes == {}
    assert warnings_of(index) == [
        ("a.md", "symlink-loop", LOOP),
        ("b.md", "symlink-loop", LOOP),
        ("dangling.md", "broken-link", "symbolic link to nothing; skipped"),
        ("x.md", "symlink-loop", LOOP),
    ]


def test_a_refused_link_that_is_ignored_is_not_reported(shelf: Path, tmp_path: Path) -> None:
    vault = shelf / "vault"
    write(vault, ".librarianignore", "ext/\nleak.md\n")
    os.symlink(tmp_path / "outside" / "folder", vault / "ext")
    os.symlink(tmp_path / "outside" / "secret.md", vault / "leak.md")
    os.symlink(tmp_path / "outside" / "secret.md", vault / ".hidden.md")
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["home.md", "real.md"]
    assert warnings_of(index) == []


# ------------------------------------------------------------------ the live path


def test_a_link_out_created_live_is_refused_by_classify_and_update(
    shelf: Path, tmp_path: Path
) -> None:
    vault = shelf / "vault"
    index = VaultIndex.scan(vault, use_cache=False)
    os.symlink(tmp_path / "outside" / "secret.md", vault / "leak.md")
    os.symlink(tmp_path / "outside" / "folder", vault / "ext")
    os.symlink("..", vault / "shelf")
    assert classify_file(vault, IgnoreRules(vault), "leak.md") == ScanWarning(
        "leak.md", "symlink-outside", outside_message(tmp_path / "outside" / "secret.md")
    )
    delta = index.update([vault / "leak.md", vault / "ext", vault / "shelf"])
    assert delta.notes_added == ()
    assert sorted(index.notes) == ["home.md", "real.md"]
    assert warnings_of(index) == [
        ("ext", "symlink-outside", outside_message(tmp_path / "outside" / "folder")),
        ("leak.md", "symlink-outside", outside_message(tmp_path / "outside" / "secret.md")),
        ("shelf", "symlink-loop", ABOVE),
    ]


def test_a_note_replaced_by_a_link_out_leaves_the_index(shelf: Path, tmp_path: Path) -> None:
    vault = shelf / "vault"
    index = VaultIndex.scan(vault, use_cache=False)
    (vault / "real.md").unlink()
    os.symlink(tmp_path / "outside" / "secret.md", vault / "real.md")
    delta = index.update([vault / "real.md"])
    assert delta.notes_removed == ("real.md",)
    assert sorted(index.notes) == ["home.md"]
    assert warnings_of(index) == [
        ("real.md", "symlink-outside", outside_message(tmp_path / "outside" / "secret.md"))
    ]


# ------------------------------------------------------------------ reading


def test_read_note_refuses_a_link_out_and_a_folder_link_out_on_the_way(
    shelf: Path, tmp_path: Path
) -> None:
    vault = shelf / "vault"
    os.symlink(tmp_path / "outside" / "secret.md", vault / "leak.md")
    os.symlink(tmp_path / "outside" / "folder", vault / "ext")
    assert read_note(vault, "leak.md") == ReadResult(
        None,
        None,
        False,
        ScanWarning(
            "leak.md", "symlink-outside", outside_message(tmp_path / "outside" / "secret.md")
        ),
    )
    assert read_note(vault, "ext/inner.md") == ReadResult(
        None,
        None,
        False,
        ScanWarning("ext", "symlink-outside", outside_message(tmp_path / "outside" / "folder")),
    )
    assert read_note(vault, "real.md").text == "Real note.\n"


def test_resolve_inside_follows_only_links_that_stay_inside(shelf: Path, tmp_path: Path) -> None:
    from librarian_gui.core.vault.files import follow_inside, resolve_inside  # new in issue 13

    vault = shelf / "vault"
    real = str(vault / "real.md")
    os.symlink("real.md", vault / "alias.md")
    os.symlink(tmp_path / "outside" / "secret.md", vault / "leak.md")
    os.symlink(tmp_path / "outside" / "folder", vault / "ext")
    os.symlink("..", vault / "shelf")
    os.symlink("loop.md", vault / "loop.md")
    os.symlink("new.md", vault / "dangling.md")
    assert resolve_inside(vault, "real.md") == real
    assert resolve_inside(vault, "alias.md") == real
    assert resolve_inside(vault, "not-yet.md") == str(vault / "not-yet.md")
    assert resolve_inside(vault, "dangling.md") == str(vault / "new.md")
    assert resolve_inside(vault, "shelf/vault/real.md") is None
    assert resolve_inside(vault, "leak.md") is None
    assert resolve_inside(vault, "ext/inner.md") is None
    assert resolve_inside(vault, "../sibling/other.md") is None
    assert resolve_inside(vault, "loop.md") is None
    assert resolve_inside(vault, "") is None
    assert resolve_inside(vault, "/etc/passwd") is None
    os.symlink(vault, tmp_path / "vault-link")
    assert resolve_inside(tmp_path / "vault-link", "alias.md") == real
    (vault / "sub").mkdir()
    assert follow_inside(vault, "sub/../shelf/x.md").refused == ScanWarning(
        "shelf", "symlink-loop", ABOVE
    )
    assert follow_inside(vault, "../vault/real.md").refused == ScanWarning(
        "../vault/real.md", "outside-vault", "is not a path inside the vault; refused"
    )


def test_an_embed_of_a_note_turned_into_a_link_out_is_not_shown(
    shelf: Path, tmp_path: Path
) -> None:
    """The index listed ``emb.md`` while it was a note; it is a link out by the time the
    note embedding it is rendered."""
    vault = shelf / "vault"
    write(vault, "host.md", "![[emb]]\n\n![[leak]]\n")
    write(vault, "emb.md", "Embedded text.\n")
    index = VaultIndex.scan(vault, use_cache=False)
    (vault / "emb.md").unlink()
    os.symlink(tmp_path / "outside" / "secret.md", vault / "emb.md")
    os.symlink(tmp_path / "outside" / "secret.md", vault / "leak.md")
    rendered = render_note(
        (vault / "host.md").read_text(),
        source="host.md",
        resolve=index.resolver.resolve_target,
        node_exists=lambda node: node_kind(index, node),
        read_note=lambda rel: read_note(vault, rel).text,
    )
    assert "TOP SECRET" not in rendered.html
    assert "This note could not be read." in rendered.html
    assert rendered.embeds == ("emb.md",)


def test_a_link_to_a_folder_the_walk_reads_anyway_is_skipped_live_as_in_a_full_scan(
    vault: Path,
) -> None:
    write(vault, "other/n.md", "[[s]]")
    write(vault, "sub/s.md", "s")
    index = VaultIndex.scan(vault, use_cache=False)
    os.symlink("../other", vault / "sub" / "loop")  # made while the index is live
    index.update(["sub/loop"])
    assert sorted(index.notes) == ["other/n.md", "sub/s.md"]
    assert [(w.path, w.kind) for w in index.warnings()] == [("sub/loop", "symlink-loop")]
    assert_same_as_fresh_scan(index)


def test_notes_behind_two_ways_in_are_indexed_by_their_own_path(vault: Path) -> None:
    write(vault, "z-real/n.md", "n")
    os.symlink("z-real", vault / "a-link")  # met first or not: the real path wins
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["z-real/n.md"]
    assert [(w.path, w.kind) for w in index.warnings()] == [("a-link", "symlink-loop")]


def test_a_link_to_a_hidden_folder_shows_it(vault: Path) -> None:
    write(vault, ".hidden/n.md", "n")
    os.symlink(".hidden", vault / "shown")
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["shown/n.md"]
    assert index.warnings() == []


def test_a_link_replaced_while_it_is_resolved_costs_that_path_only(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder link swapped for a folder while the scan resolves it: before Python 3.13,
    ``realpath``'s ``readlink`` then raises EINVAL (seen while an agent's folder was swapped
    in a loop: every live update of the batch failed). Injected here: the race is a
    microsecond wide."""
    import errno

    from librarian_gui.core.vault import files as vault_files

    write(vault, "a.md", "# A\n\n[[b]]\n")
    write(vault, "sub/b.md", "# B\n")
    os.symlink("sub", vault / "lnk")
    real = os.path.realpath

    def racing(path: str, *args: object, **kwargs: object) -> str:
        if str(path).endswith("lnk"):
            raise OSError(errno.EINVAL, "Invalid argument", str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vault_files.os.path, "realpath", racing)
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["a.md", "sub/b.md"]
    assert [(w.path, w.kind) for w in index.warnings()] == [("lnk", "vanished")]
    delta = index.update(["lnk/b.md", "a.md"])
    assert sorted(index.notes) == ["a.md", "sub/b.md"]
    assert delta.notes_removed == ()
