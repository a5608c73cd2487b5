"""The Timeline tab's view: the notes mentioning the chosen concepts per day, week or month
as a pyqtgraph plot (stacked bars or lines), linked and unlinked mentions told apart; a
period's notes listed under it, newest first, a click opening one."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .plot import TimelinePlot, nice_day

if TYPE_CHECKING:
    from ...core.insight.timeline import DatedMention, Timeline

PERIOD_NAMES = {"day": "Day", "week": "Week", "month": "Month"}
ROLE_CONCEPT = Qt.ItemDataRole.UserRole  # of the concept list's items
ROLE_NOTE = Qt.ItemDataRole.UserRole  # of the notes list's rows, with their line
ROLE_LINE = Qt.ItemDataRole.UserRole + 1
_LINE_MARKER = re.compile(r"^\s*(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+|#{1,6}\s+|>\s*)+")


def _plain_line(text: str) -> str:
    """A mentioning line without its list, quote or heading marker."""
    return _LINE_MARKER.sub("", text).strip()


NO_CONCEPTS = (
    "This vault has no concept dictionary, or an empty one: no concepts to plot.\n"
    "Start one in the Dictionary tab (a starter, or New concept…)."
)


class TimelineView(QWidget):
    """Concepts to choose (left); the period, the plot's style and whether notes dated by
    their file time count (top); a summary per concept, the plot, and the notes of the
    period clicked.

    Signals:
        query_changed(object, str, bool): the concepts chosen (a tuple of ids, in the
            dictionary's order), the period ("day", "week", "month"), whether notes dated
            by file time are plotted.
        note_activated(str, int): a listed note was clicked (its path, the mentioning line).
    """

    query_changed = Signal(object, str, bool)
    note_activated = Signal(str, int)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        super().__init__(parent)
        self.dark = dark
        self.timeline: Timeline | None = None
        self.period: dt.date | None = None  # the period whose notes are listed
        self._ids: tuple[str, ...] | None = None  # None: not listed yet
        self._build()

    # ------------------------------------------------------------ building

    def _build(self) -> None:
        self.filter = QLineEdit(placeholderText="Filter concepts", clearButtonEnabled=True)
        self.concept_list = QListWidget()
        self.concept_list.setToolTip("Tick the concepts to plot")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(4, 4, 0, 4)
        left_layout.setSpacing(4)
        left_layout.addWidget(QLabel("Concepts"))
        left_layout.addWidget(self.filter)
        left_layout.addWidget(self.concept_list, 1)

        self.by_box = QComboBox()
        for value, name in PERIOD_NAMES.items():
            self.by_box.addItem(f"By {name.lower()}", value)
        self.by_box.setCurrentIndex(1)
        self.style_box = QComboBox()
        self.style_box.addItem("Stacked bars", "bars")
        self.style_box.addItem("Lines", "lines")
        self.file_time_box = QCheckBox("Count notes dated by file time")
        self.file_time_box.setToolTip(
            "Notes with no date in their front matter or name are dated by their file's "
            "modification time, which a copy or a clone resets: left out unless ticked"
        )
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.by_box)
        bar.addWidget(self.style_box)
        bar.addWidget(self.file_time_box)
        bar.addStretch(1)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.key = QLabel()
        self.key.setWordWrap(True)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.plot = TimelinePlot(dark=self.dark)
        self.plot.period_clicked.connect(self._on_plot_period_clicked)

        self.period_title = QLabel("Click a period to list its notes.")
        self.notes = QTreeWidget()
        self.notes.setHeaderLabels(["Date", "Note", "Concept", "Link", "Mention"])
        self.notes.setRootIsDecorated(False)
        self.notes.setUniformRowHeights(True)
        self.notes.setAlternatingRowColors(True)
        header = self.notes.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # The mention (the last column, stretched) is what a reader reads: the others keep
        # to what their values need (a cell's tooltip holds all of it).
        for column, width in enumerate((84, 120, 112, 62)):
            self.notes.setColumnWidth(column, width)
        below = QWidget()
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.setSpacing(2)
        below_layout.addWidget(self.period_title)
        below_layout.addWidget(self.notes, 1)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(4)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.summary)
        top_layout.addWidget(self.plot, 1)
        top_layout.addWidget(self.key)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(top)
        self.split.addWidget(below)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        self.split.setSizes([520, 200])
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 4, 4, 4)
        right_layout.addWidget(self.split)

        outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(left)
        outer.addWidget(right)
        outer.setStretchFactor(0, 0)
        outer.setStretchFactor(1, 1)
        outer.setSizes([190, 800])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(outer)

        self.filter.textChanged.connect(self._on_filter_text_changed)
        self.concept_list.itemChanged.connect(self._on_concept_list_item_changed)
        self.by_box.currentIndexChanged.connect(self._on_option_changed)
        self.file_time_box.toggled.connect(self._on_option_changed)
        self.style_box.currentIndexChanged.connect(self._on_style_box_changed)
        self.notes.itemClicked.connect(self._on_notes_item_clicked)
        self._show_empty(self._nothing_chosen())

    # ------------------------------------------------------------ the query

    def _nothing_chosen(self) -> str:
        """What the empty plot says: tick a concept, or, with none to tick, why."""
        if self._ids is None:
            return "Reading the concept dictionary…"
        if not self._ids:
            return NO_CONCEPTS
        return "Tick one or more concepts on the left."

    def query(self) -> tuple[tuple[str, ...], str, bool]:
        return self.chosen(), str(self.by_box.currentData()), self.file_time_box.isChecked()

    def chosen(self) -> tuple[str, ...]:
        items = (self.concept_list.item(i) for i in range(self.concept_list.count()))
        return tuple(
            str(item.data(ROLE_CONCEPT))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        )

    def set_concepts(self, ids: tuple[str, ...]) -> None:
        """The dictionary's concepts, in its order; those chosen stay chosen."""
        if ids == self._ids:
            return
        self._ids = ids
        chosen = set(self.chosen())
        self.concept_list.blockSignals(True)
        try:
            self.concept_list.clear()
            for cid in ids:
                item = QListWidgetItem(cid)
                item.setData(ROLE_CONCEPT, cid)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(
                    Qt.CheckState.Checked if cid in chosen else Qt.CheckState.Unchecked
                )
                self.concept_list.addItem(item)
        finally:
            self.concept_list.blockSignals(False)
        self._on_filter_text_changed(self.filter.text())
        if chosen != set(self.chosen()):
            self._emit_query()
        if not ids:
            self._show_empty(self._nothing_chosen())

    def choose(self, concepts: tuple[str, ...]) -> None:
        """Tick exactly these concepts (ids of the list; others are ignored)."""
        wanted = set(concepts)
        self.concept_list.blockSignals(True)
        try:
            for i in range(self.concept_list.count()):
                item = self.concept_list.item(i)
                on = item.data(ROLE_CONCEPT) in wanted
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        finally:
            self.concept_list.blockSignals(False)
        self._emit_query()

    def _emit_query(self) -> None:
        concepts, by, file_time = self.query()
        if concepts:
            self.summary.setText("Reading the notes…")
        else:
            self.timeline = None
            self._show_empty(self._nothing_chosen())
        self.query_changed.emit(concepts, by, file_time)

    @Slot(str)
    def _on_filter_text_changed(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.concept_list.count()):
            item = self.concept_list.item(i)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    @Slot(QListWidgetItem)
    def _on_concept_list_item_changed(self, _item: QListWidgetItem) -> None:
        self._emit_query()

    @Slot()
    def _on_option_changed(self) -> None:
        self._emit_query()

    @Slot()
    def _on_style_box_changed(self) -> None:
        if self.timeline is not None:
            self.show_timeline(self.timeline)

    # ------------------------------------------------------------ drawing

    def show_status(self, text: str) -> None:
        self.summary.setText(html.escape(text))

    def show_timeline(self, timeline: Timeline) -> None:
        """Draw a timeline (the last one asked for: an older one is dropped)."""
        if tuple(c.concept for c in timeline.concepts) != self.chosen():
            return  # the choice changed since it was asked for
        if timeline.by != self.by_box.currentData():
            return
        self.timeline = timeline
        self.summary.setText(self._summary(timeline))
        self.key.setText(self._key(timeline))
        periods = timeline.periods
        if not timeline.concepts:
            self.plot.show_empty(self._nothing_chosen())
        elif not periods:
            self.plot.show_empty("No note mentioning them has a date of its own.")
        else:
            self.plot.draw(timeline, str(self.style_box.currentData()))
        if self.period is not None and self.period in periods:
            self._list_period(self.period)
        else:
            self._list_period(None)

    def _show_empty(self, text: str) -> None:
        self.summary.setText("")
        self.key.setText("")
        self.plot.show_empty(text)
        self._list_period(None)

    def _summary(self, timeline: Timeline) -> str:
        rows = []
        for i, concept in enumerate(timeline.concepts):
            colour = self.plot.colour(i).name()
            linked = sum(b.linked for b in concept.bins)
            unlinked = sum(b.unlinked for b in concept.bins)
            text = f'<span style="color:{colour}">■</span> <b>{html.escape(concept.concept)}</b> '
            if concept.first is None:
                text += "no note with a date of its own"
            else:
                text += (
                    f"{concept.dated} dated {'note' if concept.dated == 1 else 'notes'}: "
                    f"{linked} linked, {unlinked} unlinked · "
                    f"first {nice_day(concept.first)} · last {nice_day(concept.last)}"
                )
            rows.append(text)
        apart = [(c.concept, len(c.by_file_time)) for c in timeline.concepts if c.by_file_time]
        if apart:
            counts = ", ".join(f"{html.escape(cid)} {n}" for cid, n in apart)
            if self.file_time_box.isChecked():
                rows.append(f"<i>Dated by their file time only (drawn apart): {counts}</i>")
            else:
                rows.append(
                    f"<i>Not counted, dated by their file time only: {counts} "
                    "(tick “Count notes dated by file time” to plot them)</i>"
                )
        return "<br>".join(rows)

    def _key(self, timeline: Timeline) -> str:
        grey = "#9aa0a6" if self.dark else "#6a6f76"
        if self.style_box.currentData() == "lines":
            parts = ["solid: linked", "dashed: unlinked (an alias written without a link)"]
            if self.file_time_box.isChecked():
                parts.append("dotted: dated by file time")
        else:
            parts = ["full: linked", "faint: unlinked (an alias written without a link)"]
            if self.file_time_box.isChecked():
                parts.append("hatched: dated by file time")
        parts.append("thin vertical lines: first (▶) and last (◀) appearance")
        noun = PERIOD_NAMES[timeline.by].lower()
        return (
            f'<span style="color:{grey}">Notes per {noun}, each once per concept — '
            + " · ".join(parts)
            + ". Click a period to list its notes.</span>"
        )

    # ------------------------------------------------------------ periods

    def select_period(self, period: dt.date | None) -> None:
        """List the notes of ``period`` (None: none), newest first, and mark it."""
        self._list_period(period)

    def _list_period(self, period: dt.date | None) -> None:
        self.period = period
        self.notes.clear()
        timeline = self.timeline
        if period is None or timeline is None:
            self.plot.mark_period(None)
            self.period_title.setText("Click a period to list its notes.")
            return
        self.plot.mark_period(period)
        found = timeline.notes_in(period)
        count = len({m.note for m in found})
        notes = f"{count} note" if count == 1 else f"{count} notes"
        if len(found) > count:  # a note mentioning several concepts: a row for each
            notes += f" ({len(found)} mentions)"
        self.period_title.setText(
            f"{timeline.label(period)}: {notes}, newest first — click one to open it"
            if found
            else f"{timeline.label(period)}: no note"
        )
        colours = {c.concept: self.plot.colour(i) for i, c in enumerate(timeline.concepts)}
        rows = [self._row(m) for m in found]
        for m, row in zip(found, rows, strict=True):
            row.setForeground(2, colours[m.concept])
        self.notes.addTopLevelItems(rows)

    def _row(self, m: DatedMention) -> QTreeWidgetItem:
        how = "linked" if m.linked else "unlinked"
        title = m.note.rsplit("/", 1)[-1].removesuffix(".md")
        item = QTreeWidgetItem([m.date.isoformat(), title, m.concept, how, _plain_line(m.text)])
        if m.by_file_time:  # a date to take with care: in italics, its tooltip says why
            font = item.font(0)
            font.setItalic(True)
            item.setFont(0, font)
        item.setData(0, ROLE_NOTE, m.note)
        item.setData(0, ROLE_LINE, m.line)
        dated = {"front-matter": "its front matter", "name": "its name", "mtime": "its file's time"}
        item.setToolTip(0, f"dated by {dated.get(m.dated_by, m.dated_by)}")
        item.setToolTip(1, m.note)
        item.setToolTip(3, "the note links the concept" if m.linked else "an alias, not linked")
        item.setToolTip(4, f"line {m.line}: {m.text.strip()}")
        return item

    @Slot(QTreeWidgetItem, int)
    def _on_notes_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        self.note_activated.emit(str(item.data(0, ROLE_NOTE)), int(item.data(0, ROLE_LINE)))

    @Slot(object)
    def _on_plot_period_clicked(self, period: dt.date) -> None:
        self._list_period(period)
