"""Test-wide set-up: private XDG folders, a patient hypothesis profile, offscreen Qt."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from librarian_gui.core.index import VaultIndex

# CI shares the machine's ~/.cache and ~/.config (TRAPS): every test run gets its own.
_XDG = Path(tempfile.mkdtemp(prefix="librarian-tests-xdg-"))
for _name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = str(_XDG / _name.lower())
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A loaded 2-core machine makes hypothesis's 200 ms deadline flaky (TRAPS).
settings.register_profile("librarian", deadline=None, max_examples=200, derandomize=True)
settings.load_profile("librarian")

REPO = Path(__file__).resolve().parents[1]
SHARED_VAULTS = REPO.parent / "shared" / "vaults"


def shared_vault(name: str) -> Path:
    """A vault of ../shared/vaults; missing fails the run under CI and skips elsewhere."""
    path = SHARED_VAULTS / name
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared vault {path} is missing (CI=true: this must not be skipped)")
        pytest.skip(f"shared vault {path} is not here")
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


def write(root: Path, rel: str, text: str | bytes, *, age: float | None = None) -> Path:
    """Write a file under ``root``; ``age`` seconds sets its mtime that far in the past."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    if age is not None:
        import time

        t = time.time() - age
        os.utime(path, (t, t))
    return path


def snapshot(index: VaultIndex) -> tuple[object, ...]:
    """Everything an index knows, as plain values to compare."""
    return (
        {p: (r.stamp, r.parsed, r.date, r.date_source) for p, r in index.notes.items()},
        dict(index.attachments),
        {s: dict(o) for s, o in index.out_edges.items()},
        {t: dict(i) for t, i in index.in_edges.items() if i},
        dict(index.targets),
    )


def assert_same_as_fresh_scan(index: VaultIndex) -> None:
    fresh = VaultIndex.scan(index.root, use_cache=False, excluded=index.excluded)
    assert snapshot(index) == snapshot(fresh)
