"""The match keys of every note's names (its title and aliases, as ``ranking._names_of``
compares them with a question) kept for the next process on the vault: a command line's
question matches every note's names, and working their keys out again took 0.36 s of a
search at 50,000 notes (each name lowered and split by the switcher's ``match_key``), and
reading the aliases 0.14 s more.

Kept beside the index cache, sealed as the postings are, each note's keys with the stamp
of the file they were read from (a note whose stamp differs is worked out again), and the
keys of a probe's names (keys made by another ``match_key`` are not used)."""

from __future__ import annotations

import marshal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..index import cachefile
from ..index.cache import cache_dir, changed_too_recently, vault_key
from ..parse.records import FileStamp

_MAGIC = b"LIBRARIAN-NAMES 1\n"
MAX_NAMES_BYTES = 1 << 28
_FORMAT = 1
PROBE = ("Prompt-Injection (notes)", "Ünïcode ÉTÉ", "東京の会議", "O'Reilly's  C++")

Kept = dict[str, tuple[Any, tuple[str, ...]]]  # note → (its file's stamp, its keys)


def names_file(root: Path) -> Path:
    return cache_dir() / "names" / f"{vault_key(root)}.bin"


def load_names(root: Path, key: Callable[[str], str]) -> Kept:
    """The keys kept for the vault at ``root``, if they were made by ``key`` (the probe's
    names give the same keys); else none (another format, a damaged file, no file)."""
    data = cachefile.read_sealed(names_file(root), _MAGIC, MAX_NAMES_BYTES)
    if data is None:
        return {}
    try:
        form, probe, paths, stamps, keys = marshal.loads(data)
        if form != _FORMAT or probe != [key(name) for name in PROBE]:
            return {}
        return dict(zip(paths, zip(stamps, keys, strict=True), strict=True))
    except (ValueError, TypeError, EOFError):
        return {}


def save_names(
    root: Path, kept: Mapping[str, tuple[Any, tuple[str, ...]]], key: Callable[[str], str]
) -> bool:
    """Keep ``kept`` for the next process, unless a note changed so recently that a rewrite
    in the same timestamp tick could go unseen (as the index cache does); False when not
    kept. Not an error when it cannot be written: a cache is a convenience."""
    mtimes = (s.mtime_ns for s, _ in kept.values() if isinstance(s, FileStamp))
    if changed_too_recently(mtimes, time.time_ns()):
        return False
    paths = list(kept)
    payload = marshal.dumps(
        (
            _FORMAT,
            [key(name) for name in PROBE],
            paths,
            [tuple(kept[p][0]) if isinstance(kept[p][0], tuple) else kept[p][0] for p in paths],
            [kept[p][1] for p in paths],
        )
    )
    return cachefile.write_sealed(names_file(root), _MAGIC, payload)
