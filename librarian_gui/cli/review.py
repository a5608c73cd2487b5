"""The command line's review commands: ``librarian review`` (the review desk and its marks),
``librarian duplicates`` (near-duplicate passage pairs across the vault, boilerplate apart),
``librarian contradictions`` (candidates) and ``librarian supersede`` (the mark that settles
one)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.index.index import VaultIndex

if TYPE_CHECKING:
    from ..core.review.duplicates import PassageStore
from .exits import EXIT_BUSY, EXIT_FINDINGS, EXIT_USAGE, CommandFailed, Result

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
    from ..core.review.duplicates import compare

    index = open_index(args)
    store = _passages(args, index)
    found = compare(store.update(index.root, sorted(index.notes)), args.threshold)
    _keep(args, index, store)
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


def _passages(args: argparse.Namespace, index: VaultIndex) -> PassageStore:
    """The passages the last command kept for this vault (none with ``--no-cache``)."""
    from ..core.review.duplicates import PassageStore
    from ..core.review.passage_cache import load_store

    min_words = getattr(args, "min_words", MIN_WORDS)
    return PassageStore(min_words) if args.no_cache else load_store(index.root, min_words)


def _keep(args: argparse.Namespace, index: VaultIndex, store: PassageStore) -> None:
    if not args.no_cache:
        from ..core.review.passage_cache import save_store

        save_store(index.root, store)


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
    store = _passages(args, index)
    if args.mark_day:
        day = args.mark_day.strip()
        found = review_desk.review_desk(index, since, store=store)
        rels = [i.note for d, items in found.days if d == day for i in items]
        marked = review_desk.mark_notes(root, rels)
        said.append(f"marked reviewed: {len(marked)} notes of {day}")
    if args.mark_all:
        review_desk.mark_up_to(root, dt.datetime.now(dt.UTC), sorted(index.notes))
        said.append("marked reviewed: everything up to now")
    desk = review_desk.review_desk(index, since, store=store)
    _keep(args, index, store)
    data = {**desk.json(), "marked": said}
    out = [*said, f"changed since {desk.since}, not reviewed yet:"]
    if not desk.days:
        out.append("  nothing: every change is reviewed")
    for day, items in desk.days:
        out.append(day)
        for item in items:
            who = ", then ".join(
                f"{by.client} {by.version}".strip() if by.kind == "agent" else by.kind
                for by in item.writers or (item.by,)
            )
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
    import shlex

    from ..core.review.contradictions import contradictions_in

    index = open_index(args)
    found = contradictions_in(index)
    vault = shlex.quote(str(index.root))
    data = {
        "candidates": [
            {
                **c.json(),
                "supersede": f"librarian supersede {vault} {shlex.quote(c.newer.note)} "
                f"{shlex.quote(c.older.note)} --apply",
            }
            for c in found
        ]
    }
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


def add_supersede_command(sub: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    help_ = (
        'mark NOTE as superseding OLDER: the property supersedes: "[[OLDER]]" in its front '
        "matter (a preview; --apply writes it through the journal, librarian undo takes it back)"
    )
    p: argparse.ArgumentParser = sub.add_parser("supersede", help=help_, description=help_)
    common(p, note=True)
    p.add_argument("older", metavar="OLDER", help="the note it replaces: title or path")
    p.add_argument("--apply", action="store_true", help="write the mark as previewed")
    p.add_argument("--wait", type=float, default=5.0, metavar="SECONDS", help=argparse.SUPPRESS)
    return p


def cmd_supersede(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    from ..core.review.supersede import apply_supersede, plan_supersede
    from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
    from ..core.writing.lock import VaultBusy
    from ..core.writing.safewrite import WriteRefused
    from .common import note_arg

    index = open_index(args)
    note, older = note_arg(index, args.note), note_arg(index, args.older)
    try:
        plan = plan_supersede(index, note, older)
    except WriteRefused as exc:
        raise CommandFailed(EXIT_FINDINGS, f"cannot mark it: {exc}") from exc
    data: dict[str, Any] = {**plan.json(), "applied": False, "journal_entry": None}
    if plan.already:
        return data, f"{note} names [[{plan.name}]] in supersedes already: nothing to do", 0
    text = plan.diff.rstrip("\n")
    if not args.apply:
        return data, text + "\n\nnothing written: --apply writes this mark", 0
    try:
        entry = apply_supersede(Journal(index.root, by=COMMAND_LINE), plan, wait=args.wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:
        raise CommandFailed(EXIT_FINDINGS, f"nothing was written: {exc}") from exc
    data.update(applied=True, journal_entry=entry.id)
    return (
        data,
        text + f"\n\nmarked: {note} supersedes {older} (journal entry {entry.id}; "
        "librarian undo VAULT, or the window's Edit → Undo, takes it back)",
        0,
    )
