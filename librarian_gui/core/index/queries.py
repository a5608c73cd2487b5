"""Questions every view and the command line ask of the index: backlinks, neighbours, …"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from ..concepts.dictionary import Concept
from ..parse.records import Link, NoteRecord
from ..vault.files import read_note
from .resolver import CONCEPT_PREFIX, UNRESOLVED_PREFIX, pick_file, pick_spelling
from .snapshot import IndexView

# The index note (DESIGN §6) links everything: left out of co-occurrence, isolation and
# tagging unless the user includes it (DESIGN §4).
INDEX_NOTE = "MEMORY.md"


def is_index_note(rel: str) -> bool:
    return len(rel) == len(INDEX_NOTE) and rel.lower() == INDEX_NOTE.lower()


# Names a person gives a vault's front page, in the order one is preferred to another:
# after the index note itself and a note named like the vault's folder (a folder note).
HOME_NAMES = ("home", "index", "start here", "start-here", "welcome", "readme", "contents")


def home_note(index: IndexView, *, named_only: bool = False) -> str | None:
    """The note a person would call the vault's home, to open first: the index note
    (``MEMORY.md``); else a note named like a front page — the vault folder's own name,
    then ``HOME_NAMES`` in order — the shallowest first; else the note most notes link
    to; else the first note by path. None for a vault without notes, and with
    ``named_only`` when no note is the index note or named like a front page (the index
    note's health then looks for ``MEMORY.md``, which a fix creates)."""
    index = index.snapshot()
    notes = list(index.notes)
    if not notes:
        return None
    for rel in notes:
        if is_index_note(rel):
            return rel
    names = (index.root.name.casefold(), *HOME_NAMES)
    rank = {name: i for i, name in reversed(list(enumerate(names)))}
    named = []
    for rel in notes:
        stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0].casefold()
        if stem in rank:
            named.append((rel.count("/"), rank[stem], rel))
    if named:
        return min(named)[2]
    if named_only:
        return None
    linked = [
        (-sum(1 for source in sources if source != rel), rel)
        for rel, sources in index.in_edges.items()
        if rel in index.notes
    ]
    best = min(linked, default=None)
    if best is not None and best[0] < 0:
        return best[1]
    return min(notes)


class NoteNotFound(LookupError):
    """No note matches the name; ``hint`` says what does exist under it, if anything."""

    def __init__(self, name: str, hint: str = "") -> None:
        super().__init__(f"no note named {name!r}" + (f" ({hint})" if hint else ""))
        self.name = name


class AmbiguousNote(LookupError):
    def __init__(self, name: str, candidates: list[str]) -> None:
        listing = ", ".join(candidates)
        super().__init__(f"{name!r} matches {len(candidates)} notes: {listing}")
        self.name = name
        self.candidates = candidates


class HasNotes(Protocol):
    """The index, or a snapshot of the part of it a question needs."""

    @property
    def notes(self) -> Mapping[str, NoteRecord]: ...


def node_kind(index: HasNotes, node: str) -> str:
    if node.startswith(CONCEPT_PREFIX):
        return "concept"
    if node.startswith(UNRESOLVED_PREFIX):
        return "unresolved"
    return "note" if node in index.notes else "attachment"


def node_label(index: HasNotes, node: str) -> str:
    """What a person calls the node: a note's title, a concept's id, a ghost's target."""
    if node.startswith(CONCEPT_PREFIX):
        return node[len(CONCEPT_PREFIX) :]
    if node.startswith(UNRESOLVED_PREFIX):
        return node[len(UNRESOLVED_PREFIX) :]
    if node in index.notes:
        return index.notes[node].title
    return node.rsplit("/", 1)[-1]


def find_note(index: IndexView, name: str) -> str:
    """Resolve a NOTE argument like a link (title or path, with or without ``.md``), but
    refuse to guess: several candidates raise ``AmbiguousNote``. A concept's node id
    (``//concept/rag``, as the JSON output names it) names the concept."""
    stripped = name.strip()
    if stripped.startswith(CONCEPT_PREFIX):  # a concept's id as the JSON output names it
        concept = index.concepts.get(stripped[len(CONCEPT_PREFIX) :])
        if concept is not None:
            return CONCEPT_PREFIX + concept.id
        raise NoteNotFound(name, "no concept of the dictionary has this id")
    text = stripped.replace("\\", "/").lstrip("/")
    if text.startswith("./"):
        text = text[2:]
    paths = _note_paths(index, text)
    if len(paths) == 1:  # spelled so, or the only one spelled so up to case
        return paths[0]
    if len(paths) > 1:  # several spelled so up to case (Linux): which one is a guess
        raise AmbiguousNote(name, sorted(paths))
    candidates = index.resolver.candidates(text)
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise AmbiguousNote(name, sorted(candidates))
    node = index.resolver.resolve_name(text)
    if node.startswith(CONCEPT_PREFIX):
        return node
    hint = ""
    if node.startswith(UNRESOLVED_PREFIX) and node in index.in_edges:
        count = len(index.in_edges[node])
        verb = "note links" if count == 1 else "notes link"
        hint = f"{count} {verb} to it as an unresolved target"
    raise NoteNotFound(name, hint)


def _note_paths(index: IndexView, text: str) -> list[str]:
    """The notes whose vault path is ``text`` (``.md`` optional), as the resolver finds
    paths; an attachment spelled exactly so does not hide a note spelled so up to case."""
    note = text if text.lower().endswith(".md") else text + ".md"
    return [p for p in index.resolver.path_matches(note) if p in index.notes]


@dataclass(frozen=True, slots=True)
class Backlink:
    source: str
    link: Link
    context: str  # the line of the source note that holds the link, stripped


def _lines_of(index: IndexView, rel: str) -> list[str]:
    result = read_note(index.root, rel)
    if result.text is None:
        return []
    return [line.rstrip("\r") for line in result.text.split("\n")]


def backlinks(index: IndexView, node: str) -> list[Backlink]:
    """Every link into ``node`` from another note, in source order, with its line."""
    out: list[Backlink] = []
    for source in backlink_sources(index, node):
        out += backlinks_from(index, node, source)
    return out


def backlink_sources(index: IndexView, node: str) -> list[str]:
    """The other notes linking to ``node``, in the order ``backlinks`` lists them; each
    with ``index.in_edges[node][source]`` links to it."""
    notes = index.notes
    return [s for s in sorted(index.in_edges.get(node, {})) if s != node and s in notes]


def backlinks_from(index: IndexView, node: str, source: str) -> list[Backlink]:
    """The links of ``source`` into ``node``, in order, with their lines."""
    lines = _lines_of(index, source)
    return [
        Backlink(source, link, lines[link.line - 1].strip() if link.line <= len(lines) else "")
        for link, target in index.links_of(source)
        if target == node
    ]


def outgoing(index: IndexView, rel: str) -> list[tuple[Link, str]]:
    return index.links_of(rel)


def neighbours(index: IndexView, node: str, depth: int) -> dict[str, int]:
    """Nodes within ``depth`` hops of ``node`` (links followed both ways), with distance."""
    if not 1 <= depth <= 3:
        raise ValueError("depth must be 1, 2 or 3")
    seen = {node: 0}
    queue = deque([node])
    while queue:
        current = queue.popleft()
        distance = seen[current]
        if distance == depth:
            continue
        for other in (*index.out_edges.get(current, {}), *index.in_edges.get(current, {})):
            if other not in seen:
                seen[other] = distance + 1
                queue.append(other)
    del seen[node]
    return seen


@dataclass(frozen=True, slots=True)
class UnresolvedTarget:
    node: str
    target: str  # as first written by a linking note
    count: int  # link occurrences
    sources: tuple[tuple[str, int], ...]  # (note, occurrences), most first


def unresolved(index: IndexView) -> list[UnresolvedTarget]:
    """Targets that resolve to no file and no concept, most-linked first."""
    ghosts = {n: s for n, s in index.in_edges.items() if n.startswith(UNRESOLVED_PREFIX)}
    # One pass over each linking note, by name: a target keeps the spelling of the first
    # note that links it (walking a note's links once per target was quadratic in them).
    # An unresolved link's target is never empty: an empty one is a link to its own note.
    written: dict[str, str] = {}
    for source in sorted({s for sources in ghosts.values() for s in sources}):
        for link, node in index.links_of(source):
            if node in ghosts and node not in written:
                written[node] = link.target
    out = []
    for node, sources in ghosts.items():
        ranked = tuple(sorted(sources.items(), key=lambda kv: (-kv[1], kv[0])))
        out.append(UnresolvedTarget(node, written.get(node, ""), sum(sources.values()), ranked))
    return sorted(out, key=lambda u: (-u.count, u.node))


def degree(index: IndexView, node: str) -> tuple[int, int]:
    """(incoming, outgoing) distinct edges, self-links excluded."""
    incoming = sum(1 for s in index.in_edges.get(node, {}) if s != node)
    outgoing_ = sum(1 for t in index.out_edges.get(node, {}) if t != node)
    return incoming, outgoing_


@dataclass(frozen=True, slots=True)
class OutgoingLink:
    node: str
    label: str
    kind: str  # "note", "attachment", "concept", "unresolved"
    count: int  # link occurrences


def outgoing_summary(index: IndexView, rel: str) -> list[OutgoingLink]:
    """Where a note links to, one row per target, with how often (self-links left out)."""
    return [
        OutgoingLink(node, node_label(index, node), node_kind(index, node), count)
        for node, count in index.out_edges.get(rel, {}).items()
        if node != rel
    ]


def concept_page_path(index: IndexView, concept_id: str) -> str | None:
    """The path of the note that *is* a concept (DESIGN §2: one node, not two): found like
    a link to the concept's id, without touching the resolver's memo."""
    if not index.resolver.names_a_file(concept_id):  # most aliases: no file of that name
        return None
    paths = _note_paths(index, concept_id)
    if paths:
        return pick_spelling(paths, concept_id)
    pages = [p for p in index.resolver.candidates(concept_id) if p in index.notes]
    return pick_file(pages, "", concept_id) if pages else None


def concept_note(index: IndexView, concept: Concept) -> str | None:
    """The note that *is* ``concept`` (DESIGN §2): the one its ``note`` key names (a vault
    path, ``.md`` optional), else the one whose title or vault path equals its id, else one
    of its aliases, in that order (read from a snapshot). A ``note`` naming no note is passed
    over (``concepts check`` reports it)."""
    if concept.note.strip():
        path = named_note(index, concept.note)
        if path is not None:
            return path
    for name in (concept.id, *concept.aliases):
        if name.strip():
            path = concept_page_path(index, name)
            if path is not None:
                return path
    return None


def named_note(index: IndexView, path: str) -> str | None:
    """The note at vault path ``path`` (``.md`` optional, case as the resolver allows)."""
    text = path.strip().replace("\\", "/").lstrip("/")
    paths = _note_paths(index, text)
    return pick_spelling(paths, text) if paths else None


def concept_notes(index: IndexView) -> Mapping[str, str]:
    """Concept id → its note (see ``concept_note``); a note is the page of one concept only,
    the first in file order that claims it (read from a snapshot, and kept with it: one
    command asked it three times, 1 s each at 90,000 concepts)."""
    snapshot = index.snapshot()

    def make() -> Mapping[str, str]:
        notes: dict[str, str] = {}
        claimed: set[str] = set()
        for concept in snapshot.concepts.concepts:
            note = concept_note(snapshot, concept)
            if note is not None and note not in claimed:
                claimed.add(note)
                notes[concept.id] = note
        return MappingProxyType(notes)

    return snapshot.kept("concept_notes", make)


def concept_pages(index: IndexView) -> dict[str, Concept]:
    """Note path → the concept it is the page of (see ``concept_notes``)."""
    by_id = {concept.id: concept for concept in index.concepts.concepts}
    return {note: by_id[cid] for cid, note in concept_notes(index).items()}
