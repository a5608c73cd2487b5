"""The concept editor's building blocks: its table model and filter, the coloured banners,
severity colours and icons, and small layout helpers shared by its panels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QFrame,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTableView,
    QWidget,
)

from ...core.concepts.dictionary import Concept
from ..swatch import SIDE, paint_swatch, valid_colour

SEVERITY_COLOURS = {"error": "#d64545", "warning": "#d99a06"}
_BANNER_COLOURS = {"error": (214, 69, 69), "warning": (217, 154, 6), "info": (47, 111, 214)}
Item = QWidget | QLayout | int | tuple[QWidget, int] | None
# The aliases come last and take the width left: the counts and the Isolated flag stay in
# sight however narrow the table, and the whole alias list is the cell's tooltip.
COLUMNS = ("Id", "Category", "Linked", "Unlinked", "Isolated", "Aliases")
LINKED_COLUMN, UNLINKED_COLUMN, ISOLATED_COLUMN, ALIASES_COLUMN = 2, 3, 4, 5
HEADER_TIPS = {
    LINKED_COLUMN: "Notes that link the concept (or its note)",
    UNLINKED_COLUMN: "Notes that write an alias without linking it",
}
COUNT_COLUMNS = (LINKED_COLUMN, UNLINKED_COLUMN, ISOLATED_COLUMN)
COUNTING = "counting…"  # a usage column until the counts come
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


def concept_icon(colour: str, severity: str | None, slots: tuple[bool, bool]) -> QIcon:
    """The concept's colour swatch, then its worst lint severity's dot. ``slots`` says
    which of the two the table shows at all: a slot shown is kept empty in a row without
    one, so every row's id starts at the same place, and one no row needs takes no room."""
    swatches, dots = slots
    pixmap = QPixmap((SIDE + 2) * (swatches + dots) - 2, SIDE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if swatches and valid_colour(colour):
        paint_swatch(painter, 0, 0, colour)
    if dots and severity is not None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(SEVERITY_COLOURS[severity]))
        painter.drawEllipse((SIDE + 2) * swatches + 1, 1, SIDE - 2, SIDE - 2)
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
class ConceptTableRow:
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
        self.rows: list[ConceptTableRow] = []
        self.isolated_max = 2
        self._icons: dict[tuple[str, str | None, tuple[bool, bool]], QIcon] = {}
        self._slots = (False, False)  # whether any row has a colour, a lint severity

    def set_rows(self, rows: list[ConceptTableRow]) -> None:
        """Replace the rows; the same ids in the same order only repaint (the view keeps
        its selection and scroll position), anything else resets."""
        self._slots = (
            any(valid_colour(r.concept.color) for r in rows),
            any(r.severity is not None for r in rows),
        )
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
        if role == Qt.ItemDataRole.ToolTipRole:
            if section == ISOLATED_COLUMN:
                return (
                    f"Found in at most {self.isolated_max} notes (the index note left out): "
                    "the Isolated button lists them"
                )
            return HEADER_TIPS.get(section)
        return None

    def icon(self, row: ConceptTableRow) -> QIcon | None:
        if self._slots == (False, False):
            return None
        key = (row.concept.color, row.severity, self._slots)
        found = self._icons.get(key)
        if found is None:
            found = self._icons[key] = concept_icon(*key)
        return found

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(row, column)
        if role == SORT_ROLE:
            if column in (LINKED_COLUMN, UNLINKED_COLUMN):
                value = row.linked if column == LINKED_COLUMN else row.mentioned
                return -1 if value is None else value
            if column == ISOLATED_COLUMN:
                return int(row.isolated)
            return _display(row, column).casefold()
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self.icon(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0 and row.issues:
                return "\n".join(row.issues)
            if column == ALIASES_COLUMN and row.concept.aliases:
                return "\n".join(row.concept.aliases)  # the whole list, where the cell cuts it
            if column == 0 and valid_colour(row.concept.color):
                return f"{row.concept.id} · colour {row.concept.color}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column in COUNT_COLUMNS:
            horizontal = (
                Qt.AlignmentFlag.AlignRight
                if column != ISOLATED_COLUMN
                else Qt.AlignmentFlag.AlignHCenter
            )
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        return None


def _display(row: ConceptTableRow, column: int) -> str:
    concept = row.concept
    if column == 0:
        return concept.id
    if column == 1:
        return concept.category
    if column == ALIASES_COLUMN:
        return ALIAS_JOINER.join(concept.aliases)
    if column in (LINKED_COLUMN, UNLINKED_COLUMN):
        value = row.linked if column == LINKED_COLUMN else row.mentioned
        return COUNTING if value is None else str(value)
    if row.linked is None:
        return COUNTING
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
