"""The ``librarian`` command line: the vault index, headless. Imports nothing from Qt."""

from __future__ import annotations

import argparse
import io
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from .. import __version__
from ..core.graph.export import dump_graphml, dump_json, graph_document
from ..core.index import cachefile
from ..core.index.index import VaultIndex
from ..core.index.queries import (
    AmbiguousNote,
    NoteNotFound,
    find_note,
    node_kind,
    node_label,
    unresolved,
)
from ..core.writing.journal import Journal, JournalError
from ..core.writing.lock import VaultBusy
from ..core.writing.safewrite import WriteRefused
from . import agents as cli_agents
from . import concepts as cli_concepts
from . import failures as cli_failures
from . import index as cli_index
from . import related as cli_related
from .exits import (
    EXIT_AMBIGUOUS,
    EXIT_BUSY,
    EXIT_FINDINGS,
    EXIT_NO_NOTE,
    EXIT_NO_VAULT,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_USAGE,
    CommandFailed,
    Result,
)

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


def _vault_folder(path: str | Path) -> Path:
    """VAULT as a folder, or the failure that says what it is instead."""
    vault = Path(path).expanduser()
    if vault.is_dir():
        return vault
    if vault.exists():
        raise CommandFailed(EXIT_NO_VAULT, f"{vault}: is a file, not a vault folder")
    raise CommandFailed(EXIT_NO_VAULT, f"{vault}: no such vault folder")


def _open_index(args: argparse.Namespace) -> VaultIndex:
    vault = _vault_folder(args.vault)
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


def _note_arg(index: VaultIndex, name: str) -> str:
    try:
        return find_note(index, name)
    except AmbiguousNote as exc:
        raise CommandFailed(EXIT_AMBIGUOUS, str(exc) + "; give the path to choose one") from exc
    except NoteNotFound as exc:
        from ..core.agents.answers import closest_notes

        close = closest_notes(index, name)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise CommandFailed(EXIT_NO_NOTE, f"{exc}{hint}") from exc


def _emit(args: argparse.Namespace, data: Any, human: Callable[[], str]) -> None:
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


# ------------------------------------------------------------------ commands


def cmd_scan(args: argparse.Namespace) -> None:
    repaired: list[str] = []
    if args.repair:  # before the scan, so that it reports what is left
        repaired = _repair(Path(args.vault).expanduser(), args.wait)
    index = _open_index(args)
    stats = index.stats()
    warnings = index.warnings()
    data: dict[str, Any] = {
        **stats,
        "warning_details": [
            {"path": w.path, "kind": w.kind, "message": w.message} for w in warnings
        ],
    }
    if args.repair:
        data["repaired"] = repaired

    def human() -> str:
        links = stats["links"]
        assert isinstance(links, dict)
        lines = [
            f"vault        {index.root}",
            f"notes        {stats['notes']}",
            f"attachments  {stats['attachments']}",
            f"links        {sum(links.values())} ("
            + ", ".join(f"{k} {v}" for k, v in links.items())
            + ")",
            f"resolved     {stats['resolved']}",
            f"unresolved   {stats['unresolved']} (to {stats['unresolved_targets']} targets)",
            f"edges        {stats['edges']}",
            f"orphans      {stats['orphans']}",
            f"concepts     {stats['concepts']}",
            f"warnings     {stats['warnings']}",
        ]
        lines.extend(f"  repaired: {said}" for said in repaired)
        lines.extend(f"  warning: {w}" for w in warnings[:50])
        if len(warnings) > 50:
            lines.append(f"  … and {len(warnings) - 50} more (see --json)")
        return "\n".join(lines)

    _emit(args, data, human)


def _repair(vault: Path, wait: float) -> list[str]:
    vault = _vault_folder(vault)
    try:
        return Journal(vault).repair(wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:
        raise CommandFailed(EXIT_STOPPED, str(exc)) from exc


def cmd_backlinks(args: argparse.Namespace) -> None:
    from ..core.agents.answers import backlink_rows

    index = _open_index(args)
    node = _note_arg(index, args.note)
    data = backlink_rows(index, node)

    def human() -> str:
        if not data:
            return f"no backlinks to {node_label(index, node)}"
        return "\n".join(f"{b['source']}:{b['line']}: {b['context']}" for b in data)

    _emit(args, data, human)


def cmd_links(args: argparse.Namespace) -> None:
    from ..core.agents.answers import link_rows

    index = _open_index(args)
    node = _note_arg(index, args.note)
    if node not in index.notes:
        what = "an attachment" if node in index.attachments else "a concept"
        raise CommandFailed(EXIT_NO_NOTE, f"{node_label(index, node)!r} is {what}, not a note")
    data = link_rows(index, node)

    def human() -> str:
        if not data:
            return f"no links in {node}"
        rows = []
        for link in data:
            kind, target = link["node_kind"], link["node"]
            where = (
                target if kind in ("note", "attachment") else f"{kind}: {node_label(index, target)}"
            )
            frag = f"#{link['fragment']}" if link["fragment"] else ""
            rows.append(f"{link['line']:>5}  {link['kind']:<9} {link['target']}{frag} → {where}")
        return "\n".join(rows)

    _emit(args, data, human)


def cmd_neighbors(args: argparse.Namespace) -> None:
    from ..core.agents.answers import neighbour_row, neighbour_steps

    index = _open_index(args)
    node = _note_arg(index, args.note)
    data = [neighbour_row(index, step) for step in neighbour_steps(index, node, args.depth)]
    ordered = [(row["node"], row["distance"]) for row in data]

    def human() -> str:
        if not ordered:
            return f"{node_label(index, node)} has no neighbours"
        rows = []
        for n, d in ordered:
            path = n if n in index.notes else ""
            rows.append(f"{d}  {node_kind(index, n):<10} {node_label(index, n)}  {path}".rstrip())
        return "\n".join(rows)

    _emit(args, data, human)


def cmd_orphans(args: argparse.Namespace) -> None:
    index = _open_index(args)
    found = index.orphans()
    _emit(args, found, lambda: "\n".join(found) if found else "no orphans")


def cmd_unresolved(args: argparse.Namespace) -> None:
    index = _open_index(args)
    found = unresolved(index)
    data = [
        {
            "target": u.target,
            "count": u.count,
            # "source": the old key, kept for one release (README)
            "sources": [{"note": s, "source": s, "count": c} for s, c in u.sources],
        }
        for u in found
    ]

    def human() -> str:
        if not found:
            return "no unresolved targets"
        return "\n".join(
            f"{u.count:>5}  {u.target}  ← "
            + ", ".join(s for s, _ in u.sources[:3])
            + (f" (+{len(u.sources) - 3})" if len(u.sources) > 3 else "")
            for u in found
        )

    _emit(args, data, human)


def cmd_export(args: argparse.Namespace) -> None:
    output = Path(args.output).expanduser() if args.output else None
    if output is not None and not output.parent.is_dir():  # before a long scan, not after
        raise CommandFailed(EXIT_USAGE, f"{output.parent}: no such folder for --output")
    if not 0.0 <= args.related_threshold <= 1.0:
        raise CommandFailed(EXIT_USAGE, "--related-threshold must be between 0 and 1")
    index = _open_index(args)
    related = None
    if not args.no_related:
        from ..core.related.cached import vault_related
        from ..core.vault.files import read_note

        # The cached model brought up to date (only notes changed since are read), as
        # ``librarian related`` and the window use it: a stale cache would export the
        # relations of notes' old text.
        related = vault_related(
            index, lambda rel: read_note(index.root, rel).text, use_cache=not args.no_cache
        )
    table = None
    if args.cooccurrence:
        from ..core.insight.cooccurrence import pair_table

        with index.lock:
            table = pair_table(index)
    document = graph_document(
        index, related=related, related_threshold=args.related_threshold, cooccurrence=table
    )
    dump = dump_json if args.format == "json" else dump_graphml
    if output is None:
        sys.stdout.flush()
        # UTF-8 bytes whatever the console's encoding: the GraphML declares UTF-8
        stream = getattr(sys.stdout, "buffer", sys.stdout)
        dump(document, stream)
        stream.flush()
        return
    try:
        dump(document, output)
    except OSError as exc:
        raise CommandFailed(
            EXIT_USAGE, f"{output}: cannot be written ({exc.strerror}); choose another --output"
        ) from exc
    nodes, edges = len(document["nodes"]), len(document["edges"])
    print(f"exported {nodes} nodes and {edges} edges to {output}")


def cmd_cooccur(args: argparse.Namespace) -> None:
    from ..core.insight.cooccurrence import cooccurring, counted_notes, found_in, pair_table

    if (args.concept is None) == (not args.all):
        raise CommandFailed(EXIT_USAGE, "name one CONCEPT, or ask for --all pairs")
    _check_dictionary(args)
    index = _open_index(args)
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

    _emit(args, data, human)


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
    _check_dictionary(args)
    index = _open_index(args)
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

    _emit(args, data, human)


def cmd_timeline(args: argparse.Namespace) -> None:
    from ..core.insight.timeline import bin_mentions, concept_mentions, period_end, period_label
    from ..core.vault.files import read_note

    _check_dictionary(args)
    index = _open_index(args)
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

    _emit(args, data, human)


def cmd_related(args: argparse.Namespace) -> None:
    data, human = cli_related.cmd_related(args, _open_index, _note_arg)
    if args.all and args.json:  # ten thousand notes: one a line
        cli_related.write_rows(data)
        return
    _emit(args, data, human)


def cmd_mcp(args: argparse.Namespace) -> None:
    from ..mcp_server import serve

    vault = _vault_folder(args.vault)
    serve(
        vault,
        allow_writes=args.allow_writes,
        concepts=Path(args.concepts) if args.concepts else None,
        excluded=tuple(args.exclude or ()),
        use_cache=not args.no_cache,
    )


def cmd_undo(args: argparse.Namespace) -> None:
    vault = _vault_folder(args.vault)
    journal = Journal(vault)
    try:
        result = journal.undo(args.entry, args.wait)
        entry = journal.entry(result.entry_id)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:  # the lock cannot be made, say
        raise CommandFailed(EXIT_STOPPED, str(exc)) from exc
    # A created note is not given bytes back: undone, it is gone (moved into the journal).
    created = {file.rel for file in entry.files if file.kind == "create"}
    removed = [rel for rel in result.restored if rel in created]
    data = {
        "entry": result.entry_id,
        "description": entry.description,
        "restored": list(result.restored),  # removed ones too, as before: kept one release
        "removed": removed,
        "untouched": list(result.untouched),
        "refused": [{"note": rel, "reason": reason} for rel, reason in result.refused],
        "passed_over": list(result.passed),
    }

    def human() -> str:
        lines = [f"passed over: {said}" for said in result.passed]
        lines += [f"undid {entry.description!r} ({result.entry_id})"]
        lines += [
            f"  removed   {rel}" if rel in created else f"  restored  {rel}"
            for rel in result.restored
        ]
        lines += [f"  as before {rel}" for rel in result.untouched]
        lines += [f"  refused   {rel}: {reason}" for rel, reason in result.refused]
        return "\n".join(lines)

    _emit(args, data, human)
    if result.refused:
        raise _Exit(EXIT_FINDINGS)


def _check_dictionary(args: argparse.Namespace) -> None:
    """A dictionary that does not parse stops a concept command, saying where."""
    cli_concepts.load_document(cli_concepts.dictionary_path(args, Path(args.vault)))


# ------------------------------------------------------------------ parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="librarian",
        description="Query a vault of Markdown notes: links, backlinks, neighbours, orphans.",
        epilog="Exit codes: 0 ok, 1 findings (dictionary errors or none, files refused by tag) "
        "or a command stopped (a write refused, a full disk, no memory left), 2 usage, "
        "3 vault not found, 4 note (or concept) not found, 5 note name ambiguous, "
        "6 another Librarian is writing the vault.",
    )
    parser.add_argument("--version", action="version", version=f"librarian {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str,
        func: Callable[[argparse.Namespace], None],
        help_: str,
        note: bool = False,
        json_flag: bool = True,
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        _common(p, note=note, json_flag=json_flag)
        p.set_defaults(func=func)
        return p

    scan = add("scan", cmd_scan, "index the vault and print its counts")
    scan.add_argument(
        "--repair",
        action="store_true",
        help="first remove or put back the temporary files interrupted writes left",
    )
    scan.add_argument("--wait", type=float, default=5.0, metavar="SECONDS", help=argparse.SUPPRESS)
    add("backlinks", cmd_backlinks, "notes linking to NOTE, with the linking line", note=True)
    add("links", cmd_links, "the links in NOTE and where they resolve", note=True)
    neighbors = add("neighbors", cmd_neighbors, "notes within N hops of NOTE", note=True)
    neighbors.add_argument(
        "--depth",
        type=int,
        choices=(1, 2, 3),
        default=1,
        help="how many hops: 1, 2 or 3 (default 1)",
    )
    add("orphans", cmd_orphans, "notes with no links in or out")
    add("unresolved", cmd_unresolved, "link targets that match no note, with who links them")
    # --format chooses the output instead of --json: the document is always data
    export = add(
        "export",
        cmd_export,
        "write the whole graph (every node kind, every edge) as JSON or GraphML",
        json_flag=False,
    )
    export.add_argument(
        "--format", choices=("json", "graphml"), default="json", help="default: json"
    )
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument(
        "--no-related",
        action="store_true",
        help="leave out the RELATED_TO edges (similar notes), which take a pass of the "
        "librarian when its cache is cold",
    )
    export.add_argument(
        "--related-threshold",
        type=float,
        default=0.15,
        metavar="T",
        help="the cosine a pair of notes needs for a RELATED_TO edge (default 0.15)",
    )
    export.add_argument(
        "--cooccurrence",
        action="store_true",
        help="add an edge between concepts found in the same notes (count, Jaccard, lift)",
    )
    cooccur = add(
        "cooccur",
        cmd_cooccur,
        "concepts found in the same notes as CONCEPT (or --all pairs): count, Jaccard, lift",
    )
    cooccur.add_argument("concept", metavar="CONCEPT", nargs="?", help="a concept id")
    cooccur.add_argument("--all", action="store_true", help="every pair of concepts")
    cooccur.add_argument(
        "--min-count", type=int, default=1, metavar="N", help="pairs sharing at least N notes"
    )
    cooccur.add_argument(
        "--include-index",
        action="store_true",
        help="count the index note (MEMORY.md), which links everything",
    )
    isolated = add(
        "isolated",
        cmd_isolated,
        "concepts found in at most N notes: never linked, mentioned but never linked, rare",
    )
    isolated.add_argument(
        "--max-notes", type=int, default=2, metavar="N", help="at most N notes (default 2)"
    )
    isolated.add_argument(
        "--include-index",
        action="store_true",
        help="count the index note (MEMORY.md), which links everything",
    )
    timeline = add(
        "timeline",
        cmd_timeline,
        "notes mentioning each CONCEPT per day, week or month, linked and unlinked",
    )
    timeline.add_argument("concept", metavar="CONCEPT", nargs="+", help="concept ids")
    timeline.add_argument(
        "--by", choices=("day", "week", "month"), default="week", help="the period (week)"
    )
    timeline.add_argument(
        "--file-time",
        action="store_true",
        help="count notes dated only by their file's time in the periods too",
    )
    cli_related.add_command(sub, _common).set_defaults(func=cmd_related)
    mcp = add(
        "mcp",
        cmd_mcp,
        "serve the vault to an agent: Model Context Protocol tools over stdio",
        json_flag=False,
    )
    mcp.add_argument(
        "--allow-writes",
        action="store_true",
        help="let the agent create notes and append to them (journaled, undoable)",
    )
    undo = add("undo", cmd_undo, "undo the newest write in the vault's journal (or --entry ID)")
    undo.add_argument("--entry", metavar="ID", help="undo this journal entry (its folder name)")
    undo.add_argument("--wait", type=float, default=5.0, metavar="SECONDS", help=argparse.SUPPRESS)
    cli_agents.add_commands(sub, _common, _open_index, _emit)
    cli_index.add_command(sub, _common).set_defaults(func=_concept_command(cli_index.cmd_index))
    check, suggest, tag = cli_concepts.add_commands(sub, _common)
    check.set_defaults(func=_concept_command(cli_concepts.cmd_concepts_check))
    suggest.set_defaults(func=_concept_command(cli_concepts.cmd_concepts_suggest))
    tag.set_defaults(func=_concept_command(cli_concepts.cmd_tag))
    return parser


def _common(p: argparse.ArgumentParser, *, note: bool = False, json_flag: bool = True) -> None:
    p.add_argument("vault", metavar="VAULT", help="the vault folder")
    if note:
        p.add_argument("note", metavar="NOTE", help="title or path, with or without .md")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print JSON (stable keys)")
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the cache")
    p.add_argument(
        "--concepts", metavar="PATH", help="concept dictionary (default: VAULT/concepts.json)"
    )
    p.add_argument(
        "--exclude", metavar="FOLDER", action="append", help="skip a folder (repeatable)"
    )


def _concept_command(
    command: Callable[[argparse.Namespace, Callable[[argparse.Namespace], VaultIndex]], Result],
) -> Callable[[argparse.Namespace], None]:
    """A command of ``cli/concepts.py`` or ``cli/index.py`` as this command line runs it: its
    failure is a clean exit, its output JSON or text, and its findings an exit code after the
    output."""

    def run(args: argparse.Namespace) -> None:
        data, text, code = command(args, _open_index)
        _emit(args, data, lambda: text.rstrip("\n"))
        if code:
            raise _Exit(code)

    return run


class _Exit(Exception):
    """Leave with an exit code after the output is printed (findings, not a failure)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _SaidOnStderr(logging.Handler):
    """What core says in passing (a cache file set aside) as the command line's other
    messages: a line on stderr, the one of the moment (a test's capture included)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"librarian: {self.format(record)}", file=sys.stderr)


def _say_cache_refusals() -> None:
    log = logging.getLogger(cachefile.__name__)
    if not any(isinstance(handler, _SaidOnStderr) for handler in log.handlers):
        log.addHandler(_SaidOnStderr(logging.WARNING))


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A file name that is not UTF-8 is printed as its own bytes, as ls prints it.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="surrogateescape")
    _say_cache_refusals()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "vault", None) is not None:
            _vault_folder(args.vault)  # every command: a file or a typo said so at once
        args.func(args)
    except CommandFailed as exc:
        print(f"librarian: {exc}", file=sys.stderr)
        return exc.code
    except _Exit as exc:
        return exc.code
    except BrokenPipeError:  # `librarian … | head`
        return EXIT_OK
    except (VaultBusy, WriteRefused, JournalError) as exc:  # a write's refusal, said in full
        print(f"librarian: {exc}", file=sys.stderr)
        return EXIT_BUSY if isinstance(exc, VaultBusy) else EXIT_STOPPED
    except (OSError, MemoryError, RecursionError) as exc:
        # The last resort: what the system stopped and no command foresaw, in one line.
        print(f"librarian: {cli_failures.last_resort(exc, args)}", file=sys.stderr)
        return EXIT_STOPPED
    return EXIT_OK
