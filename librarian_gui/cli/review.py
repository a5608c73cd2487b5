"""The command line's review commands: ``librarian duplicates``, the near-duplicate passage
pairs across the vault (boilerplate apart)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..core.index.index import VaultIndex
from .exits import EXIT_USAGE, CommandFailed, Result

SHOWN = 50  # pairs in the human text; --json has them all
# core/review/duplicates' defaults, written here so that every command does not import numpy
THRESHOLD = 0.5
MIN_WORDS = 10


def add_command(sub: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    help_ = (
        "near-duplicate passages across the vault: paragraphs two notes both hold, with "
        "small edits (text shared by many notes, a template's or a sign-off, listed apart)"
    )
    p: argparse.ArgumentParser = sub.add_parser("duplicates", help=help_, description=help_)
    common(p)
    p.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        metavar="S",
        help=f"how alike two passages' words must be, 0-1 (Jaccard; {THRESHOLD})",
    )
    p.add_argument(
        "--min-words",
        type=int,
        default=MIN_WORDS,
        metavar="N",
        help=f"passages of fewer distinct words are not compared ({MIN_WORDS})",
    )
    return p


def cmd_duplicates(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    if not 0 < args.threshold <= 1:
        raise CommandFailed(EXIT_USAGE, "--threshold must be above 0 and at most 1")
    if args.min_words < 1:
        raise CommandFailed(EXIT_USAGE, "--min-words must be at least 1")
    from ..core.review.duplicates import find_in_vault

    index = open_index(args)
    found = find_in_vault(index.root, sorted(index.notes), args.threshold, args.min_words)
    data = found.json()
    out = [
        f"{len(found.pairs):,} near-duplicate passage pairs among {found.passages:,} passages "
        f"(similarity ≥ {args.threshold:g})"
    ]
    for pair in found.pairs[:SHOWN]:
        a, b = pair.a, pair.b
        out.append(
            f"  {pair.similarity:.2f}  {a.note}:{a.first}-{a.last}  ~  {b.note}:{b.first}-{b.last}"
        )
    if len(found.pairs) > SHOWN:
        out.append(f"  … and {len(found.pairs) - SHOWN:,} more (see --json)")
    if found.boilerplate:
        out.append(f"boilerplate, not counted as repeats ({len(found.boilerplate)}):")
        out.extend(
            f"  in {b.notes:,} notes, e.g. {b.example.note}:{b.example.first}-{b.example.last}"
            for b in found.boilerplate[:SHOWN]
        )
    return data, "\n".join(out), 0
