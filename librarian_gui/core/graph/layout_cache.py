"""The graph layout's positions, cached beside the index cache so a vault reopens in shape."""

from __future__ import annotations

import marshal
import math
import os
import tempfile
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..index import cachefile
from ..index.cache import cache_file

LAYOUT_VERSION = 2  # 2: sealed with a checksum
_MAGIC = b"LIBRARIAN-LAYOUT %d\n" % LAYOUT_VERSION
# A node's entry is its id (a path, a few dozen bytes) and 16 bytes of position: this holds
# a million nodes of 250-byte ids, 50 times the largest graph of the targets.
MAX_BYTES = 256 << 20


class HasPositions(Protocol):
    @property
    def ids(self) -> tuple[str, ...]: ...

    @property
    def positions(self) -> npt.NDArray[np.float64]: ...


def layout_file(root: Path) -> Path:
    """Next to the vault's index cache, under the same key."""
    return cache_file(root).with_suffix(".layout")


def save_positions(root: Path, layout: HasPositions) -> None:
    """Write the layout's positions atomically (the last complete file wins). Failing to
    save is not an error: the next start lays the graph out afresh."""
    path = layout_file(root)
    xy = np.ascontiguousarray(layout.positions, dtype="<f8")
    data = cachefile.seal(
        _MAGIC,
        marshal.dumps((LAYOUT_VERSION, str(root.resolve()), tuple(layout.ids), xy.tobytes())),
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A new file moved over the name: a link or FIFO there is replaced, not written to.
        fd, tmp = tempfile.mkstemp(prefix=".layout-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


def load_positions(root: Path) -> dict[str, tuple[float, float]]:
    """The saved position of each node id; empty when there is no usable file (missing,
    refused, damaged, another version or another vault: see ``cachefile``)."""
    data = cachefile.read_sealed(layout_file(root), _MAGIC, MAX_BYTES)
    if data is None:
        return {}
    try:
        version, saved_root, ids, raw = marshal.loads(data)
        if version != LAYOUT_VERSION or saved_root != str(root.resolve()):
            return {}
        xy = np.frombuffer(raw, dtype="<f8").reshape(-1, 2)
        if len(xy) != len(ids) or not all(isinstance(i, str) for i in ids):
            return {}
        return {
            node: (x, y)
            for node, (x, y) in zip(ids, xy.tolist(), strict=True)
            if math.isfinite(x) and math.isfinite(y)
        }
    except Exception:  # a file of another shape under this version: lay it out afresh
        return {}
