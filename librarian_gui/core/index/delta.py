"""What an incremental update changed, and which of its removed and added notes are renames."""

from __future__ import annotations

from dataclasses import dataclass

from ..parse.records import NoteRecord


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
    # (old path, new path) of notes that were moved: also listed as removed and added
    notes_renamed: tuple[tuple[str, str], ...] = ()
    # the concept dictionary was read again: concepts may have come, gone or changed even
    # where no edge did (an isolated concept, a new alias, a category)
    concepts_changed: bool = False

    @property
    def empty(self) -> bool:
        return not (
            self.concepts_changed
            or self.notes_added
            or self.notes_removed
            or self.notes_changed
            or self.attachments_added
            or self.attachments_removed
            or self.edges_added
            or self.edges_removed
        )


def find_renames(
    gone: dict[str, NoteRecord], new: dict[str, NoteRecord]
) -> tuple[tuple[str, str], ...]:
    """Pair notes that disappeared with notes that appeared in the same update: the same
    file (inode) of the same size, or, for a rename that wrote a new file (git, sync
    tools), the same size and the same parse (same links, headings, tags, in order)."""
    if not gone or not new:
        return ()
    by_inode = {(r.stamp.inode, r.stamp.size): rel for rel, r in new.items()}
    by_size: dict[int, list[str]] = {}
    for rel in sorted(new):
        by_size.setdefault(new[rel].stamp.size, []).append(rel)
    pairs: list[tuple[str, str]] = []
    taken: set[str] = set()
    for old_rel, old in sorted(gone.items()):
        match = by_inode.get((old.stamp.inode, old.stamp.size))
        if match is None or match in taken:
            same_size = by_size.get(old.stamp.size, ())
            match = next((r for r in same_size if r not in taken and new[r].blob == old.blob), None)
        if match is not None:
            taken.add(match)
            pairs.append((old_rel, match))
    return tuple(pairs)
