"""The command line's agent side: ``librarian search`` (notes by text and name, with
filters) and ``librarian context`` (a context pack within a token budget)."""

from __future__ import annotations

import argparse
import datetime as _dt
from collections.abc import Callable
from typing import Any

from ..core.agents.pack_budget import DEFAULT_BUDGET, MAX_PACK_TOKENS
from ..core.index.index import VaultIndex
from ..core.vault.files import read_note
from .exits import EXIT_NO_CONCEPT, EXIT_USAGE, CommandFailed

OpenIndex = Callable[[argparse.Namespace], VaultIndex]
Emit = Callable[[argparse.Namespace, Any, Callable[[], str]], None]


def add_commands(
    sub: Any,  # argparse's private _SubParsersAction
    common: Callable[..., None],
    open_index: OpenIndex,
    emit: Emit,
) -> None:
    """Add ``search`` and ``context`` to the command line: ``open_index`` scans the vault
    as the other commands do, ``emit`` prints JSON or text."""
    help_ = "notes matching QUERY (text, titles, aliases), with their best lines"
    p = sub.add_parser("search", help=help_, description=help_)
    common(p)
    p.add_argument("query", metavar="QUERY", help="words, a question, or a note's name")
    p.add_argument("--tag", help="only notes with this tag (nested tags included)")
    p.add_argument("--folder", help="only notes under this folder")
    p.add_argument("--since", metavar="YYYY-MM-DD", help="only notes dated on or after")
    p.add_argument("--until", metavar="YYYY-MM-DD", help="only notes dated on or before")
    p.add_argument("--concept", metavar="ID", help="only notes linking or mentioning it")
    p.add_argument(
        "--limit",
        type=int,
        default=10,
        metavar="N",
        help="at most N notes (10; the MCP tool stops at 200, to keep one answer small)",
    )
    p.set_defaults(func=lambda args: _run(args, cmd_search, open_index, emit))

    help_ = "the index note and the passages most relevant to QUERY, within a token budget"
    c = sub.add_parser("context", help=help_, description=help_)
    common(c)
    c.add_argument("query", metavar="QUERY", help="the question the pack is for")
    c.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="TOKENS",
        help=f"most tokens the pack may take (estimated, never passed; default "
        f"{DEFAULT_BUDGET}, as the MCP tool's; no upper limit here, while the MCP tool "
        f"stops at {MAX_PACK_TOKENS:,} so that one answer stays below what a client takes)",
    )
    c.add_argument(
        "--index",
        default="MEMORY.md",
        metavar="NOTE",
        help="the index note put first (default MEMORY.md)",
    )
    c.add_argument(
        "--index-share",
        type=float,
        default=None,
        metavar="SHARE",
        help="most of the budget the index note takes, 0 to 1 (a quarter by default)",
    )
    c.set_defaults(func=lambda args: _run(args, cmd_context, open_index, emit))


def _run(
    args: argparse.Namespace,
    command: Callable[[argparse.Namespace, OpenIndex], tuple[Any, Callable[[], str]]],
    open_index: OpenIndex,
    emit: Emit,
) -> None:
    data, human = command(args, open_index)
    emit(args, data, human)


def _date(text: str | None, flag: str) -> _dt.date | None:
    if text is None:
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise CommandFailed(EXIT_USAGE, f"{flag} {text!r}: give a date as YYYY-MM-DD") from None


def _reader(index: VaultIndex) -> Callable[[str], str | None]:
    """The notes' texts from their files: a big vault's first count may read them on
    worker processes (``corpus.FilesText``)."""
    from ..core.agents.corpus import FilesText

    root = index.root
    return FilesText(root, lambda rel: read_note(root, rel).text)


def cmd_search(args: argparse.Namespace, open_index: OpenIndex) -> tuple[Any, Callable[[], str]]:
    """The JSON document and the human text of ``librarian search``."""
    # Imported here: the other commands start without what search and packs need.
    from ..core.agents.ranking import NOT_ANSWERED
    from ..core.agents.search import UnknownConcept, search_notes

    if args.limit < 1:
        raise CommandFailed(EXIT_USAGE, "--limit must be 1 or more")
    filters = (args.tag, args.folder, args.since, args.until, args.concept)
    if not args.query.strip() and all(f is None for f in filters):
        # Else it listed the ten newest notes, each scored 0: no answer to anything asked.
        raise CommandFailed(
            EXIT_USAGE,
            "QUERY is empty: give words to search for, or a filter (--tag, --folder, "
            "--since, --until, --concept) to list its notes newest first",
        )
    since, until = _date(args.since, "--since"), _date(args.until, "--until")
    index = open_index(args)
    try:
        found = search_notes(
            index,
            _reader(index),
            args.query,
            tag=args.tag,
            folder=args.folder,
            since=since,
            until=until,
            concept=args.concept,
            limit=args.limit,
        )
    except UnknownConcept as exc:
        raise CommandFailed(EXIT_NO_CONCEPT, str(exc)) from exc
    data = found.to_json(args.query)
    hits = found.hits

    def human() -> str:
        if not hits:
            return "no note matches"
        lines = [] if found.answers_well else [f"({NOT_ANSWERED}; the closest notes follow)"]
        for h in hits:
            lines.append(f"{h.score:6.3f}  {h.note}  ({h.date.isoformat()})")
            lines.extend(f"        {n}: {text}" for n, text in h.lines)
        return "\n".join(lines)

    return data, human


def cmd_context(args: argparse.Namespace, open_index: OpenIndex) -> tuple[Any, Callable[[], str]]:
    """The JSON document and the text (the pack itself) of ``librarian context``."""
    from ..core.agents.context import INDEX_SHARE, ContextPack, context_pack
    from ..core.agents.pack_budget import too_small

    if args.index_share is None:
        args.index_share = INDEX_SHARE
    if args.budget < 1:
        raise CommandFailed(EXIT_USAGE, "--budget must be 1 token or more")
    if not 0.0 <= args.index_share <= 1.0:
        raise CommandFailed(EXIT_USAGE, "--index-share must be between 0 and 1")
    index = open_index(args)
    related = None
    if not args.no_cache:
        from ..core.related.cached import load_cached  # numpy: only for this command

        related = load_cached(index.root)

    def pack_of(budget: int) -> ContextPack:
        return context_pack(
            index,
            _reader(index),
            args.query,
            budget,
            index_note=args.index,
            related=related,
            index_share=args.index_share,
        )

    pack = pack_of(args.budget)
    refusal = too_small(pack, pack_of)
    if refusal is not None:
        raise CommandFailed(EXIT_USAGE, refusal)
    return pack.to_json(), lambda: pack.text.rstrip("\n")
