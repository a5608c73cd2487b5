"""A related-notes model on disk, for the cache: its arrays in one uncompressed ``.npz`` (no
pickled objects), its strings as JSON, written atomically and vouched for by its size and
checksum (kept by the caller); what cannot be read back whole (missing, refused, damaged,
another format) reads as None, and the caller builds again."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np
from scipy import sparse

from ..index import cachefile
from ..writing.safewrite import atomic_write
from .model import RelatedModel, Settings
from .neighbours import named_of, width
from .passages import shared_pairs

# Bump when what is stored, or what it means, changes (3: plurals folded; 4: names of
# several words among the titles, a mention's bonus in the ranking; 5: a title's words
# counted in its note; 6: passages two notes share, a title's words counted once more; 7:
# link reference definitions left out, a passage two words no stop words at least).
FORMAT = 7
_ARRAYS = (
    "columns",
    "idf",
    "cand_rows",
    "cand_cos",
    "reach",
    "rows",
    "scores",
    "passage_keys",
    "passage_owner",
)
_DTYPES = {
    "columns": np.int32,
    "idf": np.float64,
    "cand_rows": np.int32,
    "cand_cos": np.float32,
    "reach": np.float64,
    "rows": np.int64,
    "scores": np.float64,
    "passage_keys": np.uint64,
    "passage_owner": np.int32,
}


class ModelSeal(NamedTuple):
    """What a saved model's file is known by: its size and sha256 (hex)."""

    size: int
    sha256: str


def save_model(model: RelatedModel, path: Path) -> ModelSeal:
    """Write ``model`` to ``path`` (atomically: a reader sees the old file or the new);
    ``load_model`` needs the seal returned."""
    settings = model.settings
    meta = {
        "format": FORMAT,
        "settings": [
            settings.k,
            settings.threshold,
            settings.max_terms,
            settings.hub_penalty,
            settings.passages,
        ],
        "built_notes": model.built_notes,
        "changes": model.changes,
        "notes": list(model.notes),
        "terms": list(model.terms),
        "words": list(model.words),
        "templates": sorted(model.templates),
        "titles": sorted(model.titles),
    }
    arrays: dict[str, Any] = {
        "meta": np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), np.uint8)
    }
    for name, matrix in (("vectors", model.vectors), ("counts", model.counts)):
        arrays[f"{name}_data"] = matrix.data
        arrays[f"{name}_indices"] = matrix.indices
        arrays[f"{name}_indptr"] = matrix.indptr
    for name in _ARRAYS:
        arrays[name] = getattr(model, name)
    sealed: list[ModelSeal] = []

    def write(file: BinaryIO) -> None:
        np.savez(file, **arrays)
        file.flush()
        # Hashed from the file just written (hashlib lets go of the interpreter lock).
        size = os.fstat(file.fileno()).st_size
        digest = cachefile.digest_of_file(path, file.fileno(), size)
        assert digest is not None  # our own file, of the size just read
        sealed.append(ModelSeal(size, digest.hex()))

    # Written into the file as it is made: through a buffer in memory, 50 MB at 10,000
    # notes were copied twice by calls that hold the interpreter lock (a 76 ms stall of the
    # window while the related notes were saved).
    atomic_write(path, write)
    return sealed[0]


def load_model(path: Path, seal: ModelSeal) -> RelatedModel | None:
    """The model saved at ``path`` with ``seal``, or None when it is missing, refused (see
    ``cachefile``), not the file sealed, of another format or inconsistent."""
    # Opened here, not by numpy: never blocking nor through a link, no larger than sealed;
    # and numpy leaves its own file open when it fails to read it.
    fd = cachefile.open_cache(path, seal.size)
    if fd is None:
        return None
    with open(fd, "rb") as file:
        digest = cachefile.digest_of_file(path, fd, seal.size)
        if digest is None:
            return None
        if os.fstat(fd).st_size != seal.size or digest.hex() != seal.sha256:
            cachefile.say_ignored(path, cachefile.DAMAGED)
            return None
        try:
            with np.load(file, allow_pickle=False) as data:
                return _model(data)
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            IndexError,
            EOFError,
            zipfile.BadZipFile,
        ):
            return None  # json's and unicode's decoding errors are ValueErrors


def _model(data: Any) -> RelatedModel | None:
    meta = json.loads(data["meta"].tobytes().decode("utf-8"))
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return None
    k, threshold, max_terms, hub_penalty, passages = meta["settings"]
    settings = Settings(
        int(k), float(threshold), int(max_terms), float(hub_penalty), bool(passages)
    )
    notes = tuple(str(rel) for rel in meta["notes"])
    terms = tuple(str(term) for term in meta["terms"])
    words = tuple(str(word) for word in meta["words"])
    total = len(notes)
    vectors = _matrix(data, "vectors", (total, len(terms)), np.float32)
    counts = _matrix(data, "counts", (total, len(words)), np.int32)
    arrays = {name: np.asarray(data[name], dtype=_DTYPES[name]) for name in _ARRAYS}
    shapes = {
        "columns": (len(words),),
        "idf": (len(terms),),
        "cand_rows": (total, width(settings.k)),
        "cand_cos": (total, width(settings.k)),
        "reach": (total,),
        "rows": (total, settings.k),
        "scores": (total, settings.k),
    }
    if any(arrays[name].shape != shape for name, shape in shapes.items()):
        return None
    if arrays["passage_keys"].shape != arrays["passage_owner"].shape:
        return None
    bounds = (("columns", len(terms)), ("cand_rows", total), ("rows", total))
    for name, bound in (*bounds, ("passage_owner", total)):
        values = arrays[name]
        if values.size and (values.min() < -1 or values.max() >= bound):
            return None
    shared, support = shared_pairs(arrays["passage_keys"], arrays["passage_owner"])
    return RelatedModel(
        notes=notes,
        terms=terms,
        vectors=vectors,
        rows=arrays["rows"],
        scores=arrays["scores"],
        row_of={rel: i for i, rel in enumerate(notes)},
        settings=settings,
        words=words,
        word_index={word: i for i, word in enumerate(words)},
        counts=counts,
        columns=arrays["columns"],
        idf=arrays["idf"],
        templates=frozenset(str(line) for line in meta["templates"]),
        titles=frozenset(str(title) for title in meta["titles"]),
        cand_rows=arrays["cand_rows"],
        cand_cos=arrays["cand_cos"],
        reach=arrays["reach"],
        built_notes=int(meta["built_notes"]),
        changes=int(meta["changes"]),
        # Not stored: the transpose of the vectors loaded is as good, and a tenth of the time.
        postings=vectors.T.tocsr(),
        posting_col=np.arange(total, dtype=np.int32),
        named=named_of(counts, arrays["columns"], terms),  # as fast to find again
        passage_keys=arrays["passage_keys"],
        passage_owner=arrays["passage_owner"],
        shared=shared,
        shared_support=support,
    )


def _matrix(data: Any, name: str, shape: tuple[int, int], dtype: type) -> sparse.csr_matrix:
    """A stored CSR matrix, its structure checked (a bad index raises ValueError)."""
    matrix = sparse.csr_matrix(
        (
            np.asarray(data[f"{name}_data"], dtype=dtype),
            np.asarray(data[f"{name}_indices"], dtype=np.int32),
            np.asarray(data[f"{name}_indptr"], dtype=np.int32),
        ),
        shape=shape,
    )
    matrix.check_format(full_check=True)
    return matrix
