"""The parse cache: reused when files are unchanged, never trusted when damaged."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from librarian_gui.core.index import cache
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write


def make_vault(root: Path, count: int) -> None:
    for i in range(count):
        write(root, f"n{i:03}.md", f"note {i} links [[n{(i + 1) % count:03}]]\n", age=3600)


def test_second_scan_parses_nothing_and_touching_ten_reparses_those_ten(vault: Path) -> None:
    make_vault(vault, 60)
    first = VaultIndex.scan(vault)
    assert first.last_parsed == 60
    second = VaultIndex.scan(vault)
    assert second.last_parsed == 0
    assert second.stats() == first.stats()
    touched = [f"n{i:03}.md" for i in range(0, 60, 6)]
    for rel in touched:
        write(vault, rel, (vault / rel).read_text() + "more [[n000]]\n", age=1800)
    third = VaultIndex.scan(vault)
    assert third.last_parsed == 10
    assert sorted(p for p in touched if "n000.md" in third.out_edges[p]) == touched


def test_same_size_replacement_with_the_same_mtime_is_noticed_by_inode(vault: Path) -> None:
    write(vault, "a.md", "[[x]]", age=3600)
    VaultIndex.scan(vault)
    st = os.stat(vault / "a.md")
    write(vault, "tmp", "[[y]]")  # an editor's atomic save: a new file moved over the note
    os.utime(vault / "tmp", ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(vault / "tmp", vault / "a.md")
    again = VaultIndex.scan(vault)
    assert again.last_parsed == 1
    assert again.targets["a.md"] == ("//unresolved/y",)


def test_rewrite_within_the_timestamp_tick_of_the_save_is_reparsed(vault: Path) -> None:
    write(vault, "b.md", "[[z]]")
    VaultIndex.scan(vault)  # b.md's mtime is within a second of this cache save
    st = os.stat(vault / "b.md")
    with open(vault / "b.md", "r+b") as fh:  # same inode, same size ...
        fh.write(b"[[w]]")
    os.utime(vault / "b.md", ns=(st.st_atime_ns, st.st_mtime_ns))  # ... same mtime
    latest = VaultIndex.scan(vault)
    assert latest.last_parsed == 1
    assert latest.targets["b.md"] == ("//unresolved/w",)


def test_a_file_dated_in_the_future_is_trusted_once_parsed(vault: Path) -> None:
    # A clock ahead, a file synced from another machine, a diary stamped with its day: its
    # time is far from the save's, so a rewrite since would have changed it. Only a time
    # within the grace around the save is doubted; this one was parsed at every start.
    make_vault(vault, 3)
    ahead = time.time_ns() + 400 * 86_400 * 10**9
    os.utime(vault / "n001.md", ns=(ahead, ahead))
    assert VaultIndex.scan(vault).last_parsed == 3
    again = VaultIndex.scan(vault)
    assert again.last_parsed == 0
    assert again.targets["n001.md"] == ("n002.md",)
    write(vault, "n001.md", "note 1 now links [[n000]]\n")  # rewritten: today's time
    latest = VaultIndex.scan(vault)
    assert latest.last_parsed == 1
    assert latest.targets["n001.md"] == ("n000.md",)


def test_corrupt_or_foreign_cache_is_rebuilt(vault: Path) -> None:
    make_vault(vault, 5)
    VaultIndex.scan(vault).wait_saved()  # the cache is written on a thread
    path = cache.cache_file(vault)
    for junk in (b"", b"garbage", cache._MAGIC + b"\x00\x01broken", cache._MAGIC + b"\xff" * 50):
        path.write_bytes(junk)
        index = VaultIndex.scan(vault)
        index.wait_saved()
        assert index.last_parsed == 5
        assert index.stats()["edges"] == 5
    # a cache written for another version is ignored too
    import marshal

    path.write_bytes(cache._MAGIC + marshal.dumps({"version": -1, "notes": {}}))
    assert VaultIndex.scan(vault).last_parsed == 5


def test_cache_lives_outside_the_vault_and_vault_is_untouched(vault: Path) -> None:
    make_vault(vault, 3)
    before = sorted(p.name for p in vault.rglob("*"))
    VaultIndex.scan(vault).wait_saved()
    assert sorted(p.name for p in vault.rglob("*")) == before
    assert cache.cache_file(vault).is_file()
    assert vault.resolve() not in cache.cache_file(vault).parents
    assert str(cache.cache_dir()).startswith(os.environ["XDG_CACHE_HOME"])


def test_no_cache_option_neither_reads_nor_writes(vault: Path) -> None:
    make_vault(vault, 3)
    VaultIndex.scan(vault, use_cache=False)
    assert not cache.cache_file(vault).exists()


def test_warm_scan_sees_deleted_and_added_files(vault: Path) -> None:
    make_vault(vault, 4)
    VaultIndex.scan(vault)
    os.remove(vault / "n001.md")
    write(vault, "extra.md", "[[n001]]", age=100)
    index = VaultIndex.scan(vault)
    assert sorted(index.notes) == ["extra.md", "n000.md", "n002.md", "n003.md"]
    assert index.last_parsed == 1
    assert index.targets["extra.md"] == ("//unresolved/n001",)


def test_truncated_cache_is_rebuilt(vault: Path) -> None:
    make_vault(vault, 5)
    VaultIndex.scan(vault).wait_saved()
    path = cache.cache_file(vault)
    whole = path.read_bytes()
    for size in (len(cache._MAGIC) + 4, len(whole) // 2, len(whole) - 1):
        path.write_bytes(whole[:size])
        index = VaultIndex.scan(vault)
        index.wait_saved()
        assert index.last_parsed == 5
        assert path.read_bytes() != whole[:size]  # written again, whole


def test_scan_right_after_a_scan_waits_for_its_cache(vault: Path) -> None:
    make_vault(vault, 5)
    VaultIndex.scan(vault)  # its cache is still being written on a thread here
    second = VaultIndex.scan(vault)
    assert second.last_parsed == 0
    assert second.stats()["edges"] == 5


@pytest.mark.parametrize("memo_full", [False, True], ids=["fresh", "key-memo-full"])
def test_a_loaded_cache_holds_each_path_and_name_once(
    vault: Path, monkeypatch: pytest.MonkeyPatch, memo_full: bool
) -> None:
    if memo_full:  # a long-lived process: the link keys' memo is emptied during the scan
        from librarian_gui.core.vault import reading

        filler = {f"filler {i}": "" for i in range(199_999)}
        monkeypatch.setattr(reading, "_key_memo", filler)
    for name in ("a", "b", "c"):
        write(vault, f"{name}.md", "to the [[Hub]] and [[hub]]\n", age=3600)
    write(vault, "hub.md", "# Hub\n", age=3600)
    VaultIndex.scan(vault).wait_saved()
    loaded = cache.load(vault.resolve())
    assert loaded is not None
    keys = [loaded.notes[f"{n}.md"].link_keys for n in "abc"]
    assert keys == [("hub",)] * 3
    assert keys[0][0] is keys[1][0] is keys[2][0]  # one string, not one per note
    hub = next(rel for rel in loaded.notes if rel == "hub.md")
    assert all(next(iter(loaded.out_edges[f"{n}.md"])) is hub for n in "abc")
    assert all(source is loaded.notes[source].path for source in loaded.in_edges["hub.md"])
    assert loaded.targets["a.md"] == ("hub.md", "hub.md")  # each link, resolved
    assert all(target is hub for n in "abc" for target in loaded.targets[f"{n}.md"])


def test_a_loaded_cache_gives_back_every_targets_sources_and_counts(vault: Path) -> None:
    """Sources are written as row numbers: loaded, each target has exactly the notes that
    link it, with how many times, as written by hand here."""
    write(vault, "a.md", "[[b]] [[b]] [[c]] [[Nowhere]]\n", age=3600)
    write(vault, "b.md", "[[c]]\n", age=3600)
    write(vault, "c.md", "[[a]] [[Nowhere]] [[Nowhere]]\n", age=3600)
    write(vault, "d.md", "no links\n", age=3600)
    VaultIndex.scan(vault).wait_saved()
    loaded = cache.load(vault.resolve())
    assert loaded is not None
    in_edges = {t: dict(s) for t, s in loaded.in_edges.items()}
    nowhere = next(t for t in in_edges if t.endswith("nowhere"))
    assert in_edges == {
        "a.md": {"c.md": 1},
        "b.md": {"a.md": 2},
        "c.md": {"a.md": 1, "b.md": 1},
        nowhere: {"a.md": 1, "c.md": 2},
    }
    assert all(source is loaded.notes[source].path for s in in_edges.values() for source in s)
    warm = VaultIndex.scan(vault)
    assert warm.last_parsed == 0
    assert {t: dict(s) for t, s in warm.in_edges.items()} == in_edges


class _Planted:
    """What a planted cache would make on load: a call of ``os.system`` (never run)."""

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, ("touch planted",))


def test_a_cache_that_names_a_function_makes_nothing_and_is_rebuilt(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache is a pickle stream of plain data: an unpickler that refuses every class and
    function a stream names reads it. A file written by someone else, sealed as the cache
    seals it, makes no call: the cache is rebuilt."""
    import pickle

    from librarian_gui.core.index import cachefile

    make_vault(vault, 3)
    VaultIndex.scan(vault).wait_saved()
    monkeypatch.chdir(tmp_path)
    header = {
        "version": cache.CACHE_VERSION,
        "root": str(vault.resolve()),
        "saved_at_ns": 0,
        "fingerprint": VaultIndex(vault).fingerprint(),
        "note_frames": 1,
        "edge_frames": 0,
    }
    payload = pickle.dumps(header, protocol=5) + pickle.dumps([_Planted()], protocol=5)
    path = cache.cache_file(vault)
    path.write_bytes(cachefile.seal(cache._MAGIC, payload))
    assert cache.load(vault.resolve()) is None
    index = VaultIndex.scan(vault)
    assert index.last_parsed == 3
    assert not (tmp_path / "planted").exists()


def test_a_name_that_is_not_utf8_comes_back_from_the_cache(vault: Path) -> None:
    """A file name of bytes that are no UTF-8 is a string with surrogates (os.fsdecode);
    the cache writes and reads it back as that string, links and all."""
    name = os.fsdecode(b"caf\xe9.md")  # Latin-1 bytes
    with open(os.path.join(os.fsencode(vault), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"[[b]]\n")
    write(vault, "b.md", "back to [[a]]\n", age=3600)
    write(vault, "a.md", "a\n", age=3600)
    old = time.time() - 3600
    os.utime(os.path.join(os.fsencode(vault), b"caf\xe9.md"), (old, old))
    VaultIndex.scan(vault).wait_saved()
    warm = VaultIndex.scan(vault)
    assert warm.last_parsed == 0
    assert sorted(warm.notes) == ["a.md", "b.md", name]
    assert name == "caf\udce9.md"
    assert dict(warm.in_edges["b.md"]) == {name: 1}
    assert warm.targets[name] == ("b.md",)
