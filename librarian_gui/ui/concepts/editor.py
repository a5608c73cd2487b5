"""The concept dictionary editor tab: a sortable, filterable table of concepts with lint
marks, the detail panel, add / rename / delete / merge, undo before saving, save and
revert, and the answer to the file changing on disk."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QObject,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QKeyEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QWidget,
)

from ...core.concepts.dictionary import LintIssue, slugify
from ...core.concepts.dictionary_file import DictionaryFile, DictionaryParseError
from ...core.tagging.suggestions import Suggestion
from ...resources import Starter
from ...services.concepts import DictionaryChanged, DictionaryNotSaved, DictionaryStore
from .detail import ConceptDetail
from .editor_display import EditorDisplay, escape_text, parse_error_excerpt
from .isolated import IsolatedPanel
from .suggestions import SuggestionsPanel
from .widgets import (
    ALIASES_COLUMN,
    SEVERITY_COLOURS,
    Banner,
    ConceptFilter,
    ConceptTableModel,
    box,
    button,
    label,
    line_edit,
    list_table,
)

DETAIL_WIDTH = 270  # pixels: the detail panel's width at first, and its least


@dataclass(frozen=True, slots=True)
class _Step:
    state: dict[str, Any]
    current: str | None


class ConceptEditor(EditorDisplay, QWidget):
    """The concept dictionary editor. It loads ``dictionary_path`` at once; ``load()``
    reloads it. Edits stay in memory (undoable) until saved (through ``store``: by default
    a ``DictionaryStore`` of the path, which writes through the vault's journal).

    Signals:
        saved(object): the dictionary was written (the JournalEntry, or None outside the
            vault or for a new file).
        concept_activated(str): a row was double-clicked: open the concept's page.
        relink_requested(str, str): after a rename or merge the user chose to rewrite the
            notes' ``[[old]]`` links to ``[[new]]``: preview that plan.
        tag_requested(str): the user asked to tag the mentions of this concept.
        dirty_changed(bool): the document has (True) or no longer has unsaved edits.
        suggestions_requested(): find candidate concepts in the notes (``show_suggestions``
            gets the answer).
        note_activated(str): open this note (vault path).
    """

    saved = Signal(object)
    concept_activated = Signal(str)
    relink_requested = Signal(str, str)
    tag_requested = Signal(str)
    dirty_changed = Signal(bool)
    suggestions_requested = Signal()
    note_activated = Signal(str)
    first_shown = Signal()

    def __init__(
        self,
        vault_root: Path,
        dictionary_path: Path,
        parent: QWidget | None = None,
        *,
        load: bool = True,
        store: DictionaryStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.vault_root = Path(vault_root)
        self.dictionary_path = Path(dictionary_path)
        self.store = store if store is not None else DictionaryStore(vault_root, dictionary_path)
        self.document: DictionaryFile | None = None
        # Asked before a delete, merge or revert: (title, question) -> go ahead. Tests
        # replace it; offscreen, a modal box would wait for ever.
        self.confirm: Callable[[str, str], bool] = self._ask
        self.issues: dict[str | None, list[LintIssue]] = {}
        self._undo: list[_Step] = []
        self._redo: list[_Step] = []
        self._current: str | None = None
        self._linked: dict[str, int] | None = None
        self._mentioned: dict[str, int] | None = None
        self._former: dict[str, str] = {}  # renamed id -> the id the usage counts know
        # Each concept's notes, the index note left out, and its unlinked mentions: what
        # the Isolated panel lists by (None until counted).
        self._found: dict[str, frozenset[str]] | None = None
        self._found_mentioned: dict[str, int] = {}
        self._relink: tuple[str, str] | None = None
        self._categories: list[str] = []
        self._was_dirty = False
        self.loaded = False  # load=False: the file is read when the tab is first shown
        self._build()
        self._connect()
        if load:
            self.load()

    # ------------------------------------------------------------ building

    def _build(self) -> None:
        name = self.dictionary_path.name
        self.parse_banner = Banner("error", "Reload")
        self.changed_banner = Banner("warning", "Reload theirs", "Keep mine")
        self.relink_banner = Banner("info", "Rewrite links…", "Not now")
        self.message_banner = Banner("error", "Dismiss")
        self.starters = self.store.starters()
        self.starter_banner = Banner(
            "info", *(f"{s.title} ({s.concepts} concepts)" for s in self.starters)
        )
        self.starter_banner.show_message(
            f"<b>This vault has no concept dictionary yet.</b> Start from one of Librarian's "
            f"starters — copied into the vault as {escape_text(name)}, yours to edit — or add "
            "concepts one by one with New concept…"
        )
        self.starter_banner.hide()
        self.reload_button = self.parse_banner.buttons[0]
        self.reload_theirs_button, self.keep_mine_button = self.changed_banner.buttons
        self.relink_button, self.relink_dismiss_button = self.relink_banner.buttons
        self.filter_edit = line_edit("Filter by id, category or alias…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMinimumWidth(150)
        self.category_filter = QComboBox()
        self.category_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.category_filter.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.new_button = button("New concept…", "Add a concept with an id and a first alias")
        self.new_button.setCheckable(True)
        self.undo_button = button("Undo", "Undo the last edit (Ctrl+Z)")
        self.redo_button = button("Redo", "Redo the edit undone last (Ctrl+Shift+Z)")
        self.revert_button = button("Revert", f"Discard the unsaved edits and reload {name}")
        self.save_button = button("Save", f"Write {name} (Ctrl+S)")
        self.suggest_button = button(
            "Suggestions", "Phrases your notes write often that no concept covers yet"
        )
        self.suggest_button.setCheckable(True)
        self.suggestions = SuggestionsPanel()
        self.suggestions.hide()
        self.isolated_button = button(
            "Isolated",
            "The concepts found in at most a few notes: a worklist to link, merge or delete",
        )
        self.isolated_button.setCheckable(True)
        self.isolated = IsolatedPanel()
        self.isolated.hide()
        self.new_id = line_edit("new-concept-id", "Made from the alias when left empty")
        self.new_alias = line_edit("First alias")
        self.add_button = button("Add")
        self.add_hint = label(colour=SEVERITY_COLOURS["error"])
        self.summary = label()
        self.select_hint = label("· select one to edit it")
        self.select_hint.setToolTip("Select a concept to edit it; double-click opens its page")
        self.select_hint.setEnabled(False)  # the palette's greyed text: a hint, not a state
        self.file_issues = label(colour=SEVERITY_COLOURS["error"], wrap=True)
        self.model = ConceptTableModel(self)
        self.proxy = ConceptFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # file order until asked
        list_table(self.table, (), stretch=ALIASES_COLUMN)  # the others fit their content
        self.detail = ConceptDetail()
        # Shown while a concept is selected: empty, it took the table's room for its aliases.
        self.detail_scroll = scroll = QScrollArea()
        scroll.setWidget(self.detail)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(DETAIL_WIDTH)
        scroll.hide()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(scroll)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setChildrenCollapsible(False)
        # The detail starts at its least width: the table's counts need the room more.
        self.splitter.setSizes([4 * DETAIL_WIDTH, DETAIL_WIDTH])
        self.vertical = QSplitter(Qt.Orientation.Vertical)
        self.vertical.addWidget(self.splitter)
        self.vertical.addWidget(self.suggestions)
        self.vertical.addWidget(self.isolated)
        self.vertical.setStretchFactor(0, 3)
        self.vertical.setStretchFactor(1, 2)
        self.vertical.setChildrenCollapsible(False)
        self.add_row = QWidget()
        box(
            False,
            label("New concept:"),
            (self.new_id, 1),
            (self.new_alias, 1),
            self.add_button,
            self.add_hint,
            parent=self.add_row,
        )
        self.add_row.hide()
        self.body = QWidget()  # everything but the banners: hidden while the file is unreadable
        # Two rows, the actions above the filters: on one row they made the editor 840
        # pixels wide at least, which squeezed the sidebars of a 1400-pixel window.
        box(
            True,
            box(
                False,
                self.new_button,
                self.suggest_button,
                self.isolated_button,
                None,
                self.undo_button,
                self.redo_button,
                12,
                self.revert_button,
                self.save_button,
            ),
            self.add_row,
            box(
                False,
                (self.filter_edit, 1),
                self.category_filter,
                12,
                self.summary,
                self.select_hint,
            ),
            self.file_issues,
            (self.vertical, 1),
            parent=self.body,
        )
        banners = (
            self.parse_banner,
            self.starter_banner,
            self.changed_banner,
            self.relink_banner,
            self.message_banner,
        )
        layout = box(True, *banners, (self.body, 1), parent=self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addStretch(0)  # takes the space only while the body is hidden
        # Ctrl+Z / Ctrl+Shift+Z / Ctrl+S are claimed from the focused child (ShortcutOverride)
        # rather than by QShortcut, which would be ambiguous with the window's Edit → Undo.
        for child in (self, *self.findChildren(QWidget)):
            child.installEventFilter(self)

    def _connect(self) -> None:
        self.reload_button.clicked.connect(self.load)
        self.reload_theirs_button.clicked.connect(self.load)
        self.keep_mine_button.clicked.connect(self._on_keep_mine_clicked)
        self.relink_button.clicked.connect(self._on_relink_clicked)
        self.relink_dismiss_button.clicked.connect(self._hide_relink)
        self.message_banner.buttons[0].clicked.connect(self.message_banner.hide)
        for starter, starter_button in zip(self.starters, self.starter_banner.buttons, strict=True):
            starter_button.setToolTip(f"Copy {starter.path.name} to {self.dictionary_path}")
            starter_button.clicked.connect(lambda _=False, s=starter: self.start_from(s))
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.category_filter.currentIndexChanged.connect(self._on_filter_changed)
        self.new_button.toggled.connect(self._on_new_toggled)
        self.suggest_button.toggled.connect(self._on_suggest_toggled)
        self.isolated_button.toggled.connect(self._on_isolated_toggled)
        self.isolated.tag_requested.connect(self.tag_requested)
        self.isolated.add_alias_requested.connect(self._on_isolated_add_alias_requested)
        self.isolated.merge_requested.connect(self._on_detail_merge_requested)
        self.isolated.delete_requested.connect(self._on_isolated_delete_requested)
        self.isolated.concept_activated.connect(self.select_concept)
        self.suggestions.refresh_requested.connect(self._request_suggestions)
        self.suggestions.add_requested.connect(self._on_suggestions_add_requested)
        self.suggestions.note_activated.connect(self.note_activated)
        self.new_id.returnPressed.connect(self._on_add_clicked)
        self.new_alias.returnPressed.connect(self._on_add_clicked)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.undo_button.clicked.connect(self.undo)
        self.redo_button.clicked.connect(self.redo)
        self.revert_button.clicked.connect(self._on_revert_clicked)
        self.save_button.clicked.connect(self.save)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.detail.field_edited.connect(self._on_detail_field_edited)
        self.detail.aliases_edited.connect(self._on_detail_aliases_edited)
        self.detail.rename_requested.connect(self._on_detail_rename_requested)
        self.detail.delete_requested.connect(self._on_detail_delete_requested)
        self.detail.merge_requested.connect(self._on_detail_merge_requested)
        self.detail.tag_requested.connect(self.tag_requested)

    # ------------------------------------------------------------ public

    @property
    def dirty(self) -> bool:
        """Whether there are edits a save would write."""
        doc = self.document
        if doc is None:
            return False
        return doc.dirty if doc.exists else bool(doc.data)

    def load(self) -> None:
        """(Re)load the file, discarding unsaved edits. A file that does not parse is shown
        as an error with its line and column, and nothing can be saved over it."""
        self.loaded = True
        self.changed_banner.hide()
        self.message_banner.hide()
        self._hide_relink()
        self.detail.discard()
        self._undo.clear()
        self._redo.clear()
        try:
            self.document = self.store.load()
        except DictionaryParseError as exc:
            excerpt = parse_error_excerpt(exc.path, exc.line, exc.column)
            self._show_unreadable(
                f"<b>{exc.path.name} does not parse: line {exc.line}, column {exc.column}"
                f"</b> — {escape_text(exc.message)}.{excerpt}"
                f"Fix {escape_text(str(exc.path))} in a text editor, then Reload. Librarian will "
                "not write over it while it is broken."
            )
        except OSError as exc:
            self._show_unreadable(
                f"<b>{self.dictionary_path.name} cannot be read</b> — "
                f"{escape_text(exc.strerror or str(exc))}. Check the file, then Reload."
            )
        else:
            self.parse_banner.hide()
            self.body.show()
        self._refresh(self._current)

    def set_usage(
        self, linked: Mapping[str, int], mentioned: Mapping[str, int], isolated_max: int = 2
    ) -> None:
        """Notes linking / mentioning each concept id (missing ids count 0); a concept
        linked from at most ``isolated_max`` notes is flagged isolated."""
        self._linked = dict(linked)
        self._mentioned = dict(mentioned)
        self._former.clear()
        self.model.isolated_max = isolated_max
        if self.loaded:
            self._refresh(self._current)

    def set_found(self, found: Mapping[str, frozenset[str]], mentioned: Mapping[str, int]) -> None:
        """Per concept id, the notes it is found in (the index note left out) and the notes
        mentioning it unlinked: the Isolated panel's counts."""
        self._found = dict(found)
        self._found_mentioned = dict(mentioned)
        self._show_isolated()

    def _show_isolated(self) -> None:
        """Fill the Isolated panel from the document as edited (only while it is shown)."""
        doc = self.document
        if not self.isolated_button.isChecked() or doc is None:
            return
        concepts = doc.concepts()
        if self._found is None:
            self.isolated.show_counts(concepts, None, {})
            return
        former = self._former

        def known(cid: str) -> str:
            return former.get(cid, cid)

        found = {c.id: self._found.get(known(c.id), frozenset()) for c in concepts}
        mentioned = {c.id: self._found_mentioned.get(known(c.id), 0) for c in concepts}
        self.isolated.show_counts(concepts, found, mentioned)

    @Slot(bool)
    def _on_isolated_toggled(self, shown: bool) -> None:
        self.ensure_loaded()
        self.isolated.setVisible(shown)
        self._show_isolated()

    @Slot(str, str)
    def _on_isolated_add_alias_requested(self, concept_id: str, alias: str) -> None:
        """One undoable edit, as if typed in the detail panel's aliases."""
        doc = self.document
        entry = doc.data.get(concept_id) if doc is not None else None
        if not isinstance(entry, dict):
            return
        written = entry.get("aliases", [])
        aliases = [written] if isinstance(written, str) else list(written or [])
        if any(isinstance(a, str) and a.casefold() == alias.casefold() for a in aliases):
            self.message_banner.show_message(
                escape_text(f'"{alias}" is an alias of "{concept_id}" already.')
            )
            return
        self._edit(
            lambda d: d.set_field(concept_id, "aliases", [*aliases, alias]), select=concept_id
        )

    @Slot(str)
    def _on_isolated_delete_requested(self, concept_id: str) -> None:
        self.select_concept(concept_id)
        self._on_detail_delete_requested(concept_id)

    def file_changed_on_disk(self) -> None:
        """The watcher saw the file change: reload if nothing is unsaved, else ask."""
        if not self.loaded:
            return  # read when first shown
        doc = self.document
        differs = self.store.differs_on_disk(doc)
        if differs is None:
            return  # mid-replace or unreadable for a moment: the next event will tell
        if doc is None:
            self.load()
            return
        if not differs:
            return  # our own save, or a touch that changed nothing
        if not self.dirty:
            self.load()
            return
        self._show_changed(f"{self.dictionary_path.name} changed on disk")

    def showEvent(self, event: QShowEvent) -> None:
        """Read the file when the tab is first shown: a window that never shows it (most
        sessions) does not lint the dictionary at start-up."""
        super().showEvent(event)
        self.ensure_loaded()

    def ensure_loaded(self) -> None:
        """Read the file now if it was not yet (``load=False``)."""
        if not self.loaded:
            self.load()
            self.first_shown.emit()

    def preselect(self, concept_id: str) -> None:
        """Select this concept now if the file is read, else as soon as it is (the editor
        reads it when first shown)."""
        if self.loaded:
            self.select_concept(concept_id)
        else:
            self._current = concept_id  # the first load selects it

    def select_concept(self, concept_id: str) -> None:
        self.ensure_loaded()
        row = next((i for i, r in enumerate(self.model.rows) if r.concept.id == concept_id), None)
        if row is None:
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():  # hidden by the filters: show everything again
            self.filter_edit.clear()
            self.category_filter.setCurrentIndex(0)
            index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)

    def start_from(self, starter: Starter) -> bool:
        """Copy a starter dictionary to the (missing) dictionary file and load it; False,
        with a banner saying why, when nothing was written. A file that appeared meanwhile
        is never replaced: it is loaded instead."""
        try:
            self.store.create_from(starter)
        except DictionaryChanged as exc:
            self.load()
            self.message_banner.show_message(f"Not copied — {escape_text(str(exc))}")
            return False
        except DictionaryNotSaved as exc:
            self.message_banner.show_message(f"Not copied — {escape_text(str(exc))}")
            return False
        self.load()
        self.saved.emit(None)
        return True

    def save(self) -> bool:
        """Write the edits; False (with a banner saying why) when nothing was written."""
        doc = self.document
        if doc is None:
            return False
        self.detail.flush()
        try:
            entry = self.store.save(doc)
        except DictionaryChanged:
            self._show_changed(
                f"{self.dictionary_path.name} changed on disk since it was loaded; "
                "nothing was saved"
            )
            return False
        except DictionaryNotSaved as exc:
            self.message_banner.show_message(f"Not saved — {escape_text(str(exc))}")
            return False
        self._undo.clear()
        self._redo.clear()
        self.changed_banner.hide()
        self.message_banner.hide()
        self._refresh(self._current)
        self.saved.emit(entry)
        return True

    def undo(self) -> None:
        self._step(self._undo, self._redo)

    def redo(self) -> None:
        self._step(self._redo, self._undo)

    # ------------------------------------------------------------ editing

    def _edit(self, change: Callable[[DictionaryFile], None], select: str | None = None) -> bool:
        """Apply ``change`` as one undo step; a change that changes nothing is no step."""
        doc = self.document
        if doc is None:
            return False
        self.detail.flush()  # a description being typed is an edit of its own, made first
        before = doc.state()
        try:
            change(doc)
        except (ValueError, KeyError) as exc:
            doc.set_state(before)
            self.message_banner.show_message(escape_text(str(exc)))
            return False
        if doc.data == before:
            return False
        self._undo.append(_Step(before, self._current))
        self._redo.clear()
        self._refresh(select or self._current)
        return True

    def _step(self, source: list[_Step], target: list[_Step]) -> None:
        doc = self.document
        if doc is None:
            return
        self.detail.flush()  # a description being typed is the newest edit
        if not source:
            return
        step = source.pop()
        target.append(_Step(doc.state(), self._current))
        doc.set_state(step.state)
        self._hide_relink()
        self._refresh(step.current)

    @Slot(str, str, object)
    def _on_detail_field_edited(self, concept_id: str, name: str, value: object) -> None:
        self._edit(lambda doc: doc.set_field(concept_id, name, value))

    @Slot(str, list)
    def _on_detail_aliases_edited(self, concept_id: str, aliases: list[str]) -> None:
        self._edit(lambda doc: doc.set_field(concept_id, "aliases", list(aliases)))

    @Slot(str, str)
    def _on_detail_rename_requested(self, old: str, new: str) -> None:
        self._former[new] = self._former.get(old, old)  # the usage counts know the old id
        if self._edit(lambda doc: doc.rename_concept(old, new), select=new):
            self._offer_relink(old, new, f'Renamed "{old}" to "{new}".')
        else:
            del self._former[new]

    @Slot(str)
    def _on_detail_delete_requested(self, concept_id: str) -> None:
        question = f'Delete the concept "{concept_id}"? Links to it will no longer resolve.'
        row = self.table.currentIndex().row()
        after = self._id_at(row + 1) or self._id_at(row - 1) or ""  # keep a row selected
        if self.confirm("Delete concept", question):
            self._edit(lambda doc: doc.delete_concept(concept_id), select=after)

    @Slot(str, str)
    def _on_detail_merge_requested(self, source: str, into: str) -> None:
        question = f'Merge "{source}" into "{into}"? "{into}" takes its aliases and its id.'
        if self.confirm("Merge concepts", question) and self._edit(
            lambda doc: doc.merge_concepts(source, into), select=into
        ):
            self._offer_relink(source, into, f'Merged "{source}" into "{into}".')

    def _offer_relink(self, old: str, new: str, done: str) -> None:
        linked = self._usage(self._linked, old)
        if linked == 0:
            return
        notes = "Notes" if linked is None else f"{linked} note{'s' if linked != 1 else ''}"
        self._relink = (old, new)
        self.relink_banner.show_message(
            f"{escape_text(done)} {notes} still link <b>[[{escape_text(old)}]]</b>: rewrite those "
            f"links to [[{escape_text(new)}]]? You will see the changes before they are made."
        )

    @Slot()
    def _on_relink_clicked(self) -> None:
        relink = self._relink
        self._hide_relink()
        if relink is not None:
            self.relink_requested.emit(*relink)

    @Slot()
    def _hide_relink(self) -> None:
        self._relink = None
        self.relink_banner.hide()

    @Slot()
    def _on_add_clicked(self) -> None:
        alias = self.new_alias.text().strip()
        problem = self.add_concept(self.new_id.text().strip(), alias)
        self.add_hint.setText(problem or "")
        if problem is None:
            self.new_id.clear()
            self.new_alias.clear()
            self.new_button.setChecked(False)

    def add_concept(self, concept_id: str, alias: str) -> str | None:
        """Add a concept (an unsaved, undoable edit) and select it; the id defaults to the
        alias as a slug. Returns why it was not added, or None."""
        self.ensure_loaded()
        concept_id = concept_id or slugify(alias)
        if not concept_id:
            return "Give an id or a first alias."
        if self.document is not None and any(
            concept_id.casefold() == known.casefold() for known in self.document.data
        ):
            return f'"{concept_id}" exists already.'
        if not self._edit(
            lambda doc: doc.add_concept(concept_id, [alias] if alias else []), select=concept_id
        ):
            return "The dictionary cannot be edited now."
        return None

    # ------------------------------------------------------------ suggestions

    def show_suggestions(self, found: list[Suggestion], read: int, total: int) -> None:
        self.suggestions.show_suggestions(found, read, total)

    def show_suggestions_failed(self, message: str) -> None:
        self.suggestions.show_failure(message)

    @Slot(bool)
    def _on_suggest_toggled(self, shown: bool) -> None:
        self.ensure_loaded()  # the suggestions leave out what the dictionary covers
        self.suggestions.setVisible(shown)
        if shown and not self.suggestions.suggestions:
            self._request_suggestions()

    @Slot()
    def _request_suggestions(self) -> None:
        self.suggestions.show_searching()
        self.suggestions_requested.emit()

    @Slot(str, str)
    def _on_suggestions_add_requested(self, concept_id: str, phrase: str) -> None:
        problem = self.add_concept(concept_id, phrase)
        if problem is None:
            self.suggestions.remove(phrase)
        else:
            self.message_banner.show_message(escape_text(problem))

    @Slot(bool)
    def _on_new_toggled(self, shown: bool) -> None:
        self.add_row.setVisible(shown)
        self.add_hint.clear()
        if shown:
            self.new_alias.setFocus()

    @Slot()
    def _on_revert_clicked(self) -> None:
        if not self.dirty or self.confirm(
            "Revert", f"Discard the unsaved edits and reload {self.dictionary_path.name}?"
        ):
            self.load()

    # ------------------------------------------------------------ external change

    def _show_changed(self, what: str) -> None:
        self.changed_banner.show_message(
            f"<b>{escape_text(what)}.</b> Reload theirs (your unsaved edits are lost), or keep "
            "yours (your next save replaces theirs)."
        )

    @Slot()
    def _on_keep_mine_clicked(self) -> None:
        """Take the disk version as the base the next save checks against, with our data."""
        doc = self.document
        if doc is None:
            return
        self.detail.flush()
        try:
            base = self.store.load()
        except DictionaryParseError as exc:
            self.message_banner.show_message(
                f"{exc.path.name} on disk does not parse (line {exc.line}, column "
                f"{exc.column}); your edits are kept, but cannot replace it until it is fixed."
            )
            return
        except OSError as exc:
            self.message_banner.show_message(escape_text(str(exc)))
            return
        base.set_state(doc.state())
        self.document = base
        self.changed_banner.hide()
        self._refresh(self._current)

    # ------------------------------------------------------------ keys

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and isinstance(
            event, QKeyEvent
        ):
            action = self._key_action(watched, event)
            if action is not None:
                event.accept()
                if kind == QEvent.Type.KeyPress:
                    action()
                return True
        return super().eventFilter(watched, event)

    def _key_action(self, watched: QObject, event: QKeyEvent) -> Callable[[], Any] | None:
        if event.matches(QKeySequence.StandardKey.Save):
            return self.save
        # Text fields keep their own undo of the typing.
        if isinstance(watched, QLineEdit | QPlainTextEdit):
            return None
        if event.matches(QKeySequence.StandardKey.Undo):
            return self.undo
        if event.matches(QKeySequence.StandardKey.Redo):
            return self.redo
        return None

    def _ask(self, title: str, question: str) -> bool:
        answer = QMessageBox.question(self, title, question)
        return answer == QMessageBox.StandardButton.Yes
