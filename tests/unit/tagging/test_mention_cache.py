"""``librarian isolated`` keeps its mention counts beside the index cache: read back while
nothing they depend on changed, made again when a note or the dictionary did."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.cache import cache_dir, cache_file
from tests.conftest import write

DICTIONARY = {"alpha": {"aliases": ["alpha"]}, "beta": {"aliases": ["beta"]}}
LONG_AGO = time.time() - 3600  # older than the cache's grace for same-tick rewrites


def _age(root: Path) -> None:
    for path in root.rglob("*.md"):
        os.utime(path, (LONG_AGO, LONG_AGO))


def _isolated(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, int]:
    assert main(["isolated", str(root), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["isolated"]
    return {r["concept"]: r["mentioned"] for r in rows}


def test_the_counts_are_kept_and_made_again_when_a_note_changes(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "concepts.json", json.dumps(DICTIONARY))
    write(vault, "a.md", "alpha and beta\n")
    write(vault, "b.md", "alpha again\n")
    _age(vault)
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 1}
    # This vault's file: the folder is shared with every test that ran `isolated` before.
    saved = cache_dir() / "mentions" / cache_file(vault).with_suffix(".json").name
    assert saved.exists()
    # Read back, not counted again: a count planted in the file is what the next run says.
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["counts"]["alpha"] = 7
    saved.write_text(json.dumps(data), encoding="utf-8")
    assert _isolated(vault, capsys) == {"alpha": 7, "beta": 1}
    # A note changed: counted again (and not kept, the change being this recent).
    write(vault, "c.md", "beta here too\n")
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 2}
    assert json.loads(saved.read_text(encoding="utf-8"))["counts"]["alpha"] == 7
    _age(vault)
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 2}
    assert json.loads(saved.read_text(encoding="utf-8"))["counts"] == {"alpha": 2, "beta": 2}
    # The dictionary changed: counted again.
    write(vault, "concepts.json", json.dumps({**DICTIONARY, "beta": {"aliases": ["again"]}}))
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 1}
    # --no-cache neither reads nor writes it.
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["counts"] = {"alpha": 9, "beta": 9}
    saved.write_text(json.dumps(data), encoding="utf-8")
    assert main(["isolated", str(vault), "--json", "--no-cache"]) == 0
    rows = json.loads(capsys.readouterr().out)["isolated"]
    assert {r["concept"]: r["mentioned"] for r in rows} == {"alpha": 2, "beta": 1}
