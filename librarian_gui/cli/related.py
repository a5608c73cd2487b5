"""The command line's ``librarian related``: a note's related notes (or every note's), each
with its score, the shared key terms and concepts behind it, whether it is linked, and
whether it is below the threshold (a weaker note filling one of the K slots)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from ..core.agents.answers import related_row
from ..core.index.index import VaultIndex
from ..core.related.cached import vault_related
from ..core.related.vault import DEFAULT_THRESHOLD, K
from ..core.vault.files import read_note
from .exits import EXIT_USAGE, CommandFailed


def add_command(
    sub: Any, common: Callable[..., None]
) -> argparse.ArgumentParser:  # sub: argparse's private _SubParsersAction
    help_ = "notes like NOTE in other words (or --all notes'), with the terms that explain it"
    p: argparse.ArgumentParser = sub.add_parser("related", help=help_, description=help_)
    common(p)
    p.add_argument("note", metavar="NOTE", nargs="?", help="title or path, with or without .md")
    p.add_argument("--all", action="store_true", help="every note's related notes")
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        metavar="T",
        help=f"the cosine a note needs to be shown as related, 0 to 1 (default "
        f"{DEFAULT_THRESHOLD}); weaker notes fill the K slots left, marked as below it",
    )
    p.add_argument(
        "--k",
        type=int,
        default=K,
        metavar="K",
        help=f"K notes per note, when K score above 0 (default {K}; the MCP tool stops at "
        "50, to keep one answer small)",
    )
    return p


def cmd_related(
    args: argparse.Namespace,
    open_index: Callable[[argparse.Namespace], VaultIndex],
    note_arg: Callable[[VaultIndex, str], str],
) -> tuple[Any, Callable[[], str]]:
    """The JSON document and the human text of ``librarian related``."""
    if (args.note is None) == (not args.all):
        raise CommandFailed(EXIT_USAGE, "name one NOTE, or ask for --all notes")
    if not 0.0 <= args.threshold <= 1.0:
        raise CommandFailed(EXIT_USAGE, "--threshold must be between 0 and 1")
    if args.k < 1:
        raise CommandFailed(EXIT_USAGE, "--k must be 1 or more")
    index = open_index(args)
    wanted = None if args.all else note_arg(index, args.note)
    related = vault_related(
        index,
        lambda rel: read_note(index.root, rel).text,
        k=max(args.k, K),
        use_cache=not args.no_cache,
    )
    notes = tuple(sorted(related.notes)) if wanted is None else (wanted,)
    found = {rel: related.top(rel, args.k, args.threshold) for rel in notes}
    data: Any = [{"note": rel, "related": [related_row(r) for r in found[rel]]} for rel in notes]
    if wanted is not None:
        data = data[0]

    def human() -> str:
        lines = []
        for rel in notes:
            if wanted is None and not found[rel]:
                continue
            lines.append(f"{rel}:" if wanted is None else f"related to {rel}:")
            if rel not in related.model.row_of:
                lines.append("  not compared: the index note points at every note")
            elif not found[rel]:
                lines.append("  no note shares a term with it")
            for r in found[rel]:
                why = ", ".join(r.terms)
                if r.concepts:
                    why += ("; " if why else "") + "concepts " + ", ".join(r.concepts)
                if r.passage:
                    why += ("; " if why else "") + "a passage in common"
                state = "linked" if r.linked else "not linked"
                if r.below_threshold:
                    state = f"weaker, below {args.threshold:g}; {state}"
                lines.append(f"  {r.score:.2f}  {r.note}  ({state}: {why})")
        return "\n".join(lines) if lines else "no note shares a term with another"

    return data, human


def write_rows(data: list[dict[str, Any]]) -> None:
    """``related --all --json``: a JSON list, one note a line."""
    body = ",\n".join(json.dumps(item, ensure_ascii=True) for item in data)
    sys.stdout.write(f"[\n{body}\n]\n" if body else "[]\n")
