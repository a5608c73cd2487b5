"""The Index note pane: the index note's figures (lines, bytes, tokens, against what agents
load), the notes it does not list, its dead links and the entries holding text, each row a
click away, and the button that previews the Fix."""

from __future__ import annotations

import html
import posixpath
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.vault.urls import shown_path
from ..items import path_data, path_of_data, tree_rows
from ..plan_dialog import PlanDialog
from ..when_shown import FillWhenShown

if TYPE_CHECKING:
    from ...core.insight.index_note import DatedFolder, IndexNoteHealth
    from ...core.insight.index_note_fix import IndexNoteFixPlan

PATH_ROLE = Qt.ItemDataRole.UserRole + 1  # the note to open (path_data)
LINE_ROLE = Qt.ItemDataRole.UserRole + 2  # the line of it to open at, or None
MAX_SHOWN = 500  # rows per group; the count says how many there are
UNLISTED, DEAD, TEXT, DATED, DUMPS = range(5)
_HEADS = ("Not listed", "Dead links", "Holding text", "Dated folders", "Dumps")
_TIPS = (
    "Notes the index note does not link, nor cover by a folder entry: Fix adds one entry "
    "per note, one per dated folder",
    "Links in the index note that reach no note, attachment, concept or folder",
    "List items with more than a link and a short description: an index points, the "
    "notes hold the text",
    "Folders of notes named by dates (diaries, logs): one entry stands for each",
    "Notes grown too long for an agent to load, made of many sections: Split turns one "
    "into daily logs and topic notes under an index that points",
)


def _title(rel: str) -> str:
    return shown_path(rel.rsplit("/", 1)[-1].removesuffix(".md"))


def _size(count: int) -> str:
    return f"{count:,} bytes" if count < 1024 else f"{count / 1024:.1f} KB"


class IndexNotePane(QWidget):
    """The figures, a Fix button and four groups (UNLISTED, DEAD, TEXT, DATED).

    Signals:
        note_opened(object): a note's row was clicked (its vault path).
        line_opened(object, int): a row about a line of the index note was clicked.
        fix_requested(): the Fix button was clicked (preview the missing entries).
        split_requested(str): the Split button was clicked: the dump to split (the one
            selected in the Dumps group, else the first).
        scope_changed(str, object): the user named another index note (a vault path) or
            other notes to leave out (a tuple of glob patterns).
    """

    note_opened = Signal(object)
    line_opened = Signal(object, int)
    fix_requested = Signal()
    split_requested = Signal(str)
    scope_changed = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.health: IndexNoteHealth | None = None
        self.figures = QLabel()
        self.figures.setWordWrap(True)
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.figures.setContentsMargins(4, 4, 4, 2)
        self.fix_button = QPushButton("Add missing entries…")
        self.fix_button.setToolTip(
            "Preview the entries the index note lacks, then add them at its end "
            "(Edit → Undo takes them back)"
        )
        self.split_button = QPushButton("Split into a library…")
        self.split_button.setToolTip(
            "Preview how a dump splits into daily logs and topic notes under an index that "
            "points; nothing is written until you confirm (Edit → Undo takes it back)"
        )
        self.index_edit = QLineEdit()
        self.index_edit.setToolTip("The index note, a vault path (MEMORY.md by default)")
        self.exclude_edit = QLineEdit()
        self.exclude_edit.setPlaceholderText("templates, archive/*")
        self.exclude_edit.setToolTip(
            "Notes that need no entry: glob patterns over a note's path or one of its "
            "folders, separated by commas"
        )
        form = QFormLayout()
        form.setContentsMargins(4, 0, 4, 0)
        form.addRow("Index", self.index_edit)
        form.addRow("Leave out", self.exclude_edit)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(2)  # what, and where (the path, the link's target)
        self.tree.setUniformRowHeights(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(form)
        layout.addWidget(self.figures)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(4, 0, 4, 0)
        buttons.addWidget(self.fix_button)
        buttons.addWidget(self.split_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(self.tree, 1)
        self.fix_button.clicked.connect(self.fix_requested)
        self.split_button.clicked.connect(self._on_split_button_clicked)
        self.index_edit.editingFinished.connect(self._on_scope_edited)
        self.exclude_edit.editingFinished.connect(self._on_scope_edited)
        self.tree.itemClicked.connect(self._on_tree_item_clicked)
        self.tree.itemActivated.connect(self._on_tree_item_clicked)
        self._when_shown = FillWhenShown(self, self._fill)
        self._fill()

    def show_scope(self, index_note: str, exclude: tuple[str, ...]) -> None:
        """The index note and the patterns left out, as the fields show them."""
        self.index_edit.setText(index_note)
        self.exclude_edit.setText(", ".join(exclude))

    def scope(self) -> tuple[str, tuple[str, ...]]:
        """The index note (``.md`` added, slashes forward) and the patterns, as typed."""
        note = posixpath.normpath(self.index_edit.text().strip().replace("\\", "/").lstrip("/"))
        if note in ("", ".") or note.startswith("../") or note == "..":  # not in the vault
            note = "MEMORY.md"
        if not note.lower().endswith(".md"):
            note += ".md"
        patterns = tuple(p.strip() for p in self.exclude_edit.text().split(",") if p.strip())
        return note, patterns

    def show_health(self, health: IndexNoteHealth) -> None:
        """The figures now; the rows once the pane is in sight (a check runs after every
        batch of changes)."""
        self.health = health
        self.figures.setText(_figures(health))
        self.fix_button.setEnabled(bool(health.missing))
        self.split_button.setEnabled(bool(health.dumps))
        self._when_shown.changed()

    def group(self, which: int) -> QTreeWidgetItem:
        """The top-level row of a group (UNLISTED, DEAD, TEXT, DATED), as last shown."""
        self._when_shown.now()
        return self.tree.topLevelItem(which)

    def rows(self, which: int) -> list[str]:
        """The texts a group lists, in order (tests)."""
        group = self.group(which)
        return [group.child(i).text(0) for i in range(group.childCount())]

    # ------------------------------------------------------------ showing

    def _fill(self) -> None:
        health = self.health
        expanded = [
            self.tree.topLevelItem(i).isExpanded() if self.tree.topLevelItemCount() == 5 else True
            for i in range(5)
        ]
        self.tree.clear()
        self.figures.setText(_figures(health))
        self.fix_button.setEnabled(health is not None and bool(health.missing))
        self.split_button.setEnabled(health is not None and bool(health.dumps))
        heads = list(_HEADS)
        if health is not None:
            counts = (
                len(health.unlisted),
                len(health.dead_links),
                len(health.text_entries),
                len(health.dated_folders),
                len(health.dumps),
            )
            heads = [f"{h}  ({n:,})" for h, n in zip(heads, counts, strict=True)]
        groups = tree_rows(self.tree, None, [[head] for head in heads])
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for group, tip in zip(groups, _TIPS, strict=True):
            group.setFont(0, bold)
            group.setToolTip(0, tip)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        if health is None:
            self._message(groups[UNLISTED], "Checking…")
        elif health.error is None:
            self._fill_groups(health, groups)
        for group, wanted in zip(groups, expanded, strict=True):
            group.setExpanded(wanted)
        self.tree.resizeColumnToContents(0)

    def _fill_groups(self, health: IndexNoteHealth, groups: list[QTreeWidgetItem]) -> None:
        index = health.index
        unlisted = health.unlisted[:MAX_SHOWN]
        self._rows(
            groups[UNLISTED],
            [(_title(rel), shown_path(rel), rel, None) for rel in unlisted],
            "Every note is listed.",
            len(health.unlisted),
        )
        self._rows(
            groups[DEAD],
            [(f"line {d.line}: {d.text}", d.target, index, d.line) for d in health.dead_links],
            "No dead links.",
        )
        self._rows(
            groups[TEXT],
            [
                (f"line {t.line}: {t.chars} characters", t.preview, index, t.line)
                for t in health.text_entries
            ],
            "Every entry points.",
        )
        self._rows(
            groups[DATED],
            [
                (
                    f"{d.folder}/  ·  {len(d.notes)} notes  ·  " + _dated_state(d),
                    f"{_title(d.notes[0])} … {_title(d.notes[-1])}",
                    d.notes[-1],
                    None,
                )
                for d in health.dated_folders
            ],
            "No dated folders.",
        )
        self._rows(
            groups[DUMPS],
            [
                (
                    f"{_title(d.path)}  ·  {d.lines:,} lines  ·  {d.sections:,} sections",
                    f"{shown_path(d.path)}: {_size(d.bytes)}, ~{d.tokens:,} tokens, "
                    f"{d.dated:,} dated sections, {d.topics:,} on topics",
                    d.path,
                    None,
                )
                for d in health.dumps
            ],
            "No note has grown into a dump.",
        )

    def _rows(
        self,
        group: QTreeWidgetItem,
        rows: list[tuple[str, str, str, int | None]],
        empty: str,
        total: int | None = None,
    ) -> None:
        if not rows:
            self._message(group, empty)
            return
        shown = rows[:MAX_SHOWN]
        for item, (_text, tip, rel, line) in zip(
            tree_rows(self.tree, group, [[row[0], row[1]] for row in shown]), shown, strict=True
        ):
            item.setToolTip(0, tip)
            item.setForeground(1, self.palette().placeholderText())
            item.setData(0, PATH_ROLE, path_data(rel))
            item.setData(0, LINE_ROLE, line)
        total = len(rows) if total is None else total
        if total > len(shown):
            self._message(group, f"… and {total - len(shown):,} more")

    def _message(self, group: QTreeWidgetItem, text: str) -> None:
        item = tree_rows(self.tree, group, [[text]])[0]
        item.setFlags(Qt.ItemFlag.NoItemFlags)

    # ------------------------------------------------------------ clicks

    @Slot()
    def _on_scope_edited(self) -> None:
        note, patterns = self.scope()
        self.show_scope(note, patterns)
        self.scope_changed.emit(note, patterns)

    @Slot()
    def _on_split_button_clicked(self) -> None:
        health = self.health
        if health is None or not health.dumps:
            return
        chosen = health.dumps[0].path
        current = self.tree.currentItem()
        if current is not None and current.parent() is self.tree.topLevelItem(DUMPS):
            data = current.data(0, PATH_ROLE)
            if data is not None:
                chosen = path_of_data(data)
        self.split_requested.emit(chosen)

    @Slot(QTreeWidgetItem, int)
    def _on_tree_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        data = item.data(0, PATH_ROLE)
        if data is None:
            return
        rel = path_of_data(data)
        line = item.data(0, LINE_ROLE)
        if line is None:
            self.note_opened.emit(rel)
        else:
            self.line_opened.emit(rel, int(line))


def _dated_state(folder: DatedFolder) -> str:
    if not folder.listed:
        return "not listed"
    if folder.note_by_note:
        return f"{folder.entries} entries (one would do)"
    return "listed"


def _figures(health: IndexNoteHealth | None) -> str:
    if health is None:
        return "The index note: checking…"
    name = html.escape(health.index)
    if health.error is not None:
        return f"<b>{name}</b> cannot be read: {html.escape(health.error)}"
    listed = f"{len(health.listed):,} of {health.notes:,} notes listed"
    if health.excluded:
        listed += f" ({health.excluded:,} excluded)"
    if not health.exists:
        return (
            f"<b>{name}</b> does not exist: the agent has no index to start from. "
            f"Add missing entries creates it.<br>{listed}"
        )
    figures = (
        f"<b>{name}</b> · {health.lines:,} lines · {_size(health.bytes)} · "
        f"~{health.tokens:,} tokens<br>{listed}"
    )
    for warning in health.warnings:
        figures += f"<br><b>⚠ {html.escape(warning)}</b>"
    others = [d for d in health.dumps if d.path != health.index]
    for dump in health.dumps:
        if dump.path == health.index:
            figures += (
                f"<br><b>⚠ A dump: {dump.sections:,} sections ({dump.dated:,} dated, "
                f"{dump.topics:,} on topics). Split into a library turns them into notes "
                "under an index that points.</b>"
            )
    if others:
        what = "note has" if len(others) == 1 else "notes have"
        figures += f"<br><b>⚠ {len(others):,} other {what} grown into a dump (Dumps, below).</b>"
    if health.healthy:
        figures += "<br>Healthy: it lists every note, and only points."
    return figures


class IndexNoteFixDialog(PlanDialog):
    """Shows one IndexNoteFixPlan as a diff; "Add entries" confirms it (``confirmed``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            "Add the missing entries to the index note", 720, 480, "Add entries", parent
        )

    def show_fix(self, plan: IndexNoteFixPlan) -> None:
        count = len(plan.added)
        what = f"{count} {'entry' if count == 1 else 'entries'}"
        where = html.escape(plan.index)
        action = (
            f"Create <b>{where}</b> with {what}"
            if plan.creates
            else f"Add {what} at the end of <b>{where}</b>"
        )
        self.show_plan(
            plan,
            f"{action}: one per note, one per dated folder, grouped by folder. Nothing else "
            "in it changes; Edit → Undo takes it back.",
            can_confirm=count > 0,
        )
