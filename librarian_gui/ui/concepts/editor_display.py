"""How the concept editor shows its document: lint marks, the table's rows, the category
filter, the summary line, the detail panel and the buttons; a part of ``ConceptEditor``."""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QSignalBlocker, Slot

from ...core.concepts.dictionary import LintIssue, read_dictionary_bytes
from ...core.concepts.lint import lint_concepts
from .widgets import NO_CATEGORY, SEVERITY_COLOURS, ConceptTableRow

# Columns sized to their content, at most this wide (0: no limit); the aliases, last, take
# the rest.
FITTED_COLUMNS = {0: 240, 1: 160, 2: 0, 3: 0, 4: 0}
FIT_ROWS = 300  # rows measured beyond the visible ones: a long dictionary stays quick

if TYPE_CHECKING:
    from ...core.concepts.dictionary_file import DictionaryFile


class EditorDisplay:
    """Mixed into ``ConceptEditor``, whose widgets (``table``, ``proxy``, ``model``,
    ``detail``, the buttons and banners) and state (``document``, usage counts, undo
    stacks) it reads."""

    document: DictionaryFile | None
    issues: dict[str | None, list[LintIssue]]
    _former: dict[str, str]
    _linked: dict[str, int] | None
    _mentioned: dict[str, int] | None
    _found: dict[str, frozenset[str]] | None
    _current: str | None
    _categories: list[str]
    _was_dirty: bool
    _undo: list[Any]
    _redo: list[Any]

    def _show_unreadable(self, message: str) -> None:
        self.document = None
        self.parse_banner.show_message(message)
        self.body.hide()

    def _isolated(self, concept_id: str, linked: int | None) -> bool:
        """Found in at most ``isolated_max`` notes, the index note left out (as the
        Isolated panel, the graph and ``librarian isolated`` count) once those counts came;
        until then, by the notes linking it."""
        found = self._found
        if found is None:
            return linked is not None and linked <= self.model.isolated_max
        notes = found.get(concept_id, found.get(self._former.get(concept_id, concept_id)))
        return len(notes or ()) <= self.model.isolated_max

    def _usage(self, counts: Mapping[str, int] | None, concept_id: str) -> int | None:
        if counts is None:
            return None
        return counts.get(concept_id, counts.get(self._former.get(concept_id, concept_id), 0))

    def _refresh(self, select: str | None) -> None:
        """Lint, fill the table and the detail panel, and update the buttons."""
        doc = self.document
        concepts = doc.concepts() if doc is not None else ()
        found = doc.structure_issues() if doc is not None else []
        if self._linked is not None and self._mentioned is not None:
            found += lint_concepts(
                concepts,
                linked={c.id: self._usage(self._linked, c.id) or 0 for c in concepts},
                mentioned={c.id: self._usage(self._mentioned, c.id) or 0 for c in concepts},
            )
        else:
            found += lint_concepts(concepts)
        self.issues = {}
        for issue in found:
            self.issues.setdefault(issue.concept, []).append(issue)
        rows = []
        for concept in concepts:
            issues = self.issues.get(concept.id, [])
            linked = self._usage(self._linked, concept.id)
            severities = {i.severity for i in issues}
            rows.append(
                ConceptTableRow(
                    concept,
                    linked,
                    self._usage(self._mentioned, concept.id),
                    self._isolated(concept.id, linked),
                    "error" if "error" in severities else "warning" if severities else None,
                    tuple(i.message for i in issues),
                )
            )
        self.model.set_rows(rows)
        self._fit_columns()
        self._categories = sorted({c.category for c in concepts if c.category}, key=str.casefold)
        self._fill_categories(self._categories)
        dirty = self.dirty
        self._show_summary(found, len(concepts), dirty)
        self._current = None
        if select and doc is not None and select in doc.data:
            self.select_concept(select)
        self._current = self._selected_id()
        self._show_detail()
        self._update_buttons(dirty)
        self._show_isolated()

    def _fit_columns(self) -> None:
        table = self.table
        header = table.horizontalHeader()
        header.setResizeContentsPrecision(FIT_ROWS)
        # The aliases may shrink to "…" rather than push the table into scrolling sideways.
        header.setMinimumSectionSize(table.fontMetrics().horizontalAdvance("……"))
        for column, cap in FITTED_COLUMNS.items():
            width = max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
            header.resizeSection(column, min(width, cap) if cap else width)

    def _fill_categories(self, names: list[str]) -> None:
        """The category filter's choices; the chosen one stays chosen while it exists."""
        combo = self.category_filter
        choices = [("All categories", None), *((n, n) for n in names), ("No category", NO_CATEGORY)]
        if [combo.itemData(i) for i in range(combo.count())] == [d for _, d in choices]:
            return
        chosen = combo.currentData()
        with QSignalBlocker(combo):
            combo.clear()
            for text, data in choices:
                combo.addItem(text, data)
            combo.setCurrentIndex(max(0, combo.findData(chosen)))
        self._on_filter_changed()

    def _show_summary(self, found: list[LintIssue], count: int, dirty: bool) -> None:
        errors = sum(1 for i in found if i.severity == "error")
        warnings = len(found) - errors
        parts = [f"{count} concept{'s' if count != 1 else ''}"]
        if errors:
            parts.append(f'<span style="color:{SEVERITY_COLOURS["error"]}">{errors} errors</span>')
        if warnings:
            colour = SEVERITY_COLOURS["warning"]
            parts.append(f'<span style="color:{colour}">{warnings} warnings</span>')
        if dirty:
            parts.append("<i>unsaved changes</i>")
        self.summary.setText(" · ".join(parts) if self.document is not None else "")
        whole = [i.message for i in found if i.concept is None or i.code == "duplicate-id"]
        self.file_issues.setText(" ".join(whole))
        self.file_issues.setVisible(bool(whole))

    def _show_detail(self) -> None:
        current = self._current
        concept = next((r.concept for r in self.model.rows if r.concept.id == current), None)
        self.detail.show_concept(
            concept,
            self.issues.get(current, []) if concept else [],
            self._categories,
            [r.concept.id for r in self.model.rows],
        )
        self.detail_scroll.setVisible(concept is not None)
        self.select_hint.setVisible(concept is None and bool(self.model.rows))

    def _update_buttons(self, dirty: bool) -> None:
        editable = self.document is not None
        self.save_button.setEnabled(editable and dirty)
        self.revert_button.setEnabled(editable and dirty)
        self.undo_button.setEnabled(editable and bool(self._undo))
        self.redo_button.setEnabled(editable and bool(self._redo))
        for widget in (self.new_button, self.filter_edit, self.category_filter):
            widget.setEnabled(editable)
        if not editable:
            self.new_button.setChecked(False)
        doc = self.document
        self.starter_banner.setVisible(
            doc is not None and not doc.exists and not dirty and bool(self.starters)
        )
        if dirty != self._was_dirty:
            self._was_dirty = dirty
            self.dirty_changed.emit(dirty)

    def _selected_id(self) -> str | None:
        index = self.table.selectionModel().currentIndex()
        return self._id_at(index.row()) if index.isValid() else None

    def _id_at(self, row: int) -> str | None:
        """The id shown in this row of the table (as sorted and filtered), if any."""
        source = self.proxy.mapToSource(self.proxy.index(row, 0))
        return self.model.rows[source.row()].concept.id if source.isValid() else None

    @Slot()
    def _on_filter_changed(self) -> None:
        self.proxy.set_filter(self.filter_edit.text(), self.category_filter.currentData())

    @Slot(QModelIndex, QModelIndex)
    def _on_table_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._current = self._selected_id()
        self.detail.flush()  # the previous concept's description, if still being typed
        self._show_detail()

    @Slot(QModelIndex)
    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        concept_id = self._id_at(index.row())
        if concept_id is not None:
            self.concept_activated.emit(concept_id)


EXCERPT_SIDE = 40  # characters shown each side of a parse error's column


def escape_text(text: str) -> str:
    return html.escape(text, quote=False)


def parse_error_excerpt(path: Path, line: int, column: int) -> str:
    """The broken line and the one before it, with a caret under the column, as HTML."""
    try:
        # Read again: it may have become a pipe, or grown past the limit, since.
        lines = read_dictionary_bytes(path).decode("utf-8-sig", "replace").splitlines()
    except OSError:
        return "<br>"
    if not 0 < line <= len(lines):
        return "<br>"  # the end of the file: nothing to point at
    # A long line (a minified file, nesting a thousand levels deep) is cut around the
    # column: a <pre> is as wide as its longest line, and so would the editor be.
    start = max(0, column - 1 - EXCERPT_SIDE)
    caret = column - 1 - start + (start > 0)

    def cut(text: str) -> str:
        piece = text[start : column - 1 + EXCERPT_SIDE]
        return (
            ("…" if start else "") + piece + ("…" if len(text) > column - 1 + EXCERPT_SIDE else "")
        )

    shown = [f"{n:>5} │ {cut(lines[n - 1])}".replace("\t", " ") for n in (line - 1, line) if n > 0]
    shown.append("      │ " + " " * caret + "^")
    return f"<pre>{escape_text(chr(10).join(shown))}</pre>"
