"""The left sidebar's concepts pane: a concept's colour as a swatch, and the offer to start
a dictionary when the vault has none."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from librarian_gui.core.index.summaries import ConceptLinks
from librarian_gui.ui.concepts.pane import ConceptsPane


def child(pane: ConceptsPane, concept: str) -> QTreeWidgetItem:
    tree = pane.tree
    for i in range(tree.topLevelItemCount()):
        head = tree.topLevelItem(i)
        for j in range(head.childCount()):
            if head.child(j).text(0) == concept:
                return head.child(j)
    raise AssertionError(concept)


def swatch_centre(pane: ConceptsPane, concept: str) -> str | None:
    icon = child(pane, concept).icon(0)
    image = icon.pixmap(icon.availableSizes()[0]).toImage()
    colour = QColor.fromRgba(image.pixel(6, 6))
    return colour.name() if colour.alpha() == 255 else None


def test_a_concepts_colour_is_a_swatch_beside_its_name_not_its_text_colour(
    qtbot: QtBot,
) -> None:
    pane = ConceptsPane()
    qtbot.addWidget(pane)
    pane.show_concepts(
        [
            ConceptLinks("prompt-injection", "security", 6, "#d64545"),
            ConceptLinks("sandboxing", "security", 3, ""),
        ]
    )
    assert pane.categories() == [("security  (2)", 2)]
    assert swatch_centre(pane, "prompt-injection") == "#d64545"
    assert swatch_centre(pane, "sandboxing") is None  # an empty slot keeps the names aligned
    red = child(pane, "prompt-injection")
    assert red.foreground(0).color() == child(pane, "sandboxing").foreground(0).color()
    assert red.data(0, Qt.ItemDataRole.ForegroundRole) is None  # no colour of its own


def test_no_swatch_slot_when_no_concept_has_a_colour(qtbot: QtBot) -> None:
    pane = ConceptsPane()
    qtbot.addWidget(pane)
    pane.show_concepts([ConceptLinks("rag", "retrieval", 2)])
    assert child(pane, "rag").icon(0).isNull()


def test_a_vault_without_concepts_is_offered_to_start_a_dictionary(qtbot: QtBot) -> None:
    pane = ConceptsPane()
    qtbot.addWidget(pane)
    pane.show()
    pane.show_concepts([])
    assert pane.empty.isVisible() and not pane.tree.isVisible()
    assert pane.empty_label.text() == (
        "No concepts yet: this vault has no concept dictionary, or an empty one."
    )
    with qtbot.waitSignal(pane.dictionary_requested):
        pane.start_button.click()
    pane.show_concepts([ConceptLinks("rag", "retrieval", 2)])
    assert pane.tree.isVisible() and not pane.empty.isVisible()
    pane.show_concepts([], error="concepts.json: line 1, column 2: expected a name")
    assert pane.tree.isVisible()  # the error is the tree's one row
    assert pane.tree.topLevelItem(0).text(0) == "concepts.json: line 1, column 2: expected a name"
