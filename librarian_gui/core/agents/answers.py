"""The answers of the index's queries as data, shaped as the command line's ``--json`` prints
them: shared by ``librarian`` and the MCP server's tools."""

from __future__ import annotations

import datetime as _dt
import threading
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..index.queries import (
    AmbiguousNote,
    Backlink,
    NoteNotFound,
    backlink_sources,
    backlinks,
    backlinks_from,
    find_note,
    node_kind,
    node_label,
)
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexIdentity, IndexView

if TYPE_CHECKING:
    from ..related.vault import RelatedIndex, RelatedNote
    from ..search.switcher import SwitcherIndex

ReadText = Callable[[str], str | None]
CLOSEST = 5  # notes named in an "unknown note" message
FUZZY_CUTOFF = 60  # rapidfuzz's ratio: "bta" for "beta" scores 86, "alpha" for "beta" 22


class UnknownNote(LookupError):
    """A NOTE that names no note, or several: the message names the closest ones."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


def closest_notes(
    index: IndexView, name: str, limit: int = CLOSEST, *, keep: bool = True
) -> list[str]:
    """The notes whose title, alias or path comes closest to ``name`` (the switcher's
    matcher: exact, prefix, word, substring, then typos). ``keep``: keep what it matched
    against for the next unknown name while the vault's names stay the same (about 40 MB
    at 50,000 notes; a server asked about a mistyped note again and again keeps it)."""
    from rapidfuzz import fuzz, process

    index = index.snapshot()
    # A blank name lists the newest notes: the switcher's order of when it was built.
    names = _names_of(index) if keep and name.strip() else _Names.of(index)
    found: list[str] = []
    ranked = names.switcher.query(name, limit * 2)
    for candidate, _score in sorted(ranked, key=lambda hit: (-hit[1], hit[0].node)):
        if candidate.node in index.notes and candidate.node not in found:
            found.append(candidate.node)
    if len(found) < limit:  # the switcher allows no typo in a short name: edit distance does
        titles = names.titles
        for _title, score, rel in process.extract(
            name, titles, scorer=fuzz.ratio, limit=limit * 2, score_cutoff=FUZZY_CUTOFF
        ):
            if rel not in found and score >= FUZZY_CUTOFF:
                found.append(rel)
    return found[:limit]


@dataclass(frozen=True, slots=True)
class _Names:
    """What ``closest_notes`` matches a name against."""

    switcher: SwitcherIndex
    titles: dict[str, str]  # by path, so that notes scoring alike come in one order always

    @classmethod
    def of(cls, index: IndexView) -> _Names:
        from ..search.switcher import SwitcherIndex

        titles = {rel: index.notes[rel].title for rel in sorted(index.notes)}
        return cls(SwitcherIndex.build(index), titles)

    def hold(self, index: IndexView) -> bool:
        """Whether ``index`` has the names these were built from (``names_hold``)."""
        return self.switcher.names_hold(index)


# Each open index's names for ``closest_notes``: an unknown NOTE is a common mistake of an
# agent, and building the switcher for it took 1 s at 50,000 notes, each time.
_NAMES: weakref.WeakKeyDictionary[IndexIdentity, _Names] = weakref.WeakKeyDictionary()
_NAMES_LOCK = threading.Lock()


def _names_of(snapshot: IndexView) -> _Names:
    with _NAMES_LOCK:
        kept = _NAMES.get(snapshot.identity)
    if kept is not None and kept.hold(snapshot):
        return kept
    names = _Names.of(snapshot)
    with _NAMES_LOCK:
        _NAMES[snapshot.identity] = names
    return names


def note_node(index: IndexView, name: str, *, concepts: bool = True) -> str:
    """The node a NOTE argument names (a note's path; a concept's ``//concept/<id>`` when
    ``concepts``); ``UnknownNote`` naming the candidates or the closest notes."""
    try:
        node = find_note(index, name)
    except AmbiguousNote as exc:
        raise UnknownNote(
            f"{name!r} matches {len(exc.candidates)} notes: {', '.join(exc.candidates)}; "
            "give the path to choose one",
            exc.candidates,
        ) from None
    except NoteNotFound as exc:
        close = closest_notes(index, name)
        hint = f"; closest: {', '.join(close)}" if close else ""
        raise UnknownNote(f"{exc}{hint}", close) from None
    if node in index.notes or (concepts and node.startswith(CONCEPT_PREFIX)):
        return node
    raise UnknownNote(f"{name!r} is {node_kind(index, node)} {node}, not a note", [])


def backlink_rows(index: IndexView, node: str) -> list[dict[str, Any]]:
    return [_backlink_row(b) for b in backlinks(index, node)]


def _backlink_row(b: Backlink) -> dict[str, Any]:
    return {
        "note": b.source,
        "source": b.source,  # the old key, kept for one release (README)
        "line": b.link.line,
        "column": b.link.column,
        "kind": b.link.kind,
        "context": b.context,
    }


BacklinkPlace = tuple[str, int]  # (source, n): the source's n-th link into the note


def backlink_places(index: IndexView, node: str) -> list[BacklinkPlace]:
    """Where each row of ``backlink_rows`` comes from, in its order, found without reading
    a note: a page of them is rendered by ``BacklinkRender`` (a note linked from 7,600
    notes read them all, 1-2 s at 50,000 notes, for a page of a few hundred)."""
    sources = index.in_edges.get(node, {})
    return [(s, n) for s in backlink_sources(index, node) for n in range(sources[s])]


class BacklinkRender:
    """A row of ``backlink_rows`` from its place; each source is read once."""

    def __init__(self, index: IndexView, node: str) -> None:
        self._index = index
        self._node = node
        self._rows: dict[str, list[dict[str, Any]]] = {}

    def __call__(self, place: BacklinkPlace) -> dict[str, Any]:
        source, n = place
        rows = self._rows.get(source)
        if rows is None:
            found = backlinks_from(self._index, self._node, source)
            rows = self._rows[source] = [_backlink_row(b) for b in found]
        return rows[n]


def unlinked_rows(
    index: IndexView,
    rel: str,
    read: ReadText,
    sources: Callable[[tuple[str, ...]], Collection[str] | None] = lambda names: None,
) -> list[dict[str, Any]]:
    """Where ``rel``'s title or aliases are written in other notes without a link.
    ``sources(names)``: the notes that can hold one of the names (None: all of them)."""
    from ..backlinks.unlinked import mention_names, unlinked_mentions

    index = index.snapshot()
    among = sources(mention_names(index, rel))

    return [
        {
            "note": m.source,
            "source": m.source,  # the old key, kept for one release (README)
            "line": m.line,
            "column": m.column,
            "text": m.text,
            "context": m.context,
        }
        for m in unlinked_mentions(index, rel, read, among)
    ]


def link_rows(index: IndexView, rel: str) -> list[dict[str, Any]]:
    rows = []
    for link, target in index.links_of(rel):
        kind = node_kind(index, target)
        rows.append(
            {
                "kind": link.kind,
                "target": link.target,
                "fragment": link.fragment,
                "label": link.label,
                "line": link.line,
                "column": link.column,
                "node": target,
                "node_kind": kind,
                "resolved": kind != "unresolved",
            }
        )
    return rows


EDGE_KINDS = ("links_to", "linked_from", "related_to")
Adjacency = Mapping[str, Sequence[tuple[str, float]]]
Step = tuple[str, int, str, tuple[str, ...]]  # node, distance, via, edge kinds


def related_row(found: RelatedNote) -> dict[str, Any]:
    """One related note as ``librarian related --json`` and the MCP tool give it."""
    return {
        "note": found.note,
        "score": round(found.score, 4),
        "terms": list(found.terms),
        "concepts": list(found.concepts),
        "linked": found.linked,
        "passage": found.passage,
        "below_threshold": found.below_threshold,
    }


def related_adjacency(related: RelatedIndex) -> RelatedAdjacency:
    """Each note's RELATED_TO neighbours with their cosine, both ways (made once a pass)."""
    return RelatedAdjacency(related)


class RelatedAdjacency(Mapping[str, Sequence[tuple[str, float]]]):
    """Note → its RELATED_TO neighbours and their cosines, both ways, each note's in the
    order of the pass's pairs; held in arrays (a dict of lists of tuples was 20 MB in
    420,000 objects at 20,000 notes, kept for the server's life) and listed when asked."""

    def __init__(self, related: RelatedIndex) -> None:
        import numpy as np

        self._notes = related.notes
        # each pair both ways, in pair order: a → b, then b → a
        src = np.stack([related.a, related.b], axis=1).reshape(-1)
        dst = np.stack([related.b, related.a], axis=1).reshape(-1)
        order = np.argsort(src, kind="stable")
        self._dst = dst[order].astype(np.int32)
        self._scores = np.repeat(related.scores, 2)[order]
        counts = np.bincount(src, minlength=len(self._notes))
        self._ptr = np.concatenate([[0], np.cumsum(counts)])
        self._row = {rel: i for i, rel in enumerate(self._notes) if counts[i]}

    def __getitem__(self, rel: str) -> list[tuple[str, float]]:
        i = self._row[rel]
        lo, hi = int(self._ptr[i]), int(self._ptr[i + 1])
        notes = self._notes
        return [
            (notes[j], score)
            for j, score in zip(
                self._dst[lo:hi].tolist(), self._scores[lo:hi].tolist(), strict=True
            )
        ]

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


def neighbour_steps(
    index: IndexView,
    node: str,
    depth: int,
    related: Adjacency | None = None,
    threshold: float = 0.0,
) -> list[Step]:
    """Nodes within ``depth`` hops of ``node``, nearest first then by path: links followed
    both ways, and RELATED_TO edges at or above ``threshold`` when ``related`` (see
    ``related_adjacency``) is given. Each with how it is reached: ``via`` (the node one hop
    nearer; ``node`` itself at distance 1) and the kinds of edge between the two
    (``EDGE_KINDS``). Pass a snapshot (``index.snapshot()``)."""
    if not 1 <= depth <= 3:
        raise ValueError("depth must be 1, 2 or 3")
    notes, out_edges, in_edges = index.notes, index.out_edges, index.in_edges
    out: list[Step] = []
    done = {node}
    frontier = [node]
    for distance in range(1, depth + 1):
        reached: list[Step] = []
        for current in frontier:
            # the edges to nodes not reached yet, their kinds in EDGE_KINDS' order (a node
            # reached already is skipped before anything is made for it: at depth 2 most are)
            found: dict[str, list[str]] = {}
            for other in out_edges.get(current, ()):
                if other not in done:
                    found[other] = ["links_to"]
            for other in in_edges.get(current, ()):
                if other not in done:
                    kinds = found.get(other)
                    if kinds is None:
                        found[other] = ["linked_from"]
                    else:
                        kinds.append("linked_from")
            if related is not None and current in notes:
                for other, score in related.get(current, ()):
                    if score >= threshold and other not in done:
                        found.setdefault(other, []).append("related_to")
            done.update(found)
            reached += [(other, distance, current, tuple(kinds)) for other, kinds in found.items()]
        reached.sort()
        out += reached
        frontier = [step[0] for step in reached]
    return out


def neighbour_row(index: IndexView, step: Step) -> dict[str, Any]:
    other, distance, via, kinds = step
    return {
        "note": other,
        "node": other,  # the old key, kept for one release (README)
        "kind": node_kind(index, other),
        "label": node_label(index, other),
        "distance": distance,
        "via": via,
        "edges": list(kinds),
    }


def recent_rows(index: IndexView, since: _dt.datetime, limit: int) -> list[dict[str, Any]]:
    """Notes whose file changed at or after ``since`` (aware), newest first."""
    floor = int(since.timestamp() * 1_000_000_000)
    found = sorted(
        (
            (record.stamp.mtime_ns, rel)
            for rel, record in index.notes.items()
            if record.stamp.mtime_ns >= floor
        ),
        reverse=True,
    )
    rows = []
    for mtime_ns, rel in found[:limit]:
        record = index.notes[rel]
        changed = _dt.datetime.fromtimestamp(mtime_ns / 1e9, _dt.UTC)
        rows.append(
            {
                "note": rel,
                "title": record.title,
                "modified": changed.isoformat(timespec="seconds"),
                "date": record.date.isoformat(),
                "dated_by": record.date_source,
            }
        )
    return rows


def concept_answer(
    index: IndexView, name: str, read: ReadText, *, most: int = 10
) -> dict[str, Any]:
    """A concept (its id, an alias, or its note's name): aliases, category, the notes it is
    found in (linked) and mentioned in without a link, the concepts sharing most notes
    with it (``most``), and its first and last dated mention."""
    from ..insight.cooccurrence import cooccurring, counted_notes, found_in
    from ..insight.timeline import concept_mentions

    concept = _concept_named(index, name)
    index = index.snapshot()
    found = found_in(index)
    total = counted_notes(index)
    pairs = cooccurring(found, concept.id, total)[:most]
    mentions = concept_mentions(index, [concept.id], read)
    dated = [m for m in mentions if not m.by_file_time]
    first = min(dated, key=lambda m: (m.date, m.note), default=None)
    last = max(dated, key=lambda m: (m.date, m.note), default=None)

    def mention(m: Any) -> dict[str, Any] | None:
        if m is None:
            return None
        return {"note": m.note, "date": m.date.isoformat(), "line": m.line, "text": m.text}

    return {
        "concept": concept.id,
        "category": concept.category,
        "aliases": list(concept.aliases),
        "description": concept.description,
        "note": concept.note or None,
        "linked_in": sorted(found.get(concept.id, ())),
        "mentioned_unlinked_in": sorted({m.note for m in mentions if not m.linked}),
        "cooccurring": [
            {
                "concept": p.b,
                "count": p.count,
                "jaccard": round(p.jaccard, 4),
                "lift": round(p.lift, 4),
            }
            for p in pairs
        ],
        "first_mention": mention(first),
        "last_mention": mention(last),
    }


def _concept_named(index: IndexView, name: str) -> Any:
    """The concept ``name`` names: its id or an alias (any case), or ``//concept/<id>``."""
    from ..index.queries import concept_pages

    text = name.strip().removeprefix(CONCEPT_PREFIX)
    concept = index.concepts.get(text)
    if concept is not None:
        return concept
    low = text.casefold()
    for candidate in index.concepts.concepts:
        if low == candidate.id.casefold() or low in (a.casefold() for a in candidate.aliases):
            return candidate
    index = index.snapshot()
    pages = concept_pages(index)
    for rel, candidate in pages.items():
        if low in (
            rel.casefold(),
            rel.casefold().removesuffix(".md"),
            index.notes[rel].title.casefold(),
        ):
            return candidate
    known = sorted(c.id for c in index.concepts.concepts)
    from rapidfuzz import process

    close = [m[0] for m in process.extract(text, known, limit=CLOSEST)] if known else []
    hint = f"; closest: {', '.join(close)}" if close else "; the dictionary has no concepts"
    raise UnknownNote(f"no concept named {name!r}{hint}", close)


def note_section(
    index: IndexView,
    rel: str,
    text: str,
    heading: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
) -> tuple[dict[str, Any], str, int]:
    """What ``read_note`` sends, before paging: the answer's fields, the text asked for
    (the whole note, the section under ``heading`` down to the next heading of its level
    or above, or lines ``start_line``–``end_line``, 1-based and inclusive) and the number
    of its first line. ``LookupError`` names the headings when none matches."""
    record = index.notes[rel]
    lines = text.splitlines(keepends=True)
    first, last = 1, len(lines)
    section = None
    if heading is not None:
        wanted = heading.strip().lstrip("#").strip().casefold()
        headings = record.parsed.headings
        at = next((i for i, h in enumerate(headings) if h.text.casefold() == wanted), None)
        if at is None:
            known = "; ".join(h.text for h in headings) or "none"
            raise LookupError(f"{rel} has no heading {heading!r}; its headings: {known}")
        found = headings[at]
        after = [h.line for h in headings[at + 1 :] if h.level <= found.level]
        first, last = found.line, (after[0] - 1 if after else len(lines))
        section = found.text
    if start_line is not None or end_line is not None:
        # Said in the note's own terms: how long it (or the section) is, not an empty range.
        where = (
            f"{rel} has {len(lines)} lines"
            if section is None
            else f"the section {section!r} of {rel} is lines {first}–{last}"
        )
        if start_line is not None and end_line is not None and start_line > end_line:
            raise LookupError(f"start_line {start_line} is after end_line {end_line}")
        if start_line is not None and start_line > last:
            raise LookupError(f"{where}; start_line {start_line} is past its end")
        if end_line is not None and end_line < first:
            raise LookupError(f"{where}; end_line {end_line} is before it")
        first = max(first, start_line or 1)
        last = min(last, end_line or last)
    answer = {
        "note": rel,
        "title": record.title,
        "date": record.date.isoformat(),
        "total_lines": len(lines),
        "heading": section,
        "headings": [
            {"level": h.level, "text": h.text, "line": h.line} for h in record.parsed.headings
        ],
    }
    return answer, "".join(lines[first - 1 : last]), first


def isolated_answer(
    index: IndexView,
    read: ReadText,
    *,
    max_notes: int = 2,
    include_index: bool = False,
    use_cache: bool = True,
) -> dict[str, Any]:
    """Concepts found in at most ``max_notes`` notes: never linked, mentioned but never
    linked, or rare. Counting the unlinked mentions reads every note, so the counts are
    kept beside the index cache for the next question (``use_cache``)."""
    from ..index.queries import concept_notes, is_index_note
    from ..insight.cooccurrence import found_in
    from ..insight.isolation import isolated_concepts
    from ..tagging.mention_cache import load_counts, mention_key, save_counts
    from ..tagging.run import mention_counts

    index = index.snapshot()
    # Only the concepts found in few enough notes are listed: only their notes are read.
    found = found_in(index, include_index=include_index, at_most=max_notes)
    pages = concept_notes(index)
    concepts = index.concepts.concepts

    def counted(rel: str) -> str | None:
        return None if not include_index and is_index_note(rel) else read(rel)

    few = [c for c in concepts if c.id in found]
    key = mention_key(index, few, pages, include_index=include_index)
    mentioned = load_counts(index.root, key) if use_cache else None
    if mentioned is None:
        mentioned = mention_counts(index, few, counted)
        if use_cache:
            save_counts(index, key, mentioned)
    rows = isolated_concepts(few, found, mentioned, max_notes=max_notes)
    return {
        "max_notes": max_notes,
        "concepts": len(concepts),
        "isolated": [
            {
                "concept": r.id,
                "category": r.category,
                "status": r.status,
                "found_in": len(r.notes),
                "mentioned": r.mentioned,
                "notes": list(r.notes),
            }
            for r in rows
        ],
    }
