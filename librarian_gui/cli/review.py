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


def add_review_command(sub: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    help_ = (
        "the review desk: notes changed since you last reviewed, by day, with who wrote "
        "each and the diff from the version you reviewed; --mark NOTE… or --mark-all records "
        "what you reviewed (outside the vault)"
    )
    p: argparse.ArgumentParser = sub.add_parser("review", help=help_, description=help_)
    common(p)
    p.add_argument(
        "--since",
        metavar="DATE",
        help="from this date or time (default: your last --mark-all, else 7 days back)",
    )
    p.add_argument(
        "--mark",
        metavar="NOTE",
        nargs="+",
        action="extend",
        default=[],
        help="mark these notes' versions on disk reviewed (a copy is kept for the next diff)",
    )
    p.add_argument("--mark-day", metavar="DATE", help="mark the notes the desk lists on DATE")
    p.add_argument(
        "--mark-all", action="store_true", help="mark everything changed up to now reviewed"
    )
    return p


def cmd_review(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    import datetime as dt

    from ..core.review import desk as review_desk
    from .common import note_arg

    since = None
    if args.since:
        try:
            since = dt.datetime.fromisoformat(args.since)
        except ValueError:
            raise CommandFailed(
                EXIT_USAGE, f"--since {args.since!r} is not a date such as 2024-05-01"
            ) from None
        if since.tzinfo is None:
            since = since.replace(tzinfo=dt.UTC)
    index = open_index(args)
    root = index.root
    said: list[str] = []
    if args.mark:
        marked = review_desk.mark_notes(root, [note_arg(index, name) for name in args.mark])
        said.append(f"marked reviewed: {', '.join(marked)}")
    if args.mark_day:
        day = args.mark_day.strip()
        found = review_desk.review_desk(index, since)
        rels = [i.note for d, items in found.days if d == day for i in items]
        marked = review_desk.mark_notes(root, rels)
        said.append(f"marked reviewed: {len(marked)} notes of {day}")
    if args.mark_all:
        review_desk.mark_up_to(root, dt.datetime.now(dt.UTC))
        said.append("marked reviewed: everything up to now")
    desk = review_desk.review_desk(index, since)
    data = {**desk.json(), "marked": said}
    out = [*said, f"changed since {desk.since}, not reviewed yet:"]
    if not desk.days:
        out.append("  nothing: every change is reviewed")
    for day, items in desk.days:
        out.append(day)
        for item in items:
            by = item.by
            who = f"{by.client} {by.version}".strip() if by.kind == "agent" else by.kind
            extra = f", {item.backlinks} backlinks" if item.backlinks else ""
            concepts = f", concepts: {', '.join(item.concepts)}" if item.concepts else ""
            out.append(f"  {item.note}  ({item.status}, by {who}{extra}{concepts})")
            out.extend(
                f"    repeats lines {r.lines[0]}-{r.lines[1]}: {r.other}:{r.at[0]}-{r.at[1]} "
                f"({r.similarity:.2f})"
                for r in item.repeats
            )
            if item.diff:
                out.extend(f"    {line}" for line in item.diff.rstrip("\n").split("\n"))
                if item.diff_lines > review_desk.DIFF_LINES:
                    out.append(f"    … {item.diff_lines - review_desk.DIFF_LINES} more lines")
    return data, "\n".join(out), 0


def add_contradictions_command(sub: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    help_ = (
        "contradiction candidates: two notes about one concept stating different values for "
        "the same thing (a choice, a number, a date, a sentence and its negation); candidates, "
        "not truths, most sure first"
    )
    p: argparse.ArgumentParser = sub.add_parser("contradictions", help=help_, description=help_)
    common(p)
    return p


def cmd_contradictions(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    from ..core.index.queries import concept_notes
    from ..core.review.contradictions import find_contradictions
    from ..core.vault.files import read_note

    index = open_index(args)
    view = index.snapshot()

    def notes() -> Any:
        for rel in sorted(view.notes):
            text = read_note(view.root, rel).text
            if text is not None:
                yield rel, text, view.notes[rel].date.isoformat()

    found = find_contradictions(notes(), view.concepts.concepts, concept_notes(view))
    data = {"candidates": [c.json() for c in found]}
    out = [
        f"{len(found):,} contradiction candidates (found without a language model: "
        "candidates, not truths; most sure first, then newest)"
    ]
    for c in found[:SHOWN]:
        out.append(f"  [{c.concept}] {c.kind} ({c.sureness:.1f}): {c.about}")
        out.append(f"    {c.newer.date}  {c.newer.note}:{c.newer.first}  {c.newer.said[:100]}")
        out.append(f"    {c.older.date}  {c.older.note}:{c.older.first}  {c.older.said[:100]}")
    if len(found) > SHOWN:
        out.append(f"  … and {len(found) - SHOWN:,} more (see --json)")
    return data, "\n".join(out), 0
