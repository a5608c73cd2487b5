"""The Thin spots pane: notes like no other note (no related note at the threshold), orphan
notes and isolated concepts, three groups with their counts, each row a click away."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ...core.insight.isolation import MAX_NOTES
from ...core.vault.urls import shown_path
from ..items import path_data, path_of_data, tree_rows
from ..when_shown import FillWhenShown

if TYPE_CHECKING:
    from ...core.insight.isolation import IsolatedConcept
    from ...core.insight.thin_spots import ThinSpots

KIND_ROLE = Qt.ItemDataRole.UserRole + 1  # "note" or "concept"
TARGET_ROLE = Qt.ItemDataRole.UserRole + 2  # the note's path (path_data) or the concept's id
MAX_SHOWN = 500  # rows per group; the count says how many there are
UNRELATED, ORPHANS, ISOLATED = range(3)


def _title(rel: str) -> str:
    return shown_path(rel.rsplit("/", 1)[-1].removesuffix(".md"))


class ThinSpotsPane(QWidget):
    """Three groups — "No related note", "Orphans", "Isolated concepts" — with counts.

    Signals:
        note_opened(str): a note's row was clicked (its vault path; sent as an object, since
            a str signal drops the lone surrogates of a name that is not UTF-8).
        concept_opened(str): a concept's row was clicked (its id).
    """

    note_opened = Signal(object)
    concept_opened = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spots: ThinSpots | None = None
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setContentsMargins(4, 4, 4, 2)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.intro)
        layout.addWidget(self.tree, 1)
        self.tree.itemClicked.connect(self._on_tree_item_clicked)
        self.tree.itemActivated.connect(self._on_tree_item_clicked)
        self._when_shown = FillWhenShown(self, self._fill)
        self._fill()

    def show_spots(self, spots: ThinSpots) -> None:
        """Show ``spots``, laid out once the pane is in sight."""
        self.spots = spots
        self._when_shown.changed()

    def group(self, which: int) -> QTreeWidgetItem:
        """The top-level row of a group (UNRELATED, ORPHANS, ISOLATED), as last shown."""
        self._when_shown.now()
        return self.tree.topLevelItem(which)

    def rows(self, which: int) -> list[str]:
        """The note paths or concept ids a group lists, in order (tests)."""
        group = self.group(which)
        found = []
        for i in range(group.childCount()):
            target = group.child(i).data(0, TARGET_ROLE)
            kind = group.child(i).data(0, KIND_ROLE)
            if kind == "note":
                found.append(path_of_data(target))
            elif kind == "concept":
                found.append(str(target))
        return found

    # ------------------------------------------------------------ showing

    def _fill(self) -> None:
        spots = self.spots
        expanded = [
            self.tree.topLevelItem(i).isExpanded() if self.tree.topLevelItemCount() == 3 else True
            for i in range(3)
        ]
        self.tree.clear()
        heads = ["No related note", "Orphans", "Isolated concepts"]
        if spots is not None:
            unrelated = "…" if spots.unrelated is None else f"{len(spots.unrelated):,}"
            counts = (unrelated, f"{len(spots.orphans):,}", f"{len(spots.isolated):,}")
            heads = [f"{head}  ({count})" for head, count in zip(heads, counts, strict=True)]
        self.intro.setText(_intro(spots))
        groups = tree_rows(self.tree, None, [[head] for head in heads])
        bold = QFont(self.tree.font())
        bold.setBold(True)
        threshold = "the threshold" if spots is None else f"{spots.threshold:.2f}"
        n = MAX_NOTES if spots is None else spots.max_notes
        tips = (
            f"No other note is similar to it at {threshold} or more (the graph's Related "
            "slider): a topic the vault says little else about",
            "No note links it, and it links no note",
            f"Concepts found in at most {n} notes: link them where they are mentioned, or "
            "drop them",
        )
        for group, tip in zip(groups, tips, strict=True):
            group.setFont(0, bold)
            group.setToolTip(0, tip)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        if spots is None:
            self._message(groups[0], "Counting…")
        else:
            if spots.unrelated is None:
                self._message(groups[0], "Waiting for the related notes…")
            else:
                self._notes(groups[0], spots.unrelated, "Every note has a related note.")
            self._notes(groups[1], spots.orphans, "No orphans.")
            self._concepts(groups[2], spots.isolated)
        for group, wanted in zip(groups, expanded, strict=True):
            group.setExpanded(wanted)

    def _message(self, group: QTreeWidgetItem, text: str) -> None:
        item = tree_rows(self.tree, group, [[text]])[0]
        item.setFlags(Qt.ItemFlag.NoItemFlags)

    def _notes(self, group: QTreeWidgetItem, notes: tuple[str, ...], empty: str) -> None:
        if not notes:
            self._message(group, empty)
            return
        shown = notes[:MAX_SHOWN]
        for item, rel in zip(
            tree_rows(self.tree, group, [[_title(rel)] for rel in shown]), shown, strict=True
        ):
            item.setToolTip(0, shown_path(rel))
            item.setData(0, KIND_ROLE, "note")
            item.setData(0, TARGET_ROLE, path_data(rel))
        self._more(group, len(notes))

    def _concepts(self, group: QTreeWidgetItem, concepts: tuple[IsolatedConcept, ...]) -> None:
        if not concepts:
            self._message(group, "No isolated concepts.")
            return
        shown = concepts[:MAX_SHOWN]
        texts = [[f"{c.id}  ·  {_found_in(len(c.notes))}"] for c in shown]
        for item, concept in zip(tree_rows(self.tree, group, texts), shown, strict=True):
            tip = "\n".join(shown_path(rel) for rel in concept.notes)
            item.setToolTip(0, f"{concept.category}\n{tip}".strip() if concept.category else tip)
            item.setData(0, KIND_ROLE, "concept")
            item.setData(0, TARGET_ROLE, concept.id)
        self._more(group, len(concepts))

    def _more(self, group: QTreeWidgetItem, total: int) -> None:
        if total > MAX_SHOWN:
            self._message(group, f"… and {total - MAX_SHOWN:,} more")

    # ------------------------------------------------------------ clicks

    @Slot(QTreeWidgetItem, int)
    def _on_tree_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        kind = item.data(0, KIND_ROLE)
        target = item.data(0, TARGET_ROLE)
        if kind == "note":
            self.note_opened.emit(path_of_data(target))
        elif kind == "concept":
            self.concept_opened.emit(str(target))


def _intro(spots: ThinSpots | None) -> str:
    if spots is None:
        return "Where the vault is thin: counting…"
    n = spots.max_notes
    return (
        f"Notes like no other (similarity ≥ {spots.threshold:.2f}), notes without links, "
        f"concepts in ≤ {n} {'note' if n == 1 else 'notes'}. Click one to open it."
    )


def _found_in(count: int) -> str:
    if count == 0:
        return "linked nowhere"
    return "in 1 note" if count == 1 else f"in {count} notes"
