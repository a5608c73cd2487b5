"""The fault matrix's shared pieces: a vault per case, every file's fingerprint."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from tests.faults.cases import CASES, Case, base_vault
from tests.windows import window_on  # noqa: F401  (the fixture, for the window's cases)


@pytest.fixture(params=CASES, ids=[case.name for case in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def hostile(tmp_path: Path, case: Case, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The case's vault (``tmp_path/vault``); a case may put files beside it too."""
    root = tmp_path / "vault"
    root.mkdir()
    base_vault(root)
    case.build(root)
    if case.inject is not None:
        case.inject(monkeypatch, root)
    return root


def fingerprint(top: Path) -> dict[bytes, str]:
    """Every entry under ``top`` (byte paths): a regular file's sha256, a link's target,
    a FIFO or folder as such. Links are not followed (a loop must not hang this)."""
    found: dict[bytes, str] = {}
    for folder, folders, files in os.walk(os.fsencode(top)):
        for name in folders + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[path] = "link → " + os.fsdecode(os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[path] = "folder"
            elif stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256()
                with open(path, "rb") as data:
                    while chunk := data.read(1 << 20):
                        digest.update(chunk)
                found[path] = digest.hexdigest()
            else:
                found[path] = f"special {stat.S_IFMT(st.st_mode):o}"
    return found


def without_own_files(found: dict[bytes, str], root: Path) -> dict[bytes, str]:
    """Leave out ``.librarian/`` (the journal, the lock) of the vault at ``root``."""
    own = os.path.join(os.fsencode(root), b".librarian")
    return {p: v for p, v in found.items() if not (p == own or p.startswith(own + b"/"))}
