"""What every command of the command line shares: VAULT checked as a folder, the index
opened with a progress bar, NOTE found by name, and the answer printed as JSON or text."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from ..core.index.index import VaultIndex
from ..core.index.queries import AmbiguousNote, NoteNotFound, find_note
from .exits import EXIT_AMBIGUOUS, EXIT_NO_NOTE, EXIT_NO_VAULT, CommandFailed

if TYPE_CHECKING:
    from ..core.concepts.dictionary import ConceptDictionary


class OpenIndex(Protocol):
    """``open_index``, as a command is given it."""

    def __call__(
        self, args: argparse.Namespace, *, concepts: ConceptDictionary | None = None
    ) -> VaultIndex: ...


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


def open_index(
    args: argparse.Namespace, *, concepts: ConceptDictionary | None = None
) -> VaultIndex:
    """The vault's index. ``concepts``: the dictionary as the command read it already (a
    concept command reads the file to lint it), not read again by the index."""
    vault = vault_folder(args.vault)
    progress = _Progress(sys.stderr)
    try:
        # The index loads --concepts itself, so that a warning about it names that file.
        return VaultIndex.scan(
            vault,
            use_cache=not args.no_cache,
            concepts=concepts,
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


# A list or an object of more items than this is written one item a line, each item as
# compact JSON: a document of 90,000 indented rows took seconds in json's Python encoder
# (its C encoder does not indent), and a row a line reads and greps better at that length.
ROWS_APART = 500
_NESTED = 4  # how deep a long list or object is looked for


def json_text(data: Any, *, ascii_only: bool) -> str:
    """``data`` as the command line prints it with ``--json``: indented two spaces, except
    that a list or an object of more than ``ROWS_APART`` items, wherever it is in the
    document, has one item a line (as ``related --all`` and ``cooccur --all`` print
    theirs). A document without one is what ``json.dumps(indent=2)`` writes."""
    compact = json.JSONEncoder(ensure_ascii=ascii_only, separators=(", ", ": ")).encode
    parts: list[str] = []  # joined once: a document can be tens of megabytes
    put = parts.append

    def key(name: Any) -> str:  # as json writes a key: True as "true", 3 as "3"
        said = name if isinstance(name, str) else json.dumps(name)
        return json.dumps(said, ensure_ascii=ascii_only) + ": "

    def write(value: Any, indent: str, depth: int) -> None:
        inner = indent + "  "
        if _long(value) or (depth < _NESTED and _holds_long(value, depth)):
            is_dict = isinstance(value, dict)
            items = value.items() if is_dict else ((None, v) for v in value)
            apart = _long(value)
            put("{" if is_dict else "[")
            for n, (name, item) in enumerate(items):
                put(",\n" + inner if n else "\n" + inner)
                if is_dict:
                    put(key(name))
                if apart:
                    put(compact(item))
                else:
                    write(item, inner, depth + 1)
            put("\n" + indent + ("}" if is_dict else "]"))
            return
        text = json.dumps(value, ensure_ascii=ascii_only, indent=2)
        put(text.replace("\n", "\n" + indent) if indent else text)

    write(data, "", 0)
    return "".join(parts)


def _long(value: Any) -> bool:
    return isinstance(value, list | dict) and len(value) > ROWS_APART


def _holds_long(value: Any, depth: int) -> bool:
    """Whether a list or an object holds a long one, at most ``_NESTED`` levels down."""
    if not isinstance(value, list | dict):
        return False
    for child in value.values() if isinstance(value, dict) else value:
        if _long(child) or (depth + 1 < _NESTED and _holds_long(child, depth + 1)):
            return True
    return False


def emit(args: argparse.Namespace, data: Any, human: Callable[[], str]) -> None:
    if args.json:
        text = json_text(data, ascii_only=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (a lone surrogate, as os.fsdecode gives it):
            # escaped, it is valid JSON that json.loads turns back into the same name.
            text = json_text(data, ascii_only=True)
        sys.stdout.write(text + "\n")
    else:
        text = human()
        if text:
            sys.stdout.write(text + "\n")
