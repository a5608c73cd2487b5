"""The concept editor's detail panel: one concept's id, category, colour, description,
aliases, issues and actions."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import (
    QEvent,
    QObject,
    QRegularExpression,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QToolButton,
    QWidget,
)

from ...core.concepts.dictionary import Concept, LintIssue, is_slug
from ..items import list_row
from .widgets import (
    SEVERITY_COLOURS,
    box,
    button,
    label,
    line_edit,
    severity_icon,
)

DESCRIPTION_DELAY_MS = 700  # a pause in typing this long ends one undoable description edit
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
MERGE_TARGET_CHARS = 10  # the merge list's width, in characters, whatever its ids


class ConceptDetail(QWidget):
    """Edits the fields of one concept. It holds no document: each finished edit is emitted
    for the editor to apply (as one undo step), and ``show_concept`` shows the result.

    Signals:
        field_edited(str, str, object): concept id, key ("category", "description",
            "color") and its new text ("" removes an optional key).
        aliases_edited(str, list): concept id and its new list of aliases.
        rename_requested(str, str): the old id and a new, unused id.
        delete_requested(str): the user asked to delete the concept.
        merge_requested(str, str): fold the first concept into the second.
        tag_requested(str): the user asked to tag the concept's mentions in the notes.
    """

    field_edited = Signal(str, str, object)
    aliases_edited = Signal(str, list)
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)
    merge_requested = Signal(str, str)
    tag_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.concept: Concept | None = None
        self.issue_messages: list[str] = []
        self._ids: frozenset[str] = frozenset()
        self._showing = False
        self._pending = False  # the description holds typing not emitted yet
        self._flushing = False
        self._icons = {severity: severity_icon(severity) for severity in SEVERITY_COLOURS}
        self._description_timer = QTimer(self)
        self._description_timer.setSingleShot(True)
        self._description_timer.setInterval(DESCRIPTION_DELAY_MS)
        self._description_timer.timeout.connect(self.flush)
        self._build()
        self._connect()
        self.show_concept(None, (), (), ())

    def _build(self) -> None:
        self.title = label(bold=True)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.id_edit = line_edit("concept-id")
        self.rename_button = button("Rename", "Give the concept this id")
        self.id_hint = label(wrap=True)
        self.category_edit = line_edit("No category")
        self.category = QComboBox()
        self.category.setEditable(True)
        self.category.setLineEdit(self.category_edit)
        self.category.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.colour_edit = line_edit("#rrggbb", "The concept's colour in the graph")
        self.colour_edit.setValidator(
            QRegularExpressionValidator(QRegularExpression(r"(#[0-9a-fA-F]{6})?"), self)
        )
        self.colour_edit.setMaximumWidth(110)
        self.colour_button = QToolButton()
        self.colour_button.setToolTip("Choose a colour")
        self.colour_button.setFixedSize(28, 22)
        self.description = QPlainTextEdit()
        self.description.setPlaceholderText("What the concept means, in a sentence or two")
        self.description.setTabChangesFocus(True)
        self.description.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 14)
        self.aliases = QListWidget()
        self.aliases.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.aliases.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.aliases.setMinimumHeight(120)
        self.aliases.setToolTip("Double-click an alias (or press F2) to edit it")
        self.aliases.setStyleSheet("QListWidget::item { padding: 2px 2px; }")
        self.new_alias = line_edit("New alias")
        self.add_alias_button = button("Add")
        self.remove_alias_button = button("Remove", "Remove the selected aliases (Delete)")
        self.issues_heading = label("Issues", bold=True)
        self.issues = label(wrap=True)
        self.issues.setTextFormat(Qt.TextFormat.RichText)
        self.tag_button = button("Tag mentions…", "Preview linking its mentions in the notes")
        self.merge_target = QComboBox()
        self.merge_target.setToolTip("The concept that takes this one's aliases and links")
        # A long id must not widen the panel (it scrolled sideways): the list shows them whole.
        self.merge_target.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.merge_target.setMinimumContentsLength(MERGE_TARGET_CHARS)
        self.merge_button = button("Merge into")
        self.delete_button = button("Delete…", "Remove the concept from the dictionary")
        self.delete_button.setStyleSheet(f"QPushButton {{ color: {SEVERITY_COLOURS['error']}; }}")
        self.empty = label("Select a concept to edit it, or add one with New concept.", wrap=True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        form = QFormLayout()
        form.setHorizontalSpacing(10)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Id", box(False, (self.id_edit, 1), self.rename_button))
        form.addRow("", self.id_hint)
        form.addRow("Category", self.category)
        form.addRow("Colour", box(False, self.colour_edit, self.colour_button, None))
        self.fields = QWidget()
        box(
            True,
            self.title,
            form,
            6,
            label("Description", bold=True),
            self.description,
            6,
            label("Aliases", bold=True),
            (self.aliases, 1),
            box(False, (self.new_alias, 1), self.add_alias_button, self.remove_alias_button),
            6,
            self.issues_heading,
            self.issues,
            10,
            box(False, self.tag_button, None),
            box(False, self.merge_button, (self.merge_target, 1)),
            box(False, self.delete_button, None),
            parent=self.fields,
        )
        box(True, (self.fields, 1), (self.empty, 1), parent=self).setContentsMargins(12, 10, 12, 10)

    def _connect(self) -> None:
        self.id_edit.textChanged.connect(self._on_id_edit_changed)
        self.id_edit.returnPressed.connect(self._on_rename_clicked)
        self.rename_button.clicked.connect(self._on_rename_clicked)
        self.category.textActivated.connect(self._on_category_done)
        self.category_edit.editingFinished.connect(self._on_category_done)
        self.colour_edit.editingFinished.connect(self._on_colour_done)
        self.colour_button.clicked.connect(self._on_colour_button_clicked)
        self.description.textChanged.connect(self._on_description_changed)
        self.description.installEventFilter(self)
        self.aliases.itemChanged.connect(self._on_alias_item_changed)
        self.aliases.itemSelectionChanged.connect(self._update_buttons)
        self.aliases.installEventFilter(self)
        self.new_alias.returnPressed.connect(self._on_add_alias_clicked)
        self.new_alias.textChanged.connect(self._update_buttons)
        self.add_alias_button.clicked.connect(self._on_add_alias_clicked)
        self.remove_alias_button.clicked.connect(self._on_remove_alias_clicked)
        self.tag_button.clicked.connect(self._on_tag_clicked)
        self.merge_button.clicked.connect(self._on_merge_clicked)
        self.delete_button.clicked.connect(self._on_delete_clicked)

    # ------------------------------------------------------------ showing

    def show_concept(
        self,
        concept: Concept | None,
        issues: Sequence[LintIssue],
        categories: Sequence[str],
        ids: Sequence[str],
    ) -> None:
        """Show ``concept`` (None: nothing selected) with its lint issues; ``categories``
        fill the category choices, ``ids`` (every concept) the merge targets and the
        rename check. Showing the same concept again leaves alone the field being typed in;
        showing another drops a description not emitted yet (``flush`` it first)."""
        same = concept is not None and self.concept is not None and concept.id == self.concept.id
        if not same:
            self.discard()
        self._showing = True
        try:
            self.concept = concept
            self._ids = frozenset(i.casefold() for i in ids)
            self.fields.setVisible(concept is not None)
            self.empty.setVisible(concept is None)
            if concept is not None:
                self._fill(concept, issues, categories, [i for i in ids if i != concept.id], same)
        finally:
            self._showing = False
        self._on_id_edit_changed()
        self._update_buttons()

    def _fill(
        self,
        concept: Concept,
        issues: Sequence[LintIssue],
        categories: Sequence[str],
        others: list[str],
        same: bool,
    ) -> None:
        self.title.setText(concept.id)
        if _items(self.category) != list(categories):
            typed = self.category.currentText()
            self.category.clear()
            self.category.addItems(list(categories))
            self.category.setEditText(typed)
        for edit, text in (
            (self.id_edit, concept.id),
            (self.category_edit, concept.category),
            (self.colour_edit, concept.color),
        ):
            if edit.text() != text and not (same and edit.hasFocus()):
                edit.setText(text)
                edit.setCursorPosition(0)  # a long id shows its start, not its end
        fill = concept.color if _COLOUR.fullmatch(concept.color) else "transparent"
        self.colour_button.setStyleSheet(
            f"QToolButton {{ background: {fill}; border: 1px solid palette(mid);"
            " border-radius: 3px; }"
        )
        if self.description.toPlainText() != concept.description and not self._pending:
            self.description.setPlainText(concept.description)
        if _items(self.merge_target) != others:
            chosen = self.merge_target.currentText()
            self.merge_target.clear()
            self.merge_target.addItems(others)
            if chosen in others:
                self.merge_target.setCurrentText(chosen)
        self._fill_aliases(concept, issues)
        rows = [
            f'<tr><td style="color:{SEVERITY_COLOURS[i.severity]}; padding-right:6px">●</td>'
            f'<td style="padding-bottom:4px">{html.escape(i.message)}</td></tr>'
            for i in issues
        ]
        self.issues.setText(f"<table>{''.join(rows)}</table>")
        self.issues_heading.setVisible(bool(issues))
        self.issues.setVisible(bool(issues))
        self.issue_messages = [i.message for i in issues]

    def _fill_aliases(self, concept: Concept, issues: Sequence[LintIssue]) -> None:
        """The aliases, each marked with the worst of its issues (their messages as tip)."""
        if self.alias_texts() != list(concept.aliases):
            self.aliases.clear()
            for alias in concept.aliases:
                item = list_row(self.aliases, alias)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        seen: set[str] = set()
        for row in range(self.aliases.count()):
            item = self.aliases.item(row)
            text = item.text()
            # A repeated alias: the repetition is the one to remove, not the first.
            mine = [
                i
                for i in issues
                if i.alias == text and (i.code != "duplicate-alias" or text in seen)
            ]
            seen.add(text)
            worst = min((i.severity for i in mine), default=None)  # "error" < "warning"
            item.setIcon(self._icons[worst] if worst else QIcon())
            item.setToolTip("\n".join(i.message for i in mine))

    def alias_texts(self) -> list[str]:
        return [self.aliases.item(row).text() for row in range(self.aliases.count())]

    def _update_buttons(self) -> None:
        has = self.concept is not None
        self.add_alias_button.setEnabled(has and bool(self.new_alias.text().strip()))
        self.remove_alias_button.setEnabled(has and bool(self.aliases.selectedItems()))
        self.merge_button.setEnabled(has and self.merge_target.count() > 0)
        self.merge_target.setEnabled(self.merge_target.count() > 0)

    # ------------------------------------------------------------ editing

    def flush(self) -> None:
        """Emit what is typed but not finished yet (a description, or a category or colour
        without Enter), so it is saved or undone with the rest."""
        self._description_timer.stop()
        if self.concept is None or self._showing or self._flushing:
            return
        self._flushing = True  # each edit emitted here is applied, and flushes again, at once
        try:
            self._on_category_done()
            if self.colour_edit.hasAcceptableInput():
                self._on_colour_done()
            if self._pending:
                self._pending = False
                self._emit_field("description", self.description.toPlainText())
        finally:
            self._flushing = False

    def discard(self) -> None:
        """Forget a description being typed (the document is being reloaded)."""
        self._description_timer.stop()
        self._pending = False

    def rename_problem(self, new_id: str) -> str:
        """Why ``new_id`` cannot be the shown concept's id, or "" when it can."""
        old = self.concept.id if self.concept is not None else ""
        if not new_id.strip():
            return "An id cannot be empty."
        if new_id != new_id.strip():
            return "An id cannot start or end with a space."
        if new_id.casefold() in self._ids and new_id.casefold() != old.casefold():
            return f'A concept "{new_id}" exists already; use Merge into to join the two.'
        return ""

    @Slot()
    def _on_id_edit_changed(self) -> None:
        concept = self.concept
        new_id = self.id_edit.text()
        problem = self.rename_problem(new_id) if concept is not None else ""
        hint = problem
        if concept is not None and not problem and new_id != concept.id and not is_slug(new_id):
            hint = "Not a slug (lowercase words joined by hyphens); links read better with one."
        colour = SEVERITY_COLOURS["error" if problem else "warning"]
        self.id_hint.setStyleSheet(f"color: {colour};")
        self.id_hint.setText(hint)
        self.id_hint.setVisible(bool(hint))
        self.rename_button.setEnabled(concept is not None and not problem and new_id != concept.id)

    @Slot()
    def _on_rename_clicked(self) -> None:
        if self.rename_button.isEnabled() and self.concept is not None:
            self.rename_requested.emit(self.concept.id, self.id_edit.text())

    @Slot()
    def _on_category_done(self) -> None:
        self._emit_field("category", self.category.currentText().strip())

    @Slot()
    def _on_colour_done(self) -> None:
        self._emit_field("color", self.colour_edit.text())

    @Slot()
    def _on_colour_button_clicked(self) -> None:
        if self.concept is None:
            return
        start = QColor(self.concept.color) if self.concept.color else QColor("#4e79a7")
        chosen = QColorDialog.getColor(start, self, f"Colour of {self.concept.id}")
        if chosen.isValid():
            self.colour_edit.setText(chosen.name())
            self._emit_field("color", chosen.name())

    def _emit_field(self, name: str, value: str) -> None:
        concept = self.concept
        if concept is None or self._showing or value == getattr(concept, name):
            return
        self.field_edited.emit(concept.id, name, value)

    @Slot()
    def _on_description_changed(self) -> None:
        if not self._showing:
            self._pending = True
            self._description_timer.start()

    @Slot(QListWidgetItem)
    def _on_alias_item_changed(self, _item: QListWidgetItem) -> None:
        if self._showing or self.concept is None:
            return
        # An alias edited down to nothing is removed rather than kept as an empty alias.
        aliases = [text for text in self.alias_texts() if text.strip()]
        if aliases != list(self.concept.aliases):
            self.aliases_edited.emit(self.concept.id, aliases)

    @Slot()
    def _on_add_alias_clicked(self) -> None:
        text = self.new_alias.text().strip()
        if self.concept is not None and text:
            self.new_alias.clear()
            self.aliases_edited.emit(self.concept.id, [*self.concept.aliases, text])

    @Slot()
    def _on_remove_alias_clicked(self) -> None:
        drop = {self.aliases.row(item) for item in self.aliases.selectedItems()}
        if self.concept is not None and drop:
            kept = [a for row, a in enumerate(self.concept.aliases) if row not in drop]
            self.aliases_edited.emit(self.concept.id, kept)

    @Slot()
    def _on_tag_clicked(self) -> None:
        if self.concept is not None:
            self.tag_requested.emit(self.concept.id)

    @Slot()
    def _on_merge_clicked(self) -> None:
        target = self.merge_target.currentText()
        if self.concept is not None and target:
            self.merge_requested.emit(self.concept.id, target)

    @Slot()
    def _on_delete_clicked(self) -> None:
        if self.concept is not None:
            self.delete_requested.emit(self.concept.id)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.description and event.type() == QEvent.Type.FocusOut:
            self.flush()
        elif (
            watched is self.aliases
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
            and self.aliases.state() != QAbstractItemView.State.EditingState
        ):
            self._on_remove_alias_clicked()
            return True
        return super().eventFilter(watched, event)


def _items(combo: QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]
