"""What readers read: the index as its one writer last published it, never changed after.

``VaultIndex`` (the writer: the updater's thread, or a one-off scan of the command line)
publishes an ``IndexSnapshot`` at the end of every scan and update. A reader — a pane, a
job, the command line, an MCP tool, the related-notes pass — takes ``index.snapshot()``
once and reads it as long as it likes, without a lock: the writer builds the next state in
maps of its own and hands out copies (the outer maps copied at each publish, an inner map of
``in_edges`` copied before the writer first changes it again), so nothing a snapshot holds
changes under it. Two reads of one snapshot always agree; two snapshots may differ.

``IndexView`` is what both offer: a function that reads the index takes either, and takes a
snapshot wherever it reads more than one map while the writer may run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Protocol, TypeVar

from ..concepts.dictionary import ConceptDictionary
from ..parse.records import LINK_KINDS, FileStamp, Link, NoteRecord, ScanWarning
from ..vault.files import IgnoreRules
from .resolver import UNRESOLVED_PREFIX, Resolver, is_file_node

_T = TypeVar("_T")

_KIND_LETTERS = {"w": "wiki", "e": "embed", "m": "markdown", "p": "property"}
# (notes, links, unresolved targets, concepts), counted by the writer as it publishes
Summary = tuple[int, int, int, int]


class IndexIdentity:
    """One index across all its snapshots: what a per-index cache is kept under (weakly:
    it goes with the index and its last snapshot)."""

    __slots__ = ("__weakref__", "use_cache")

    def __init__(self, use_cache: bool = True) -> None:
        self.use_cache = use_cache  # whether caches on disk are read and written for it


class IndexView(Protocol):
    """The reading side of the index: ``IndexSnapshot``, or ``VaultIndex`` (whose maps are
    its latest snapshot's, each read on its own)."""

    @property
    def root(self) -> Path: ...
    @property
    def identity(self) -> IndexIdentity: ...
    @property
    def excluded(self) -> tuple[str, ...]: ...
    @property
    def rules(self) -> IgnoreRules: ...
    @property
    def notes(self) -> Mapping[str, NoteRecord]: ...
    @property
    def attachments(self) -> Mapping[str, FileStamp]: ...
    @property
    def scan_warnings(self) -> Mapping[str, ScanWarning]: ...
    @property
    def targets(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def out_edges(self) -> Mapping[str, Mapping[str, int]]: ...
    @property
    def in_edges(self) -> Mapping[str, Mapping[str, int]]: ...
    @property
    def concepts(self) -> ConceptDictionary: ...
    @property
    def resolver(self) -> Resolver: ...
    @property
    def summary(self) -> Summary: ...

    def snapshot(self) -> IndexSnapshot: ...
    def note(self, rel: str) -> NoteRecord: ...
    def warnings(self) -> list[ScanWarning]: ...
    def links_of(self, rel: str) -> list[tuple[Link, str]]: ...
    def stats(self) -> dict[str, object]: ...
    def orphans(self) -> list[str]: ...


@dataclass(frozen=True, slots=True, eq=False)
class IndexSnapshot:
    """The index at one publish (see the module's docstring). ``generation`` counts the
    publishes of its index: a reader can tell whether anything changed since it read."""

    root: Path
    identity: IndexIdentity
    excluded: tuple[str, ...]  # folders the user left out
    rules: IgnoreRules  # and the vault's ignore file, as they were at this publish
    concepts: ConceptDictionary
    resolver: Resolver  # tables frozen with the snapshot (Resolver.frozen)
    dictionary_place: str  # where a broken dictionary's warning is reported
    notes: Mapping[str, NoteRecord] = field(default_factory=dict)
    attachments: Mapping[str, FileStamp] = field(default_factory=dict)
    scan_warnings: Mapping[str, ScanWarning] = field(default_factory=dict)  # not notes (loops…)
    targets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # each link's node
    out_edges: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    in_edges: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    summary: Summary = (0, 0, 0, 0)
    generation: int = 0
    # What readers work out from the snapshot and keep with it, by name (it never changes):
    # see ``kept``.
    derived: dict[str, object] = field(default_factory=dict, init=False, repr=False)

    def snapshot(self) -> IndexSnapshot:
        return self

    def kept(self, name: str, make: Callable[[], _T]) -> _T:
        """What ``make`` works out from this snapshot, made at the first ask and kept under
        ``name`` for the next (a snapshot never changes, so it cannot go stale; two threads
        asking at once may both make it, and either result is the same)."""
        found = self.derived.get(name)
        if found is None:
            found = self.derived[name] = make()
        return found  # type: ignore[return-value]

    def sorted_notes(self) -> tuple[str, ...]:
        """Every note's path, sorted; worked out once per snapshot (a search sorts the
        whole vault at every question: 50,000 notes, 20 ms)."""
        return self.kept("sorted_notes", lambda: tuple(sorted(self.notes)))

    def note(self, rel: str) -> NoteRecord:
        return self.notes[rel]

    def warnings(self) -> list[ScanWarning]:
        """Every problem found, one per item, sorted by path."""
        out = list(self.scan_warnings.values())
        for rel, record in self.notes.items():
            out.extend(
                ScanWarning(rel, kind, message)
                for kind, message in zip(record.warning_kinds, record.warnings, strict=True)
            )
        if self.concepts.error:
            # The warning names the file already: its message does not say it again.
            name = self.concepts.path.name if self.concepts.path is not None else ""
            message = self.concepts.error.removeprefix(f"{name}: ")
            out.append(ScanWarning(self.dictionary_place, "dictionary", message))
        return sorted(out, key=lambda w: (w.path, w.message))

    def links_of(self, rel: str) -> list[tuple[Link, str]]:
        """Each link of a note with the node it resolves to."""
        record = self.notes[rel]
        return list(zip(record.read_links(), self.targets.get(rel, ()), strict=True))

    def stats(self) -> dict[str, object]:
        letters: Counter[str] = Counter()
        for record in self.notes.values():
            letters.update(record.link_kinds)
        links = {kind: letters[code] for code, kind in _KIND_LETTERS.items()}
        assert tuple(links) == LINK_KINDS
        unresolved = sum(
            count
            for node, sources in self.in_edges.items()
            if node.startswith(UNRESOLVED_PREFIX)
            for count in sources.values()
        )
        total = sum(links.values())
        return {
            "notes": len(self.notes),
            "attachments": len(self.attachments),
            "links": links,
            "resolved": total - unresolved,
            "unresolved": unresolved,
            "unresolved_targets": unresolved_targets(self.in_edges),
            "edges": sum(len(out) for out in self.out_edges.values()),
            "orphans": len(self.orphans()),
            "concepts": len(self.concepts),
            "warnings": len(self.warnings()),
        }

    def orphans(self) -> list[str]:
        """Notes with no link either way (links to themselves do not count)."""
        out_edges, in_edges = self.out_edges, self.in_edges
        return sorted(
            rel
            for rel in self.notes
            if not any(t != rel for t in out_edges.get(rel, {}))
            and not any(s != rel and is_file_node(s) for s in in_edges.get(rel, {}))
        )


def unresolved_targets(in_edges: Mapping[str, Mapping[str, int]]) -> int:
    """How many link targets name no file and no concept."""
    return sum(map(str.startswith, in_edges, repeat(UNRESOLVED_PREFIX)))
