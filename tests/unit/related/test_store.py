"""The model on disk: what is loaded equals what was saved, array for array; a missing,
corrupt or other-format file loads as None."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np

from librarian_gui.core.related.incremental import update_related
from librarian_gui.core.related.model import RelatedModel, build_related
from librarian_gui.core.related.store import FORMAT, ModelSeal, load_model, save_model

NOTES = {
    "a.md": "# Sourdough\nThe starter needs flour and water; the levain doubles.",
    "b.md": "A sourdough loaf: levain, flour, water, a cold proof.",
    "c.md": "Kubernetes pods crashed; the helm chart mounts the secret.",
    "d.md": "The helm chart raised memory limits for the pods.",
    "e.md": "Heron and egrets at the marsh, binoculars fogged.",
    "f.md": "Notes from the pod review: the helm chart raised memory limits.",
}
ARRAYS = ("columns", "idf", "cand_rows", "cand_cos", "reach", "rows", "scores")
ARRAYS += ("passage_keys", "passage_owner", "shared", "shared_support")


def assert_equal(a: RelatedModel, b: RelatedModel) -> None:
    fields = ("notes", "terms", "words", "templates", "titles", "settings", "built_notes")
    for name in (*fields, "changes"):
        assert getattr(a, name) == getattr(b, name), name
    assert dict(a.row_of) == dict(b.row_of)
    assert dict(a.word_index) == dict(b.word_index)
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    for name in ("vectors", "counts", "named"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape
        for part in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(x, part), getattr(y, part)), (name, part)


def model() -> RelatedModel:
    built = build_related(NOTES, concepts={"a.md": ["bread"], "b.md": ["bread"]}, k=2)
    # an update since: a word the vocabulary lacks, and a change counted
    return update_related(built, {"e.md": "Heron, quartz and flour."}, drift_share=1.0)


def test_a_loaded_model_equals_the_saved_one(tmp_path: Path) -> None:
    saved = model()
    assert saved.changes == 1 and "quartz" in saved.words
    path = tmp_path / "related.npz"
    seal = save_model(saved, path)
    assert seal == sealed(path)
    loaded = load_model(path, seal)
    assert loaded is not None
    assert_equal(loaded, saved)
    assert loaded.neighbours("a.md") == saved.neighbours("a.md")
    assert loaded.shared_terms("c.md", "d.md") == saved.shared_terms("c.md", "d.md")
    # "the helm chart raised memory limits": six words in a row, in d.md and f.md
    assert loaded.shares_passage("d.md", "f.md") and len(loaded.shared) == 2


def sealed(path: Path) -> ModelSeal:
    """The seal of the file at ``path`` as it is (whatever wrote it)."""
    data = path.read_bytes()
    return ModelSeal(len(data), hashlib.sha256(data).hexdigest())


def test_a_missing_truncated_garbled_or_other_file_loads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "related.npz"
    assert load_model(path, ModelSeal(0, "")) is None
    seal = save_model(model(), path)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    assert load_model(path, seal) is None
    path.write_bytes(b"not a zip file at all")
    assert load_model(path, seal) is None
    save_model(update_related(model(), {"g.md": "rye"}, drift_share=1.0), path)
    assert load_model(path, seal) is None  # a good model, but not the one sealed
    path.write_bytes(whole)
    assert load_model(path, seal) is not None


def test_another_format_or_an_inconsistent_array_loads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "related.npz"
    save_model(model(), path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())

    def rewritten(**changes: np.ndarray) -> Path:
        out = tmp_path / "other.npz"
        np.savez(out, **{**arrays, **changes})
        return out

    def loaded(path: Path) -> object:
        return load_model(path, sealed(path))

    other = dict(meta, format=FORMAT + 1)
    assert loaded(rewritten(meta=np.frombuffer(json.dumps(other).encode(), np.uint8))) is None
    rows = arrays["rows"].copy()
    rows[0, 0] = len(NOTES)  # a neighbour past the last note
    assert loaded(rewritten(rows=rows)) is None
    indices = arrays["vectors_indices"].copy()
    indices[0] = len(meta["terms"]) + 3  # a term past the last one
    assert loaded(rewritten(vectors_indices=indices)) is None
    assert loaded(rewritten(reach=arrays["reach"][:-1])) is None
    assert zipfile.is_zipfile(rewritten())  # and unchanged, it loads
    assert loaded(rewritten()) is not None
