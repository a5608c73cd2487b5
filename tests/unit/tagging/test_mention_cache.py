"""``librarian isolated`` keeps its mention counts beside the index cache: read back while
nothing they depend on changed, made again when a note or the dictionary did."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index import cachefile
from librarian_gui.core.tagging import mention_cache
from tests.conftest import write

DICTIONARY = {"alpha": {"aliases": ["alpha"]}, "beta": {"aliases": ["beta"]}}
LONG_AGO = time.time() - 3600  # older than the cache's grace for same-tick rewrites


def _age(root: Path) -> None:
    for path in root.rglob("*.md"):
        os.utime(path, (LONG_AGO, LONG_AGO))


def _saved(path: Path) -> Any:
    payload = cachefile.unseal(path, mention_cache._MAGIC, path.read_bytes())
    assert payload is not None
    return json.loads(bytes(payload))


def _plant(path: Path, data: Any) -> None:
    """Counts written as the cache writes them, its checksum matching."""
    path.write_bytes(cachefile.seal(mention_cache._MAGIC, json.dumps(data).encode("ascii")))


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
    saved = mention_cache.counts_file(vault)
    assert saved.exists()
    # Read back, not counted again: a count planted in the file (sealed as the cache seals
    # it) is what the next run says.
    data = _saved(saved)
    data["counts"]["alpha"] = 7
    _plant(saved, data)
    assert _isolated(vault, capsys) == {"alpha": 7, "beta": 1}
    # A note changed: counted again (and not kept, the change being this recent).
    write(vault, "c.md", "beta here too\n")
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 2}
    assert _saved(saved)["counts"]["alpha"] == 7
    _age(vault)
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 2}
    assert _saved(saved)["counts"] == {"alpha": 2, "beta": 2}
    # The dictionary changed: counted again.
    write(vault, "concepts.json", json.dumps({**DICTIONARY, "beta": {"aliases": ["again"]}}))
    assert _isolated(vault, capsys) == {"alpha": 2, "beta": 1}
    # --no-cache neither reads nor writes it.
    _plant(saved, {**_saved(saved), "counts": {"alpha": 9, "beta": 9}})
    assert main(["isolated", str(vault), "--json", "--no-cache"]) == 0
    rows = json.loads(capsys.readouterr().out)["isolated"]
    assert {r["concept"]: r["mentioned"] for r in rows} == {"alpha": 2, "beta": 1}
