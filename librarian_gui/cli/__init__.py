"""The ``librarian`` command line: the vault index, headless. Imports nothing from Qt.

This module builds the parser from every command group's module and runs one command
(``main``); ``mcp`` and ``undo`` live here, each too small for a module of its own. The
command groups are imported when the parser is built, and ``librarian mcp`` builds a parser of
its own command only: an agent's server starts without the rest of the command line (the
split's Markdown renderer, the tagger, the graph export)."""

from __future__ import annotations

import argparse
import gc
import io
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from ..core.index import cachefile
from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
from ..core.writing.lock import VaultBusy
from ..core.writing.safewrite import WriteRefused
from .common import OpenIndex, emit, note_arg, open_index, vault_folder
from .exits import EXIT_BUSY, EXIT_FINDINGS, EXIT_OK, EXIT_STOPPED, CommandFailed, Result


def cmd_related(args: argparse.Namespace) -> None:
    from . import related as cli_related

    data, human = cli_related.cmd_related(args, open_index, note_arg)
    if args.all and args.json:  # ten thousand notes: one a line
        cli_related.write_rows(data)
        return
    emit(args, data, human)


def cmd_mcp(args: argparse.Namespace) -> None:
    # The start makes objects that live as long as the server (modules, the SDK's models,
    # the index); the cyclic collector would walk them again and again while they are made
    # (a tenth of a 1 s start). ``serve`` turns it on again once the server is ready.
    gc.disable()
    from ..mcp_server import serve

    vault = vault_folder(args.vault)
    serve(
        vault,
        allow_writes=args.allow_writes,
        concepts=Path(args.concepts) if args.concepts else None,
        excluded=tuple(args.exclude or ()),
        use_cache=not args.no_cache,
        one_process=args.one_process,
    )


def cmd_undo(args: argparse.Namespace) -> None:
    vault = vault_folder(args.vault)
    journal = Journal(vault, by=COMMAND_LINE)
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

    emit(args, data, human)
    if result.refused:
        raise _Exit(EXIT_FINDINGS)


# ------------------------------------------------------------------ parser


def build_parser(*, only_mcp: bool = False) -> argparse.ArgumentParser:
    """The whole command line's parser; ``only_mcp``: the ``mcp`` command's alone."""
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

    if only_mcp:
        _add_mcp(add)
        return parser
    from . import agents as cli_agents
    from . import concepts as cli_concepts
    from . import graph as cli_graph
    from . import index as cli_index
    from . import insight as cli_insight
    from . import library as cli_library
    from . import related as cli_related
    from . import review as cli_review

    scan = add("scan", cli_graph.cmd_scan, "index the vault and print its counts")
    scan.add_argument(
        "--repair",
        action="store_true",
        help="first remove or put back the temporary files interrupted writes left",
    )
    scan.add_argument("--wait", type=float, default=5.0, metavar="SECONDS", help=argparse.SUPPRESS)
    add(
        "backlinks",
        cli_graph.cmd_backlinks,
        "notes linking to NOTE, with the linking line",
        note=True,
    )
    add("links", cli_graph.cmd_links, "the links in NOTE and where they resolve", note=True)
    neighbors = add("neighbors", cli_graph.cmd_neighbors, "notes within N hops of NOTE", note=True)
    neighbors.add_argument(
        "--depth",
        type=int,
        choices=(1, 2, 3),
        default=1,
        help="how many hops: 1, 2 or 3 (default 1)",
    )
    add("orphans", cli_graph.cmd_orphans, "notes with no links in or out")
    add(
        "unresolved",
        cli_graph.cmd_unresolved,
        "link targets that match no note, with who links them",
    )
    # --format chooses the output instead of --json: the document is always data
    export = add(
        "export",
        cli_graph.cmd_export,
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
        cli_insight.cmd_cooccur,
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
        cli_insight.cmd_isolated,
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
        cli_insight.cmd_timeline,
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
    _add_mcp(add)
    undo = add("undo", cmd_undo, "undo the newest write in the vault's journal (or --entry ID)")
    undo.add_argument("--entry", metavar="ID", help="undo this journal entry (its folder name)")
    undo.add_argument("--wait", type=float, default=5.0, metavar="SECONDS", help=argparse.SUPPRESS)
    cli_agents.add_commands(sub, _common, open_index, emit)
    cli_index.add_command(sub, _common).set_defaults(func=_concept_command(cli_index.cmd_index))
    split = cli_library.add_command(sub, _common)
    split.set_defaults(func=_concept_command(cli_library.cmd_split))
    duplicates = cli_review.add_command(sub, _common)
    duplicates.set_defaults(func=_concept_command(cli_review.cmd_duplicates))
    review = cli_review.add_review_command(sub, _common)
    review.set_defaults(func=_concept_command(cli_review.cmd_review))
    contradictions = cli_review.add_contradictions_command(sub, _common)
    contradictions.set_defaults(func=_concept_command(cli_review.cmd_contradictions))
    supersede = cli_review.add_supersede_command(sub, _common)
    supersede.set_defaults(func=_concept_command(cli_review.cmd_supersede))
    check, suggest, tag = cli_concepts.add_commands(sub, _common)
    check.set_defaults(func=_concept_command(cli_concepts.cmd_concepts_check))
    suggest.set_defaults(func=_concept_command(cli_concepts.cmd_concepts_suggest))
    tag.set_defaults(func=_concept_command(cli_concepts.cmd_tag))
    return parser


def _add_mcp(add: Callable[..., argparse.ArgumentParser]) -> None:
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
    mcp.add_argument(
        "--one-process",
        action="store_true",
        help="keep the index in the server's own process (by default it loads in a process "
        "of its own while the server starts: a faster start, one more process)",
    )


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
    command: Callable[[argparse.Namespace, OpenIndex], Result],
) -> Callable[[argparse.Namespace], None]:
    """A command of ``cli/concepts.py`` or ``cli/index.py`` as this command line runs it: its
    failure is a clean exit, its output JSON or text, and its findings an exit code after the
    output."""

    def run(args: argparse.Namespace) -> None:
        data, text, code = command(args, open_index)
        emit(args, data, lambda: text.rstrip("\n"))
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
    given = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only_mcp=given[:1] == ["mcp"])
    args = parser.parse_args(given)
    try:
        if getattr(args, "vault", None) is not None:
            vault_folder(args.vault)  # every command: a file or a typo said so at once
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
        from . import failures as cli_failures

        print(f"librarian: {cli_failures.last_resort(exc, args)}", file=sys.stderr)
        return EXIT_STOPPED
    return EXIT_OK
