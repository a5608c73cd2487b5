"""Back/forward history of opened places (a note, with a line or heading)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Place:
    kind: str  # "note", "concept", "unresolved"
    node: str
    line: int | None = None
    fragment: str | None = None


class History:
    """A browser-like history: visiting after going back drops the forward entries."""

    def __init__(self, limit: int = 200) -> None:
        self._places: list[Place] = []
        self._at = -1
        self._limit = limit

    @property
    def current(self) -> Place | None:
        return self._places[self._at] if self._at >= 0 else None

    def visit(self, place: Place) -> None:
        current = self.current
        if current is not None and (current.kind, current.node) == (place.kind, place.node):
            self._places[self._at] = place
            return
        del self._places[self._at + 1 :]
        self._places.append(place)
        if len(self._places) > self._limit:
            del self._places[0]
        self._at = len(self._places) - 1

    def can_go_back(self) -> bool:
        return self._at > 0

    def can_go_forward(self) -> bool:
        return self._at < len(self._places) - 1

    def back(self) -> Place | None:
        if not self.can_go_back():
            return None
        self._at -= 1
        return self._places[self._at]

    def forward(self) -> Place | None:
        if not self.can_go_forward():
            return None
        self._at += 1
        return self._places[self._at]

    def rename(self, old: str, new: str) -> None:
        """A note was moved: every entry for it follows."""
        self._places = [
            Place(p.kind, new, p.line, p.fragment) if p.node == old else p for p in self._places
        ]

    def drop(self, node: str) -> None:
        """A note was deleted: forget it (the current entry stays, showing the notice)."""
        current = self.current
        kept = [p for p in self._places if p.node != node or p is current]
        self._at = kept.index(current) if current is not None else -1
        self._places = kept
