"""Librarian's cache folder kept within a size: the caches of the vaults used longest ago go
first, whole, when the caches of every vault ever opened together pass the limit.

Each vault's caches are files named by its key (``cache.vault_key``) in one folder per
kind: the index, search's postings, the related-notes model, the words of unlinked
mentions, mention counts, the review's passages. Nothing else keeps them in check: a vault
opened once (a copy in a temporary folder, a benchmark's vault) kept about 100 MB per
10,000 notes there for good.
When a vault's index cache is saved, the caches are counted, and while they take more than
the limit the vault whose newest cache file is oldest loses all of its files (a cache file
is touched when it is loaded, so that is the vault used longest ago). The vault being saved
is never one of them, whatever its size. A cache removed is made again when its vault is
next opened; one in use by another process is read by it from the file it has open, or made
again."""

from __future__ import annotations

import contextlib
import os
import stat
import string
import time
from pathlib import Path

from .cache import cache_dir

# The per-vault files, one folder of each kind
KINDS = ("index", "postings", "related", "words", "mentions", "passages", "names")
DEFAULT_LIMIT_MB = 4096
LIMIT_ENV = "LIBRARIAN_CACHE_MB"
_KEY_LENGTH = 24
_HEX = frozenset(string.hexdigits.lower())
ABANDONED_S = 3600  # a temporary file untouched this long is a save that will never end


def limit_bytes() -> int:
    """The cache folder's limit: ``$LIBRARIAN_CACHE_MB`` megabytes, else 4,096."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    try:
        megabytes = int(text) if text else DEFAULT_LIMIT_MB
    except ValueError:
        megabytes = DEFAULT_LIMIT_MB
    return max(0, megabytes) * 1024 * 1024


def trim(keep: str, limit: int | None = None) -> list[str]:
    """Remove whole vaults' caches, the vault used longest ago first, until every vault's
    caches together take at most ``limit`` bytes (``limit_bytes()`` by default); never the
    caches of the vault whose key is ``keep``. The keys removed, in that order."""
    limit = limit_bytes() if limit is None else limit
    now = time.time_ns()
    vaults: dict[str, list[tuple[Path, int, int]]] = {}
    for kind in KINDS:
        try:
            entries = os.scandir(cache_dir() / kind)
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name.startswith("."):  # a temporary file a save writes (".index-…")
                    _sweep(entry, now)
                    continue
                key = entry.name.split(".", 1)[0]
                if len(key) != _KEY_LENGTH or not _HEX.issuperset(key):
                    continue  # not a vault's cache
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                vaults.setdefault(key, []).append((Path(entry.path), st.st_size, st.st_mtime_ns))
    total = sum(size for files in vaults.values() for _, size, _ in files)
    removed: list[str] = []
    oldest_first = sorted(
        (max(mtime for _, _, mtime in files), key) for key, files in vaults.items() if key != keep
    )
    for _, key in oldest_first:
        if total <= limit:
            break
        for path, size, _ in vaults[key]:
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
        removed.append(key)
    return removed


def _sweep(entry: os.DirEntry[str], now_ns: int) -> None:
    """Remove a temporary file a save left: one not written to for ``ABANDONED_S`` (a
    save writes its file in seconds; a process killed while saving, by a client closing
    its MCP server say, left 50-70 MB at 50,000 notes, never counted nor removed)."""
    with contextlib.suppress(OSError):
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and now_ns - st.st_mtime_ns > ABANDONED_S * 1_000_000_000:
            os.unlink(entry.path)


def touch(path: Path) -> None:
    """Mark a cache file as used now (its vault is the last to lose its caches)."""
    with contextlib.suppress(OSError):
        os.utime(path)
