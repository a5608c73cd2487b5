"""A related-notes pass over a vault: the related notes brought up to date from the last
pass (in memory, or cached beside the index), reading and redoing only the notes whose
file or concepts changed since; built from scratch when there is neither."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from ..index import cachefile
from ..index.cache import cache_dir, cache_file, changed_too_recently
from ..index.snapshot import IndexView
from ..parse.records import FileStamp
from ..writing.safewrite import atomic_write
from .vault import (
    K,
    RelatedIndex,
    concepts_by_note,
    note_stamps,
    related_index,
)

# Of the file of stamps beside the model (the model's own is store.FORMAT); 2: sealed with
# a checksum, and holding the model file's seal.
FORMAT = 2
_MAGIC = b"LIBRARIAN-RELATED %d\n" % FORMAT
# A note's entry is its path, its stamp and its concepts' ids: some 100 bytes (200 KB at
# 2,000 notes). Read whole: this holds a million notes, 50 times the targets' largest vault.
MAX_STAMPS_BYTES = 256 << 20


def vault_related(
    index: IndexView,
    read: Callable[[str], str | None],
    *,
    previous: RelatedIndex | None = None,
    k: int = K,
    use_cache: bool = True,
    save: bool = True,
    check: Callable[[], None] | None = None,
    second_process: bool = True,
) -> RelatedIndex:
    """The vault's related notes now. From ``previous`` (the last pass of this process) or
    else the cached model, only the notes added, removed, or whose stamp or concepts
    differ are read and redone (``incremental.update_related``: exact against the model's
    vocabulary, rebuilt from its counts once a tenth of the notes changed); with neither,
    every note is read and the model built. A model that changed is cached again, if
    ``save`` (the window saves now and then: a save of 10,000 notes' model is 50 MB).
    ``second_process``: see ``build_related``."""
    from .incremental import update_related

    if check is not None:  # not a full pass just as an update is applied
        check()
    index = index.snapshot()
    stamps = note_stamps(index)
    concepts = concepts_by_note(index)
    base = previous if previous is not None and previous.model.settings.k == k else None
    if base is None and use_cache:
        base = load_cached(index.root, k)
    if base is None:
        related = related_index(
            index, read, concepts=concepts, k=k, check=check, second_process=second_process
        )
        if use_cache and save:
            save_cached(index, related)
        return related
    changed: dict[str, str | None] = {}
    for rel, stamp in stamps.items():
        if base.stamps.get(rel) != stamp or base.concepts.get(rel, ()) != concepts.get(rel, ()):
            changed[rel] = read(rel)  # None: unreadable now, so out of the model
    changed.update((rel, None) for rel in base.stamps.keys() - stamps.keys())
    model = base.model
    if changed:
        found = {rel: concepts[rel] for rel in changed if rel in concepts}
        model = update_related(model, changed, concepts=found, check=check)
    related = RelatedIndex.of_model(model, stamps, concepts).with_links(index)
    # From memory, the cache may be older than it (saves are asked for now and then).
    if use_cache and save and (changed or base is previous):
        save_cached(index, related)
    return related


def _files(root: Path) -> tuple[Path, Path]:
    name = cache_file(root).stem
    folder = cache_dir() / "related"
    return folder / f"{name}.npz", folder / f"{name}.json"


def load_cached(root: Path, k: int = K) -> RelatedIndex | None:
    """The last model cached for this vault with the stamps and concepts it was made
    from (none of its pairs marked linked: the caller's index knows), or None."""
    from .store import ModelSeal, load_model

    model_path, stamps_path = _files(root)
    payload = cachefile.read_sealed(stamps_path, _MAGIC, MAX_STAMPS_BYTES)
    if payload is None:
        return None
    try:
        data = json.loads(bytes(payload))
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("k") != k:
            return None
        stamps = {str(rel): FileStamp(*map(int, s)) for rel, s in data["stamps"].items()}
        concepts = {str(rel): tuple(map(str, ids)) for rel, ids in data["concepts"].items()}
        size, digest = data["model"]
        seal = ModelSeal(int(size), str(digest))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    # The model is written first, the stamps next, with the model's seal: a model that is
    # not the one sealed (a save cut short, or of another process meanwhile) is not used.
    model = load_model(model_path, seal)
    if model is None or model.settings.k != k or set(model.notes) - stamps.keys():
        return None
    return RelatedIndex.of_model(model, stamps, concepts)


def save_cached(index: IndexView, related: RelatedIndex) -> bool:
    """Keep the model and what it was made from, unless a note changed so recently that a
    rewrite in the same timestamp tick could go unseen (as the index cache does); False
    when not kept. A cache that cannot be written is no error: it is a convenience."""
    from .store import save_model

    if changed_too_recently((stamp.mtime_ns for stamp in related.stamps.values()), time.time_ns()):
        return False
    model_path, stamps_path = _files(index.root)
    data = {
        "format": FORMAT,
        "k": related.model.settings.k,
        "stamps": {rel: list(stamp) for rel, stamp in related.stamps.items()},
        "concepts": {rel: list(ids) for rel, ids in related.concepts.items()},
    }
    try:
        model_path.parent.mkdir(parents=True, exist_ok=True)
        data["model"] = list(save_model(related.model, model_path))
        payload = json.dumps(data, ensure_ascii=True).encode("ascii")
        atomic_write(stamps_path, cachefile.seal(_MAGIC, payload))
    except OSError:
        return False
    return True
