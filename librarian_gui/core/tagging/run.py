"""A tagging run over a vault: plan it (per note, what would change), apply the accepted
mentions through the write journal, undo the last run (DESIGN §3, §9)."""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..concepts.dictionary import Concept
from ..index.queries import INDEX_NOTE, concept_notes
from ..index.snapshot import IndexView
from ..insight.cooccurrence import found_in
from ..parse.parser import mask_note
from ..writing.journal import Edit, Journal, JournalEntry, JournalError, UndoResult
from ..writing.lock import WAIT, vault_lock
from ..writing.safewrite import Snapshot, WriteRefused, encode_like, read_snapshot
from .matching import (
    AliasMatcher,
    Occurrence,
    apply_occurrences,
    find_occurrences,
    occurrences_at,
    with_front_matter_links,
)

if TYPE_CHECKING:
    from .batch import BatchMatcher, Spans

PLAN_GROUP = 400  # notes read and matched together on one thread
RUN_PREFIX = "Tag concepts"  # every tagging entry's description starts with it


class NotePlan:
    """What one note would become. ``occurrences`` are in text order; a run applies the
    accepted ones (by their position in this tuple).

    A vault-wide plan holds each note's mentions as offsets (``spans``: starts, ends and
    concept indexes into ``concept_ids``); the ``Occurrence`` objects, with their lines and
    links, are made when first asked for: a dry run finds millions, a person reads a few."""

    __slots__ = ("_concepts", "_ids", "_occurrences", "_spans", "rel", "snapshot")

    def __init__(
        self,
        rel: str,
        snapshot: Snapshot,
        occurrences: tuple[Occurrence, ...] | None = None,
        *,
        spans: Spans | None = None,
        concept_ids: Sequence[str] = (),
    ) -> None:
        self.rel = rel
        self.snapshot = snapshot
        self._occurrences = occurrences
        self._spans = spans
        self._ids = concept_ids
        self._concepts: tuple[str, ...] | None = None
        if occurrences is None and spans is None:
            raise ValueError("a note plan needs its occurrences or their spans")

    @property
    def occurrences(self) -> tuple[Occurrence, ...]:
        if self._occurrences is None:
            assert self._spans is not None
            text = self.snapshot.text
            starts, ends, concepts = self._spans
            ids = self._ids
            named = [ids[c] for c in concepts.tolist()]
            chosen = zip(starts.tolist(), ends.tolist(), named, strict=True)
            self._occurrences = tuple(occurrences_at(text, mask_note(text), chosen))
        return self._occurrences

    @property
    def count(self) -> int:
        """How many occurrences (without making them)."""
        if self._occurrences is not None:
            return len(self._occurrences)
        assert self._spans is not None
        return len(self._spans[0])

    @property
    def concepts(self) -> tuple[str, ...]:
        """The concept id of each occurrence (without making them)."""
        if self._concepts is None:
            if self._occurrences is not None or self._spans is None:
                self._concepts = tuple(o.concept for o in self.occurrences)
            else:
                ids = self._ids
                self._concepts = tuple([ids[c] for c in self._spans[2].tolist()])
        return self._concepts

    def __repr__(self) -> str:
        return f"NotePlan({self.rel!r}, {self.count} occurrences)"

    def new_text(self, accepted: Collection[int] | None = None) -> str:
        chosen = (
            self.occurrences
            if accepted is None
            else [o for i, o in enumerate(self.occurrences) if i in accepted]
        )
        return apply_occurrences(self.snapshot.text, chosen)

    def diff(self, accepted: Collection[int] | None = None, context: int = 1) -> str:
        """A unified diff of the note (``a/`` and ``b/`` paths as git writes them)."""
        before = self.snapshot.text.splitlines(keepends=True)
        after = self.new_text(accepted).splitlines(keepends=True)
        lines = difflib.unified_diff(
            before, after, f"a/{self.rel}", f"b/{self.rel}", n=context, lineterm="\n"
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True, slots=True)
class TagPlan:
    """A previewed run: the notes that would change, and the notes that could not be read
    (with the reason)."""

    notes: tuple[NotePlan, ...]
    warnings: tuple[tuple[str, str], ...]
    scanned: int

    def counts(self) -> dict[str, int]:
        """Mentions to link per concept, most first, then by id."""
        counter: Counter[str] = Counter()
        bulk: dict[int, tuple[Sequence[str], list[Any]]] = {}  # spans, counted in numpy
        for note in self.notes:
            if note._occurrences is None and note._spans is not None:
                bulk.setdefault(id(note._ids), (note._ids, []))[1].append(note._spans[2])
            else:
                counter.update(note.concepts)
        if bulk:
            import numpy as np

            for ids, parts in bulk.values():
                per_id = np.bincount(np.concatenate(parts), minlength=len(ids)).tolist()
                counter.update({cid: n for cid, n in zip(ids, per_id, strict=True) if n})
        return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def total(self) -> int:
        return sum(n.count for n in self.notes)


def tag_candidates(
    rels: Iterable[str], *, index_note: str = INDEX_NOTE, include_index: bool = False
) -> list[str]:
    """The notes a run looks at: every note but the index note, unless it is included."""
    skip = index_note.lower()
    return sorted(r for r in rels if include_index or r.lower() != skip)


def batch_matcher(
    concepts: Sequence[Concept] | AliasMatcher | BatchMatcher,
    notes: Mapping[str, str] | None = None,
) -> BatchMatcher:
    """The dictionary split for planning many notes at once (one given is used as it is):
    build it once to plan with the same dictionary again and again. ``notes``: each
    concept's note (see ``AliasMatcher``), for a dictionary given as concepts."""
    from .batch import BatchMatcher  # numpy: not for the CLI's start-up

    if isinstance(concepts, BatchMatcher):
        return concepts
    if isinstance(concepts, AliasMatcher):
        return BatchMatcher(concepts)
    return BatchMatcher(AliasMatcher(concepts, notes))


def plan_tagging(
    root: Path,
    rels: Iterable[str],
    concepts: Sequence[Concept] | AliasMatcher | BatchMatcher,
    *,
    all_mentions: bool = False,
    only: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    pages: Mapping[str, str] | None = None,
) -> TagPlan:
    """Read each note and find what a run would link. Nothing is written. A note that
    cannot be edited (binary, not UTF-8, gone) is listed in ``warnings``. ``pages``: each
    concept's note (``queries.concept_notes``): a note linking it has the concept already.

    This thread reads the notes, group by group; two threads match what it read (numpy
    lets go of the GIL). ``progress(done, total)`` is called on this thread, and an
    exception it raises (a cancel) stops the run."""
    batch = batch_matcher(concepts, pages)
    ids = batch.ids
    rels = list(rels)

    def match(snapshots: list[Snapshot]) -> list[NotePlan]:
        found = batch.plan(
            [s.text for s in snapshots],
            [s.rel for s in snapshots],
            all_mentions=all_mentions,
            only=only,
        )
        return [
            NotePlan(snap.rel, snap, spans=spans, concept_ids=ids)
            for snap, spans in zip(snapshots, found, strict=True)
            if len(spans[0])
        ]

    notes: list[NotePlan] = []
    warnings: list[tuple[str, str]] = []
    # This thread reads (two readers only fight over the GIL between their system calls);
    # two threads match what it read, group by group.
    pool = ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1))
    pending: deque[tuple[int, Future[list[NotePlan]]]] = deque()

    done = 0

    def collect(wait: bool) -> None:
        nonlocal done
        while pending and (wait or pending[0][1].done()):
            size, future = pending.popleft()
            notes.extend(future.result())
            done += size
            if progress is not None:
                progress(done, len(rels))

    try:
        for at in range(0, len(rels), PLAN_GROUP):
            group = rels[at : at + PLAN_GROUP]
            snapshots = []
            for rel in group:
                try:
                    snapshots.append(read_snapshot(root, rel))
                except WriteRefused as exc:
                    warnings.append((rel, exc.reason))
            pending.append((len(group), pool.submit(match, snapshots)))
            collect(wait=len(pending) > 2)  # read at most two groups ahead
        collect(wait=True)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return TagPlan(tuple(notes), tuple(warnings), len(rels))


def apply_plan(
    root: Path,
    plan: TagPlan,
    accepted: Mapping[str, Collection[int]] | None = None,
    journal: Journal | None = None,
    progress: Callable[[int, int], None] | None = None,
    wait: float = WAIT,
) -> JournalEntry:
    """Write the accepted mentions (all of them when ``accepted`` is None; per note, the
    indexes of its accepted occurrences) as one journal entry. A note changed since the
    plan read it is skipped with the reason; the others are written."""
    edits = []
    linked = 0
    for note in plan.notes:
        chosen = None if accepted is None else accepted.get(note.rel, ())
        if chosen is not None and not chosen:
            continue
        after = encode_like(note.snapshot, note.new_text(chosen))
        edits.append(Edit(note.rel, note.snapshot, after))
        linked += len(note.occurrences) if chosen is None else len(chosen)
    journal = journal or Journal(root)
    description = f"{RUN_PREFIX}: {linked} mention{'s' * (linked != 1)} in {len(edits)} notes"
    return journal.apply(description, edits, progress, wait)


def undo_last_run(journal: Journal, wait: float = WAIT) -> UndoResult:
    """Undo the newest tagging run that is not undone yet; ``JournalError`` when there is
    none, or when a damaged entry is newer than it (it may be the run meant)."""
    if not journal.folder.exists():  # a vault never written: nothing to lock for
        raise JournalError("no tagging run to undo")
    with vault_lock(journal.root, wait, "Undo the last tagging run"):
        entry_id = journal.newest(
            lambda entry: entry.description.startswith(RUN_PREFIX), "tagging run"
        )
        return journal.undo(entry_id, wait)


def mentions_by_note(
    index: IndexView,
    matcher: AliasMatcher,
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[tuple[str, str, list[Occurrence]]]:
    """Each note that mentions one of the matcher's aliases where the tagger would link it
    (first mention per concept, not the concept a note is named after), in path order:
    (vault path, text without BOM, the mentions), from one snapshot of the index."""
    index = index.snapshot()
    rels = sorted(index.notes)
    for rel in rels:
        if cancelled():
            return
        text = read_text(rel)
        if not text:
            continue
        body = text.lstrip("\ufeff")
        found = find_occurrences(body, matcher, source=rel)
        if found:
            yield rel, body, found


def concept_usage(
    index: IndexView,
    concepts: Sequence[Concept],
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> tuple[dict[str, int], dict[str, int]]:
    """Per concept id: how many notes link it (or its note), and how many mention one of
    its aliases without a link (where the tagger would link it)."""
    ids = [c.id for c in concepts]
    if not ids:
        return {}, {}  # no concept: no note need be read
    index = index.snapshot()
    # A link to a concept's note is a link to the concept (DESIGN §2).
    found_notes = found_in(index, include_index=True)
    linked = {cid: len(found_notes.get(cid, ())) for cid in ids}
    return linked, mention_counts(index, concepts, read_text, cancelled)


def mention_counts(
    index: IndexView,
    concepts: Sequence[Concept],
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> dict[str, int]:
    """Per concept id, how many notes mention one of its aliases where the tagger would
    link it (not linking it or its note already). Reads every note, unless no concept is
    asked about."""
    ids = [c.id for c in concepts]
    if not ids:
        return {}
    index = index.snapshot()
    rels = sorted(index.notes)
    pages = concept_notes(index)
    mentioned = dict.fromkeys(ids, 0)
    batch = batch_matcher(concepts, pages)
    # First mentions only: each note names each concept it mentions once.
    found: list[Any] = []
    for at in range(0, len(rels), PLAN_GROUP):
        if cancelled():
            break
        texts, names = [], []
        for rel in rels[at : at + PLAN_GROUP]:
            text = read_text(rel)
            if text:
                texts.append(text.lstrip("\ufeff"))
                names.append(rel)
        found.extend(spans[2] for spans in batch.plan(texts, names))
    if found:
        import numpy as np

        per_index = np.bincount(np.concatenate(found), minlength=len(batch.ids)).tolist()
        for cid, count in zip(batch.ids, per_index, strict=True):
            mentioned[cid] += count
    return mentioned


def plan_relink(root: Path, rels: Iterable[str], old: str, new: str) -> TagPlan:
    """The rewrite of every ``[[old]]``, ``[[old|text]]``, ``[[old#h]]`` and ``![[old]]``
    link (any case, not in code or comments) into a link to ``new``, after a concept was
    renamed or merged. Only the target changes; the labels stay. Links in the front
    matter's properties are rewritten too (as Obsidian does), not in its YAML comments."""
    pattern = re.compile(r"(?<=\[\[)" + re.escape(old) + r"(?=\s*(?:\]\]|\||\\\||#))", re.I)
    notes: list[NotePlan] = []
    warnings: list[tuple[str, str]] = []
    rels = list(rels)
    for rel in rels:
        try:
            snapshot = read_snapshot(root, rel)
        except WriteRefused as exc:
            warnings.append((rel, exc.reason))
            continue
        text = snapshot.text
        if "[[" not in text:
            continue
        masked = with_front_matter_links(text, mask_note(text))
        found = []
        for m in pattern.finditer(masked):
            line_start = text.rfind("\n", 0, m.start()) + 1
            found.append(
                Occurrence(
                    new,
                    m.start(),
                    m.end(),
                    text[m.start() : m.end()],
                    new,
                    text.count("\n", 0, m.start()) + 1,
                    m.start() - line_start,
                )
            )
        if found:
            notes.append(NotePlan(rel, snapshot, tuple(found)))
    return TagPlan(tuple(notes), tuple(warnings), len(rels))
