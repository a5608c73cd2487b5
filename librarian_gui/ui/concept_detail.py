"""The concept editor's detail panel (one concept's id, category, colour, description,
aliases, lint issues and actions) and the banners the editor shows above its table."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QRegularExpression, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPainter, QPixmap, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.concepts import Concept, LintIssue, is_slug

SEVERITY_COLOURS = {"error": "#d64545", "warning": "#d99a06"}
DESCRIPTION_DELAY_MS = 700  # typing pauses this long before the description is one undo step
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_BANNER_COLOURS = {"error": (214, 69, 69), "warning": (217, 154, 6), "info": (47, 111, 214)}


def severity_icon(severity: str) -> QIcon:
    """A filled dot in the severity's colour (error red, warning amber)."""
    pixmap = QPixmap(12, 12)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(SEVERITY_COLOURS[severity]))
    painter.drawEllipse(1, 1, 10, 10)
    painter.end()
    return QIcon(pixmap)


class Banner(QFrame):
    """A coloured strip with a message and buttons; hidden until ``show_message``."""

    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        r, g, b = _BANNER_COLOURS[kind]
        self.setObjectName("conceptBanner")
        self.setStyleSheet(
            f"#conceptBanner {{ background: rgba({r},{g},{b},36); "
            f"border: 1px solid rgba({r},{g},{b},150); border-radius: 4px; }}"
        )
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(10, 6, 6, 6)
        self._row.setSpacing(6)
        self._row.addWidget(self.label, 1)
        self.hide()

    def add_button(self, text: str) -> QPushButton:
        button = QPushButton(text)
        self._row.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        return button

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.show()


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
        self._description_timer = QTimer(self)
        self._description_timer.setSingleShot(True)
        self._description_timer.setInterval(DESCRIPTION_DELAY_MS)
        self._description_timer.timeout.connect(self.flush)
        self._build()
        self._connect()
        self.show_concept(None, (), (), ())

    # ------------------------------------------------------------ building

    def _build(self) -> None:
        self.title = QLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.id_edit = QLineEdit()
        self.rename_button = QPushButton("Rename")
        self.rename_button.setToolTip("Give the concept this id (links can be rewritten after)")
        self.id_hint = QLabel()
        self.id_hint.setWordWrap(True)
        self.category = QComboBox()
        self.category.setEditable(True)
        self.category.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.category.lineEdit().setPlaceholderText("No category")
        self.colour_edit = QLineEdit()
        self.colour_edit.setPlaceholderText("#rrggbb")
        self.colour_edit.setValidator(
            QRegularExpressionValidator(QRegularExpression(r"(#[0-9a-fA-F]{6})?"), self)
        )
        self.colour_edit.setMaximumWidth(110)
        self.colour_button = QToolButton()
        self.colour_button.setToolTip("Choose a colour")
        self.colour_button.setFixedSize(26, 22)
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
        self.aliases.setMinimumHeight(110)
        self.aliases.setToolTip("Double-click an alias (or press F2) to edit it")
        self.new_alias = QLineEdit()
        self.new_alias.setPlaceholderText("New alias")
        self.add_alias_button = QPushButton("Add")
        self.remove_alias_button = QPushButton("Remove")
        self.issues = QLabel()
        self.issues.setWordWrap(True)
        self.issues.setTextFormat(Qt.TextFormat.RichText)
        self.issues.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.issues.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.tag_button = QPushButton("Tag mentions…")
        self.tag_button.setToolTip("Preview linking this concept's mentions in the notes")
        self.merge_target = QComboBox()
        self.merge_target.setToolTip("The concept that takes this one's aliases")
        self.merge_target.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.merge_button = QPushButton("Merge into")
        self.delete_button = QPushButton("Delete")
        self.empty = QLabel("Select a concept to edit it, or add one.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)

        id_row = _row(self.id_edit, self.rename_button)
        colour_row = _row(self.colour_edit, self.colour_button)
        colour_row.addStretch(1)
        alias_row = _row(self.new_alias, self.add_alias_button, self.remove_alias_button)
        merge_row = _row(self.merge_button, self.merge_target)
        merge_row.addStretch(1)
        action_row = _row(self.tag_button, self.delete_button)
        action_row.addStretch(1)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setHorizontalSpacing(10)
        form.setVerticalSpacing(6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Id", id_row)
        form.addRow("", self.id_hint)
        form.addRow("Category", self.category)
        form.addRow("Colour", colour_row)
        self.fields = QWidget()
        body = QVBoxLayout(self.fields)
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(6)
        body.addWidget(self.title)
        body.addLayout(form)
        body.addSpacing(4)
        body.addWidget(_heading("Description"))
        body.addWidget(self.description)
        body.addSpacing(4)
        body.addWidget(_heading("Aliases"))
        body.addWidget(self.aliases, 1)
        body.addLayout(alias_row)
        body.addSpacing(4)
        self.issues_heading = _heading("Issues")
        body.addWidget(self.issues_heading)
        body.addWidget(self.issues)
        body.addSpacing(8)
        body.addLayout(action_row)
        body.addLayout(merge_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.addWidget(self.fields, 1)
        layout.addWidget(self.empty, 1)

    def _connect(self) -> None:
        self.id_edit.textChanged.connect(self._on_id_edit_changed)
        self.id_edit.returnPressed.connect(self._on_rename_clicked)
        self.rename_button.clicked.connect(self._on_rename_clicked)
        self.category.textActivated.connect(self._on_category_done)
        self.category.lineEdit().editingFinished.connect(self._on_category_done)
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
        rename check. Fields the user is typing in keep their cursor when unchanged."""
        if self.concept is not None and (concept is None or concept.id != self.concept.id):
            self.flush()
        self._showing = True
        try:
            self.concept = concept
            self._ids = frozenset(i.casefold() for i in ids)
            self.fields.setVisible(concept is not None)
            self.empty.setVisible(concept is None)
            if concept is not None:
                self._fill(concept, issues, categories, ids)
        finally:
            self._showing = False
        self._on_id_edit_changed()
        self._update_buttons()

    def _fill(
        self,
        concept: Concept,
        issues: Sequence[LintIssue],
        categories: Sequence[str],
        ids: Sequence[str],
    ) -> None:
        self.title.setText(concept.id)
        if self.id_edit.text() != concept.id and not self.id_edit.hasFocus():
            self.id_edit.setText(concept.id)
        choices = [self.category.itemText(i) for i in range(self.category.count())]
        if choices != list(categories):
            self.category.clear()
            self.category.addItems(list(categories))
        if self.category.currentText() != concept.category:
            self.category.setEditText(concept.category)
        if self.colour_edit.text() != concept.color:
            self.colour_edit.setText(concept.color)
        self._paint_swatch(concept.color)
        if self.description.toPlainText() != concept.description:
            self.description.setPlainText(concept.description)
        self._description_timer.stop()
        self._fill_aliases(concept, issues)
        others = [i for i in ids if i != concept.id]
        if [self.merge_target.itemText(i) for i in range(self.merge_target.count())] != others:
            chosen = self.merge_target.currentText()
            self.merge_target.clear()
            self.merge_target.addItems(others)
            if chosen in others:
                self.merge_target.setCurrentText(chosen)
        self._fill_issues(issues)

    def _fill_aliases(self, concept: Concept, issues: Sequence[LintIssue]) -> None:
        worst: dict[str, str] = {}
        notes: dict[str, list[str]] = {}
        for issue in issues:
            if issue.alias is not None:
                if worst.get(issue.alias) != "error":
                    worst[issue.alias] = issue.severity
                notes.setdefault(issue.alias, []).append(issue.message)
        if self.alias_texts() != list(concept.aliases):
            self.aliases.clear()
            for alias in concept.aliases:
                item = QListWidgetItem(alias)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.aliases.addItem(item)
        for row in range(self.aliases.count()):
            item = self.aliases.item(row)
            severity = worst.get(item.text())
            item.setIcon(severity_icon(severity) if severity else QIcon())
            item.setToolTip("\n".join(notes.get(item.text(), [])))

    def _fill_issues(self, issues: Sequence[LintIssue]) -> None:
        self.issues_heading.setVisible(bool(issues))
        self.issues.setVisible(bool(issues))
        rows = [
            f'<tr><td valign="top" style="color:{SEVERITY_COLOURS[i.severity]};'
            f' padding-right:6px">●</td><td style="padding-bottom:4px">'
            f"{html.escape(i.message)}</td></tr>"
            for i in issues
        ]
        self.issues.setText(f"<table>{''.join(rows)}</table>" if rows else "")
        self.issue_messages = [i.message for i in issues]

    def alias_texts(self) -> list[str]:
        return [self.aliases.item(row).text() for row in range(self.aliases.count())]

    def _paint_swatch(self, colour: str) -> None:
        fill = colour if _COLOUR.fullmatch(colour) else "transparent"
        self.colour_button.setStyleSheet(
            f"QToolButton {{ background: {fill}; border: 1px solid palette(mid);"
            " border-radius: 3px; }"
        )

    def _update_buttons(self) -> None:
        has = self.concept is not None
        self.add_alias_button.setEnabled(has and bool(self.new_alias.text().strip()))
        self.remove_alias_button.setEnabled(has and bool(self.aliases.selectedItems()))
        self.merge_button.setEnabled(has and self.merge_target.count() > 0)
        self.merge_target.setEnabled(self.merge_target.count() > 0)

    # ------------------------------------------------------------ editing

    def flush(self) -> None:
        """Emit a description still being typed, so it is saved (or undone) with the rest."""
        self._description_timer.stop()
        concept = self.concept
        if concept is None or self._showing:
            return
        text = self.description.toPlainText()
        if text != concept.description:
            self.field_edited.emit(concept.id, "description", text)

    def rename_problem(self, new_id: str) -> str:
        """Why ``new_id`` cannot be the selected concept's id, or "" when it can."""
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
        if problem:
            self._hint(problem, "error")
        elif concept is not None and new_id != concept.id and not is_slug(new_id):
            self._hint("Not a slug (lowercase words joined by hyphens); links read better.", "")
        else:
            self._hint("", "")
        self.rename_button.setEnabled(
            concept is not None and not problem and new_id != concept.id
        )

    def _hint(self, text: str, severity: str) -> None:
        colour = SEVERITY_COLOURS.get(severity, SEVERITY_COLOURS["warning"])
        self.id_hint.setStyleSheet(f"color: {colour};")
        self.id_hint.setText(text)
        self.id_hint.setVisible(bool(text))

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
        if self.concept is None or not text:
            return
        self.new_alias.clear()
        self.aliases_edited.emit(self.concept.id, [*self.concept.aliases, text])

    @Slot()
    def _on_remove_alias_clicked(self) -> None:
        if self.concept is None:
            return
        drop = {self.aliases.row(item) for item in self.aliases.selectedItems()}
        if drop:
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
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
            and self.aliases.state() != QAbstractItemView.State.EditingState
        ):
            self._on_remove_alias_clicked()
            return True
        return super().eventFilter(watched, event)


def _row(*widgets: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(6)
    for widget in widgets:
        row.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
    return row


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label
