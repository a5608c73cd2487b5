"""The tagging preview's parts: the plan as a tree of checkable mentions, the counts per
concept, and the coloured diff of one note."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ...core.tagging.matching import Occurrence
from ...core.tagging.run import NotePlan, TagPlan
from ..items import table_cells

CONTEXT = 20  # characters of the line shown on each side of a mention in the tree
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_Index = QModelIndex | QPersistentModelIndex
_ROLE = Qt.ItemDataRole
_ROOT = QModelIndex()  # the invisible root: a default argument, never changed
_NOTE_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable
)
_MENTION_FLAGS = _NOTE_FLAGS | Qt.ItemFlag.ItemNeverHasChildren


def mention_label(text: str, occ: Occurrence) -> str:
    """``line N: …context «mention» context… → [[link]]``, on one line."""
    line, line_start = _line_of(text, occ)
    begin, end = occ.start - line_start, occ.end - line_start
    before = line[max(0, begin - CONTEXT) : begin].lstrip()
    after = line[end : end + CONTEXT].rstrip()
    lead = "…" if begin - CONTEXT > 0 and before else ""
    tail = "…" if end + CONTEXT < len(line) else ""
    body = f"{lead}{before}«{occ.text}»{after}{tail}".replace("\t", " ")
    return f"line {occ.line}: {body} → {occ.link}"


def _line_of(text: str, occ: Occurrence) -> tuple[str, int]:
    """The line holding ``occ`` (without its line ending), and where it starts."""
    line_start = text.rfind("\n", 0, occ.start) + 1
    line_end = text.find("\n", occ.end)
    return text[line_start : len(text) if line_end < 0 else line_end].rstrip("\r"), line_start


class PlanModel(QAbstractItemModel):
    """A TagPlan as a two-level tree: notes, then their mentions. Each mention is checkable
    (accepted by default); a note is checked, unchecked or partly checked with its mentions,
    and checking it checks them all. Child indexes carry their note's row + 1 as internal id.

    Signals:
        accepted_changed(): a mention was accepted or rejected.
    """

    accepted_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.plan: TagPlan | None = None
        self.found: dict[str, int] = {}  # mentions per concept, most first
        self.accepted_per_concept: Counter[str] = Counter()
        self._accepted: list[bytearray] = []  # per note, one 0/1 per occurrence
        self._per_note: list[int] = []  # accepted occurrences per note
        self._labels: dict[tuple[int, int], str] = {}
        self.muted = QColor("#8a8f98")
        self.bold = QFont()
        self.bold.setBold(True)

    # ------------------------------------------------------------ state

    def set_plan(self, plan: TagPlan | None) -> None:
        self.beginResetModel()
        self.plan = plan
        notes = plan.notes if plan is not None else ()
        self._accepted = [bytearray(b"\x01") * n.count for n in notes]
        self._per_note = [n.count for n in notes]
        self.found = plan.counts() if plan is not None else {}
        self.accepted_per_concept = Counter(self.found)
        self._labels.clear()
        self.endResetModel()
        self.accepted_changed.emit()

    def note(self, row: int) -> NotePlan:
        assert self.plan is not None
        return self.plan.notes[row]

    def accepted_in(self, row: int) -> set[int]:
        return {i for i, on in enumerate(self._accepted[row]) if on}

    def accepted_map(self) -> dict[str, frozenset[int]]:
        """Per note, the indexes of its accepted occurrences (as ``apply_plan`` takes them)."""
        return {
            self.note(r).rel: frozenset(self.accepted_in(r)) for r in range(len(self._accepted))
        }

    @property
    def total_accepted(self) -> int:
        return sum(self._per_note)

    def set_accepted(self, row: int, indexes: Iterable[int], accepted: bool) -> None:
        """Accept or reject some occurrences of the note at ``row``."""
        if self._set(row, indexes, accepted):
            self._note_changed(row)
            self.accepted_changed.emit()

    def set_all(self, accepted: bool, concept: str | None = None) -> None:
        """Accept or reject every occurrence (of ``concept`` only, when given)."""
        # One layout change, not a dataChanged per note: 10,000 of those take seconds.
        self.layoutAboutToBeChanged.emit()
        if concept is None:
            before = self.total_accepted
            self._accepted = [bytearray([accepted]) * len(flags) for flags in self._accepted]
            self._per_note = [len(flags) if accepted else 0 for flags in self._accepted]
            self.accepted_per_concept = Counter(self.found if accepted else {})
            changed = self.total_accepted != before
        else:
            changed = False
            for row in range(len(self._accepted)):
                concepts = self.note(row).concepts
                wanted = (i for i, c in enumerate(concepts) if c == concept)
                changed = self._set(row, wanted, accepted) or changed
        self.layoutChanged.emit()
        if changed:
            self.accepted_changed.emit()

    def _set(self, row: int, indexes: Iterable[int], accepted: bool) -> bool:
        flags = self._accepted[row]
        concepts = self.note(row).concepts
        step = 1 if accepted else -1
        changed = False
        for i in indexes:
            if flags[i] != accepted:
                flags[i] = accepted
                self._per_note[row] += step
                self.accepted_per_concept[concepts[i]] += step
                changed = True
        return changed

    def _note_changed(self, row: int) -> None:
        note = self.index(row, 0)
        self.dataChanged.emit(note, note, [_ROLE.CheckStateRole, _ROLE.DisplayRole])
        count = len(self._accepted[row])
        first, last = self.index(0, 0, note), self.index(count - 1, 0, note)
        self.dataChanged.emit(first, last, [_ROLE.CheckStateRole, _ROLE.ForegroundRole])

    # ------------------------------------------------------------ the model interface

    # The tree calls these for every row when it lays out (10,000 notes): keep them cheap.

    def index(self, row: int, column: int, parent: _Index = _ROOT) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, 0) if row < len(self._accepted) else QModelIndex()
        note = parent.row()
        if parent.internalId() == 0 and row < len(self._accepted[note]):
            return self.createIndex(row, 0, note + 1)
        return QModelIndex()

    def parent(self, index: _Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        if not parent.isValid():
            return len(self._accepted)
        if parent.internalId() == 0 and parent.column() == 0:
            return len(self._accepted[parent.row()])
        return 0

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 1

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _NOTE_FLAGS if index.internalId() == 0 else _MENTION_FLAGS

    def data(self, index: _Index, role: int = _ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        parent = index.internalId()
        if parent == 0:
            return self._note_data(index.row(), role)
        row, i = parent - 1, index.row()
        on = bool(self._accepted[row][i])
        if role == _ROLE.DisplayRole:
            label = self._labels.get((row, i))
            if label is None:
                note = self.note(row)
                label = self._labels[row, i] = mention_label(
                    note.snapshot.text, note.occurrences[i]
                )
            return label
        if role == _ROLE.CheckStateRole:
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        if role == _ROLE.ForegroundRole and not on:
            return self.muted
        if role == _ROLE.ToolTipRole:
            note = self.note(row)
            occ = note.occurrences[i]
            line = _line_of(note.snapshot.text, occ)[0].strip()[:300]
            return f"{line}\n\n“{occ.text}” → {occ.link}\nUncheck to leave it as it is."
        return None

    def _note_data(self, row: int, role: int) -> Any:
        accepted, found = self._per_note[row], len(self._accepted[row])
        if role == _ROLE.DisplayRole:
            count = f"{found}" if accepted == found else f"{accepted} of {found}"
            return f"{self.note(row).rel}  ({count})"
        if role == _ROLE.CheckStateRole:
            if accepted == found:
                return Qt.CheckState.Checked
            return Qt.CheckState.Unchecked if accepted == 0 else Qt.CheckState.PartiallyChecked
        if role == _ROLE.ForegroundRole and accepted == 0:
            return self.muted
        if role == _ROLE.FontRole:
            return self.bold
        if role == _ROLE.ToolTipRole:
            return f"{self.note(row).rel}\nDouble-click to open the note."
        return None

    def setData(self, index: _Index, value: Any, role: int = _ROLE.EditRole) -> bool:
        if role != _ROLE.CheckStateRole or not index.isValid():
            return False
        accepted = Qt.CheckState(value) == Qt.CheckState.Checked
        if index.internalId() == 0:
            self.set_accepted(index.row(), range(len(self._accepted[index.row()])), accepted)
        else:
            self.set_accepted(index.internalId() - 1, [index.row()], accepted)
        return True


class ConceptCounts(QTableWidget):
    """Mentions per concept in a PlanModel's plan, accepted and found, with a box per
    concept that accepts or rejects all its mentions at once. Follows the model."""

    def __init__(self, model: PlanModel, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        self._model = model
        # Per row: its concept (column 0 its checkable name, 1 its accepted mentions).
        self._rows: list[str] = []
        self.setHorizontalHeaderLabels(["Concept", "Accepted", "Found"])
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setToolTip("Uncheck a concept to reject all its mentions")
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        model.accepted_changed.connect(self._on_model_accepted_changed)
        self.itemChanged.connect(self._on_item_changed)

    @Slot()
    def _on_model_accepted_changed(self) -> None:
        found = self._model.found
        if self._rows != list(found):  # another plan
            self._fill()
        self.blockSignals(True)  # a box set here is not the user's click
        for row, concept in enumerate(self._rows):
            name, cell = self.item(row, 0), self.item(row, 1)
            accepted = self._model.accepted_per_concept[concept]
            state = Qt.CheckState.Checked if accepted == found[concept] else Qt.CheckState.Unchecked
            if 0 < accepted < found[concept]:
                state = Qt.CheckState.PartiallyChecked
            name.setCheckState(state)
            cell.setText(f"{accepted:,}")
        self.blockSignals(False)

    def _fill(self) -> None:
        self._rows = []
        self.blockSignals(True)
        self.setRowCount(0)
        self.setRowCount(len(self._model.found))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for row, (concept, found) in enumerate(self._model.found.items()):
            name, accepted, total = table_cells(self, row, [concept, "", f"{found:,}"])
            name.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            accepted.setTextAlignment(right)
            total.setTextAlignment(right)
            self._rows.append(concept)
        self.blockSignals(False)

    @Slot(QTableWidgetItem)
    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            accepted = item.checkState() != Qt.CheckState.Unchecked
            self._model.set_all(accepted, self._rows[item.row()])


class DiffRow(NamedTuple):
    """One line of a diff to show: ``kind`` is "h" (file header), "@" (hunk header), "+",
    "-" or " "; ``spans`` the changed characters of a changed line (offsets after the sign);
    ``line`` its line number in the new file ("+" and " " lines)."""

    text: str
    kind: str
    spans: tuple[tuple[int, int], ...] = ()
    line: int | None = None


def diff_rows(diff: str) -> list[DiffRow]:
    """A unified diff (as ``NotePlan.diff`` makes it) as rows to show, line endings dropped."""
    lines = diff.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows: list[DiffRow] = []
    new_line = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if i < 2 and line.startswith(("--- ", "+++ ")):
            rows.append(DiffRow(line, "h"))
        elif line.startswith("@@"):
            match = _HUNK.match(line)
            new_line = int(match.group(1)) if match else 0
            rows.append(DiffRow(line, "@"))
        elif line.startswith("-"):
            # A run of removed lines, then as many added ones: each line was changed.
            j = i
            while j < len(lines) and lines[j].startswith("-"):
                j += 1
            k = j
            while k < len(lines) and lines[k].startswith("+"):
                k += 1
            pairs = list(zip(lines[i:j], lines[j:k], strict=False)) if k - j == j - i else []
            spans = [_changed_spans(old[1:], new[1:]) for old, new in pairs]
            for n, old in enumerate(lines[i:j]):
                rows.append(DiffRow(old, "-", spans[n][0] if spans else ()))
            for n, new in enumerate(lines[j:k]):
                rows.append(DiffRow(new, "+", spans[n][1] if spans else (), new_line))
                new_line += 1
            i = k
            continue
        else:
            kind = "+" if line.startswith("+") else " "
            rows.append(DiffRow(line, kind, (), new_line))
            new_line += 1
        i += 1
    return rows


class DiffView(QPlainTextEdit):
    """A unified diff, read-only and monospaced: added lines green, removed lines red, the
    characters that changed within a line stronger."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))

    def show_diff(self, diff: str, focus_line: int | None = None) -> None:
        """Show ``diff``; scroll to the added line ``focus_line`` of the new file if shown."""
        colours = self._colours()
        self.clear()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        focus = -1
        for number, row in enumerate(diff_rows(diff)):
            block = QTextBlockFormat()
            plain = QTextCharFormat()
            if row.kind in "+-":
                block.setBackground(colours[row.kind])
            elif row.kind == "@":
                plain.setForeground(colours["@"])
            elif row.kind == "h":
                plain.setForeground(colours["h"])
                plain.setFontWeight(QFont.Weight.Bold)
            if number:
                cursor.insertBlock(block, plain)
            else:
                cursor.setBlockFormat(block)
                cursor.setBlockCharFormat(plain)
            strong = QTextCharFormat(plain)
            strong.setBackground(colours[row.kind * 2] if row.kind in "+-" else QColor())
            at = 0
            for start, end in row.spans:  # offsets after the line's sign
                cursor.insertText(row.text[at : start + 1], plain)
                cursor.insertText(row.text[start + 1 : end + 1], strong)
                at = end + 1
            cursor.insertText(row.text[at:], plain)
            if row.kind == "+" and row.line == focus_line:
                focus = number
        cursor.endEditBlock()
        if focus >= 0:
            self.setTextCursor(QTextCursor(self.document().findBlockByNumber(focus)))
            self.centerCursor()
        else:
            self.moveCursor(QTextCursor.MoveOperation.Start)

    def _colours(self) -> dict[str, QColor]:
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        names = (
            {"+": "#15301f", "++": "#23633a", "-": "#3a1619", "--": "#7a2a2f", "@": "#8ab4f8"}
            if dark
            else {"+": "#e6ffec", "++": "#a6eab8", "-": "#ffebe9", "--": "#ffb3ad", "@": "#2456b3"}
        )
        colours = {key: QColor(value) for key, value in names.items()}
        colours["h"] = self.palette().color(QPalette.ColorRole.Mid)
        return colours


def _changed_spans(
    old: str, new: str
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Where two versions of a line differ: spans in ``old``, spans in ``new``."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    removed, added = [], []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag != "equal":
            if a2 > a1:
                removed.append((a1, a2))
            if b2 > b1:
                added.append((b1, b2))
    return tuple(removed), tuple(added)
