"""The main window: three panes, menus and status bar, wired to one vault session."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QSplitter,
    QTabWidget,
    QWidget,
)

from ...services.graph_session import GraphSession
from ...services.history import Place
from ...services.linker import Update
from ...services.model import VaultModel
from ...services.session import VaultSession

if TYPE_CHECKING:
    from ..graph.view import GraphView
from ...services.settings import THEMES, Settings
from .. import theme
from ..concepts.tabs import ConceptTabs
from ..panes.backlinks import BacklinksPane
from ..panes.concepts import ConceptsPane
from ..panes.file_tree import FileTree
from ..panes.outgoing import OutgoingPane
from ..panes.outline import Outline
from ..panes.preview import PreviewView
from ..panes.recent import RecentChanges
from ..panes.search import SearchPane
from ..panes.switcher import QuickSwitcher
from ..panes.tags import TagsPane
from ..panes.warnings import WarningsDialog, WarningsIndicator
from .actions import WindowActions
from .graph_tab import WindowGraph
from .side_lists import WindowLists

PROGRESS_EVERY_S = 0.25
SWITCH_INTERVAL_S = 0.001
DEFAULT_NOTES = ("MEMORY.md", "README.md", "index.md", "Index.md", "Home.md")


class MainWindow(WindowActions, WindowGraph, WindowLists, QMainWindow):
    """The application window for one vault at a time.

    Signals:
        vault_changed(Path): another vault was opened in this window.
        place_rendered(object): the preview shows a new place (tests and screenshots wait
            for it).
    """

    vault_changed = Signal(object)
    place_rendered = Signal(object)

    def __init__(
        self,
        vault: Path,
        *,
        settings: Settings | None = None,
        use_cache: bool = True,
        open_note: str | None = None,
    ) -> None:
        super().__init__()
        # Background threads (linker, jobs, layout) run Python while this thread paints:
        # every paint calls into Python, and each call waits up to the switch interval
        # for the interpreter lock. 1 ms instead of 5 keeps those waits short.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.settings = settings or Settings()
        self._use_cache = use_cache
        # NOTE as the command line names it (title or path): resolved once the index is
        # ready, by the index the window builds anyway (not by a scan of its own).
        self._requested_note = open_note
        self.missing_note: str | None = None  # the requested NOTE, when no note has that name
        self._init_lists()
        self._init_graph_import()
        self.model: VaultModel | None = None
        self.session: VaultSession | None = None
        self.graph_session: GraphSession | None = None
        self.concept_tabs: ConceptTabs | None = None
        self._build_widgets()
        self._build_menus()
        self._restore_layout()
        self.open_vault(vault)

    # ------------------------------------------------------------ layout

    def _build_widgets(self) -> None:
        self.tree = FileTree()
        self.recent = RecentChanges()
        self.tags = TagsPane()
        self.left = QTabWidget()
        self.left.addTab(self.tree, "Files")
        self.left.addTab(self.recent, "Recent")
        self.left.addTab(self.tags, "Tags")
        self.concepts = ConceptsPane()
        self.left.addTab(self.concepts, "Concepts")
        # Five tabs in a 270-pixel sidebar: narrower tabs keep them all in sight.
        self.left.setStyleSheet("QTabBar::tab { padding: 4px 6px; min-width: 0px; }")
        self.search = SearchPane()
        self.left.addTab(self.search, "Search")
        self.switcher = QuickSwitcher(self)
        self.preview = PreviewView()
        self.centre = QTabWidget()
        self.centre.addTab(self.preview, "Preview")
        # The graph tab's widgets pull in pyqtgraph and numpy (~0.4 s): built when first shown.
        self.graph: GraphView | None = None
        self._graph_placeholder = QWidget()
        self.centre.addTab(self._graph_placeholder, "Graph")
        self.centre.currentChanged.connect(self._on_centre_current_changed)
        self.backlinks = BacklinksPane()
        self.outgoing = OutgoingPane()
        self.outline = Outline()
        self.right = QTabWidget()
        self.right.addTab(self.backlinks, "Backlinks")
        self.right.addTab(self.outgoing, "Outgoing")
        self.right.addTab(self.outline, "Outline")
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for pane in (self.left, self.centre, self.right):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([270, 640, 370])
        self.setCentralWidget(self.splitter)
        self.counts = QLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.warnings_button = WarningsIndicator()
        self.warnings = WarningsDialog(self)
        self.warnings_button.clicked.connect(self._on_warnings_button_clicked)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.warnings_button)
        self.statusBar().addPermanentWidget(self.counts)
        self.preview.viewport().installEventFilter(self)
        self.recent.set_period(self.settings.recent_period())
        self.tags.tag_activated.connect(self._on_tags_tag_activated)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(
            file_menu, "&Open Vault…", self._on_open_vault_triggered, QKeySequence.StandardKey.Open
        )
        self.recent_menu = file_menu.addMenu("Recent Vaults")
        self._action(file_menu, "Excluded Folders…", self._on_excluded_triggered)
        self._action(file_menu, "Concept Dictionary…", self._on_dictionary_triggered)
        self.own_dictionary_action = self._action(
            file_menu, "Use the Vault's concepts.json", self._on_own_dictionary_triggered
        )
        file_menu.addSeparator()
        self._action(
            file_menu, "Open in External Editor", self._on_external_editor_triggered, "Ctrl+E"
        )
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        edit_menu = bar.addMenu("&Edit")
        self.undo_action = self._action(
            edit_menu, "&Undo Last Write", self._on_undo_triggered, QKeySequence.StandardKey.Undo
        )
        go_menu = bar.addMenu("&Go")
        self._action(go_menu, "&Quick Switcher…", self._on_switcher_triggered, "Ctrl+O")
        self._action(go_menu, "&Search", self._on_search_triggered, "Ctrl+Shift+F")
        self._action(go_menu, "&Graph", self._on_graph_triggered, "Ctrl+G")
        self.back_action = self._action(go_menu, "&Back", self._on_back_triggered, "Alt+Left")
        self.forward_action = self._action(
            go_menu, "&Forward", self._on_forward_triggered, "Alt+Right"
        )
        self.back_action.setEnabled(False)
        self.forward_action.setEnabled(False)
        view_menu = bar.addMenu("&View")
        theme_menu = view_menu.addMenu("Theme")
        for name in THEMES:
            action = theme_menu.addAction(name.capitalize())
            action.setCheckable(True)
            action.setChecked(self.settings.theme() == name)
            action.triggered.connect(lambda _=False, n=name: self.set_theme(n))
        self._theme_actions = theme_menu.actions()

    def _action(self, menu: QMenu, text: str, slot: Any, shortcut: Any = None) -> QAction:
        action = menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _restore_layout(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        splitter = self.settings.splitter("main")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    # ------------------------------------------------------------ vaults

    def open_vault(self, root: Path) -> None:
        self._close_vault()
        root = root.resolve()
        dark = theme.resolve(self.settings.theme())
        dictionary = self.settings.dictionary(root)
        self.model = VaultModel(
            root,
            excluded=self.settings.excluded(root),
            use_cache=self._use_cache,
            dictionary=dictionary,
            parent=self,
        )
        self.own_dictionary_action.setEnabled(dictionary is not None)
        self.session = VaultSession(self.model, dark=dark, parent=self)
        self.graph_session = GraphSession(self.model, parent=self)
        self.preview.set_vault_root(root)
        self._connect_signals(self.model, self.session)
        self.concept_tabs = ConceptTabs(
            self.model,
            self.centre,
            open_concept=self._on_concepts_concept_activated,
            open_note=self.session.open_note,
            parent=self,
        )
        self.settings.vault_opened(root)
        self._fill_recent_vaults()
        self.recent.set_previous_session(self.settings.previous_session(root))
        self.setWindowTitle(f"{root.name} — Librarian")
        self.counts.setText("Indexing…")
        self._on_session_warnings_changed((), frozenset())  # the last vault's are gone
        self.progress.setValue(0)
        self._progress_shown = 0.0
        self.progress.show()
        self.model.start()
        note = self.settings.last_note(root)
        if note and not self._requested_note:
            self.session.open_note(note)
        self.vault_changed.emit(root)

    def _close_vault(self) -> None:
        if self.model is None:
            return
        root = self.model.root
        self.settings.session_ended(root)
        current = self.session.current if self.session else None
        if current is not None and current.kind == "note":
            self.settings.set_last_note(root, current.node)
        if self.graph_session is not None:
            self.graph_session.stop()
        if self.session is not None:
            self.session.shutdown()
        if self.concept_tabs is not None:
            self.concept_tabs.close()
            self.concept_tabs.deleteLater()
            self.concept_tabs = None
        self.model.close()
        for obj in (self.session, self.graph_session, self.model):
            if obj is not None:
                obj.deleteLater()
        self.model = None
        self.session = None
        self.graph_session = None

    def _fill_recent_vaults(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_vaults():
            action = self.recent_menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_vault(p))

    # ------------------------------------------------------------ wiring

    def _connect_signals(self, model: VaultModel, session: VaultSession) -> None:
        model.scan_progressed.connect(self._on_model_scan_progressed)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        model.scan_failed.connect(self._on_model_scan_failed)
        model.update_failed.connect(self.statusBar().showMessage)
        session.place_shown.connect(self._on_session_place_shown)
        session.note_missing.connect(self._on_session_note_missing)
        session.backlinks_ready.connect(self.backlinks.show_linked)
        session.unlinked_ready.connect(self.backlinks.show_unlinked)
        session.outline_ready.connect(self.outline.show_headings)
        session.outgoing_ready.connect(self.outgoing.show_links)
        session.history_changed.connect(self._on_session_history_changed)
        session.files_reset.connect(self.tree.install)
        session.message.connect(self._on_session_message)
        session.undo_changed.connect(self.undo_action.setEnabled)
        session.switcher_ready.connect(self.switcher.set_index)
        session.warnings_changed.connect(self._on_session_warnings_changed)
        assert self.graph_session is not None
        self.graph_session.graph_ready.connect(self._on_graph_session_graph_ready)
        self.graph_session.positions_ready.connect(self._on_graph_session_positions_ready)
        if self.graph is not None:
            self._connect_graph(self.graph, self.graph_session)
        session.search_ready.connect(self._on_session_search_ready)
        self.undo_action.setEnabled(session.can_undo())
        # widgets → session (disconnected from the previous session by deleteLater)
        for signal, slot in (
            (self.tree.note_selected, session.open_note),
            (self.tree.attachment_selected, session.open_note),
            (self.recent.note_selected, session.open_note),
            (self.backlinks.source_activated, session.open_at_line),
            (self.backlinks.link_requested, session.link_mention),
            (self.outgoing.target_activated, self._on_outgoing_target_activated),
            (self.preview.link_activated, self._on_preview_link_activated),
            (self.outline.heading_activated, self.preview.scroll_to_line),
            (self.search.query_changed, session.search),
            (self.search.result_activated, session.open_at_line),
            (self.switcher.node_chosen, self._on_switcher_node_chosen),
            (self.concepts.concept_activated, self._on_concepts_concept_activated),
            (self.warnings.note_chosen, session.open_note),
        ):
            signal.connect(slot)

    # ------------------------------------------------------------ model events

    @Slot(int, int)
    def _on_model_scan_progressed(self, done: int, total: int) -> None:
        # Each new value repaints the window's dirty parts at once (20-45 ms while the
        # vault indexes): four times a second is smooth enough.
        now = time.monotonic()
        if done < total and now - self._progress_shown < PROGRESS_EVERY_S:
            return
        self._progress_shown = now
        if self.progress.maximum() != max(total, 1):
            self.progress.setMaximum(max(total, 1))
            self.progress.setFormat("Indexing %v / %m")
        self.progress.setValue(done)

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        self.progress.hide()
        self._refresh_counts()
        QTimer.singleShot(0, self._refresh_lists)  # its own event-loop turn: no long stall
        if self.graph is None:  # the first Ctrl+G then only builds widgets (0.6 s → 0.15 s)
            # Not at once: the first note's render, its backlinks and unlinked mentions run
            # on job threads now, and every thread that runs Python keeps the GUI thread
            # waiting for the interpreter lock a little longer.
            self._schedule_graph_import()
        # Its own event-loop turn too: every slot of index_ready runs in this one.
        QTimer.singleShot(0, self._open_first_note)

    def _open_first_note(self) -> None:
        """The note asked for on the command line, else the last one, else an index note."""
        if self.session is None or self.model is None or not self.model.ready:
            return
        if self._requested_note:
            self._open_requested(self._requested_note)
            self._requested_note = None
        if self.session.current is None:
            first = self._first_note()
            if first is not None:
                self.session.open_note(first)

    @Slot(object)
    def _on_model_index_updated(self, update: Update) -> None:
        delta = update.delta
        self._postpone_graph_import()
        self.tree.remove_files((*delta.notes_removed, *delta.attachments_removed))
        self.tree.add_files(delta.notes_added, "note")
        self.tree.add_files(delta.attachments_added, "attachment")
        if self.session is not None and self.session.current is not None:
            self.tree.select(self.session.current.node)
        self._refresh_counts()
        with self.model.read() as index:  # type: ignore[union-attr]
            stamps = {
                rel: index.notes[rel].stamp for rel in (*delta.notes_added, *delta.notes_changed)
            }
        self.recent.notes_changed(
            {rel: stamp.mtime_ns / 1e9 for rel, stamp in stamps.items()}, delta.notes_removed
        )
        self._tags_timer.start()

    @Slot(str)
    def _on_model_scan_failed(self, message: str) -> None:
        self.progress.hide()
        self.counts.setText("Not indexed")
        self.statusBar().showMessage(f"Cannot read the vault: {message}")

    def _refresh_counts(self) -> None:
        """The counts the linker took after its last scan or update (walking 10,000 notes
        here took 5-10 ms of the GUI thread at every update)."""
        if self.model is None or not self.model.ready or self.model.index is None:
            return
        notes, links, ghosts, concepts = self.model.index.summary
        self.counts.setText(
            f"{notes:,} notes · {links:,} links · {ghosts:,} unresolved · {concepts:,} concepts"
        )

    @Slot(str)
    def _on_concepts_concept_activated(self, concept_id: str) -> None:
        if self.session is not None:
            self.session.open_node("concept", concept_id)
            self.centre.setCurrentWidget(self.preview)

    def _open_requested(self, name: str) -> None:
        from ...core.index.queries import AmbiguousNote, NoteNotFound, find_note

        assert self.model is not None and self.session is not None
        with self.model.read() as index:
            try:
                rel = find_note(index, name)
            except AmbiguousNote as exc:
                rel = exc.candidates[0]
            except NoteNotFound as exc:
                self.missing_note = name
                self.statusBar().showMessage(str(exc), 10_000)
                return
        self.session.open_note(rel)

    def _first_note(self) -> str | None:
        if self.model is None:
            return None
        with self.model.read() as index:
            for name in DEFAULT_NOTES:
                if name in index.notes:
                    return name
            return min(index.notes, default=None)

    # ------------------------------------------------------------ session events

    @Slot(object, object, bool)
    def _on_session_place_shown(self, place: Place, rendered: Any, refresh: bool) -> None:
        self.preview.show_note(rendered.html, keep_scroll=refresh)
        if not refresh:
            if place.line is not None:
                self.preview.scroll_to_line(place.line)
            elif place.fragment:
                self.preview.scroll_to_heading(place.fragment)
        if place.kind == "note":
            self.tree.select(place.node)
        if self.graph_session is not None:
            self.graph_session.set_centre(place.node)
        if self.graph is not None:
            self.graph.canvas.select(place.node)
        self.centre.setTabText(0, rendered.title or "Preview")
        self.place_rendered.emit(place)

    @Slot(str, str)
    def _on_session_note_missing(self, rel: str, reason: str) -> None:
        self.preview.setHtml(f"<h2>{rel}</h2><p>{reason}</p>")
        self.statusBar().showMessage(reason, 8000)

    @Slot(object, object)
    def _on_session_warnings_changed(self, warnings: Any, files: Any) -> None:
        self.warnings_button.set_count(len(warnings))
        self.warnings.set_warnings(warnings, files)

    @Slot()
    def _on_warnings_button_clicked(self) -> None:
        self.warnings.show()
        self.warnings.raise_()
        self.warnings.activateWindow()

    @Slot(bool, bool)
    def _on_session_history_changed(self, back: bool, forward: bool) -> None:
        self.back_action.setEnabled(back)
        self.forward_action.setEnabled(forward)

    @Slot(str)
    def _on_session_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 10_000)

    @Slot(str, str, str)
    def _on_preview_link_activated(self, kind: str, node: str, fragment: str) -> None:
        if self.session is None:
            return
        if kind == "tag-concept":
            if self.concept_tabs is not None:
                self.concept_tabs.tag_concept(node)
            return
        if kind == "note" and self.model is not None and self.model.ready:
            from ...core.index.queries import node_kind

            with self.model.read() as index:
                kind = (
                    node_kind(index, node)
                    if node in index.notes or node in index.attachments
                    else kind
                )
        self.session.open_node("note" if kind == "attachment" else kind, node, fragment)

    @Slot(str, object)
    def _on_session_search_ready(self, query: str, result: object) -> None:
        if isinstance(result, str):
            self.search.show_error(result)
        else:
            self.search.show_hits(query, result)  # type: ignore[arg-type]

    @Slot(int)
    def _on_centre_current_changed(self, _index: int) -> None:
        if self.centre.currentWidget() is self._graph_placeholder:
            self.centre.setCurrentWidget(self._ensure_graph())
            return
        if self.graph_session is not None:
            self.graph_session.set_active(
                self.graph is not None and self.centre.currentWidget() is self.graph
            )

    @Slot(str, str)
    def _on_switcher_node_chosen(self, kind: str, node: str) -> None:
        if self.session is not None:
            self.session.open_node(kind, node, "")

    @Slot(str)
    def _on_tags_tag_activated(self, tag: str) -> None:
        self.left.setCurrentWidget(self.search)
        self.search.set_query(f"tag:{tag}")

    @Slot()
    def _on_switcher_triggered(self) -> None:
        self.switcher.open_switcher()

    @Slot()
    def _on_search_triggered(self) -> None:
        self.left.setCurrentWidget(self.search)
        self.search.focus_query()

    @Slot(str, str)
    def _on_outgoing_target_activated(self, kind: str, node: str) -> None:
        if self.session is not None:
            self.session.open_node("note" if kind == "attachment" else kind, node, "")

    def show_view(self, view: str) -> None:
        """Bring a pane to the front: preview, backlinks, unlinked, outgoing, outline,
        recent, tags, files, search, concepts, graph, editor, tagging, warnings."""
        left = {
            "files": self.tree,
            "recent": self.recent,
            "tags": self.tags,
            "search": self.search,
            "concepts": self.concepts,
        }
        right = {
            "backlinks": self.backlinks,
            "unlinked": self.backlinks,
            "outgoing": self.outgoing,
            "outline": self.outline,
        }
        if view in left:
            self.left.setCurrentWidget(left[view])
        if view in right:
            self.right.setCurrentWidget(right[view])
        if view == "unlinked":
            self.backlinks.splitter.setSizes([200, 600])
        if view == "graph":
            self._on_graph_triggered()
        elif view in ("editor", "suggestions") and self.concept_tabs is not None:
            self.concept_tabs.show_editor()
        elif view in ("tagging", "tagging-preview") and self.concept_tabs is not None:
            self.concept_tabs.show_tagging()
        elif view == "warnings":
            self.centre.setCurrentWidget(self.preview)
            self._on_warnings_button_clicked()
        else:
            self.centre.setCurrentWidget(self.preview)

    # ------------------------------------------------------------ events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.BackButton:
                self._on_back_triggered()
                return True
            if event.button() == Qt.MouseButton.ForwardButton:
                self._on_forward_triggered()
                return True
        return super().eventFilter(watched, event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.set_window_state(self.saveGeometry(), self.saveState())
        self.settings.set_splitter("main", self.splitter.saveState())
        self.settings.set_recent_period(str(self.recent.period.currentData()))
        self.warnings.close()
        self._close_vault()
        self.settings.sync()
        super().closeEvent(event)
