"""The postings kept beside the index cache (``corpus.save_postings``): a new process on the
vault counts only the notes changed since, not every note. Real files, real indexes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from librarian_gui.core.agents.corpus import candidates, count_candidates, postings_file
from librarian_gui.core.index.index import VaultIndex


def _vault(root: Path) -> Path:
    root.mkdir()
    for n in range(3):
        (root / f"n{n}.md").write_text(f"cat {'dog ' * n}\n")
    past = time.time() - 60  # not written in the last tick: a cache may be kept
    for note in root.glob("*.md"):
        os.utime(note, (past, past))
    return root


def _reader(root: Path, reads: list[str]):  # type: ignore[no-untyped-def]
    def text_of(rel: str) -> str:
        reads.append(rel)
        return (root / rel).read_text()

    return text_of


def test_a_new_index_of_the_vault_reads_only_the_notes_changed_since_they_were_kept(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path / "vault")
    first = VaultIndex.scan(vault)
    reads: list[str] = []
    count_candidates(first, _reader(vault, reads))
    assert sorted(reads) == ["n0.md", "n1.md", "n2.md"]
    assert postings_file(vault).is_file()

    reads.clear()
    second = VaultIndex.scan(vault)  # another process, say: its own postings, loaded
    # "dog": twice in n2 (5 terms with its title's twice), once in n1 (4), never in n0
    assert candidates(second, _reader(vault, reads), sorted(second.notes), ["dog"]) == [
        "n2.md",
        "n1.md",
    ]
    assert reads == []

    (vault / "n0.md").write_text("dog dog dog\n")
    third = VaultIndex.scan(vault)
    assert candidates(third, _reader(vault, reads), sorted(third.notes), ["dog"])[0] == "n0.md"
    assert reads == ["n0.md"]


def test_an_index_without_cache_keeps_no_postings(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    reads: list[str] = []
    count_candidates(VaultIndex.scan(vault, use_cache=False), _reader(vault, reads))
    assert sorted(reads) == ["n0.md", "n1.md", "n2.md"]
    assert not postings_file(vault).exists()


def test_one_index_asked_again_reads_nothing_and_after_an_update_reads_the_note_changed(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path / "vault")
    index = VaultIndex.scan(vault, use_cache=False)
    reads: list[str] = []
    text_of = _reader(vault, reads)
    # "dog": twice in n2 (5 terms with its title's twice), once in n1 (4), never in n0
    assert candidates(index, text_of, sorted(index.notes), ["dog"]) == ["n2.md", "n1.md"]
    assert sorted(reads) == ["n0.md", "n1.md", "n2.md"]
    reads.clear()
    assert candidates(index, text_of, sorted(index.notes), ["dog"]) == ["n2.md", "n1.md"]
    assert reads == []  # the same snapshot: nothing to count again

    (vault / "n0.md").write_text("dog dog dog\n")
    (vault / "n3.md").write_text("dog\n")
    index.update(["n0.md", "n3.md"])
    # "dog" in every note, so the order is BM25's tf part (k1 1.2, b 0.75, mean length
    # 17 / 4): n0 3 in 5 terms 6.6 / 4.359 = 1.514; n2 2 in 5 4.4 / 3.359 = 1.310; n3 1 in
    # 3 2.2 / 1.935 = 1.137; n1 1 in 4 2.2 / 2.147 = 1.025
    assert candidates(index, text_of, sorted(index.notes), ["dog"]) == [
        "n0.md",
        "n2.md",
        "n3.md",
        "n1.md",
    ]
    assert sorted(reads) == ["n0.md", "n3.md"]
