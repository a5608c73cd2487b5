"""The review's passages kept for the next process (``duplicates.PassageStore``): a
``librarian duplicates`` or ``librarian review`` reads and signs again only the notes
changed since the last one (10,000 notes: every note's passages read and signed on two
worker processes took 4-5 s each time)."""

from __future__ import annotations

import time
from pathlib import Path

from ..index import cachefile
from ..index.cache import cache_dir, changed_too_recently, vault_key
from .duplicates import MIN_WORDS, PassageStore

_MAGIC = b"LIBRARIAN-PASSAGES 1\n"
MAX_PASSAGES_BYTES = 1 << 30


def passages_file(root: Path) -> Path:
    return cache_dir() / "passages" / f"{vault_key(root)}.bin"


def load_store(root: Path, min_words: int = MIN_WORDS) -> PassageStore:
    """The passages kept for the vault at ``root`` with ``min_words``, or an empty store
    when none are kept (or they cannot be used: another format, a damaged file)."""
    data = cachefile.read_sealed(passages_file(root), _MAGIC, MAX_PASSAGES_BYTES)
    loaded = PassageStore.undump(bytes(data), min_words) if data is not None else None
    return loaded or PassageStore(min_words)


def save_store(root: Path, store: PassageStore) -> bool:
    """Keep ``store`` for the next process, when it changed since it was loaded, unless a
    note changed so recently that a rewrite in the same timestamp tick could go unseen (as
    the index cache does); False when not kept. Not an error when it cannot be written: a
    cache is a convenience."""
    if not store.changed:
        return False
    if changed_too_recently((mtime for _, mtime in store.stamps()), time.time_ns()):
        return False
    return cachefile.write_sealed(passages_file(root), _MAGIC, store.dump())
