"""Obsidian's link resolution: which note, attachment, concept or ghost a link points to.

Node ids are strings: a note or attachment is its vault path; a concept is
``//concept/<id>``; an unresolved target is ``//unresolved/<lowercased target>``. A vault
path never starts with ``/``, so the prefixes cannot collide with a file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from .concepts import ConceptDictionary
from .model import Link, name_key  # defined with the records: parse workers skip this module

CONCEPT_PREFIX = "//concept/"
UNRESOLVED_PREFIX = "//unresolved/"
TAG_PREFIX = "//tag/"  # tags are nodes of the exported and drawn graph, not of the index


def is_file_node(node: str) -> bool:
    return not node.startswith("//")


def link_key(link: Link) -> str:
    """The name key a link's target depends on: adding or removing a file of that name may
    change where the link resolves."""
    return name_key(link.target.strip())


def _pick(candidates: list[str], source_folder: str) -> str:
    if len(candidates) == 1:
        return candidates[0]
    for path in candidates:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder == source_folder:
            return path
    return min(candidates, key=lambda p: (len(p), p.lower()))


class Resolver:
    """Lookup tables over the vault's files, updated as files come and go."""

    def __init__(self, concepts: ConceptDictionary | None = None) -> None:
        self._concepts = concepts or ConceptDictionary(None)
        self._by_path: dict[str, str] = {}  # lowercased path → path (notes and attachments)
        self._by_name: dict[str, list[str]] = {}  # name_key → paths
        # target as written → node, for targets whose resolution does not depend on the
        # linking note (most: one candidate, or none); emptied whenever files come or go
        self._memo: dict[str, str] = {}

    @property
    def memo(self) -> dict[str, str]:
        """Resolutions that hold for any linking note (read-only for callers)."""
        return self._memo

    @property
    def concepts(self) -> ConceptDictionary:
        return self._concepts

    @concepts.setter
    def concepts(self, value: ConceptDictionary) -> None:
        self._concepts = value
        self._memo = {}

    def add(self, paths: Iterable[str]) -> None:
        self._memo = {}
        for path in paths:
            self._by_path[path.lower()] = path
            self._by_name.setdefault(name_key(path), []).append(path)

    def remove(self, paths: Iterable[str]) -> None:
        self._memo = {}
        for path in paths:
            self._by_path.pop(path.lower(), None)
            key = name_key(path)
            bucket = self._by_name.get(key)
            if bucket is not None:
                if path in bucket:
                    bucket.remove(path)
                if not bucket:
                    del self._by_name[key]

    def resolve(self, link: Link, source: str) -> str:
        return self.resolve_target(link.kind == "markdown", link.target, source)

    def resolve_target(self, markdown: bool, target: str, source: str) -> str:
        """Where a link from ``source`` to ``target`` points: a Markdown link's path is
        relative to the source; any other link's target is a name."""
        if markdown:
            return self._resolve_relative(target, source)
        return self.resolve_name(target, source)

    def resolve_name(self, target: str, source: str = "") -> str:
        """Resolve a wiki-link target (also a NOTE argument of the command line)."""
        known = self._memo.get(target)
        if known is not None:
            return known
        written = target
        target = target.strip().lstrip("/")
        if not target:
            return source
        lower = target.lower()
        base = lower[:-3] if lower.endswith(".md") else lower
        node = self.exact_path(target)
        if node is None:
            candidates = self.candidates(target)
            if len(candidates) > 1:  # the linking note's folder decides: not memoised
                folder = source.rsplit("/", 1)[0] if "/" in source else ""
                return _pick(candidates, folder)
            if candidates:
                node = candidates[0]
            else:
                concept = self.concepts.get(base)
                node = CONCEPT_PREFIX + concept.id if concept else UNRESOLVED_PREFIX + base
        self._memo[written] = node
        return node

    def exact_path(self, target: str) -> str | None:
        """The file whose vault path is ``target`` (case-insensitive, ``.md`` optional)."""
        lower = target.strip().lstrip("/").lower()
        base = lower[:-3] if lower.endswith(".md") else lower
        return self._by_path.get(base + ".md") or self._by_path.get(lower)

    def candidates(self, target: str) -> list[str]:
        """Every file a bare or path-qualified target could mean, before tie-breaking."""
        lower = target.strip().lstrip("/").lower()
        base = lower[:-3] if lower.endswith(".md") else lower
        bucket = self._by_name.get(name_key(base))
        if not bucket:
            return []
        if "/" in base:
            suffix = "/" + base
            return [p for p in bucket if _without_md(p.lower()).endswith(suffix)]
        return [p for p in bucket if _matches_name(p, base)]

    def _resolve_relative(self, target: str, source: str) -> str:
        if target.startswith("/"):
            joined = target.lstrip("/")
        else:
            folder = source.rsplit("/", 1)[0] if "/" in source else ""
            joined = f"{folder}/{target}" if folder else target
        if joined.startswith(".") or "./" in joined or "//" in joined or joined.endswith("/."):
            joined = posixpath.normpath(joined) if joined else ""
        if not joined or joined == "." or joined == ".." or joined.startswith("../"):
            return UNRESOLVED_PREFIX + _without_md(joined.lower())
        lower = joined.lower()
        found = self._by_path.get(lower) or self._by_path.get(lower + ".md")
        if found is not None:
            return found
        return UNRESOLVED_PREFIX + _without_md(lower)


def _without_md(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def _matches_name(path: str, base: str) -> bool:
    """A note matches by its stem, an attachment by its full file name."""
    name = path.rsplit("/", 1)[-1].lower()
    return name == base + ".md" or name == base
