"""Immutable records of what the parser finds in one note, shared by every layer."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

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


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What identifies a file's version without reading it (TRAPS: mtime_ns + size + inode)."""

    size: int
    mtime_ns: int
    inode: int


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """A note as the index holds it: its path, its file stamp, and what parsing found."""

    path: str
    stamp: FileStamp
    parsed: ParsedNote
    date: _dt.date
    date_source: DateSource
    lossy: bool = False  # decoded with replacement characters: never write it back

    @property
    def title(self) -> str:
        name = self.path.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""

    @property
    def links(self) -> tuple[Link, ...]:
        return self.parsed.links
