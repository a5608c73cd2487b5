"""The command line's ``librarian split``: a dump's split plan (the sections, the new notes,
the new index, the links rewritten), and ``--apply``, which writes it as one journal entry
that ``librarian undo`` takes back byte for byte."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.index.index import VaultIndex
from ..core.library.dumps import MAX_BYTES, MAX_LINES, MAX_TOKENS, DumpLimits
from ..core.library.sections import MIN_SECTIONS
from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
from ..core.writing.lock import WAIT, VaultBusy
from ..core.writing.safewrite import WriteRefused
from .common import note_arg
from .exits import EXIT_BUSY, EXIT_FINDINGS, EXIT_USAGE, CommandFailed, Result

if TYPE_CHECKING:
    # The split's modules bring the Markdown renderer (0.12 s): imported by the command
    # that splits, not by the parser every command builds.
    from ..core.library.split import SplitOptions, SplitPlan

SHOWN = 60  # sections listed in the human text; --json has them all


def add_limits(p: argparse.ArgumentParser) -> None:
    """The limits past which a long note of many sections is a dump (``index``, ``split``)."""
    p.add_argument("--max-lines", type=int, default=MAX_LINES, metavar="N", help=argparse.SUPPRESS)
    p.add_argument("--max-bytes", type=int, default=MAX_BYTES, metavar="N", help=argparse.SUPPRESS)
    p.add_argument(
        "--max-tokens", type=int, default=MAX_TOKENS, metavar="N", help=argparse.SUPPRESS
    )
    p.add_argument(
        "--min-sections",
        type=int,
        default=MIN_SECTIONS,
        metavar="N",
        help=f"a note past --max-lines ({MAX_LINES}), --max-bytes ({MAX_BYTES:,}) and "
        f"--max-tokens ({MAX_TOKENS:,}) with at least N sections ({MIN_SECTIONS}) is a dump",
    )


def limits_of(args: argparse.Namespace) -> DumpLimits:
    for name in ("max_lines", "max_bytes", "max_tokens", "min_sections"):
        if getattr(args, name) < 1:
            raise CommandFailed(EXIT_USAGE, f"--{name.replace('_', '-')} must be at least 1")
    return DumpLimits(args.max_lines, args.max_bytes, args.max_tokens, args.min_sections)


def add_command(sub: Any, common: Callable[..., None]) -> argparse.ArgumentParser:
    help_ = (
        "split a note grown into a dump into daily logs and topic notes under a new index "
        "that points (a plan; --apply writes it as one journal entry, librarian undo "
        "takes it back)"
    )
    p: argparse.ArgumentParser = sub.add_parser("split", help=help_, description=help_)
    common(p, note=True)
    p.add_argument("--apply", action="store_true", help="write the plan as proposed")
    p.add_argument(
        "--keep",
        metavar="N",
        type=int,
        nargs="+",
        action="extend",
        default=[],
        help="sections (their numbers in the plan) that stay in the note",
    )
    p.add_argument(
        "--to",
        metavar="N=PATH",
        action="append",
        default=[],
        help="send section N to the note PATH (sections sent to one path are merged)",
    )
    p.add_argument(
        "--merge",
        metavar="N,M",
        action="append",
        default=[],
        help="send sections M, … to section N's note",
    )
    p.add_argument(
        "--logs",
        choices=("day", "month"),
        default="day",
        help="dated sections to one log a day (default) or a month",
    )
    p.add_argument(
        "--logs-folder", default="logs", metavar="FOLDER", help="where logs go (default: logs)"
    )
    add_limits(p)
    p.add_argument("--wait", type=float, default=WAIT, metavar="SECONDS", help=argparse.SUPPRESS)
    return p


def _options(args: argparse.Namespace, index: VaultIndex, dump: str) -> SplitOptions:
    from ..core.library.split import SplitOptions, plan_split

    to: dict[int, str] = {}
    for given in args.to:
        number, sep, path = given.partition("=")
        if not sep or not number.strip().isdigit() or not path.strip():
            raise CommandFailed(EXIT_USAGE, f"--to {given!r}: write it N=PATH (--to 3=people/Ann)")
        to[int(number)] = path.strip()
    merges: list[list[int]] = []
    for given in args.merge:
        parts = [part.strip() for part in given.split(",")]
        if len(parts) < 2 or not all(part.isdigit() for part in parts):
            raise CommandFailed(EXIT_USAGE, f"--merge {given!r}: write it N,M (--merge 3,7)")
        merges.append([int(part) for part in parts])
    options = SplitOptions(args.logs, args.logs_folder, frozenset(args.keep), to)
    if merges:
        # where section N goes in the plan without the merges, unless --to says
        first = plan_split(index, dump, options).section_targets
        for first_n, *others in merges:
            home = to.get(first_n) or first.get(first_n)
            if home is None:
                raise CommandFailed(EXIT_USAGE, f"--merge: section {first_n} moves nowhere")
            to[first_n] = home
            for other in others:
                to[other] = home
        options = SplitOptions(args.logs, args.logs_folder, frozenset(args.keep), to)
    return options


def cmd_split(
    args: argparse.Namespace, open_index: Callable[[argparse.Namespace], VaultIndex]
) -> Result:
    """The JSON document, the human text and the exit code of ``librarian split``."""
    from ..core.library.apply import DumpChanged, apply_split
    from ..core.library.split import NothingToSplit, plan_split

    index = open_index(args)
    dump = note_arg(index, args.note)
    limits = limits_of(args)
    try:
        options = _options(args, index, dump)
        plan = plan_split(index, dump, options, limits)
    except NothingToSplit as exc:
        raise CommandFailed(EXIT_FINDINGS, str(exc)) from exc
    except WriteRefused as exc:
        raise CommandFailed(EXIT_FINDINGS, f"cannot split it: {exc}") from exc
    data: dict[str, Any] = {**plan.json(), "applied": False, "journal_entry": None}
    text = human_plan(plan)
    if not args.apply:
        return data, text + "\n\nnothing written: --apply writes this plan", 0
    try:
        result = apply_split(Journal(index.root, by=COMMAND_LINE), plan, wait=args.wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except DumpChanged as exc:
        raise CommandFailed(EXIT_FINDINGS, f"{exc}; run librarian split again") from exc
    except (JournalError, WriteRefused) as exc:
        raise CommandFailed(EXIT_FINDINGS, f"nothing was written: {exc}") from exc
    data.update(
        applied=True,
        journal_entry=result.entry.id,
        kept_tail_bytes=result.kept_tail,
        links_not_rewritten=[{"note": n, "reason": r} for n, r in result.links_not_rewritten],
    )
    said = [
        f"split: {len(result.created)} notes created, {dump} is now the index "
        f"(journal entry {result.entry.id}; librarian undo VAULT, or the window's Edit → Undo, "
        "takes it all back)"
    ]
    if result.kept_tail:
        said.append(
            f"  {result.kept_tail:,} bytes added to {dump} since the plan stay at its end: "
            "run librarian split again to move them"
        )
    said.extend(f"  not rewritten: {n}: {r}" for n, r in result.links_not_rewritten)
    return data, text + "\n\n" + "\n".join(said), 0


def human_plan(plan: SplitPlan) -> str:
    report = plan.report
    out = [
        f"{plan.dump}: {report.lines:,} lines, {report.bytes / 1024:.1f} KB, "
        f"~{report.tokens:,} tokens; {report.sections} sections to move "
        f"({report.dated} dated, {report.topics} by topic) at heading level {report.level}",
    ]
    if not report.candidate:
        out.append("  (not past the limits of a dump: splitting it is your choice)")
    out.append("sections:")
    for section in plan.shape.sections[:SHOWN]:
        where = plan.section_targets.get(section.number, f"stays in {plan.dump}")
        span = f"lines {section.first + 1}-{section.end}"
        out.append(f"  {section.number:>4}  {section.title[:50]:<50}  {span:<17} → {where}")
    if len(plan.shape.sections) > SHOWN:
        out.append(f"  … and {len(plan.shape.sections) - SHOWN:,} more (see --json)")
    logs = sum(1 for t in plan.targets if t.kind == "log")
    out.append(
        f"new notes: {len(plan.targets):,} ({logs:,} logs, {len(plan.targets) - logs:,} topic "
        f"notes); the new {plan.dump}: {plan.index_text.count(chr(10)):,} lines"
    )
    if plan.link_changes:
        out.append(f"links rewritten ({len(plan.link_changes)}):")
        out.extend(
            f"  {c.note}:{c.line}  {c.before} → {c.after}" for c in plan.link_changes[:SHOWN]
        )
    out.extend(f"warning: {w}" for w in plan.warnings)
    out.append(f"the new {plan.dump}:")
    out.extend(f"  | {line}" for line in plan.index_text.splitlines()[:SHOWN])
    return "\n".join(out)
