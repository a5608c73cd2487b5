"""Unlinked-mention counts kept between runs of the command line, beside the index cache
(outside the vault): counting them is a tagger's dry run over every note (2.5 s at 10,000
notes and 1,000 concepts), and ``librarian isolated`` asks for them on every run. An entry
holds while no note, no concept, no alias and no concept's note has changed."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..concepts.dictionary import Concept
from ..index import cachefile
from ..index.cache import cache_dir, cache_file, changed_too_recently
from ..index.snapshot import IndexView

VERSION = 2  # 2: sealed with a checksum (a flipped count was reported as it was)
_MAGIC = b"LIBRARIAN-MENTIONS %d\n" % VERSION
# A count a concept: its id and a number in JSON (an id's letters \u-escaped at worst, 6
# bytes each). This holds a million concepts of 40-letter ids, 1,000 times the dictionary
# of the targets, and is read whole: a larger file is refused unread.
MAX_BYTES = 256 << 20


def mention_key(
    index: IndexView,
    concepts: Sequence[Concept],
    pages: Mapping[str, str],
    *,
    include_index: bool,
) -> str:
    """What the counts depend on, as a digest: every note's stamp, the concepts counted
    (ids and aliases, in order), their notes, and whether the index note is read (pass a
    snapshot where the index may change)."""
    notes = sorted((rel, tuple(record.stamp)) for rel, record in index.notes.items())
    named = [(c.id, list(c.aliases)) for c in concepts]
    text = json.dumps(
        [VERSION, include_index, notes, named, sorted(pages.items())], ensure_ascii=True
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def counts_file(root: Path) -> Path:
    return cache_dir() / "mentions" / cache_file(root).with_suffix(".json").name


def load_counts(root: Path, key: str) -> dict[str, int] | None:
    """The counts saved under ``key``, or None (none saved, another key, refused or
    damaged: see ``cachefile``)."""
    payload = cachefile.read_sealed(counts_file(root), _MAGIC, MAX_BYTES)
    if payload is None:
        return None
    try:
        data = json.loads(bytes(payload))
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    counts = data.get("counts")
    if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
        return None
    return {str(k): v for k, v in counts.items()}


def save_counts(index: IndexView, key: str, counts: Mapping[str, int]) -> bool:
    """Keep ``counts`` under ``key``, unless a note changed so recently that a rewrite in
    the same timestamp tick could go unseen (as the index cache does); False when not
    kept. Written atomically, as Librarian's other files are (read from a snapshot)."""
    if changed_too_recently(
        (record.stamp.mtime_ns for record in index.notes.values()), time.time_ns()
    ):
        return False
    data = json.dumps({"key": key, "counts": dict(counts)}, ensure_ascii=True)
    return cachefile.write_sealed(counts_file(index.root), _MAGIC, data.encode("ascii"))
