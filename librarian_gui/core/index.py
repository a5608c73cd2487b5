"""The vault index: every note's parse, the resolved link graph, and its incremental update."""

from __future__ import annotations

import datetime as _dt
import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import cache as _cache
from .concepts import DEFAULT_DICTIONARY, ConceptDictionary, load_dictionary
from .model import LINK_KINDS, FileStamp, Link, NoteRecord, ParsedNote, ScanWarning
from .parser import parse_date_text, parse_note
from .resolver import UNRESOLVED_PREFIX, Resolver, is_file_node, link_key, name_key
from .vault import IGNORE_FILE, IgnoreRules, classify_file, read_note, walk_vault

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class IndexDelta:
    """What one ``update`` changed. Edges are (source, target node) pairs."""

    notes_added: tuple[str, ...] = ()
    notes_removed: tuple[str, ...] = ()
    notes_changed: tuple[str, ...] = ()
    attachments_added: tuple[str, ...] = ()
    attachments_removed: tuple[str, ...] = ()
    edges_added: tuple[tuple[str, str], ...] = ()
    edges_removed: tuple[tuple[str, str], ...] = ()
    parsed: int = 0

    @property
    def empty(self) -> bool:
        return not (
            self.notes_added
            or self.notes_removed
            or self.notes_changed
            or self.attachments_added
            or self.attachments_removed
            or self.edges_added
            or self.edges_removed
        )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk build: the index allocates millions
    of small tuples that hold no cycles, and each collection pass re-walks all of them
    (measured: a third of a warm start)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def note_date(rel: str, parsed: ParsedNote, stamp: FileStamp) -> tuple[_dt.date, str]:
    """DESIGN §2: front matter date, else a date in the path, else the modification time."""
    if parsed.front_matter_date is not None:
        return parsed.front_matter_date, "front-matter"
    found = parse_date_text(rel)
    if found is not None:
        return found, "name"
    return _dt.date.fromtimestamp(stamp.mtime_ns / 1e9), "mtime"


class VaultIndex:
    """The parsed notes of one vault and the graph of their links.

    Built by ``scan``; kept current by ``update(paths)``, which re-reads only the given paths
    and returns an ``IndexDelta``. Not thread-safe: one owner (the linker thread) mutates it.
    """

    def __init__(
        self,
        root: Path,
        *,
        concepts: ConceptDictionary | None = None,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
    ) -> None:
        self.root = root.resolve()
        self.excluded = tuple(excluded)
        self.use_cache = use_cache
        self.concepts = concepts if concepts is not None else self._load_concepts()
        self.rules = IgnoreRules(self.root, self.excluded)
        self.notes: dict[str, NoteRecord] = {}
        self.attachments: dict[str, FileStamp] = {}
        self.scan_warnings: dict[str, ScanWarning] = {}  # items that are not notes (loops, …)
        self.resolver = Resolver(self.concepts)
        self.targets: dict[str, tuple[str, ...]] = {}  # source → node of each link, in order
        self.out_edges: dict[str, dict[str, int]] = {}
        self.in_edges: dict[str, dict[str, int]] = {}
        # name key → notes with a link to a target of that name (see _ensure_dependents)
        self._dependents: dict[str, set[str]] | None = None
        self.last_parsed = 0

    # ------------------------------------------------------------ building

    @classmethod
    def scan(
        cls,
        root: Path | str,
        *,
        use_cache: bool = True,
        concepts: ConceptDictionary | None = None,
        excluded: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> VaultIndex:
        index = cls(Path(root), concepts=concepts, excluded=excluded, use_cache=use_cache)
        index.rescan(progress=progress)
        return index

    def _load_concepts(self) -> ConceptDictionary:
        return load_dictionary(self.root / DEFAULT_DICTIONARY)

    def rescan(self, progress: ProgressCallback | None = None) -> None:
        """Read the whole vault again, reusing cached parses of unchanged files."""
        with gc_paused():
            self._rescan(progress)

    def _rescan(self, progress: ProgressCallback | None) -> None:
        if not self.root.is_dir():
            raise FileNotFoundError(f"{self.root}: no such folder")
        walk = walk_vault(self.root, self.rules)
        cached = _cache.load(self.root) if self.use_cache else None
        reuse = cached.notes if cached is not None else {}
        fresh_after = cached.saved_at_ns - _cache.MTIME_GRACE_NS if cached is not None else 0
        self.notes = {}
        self.scan_warnings = {w.path: w for w in walk.warnings}
        total = len(walk.notes)
        parsed = 0
        for done, (rel, stamp) in enumerate(sorted(walk.notes.items()), 1):
            old = reuse.get(rel)
            if old is not None and old.stamp == stamp and stamp.mtime_ns < fresh_after:
                self.notes[rel] = old
            else:
                record = self._read(rel)
                parsed += 1
                if record is not None:
                    self.notes[rel] = record
            if progress is not None and (done % 200 == 0 or done == total):
                progress(done, total)
        self.attachments = dict(walk.attachments)
        self.last_parsed = parsed
        self._rebuild_graph()
        if self.use_cache and (parsed or cached is None or len(reuse) != len(self.notes)):
            _cache.save(self.root, self.notes)

    def _read(self, rel: str) -> NoteRecord | None:
        """Read and parse one note; None when it is gone or is not a regular file."""
        result = read_note(self.root, rel)
        if result.stamp is None:
            if result.warning is not None:
                self.scan_warnings[rel] = result.warning
            return None
        warnings: list[str] = [result.warning.message] if result.warning else []
        if result.text is None:
            parsed = ParsedNote(warnings=tuple(warnings))
        else:
            parsed = parse_note(result.text)
            if warnings:
                parsed = ParsedNote(
                    **{
                        **{f: getattr(parsed, f) for f in ParsedNote.__slots__},
                        "warnings": tuple(warnings) + parsed.warnings,
                    }
                )
        date, source = note_date(rel, parsed, result.stamp)
        return NoteRecord(rel, result.stamp, parsed, date, source, result.lossy)  # type: ignore[arg-type]

    def _rebuild_graph(self) -> None:
        self.resolver = Resolver(self.concepts)
        self.resolver.add(self.notes)
        self.resolver.add(self.attachments)
        self.targets = {}
        self.out_edges = {}
        self.in_edges = {}
        self._dependents = None
        memo: dict[str, dict[str, str]] = {}
        for rel in self.notes:
            self._link_source(rel, memo)

    def _link_source(self, rel: str, memo: dict[str, dict[str, str]] | None = None) -> None:
        """Resolve one note's links and add its edges. ``memo`` caches resolutions per
        folder while no file comes or goes (a full rebuild)."""
        links = self.notes[rel].parsed.links
        resolve = self.resolver.resolve
        if memo is None:
            nodes = tuple(resolve(link, rel) for link in links)
        else:
            folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
            known = memo.get(folder)
            if known is None:
                known = memo[folder] = {}
            found = []
            for link in links:
                key = "\0" + link.target if link.kind == "markdown" else link.target
                node = known.get(key)
                if node is None:
                    node = resolve(link, rel)
                    if node != rel:
                        known[key] = node
                found.append(node)
            nodes = tuple(found)
        self.targets[rel] = nodes
        out = dict(Counter(nodes))
        self.out_edges[rel] = out
        in_edges = self.in_edges
        for node, count in out.items():
            sources = in_edges.get(node)
            if sources is None:
                in_edges[node] = {rel: count}
            else:
                sources[rel] = count
        if self._dependents is not None:
            self._add_dependents(rel)

    def _add_dependents(self, rel: str) -> None:
        dependents = self._dependents
        assert dependents is not None
        for key in {link_key(link) for link in self.notes[rel].parsed.links}:
            deps = dependents.get(key)
            if deps is None:
                dependents[key] = {rel}
            else:
                deps.add(rel)

    def _ensure_dependents(self) -> dict[str, set[str]]:
        """Which notes have a link whose target has a given name; built on the first
        update only, since a one-off scan (the command line) never needs it."""
        if self._dependents is None:
            self._dependents = {}
            for rel in self.notes:
                self._add_dependents(rel)
        return self._dependents

    def _unlink_source(self, rel: str) -> None:
        for node in self.out_edges.pop(rel, {}):
            sources = self.in_edges.get(node)
            if sources is not None:
                sources.pop(rel, None)
                if not sources:
                    del self.in_edges[node]
        record = self.notes.get(rel)
        if record is not None and self._dependents is not None:
            for key in {link_key(link) for link in record.parsed.links}:
                deps = self._dependents.get(key)
                if deps is not None:
                    deps.discard(rel)
        self.targets.pop(rel, None)

    # ------------------------------------------------------------ incremental update

    def update(self, paths: Iterable[str | Path]) -> IndexDelta:
        """Re-read the given paths (files or folders, absolute or vault-relative; created,
        changed, moved or deleted) and bring the graph up to date. Only those notes are
        parsed again; links elsewhere are re-resolved only where a file of their target's
        name came or went."""
        rels = {r for r in (self._relative(p) for p in paths) if r is not None}
        if IGNORE_FILE in rels:
            return self._full_rescan_delta()
        if DEFAULT_DICTIONARY in rels:
            self.concepts = self._load_concepts()
            self.resolver.concepts = self.concepts
            rels.update(self.notes)  # concept targets may now resolve differently
        notes_now: dict[str, FileStamp] = {}
        attachments_now: dict[str, FileStamp] = {}
        checked: set[str] = set()
        for rel in rels:
            self.scan_warnings.pop(rel, None)
            checked.add(rel)
            prefix = rel + "/"
            checked.update(p for p in self.notes if p.startswith(prefix))
            checked.update(p for p in self.attachments if p.startswith(prefix))
            full = self.root / rel
            if full.is_dir() and not self.rules.ignored(rel, True):
                walk = walk_vault(self.root, self.rules, start=rel)
                notes_now.update(walk.notes)
                attachments_now.update(walk.attachments)
                checked.update(walk.notes)
                checked.update(walk.attachments)
                self.scan_warnings.update({w.path: w for w in walk.warnings})
        for rel in checked:
            if rel in notes_now or rel in attachments_now:
                continue
            single = classify_file(self.root, self.rules, rel)
            if single is not None:
                kind, stamp = single
                (notes_now if kind == "note" else attachments_now)[rel] = stamp

        added, removed, changed = [], [], []
        att_added = [p for p in attachments_now if p not in self.attachments]
        att_removed = [p for p in checked if p in self.attachments and p not in attachments_now]
        new_records: dict[str, NoteRecord] = {}
        parsed = 0
        for rel in sorted(checked):
            old = self.notes.get(rel)
            stamp = notes_now.get(rel)
            if stamp is None:
                if old is not None:
                    removed.append(rel)
                continue
            if old is not None and old.stamp == stamp:
                continue  # unchanged file (an event from a read, or a touch): keep its parse
            record = self._read(rel)
            parsed += 1
            if record is None:
                if old is not None:
                    removed.append(rel)
                continue
            new_records[rel] = record
            (changed if old is not None else added).append(rel)

        before: dict[str, dict[str, int]] = {}
        affected: set[str] = set(removed) | set(new_records)
        name_changes = [*added, *removed, *att_added, *att_removed]
        dependents = self._ensure_dependents()
        for key in {name_key(p) for p in name_changes}:
            affected.update(dependents.get(key, ()))
        if DEFAULT_DICTIONARY in rels:
            affected.update(self.notes)
        for rel in affected:
            if rel in self.notes:
                before[rel] = dict(self.out_edges.get(rel, {}))
                self._unlink_source(rel)
        for rel in removed:
            self.notes.pop(rel, None)
        self.resolver.remove(removed)
        self.resolver.remove(att_removed)
        for rel in att_removed:
            self.attachments.pop(rel, None)
        self.resolver.add(added)
        self.resolver.add(att_added)
        self.notes.update(new_records)
        self.attachments.update(attachments_now)
        edges_added: list[tuple[str, str]] = []
        edges_removed: list[tuple[str, str]] = []
        for rel in sorted(affected):
            old_out = before.get(rel, {})
            if rel in self.notes:
                self._link_source(rel)
            new_out = self.out_edges.get(rel, {})
            edges_added.extend((rel, n) for n in new_out if n not in old_out)
            edges_removed.extend((rel, n) for n in old_out if n not in new_out)
        self.last_parsed = parsed
        return IndexDelta(
            tuple(sorted(added)),
            tuple(sorted(removed)),
            tuple(sorted(changed)),
            tuple(sorted(att_added)),
            tuple(sorted(att_removed)),
            tuple(edges_added),
            tuple(edges_removed),
            parsed,
        )

    def _full_rescan_delta(self) -> IndexDelta:
        old_notes = {p: r.stamp for p, r in self.notes.items()}
        old_att = set(self.attachments)
        old_edges = {(s, t) for s, out in self.out_edges.items() for t in out}
        self.rules = IgnoreRules(self.root, self.excluded)
        self.rescan()
        new_edges = {(s, t) for s, out in self.out_edges.items() for t in out}
        return IndexDelta(
            tuple(sorted(set(self.notes) - set(old_notes))),
            tuple(sorted(set(old_notes) - set(self.notes))),
            tuple(sorted(p for p, r in self.notes.items() if p in old_notes and old_notes[p] != r.stamp)),
            tuple(sorted(set(self.attachments) - old_att)),
            tuple(sorted(old_att - set(self.attachments))),
            tuple(sorted(new_edges - old_edges)),
            tuple(sorted(old_edges - new_edges)),
            self.last_parsed,
        )

    def _relative(self, path: str | Path) -> str | None:
        p = Path(path)
        if p.is_absolute():
            try:
                rel = p.relative_to(self.root)
            except ValueError:
                try:
                    rel = p.resolve().relative_to(self.root)
                except (ValueError, OSError):
                    return None
            text = rel.as_posix()
        else:
            text = p.as_posix()
        return None if text in ("", ".") else text

    # ------------------------------------------------------------ lookups

    def note(self, rel: str) -> NoteRecord:
        return self.notes[rel]

    def warnings(self) -> list[ScanWarning]:
        """Every problem found, one per item, sorted by path."""
        out = list(self.scan_warnings.values())
        for rel, record in self.notes.items():
            out.extend(ScanWarning(rel, "note", w) for w in record.parsed.warnings)
        if self.concepts.error:
            out.append(ScanWarning(DEFAULT_DICTIONARY, "dictionary", self.concepts.error))
        return sorted(out, key=lambda w: (w.path, w.message))

    def links_of(self, rel: str) -> list[tuple[Link, str]]:
        """Each link of a note with the node it resolves to."""
        record = self.notes[rel]
        return list(zip(record.parsed.links, self.targets.get(rel, ()), strict=True))

    def stats(self) -> dict[str, object]:
        links = dict.fromkeys(LINK_KINDS, 0)
        resolved = unresolved = 0
        for rel, record in self.notes.items():
            for link, node in zip(record.parsed.links, self.targets[rel], strict=True):
                links[link.kind] += 1
                if node.startswith(UNRESOLVED_PREFIX):
                    unresolved += 1
                else:
                    resolved += 1
        ghosts = sum(1 for node in self.in_edges if node.startswith(UNRESOLVED_PREFIX))
        return {
            "notes": len(self.notes),
            "attachments": len(self.attachments),
            "links": links,
            "resolved": resolved,
            "unresolved": unresolved,
            "unresolved_targets": ghosts,
            "edges": sum(len(out) for out in self.out_edges.values()),
            "orphans": len(self.orphans()),
            "concepts": len(self.concepts),
            "warnings": len(self.warnings()),
        }

    def orphans(self) -> list[str]:
        """Notes with no link either way (links to themselves do not count)."""
        return sorted(
            rel
            for rel in self.notes
            if not any(t != rel for t in self.out_edges.get(rel, {}))
            and not any(s != rel and is_file_node(s) for s in self.in_edges.get(rel, {}))
        )

