"""What every command of the command line shares: VAULT checked as a folder, the index
opened with a progress bar, NOTE found by name, and the answer printed as JSON or text."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..core.index.index import VaultIndex
from ..core.index.queries import AmbiguousNote, NoteNotFound, find_note
from .exits import EXIT_AMBIGUOUS, EXIT_NO_NOTE, EXIT_NO_VAULT, CommandFailed

_PROGRESS_MIN = 500  # notes; smaller scans finish before a bar would help


class _Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.active = stream.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.active or total < _PROGRESS_MIN:
            return
        width = 30
        filled = width * done // total
        self.stream.write(f"\rIndexing [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 60 + "\r")
            self.stream.flush()


def vault_folder(path: str | Path) -> Path:
    """VAULT as a folder, or the failure that says what it is instead."""
    vault = Path(path).expanduser()
    if vault.is_dir():
        return vault
    if vault.exists():
        raise CommandFailed(EXIT_NO_VAULT, f"{vault}: is a file, not a vault folder")
    raise CommandFailed(EXIT_NO_VAULT, f"{vault}: no such vault folder")


def open_index(args: argparse.Namespace) -> VaultIndex:
    vault = vault_folder(args.vault)
    progress = _Progress(sys.stderr)
    try:
        # The index loads --concepts itself, so that a warning about it names that file.
        return VaultIndex.scan(
            vault,
            use_cache=not args.no_cache,
            dictionary=Path(args.concepts).expanduser() if args.concepts else None,
            excluded=args.exclude or (),
            progress=progress,
        )
    finally:
        progress.close()


def note_arg(index: VaultIndex, name: str) -> str:
    try:
        return find_note(index, name)
    except AmbiguousNote as exc:
        raise CommandFailed(EXIT_AMBIGUOUS, str(exc) + "; give the path to choose one") from exc
    except NoteNotFound as exc:
        from ..core.agents.answers import closest_notes

        close = closest_notes(index, name)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise CommandFailed(EXIT_NO_NOTE, f"{exc}{hint}") from exc


def emit(args: argparse.Namespace, data: Any, human: Callable[[], str]) -> None:
    if args.json:
        text = json.dumps(data, ensure_ascii=False, indent=2)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (a lone surrogate, as os.fsdecode gives it):
            # escaped, it is valid JSON that json.loads turns back into the same name.
            text = json.dumps(data, ensure_ascii=True, indent=2)
        sys.stdout.write(text + "\n")
    else:
        text = human()
        if text:
            sys.stdout.write(text + "\n")
