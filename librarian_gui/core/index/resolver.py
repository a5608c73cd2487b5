"""Obsidian's link resolution: which note, attachment, concept or ghost a link points to.

Node ids are strings: a note or attachment is its vault path; a concept is
``//concept/<id>``; an unresolved target is ``//unresolved/<lowercased target>``. A vault
path never starts with ``/``, so the prefixes cannot collide with a file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence

from ..concepts.dictionary import ConceptDictionary
from ..parse.records import (  # defined with the records: parse workers skip this module
    Link,
    name_key,
)

CONCEPT_PREFIX = "//concept/"
UNRESOLVED_PREFIX = "//unresolved/"
TAG_PREFIX = "//tag/"  # tags are nodes of the exported and drawn graph, not of the index


def is_file_node(node: str) -> bool:
    return not node.startswith("//")


def link_key(link: Link) -> str:
    """The name key a link's target depends on: adding or removing a file of that name may
    change where the link resolves."""
    return name_key(link.target.strip())


def pick_file(candidates: list[str], source_folder: str, written: str) -> str:
    """The file a bare or path-qualified name ``written`` means among several: the one in
    the linking note's folder, then the shortest path, then alphabetical; paths equal but
    for case are told apart by how the name is spelled (``_spelling_order``)."""
    if len(candidates) == 1:
        return candidates[0]
    pool = [p for p in candidates if _folder(p) == source_folder] or candidates
    first = min(pool, key=lambda p: (len(p), p.lower()))
    lower = first.lower()
    rivals = [p for p in pool if len(p) == len(first) and p.lower() == lower]
    if len(rivals) == 1:
        return first
    return min(rivals, key=lambda p: (_spelling_order(_tail(p, written), written), p))


def pick_spelling(candidates: Sequence[str], written: str) -> str:
    """Of paths equal to ``written`` up to case, the one spelled most like it."""
    return min(candidates, key=lambda p: (_spelling_order(p, written), p))


def _spelling_order(spelling: str, written: str) -> tuple[bool, ...]:
    """Where ``spelling`` differs in case from ``written``, letter by letter from the left:
    the first letter where one candidate has the written case and another does not decides
    (so a relative link keeps to its note's folder spelled as it is)."""
    return tuple(a != b for a, b in zip(spelling, written, strict=False))


def _tail(path: str, written: str) -> str:
    """The end of ``path`` that a name ``written`` (``.md`` optional) matched."""
    if path.lower().endswith(written.lower()):
        return path[len(path) - len(written) :]
    stem = path[:-3] if path.lower().endswith(".md") else path
    return stem[len(stem) - len(written) :]


class Resolver:
    """Lookup tables over the vault's files, updated as files come and go.

    A list of the tables is never changed once made (``add`` and ``remove`` make new ones),
    so that ``frozen()`` can hand readers the tables as they are without copying them:
    the next change copies the two outer maps first."""

    def __init__(self, concepts: ConceptDictionary | None = None) -> None:
        self._concepts = concepts or ConceptDictionary(None)
        # lowercased path → paths (notes and attachments): on Linux, ``Note.md`` and
        # ``note.md`` are two files
        self._by_path: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}  # name_key → paths
        # target as written → node, for targets whose resolution does not depend on the
        # linking note (most: one candidate, or none); emptied whenever files come or go
        self._memo: dict[str, str] = {}
        self._shared = False  # the outer maps are a frozen copy's too: copy before a change

    def frozen(self) -> Resolver:
        """A resolver over these tables as they are now, for readers: no later ``add`` or
        ``remove`` of this one changes it. Its memo fills as readers resolve names (each
        entry a function of the frozen tables), unshared from the next change on."""
        copy = Resolver(self._concepts)
        copy._by_path, copy._by_name, copy._memo = self._by_path, self._by_name, self._memo
        self._shared = True
        return copy

    def _own(self) -> None:
        """Before a change: the outer maps this resolver's alone, a fresh memo."""
        if self._shared:
            self._by_path, self._by_name = dict(self._by_path), dict(self._by_name)
            self._shared = False
        self._memo = {}

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
        self._own()
        by_path, by_name = self._by_path, self._by_name
        for path in paths:
            lower = path.lower()
            bucket = by_path.get(lower)
            by_path[lower] = [path] if bucket is None else [*bucket, path]
            # ``name_key(path)``, from the path already lowered (a warm start adds every
            # note: 50,000 calls and lowerings fewer)
            key = lower[lower.rfind("/") + 1 :]
            if key.endswith(".md"):
                key = key[:-3]
            bucket = by_name.get(key)
            by_name[key] = [path] if bucket is None else [*bucket, path]

    def remove(self, paths: Iterable[str]) -> None:
        self._own()
        for path in paths:
            _discard(self._by_path, path.lower(), path)
            _discard(self._by_name, name_key(path), path)

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
        if lower.endswith(".md"):
            paths = self._paths(target)
        else:
            paths = self._paths(target + ".md", target)
        if len(paths) > 1:  # equal up to case: the spelling decides, whoever links
            node = pick_spelling(paths, target)
        elif paths:
            node = paths[0]
        else:
            candidates = self.candidates(target)
            if len(candidates) > 1:  # the linking note's folder decides: not memoised
                stem = target[:-3] if lower.endswith(".md") else target
                return pick_file(candidates, _folder(source), stem)
            if candidates:
                node = candidates[0]
            else:
                concept = self.concepts.get(base)
                node = CONCEPT_PREFIX + concept.id if concept else UNRESOLVED_PREFIX + base
        self._memo[written] = node
        return node

    def names_a_file(self, target: str) -> bool:
        """Whether some file's name is ``target``'s last segment (up to case and ``.md``):
        a dictionary lookup, false for most phrases, before the path and name rules."""
        return name_key(target.strip().lstrip("/")) in self._by_name

    def path_matches(self, target: str) -> list[str]:
        """The files whose vault path is ``target`` (``.md`` optional): the one spelled
        exactly so, else every one spelled so up to case (several on Linux), else none."""
        target = target.strip().lstrip("/")
        if target.lower().endswith(".md"):
            return list(self._paths(target))
        return list(self._paths(target + ".md", target))

    def _paths(self, first: str, second: str = "") -> Sequence[str]:
        """``first`` if it is a file, else ``second`` if that is one, else the files equal
        up to case to ``first``, else those equal up to case to ``second`` (read-only)."""
        by_path = self._by_path
        group = by_path.get(first.lower())
        if group is not None and first in group:
            return group if len(group) == 1 else (first,)
        if not second:
            return group or ()
        other = by_path.get(second.lower())
        if other is not None and second in other:
            return other if len(other) == 1 else (second,)
        return group or other or ()

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
            folder = _folder(source)
            joined = f"{folder}/{target}" if folder else target
        if joined.startswith(".") or "./" in joined or "//" in joined or joined.endswith("/."):
            joined = posixpath.normpath(joined) if joined else ""
        if not joined or joined == "." or joined == ".." or joined.startswith("../"):
            return UNRESOLVED_PREFIX + _without_md(joined.lower())
        paths = self._paths(joined, joined + ".md")
        if len(paths) > 1:
            return pick_spelling(paths, joined)
        if paths:
            return paths[0]
        return UNRESOLVED_PREFIX + _without_md(joined.lower())


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _discard(table: dict[str, list[str]], key: str, path: str) -> None:
    """Take ``path`` out of ``table[key]``'s list: a new list, or none when it was the last."""
    bucket = table.get(key)
    if bucket is not None:
        rest = bucket
        if path in bucket:
            rest = list(bucket)
            rest.remove(path)
        if rest:
            table[key] = rest
        else:
            del table[key]


def _without_md(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def _matches_name(path: str, base: str) -> bool:
    """A note matches by its stem, an attachment by its full file name."""
    name = path.rsplit("/", 1)[-1].lower()
    return name == base + ".md" or name == base
