"""The split of a dump, previewed: each section and the note it goes to (the user unticks a
section to keep it, or names another note for it), the new index, the links rewritten."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from ...core.library.split import SplitPlan

MAX_ROWS = 2_000  # sections listed; the rest move as planned (the summary says how many)
EDIT_DELAY_MS = 400  # edits in a row ask for one plan
NUMBER_ROLE = Qt.ItemDataRole.UserRole + 1
SECTION, LINES, TARGET = range(3)


class SplitDialog(QDialog):
    """Shows one SplitPlan. Unticking a section keeps it in the note; editing a new note's
    path sends the section there (one path for several sections merges them): either asks
    for a fresh plan (``options_changed``), shown when it comes (``show_split``). "Split"
    writes the plan shown (``confirmed``).

    Signals:
        options_changed(str, object, object, str): the dump's path, the section numbers to
            keep (a tuple), the sections sent to notes the user named (a dict), and "day"
            or "month" (a log a day, or a month).
        confirmed(object): the user accepted the plan shown (write it).
    """

    options_changed = Signal(str, object, object, str)
    confirmed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Split into a library")
        self.resize(900, 640)
        self.plan: SplitPlan | None = None
        self._filling = False
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.sections = QTreeWidget()
        self.sections.setColumnCount(3)
        self.sections.setHeaderLabels(
            ["Section (untick to keep it in the note)", "Lines", "New note"]
        )
        self.sections.setRootIsDecorated(False)
        self.sections.setUniformRowHeights(True)
        self.sections.setAlternatingRowColors(True)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.index_text = QPlainTextEdit(readOnly=True)
        self.index_text.setFont(mono)
        self.index_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.links = QPlainTextEdit(readOnly=True)
        self.links.setFont(mono)
        self.links.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.logs = QComboBox()
        self.logs.addItem("One log a day", "day")
        self.logs.addItem("One log a month", "month")
        self.logs.setToolTip("Where the dated sections go: logs/2024-03-01.md, or logs/2024-03.md")
        self.below = QTabWidget()
        self.below.addTab(self.index_text, "The new index")
        self.below.addTab(self.links, "Links rewritten")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.sections)
        split.addWidget(self.below)
        split.setSizes([380, 220])
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Split")
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.logs, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self, singleShot=True, interval=EDIT_DELAY_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.sections.itemChanged.connect(self._on_sections_item_changed)
        self.logs.currentIndexChanged.connect(self._on_logs_current_index_changed)

    # ------------------------------------------------------------ showing

    def show_split(self, plan: SplitPlan, note: str = "") -> None:
        """Show ``plan`` (``note``: a sentence above the summary, e.g. why it is a fresh
        plan) and open the dialog if it is not open."""
        self.plan = plan
        self._timer.stop()
        self._filling = True
        self.logs.setCurrentIndex(max(0, self.logs.findData(plan.options.logs)))
        self._filling = False
        self.summary.setText(_summary(plan, note))
        self._fill(plan)
        self.index_text.setPlainText(plan.index_text)
        self.links.setPlainText(
            "\n".join(f"{c.note}:{c.line}   {c.before}  →  {c.after}" for c in plan.link_changes)
            or "No link points at a heading that moves."
        )
        self.below.setTabText(1, f"Links rewritten ({len(plan.link_changes)})")
        self.ok.setEnabled(not plan.empty)
        if not self.isVisible():
            self.open()

    def rows(self) -> list[tuple[bool, str, str]]:
        """(moves, section, new note) per row shown (tests)."""
        out = []
        for i in range(self.sections.topLevelItemCount()):
            item = self.sections.topLevelItem(i)
            checked = item.checkState(SECTION) == Qt.CheckState.Checked
            out.append((checked, item.text(SECTION), item.text(TARGET)))
        return out

    def _fill(self, plan: SplitPlan) -> None:
        self._filling = True
        self.sections.clear()
        items = []
        for section in plan.shape.sections[:MAX_ROWS]:
            target = plan.section_targets.get(section.number, "")
            item = QTreeWidgetItem(
                [f"{section.number}. {section.title}", f"{section.end - section.first:,}", target]
            )
            item.setData(SECTION, NUMBER_ROLE, section.number)
            item.setTextAlignment(LINES, Qt.AlignmentFlag.AlignRight)
            if section.grouping:
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                item.setText(TARGET, "stays: a heading over the sections below it")
            else:
                item.setFlags(
                    Qt.ItemFlag.ItemIsEnabled
                    | Qt.ItemFlag.ItemIsSelectable
                    | Qt.ItemFlag.ItemIsUserCheckable
                    | (Qt.ItemFlag.ItemIsEditable if target else Qt.ItemFlag.NoItemFlags)
                )
                moved = section.number in plan.section_targets
                item.setCheckState(
                    SECTION, Qt.CheckState.Checked if moved else Qt.CheckState.Unchecked
                )
                if not moved:
                    item.setText(TARGET, f"stays in {plan.dump}")
            items.append(item)
        self.sections.addTopLevelItems(items)
        for column in (SECTION, LINES):
            self.sections.resizeColumnToContents(column)
        self.sections.setColumnWidth(SECTION, min(self.sections.columnWidth(SECTION), 420))
        self._filling = False

    # ------------------------------------------------------------ edits

    @Slot(QTreeWidgetItem, int)
    def _on_sections_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or self.plan is None:
            return
        if column == SECTION:
            moves = item.checkState(SECTION) == Qt.CheckState.Checked
            editable = item.flags() | Qt.ItemFlag.ItemIsEditable
            self._filling = True  # a change of flags is an itemChanged too
            item.setFlags(editable if moves else editable & ~Qt.ItemFlag.ItemIsEditable)
            self._filling = False
        self.ok.setEnabled(False)  # the plan shown is no longer the one asked for
        self.summary.setText("Planning again…")
        self._timer.start()

    @Slot(int)
    def _on_logs_current_index_changed(self, _index: int) -> None:
        if self._filling or self.plan is None:
            return
        self.ok.setEnabled(False)
        self.summary.setText("Planning again…")
        self._timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        plan = self.plan
        if plan is None:
            return
        keep: list[int] = []
        to: dict[int, str] = {}
        for i in range(self.sections.topLevelItemCount()):
            item = self.sections.topLevelItem(i)
            number = int(item.data(SECTION, NUMBER_ROLE))
            if not item.flags() & Qt.ItemFlag.ItemIsUserCheckable:
                continue
            if item.checkState(SECTION) != Qt.CheckState.Checked:
                keep.append(number)
                continue
            chosen = item.text(TARGET).strip()
            if chosen and chosen != plan.section_targets.get(number):
                to[number] = chosen
        # what the plan shown was asked with, and the rows past MAX_ROWS, still hold
        to = {**dict(plan.options.to), **to}
        for number in keep:
            to.pop(number, None)
        self.options_changed.emit(plan.dump, tuple(keep), to, str(self.logs.currentData()))

    @Slot()
    def _on_buttons_accepted(self) -> None:
        plan, self.plan = self.plan, None
        self.accept()
        if plan is not None:
            self.confirmed.emit(plan)


def _summary(plan: SplitPlan, note: str) -> str:
    report = plan.report
    logs = sum(1 for t in plan.targets if t.kind == "log")
    index_lines = plan.index_text.count("\n")
    text = (
        f"<b>{html.escape(plan.dump)}</b>: {report.lines:,} lines · ~{report.tokens:,} tokens · "
        f"{report.sections:,} sections ({report.dated:,} dated, {report.topics:,} by topic)"
        f"<br>Into <b>{len(plan.targets):,} notes</b> ({logs:,} logs, "
        f"{len(plan.targets) - logs:,} on topics) and an index of {index_lines:,} lines that "
        "points at them. Every line lands in one note; Edit → Undo takes it all back."
    )
    if len(plan.shape.sections) > MAX_ROWS:
        more = len(plan.shape.sections) - MAX_ROWS
        text += f"<br>The first {MAX_ROWS:,} sections are listed; {more:,} more move as planned."
    for warning in plan.warnings:
        text += f"<br>⚠ {html.escape(warning)}"
    if note:
        text = f"<b>{html.escape(note)}</b><br>{text}"
    return text
