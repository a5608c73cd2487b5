"""The keys of the notes' names kept for the next process (``names_cache``): a new index of
the vault reads them instead of working every name out again, only for notes whose file is
as it was. Real files, real indexes; the keys expected are written by hand."""

from __future__ import annotations

import os
import time
from pathlib import Path

from librarian_gui.core.agents import ranking
from librarian_gui.core.agents.names_cache import load_names, names_file, save_names
from librarian_gui.core.index.index import VaultIndex


def _vault(root: Path) -> Path:
    root.mkdir()
    (root / "Rose Garden.md").write_text("---\naliases: [Rosa-Beet, 東京]\n---\nsoil\n")
    (root / "Soil.md").write_text("loam\n")
    past = time.time() - 60  # not written in the last tick: a cache may be kept
    for note in root.glob("*.md"):
        os.utime(note, (past, past))
    return root


def _keys(index: VaultIndex) -> dict[str, set[str]]:
    snap = index.snapshot()
    notes = snap.sorted_notes()
    owners, keys, _lengths = ranking._names_of(snap, notes)
    out: dict[str, set[str]] = {rel: set() for rel in notes}
    for owner, key in zip(owners, keys, strict=True):
        out[notes[owner]].add(key)
    return out


EXPECTED = {"Rose Garden.md": {"rose garden", "rosa beet", "東京"}, "Soil.md": {"soil"}}


def test_the_first_index_keeps_the_keys_and_the_next_reads_them(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    assert _keys(VaultIndex.scan(vault)) == EXPECTED
    kept = load_names(vault, ranking._name_key)
    assert {rel: set(keys) for rel, (_stamp, keys) in kept.items()} == EXPECTED
    # Keys planted for Soil.md under its stamp now: a new index takes them as they are
    stamp = kept["Soil.md"][0]
    save_names(vault, {**kept, "Soil.md": (stamp, ("planted",))}, ranking._name_key)
    assert _keys(VaultIndex.scan(vault))["Soil.md"] == {"planted"}


def test_a_note_changed_since_is_worked_out_again_and_kept(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    _keys(VaultIndex.scan(vault))
    kept = load_names(vault, ranking._name_key)
    save_names(vault, {**kept, "Soil.md": ((1, 2, 3), ("planted",))}, ranking._name_key)
    assert _keys(VaultIndex.scan(vault)) == EXPECTED  # its stamp differs: not planted
    assert {rel: set(k) for rel, (_s, k) in load_names(vault, ranking._name_key).items()} == (
        EXPECTED
    )


def test_keys_of_another_key_function_or_a_damaged_file_are_not_used(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    _keys(VaultIndex.scan(vault))
    kept = load_names(vault, ranking._name_key)
    planted = {**kept, "Soil.md": (kept["Soil.md"][0], ("planted",))}
    save_names(vault, planted, str.upper)  # its probe's keys differ from ours
    assert load_names(vault, ranking._name_key) == {}
    assert _keys(VaultIndex.scan(vault)) == EXPECTED
    names_file(vault).write_bytes(b"garbage")
    assert load_names(vault, ranking._name_key) == {}
    assert _keys(VaultIndex.scan(vault)) == EXPECTED


def test_an_index_without_caches_neither_reads_nor_writes_them(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    assert _keys(VaultIndex.scan(vault, use_cache=False)) == EXPECTED
    assert not names_file(vault).exists()
    _keys(VaultIndex.scan(vault))
    kept = load_names(vault, ranking._name_key)
    save_names(vault, {**kept, "Soil.md": (kept["Soil.md"][0], ("planted",))}, ranking._name_key)
    assert _keys(VaultIndex.scan(vault, use_cache=False)) == EXPECTED
