"""The concept editor tab: edits reach the file exactly, broken files are never written,
undo before saving, add / rename / delete / merge, external changes, lint marks."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QIcon
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from librarian_gui.ui.concepts.editor import ConceptEditor

pytestmark = pytest.mark.gui

LEFT = Qt.MouseButton.LeftButton
CTRL = Qt.KeyboardModifier.ControlModifier

TWO = (
    b'{\n  "alpha": {"aliases": ["alpha one", "first letter"], "category": "greek"},\n'
    b'  "beta": {\n    "aliases": ["beta two"],\n    "category": "greek"\n  }\n}\n'
)
BETA = b'  "beta": {\n    "aliases": ["beta two"],\n    "category": "greek"\n  }\n'


def open_editor(qtbot: QtBot, vault: Path, data: bytes | None) -> ConceptEditor:
    path = vault / "concepts.json"
    if data is not None:
        path.write_bytes(data)
    editor = ConceptEditor(vault, path)
    editor.confirm = lambda _title, _question: True
    qtbot.addWidget(editor)
    editor.resize(1100, 700)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def column(editor: ConceptEditor, number: int) -> list[str]:
    """The table's texts in one column, as shown (sorted and filtered)."""
    proxy = editor.proxy
    return [proxy.index(row, number).data() for row in range(proxy.rowCount())]


def pixel(icon: QIcon, x: int, y: int) -> str | None:
    """The colour of one pixel of a table icon (its natural size), None where transparent."""
    image = icon.pixmap(icon.availableSizes()[0]).toImage()
    colour = QColor.fromRgba(image.pixel(x, y))
    return colour.name() if colour.alpha() == 255 else None


def save(qtbot: QtBot, editor: ConceptEditor) -> None:
    with qtbot.waitSignal(editor.saved, timeout=5000):
        qtbot.mouseClick(editor.save_button, LEFT)


def test_an_alias_edited_in_place_is_saved_and_other_concepts_keep_their_bytes(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path, TWO)
    assert column(editor, 5) == ["alpha one · first letter", "beta two"]
    editor.select_concept("alpha")
    aliases = editor.detail.aliases
    assert editor.detail.alias_texts() == ["alpha one", "first letter"]
    with qtbot.waitSignal(editor.dirty_changed) as dirty:
        aliases.editItem(aliases.item(1))
        field = aliases.viewport().findChild(QLineEdit)
        field.selectAll()
        qtbot.keyClicks(field, "the first letter")
        qtbot.keyClick(field, Qt.Key.Key_Return)
    assert dirty.args == [True]
    assert column(editor, 5) == ["alpha one · the first letter", "beta two"]
    assert editor.save_button.isEnabled()
    save(qtbot, editor)
    assert (tmp_path / "concepts.json").read_bytes() == (
        b'{\n  "alpha": {\n    "aliases": ["alpha one", "the first letter"],\n'
        b'    "category": "greek"\n  },\n' + BETA + b"}\n"
    )
    assert not editor.dirty
    assert not editor.save_button.isEnabled()


def test_category_description_and_a_colour_typed_without_enter_are_saved_with_ctrl_s(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path, TWO)
    editor.select_concept("alpha")
    detail = editor.detail
    assert detail.category.currentText() == "greek"
    detail.category.setEditText("letters")
    detail.category_edit.editingFinished.emit()
    assert column(editor, 1) == ["letters", "greek"]
    detail.description.setPlainText("The first one.")
    document = editor.document
    assert document is not None
    assert "description" not in document.data["alpha"]
    # A pause in typing ends the description edit.
    qtbot.waitUntil(lambda: "description" in document.data["alpha"], timeout=3000)
    assert document.data["alpha"]["description"] == "The first one."
    detail.colour_edit.clear()
    qtbot.keyClicks(detail.colour_edit, "#12ab9f")
    with qtbot.waitSignal(editor.saved, timeout=5000):
        qtbot.keyClick(detail.colour_edit, Qt.Key.Key_S, CTRL)
    assert (tmp_path / "concepts.json").read_bytes() == (
        b'{\n  "alpha": {\n    "aliases": ["alpha one", "first letter"],\n'
        b'    "category": "letters",\n    "description": "The first one.",\n'
        b'    "color": "#12ab9f"\n  },\n' + BETA + b"}\n"
    )
    assert detail.colour_edit.text() == "#12ab9f"


def test_a_file_that_does_not_parse_shows_line_and_column_and_is_never_written(
    qtbot: QtBot, tmp_path: Path
) -> None:
    broken = b'{\n  "alpha": {"aliases": ["a one"]}\n  "beta": {"aliases": ["b two"]}\n}\n'
    editor = open_editor(qtbot, tmp_path, broken)
    assert editor.parse_banner.isVisible()
    assert "line 3, column 3" in editor.parse_banner.label.text()
    assert "expected &#x27;,&#x27; or &#x27;}&#x27; after a concept" not in (
        editor.parse_banner.label.text()
    )
    assert "expected ',' or '}' after a concept" in editor.parse_banner.label.text()
    assert editor.reload_button.isVisible()
    assert not editor.save_button.isEnabled()
    assert not editor.new_button.isEnabled()
    assert editor.model.rowCount() == 0
    qtbot.keyClick(editor.table, Qt.Key.Key_S, CTRL)
    assert editor.save() is False
    assert (tmp_path / "concepts.json").read_bytes() == broken
    (tmp_path / "concepts.json").write_bytes(TWO)
    qtbot.mouseClick(editor.reload_button, LEFT)
    assert not editor.parse_banner.isVisible()
    assert column(editor, 0) == ["alpha", "beta"]


def test_undo_and_redo_of_edits_before_saving(qtbot: QtBot, tmp_path: Path) -> None:
    editor = open_editor(qtbot, tmp_path, TWO)
    editor.select_concept("beta")
    editor.detail.new_alias.setText("second letter")
    qtbot.mouseClick(editor.detail.add_alias_button, LEFT)
    assert column(editor, 5) == ["alpha one · first letter", "beta two · second letter"]
    editor.select_concept("alpha")
    editor.detail.aliases.setCurrentRow(0)
    qtbot.mouseClick(editor.detail.remove_alias_button, LEFT)
    assert column(editor, 5) == ["first letter", "beta two · second letter"]
    assert editor.undo_button.isEnabled()
    with qtbot.waitSignal(editor.dirty_changed) as dirty:
        qtbot.keyClick(editor.table, Qt.Key.Key_Z, CTRL)
        assert column(editor, 5) == ["alpha one · first letter", "beta two · second letter"]
        qtbot.mouseClick(editor.undo_button, LEFT)
    assert dirty.args == [False]
    assert column(editor, 5) == ["alpha one · first letter", "beta two"]
    assert editor.document is not None
    assert editor.document.render() == TWO
    assert not editor.undo_button.isEnabled()
    assert not editor.save_button.isEnabled()
    qtbot.keyClick(editor.table, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert column(editor, 5) == ["alpha one · first letter", "beta two · second letter"]
    qtbot.mouseClick(editor.redo_button, LEFT)
    assert column(editor, 5) == ["first letter", "beta two · second letter"]
    qtbot.mouseClick(editor.revert_button, LEFT)
    assert editor.document.render() == TWO
    assert not editor.undo_button.isEnabled()
    assert (tmp_path / "concepts.json").read_bytes() == TWO


def test_add_rename_delete_and_merge_give_exact_json(qtbot: QtBot, tmp_path: Path) -> None:
    editor = open_editor(
        qtbot,
        tmp_path,
        b'{\n  "alpha": {"aliases": ["alpha one"], "category": "greek"},\n'
        b'  "beta": {"aliases": ["beta two"], "category": "greek"},\n'
        b'  "gamma": {"aliases": ["gamma three"]}\n}\n',
    )
    assert editor.document is not None
    qtbot.mouseClick(editor.new_button, LEFT)
    editor.new_alias.setText("Delta Four")
    qtbot.mouseClick(editor.add_button, LEFT)
    assert column(editor, 0) == ["alpha", "beta", "gamma", "delta-four"]
    assert editor.detail.title.text() == "delta-four"
    assert not editor.add_row.isVisible()

    editor.select_concept("beta")
    editor.detail.id_edit.setText("alpha")
    assert not editor.detail.rename_button.isEnabled()
    assert editor.detail.id_hint.text() == (
        'A concept "alpha" exists already; use Merge into to join the two.'
    )
    editor.detail.id_edit.setText("bravo")
    qtbot.mouseClick(editor.detail.rename_button, LEFT)
    assert column(editor, 0) == ["alpha", "bravo", "gamma", "delta-four"]
    assert editor.relink_banner.isVisible()
    with qtbot.waitSignal(editor.relink_requested) as relink:
        qtbot.mouseClick(editor.relink_button, LEFT)
    assert relink.args == ["beta", "bravo"]
    assert not editor.relink_banner.isVisible()

    editor.select_concept("gamma")
    editor.confirm = lambda _title, _question: False
    qtbot.mouseClick(editor.detail.delete_button, LEFT)
    assert column(editor, 0) == ["alpha", "bravo", "gamma", "delta-four"]
    editor.confirm = lambda _title, _question: True
    qtbot.mouseClick(editor.detail.delete_button, LEFT)
    assert column(editor, 0) == ["alpha", "bravo", "delta-four"]
    assert editor.detail.title.text() == "delta-four"  # the next row is selected

    editor.select_concept("alpha")
    editor.detail.merge_target.setCurrentText("bravo")
    qtbot.mouseClick(editor.detail.merge_button, LEFT)
    assert column(editor, 0) == ["bravo", "delta-four"]
    assert editor.detail.title.text() == "bravo"
    with qtbot.waitSignal(editor.relink_requested) as relink:
        qtbot.mouseClick(editor.relink_button, LEFT)
    assert relink.args == ["alpha", "bravo"]
    save(qtbot, editor)
    assert (tmp_path / "concepts.json").read_bytes() == (
        b'{\n  "bravo": {\n    "aliases": ["beta two", "alpha one", "alpha"],\n'
        b'    "category": "greek"\n  },\n'
        b'  "delta-four": {\n    "aliases": ["Delta Four"]\n  }\n}\n'
    )


def test_a_rename_with_known_links_offers_to_rewrite_them_and_undo_takes_it_back(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path, TWO)
    editor.set_usage({"alpha": 3}, {"alpha": 1, "beta": 2})
    editor.select_concept("beta")
    editor.detail.id_edit.setText("Beta")
    qtbot.mouseClick(editor.detail.rename_button, LEFT)
    assert editor.detail.id_hint.text() == ""
    assert not editor.relink_banner.isVisible()  # no note links beta
    assert column(editor, 0) == ["alpha", "Beta"]
    assert column(editor, 3) == ["1", "2"]  # the counts follow the rename
    editor.select_concept("alpha")
    editor.detail.id_edit.setText("alef")
    editor.detail.id_edit.returnPressed.emit()
    assert editor.relink_banner.label.text() == (
        'Renamed "alpha" to "alef". 3 notes still link <b>[[alpha]]</b>: rewrite those '
        "links to [[alef]]? You will see the changes before they are made."
    )
    assert column(editor, 2) == ["3", "0"]
    qtbot.mouseClick(editor.undo_button, LEFT)
    assert not editor.relink_banner.isVisible()
    assert column(editor, 0) == ["alpha", "Beta"]
    assert editor.detail.id_edit.text() == "alpha"


def test_an_external_change_reloads_or_asks_when_there_are_unsaved_edits(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "concepts.json"
    editor = open_editor(qtbot, tmp_path, TWO)
    editor.select_concept("beta")
    theirs = TWO.replace(b"beta two", b"beta 2")
    path.write_bytes(theirs)
    editor.file_changed_on_disk()
    assert column(editor, 5) == ["alpha one · first letter", "beta 2"]
    assert not editor.changed_banner.isVisible()
    assert editor.detail.title.text() == "beta"  # the selection survives the reload

    editor.detail.new_alias.setText("b")
    qtbot.mouseClick(editor.detail.add_alias_button, LEFT)
    theirs = theirs.replace(b'"alpha one", ', b"")
    path.write_bytes(theirs)
    editor.file_changed_on_disk()
    assert editor.changed_banner.isVisible()
    assert "concepts.json changed on disk" in editor.changed_banner.label.text()
    assert column(editor, 5) == ["alpha one · first letter", "beta 2 · b"]  # mine, still
    qtbot.mouseClick(editor.reload_theirs_button, LEFT)
    assert not editor.changed_banner.isVisible()
    assert column(editor, 5) == ["first letter", "beta 2"]
    assert not editor.dirty
    assert not editor.undo_button.isEnabled()

    editor.detail.new_alias.setText("second letter")
    qtbot.mouseClick(editor.detail.add_alias_button, LEFT)
    path.write_bytes(theirs.replace(b"first letter", b"letter one"))
    assert editor.save() is False  # the watcher has not told yet: the save finds out
    assert editor.changed_banner.isVisible()
    assert path.read_bytes() == theirs.replace(b"first letter", b"letter one")
    qtbot.mouseClick(editor.keep_mine_button, LEFT)
    assert not editor.changed_banner.isVisible()
    save(qtbot, editor)
    # Mine replaces theirs whole: alpha is "first letter" again (in the file's layout).
    assert path.read_bytes() == (
        b'{\n  "alpha": {\n    "aliases": ["first letter"],\n    "category": "greek"\n  },\n'
        b'  "beta": {\n    "aliases": ["beta 2", "second letter"],\n'
        b'    "category": "greek"\n  }\n}\n'
    )
    editor.file_changed_on_disk()  # the watcher reports our own save: nothing happens
    assert not editor.changed_banner.isVisible()
    assert not editor.dirty


def test_a_conflict_shows_on_both_rows_and_in_the_detail_panel(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(
        qtbot,
        tmp_path,
        b'{"alpha": {"aliases": ["agent memory"]},\n'
        b' "beta": {"aliases": ["Agent Memory", "beta two"]},\n'
        b' "gamma": {"aliases": ["gamma three"]}}\n',
    )
    on_alpha = (
        '"agent memory" matches the same text as "Agent Memory" of "beta"; '
        "a mention would tag both. Keep it in one concept."
    )
    on_beta = (
        '"Agent Memory" matches the same text as "agent memory" of "alpha"; '
        "a mention would tag both. Keep it in one concept."
    )
    rows = editor.model.rows
    assert [(r.concept.id, r.severity, r.issues) for r in rows] == [
        ("alpha", "error", (on_alpha,)),
        ("beta", "error", (on_beta,)),
        ("gamma", None, ()),
    ]
    proxy = editor.proxy
    decoration = Qt.ItemDataRole.DecorationRole
    # no concept has a colour: the icon is the severity's dot alone (its centre: x 6, y 6),
    # and the clean row keeps the slot empty, so the ids stay aligned
    assert [pixel(proxy.index(row, 0).data(decoration), 6, 6) for row in range(3)] == [
        "#d64545",
        "#d64545",
        None,
    ]
    assert proxy.index(1, 0).data(Qt.ItemDataRole.ToolTipRole) == on_beta
    editor.select_concept("beta")
    assert editor.detail.issue_messages == [on_beta]
    assert editor.detail.aliases.item(0).toolTip() == on_beta
    assert editor.detail.aliases.item(1).toolTip() == ""
    assert editor.summary.text().startswith("3 concepts · ")
    editor.detail.aliases.item(0).setText("agent memories")
    assert [r.severity for r in editor.model.rows] == [None, None, None]
    assert editor.detail.issue_messages == []


def test_usage_fills_the_counts_flags_isolated_concepts_and_reports_unused_ones(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(
        qtbot,
        tmp_path,
        b'{"alpha": {"aliases": ["alpha one"], "category": "greek"},\n'
        b' "beta": {"aliases": ["beta two"], "category": "greek"},\n'
        b' "gamma": {"aliases": ["gamma three"], "category": "other"}}\n',
    )
    assert column(editor, 2) == ["counting…"] * 3  # never blank: the counts are on their way
    assert column(editor, 3) == ["counting…"] * 3
    assert column(editor, 4) == ["counting…"] * 3
    editor.set_usage({"alpha": 5, "beta": 2}, {"alpha": 1}, isolated_max=2)
    assert column(editor, 2) == ["5", "2", "0"]
    assert column(editor, 3) == ["1", "0", "0"]
    assert column(editor, 4) == ["", "✓", "✓"]
    assert [r.severity for r in editor.model.rows] == [None, None, "warning"]
    editor.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    assert column(editor, 0) == ["alpha", "beta", "gamma"]
    editor.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert column(editor, 0) == ["gamma", "beta", "alpha"]
    editor.filter_edit.setText("TWO")
    assert column(editor, 0) == ["beta"]
    editor.filter_edit.clear()
    editor.category_filter.setCurrentText("other")
    assert column(editor, 0) == ["gamma"]
    editor.select_concept("alpha")  # hidden by the filter: the filter is cleared
    assert column(editor, 0) == ["gamma", "beta", "alpha"]
    with qtbot.waitSignal(editor.concept_activated) as activated:
        index = editor.proxy.index(2, 1)
        rect = editor.table.visualRect(index)
        # QTest's double click is only the second click: an item view needs both.
        qtbot.mouseClick(editor.table.viewport(), LEFT, pos=rect.center())
        qtbot.mouseDClick(editor.table.viewport(), LEFT, pos=rect.center())
    assert activated.args == ["alpha"]
    with qtbot.waitSignal(editor.tag_requested) as tag:
        qtbot.mouseClick(editor.detail.tag_button, LEFT)
    assert tag.args == ["alpha"]
    assert editor.table.currentIndex() != QModelIndex()


def test_an_id_defined_twice_is_reported_above_the_table(qtbot: QtBot, tmp_path: Path) -> None:
    editor = open_editor(
        qtbot, tmp_path, b'{"a": {"aliases": ["ex"]}, "b": {}, "a": {"aliases": ["why"]}}'
    )
    message = (
        '"a" is defined twice; the later definition wins and a save keeps only it. '
        "Merge the two by hand."
    )
    assert editor.file_issues.isVisible()
    assert editor.file_issues.text() == message
    assert column(editor, 0) == ["a", "b"]  # where "a" first stood, as json.loads keeps it
    assert column(editor, 5) == ["why", ""]
    assert [r.severity for r in editor.model.rows] == ["error", "warning"]


WIDE = (
    b'{"retrieval-augmented-generation": {"aliases": ["RAG"], "category": "retrieval",'
    b' "color": "#c0392b"},\n'
    b' "crdt": {"aliases": ["CRDT", "conflict-free replicated data type"],'
    b' "category": "infrastructure"}}\n'
)


def test_columns_fit_their_content_and_the_isolated_flag_stays_in_sight(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path, WIDE)
    editor.resize(1000, 700)
    table, header = editor.table, editor.table.horizontalHeader()
    metrics = table.fontMetrics()
    # the id and the category are whole (the id after its 12-pixel colour swatch)
    assert header.sectionSize(0) >= metrics.horizontalAdvance("retrieval-augmented-generation") + 12
    assert header.sectionSize(1) >= metrics.horizontalAdvance("infrastructure")
    # nothing selected: no detail panel, and the aliases have the room to be read whole
    assert not editor.detail_scroll.isVisible()
    aliases = "CRDT · conflict-free replicated data type"
    assert header.sectionSize(5) >= metrics.horizontalAdvance(aliases)
    assert editor.proxy.index(1, 5).data(Qt.ItemDataRole.ToolTipRole) == (
        "CRDT\nconflict-free replicated data type"
    )
    editor.resize(760, 700)  # the centre of a 1400-pixel window
    editor.set_usage({"crdt": 12}, {"crdt": 3})
    editor.select_concept("crdt")
    assert editor.detail_scroll.isVisible()
    viewport = table.viewport().width()
    for number in range(5):  # every column but the aliases, within the table's width
        assert header.sectionViewportPosition(number) + header.sectionSize(number) <= viewport
    assert column_texts(editor, (2, 3, 4)) == [["0", "0", "✓"], ["12", "3", ""]]


def column_texts(editor: ConceptEditor, columns: tuple[int, ...]) -> list[list[str]]:
    """The table's texts in these columns, row by row."""
    proxy = editor.proxy
    return [[proxy.index(row, c).data() for c in columns] for row in range(proxy.rowCount())]


def test_a_concepts_colour_is_a_swatch_and_never_the_colour_of_its_text(
    qtbot: QtBot, tmp_path: Path
) -> None:
    editor = open_editor(qtbot, tmp_path, WIDE)
    proxy = editor.proxy
    decoration = Qt.ItemDataRole.DecorationRole
    assert pixel(proxy.index(0, 0).data(decoration), 6, 6) == "#c0392b"
    assert pixel(proxy.index(1, 0).data(decoration), 6, 6) is None  # no colour: an empty slot
    assert all(
        proxy.index(row, c).data(Qt.ItemDataRole.ForegroundRole) is None
        for row in range(2)
        for c in range(6)
    )


def test_the_isolated_flag_leaves_the_index_note_out_once_those_counts_come(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """alpha is linked from three notes, one of them MEMORY.md: found in two, isolated, as
    the Isolated panel and `librarian isolated` count; beta from three others: not."""
    editor = open_editor(qtbot, tmp_path, TWO)
    found = {"alpha": frozenset({"a.md", "b.md"}), "beta": frozenset({"a.md", "b.md", "c.md"})}
    editor.set_found(found, {})
    editor.set_usage({"alpha": 3, "beta": 3}, {}, isolated_max=2)
    assert column(editor, 2) == ["3", "3"]
    assert column(editor, 4) == ["✓", ""]
