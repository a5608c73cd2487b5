"""The command line's concept insight commands: ``cooccur``, ``isolated`` and ``timeline``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import concepts as cli_concepts
from .common import emit, open_index
from .exits import EXIT_FINDINGS, EXIT_NO_NOTE, EXIT_USAGE, CommandFailed

if TYPE_CHECKING:
    from ..core.index.index import VaultIndex


def cmd_cooccur(args: argparse.Namespace) -> None:
    from ..core.insight.cooccurrence import cooccurring, counted_notes, found_in, pair_table

    if (args.concept is None) == (not args.all):
        raise CommandFailed(EXIT_USAGE, "name one CONCEPT, or ask for --all pairs")
    index = open_index(args)
    _check_dictionary(args, index)
    found: dict[str, frozenset[str]] = {}
    if args.all:
        table = pair_table(index, include_index=args.include_index, min_count=args.min_count)
        if args.json:  # hundreds of thousands of rows: one per line, made directly
            _write_pair_rows(table)
            return
        pairs: Any = table
    else:
        found = found_in(index, include_index=args.include_index)
        total = counted_notes(index, include_index=args.include_index)
        if args.concept not in found:
            raise CommandFailed(
                EXIT_NO_NOTE, f"{args.concept!r}: no such concept in the dictionary"
            )
        pairs = [p for p in cooccurring(found, args.concept, total) if p.count >= args.min_count]

    def row(pair: Any) -> dict[str, Any]:
        return {
            "concept": pair.b,
            "count": pair.count,
            "jaccard": round(pair.jaccard, 4),
            "lift": round(pair.lift, 4),
            "notes": list(pair.notes),
        }

    data = {
        "concept": args.concept,
        "found_in": len(found.get(args.concept or "", ())),
        "with": [row(p) for p in pairs] if not args.all else [],
    }

    def human() -> str:
        if not pairs:
            return (
                "no concepts share a note"
                if args.all
                else f"no concept shares a note with {args.concept}"
            )
        lines = [f"{'notes':>5}  {'jaccard':>7}  {'lift':>6}  concept"]
        for p in pairs:
            name = f"{p.a} + {p.b}" if args.all else p.b
            lines.append(f"{p.count:>5}  {p.jaccard:>7.3f}  {p.lift:>6.2f}  {name}")
        return "\n".join(lines)

    emit(args, data, human)


def _write_pair_rows(table: Any) -> None:
    """``cooccur --all --json``: a JSON list, one pair a line (``json.dumps`` of half a
    million indented rows took 3 s). Jaccard and lift with 4 decimals, as ``round`` gives
    them elsewhere."""
    quoted = [json.dumps(name, ensure_ascii=True) for name in table.ids]
    rows = zip(
        [quoted[i] for i in table.a.tolist()],
        [quoted[i] for i in table.b.tolist()],
        table.count.tolist(),
        table.jaccard.tolist(),
        table.lift.tolist(),
        strict=True,
    )
    line = '{"a": %s, "b": %s, "count": %d, "jaccard": %.4f, "lift": %.4f}'
    body = ",\n".join(map(line.__mod__, rows))
    sys.stdout.write(f"[\n{body}\n]\n" if body else "[]\n")


def cmd_isolated(args: argparse.Namespace) -> None:
    from ..core.agents.answers import isolated_answer
    from ..core.vault.files import read_note

    if args.max_notes < 0:
        raise CommandFailed(EXIT_USAGE, "--max-notes must be 0 or more")
    index = open_index(args)
    _check_dictionary(args, index)
    data = isolated_answer(
        index,
        lambda rel: read_note(index.root, rel).text,
        max_notes=args.max_notes,
        include_index=args.include_index,
        use_cache=not args.no_cache,
    )
    rows = data["isolated"]
    concepts = index.concepts.concepts

    def human() -> str:
        head = f"{len(rows)} of {len(concepts)} concepts found in at most {args.max_notes} notes"
        lines = [head]
        if rows:
            lines.append(f"{'notes':>5}  {'mentioned':>9}  concept (status)")
        for r in rows:
            lines.append(f"{r['found_in']:>5}  {r['mentioned']:>9}  {r['concept']} ({r['status']})")
        return "\n".join(lines)

    emit(args, data, human)


def cmd_timeline(args: argparse.Namespace) -> None:
    from ..core.insight.timeline import bin_mentions, concept_mentions, period_end, period_label
    from ..core.vault.files import read_note

    index = open_index(args)
    _check_dictionary(args, index)
    ids = []
    for name in args.concept:
        concept = index.concepts.get(name)
        if concept is None:
            raise CommandFailed(EXIT_NO_NOTE, f"{name!r}: no such concept in the dictionary")
        if concept.id not in ids:
            ids.append(concept.id)
    mentions = concept_mentions(index, ids, lambda rel: read_note(index.root, rel).text)
    timeline = bin_mentions(mentions, ids, args.by, file_time=args.file_time)

    def note(m: Any) -> dict[str, Any]:
        return {
            "note": m.note,
            "date": m.date.isoformat(),
            "dated_by": m.dated_by,
            "linked": m.linked,
            "line": m.line,
            "text": m.text,
        }

    def day(d: Any) -> str | None:
        return None if d is None else d.isoformat()

    data = {
        "by": args.by,
        "file_time": args.file_time,
        "from": day(timeline.periods[0] if timeline.periods else None),
        "to": day(period_end(timeline.periods[-1], args.by) if timeline.periods else None),
        "concepts": [
            {
                "concept": c.concept,
                "first": day(c.first),
                "last": day(c.last),
                "dated": c.dated,
                "bins": [
                    {
                        "period": b.start.isoformat(),
                        "end": period_end(b.start, args.by).isoformat(),
                        "label": period_label(b.start, args.by),
                        "linked": b.linked,
                        "unlinked": b.unlinked,
                        "file_time": b.file_time,
                        "notes": [note(m) for m in b.notes],
                    }
                    for b in c.bins
                ],
                "by_file_time": [note(m) for m in c.by_file_time],
            }
            for c in timeline.concepts
        ],
    }

    def human() -> str:
        lines = []
        for c in timeline.concepts:
            span = f"first {c.first}, last {c.last}" if c.first else "no note with a date"
            lines.append(f"{c.concept}: {c.dated} dated notes, {span}")
            extra = f" {'file time':>9}" if args.file_time else ""
            if c.bins:
                lines.append(f"  {'period':<24} {'linked':>6} {'unlinked':>8}{extra}")
            for b in c.bins:
                label = period_label(b.start, args.by)
                extra = f" {b.file_time:>9}" if args.file_time else ""
                lines.append(f"  {label:<24} {b.linked:>6} {b.unlinked:>8}{extra}")
            if c.by_file_time:
                how = "counted in the file time column" if args.file_time else "not counted above"
                lines.append(
                    f"  {len(c.by_file_time)} notes dated only by their file time ({how}): "
                    + ", ".join(m.note for m in c.by_file_time[:5])
                    + (f" (+{len(c.by_file_time) - 5})" if len(c.by_file_time) > 5 else "")
                )
        return "\n".join(lines)

    emit(args, data, human)


def _check_dictionary(args: argparse.Namespace, index: VaultIndex) -> None:
    """A dictionary that does not parse stops a concept command, saying where. The index
    read it already: only one it could not read is read again, for where it breaks (a
    second read of a 90,000-concept dictionary was a quarter of ``isolated``)."""
    error = index.concepts.error
    if error is None:
        return
    path = cli_concepts.dictionary_path(args, Path(args.vault))
    cli_concepts.load_document(path)  # raises, saying where, if it is still broken
    raise CommandFailed(EXIT_FINDINGS, f"{path}: {error.removeprefix(path.name + ': ')}")
