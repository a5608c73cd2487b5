"""The command line's link-graph commands: ``scan`` (and ``--repair``), ``backlinks``,
``links``, ``neighbors``, ``orphans``, ``unresolved`` and ``export``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.graph.export import dump_graphml, dump_json, graph_document
from ..core.index.queries import node_kind, node_label, unresolved
from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
from ..core.writing.lock import VaultBusy
from ..core.writing.safewrite import WriteRefused
from .common import emit, note_arg, open_index, vault_folder
from .exits import EXIT_BUSY, EXIT_NO_NOTE, EXIT_STOPPED, EXIT_USAGE, CommandFailed


def cmd_scan(args: argparse.Namespace) -> None:
    repaired: list[str] = []
    if args.repair:  # before the scan, so that it reports what is left
        repaired = _repair(Path(args.vault).expanduser(), args.wait)
    index = open_index(args)
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

    emit(args, data, human)


def _repair(vault: Path, wait: float) -> list[str]:
    vault = vault_folder(vault)
    try:
        return Journal(vault, by=COMMAND_LINE).repair(wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:
        raise CommandFailed(EXIT_STOPPED, str(exc)) from exc


def cmd_backlinks(args: argparse.Namespace) -> None:
    from ..core.agents.answers import backlink_rows

    index = open_index(args)
    node = note_arg(index, args.note)
    data = backlink_rows(index, node)

    def human() -> str:
        if not data:
            return f"no backlinks to {node_label(index, node)}"
        return "\n".join(f"{b['source']}:{b['line']}: {b['context']}" for b in data)

    emit(args, data, human)


def cmd_links(args: argparse.Namespace) -> None:
    from ..core.agents.answers import link_rows

    index = open_index(args)
    node = note_arg(index, args.note)
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

    emit(args, data, human)


def cmd_neighbors(args: argparse.Namespace) -> None:
    from ..core.agents.answers import neighbour_row, neighbour_steps

    index = open_index(args)
    node = note_arg(index, args.note)
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

    emit(args, data, human)


def cmd_orphans(args: argparse.Namespace) -> None:
    index = open_index(args)
    found = index.orphans()
    emit(args, found, lambda: "\n".join(found) if found else "no orphans")


def cmd_unresolved(args: argparse.Namespace) -> None:
    index = open_index(args)
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

    emit(args, data, human)


def cmd_export(args: argparse.Namespace) -> None:
    output = Path(args.output).expanduser() if args.output else None
    if output is not None and not output.parent.is_dir():  # before a long scan, not after
        raise CommandFailed(EXIT_USAGE, f"{output.parent}: no such folder for --output")
    if not 0.0 <= args.related_threshold <= 1.0:
        raise CommandFailed(EXIT_USAGE, "--related-threshold must be between 0 and 1")
    index = open_index(args)
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
