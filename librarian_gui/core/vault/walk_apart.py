"""The vault's walk in a process of its own, on another core, while this one loads the cache.

A warm start does two long things: it loads the index from its cache and it walks the vault
to see what changed since. Both hold the interpreter in one process (the walk's Python work
between its ``stat`` calls is most of it), so they take turns: at 50,000 notes the walk is
0.5 s of a 1.4 s load. Walked by another interpreter, it overlaps the load; what comes back
is a few megabytes of marshalled rows, read in a few hundredths of a second.

Run as ``python -m librarian_gui.core.vault.walk_apart ROOT [EXCLUDED ...]``; it writes the
marshalled walk (``_rows``) to standard output. The caller falls back on walking here when
the process cannot start or fails (``WalkApart.result`` is then None)."""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import subprocess
import sys
from pathlib import Path

from ..parse.records import FileStamp, ScanWarning
from .files import IgnoreRules, WalkResult, walk_vault

# A cache file this large holds about 2,500 notes (1.6 KB a note on real and generated
# vaults): their walk (~25 ms a thousand notes) is then worth more than starting an
# interpreter to do it (~40 ms of another core).
APART_FROM_CACHE_BYTES = 4 << 20

Rows = tuple[
    list[tuple[str, tuple[int, int, int]]],
    list[tuple[str, tuple[int, int, int]]],
    list[tuple[str, str, str]],
]


def worker_env() -> dict[str, str]:
    """The environment for a worker interpreter that must import this very package."""
    import librarian_gui

    package_parent = str(Path(librarian_gui.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    return env


def useful(cache: Path) -> bool:
    """Whether a warm start with this cache file should walk apart: two cores or more, not a
    frozen build (whose executable is not an interpreter), and a cache of many notes."""
    if (os.cpu_count() or 1) < 2 or getattr(sys, "frozen", False):
        return False
    try:
        return os.stat(cache).st_size >= APART_FROM_CACHE_BYTES
    except OSError:
        return False


class WalkApart:
    """A walk of ``root`` under the same ignore rules as ``IgnoreRules(root, excluded)``,
    started now; ``result()`` waits for it."""

    def __init__(self, root: Path, excluded: tuple[str, ...]) -> None:
        self._proc: subprocess.Popen[bytes] | None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", __name__, str(root), *excluded],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=worker_env(),
            )
        except OSError:
            self._proc = None

    def result(self) -> WalkResult | None:
        """The walk, or None if the process could not give it (the caller walks itself)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        assert proc.stdout is not None
        try:
            data = proc.stdout.read()
        except OSError:
            data = b""
        finally:
            proc.stdout.close()
        if proc.wait() != 0:
            return None
        try:
            notes, attachments, warnings = marshal.loads(data)
            new_stamp = tuple.__new__  # a FileStamp without its Python-level ``__new__``
            return WalkResult(
                {rel: new_stamp(FileStamp, stamp) for rel, stamp in notes},
                {rel: new_stamp(FileStamp, stamp) for rel, stamp in attachments},
                [ScanWarning(*warning) for warning in warnings],
            )
        except (EOFError, ValueError, TypeError):
            return None

    def close(self) -> None:
        """Stop the walk if its result is not wanted."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()


def _rows(walk: WalkResult) -> Rows:
    return (
        [(rel, tuple(stamp)) for rel, stamp in walk.notes.items()],  # type: ignore[misc]
        [(rel, tuple(stamp)) for rel, stamp in walk.attachments.items()],  # type: ignore[misc]
        [(w.path, w.kind, w.message) for w in walk.warnings],
    )


def main() -> int:
    gc.disable()  # the walk makes no reference cycles
    root = Path(sys.argv[1])
    walk = walk_vault(root, IgnoreRules(root, tuple(sys.argv[2:])))
    sys.stdout.buffer.write(marshal.dumps(_rows(walk)))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
