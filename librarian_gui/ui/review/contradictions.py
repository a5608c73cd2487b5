"""The Review tab's Contradictions page: candidates, most sure first, then newest; the
selected one's two passages side by side, newer on the left, with their dates; a button that
previews the newer note's "supersedes" mark. Found without a language model: the page says
they are candidates, not truths."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.vault.urls import shown_path
from ..plan_dialog import PlanDialog

if TYPE_CHECKING:
    from ...core.review.contradictions import Candidate, Side
    from ...core.review.supersede import SupersedePlan

ROW_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_ROWS = 2_000  # candidates listed; the summary says how many there are
COLUMN_WIDTH = 190  # at most, so that both notes show; a row's tooltip has all
KIND_NAMES = {"choice": "a choice", "negation": "one negates the other", "number": "a number"}
KIND_NAMES["date"] = "a date"
SURENESS = {0.9: "likely", 0.8: "likely", 0.6: "maybe"}


def what_differs(candidate: Candidate) -> str:
    if candidate.kind == "choice":
        return f"chose {candidate.newer.said} / {candidate.older.said}"
    if candidate.kind == "negation":
        return "a sentence and its negation"
    return f"{candidate.about}: {candidate.newer.said} / {candidate.older.said}"


class ContradictionsPane(QWidget):
    """The candidates as a list above the selected one's two passages.

    Signals:
        supersede_requested(object, object): preview marking the newer note (a vault path)
            as superseding the older one.
        line_opened(object, int): a side's title was clicked (its note, its first line).
    """

    supersede_requested = Signal(object, object)
    line_opened = Signal(object, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.candidates: list[Candidate] | None = None
        self.summary = QLabel("Contradiction candidates: gathering…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setContentsMargins(4, 4, 4, 2)
        self.supersede_button = QPushButton("Newer supersedes older…")
        self.supersede_button.setToolTip(
            'Preview supersedes: "[[older]]" in the newer note\'s front matter; '
            "written only on confirm, Edit → Undo reverts it"
        )
        buttons = QHBoxLayout()
        buttons.setContentsMargins(4, 0, 4, 0)
        buttons.addWidget(self.supersede_button)
        buttons.addStretch(1)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(5)
        self.tree.setHeaderLabels(["Concept", "What differs", "Evidence", "Newer", "Older"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.newer = _side_view()
        self.older = _side_view()
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.newer)
        sides.addWidget(self.older)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(sides)
        split.setSizes([260, 240])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        layout.addWidget(split, 1)
        self.supersede_button.clicked.connect(self._on_supersede_button_clicked)
        self.tree.currentItemChanged.connect(self._on_tree_current_item_changed)
        self.newer.anchorClicked.connect(self._on_side_anchor_clicked)
        self.older.anchorClicked.connect(self._on_side_anchor_clicked)
        self._show(None)

    def show_candidates(self, candidates: list[Candidate]) -> None:
        current = self.current()
        key = (current.newer.note, current.older.note, current.kind) if current else None
        self.candidates = list(candidates)
        self.tree.clear()
        select: QTreeWidgetItem | None = None
        for number, c in enumerate(self.candidates[:MAX_ROWS]):
            row = QTreeWidgetItem(
                [
                    c.concept,
                    what_differs(c),
                    f"{SURENESS.get(c.sureness, 'maybe')} ({KIND_NAMES[c.kind]})",
                    f"{c.newer.date}  {shown_path(c.newer.note.removesuffix('.md'))}",
                    f"{c.older.date}  {shown_path(c.older.note.removesuffix('.md'))}",
                ]
            )
            row.setData(0, ROW_ROLE, number)
            for column, text in enumerate(
                (c.concept, c.about, KIND_NAMES[c.kind], c.newer.note, c.older.note)
            ):
                row.setToolTip(column, text)
            self.tree.addTopLevelItem(row)
            if key == (c.newer.note, c.older.note, c.kind):
                select = row
        for column in range(4):  # the last one stretches
            self.tree.resizeColumnToContents(column)
            self.tree.setColumnWidth(column, min(self.tree.columnWidth(column), COLUMN_WIDTH))
        count = len(self.candidates)
        shown = f" (the first {MAX_ROWS:,} listed)" if count > MAX_ROWS else ""
        self.summary.setText(
            f"<b>{count:,} contradiction candidate{'' if count == 1 else 's'}</b>{shown} — "
            "passages of two notes about one concept that state a different choice, number "
            "or date, or negate each other. "
            "Found without a language model: <i>candidates, not truths</i>; the likeliest "
            "first, then the newest."
            if count
            else "<b>No contradiction candidates</b>: no two notes about one concept state "
            "a different choice, number or date, or negate each other (found without a "
            "language model, so some may be missed)."
        )
        if select is None and self.tree.topLevelItemCount():
            select = self.tree.topLevelItem(0)
        if select is not None:
            self.tree.setCurrentItem(select)
        else:
            self._show(None)

    def current(self) -> Candidate | None:
        item = self.tree.currentItem()
        if item is None or self.candidates is None:
            return None
        return self.candidates[int(item.data(0, ROW_ROLE))]

    def rows(self) -> list[tuple[str, ...]]:
        """Each row's texts, in order (tests)."""
        return [
            tuple(self.tree.topLevelItem(i).text(c) for c in range(5))
            for i in range(self.tree.topLevelItemCount())
        ]

    def _show(self, candidate: Candidate | None) -> None:
        self.supersede_button.setEnabled(candidate is not None)
        if candidate is None:
            for view, which in ((self.newer, "newer"), (self.older, "older")):
                view.setHtml(
                    f'<p style="color: gray"><i>The {which} passage of the selected candidate '
                    "shows here, with its note's date.</i></p>"
                )
            return
        self.newer.setHtml(_side_html("Newer", candidate.newer))
        self.older.setHtml(_side_html("Older", candidate.older))

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_tree_current_item_changed(
        self, _current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None
    ) -> None:
        self._show(self.current())

    @Slot()
    def _on_supersede_button_clicked(self) -> None:
        candidate = self.current()
        if candidate is not None:
            self.supersede_requested.emit(candidate.newer.note, candidate.older.note)

    @Slot(QUrl)
    def _on_side_anchor_clicked(self, url: QUrl) -> None:
        candidate = self.current()
        if candidate is None:
            return
        side = candidate.newer if url.toString() == "#newer" else candidate.older
        self.line_opened.emit(side.note, side.first)


def _side_view() -> QTextBrowser:
    view = QTextBrowser()
    view.setOpenLinks(False)
    view.setOpenExternalLinks(False)
    return view


def _side_html(which: str, side: Side) -> str:
    """A side: which it is and its date, its note and lines (a link that opens it there),
    then its paragraph, what it states in bold."""
    lines = f"line {side.first}" if side.first == side.last else f"lines {side.first}–{side.last}"
    text = html.escape(side.passage or side.said)
    said = html.escape(side.said)
    if said and len(said) < len(text):
        text = re.sub(re.escape(said), lambda m: f"<b>{m.group()}</b>", text, count=1, flags=re.I)
    text = text.replace("\n", "<br>")
    anchor = f"#{which.lower()}"
    return (
        f"<p><b>{which}</b> · {html.escape(side.date)}<br>"
        f'<a href="{anchor}">{html.escape(shown_path(side.note))}</a>, {lines}</p>'
        f'<p style="margin-left: 10px">{text}</p>'
    )


class SupersedeDialog(PlanDialog):
    """The preview of a "supersedes" mark: the newer note's diff, written only on "Mark"
    (``confirmed``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Mark as superseding", 640, 360, "Mark", parent)

    def show_mark(self, plan: SupersedePlan) -> None:
        if plan.already:
            self.show_plan(
                plan,
                f"<b>{html.escape(plan.note)}</b> names <b>[[{html.escape(plan.name)}]]</b> "
                "in its supersedes property already: nothing to write.",
                can_confirm=False,
            )
            return
        self.show_plan(
            plan,
            f"Mark <b>{html.escape(plan.note)}</b> as superseding "
            f"<b>{html.escape(plan.older)}</b>: the property supersedes: "
            f"“[[{html.escape(plan.name)}]]” in its front matter. The pair leaves the "
            "candidates. Edit → Undo takes it back.",
        )
