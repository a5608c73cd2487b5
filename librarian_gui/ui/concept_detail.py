"""The concept editor's views: the table model of concepts and its filter, the detail panel
(one concept's id, category, colour, description, aliases, issues and actions), the banners
above the table, and small layout helpers."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRegularExpression,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPainter, QPixmap, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QFrame,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTableView,
    QToolButton,
    QWidget,
)

from ..core.concepts import Concept, LintIssue, is_slug

SEVERITY_COLOURS = {"error": "#d64545", "warning": "#d99a06"}
DESCRIPTION_DELAY_MS = 700  # a pause in typing this long ends one undoable description edit
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_BANNER_COLOURS = {"error": (214, 69, 69), "warning": (217, 154, 6), "info": (47, 111, 214)}
Item = QWidget | QLayout | int | tuple[QWidget, int] | None
COLUMNS = ("Id", "Category", "Aliases", "Notes linked", "Unlinked mentions", "Isolated")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ALIAS_JOINER = " · "
NO_CATEGORY = "\0"  # the category filter's value for concepts without a category
Index = QModelIndex | QPersistentModelIndex


def box(
    vertical: bool, *items: Item, spacing: int = 6, parent: QWidget | None = None
) -> QBoxLayout:
    """A box layout without margins holding ``items``: widgets and layouts, ``(widget,
    stretch)``, a number (pixels of space), or None (a stretch)."""
    direction = QBoxLayout.Direction.TopToBottom if vertical else QBoxLayout.Direction.LeftToRight
    layout = QBoxLayout(direction, parent)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(spacing)
    for item in items:
        if item is None:
            layout.addStretch(1)
        elif isinstance(item, int):
            layout.addSpacing(item)
        elif isinstance(item, tuple):
            layout.addWidget(*item)
        elif isinstance(item, QLayout):
            layout.addLayout(item)
        else:
            layout.addWidget(item)
    return layout


def list_table(
    table: QTableView, widths: tuple[int, ...], stretch: int, row_padding: int = 10
) -> QTableView:
    """Set up ``table`` as a read-only list of rows: whole rows selected one at a time,
    alternating colours, no grid, no row numbers; column ``stretch`` takes the free width,
    the others get ``widths`` (0: left as is)."""
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.setWordWrap(False)
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + row_padding)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    for column, width in enumerate(widths):
        if width:
            header.resizeSection(column, width)
    return table


def line_edit(placeholder: str, tip: str = "") -> QLineEdit:
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(tip)
    return edit


def button(text: str, tip: str = "") -> QPushButton:
    push = QPushButton(text)
    push.setToolTip(tip)
    return push


def label(text: str = "", *, bold: bool = False, colour: str = "", wrap: bool = False) -> QLabel:
    out = QLabel(text)
    out.setWordWrap(wrap)
    if bold:
        font = out.font()
        font.setBold(True)
        out.setFont(font)
    if colour:
        out.setStyleSheet(f"color: {colour};")
    return out


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

    def __init__(self, kind: str, *buttons: str) -> None:
        super().__init__()
        r, g, b = _BANNER_COLOURS[kind]
        self.setObjectName("conceptBanner")
        self.setStyleSheet(
            f"#conceptBanner {{ background: rgba({r},{g},{b},36); "
            f"border: 1px solid rgba({r},{g},{b},150); border-radius: 4px; }}"
        )
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.label = label(wrap=True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = [QPushButton(text) for text in buttons]
        row = box(False, (self.label, 1), *self.buttons, parent=self)
        row.setContentsMargins(10, 6, 6, 6)
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.show()


@dataclass(frozen=True, slots=True)
class ConceptRow:
    """One concept as the table shows it; counts are None until usage is known."""

    concept: Concept
    linked: int | None
    mentioned: int | None
    isolated: bool
    severity: str | None  # the worst lint severity, None when clean
    issues: tuple[str, ...]


class ConceptTableModel(QAbstractTableModel):
    """The concepts, one row each, in file order."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ConceptRow] = []
        self.isolated_max = 2
        self._icons = {severity: severity_icon(severity) for severity in SEVERITY_COLOURS}

    def set_rows(self, rows: list[ConceptRow]) -> None:
        """Replace the rows; the same ids in the same order only repaint (the view keeps
        its selection and scroll position), anything else resets."""
        if [r.concept.id for r in rows] == [r.concept.id for r in self.rows]:
            self.rows = rows
            if rows:
                last = self.index(len(rows) - 1, len(COLUMNS) - 1)
                self.dataChanged.emit(self.index(0, 0), last)
            return
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == 5:
            return f"Linked from at most {self.isolated_max} notes"
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(row, column)
        if role == SORT_ROLE:
            if column in (3, 4):
                value = row.linked if column == 3 else row.mentioned
                return -1 if value is None else value
            if column == 5:
                return int(row.isolated)
            return _display(row, column).casefold()
        if role == Qt.ItemDataRole.DecorationRole and column == 0 and row.severity:
            return self._icons[row.severity]
        if role == Qt.ItemDataRole.ToolTipRole and column == 0 and row.issues:
            return "\n".join(row.issues)
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 3:
            horizontal = (
                Qt.AlignmentFlag.AlignRight if column < 5 else Qt.AlignmentFlag.AlignHCenter
            )
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        return None


def _display(row: ConceptRow, column: int) -> str:
    concept = row.concept
    if column == 0:
        return concept.id
    if column == 1:
        return concept.category
    if column == 2:
        return ALIAS_JOINER.join(concept.aliases)
    if column in (3, 4):
        value = row.linked if column == 3 else row.mentioned
        return "" if value is None else str(value)
    return "✓" if row.isolated else ""


class ConceptFilter(QSortFilterProxyModel):
    """Rows whose id, category or an alias contains the text, in the chosen category."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._category: str | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_filter(self, text: str, category: str | None) -> None:
        """``category`` None shows every category, NO_CATEGORY those without one."""
        if hasattr(self, "beginFilterChange"):  # Qt 6.9: invalidateRowsFilter is deprecated
            self.beginFilterChange()
        self._text = text.strip().casefold()
        self._category = category
        if hasattr(self, "endFilterChange"):
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, ConceptTableModel)
        concept = model.rows[source_row].concept
        if self._category is not None:
            wanted = "" if self._category == NO_CATEGORY else self._category
            if concept.category != wanted:
                return False
        text = self._text
        return not text or any(
            text in field.casefold() for field in (concept.id, concept.category, *concept.aliases)
        )


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
        self.merge_target.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
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
            box(False, self.tag_button, self.merge_button, self.merge_target, None),
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
                item = QListWidgetItem(alias)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.aliases.addItem(item)
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
