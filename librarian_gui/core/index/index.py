"""The vault index: every note's parse, the resolved link graph, and its incremental update."""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from pathlib import Path

from ..concepts.dictionary import ConceptDictionary, dictionary_place, load_dictionary
from ..courtesy import gc_paused
from ..parse.records import FileStamp, Link, NoteRecord, ScanWarning, name_key
from ..vault import walk_apart
from ..vault.files import (
    IGNORE_FILE,
    MAX_IGNORE_BYTES,
    IgnoreRules,
    classify_file,
    read_regular_file,
    walk_vault,
)
from ..vault.reading import POOL_THRESHOLD, ParsePool, read_many
from ..vault.walk_apart import WalkApart
from . import cache as _cache
from .delta import IndexDelta, find_renames
from .resolver import UNRESOLVED_PREFIX, Resolver
from .snapshot import IndexIdentity, IndexSnapshot, Summary, unresolved_targets

_link_kinds = attrgetter("link_kinds")

ProgressCallback = Callable[[int, int], None]


class VaultIndex:
    """The parsed notes of one vault and the graph of their links.

    Built by ``scan``; kept current by ``update(paths)``, which re-reads only the given paths
    and returns an ``IndexDelta``. One owner (the updater's thread) changes it, in maps of its
    own; at the end of each scan and update it publishes an ``IndexSnapshot`` that no later
    change touches (see ``snapshot``). Readers take ``snapshot()`` and read it without a lock;
    the maps read from the index itself (``notes``, ``in_edges``, …) are its latest
    snapshot's, each on its own.
    """

    def __init__(
        self,
        root: Path,
        *,
        concepts: ConceptDictionary | None = None,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
        dictionary: Path | None = None,
    ) -> None:
        self.root = root.resolve()
        self.excluded = tuple(excluded)
        self.use_cache = use_cache
        # The concept dictionary the index reads (and reads again when it changes): the
        # vault's concepts.json, or a file the user chose, in the vault or outside it.
        # Outside the vault (no vault path), reload_dictionary() is told of its changes.
        self.dictionary_path, self._dictionary_rel = dictionary_place(self.root, dictionary)
        self._own_dictionary = concepts is None
        self._concepts = concepts if concepts is not None else self._load_concepts()
        self.rules = IgnoreRules(self.root, self.excluded)
        self._notes: dict[str, NoteRecord] = {}
        self._attachments: dict[str, FileStamp] = {}
        self._scan_warnings: dict[str, ScanWarning] = {}  # items that are not notes (loops, …)
        self._resolver = Resolver(self._concepts)
        self._targets: dict[str, tuple[str, ...]] = {}  # source → node of each link, in order
        self._out_edges: dict[str, dict[str, int]] = {}
        self._in_edges: dict[str, dict[str, int]] = {}
        # name key → notes with a link to a target of that name (see _ensure_dependents)
        self._dependents: dict[str, set[str]] | None = None
        self.last_parsed = 0  # notes parsed by the last scan or update (not from cache)
        # (notes, links, unresolved targets, concepts) after the last scan or update, counted
        # by the writer and published: a reader shows them without walking the maps.
        self._summary: Summary = (0, 0, 0, 0)
        self._link_count = 0  # links of every note, kept by each update
        self._unresolved = 0  # targets naming no file and no concept, kept by each update
        self._stale_cache = False
        self._saving: threading.Thread | None = None  # writes the cache of the last scan
        self._unsaved: str | None = None  # fingerprint of a scan whose cache is not written
        # Nodes of ``_in_edges`` whose map the writer made since the last publish (the rest
        # are a snapshot's too, copied before they change); None: all of them, after a build.
        self._owned: set[str] | None = None
        self.identity = IndexIdentity(use_cache)
        self._published = IndexSnapshot(
            self.root,
            self.identity,
            self.excluded,
            self.rules,
            self._concepts,
            Resolver(self._concepts),
            self._dictionary_place(),
        )

    @classmethod
    def scan(
        cls,
        root: Path | str,
        *,
        use_cache: bool = True,
        concepts: ConceptDictionary | None = None,
        excluded: Iterable[str] = (),
        progress: ProgressCallback | None = None,
        dictionary: Path | None = None,
    ) -> VaultIndex:
        index = cls(
            Path(root),
            concepts=concepts,
            excluded=excluded,
            use_cache=use_cache,
            dictionary=dictionary,
        )
        index.rescan(progress=progress)
        return index

    # ------------------------------------------------------------ what readers read

    def snapshot(self) -> IndexSnapshot:
        """The index as last published: read it as long as you like, without a lock."""
        return self._published

    @property
    def notes(self) -> Mapping[str, NoteRecord]:
        return self._published.notes

    @property
    def attachments(self) -> Mapping[str, FileStamp]:
        return self._published.attachments

    @property
    def scan_warnings(self) -> Mapping[str, ScanWarning]:
        return self._published.scan_warnings

    @property
    def targets(self) -> Mapping[str, tuple[str, ...]]:
        return self._published.targets

    @property
    def out_edges(self) -> Mapping[str, Mapping[str, int]]:
        return self._published.out_edges

    @property
    def in_edges(self) -> Mapping[str, Mapping[str, int]]:
        return self._published.in_edges

    @property
    def concepts(self) -> ConceptDictionary:
        return self._published.concepts

    @property
    def resolver(self) -> Resolver:
        return self._published.resolver

    @property
    def summary(self) -> Summary:
        """(notes, links, unresolved targets, concepts), counted as the writer published."""
        return self._published.summary

    def note(self, rel: str) -> NoteRecord:
        return self._published.notes[rel]

    def warnings(self) -> list[ScanWarning]:
        return self._published.warnings()

    def links_of(self, rel: str) -> list[tuple[Link, str]]:
        return self._published.links_of(rel)

    def stats(self) -> dict[str, object]:
        return self._published.stats()

    def orphans(self) -> list[str]:
        return self._published.orphans()

    def _publish(self) -> None:
        """Hand readers the maps as they are now: copies of the outer maps (a dict copy:
        about a millisecond at 10,000 notes), the inner maps shared until the writer first
        changes one again (``_own_sources``), the resolver's tables frozen."""
        self._summary = (
            len(self._notes),
            self._link_count,
            self._unresolved,
            len(self._concepts),
        )
        self._published = IndexSnapshot(
            self.root,
            self.identity,
            self.excluded,
            self.rules,
            self._concepts,
            self._resolver.frozen(),
            self._dictionary_place(),
            notes=dict(self._notes),
            attachments=dict(self._attachments),
            scan_warnings=dict(self._scan_warnings),
            targets=dict(self._targets),
            out_edges=dict(self._out_edges),
            in_edges=dict(self._in_edges),
            summary=self._summary,
            generation=self._published.generation + 1,
        )
        self._owned = set()

    def _dictionary_place(self) -> str:
        return self._dictionary_rel or str(self.dictionary_path)

    # ------------------------------------------------------------ building

    def _load_concepts(self) -> ConceptDictionary:
        return load_dictionary(self.dictionary_path)

    def fingerprint(self) -> str:
        """What the resolved graph depends on besides the files: dictionary and ignore rules.
        A cached graph is reused only under the same fingerprint."""
        h = hashlib.sha256()
        for concept in self._concepts.concepts:
            h.update(concept.id.encode("utf-8", "surrogateescape") + b"\0")
        h.update(b"\1" + "\0".join(self.excluded).encode("utf-8", "surrogateescape"))
        with contextlib.suppress(OSError):
            h.update(b"\2" + read_regular_file(self.root / IGNORE_FILE, MAX_IGNORE_BYTES))
        return h.hexdigest()

    def rescan(
        self,
        progress: ProgressCallback | None = None,
        listed: Callable[[tuple[str, ...], tuple[str, ...]], None] | None = None,
        *,
        save: bool = True,
    ) -> None:
        """Read the whole vault again, reusing cached work for unchanged files.
        ``listed(notes, attachments)`` is called once the files are known, before parsing.
        ``save=False`` leaves writing the cache to a later ``save_cache()``."""
        if not self.root.is_dir():
            raise FileNotFoundError(f"{self.root}: no such folder")
        self.wait_saved()
        # With a cache of many notes, another process walks the vault while this one loads
        # the cache: each holds its own interpreter (``walk_apart``).
        apart = (
            WalkApart(self.root, self.excluded)
            if self.use_cache and walk_apart.useful(_cache.cache_file(self.root))
            else None
        )
        with gc_paused(), contextlib.ExitStack() as stack:
            if apart is not None:
                stack.callback(apart.close)
            cached = _cache.load(self.root) if self.use_cache else None
            fingerprint = self.fingerprint()
            warm = cached is not None and cached.fingerprint == fingerprint
            pools: list[ParsePool] = []
            # A cold start of a large vault parses on workers: start them while walking.
            on_many = None
            if not warm and ParsePool.useful():
                on_many = (POOL_THRESHOLD, lambda: pools.append(ParsePool(self.root)))
            walk = apart.result() if apart is not None else None
            if walk is None:
                walk = walk_vault(self.root, self.rules, on_many=on_many)
            elif on_many is not None and len(walk.notes) >= POOL_THRESHOLD:
                on_many[1]()
            self._scan_warnings = {w.path: w for w in walk.warnings}
            if listed is not None:
                listed(tuple(walk.notes), tuple(walk.attachments))
            if cached is not None and warm:
                self._warm_start(cached, walk.notes, walk.attachments)
            else:
                pool = pools[0] if pools else None
                self._cold_start(cached, walk.notes, walk.attachments, progress, pool)
            if progress is not None:
                progress(len(walk.notes), len(walk.notes))
            self._unsaved = (
                fingerprint
                if self.use_cache and (self.last_parsed or cached is None or self._stale_cache)
                else None
            )
            self._count()
            self._publish()
            if save:
                self.save_cache()

    def save_cache(self) -> None:
        """Write the cache of the last scan on a thread, if it needs writing. The index is
        complete before; writing (~0.3 s at 10,000 notes) need not delay its first use. It
        writes the published snapshot, which no update changes: updates need not wait."""
        fingerprint, self._unsaved = self._unsaved, None
        if fingerprint is None:
            return
        self.wait_saved()
        published = self._published
        self._saving = _cache.save(
            self.root,
            fingerprint,
            published.notes,
            published.attachments,
            published.targets,
            published.out_edges,
            published.in_edges,
            background=True,
        )

    def wait_saved(self) -> None:
        """Wait until the cache of the last scan is written (the process waits at exit too)."""
        saving, self._saving = self._saving, None
        if saving is not None:
            saving.join()

    def _cold_start(
        self,
        cached: _cache.CachedIndex | None,
        notes_now: dict[str, FileStamp],
        attachments_now: dict[str, FileStamp],
        progress: ProgressCallback | None,
        pool: ParsePool | None = None,
    ) -> None:
        """Build everything: reuse cached parses of unchanged files, parse the rest, and
        resolve every link."""
        reuse = cached.notes if cached is not None else {}
        doubted = _cache.doubted(cached.saved_at_ns) if cached else range(0)
        self._notes = {}
        to_read = []
        for rel, stamp in sorted(notes_now.items()):
            old = reuse.get(rel)
            if old is not None and old.stamp == stamp and stamp.mtime_ns not in doubted:
                self._notes[rel] = old
            else:
                to_read.append(rel)
        total = len(notes_now)
        reused = len(self._notes)

        def tick(done: int) -> None:
            if progress is not None and (done % 200 == 0 or done == len(to_read)):
                progress(reused + done, total)

        # Every file is known from the walk, so links can be resolved while the workers
        # are still parsing: the main process would otherwise sit idle until they finish.
        self._attachments = dict(attachments_now)
        self._start_graph(notes_now)
        memo: dict[str, dict[str, str]] = {}
        for rel in list(self._notes):
            self._link_source(rel, memo)
        vanished = False
        for rel, record, warning in read_many(self.root, to_read, tick, pool):
            if record is not None:
                self._notes[rel] = record
                self._link_source(rel, memo)
            else:
                vanished = True
            if warning is not None:
                self._scan_warnings[warning.path] = warning
        self.last_parsed = len(to_read)
        self._stale_cache = cached is not None
        if vanished:  # a listed note is gone: links must not resolve to it
            self._rebuild_graph()

    def _warm_start(
        self,
        cached: _cache.CachedIndex,
        notes_now: dict[str, FileStamp],
        attachments_now: dict[str, FileStamp],
    ) -> None:
        """Install the graph as it was saved, then update it for what changed since: files
        added, removed or modified, and files modified so close to the save that their
        stamp cannot be trusted."""
        self._notes = cached.notes
        self._attachments = cached.attachments
        self._targets = cached.targets
        self._out_edges = cached.out_edges
        self._in_edges = cached.in_edges
        self._owned = None  # read from the cache: none is a snapshot's
        self._dependents = None
        self._resolver = Resolver(self._concepts)
        self._resolver.add(self._notes)
        self._resolver.add(self._attachments)
        doubted = _cache.doubted(cached.saved_at_ns)
        changed = {
            rel
            for rel, stamp in notes_now.items()
            if (old := self._notes.get(rel)) is None
            or old.stamp != stamp
            or stamp.mtime_ns in doubted
        }
        changed.update(rel for rel in self._notes if rel not in notes_now)
        changed.update(p for p, s in attachments_now.items() if self._attachments.get(p) != s)
        changed.update(p for p in self._attachments if p not in attachments_now)
        self.last_parsed = 0
        self._stale_cache = bool(changed)
        if changed:
            delta = self._update(changed, force=True, known=(notes_now, attachments_now))
            self.last_parsed = delta.parsed

    def _start_graph(self, notes: Iterable[str]) -> None:
        """An empty graph over these notes and the current attachments."""
        self._resolver = Resolver(self._concepts)
        self._resolver.add(notes)
        self._resolver.add(self._attachments)
        self._targets = {}
        self._out_edges = {}
        self._in_edges = {}
        self._owned = None  # every map new: none is a snapshot's
        self._dependents = None

    def _rebuild_graph(self) -> None:
        self._start_graph(self._notes)
        memo: dict[str, dict[str, str]] = {}
        for rel in self._notes:
            self._link_source(rel, memo)

    def _link_source(self, rel: str, memo: dict[str, dict[str, str]] | None = None) -> None:
        """Resolve one note's links and add its edges. The resolver memoises names itself;
        ``memo`` caches relative Markdown paths per folder during a full rebuild."""
        record = self._notes[rel]
        resolver = self._resolver
        kinds = record.link_kinds
        targets = record.link_targets
        nodes: tuple[str, ...]
        if "m" not in kinds:  # the common case: names only, most already memoised
            memoised = tuple(map(resolver.memo.get, targets))
            if None in memoised:
                resolve_name = resolver.resolve_name
                memoised = tuple(
                    [n or resolve_name(t, rel) for n, t in zip(memoised, targets, strict=True)]
                )
            nodes = memoised  # type: ignore[assignment]  # no None left
        else:
            nodes = tuple(self._resolve_mixed(rel, kinds, targets, memo))
        self._targets[rel] = nodes
        out: dict[str, int] = {}
        for node in nodes:
            out[node] = out.get(node, 0) + 1
        self._out_edges[rel] = out  # a new map: a snapshot may share it, nobody changes it
        in_edges = self._in_edges
        owned = self._owned
        for node, count in out.items():
            sources = in_edges.get(node)
            if sources is None:
                in_edges[node] = {rel: count}
                if owned is not None:
                    owned.add(node)
                if node.startswith(UNRESOLVED_PREFIX):
                    self._unresolved += 1
            else:
                if owned is not None and node not in owned:
                    sources = self._own_sources(node)
                sources[rel] = count
        if self._dependents is not None:
            self._add_dependents(rel)

    def _resolve_mixed(
        self,
        rel: str,
        kinds: str,
        targets: tuple[str, ...],
        memo: dict[str, dict[str, str]] | None,
    ) -> list[str]:
        """Resolve a note's links when some are Markdown links (paths relative to it)."""
        resolver = self._resolver
        names = resolver.memo
        found = []
        known: dict[str, str] | None = None
        for kind, target in zip(kinds, targets, strict=True):
            if kind != "m":
                node = names.get(target) or resolver.resolve_name(target, rel)
            elif memo is None:
                node = resolver.resolve_target(True, target, rel)
            else:
                if known is None:
                    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
                    known = memo.get(folder)
                    if known is None:
                        known = memo[folder] = {}
                node = known.get(target) or known.setdefault(
                    target, resolver.resolve_target(True, target, rel)
                )
            found.append(node)
        return found

    def _add_dependents(self, rel: str) -> None:
        dependents = self._dependents
        assert dependents is not None
        for key in self._notes[rel].link_keys:
            deps = dependents.get(key)
            if deps is None:
                dependents[key] = {rel}
            else:
                deps.add(rel)

    def prepare_updates(self) -> None:
        """Build what ``update`` needs ahead of the first one (the window calls this soon
        after its scan, so that the first save does not pay for it). Called only by the
        thread that updates the index; it reads the maps that thread alone changes, so it
        holds no lock and keeps no reader waiting."""
        self._ensure_dependents()

    def _ensure_dependents(self) -> dict[str, set[str]]:
        """Which notes have a link whose target has a given name; built on the first
        update only, since a one-off scan (the command line) never needs it."""
        if self._dependents is None:
            self._dependents = {}
            for rel in self._notes:
                self._add_dependents(rel)
        return self._dependents

    def _own_sources(self, node: str) -> dict[str, int]:
        """``node``'s map of sources, the writer's own from now on: a published snapshot
        keeps the one it has (copy on the first change after a publish)."""
        sources = self._in_edges[node] = dict(self._in_edges[node])
        if self._owned is not None:
            self._owned.add(node)
        return sources

    def _unlink_source(self, rel: str) -> None:
        owned = self._owned
        for node in self._out_edges.pop(rel, {}):
            sources = self._in_edges.get(node)
            if sources is not None:
                if owned is not None and node not in owned:
                    sources = self._own_sources(node)
                sources.pop(rel, None)
                if not sources:
                    del self._in_edges[node]
                    if node.startswith(UNRESOLVED_PREFIX):
                        self._unresolved -= 1
        record = self._notes.get(rel)
        if record is not None and self._dependents is not None:
            for key in record.link_keys:
                deps = self._dependents.get(key)
                if deps is not None:
                    deps.discard(rel)
        self._targets.pop(rel, None)

    # ------------------------------------------------------------ incremental update

    def update(self, paths: Iterable[str | Path]) -> IndexDelta:
        """Re-read the given paths (files or folders, absolute or vault-relative; created,
        changed, moved or deleted) and bring the graph up to date. Only those notes are
        parsed again; links elsewhere are re-resolved only where a file of their target's
        name came or went."""
        self.save_cache()  # a scan's cache not written yet: from its snapshot
        rels = {r for r in (self._relative(p) for p in paths) if r is not None}
        if IGNORE_FILE in rels:
            delta = self._full_rescan_delta()
        else:
            with gc_paused():
                delta = self._update(rels, force=False, known=None)
        self._publish()
        return delta

    def reload_dictionary(self) -> IndexDelta:
        """Read the concept dictionary again (it lives outside the vault, where the watcher
        does not look) and re-resolve the links: concept nodes come and go."""
        self.save_cache()
        with gc_paused():
            delta = self._update(set(), force=False, known=None, reload_dictionary=True)
        self._publish()
        return delta

    def _count(self) -> None:
        """Count the links and the unresolved targets over the whole index, after a scan;
        an update keeps both counts as it changes the maps (walking 10,000 notes and
        24,000 targets at every update was 5 ms of it)."""
        self._link_count = sum(map(len, map(_link_kinds, self._notes.values())))
        self._unresolved = unresolved_targets(self._in_edges)

    def _update(
        self,
        rels: set[str],
        *,
        force: bool,
        known: tuple[dict[str, FileStamp], dict[str, FileStamp]] | None,
        reload_dictionary: bool = False,
    ) -> IndexDelta:
        """``force`` re-reads files even when their stamp is unchanged; ``known`` is the
        current file listing when the caller has just walked the whole vault."""
        dictionary_changed = self._own_dictionary and (
            reload_dictionary or self._dictionary_rel in rels
        )
        if dictionary_changed:
            self._concepts = self._load_concepts()
            self._resolver.concepts = self._concepts
        if known is not None:
            notes_now = {r: s for r, s in known[0].items() if r in rels}
            attachments_now = {r: s for r, s in known[1].items() if r in rels}
            checked = set(rels)
        else:
            notes_now, attachments_now, checked = self._look_at(rels)

        added: list[str] = []
        removed: list[str] = []
        changed: list[str] = []
        att_added = [p for p in attachments_now if p not in self._attachments]
        att_removed = [p for p in checked if p in self._attachments and p not in attachments_now]
        new_records: dict[str, NoteRecord] = {}
        to_read = []
        for rel in sorted(checked):
            old = self._notes.get(rel)
            stamp = notes_now.get(rel)
            if stamp is None:
                if old is not None:
                    removed.append(rel)
                continue
            if old is not None and old.stamp == stamp and not force:
                continue  # unchanged file (an event from a read, or a touch): keep its parse
            to_read.append(rel)
        for rel, record, warning in read_many(self.root, to_read):
            old = self._notes.get(rel)
            if warning is not None:
                self._scan_warnings[warning.path] = warning
            if record is None:
                if old is not None:
                    removed.append(rel)
                continue
            new_records[rel] = record
            (changed if old is not None else added).append(rel)

        return self._apply_update(
            added,
            removed,
            changed,
            att_added,
            att_removed,
            new_records,
            attachments_now,
            dictionary_changed,
            len(to_read),
        )

    def _apply_update(
        self,
        added: list[str],
        removed: list[str],
        changed: list[str],
        att_added: list[str],
        att_removed: list[str],
        new_records: dict[str, NoteRecord],
        attachments_now: dict[str, FileStamp],
        dictionary_changed: bool,
        parsed: int,
    ) -> IndexDelta:
        """The part of an update that changes the maps."""
        renamed = find_renames(
            {rel: self._notes[rel] for rel in removed}, {rel: new_records[rel] for rel in added}
        )
        dependents = self._ensure_dependents()
        affected: set[str] = set(removed) | set(new_records)
        for key in {name_key(p) for p in (*added, *removed, *att_added, *att_removed)}:
            affected.update(dependents.get(key, ()))
        if dictionary_changed:
            affected.update(self._notes)
        before: dict[str, dict[str, int]] = {}
        for rel in affected:
            if rel in self._notes:
                before[rel] = self._out_edges.get(rel, {})
                self._unlink_source(rel)
        for rel in removed:
            self._link_count -= len(self._notes.pop(rel).link_kinds)
        for rel in att_removed:
            del self._attachments[rel]
        self._resolver.remove(removed)
        self._resolver.remove(att_removed)
        self._resolver.add(added)
        self._resolver.add(att_added)
        for rel, record in new_records.items():
            old = self._notes.get(rel)
            self._link_count += len(record.link_kinds) - (len(old.link_kinds) if old else 0)
        self._notes.update(new_records)
        self._attachments.update(attachments_now)
        edges_added: list[tuple[str, str]] = []
        edges_removed: list[tuple[str, str]] = []
        for rel in sorted(affected):
            old_out = before.get(rel, {})
            if rel in self._notes:
                self._link_source(rel)
            new_out = self._out_edges.get(rel, {})
            edges_added.extend((rel, n) for n in new_out if n not in old_out)
            edges_removed.extend((rel, n) for n in old_out if n not in new_out)
        return IndexDelta(
            tuple(sorted(added)),
            tuple(sorted(removed)),
            tuple(sorted(changed)),
            tuple(sorted(att_added)),
            tuple(sorted(att_removed)),
            tuple(edges_added),
            tuple(edges_removed),
            parsed,
            renamed,
            dictionary_changed,
        )

    def _look_at(
        self, rels: set[str]
    ) -> tuple[dict[str, FileStamp], dict[str, FileStamp], set[str]]:
        """What the given paths are now: notes and attachments with stamps, and every path
        to compare (a created folder brings its files, a deleted one its known contents)."""
        notes_now: dict[str, FileStamp] = {}
        attachments_now: dict[str, FileStamp] = {}
        checked: set[str] = set()
        folders_gone: list[str] = []
        walked: list[str] = []  # folders walked in this update, each with all it holds
        for rel in sorted(rels, key=len):  # a folder before what it holds
            self._scan_warnings.pop(rel, None)
            checked.add(rel)
            if rel in self._notes or rel in self._attachments:
                continue  # a known file: classified below
            if any(rel.startswith(folder + "/") for folder in walked):
                continue  # inside a folder walked already: its files are counted
            full = self.root / rel
            if full.is_dir():
                if self.rules.ignored(rel, True):
                    continue
                walked.append(rel)
                walk = walk_vault(self.root, self.rules, start=rel)
                notes_now.update(walk.notes)
                attachments_now.update(walk.attachments)
                checked.update(walk.notes)
                checked.update(walk.attachments)
                self._scan_warnings.update({w.path: w for w in walk.warnings})
                folders_gone.append(rel)  # files of it that the walk no longer finds
            elif not full.exists():
                folders_gone.append(rel)
        if folders_gone:
            prefixes = tuple(f + "/" for f in folders_gone)
            checked.update(p for p in self._notes if p.startswith(prefixes))
            checked.update(p for p in self._attachments if p.startswith(prefixes))
        for rel in checked:
            if rel in notes_now or rel in attachments_now:
                continue
            single = classify_file(self.root, self.rules, rel)
            if isinstance(single, ScanWarning):
                self._scan_warnings[single.path] = single
            elif single is not None:
                kind, stamp = single
                (notes_now if kind == "note" else attachments_now)[rel] = stamp
        return notes_now, attachments_now, checked

    def _full_rescan_delta(self) -> IndexDelta:
        old_notes = {p: r.stamp for p, r in self._notes.items()}
        old_att = set(self._attachments)
        old_edges = {(s, t) for s, out in self._out_edges.items() for t in out}
        self.rules = IgnoreRules(self.root, self.excluded)
        self.rescan()
        new_edges = {(s, t) for s, out in self._out_edges.items() for t in out}
        return IndexDelta(
            tuple(sorted(set(self._notes) - set(old_notes))),
            tuple(sorted(set(old_notes) - set(self._notes))),
            tuple(
                sorted(
                    p for p, r in self._notes.items() if p in old_notes and old_notes[p] != r.stamp
                )
            ),
            tuple(sorted(set(self._attachments) - old_att)),
            tuple(sorted(old_att - set(self._attachments))),
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
