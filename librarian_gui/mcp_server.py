"""``librarian mcp VAULT``: the vault's live index as Model Context Protocol tools, over stdio.

Built on the official SDK's ``MCPServer``. Every tool answers as the command line's
``--json`` does; a long answer comes in pages (``cursor``) below the 25,000 tokens a client
accepts; an unknown note is an error naming the closest notes. The index starts from its
cache and stays live (``core.live.runtime``). Writes (``--allow-writes``) go through the
vault's journal and return as soon as the file is written.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import functools
import gc
import inspect
import os
import shlex
import signal
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, Literal, TypeVar

from . import __version__, mcp_index
from .core.agents import answers, paging
from .core.agents.pack_budget import DEFAULT_BUDGET, INDEX_SHARE, MAX_PACK_TOKENS, too_small
from .core.agents.writes import append_to_note, write_note
from .core.concepts.dictionary_file import unusable
from .core.index.queries import AmbiguousNote
from .core.live.runtime import LiveVault
from .core.related.vault import DEFAULT_THRESHOLD, K
from .core.review.desk import reviewed
from .core.review.provenance import last_writers
from .core.writing.journal import agent
from .mcp_errors import ReadOnly, argument_errors, failing_as

if TYPE_CHECKING:  # packs and searches load with the first of them, not with the server
    from pydantic import Field

    from .core.agents.context import ContextPack

INSTRUCTIONS = """\
Librarian serves one vault of Markdown notes (an agent's memory: diaries, project notes,
decisions) with its link graph. Start small: `search` or `context_pack` for a question,
`read_note` for one section, `backlinks` / `neighbors` / `related` to walk from a note.
Notes are named by title or vault path (`diary/2024-05-01.md`). Long answers come in pages:
call again with `cursor` set to the `next_cursor` you got."""

RELATED_WAIT = 10.0  # seconds a `related` question waits for the first pass at most
HEALTH_ROWS = 50  # rows of each of index_health's lists but the one asked for in full
HEALTH_LISTS = ("unlisted", "dead_links", "text_entries", "missing_entries")


@functools.cache
def argument_types() -> dict[str, Any]:
    """The tools' argument types (``NoteArg``, ``Cursor``, ``Flag``, pydantic's ``Field``),
    put among this module's names, where the SDK resolves the tools' annotations (strings):
    made when a server is built, as they need pydantic. The index process answers the
    tools but never builds a server, so it never imports pydantic: 0.09-0.13 s of CPU
    that its load, the start's longest path, waited for when this module imported it."""
    from pydantic import Field, PlainValidator, WithJsonSchema
    from pydantic_core import PydanticCustomError

    def boolean(value: object) -> bool:
        # Lax validation took "yes", "on", 1 for true: an `overwrite` nobody meant.
        if isinstance(value, bool):
            return value
        raise PydanticCustomError("boolean", "must be true or false (a JSON boolean)")

    made = {
        "Field": Field,
        "NoteArg": Annotated[str, Field(description="A note's title or vault path, .md optional")],
        "Cursor": Annotated[
            str | None,
            Field(description="next_cursor of the previous page; omit for the first page"),
        ],
        "Flag": Annotated[bool, PlainValidator(boolean), WithJsonSchema({"type": "boolean"})],
    }
    globals().update(made)
    return made


if TYPE_CHECKING:  # as ``argument_types`` makes them
    from pydantic import PlainValidator, WithJsonSchema

    NoteArg = Annotated[str, Field(description="")]
    Cursor = Annotated[str | None, Field(description="")]
    Flag = Annotated[bool, PlainValidator(bool), WithJsonSchema({"type": "boolean"})]


class Tools:
    """The tools, as plain methods over a ``LiveVault`` (the server registers them)."""

    def __init__(self, live: Callable[[], LiveVault], allow_writes: bool) -> None:
        self._live = live
        self.allow_writes = allow_writes
        self.session = uuid.uuid4().hex[:12]  # this server run, in every write's journal entry
        # Per call (each runs on a worker thread of its own): the notes its answer does not
        # see yet, being read (``LiveVault.fresh``); ``telling_indexing`` adds them.
        self.indexing = threading.local()
        self._answered = False

    def answered(self) -> None:
        """After each answer: the first lets the vault's background work start (held back
        so as not to share the interpreter with it: ``serve``)."""
        if self._answered:
            return
        self._answered = True
        with contextlib.suppress(LookupError):  # not loaded: nothing to start
            self._live().begin_background()

    def _ready(self) -> LiveVault:
        live = self._live()
        self.indexing.paths = live.fresh()
        return live

    def _with_concepts(self) -> LiveVault:
        """``_ready``, for a question about the dictionary's concepts: one that does not
        load is an error saying where it breaks, as ``librarian concepts check`` says it,
        not an answer with no concepts."""
        live = self._ready()
        index = live.index
        if index.concepts.error is not None:
            raise LookupError(unusable(index.dictionary_path) or index.concepts.error)
        return live

    def search(
        self,
        query: Annotated[
            str, Field(description="Words, a question, or a note's name (fuzzy); may be empty")
        ],
        tag: Annotated[
            str | None, Field(description="Only notes with this tag (nested tags too)")
        ] = None,
        folder: Annotated[str | None, Field(description="Only notes under this folder")] = None,
        since: Annotated[
            str | None, Field(description="Only notes dated on or after (YYYY-MM-DD)")
        ] = None,
        until: Annotated[
            str | None, Field(description="Only notes dated on or before (YYYY-MM-DD)")
        ] = None,
        concept: Annotated[
            str | None, Field(description="Only notes linking or mentioning this concept")
        ] = None,
        limit: Annotated[int, Field(description="At most this many notes", ge=1, le=200)] = 10,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._ready() if concept is None else self._with_concepts()
        from .core.agents.search import search_notes  # with the first search: not the start

        found = search_notes(
            live.index,
            live.text,
            query,
            tag=tag,
            folder=folder,
            since=_date(since, "since"),
            until=_date(until, "until"),
            concept=concept,
            limit=limit,
        )
        return paging.page_list(found.to_json(query), "hits", cursor)

    def context_pack(
        self,
        query: Annotated[str, Field(description="The question the pack is for")],
        budget: Annotated[
            int,
            Field(
                description="Most tokens the pack's text may take (estimated, never "
                f"passed); at most {MAX_PACK_TOKENS:,}, so that the pack and its description "
                "fit one answer",
                ge=1,
                le=MAX_PACK_TOKENS,
            ),
        ] = DEFAULT_BUDGET,
        index: Annotated[
            str, Field(description="The index note put first, trimmed to its share")
        ] = "MEMORY.md",
        index_share: Annotated[
            float, Field(description="Most of the budget the index note takes", ge=0, le=1)
        ] = INDEX_SHARE,
    ) -> dict[str, Any]:
        live = self._ready()
        related = live.related()  # the latest pass, if any: a pack never waits for one

        from .core.agents.context import context_pack  # with the first pack: not the start

        def pack_of(tokens: int) -> ContextPack:
            return context_pack(
                live.index,
                live.text,
                query,
                tokens,
                index_note=index,
                related=related,
                index_share=index_share,
            )

        pack = pack_of(budget)
        refusal = too_small(pack, pack_of)
        if refusal is not None:
            raise ValueError(refusal)
        return pack.to_json()

    def index_health(
        self,
        index: Annotated[str, Field(description="The index note's vault path")] = "MEMORY.md",
        exclude: Annotated[
            list[str],
            Field(description="Globs of notes that need no entry, e.g. templates, archive/*"),
        ] = [],  # noqa: B006 (read, never changed; the schema shows the default)
        full_list: Annotated[
            Literal["unlisted", "dead_links", "text_entries", "missing_entries"] | None,
            Field(description="Send this list whole, in pages; the others are cut short"),
        ] = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        from .core.insight.index_note import health_json, index_note_health, index_note_named

        live = self._ready()
        # A note not there yet, where one may be, is named by its path: its health says so.
        # Anything else (outside the vault, hidden, ignored) is refused before it is opened.
        try:
            index = index_note_named(live.index, index)
        except AmbiguousNote as exc:
            raise LookupError(f"{exc}; give the path to choose one") from None
        answer = health_json(index_note_health(live.index, index_note=index, exclude=exclude))
        cut = {}
        for key in HEALTH_LISTS:
            if key != full_list and len(answer[key]) > HEALTH_ROWS:
                cut[key] = len(answer[key])
                answer[key] = answer[key][:HEALTH_ROWS]
        answer["cut_short"] = cut  # list → its whole length, for the lists cut
        for dump in answer["dumps"]:  # the command as the agent can run it
            dump["command"] = f"librarian split {shlex.quote(str(live.root))} " + shlex.quote(
                dump["note"]
            )
        if full_list is None:
            return answer
        return paging.page_list(answer, full_list, cursor)

    def read_note(
        self,
        note: NoteArg,
        heading: Annotated[
            str | None, Field(description="Only the section under this heading")
        ] = None,
        start_line: Annotated[int | None, Field(description="First line (1-based)", ge=1)] = None,
        end_line: Annotated[int | None, Field(description="Last line (inclusive)", ge=1)] = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._ready()
        view = live.index.snapshot()
        rel = answers.note_node(view, note, concepts=False)
        text = live.text(rel)
        if text is None:
            raise LookupError(f"{rel} cannot be read as text (binary, too large or unreadable)")
        answer, chunk, first = answers.note_section(
            live.index, rel, text, heading, start_line, end_line
        )
        return paging.page_lines(answer, chunk, first, cursor)

    def backlinks(
        self,
        note: NoteArg,
        unlinked: Annotated[
            Flag, Field(description="Also the notes naming it without a link (slower)")
        ] = True,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._ready()
        view = live.index.snapshot()
        node = answers.note_node(view, note)
        # Linked rows are read for the page only; unlinked ones are found to be counted.
        items: list[Any] = list(answers.backlink_places(view, node))
        if unlinked and node in live.index.notes:
            items += answers.unlinked_rows(live.index, node, live.text, live.mention_sources)
        linked = answers.BacklinkRender(view, node)

        def render(item: Any) -> dict[str, Any]:
            if isinstance(item, tuple):
                return {**linked(item), "linked": True}
            return {**item, "linked": False}

        return paging.page_list(
            {"note": node, "backlinks": items}, "backlinks", cursor, render=render
        )

    def outgoing_links(self, note: NoteArg, cursor: Cursor = None) -> dict[str, Any]:
        live = self._ready()
        view = live.index.snapshot()
        rel = answers.note_node(view, note, concepts=False)
        rows = answers.link_rows(view, rel)
        return paging.page_list({"note": rel, "links": rows}, "links", cursor)

    def neighbors(
        self,
        note: NoteArg,
        depth: Annotated[int, Field(description="1, 2 or 3 hops", ge=1, le=3)] = 1,
        related: Annotated[
            Flag, Field(description="Also follow RELATED_TO edges (similar notes)")
        ] = True,
        threshold: Annotated[
            float, Field(description="Least similarity of a RELATED_TO edge", ge=0, le=1)
        ] = DEFAULT_THRESHOLD,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._ready()
        edges = live.related_edges() if related else None
        view = live.index.snapshot()
        node = answers.note_node(view, note)
        steps = answers.neighbour_steps(view, node, depth, edges, threshold)
        answer = {
            "note": node,
            "depth": depth,
            "related_included": edges is not None,
            "neighbors": steps,
        }
        return paging.page_list(
            answer,
            "neighbors",
            cursor,
            render=lambda step: answers.neighbour_row(view, step),
        )

    def related(
        self,
        note: NoteArg,
        threshold: Annotated[
            float,
            Field(
                description="Similarity (cosine, 0-1) a note needs; weaker ones fill the "
                "k slots left, marked below_threshold",
                ge=0,
                le=1,
            ),
        ] = DEFAULT_THRESHOLD,
        k: Annotated[int, Field(description="At most this many", ge=1, le=50)] = K,
    ) -> dict[str, Any]:
        live = self._ready()
        view = live.index.snapshot()
        rel = answers.note_node(view, note, concepts=False)
        found = live.related(wait=RELATED_WAIT)
        if found is None:
            raise LookupError("related notes are still being found; ask again in a moment")
        rows = [answers.related_row(r) for r in found.top(rel, k, threshold)]
        return {"note": rel, "related": rows}

    def concept(
        self, name: Annotated[str, Field(description="A concept's id or one of its aliases")]
    ) -> dict[str, Any]:
        live = self._with_concepts()
        return answers.concept_answer(live.index, name, live.text)

    def isolated(
        self,
        max_notes: Annotated[
            int, Field(description="Concepts found in at most this many notes", ge=0)
        ] = 2,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._with_concepts()
        answer = answers.isolated_answer(live.index, live.text, max_notes=max_notes)
        return paging.page_list(answer, "isolated", cursor)

    def recent(
        self,
        since: Annotated[
            str, Field(description="ISO date or date-time (UTC when no zone), e.g. 2024-05-01")
        ],
        limit: Annotated[int, Field(description="At most this many notes", ge=1, le=1000)] = 50,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        live = self._ready()
        try:
            when = _dt.datetime.fromisoformat(since)
        except ValueError:
            raise ValueError(f"since: {since!r} is not an ISO date such as 2024-05-01") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.UTC)
        view = live.index.snapshot()
        rows = answers.recent_rows(view, when, limit)
        notes = [row["note"] for row in rows]
        writers = last_writers(view.root, notes)
        seen = reviewed(view.root, notes)
        for row in rows:
            writer = writers.get(row["note"])
            row["by"] = writer.json() if writer is not None else None
            row["reviewed"] = seen.get(row["note"], False)
        return paging.page_list({"since": when.isoformat(), "notes": rows}, "notes", cursor)

    def write_note(
        self,
        path: Annotated[str, Field(description="Vault path of the new note, e.g. notes/x.md")],
        text: Annotated[str, Field(description="The whole note, Markdown")],
        overwrite: Annotated[
            Flag, Field(description="Replace the note if it exists (default: refuse)")
        ] = False,
    ) -> dict[str, Any]:
        live = self._writable()
        reply = write_note(live.index, text, path, overwrite=overwrite, by=self._by())
        live.changed([reply["note"]])
        return reply

    def append_to_note(
        self,
        note: Annotated[
            str, Field(description="Title or vault path; a path not there yet is created")
        ],
        text: Annotated[str, Field(description="Markdown to add at the end, as new lines")],
    ) -> dict[str, Any]:
        live = self._writable()
        reply = append_to_note(live.index, text, note, by=self._by())
        live.changed([reply["note"]])
        return reply

    def _by(self) -> dict[str, str]:
        """Who writes, for the journal: the client calling (as it named itself when it
        connected) and this server run."""
        client, version = CALLER.get()
        return agent(client, version, self.session)

    def _writable(self) -> LiveVault:
        if not self.allow_writes:
            raise ReadOnly(
                "this server is read-only: writes need `librarian mcp VAULT --allow-writes`"
            )
        live = self._live()
        live.following()  # the folder at the vault's path; not fresh(): a write never waits
        return live


def _date(text: str | None, name: str) -> _dt.date | None:
    if text is None:
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a date such as 2024-05-01") from None


READ_ONLY = "read"
WRITES = "write"
DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "search": (
        READ_ONLY,
        "Find notes by words, a question or a note's name (typos forgiven), filtered by tag, "
        "folder, date range or concept; best first, each with its best lines to read next.",
    ),
    "context_pack": (
        READ_ONLY,
        "Everything worth reading for a question within a token budget: the index note, then "
        "the most relevant passages (text match, links, concepts, similar notes, dates), "
        "each with its note path, heading and line range. One call instead of many reads.",
    ),
    "index_health": (
        READ_ONLY,
        "Check the index note (MEMORY.md): notes it does not list, dead links, its length in "
        "lines, bytes and tokens against what agents load, and entries holding text instead "
        "of pointing. `librarian index VAULT --fix` adds the missing entries. `dumps`: notes "
        "grown too long to load, made of many sections, each with the `librarian split` "
        "command that turns it into daily logs and topic notes under an index that points.",
    ),
    "read_note": (
        READ_ONLY,
        "Read a note: whole, one section (heading), or a line range. Returns the text with "
        "its line numbers and the note's headings; long notes come in pages (cursor).",
    ),
    "backlinks": (
        READ_ONLY,
        "Notes that link to a note (each with the linking line), and with unlinked=true the "
        "notes that name it without a link. Also works for a concept (//concept/<id>).",
    ),
    "outgoing_links": (
        READ_ONLY,
        "The links written in a note, in order, each with where it resolves (note, "
        "attachment, concept) or resolved=false for a link to nothing.",
    ),
    "neighbors": (
        READ_ONLY,
        "The notes and concepts within 1 to 3 hops of a note: links both ways and RELATED_TO "
        "(similar) notes, each with the edge kinds and the note it is reached through.",
    ),
    "related": (
        READ_ONLY,
        "Notes similar to a note by their words and concepts, with the score, the shared "
        "terms and concepts that explain it, and whether the two already link; k notes "
        "when k score above 0, those under the threshold marked below_threshold=true.",
    ),
    "concept": (
        READ_ONLY,
        "A concept of the vault's dictionary: aliases, category, notes linking it and "
        "mentioning it unlinked, concepts it co-occurs with, first and last dated mention.",
    ),
    "isolated": (
        READ_ONLY,
        "Concepts of the dictionary found in at most max_notes notes (default 2): never "
        "linked, mentioned but never linked, or rare: the thin spots of the memory.",
    ),
    "recent": (
        READ_ONLY,
        "Notes changed (file time) since a date, newest first, each with who wrote its version "
        "on disk (`by`): an agent (the client's name and version, the server run), the window, "
        "the command line, or `outside Librarian` (an editor, git, a program writing files), and "
        "whether its human has reviewed that version (`reviewed`).",
    ),
    "write_note": (
        WRITES,
        "Create a note (refuses to overwrite unless overwrite=true). Returns at once with the "
        "links the text makes and which are unresolved; undoable (librarian undo VAULT).",
    ),
    "append_to_note": (
        WRITES,
        "Append lines to the end of a note, e.g. today's diary (created when the path names "
        "no note yet). Returns at once with the links the text makes; undoable.",
    ),
}


T = TypeVar("T")
STILL_INDEXING = "still_indexing"  # an answer's key: notes changed, not read yet


def telling_indexing(tools: Tools, method: Callable[..., T]) -> Callable[..., T]:
    """``method``, its answer saying which changed notes it does not see yet (being read
    while questions are answered: an agent's 50 MB note), at most 50 of them."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> T:
        tools.indexing.paths = ()
        try:
            answer = method(*args, **kwargs)
        finally:
            tools.answered()
        paths = tools.indexing.paths
        if paths and isinstance(answer, dict):
            answer[STILL_INDEXING] = sorted(paths)[:50]
        return answer

    return call


# The client calling the tool running now: its name and version as it gave them when it
# connected (the tools run on worker threads, which carry the caller's context).
CALLER: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "caller", default=("unknown client", "")
)


def asking(
    index: mcp_index.IndexProcess, name: str, method: Callable[..., T], error: type[Exception]
) -> Callable[..., T]:
    """The tool ``name`` answered by the index process: ``method``'s signature (what the
    SDK reads its schema from), its arguments and the calling client sent there, its
    refusals raised here as ``error`` with the message the index process gave."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> T:
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        try:
            answer: T = index.call(name, arguments, CALLER.get())
        except (mcp_index.Refused, mcp_index.IndexGone) as exc:
            raise error(str(exc)) from None
        return answer

    return call


def _client_of(context: Any) -> tuple[str, str]:
    try:
        params = context.session.client_params
        info = params.client_info if params is not None else None
    except (AttributeError, ValueError):  # no request context (a call from within)
        info = None
    name = str(getattr(info, "name", "") or "unknown client")
    return name, str(getattr(info, "version", "") or "")


def build_server(tools: Tools, index: mcp_index.IndexProcess | None = None) -> Any:
    """The MCP server with every tool of ``tools`` registered, described and annotated;
    with ``index``, each tool is answered by that index process (``asking``)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
    from pydantic import ValidationError

    argument_types()  # before the SDK reads the tools' signatures

    class Server(MCPServer):
        _arguments: dict[str, list[str]] | None = None  # each tool's, in schema order

        async def call_tool(self, name: str, arguments: dict[str, Any], *rest: Any) -> Any:
            if self._arguments is None:
                self._arguments = {
                    tool.name: list(tool.input_schema.get("properties", {}))
                    for tool in await self.list_tools()
                }
            known = self._arguments.get(name)
            unknown = [a for a in arguments or {} if known is not None and a not in known]
            if unknown:
                # pydantic drops them without a word: a misspelt "limt" would answer as if
                # no limit had been asked.
                raise ToolError(
                    f"Error executing tool {name}: unknown argument {', '.join(unknown)}; "
                    f"{name} takes {', '.join(known or [])}"
                )
            CALLER.set(_client_of(rest[0] if rest else None))
            try:
                return await super().call_tool(name, arguments, *rest)
            except ToolError as exc:
                # Arguments the schema refuses: the SDK says it in pydantic's words, over
                # lines, with a documentation URL; one line naming the argument instead.
                cause = exc.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                told = argument_errors(cause.errors(include_url=False))  # type: ignore[arg-type]
                raise ToolError(f"Error executing tool {name}: {told}") from cause

    server = Server(
        name="librarian", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    for name, (kind, description) in DESCRIPTIONS.items():
        method = getattr(tools, name)
        annotations = ToolAnnotations(
            read_only_hint=kind == READ_ONLY,
            destructive_hint=False,
            idempotent_hint=kind == READ_ONLY,
            open_world_hint=False,
        )
        # Plain functions, not coroutines: the SDK runs each call on a worker thread
        # (anyio.to_thread), so a big write never keeps the event loop from the next read.
        if index is None:
            tool = failing_as(telling_indexing(tools, method), ToolError)
        else:
            tool = asking(index, name, method, ToolError)
        server.add_tool(
            tool,
            name=name,
            description=description,
            annotations=annotations,
        )
    return server


READY_SWITCH_INTERVAL_S = 0.0005  # see ``_Start``
BACKGROUND_AFTER_S = 1.0  # after the index is loaded, when no question came: see ``serve``


class _Start:
    """The server's start: the index loading on one thread, the SDK and the tools on the
    other, each holding the interpreter. Until both are done:

    - the cyclic garbage collector is off: what they make (modules, the SDK's models, the
      index) lives as long as the server, and each collection would walk it all again. Then
      it is frozen out of the collector's sight (``gc.freeze``, as the window does after a
      scan) and the collector is on again;
    - the interpreter's switch interval is Python's own (5 ms). Once ready it is 0.5 ms:
      answers and writes are short and wait on I/O, while the index's updates and the
      related-notes passes are long and hold the interpreter, so a shorter interval lets
      the short ones in (5 ms is paid at each of a write's system calls). During the start
      two long threads would only hand the interpreter to each other ten times as often.

    Measured on a 10,000-note vault (warm), from spawning the server to its first answer:
    the two together took a tenth of the start (1.22 → 1.09 s of CPU, the median of nine)."""

    def __init__(self, parts: int = 2) -> None:
        gc.disable()
        self._left = parts
        self._lock = threading.Lock()

    def done(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left == 0:
                gc.freeze()
                gc.enable()
                sys.setswitchinterval(READY_SWITCH_INTERVAL_S)


def serve(
    vault: Path,
    *,
    allow_writes: bool = False,
    concepts: Path | None = None,
    excluded: tuple[str, ...] = (),
    use_cache: bool = True,
    one_process: bool = False,
) -> None:
    """Run the server on stdio until the client closes it. The index loads from its cache
    in a process of its own (``mcp_index``) while this one imports the SDK, or, with
    ``one_process`` or where no process can be forked, on a thread of this one; the first
    question waits for it."""

    def open_vault() -> LiveVault:
        return LiveVault(
            vault, concepts=concepts, excluded=excluded, use_cache=use_cache, held=True
        )

    index = None
    if not one_process:
        index = mcp_index.start(functools.partial(_answer_calls, open_vault, allow_writes))
    if index is None:
        _serve_here(open_vault, allow_writes)
        return
    _stop_on_interrupt(index.close)
    started = _Start(parts=1)
    try:
        server = build_server(Tools(_elsewhere, allow_writes), index)
    finally:
        started.done()
    try:
        server.run("stdio")
    finally:
        index.close()


INTERRUPTED_EXIT = 130  # 128 + SIGINT, as a shell reports a command Ctrl+C ended


def _stop_on_interrupt(close: Callable[[], None]) -> None:
    """Ctrl+C (SIGINT) stops the server as its client closing the connection does: the
    calls under way are answered, the vault is closed (its cache saved), and the process
    exits with INTERRUPTED_EXIT; a second Ctrl+C ends it at once.

    Without this, a server run by hand at a terminal went on after Ctrl+C: the SDK reads
    standard input on a thread that no cancellation reaches, and waits for that read to
    return (the python-sdk's issue 3551), which it does only when the input ends. An agent's
    client closes the input, so it never saw this; a person trying the server did. Set only
    from the main thread (the only one a signal handler may be set from)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def stop() -> None:
        try:
            close()
        finally:
            os._exit(INTERRUPTED_EXIT)  # the SDK's input thread would hold a normal exit

    def interrupted(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl+C: at once
        print("librarian mcp: interrupted, closing the vault", file=sys.stderr, flush=True)
        threading.Thread(target=stop, name="librarian-interrupted", daemon=True).start()

    signal.signal(signal.SIGINT, interrupted)


def _elsewhere() -> LiveVault:
    raise LookupError("the vault is open in the index process")


class _Loaded:
    """The vault as the server opened it, or why it could not be opened."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._vault: LiveVault | None = None
        self._error: BaseException | None = None

    def load(self, open_vault: Callable[[], LiveVault], started: _Start) -> None:
        try:
            opened = self._vault = open_vault()
            # Its background work (the warm-up for searches, related notes) waits for the
            # first answer (``Tools.answered``), or for this long without a question: it
            # would take a share of the interpreter from that answer.
            later = threading.Timer(BACKGROUND_AFTER_S, opened.begin_background)
            later.daemon = True
            later.start()
        except BaseException as exc:  # reported to every question instead
            self._error = exc
        finally:
            self._done.set()
            started.done()

    def __call__(self) -> LiveVault:
        self._done.wait()
        if self._vault is None:
            raise LookupError(f"the vault could not be indexed: {self._error}")
        return self._vault

    def close(self) -> None:
        """Close the vault, once it has loaded (a load under way finishes first: its
        threads are joined and its cache saved, not cut off by the process's end)."""
        self._done.wait()
        if self._vault is not None:
            self._vault.close()


def _serve_here(open_vault: Callable[[], LiveVault], allow_writes: bool) -> None:
    """The server and the index in this process: the index loads on a thread while the SDK
    is imported on this one."""
    started = _Start()
    loaded = _Loaded()
    _stop_on_interrupt(loaded.close)
    threading.Thread(
        target=loaded.load, args=(open_vault, started), name="live-load", daemon=True
    ).start()
    try:
        server = build_server(Tools(loaded, allow_writes))
    finally:
        started.done()
    try:
        server.run("stdio")
    finally:
        loaded.close()


def _answer_calls(
    open_vault: Callable[[], LiveVault], allow_writes: bool, calls: BinaryIO, answers: BinaryIO
) -> None:
    """The index process (``mcp_index.start``): the vault opened, then the server's calls
    answered by the tools until the server closes its end; then the vault is closed."""
    loaded = _Loaded()
    loaded.load(open_vault, _Start(parts=1))
    tools = Tools(loaded, allow_writes)
    methods = {
        name: failing_as(telling_indexing(tools, getattr(tools, name)), mcp_index.Refused)
        for name in DESCRIPTIONS
    }

    def handle(name: str, arguments: dict[str, Any], caller: tuple[str, str]) -> Any:
        CALLER.set(caller)
        return methods[name](**arguments)

    try:
        mcp_index.answer(calls, answers, handle)
    finally:
        loaded.close()
