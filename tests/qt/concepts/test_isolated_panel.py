"""The Isolated panel: which concepts it lists for given counts (worked out by hand), in
which order, and what each action asks for."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.ui.concepts.isolated import IsolatedPanel

CONCEPTS = (
    Concept("alpha", ("alpha",), "x"),
    Concept("beta", ("beta",), "y"),
    Concept("gamma", ("gamma",), "x"),
    Concept("delta", ("delta",), "y"),
)
# alpha: found nowhere, mentioned nowhere; beta: found nowhere, mentioned in 3 notes;
# gamma: found in one note; delta: found in three.
FOUND = {
    "alpha": frozenset(),
    "beta": frozenset(),
    "gamma": frozenset({"n1.md"}),
    "delta": frozenset({"n1.md", "n2.md", "n3.md"}),
}
MENTIONED = {"alpha": 0, "beta": 3, "gamma": 1, "delta": 0}


def _rows(table: QTableWidget) -> list[tuple[str, ...]]:
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()))
        for r in range(table.rowCount())
    ]


def _panel(qtbot: QtBot) -> IsolatedPanel:
    panel = IsolatedPanel()
    qtbot.addWidget(panel)
    panel.set_concepts(CONCEPTS)
    return panel


def test_it_says_counting_until_the_counts_come(qtbot: QtBot) -> None:
    panel = _panel(qtbot)
    assert panel.status.text() == "Counting the notes each concept is found in…"
    assert panel.table.rowCount() == 0
    panel.set_found(FOUND, MENTIONED)
    assert panel.status.text() == (
        "3 of 4 concepts: 2 never linked (1 of them mentioned, which Tag now links), 1 in 1 "
        "to 2 notes. The index note is left out; least found first."
    )
    panel.max_notes.setValue(0)
    assert panel.status.text() == (
        "2 of 4 concepts never linked (1 of them mentioned, which Tag now links). The index "
        "note is left out."
    )


def test_least_found_first_then_the_most_mentioned(qtbot: QtBot) -> None:
    panel = _panel(qtbot)
    panel.set_found(FOUND, MENTIONED)
    assert _rows(panel.table) == [
        ("beta", "y", "mentioned, never linked", "0", "3", ""),
        ("alpha", "x", "never linked", "0", "0", ""),
        ("gamma", "x", "rarely linked", "1", "1", "n1"),
    ]
    panel.max_notes.setValue(3)
    assert [r[0] for r in _rows(panel.table)] == ["beta", "alpha", "gamma", "delta"]
    panel.max_notes.setValue(0)
    assert [r[0] for r in _rows(panel.table)] == ["beta", "alpha"]
    # A concept deleted in the editor leaves the list at once.
    panel.set_concepts(CONCEPTS[1:])
    assert [r[0] for r in _rows(panel.table)] == ["beta"]


def test_each_action_names_the_selected_concept(qtbot: QtBot) -> None:
    panel = _panel(qtbot)
    panel.set_found(FOUND, MENTIONED)
    buttons = (panel.tag_button, panel.alias_button, panel.merge_button, panel.delete_button)
    assert [b.isEnabled() for b in buttons] == [False] * 4  # nothing selected
    panel.table.selectRow(1)  # alpha: nothing to tag
    assert [b.isEnabled() for b in buttons] == [False, True, True, True]
    panel.table.selectRow(0)  # beta
    assert [b.isEnabled() for b in buttons] == [True, True, True, True]
    asked: list[object] = []
    panel.ask_text = lambda title, prompt: asked.append((title, prompt)) or "  Beta thing "
    panel.ask_item = lambda title, prompt, items: asked.append((title, items)) or "delta"
    with qtbot.waitSignal(panel.tag_requested) as tag:
        panel.tag_button.click()
    with qtbot.waitSignal(panel.add_alias_requested) as alias:
        panel.alias_button.click()
    with qtbot.waitSignal(panel.merge_requested) as merge:
        panel.merge_button.click()
    with qtbot.waitSignal(panel.delete_requested) as delete:
        panel.delete_button.click()
    assert tag.args == ["beta"]
    assert alias.args == ["beta", "Beta thing"]
    assert merge.args == ["beta", "delta"]
    assert delete.args == ["beta"]
    assert asked == [
        ("Add alias", 'Another name for "beta":'),
        ("Merge into", ["alpha", "delta", "gamma"]),
    ]
    # Cancelled: nothing asked for.
    panel.ask_text = lambda title, prompt: None
    with qtbot.assertNotEmitted(panel.add_alias_requested):
        panel.alias_button.click()
