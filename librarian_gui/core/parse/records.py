"""Immutable records of what the parser finds in one note, shared by every layer."""

from __future__ import annotations

import datetime as _dt
import marshal
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

LinkKind = Literal["wiki", "embed", "markdown", "property"]
LINK_KINDS: tuple[LinkKind, ...] = ("wiki", "embed", "markdown", "property")


class Link(NamedTuple):
    """One link occurrence in a note.

    ``start``/``end`` are character offsets into the decoded text of the file (line endings
    kept as they are on disk), so a writer can edit the raw text without re-parsing.
    ``line`` is 1-based, ``column`` 0-based (characters). ``target`` is the link target as
    written, without fragment or label; for Markdown links it is percent-decoded.
    A tuple rather than a dataclass: a vault holds hundreds of thousands of them.
    """

    kind: LinkKind
    target: str
    fragment: str | None
    label: str | None
    line: int
    column: int
    start: int
    end: int
    embed: bool = False

    @property
    def is_self(self) -> bool:
        """A link to a heading or block of the same note (``[[#Heading]]``)."""
        return self.target == "" and self.kind != "markdown"


class Heading(NamedTuple):
    level: int
    text: str
    line: int


class Tag(NamedTuple):
    name: str
    line: int  # 0 for a front-matter tag


@dataclass(frozen=True, slots=True)
class ScanWarning:
    """A problem with one item of the vault; the rest of the vault is indexed anyway."""

    path: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


DateSource = Literal["front-matter", "name", "mtime"]


def parse_warning_kind(message: str) -> str:
    """The kind of a warning the parser reports (it reports messages only): today every one
    is about the front matter."""
    return "front-matter" if message.startswith("front matter") else "parse"


@dataclass(frozen=True, slots=True)
class ParsedNote:
    """Everything the index needs from one note, computed once per change."""

    links: tuple[Link, ...] = ()
    headings: tuple[Heading, ...] = ()
    tags: tuple[Tag, ...] = ()
    aliases: tuple[str, ...] = ()
    block_ids: tuple[str, ...] = ()
    front_matter_date: _dt.date | None = None
    warnings: tuple[str, ...] = ()
    body_start: int = 0  # character offset where the text after front matter begins
    properties: tuple[tuple[str, str], ...] = field(default=())  # scalar props as text


class FileStamp(NamedTuple):
    """What identifies a file's version without reading it. Nanosecond mtime, size and inode:
    size and a coarse mtime miss a same-size rewrite, or a file replaced by another."""

    size: int
    mtime_ns: int
    inode: int


_new_tuple = tuple.__new__
_new_object = object.__new__
_from_ordinal = _dt.date.fromordinal


# A parse's bytes (``encode_parsed``): the length of its names' part (4 bytes, little end),
# that part (the aliases and tag names, marshalled), then the whole parse (marshalled).
_NAMES_HEAD = struct.Struct("<I")


def encode_parsed(p: ParsedNote) -> bytes:
    """A ParsedNote as marshal bytes: what the cache stores, and what a parsing worker
    process hands back (marshal reads plain tuples several times faster than pickle).
    The note's aliases and tag names come first, apart (``names_of_blob``): every question
    matches every note's names, and reading them decoded each note's whole parse (at 50,000
    notes 0.85 s of a command line's search)."""
    names = marshal.dumps((p.aliases, tuple([tag.name for tag in p.tags])))
    return (
        _NAMES_HEAD.pack(len(names))
        + names
        + marshal.dumps(
            (
                tuple(map(tuple, p.links)),
                tuple(map(tuple, p.headings)),
                tuple(map(tuple, p.tags)),
                p.aliases,
                p.block_ids,
                p.front_matter_date.toordinal() if p.front_matter_date else None,
                p.warnings,
                p.body_start,
                p.properties,
            )
        )
    )


def names_of_blob(blob: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The aliases and tag names of a parse's bytes, the rest not decoded."""
    (size,) = _NAMES_HEAD.unpack_from(blob)
    aliases, tags = marshal.loads(memoryview(blob)[_NAMES_HEAD.size : _NAMES_HEAD.size + size])
    return aliases, tags


def _fields_of_blob(blob: bytes) -> tuple[Any, ...]:
    (size,) = _NAMES_HEAD.unpack_from(blob)
    fields: tuple[Any, ...] = marshal.loads(memoryview(blob)[_NAMES_HEAD.size + size :])
    return fields


def decode_parsed(blob: bytes) -> ParsedNote:
    links, headings, tags, aliases, block_ids, fm_date, warnings, body_start, props = (
        _fields_of_blob(blob)
    )
    return ParsedNote(
        tuple([_new_tuple(Link, x) for x in links]),
        tuple([_new_tuple(Heading, x) for x in headings]),
        tuple([_new_tuple(Tag, x) for x in tags]),
        aliases,
        block_ids,
        _dt.date.fromordinal(fm_date) if fm_date else None,
        warnings,
        body_start,
        props,
    )


KIND_CODES = {"wiki": "w", "embed": "e", "markdown": "m", "property": "p"}


class NoteRecord:
    """A note as the index holds it: path, file stamp, date, and what parsing found.

    The full parse (``parsed``) is decoded from its cached bytes only when first asked for:
    a warm start of a large vault needs only each link's kind and resolved target, which
    the record carries directly (``link_kinds``: one letter per link, see KIND_CODES).
    ``warnings`` are messages; ``warning_kinds`` the kind of each (``binary``,
    ``too-large``, ``encoding``, ``unreadable``, ``front-matter``, …), in the same order.
    Treated as immutable; the lazy decode only fills in a value that never changes.
    """

    __slots__ = (
        "_aliases",
        "_blob",
        "_parsed",
        "_tag_names",
        "_targets",
        "date",
        "date_source",
        "link_keys",
        "link_kinds",
        "lossy",
        "path",
        "stamp",
        "warning_kinds",
        "warnings",
    )

    def __init__(
        self,
        path: str,
        stamp: FileStamp,
        date: _dt.date,
        date_source: DateSource,
        *,
        lossy: bool = False,
        parsed: ParsedNote | None = None,
        blob: bytes | None = None,
        link_kinds: str | None = None,
        link_keys: tuple[str, ...] = (),
        warnings: tuple[str, ...] | None = None,
        warning_kinds: tuple[str, ...] | None = None,
    ) -> None:
        if parsed is None and blob is None:
            raise ValueError("a NoteRecord needs its parse or the parse's bytes")
        self.path = path
        self.stamp = stamp
        self.date = date
        self.date_source = date_source
        self.lossy = lossy
        self._parsed = parsed
        self._blob = blob
        self._targets: tuple[str, ...] | None = None
        self._aliases: tuple[str, ...] | None = None
        self._tag_names: tuple[str, ...] | None = None
        if parsed is not None:
            self.link_kinds = "".join([KIND_CODES[link.kind] for link in parsed.links])
            self.warnings = parsed.warnings
        else:
            self.link_kinds = link_kinds or ""
            self.warnings = warnings or ()
        if warning_kinds is None:
            warning_kinds = tuple(map(parse_warning_kind, self.warnings))
        elif len(warning_kinds) != len(self.warnings):
            raise ValueError("a NoteRecord needs one kind for each of its warnings")
        self.warning_kinds = warning_kinds
        self.link_keys = link_keys

    @classmethod
    def from_row(cls, row: Sequence[object]) -> NoteRecord:
        """A record as ``vault.reading.record_row`` wrote it (a cache's row, a parse
        worker's answer), its parse left in its bytes: each field set as it is, without
        the constructor's keywords and its checks for a parse the row does not hold
        (50,000 of them at a warm start: 0.09 → 0.05-0.065 s)."""
        path, stamp, date, source, lossy, warnings, warning_kinds, kinds, keys, blob = row
        if len(warning_kinds) != len(warnings):  # type: ignore[arg-type]
            raise ValueError("a NoteRecord needs one kind for each of its warnings")
        record = _new_object(cls)
        record.path = path  # type: ignore[assignment]
        record.stamp = _new_tuple(FileStamp, stamp)  # type: ignore[arg-type]
        record.date = _from_ordinal(date)  # type: ignore[arg-type]
        record.date_source = source  # type: ignore[assignment]
        record.lossy = lossy  # type: ignore[assignment]
        record._parsed = None
        record._blob = blob  # type: ignore[assignment]
        record._targets = None
        record._aliases = None
        record._tag_names = None
        record.link_kinds = kinds  # type: ignore[assignment]
        record.warnings = warnings  # type: ignore[assignment]
        record.warning_kinds = warning_kinds  # type: ignore[assignment]
        record.link_keys = keys  # type: ignore[assignment]
        return record

    @property
    def parsed(self) -> ParsedNote:
        parsed = self._parsed
        if parsed is None:
            assert self._blob is not None
            parsed = self._parsed = decode_parsed(self._blob)
        return parsed

    @property
    def aliases(self) -> tuple[str, ...]:
        """The note's aliases, read from the parse's bytes without decoding the rest: every
        question matches every note's names, and keeping each note's whole parse for it
        took 95 MB at 20,000 notes."""
        parsed = self._parsed
        if parsed is not None:
            return parsed.aliases
        aliases = self._aliases
        if aliases is None:
            self._read_names()
            aliases = self._aliases
            assert aliases is not None
        return aliases

    @property
    def tag_names(self) -> tuple[str, ...]:
        """The names of the note's tags (front matter, then inline, as ``parsed.tags``),
        read from the parse's bytes as ``aliases`` is: one tag search decoded and kept
        every note's parse, 243 MB at 50,000 notes."""
        parsed = self._parsed
        if parsed is not None:
            return tuple([tag.name for tag in parsed.tags])
        names = self._tag_names
        if names is None:
            self._read_names()
            names = self._tag_names
            assert names is not None
        return names

    def read_links(self) -> tuple[Link, ...]:
        """The note's links: its parse's when decoded, else read from the parse's bytes and
        not kept (the index's ``links_of``: the backlinks of a note linked from 7,600 notes
        decoded and kept each one's whole parse)."""
        parsed = self._parsed
        if parsed is not None:
            return parsed.links
        assert self._blob is not None
        links = _fields_of_blob(self._blob)[0]
        return tuple([_new_tuple(Link, x) for x in links])

    def _read_names(self) -> None:
        """The aliases and tag names from the parse's bytes (``encode_parsed``), kept."""
        assert self._blob is not None
        self._aliases, self._tag_names = names_of_blob(self._blob)

    @property
    def blob(self) -> bytes:
        blob = self._blob
        if blob is None:
            assert self._parsed is not None
            blob = self._blob = encode_parsed(self._parsed)
        return blob

    @property
    def link_targets(self) -> tuple[str, ...]:
        """Each link's target as written, in order (what resolution needs)."""
        targets = self._targets
        if targets is None:
            targets = self._targets = tuple([link.target for link in self.parsed.links])
        return targets

    def with_targets(self, targets: tuple[str, ...]) -> NoteRecord:
        """Give the record its link targets without decoding the parse (worker results)."""
        self._targets = targets
        return self

    @property
    def title(self) -> str:
        name = self.path.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name

    @property
    def links(self) -> tuple[Link, ...]:
        return self.parsed.links

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NoteRecord):
            return NotImplemented
        return (
            self.path == other.path
            and self.stamp == other.stamp
            and self.date == other.date
            and self.date_source == other.date_source
            and self.lossy == other.lossy
            and self.warning_kinds == other.warning_kinds
            and self.parsed == other.parsed
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"NoteRecord({self.path!r}, {self.stamp!r})"


def name_key(name: str) -> str:
    """The key under which a file name (or a link target's last segment) is looked up."""
    base = name.rsplit("/", 1)[-1].lower()
    return base[:-3] if base.endswith(".md") else base
