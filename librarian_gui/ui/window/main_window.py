"""The main window: three panes, menus and status bar, wired to one vault session."""

from __future__ import annotations

import html
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QMouseEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QTabWidget,
)

from ...services.history import Place
from ...services.model import Update
from ...services.open_vault import OpenVault, VaultChoices
from ...services.session import ClosestHits
from ...services.settings import Settings
from .. import theme
from ..backlinks.outgoing import OutgoingPane
from ..backlinks.pane import BacklinksPane
from ..concepts.pane import ConceptsPane
from ..concepts.tabs import ConceptTabs
from ..elided import tab_text
from ..preview.hover import HoverPreviews
from ..preview.outline import Outline
from ..preview.view import PreviewView
from ..search.pane import SearchPane
from ..search.switcher import QuickSwitcher
from ..tags.pane import TagsPane
from ..vault.recent import RecentChanges
from ..vault.tree import FileTree
from ..vault.warnings import WarningsDialog, WarningsIndicator
from .actions import WindowActions
from .graph_tab import GraphTab, kind_of_node
from .help import show_crash
from .index_note_tab import IndexNoteTab
from .local_graph_tab import LocalGraphTab
from .reading import ReadingViews, opening_where
from .related_views import RelatedViews
from .review_tab import ReviewTab
from .timeline_tab import TimelineTab

if TYPE_CHECKING:
    from ...core.related.vault import RelatedIndex
    from ...services.graph import GraphService
    from ...services.local_graph import LocalGraphService
    from ...services.model import VaultModel
    from ...services.related import RelatedService
    from ...services.session import SessionService
    from ...services.thin_spots import ThinSpotsService
    from ...services.timeline import TimelineService
    from ...services.vault_lists import VaultLists
    from ..graph.view import GraphView
    from ..thin_spots.pane import ThinSpotsPane
    from .related_tab import RelatedTab

PROGRESS_EVERY_S = 0.25
# A tab's text with room under it: an unselected tab sits 2 px lower, and with Fusion's
# own tight tabs the underscores of "2020_09_14" fell below the tab's edge.
TAB_STYLE = "QTabBar::tab {{ padding: 4px {side}px 6px {side}px; min-width: 0px; }}"
SIDEBAR_WIDTHS = (330, 330)  # left, right: pixels at first start (then as the user left them)
SWITCH_INTERVAL_S = 0.001


class MainWindow(QMainWindow):
    """The application window for one vault at a time. It makes the parts (panes, the graph
    tab, the menus) and wires them to each other and to the open vault's services, all in
    ``_connect_parts`` and ``_connect_vault``.

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
        # Background threads (updater, jobs, layout) run Python while this thread paints:
        # every paint calls into Python, and each call waits up to the switch interval
        # for the interpreter lock. 1 ms instead of 5 keeps those waits short.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.settings = settings or Settings()
        self._use_cache = use_cache
        # NOTE as the command line names it (title or path): resolved once the index is
        # ready, by the index the window builds anyway (not by a scan of its own).
        self._requested_note = open_note
        # Why the requested NOTE was not opened (it names no note, or several), and the
        # command line's exit code for it (4, 5).
        self.missing_note: tuple[str, int] | None = None
        self.crash_boxes: list[QMessageBox] = []  # the last error message shown (tests)
        self.vault: OpenVault | None = None  # the open vault's services (open_vault.py)
        self.model: VaultModel | None = None
        self.session: SessionService | None = None
        self.lists: VaultLists | None = None
        self.graph_service: GraphService | None = None
        self.local_graph_service: LocalGraphService | None = None
        self.timeline_service: TimelineService | None = None
        self.concept_tabs: ConceptTabs | None = None
        self._build_widgets()
        self.actions = WindowActions(self, self.settings)
        self._connect_parts()
        self._restore_layout()
        self.open_vault(vault)

    @property
    def graph(self) -> GraphView | None:
        """The graph tab's view, once made."""
        return self.graph_tab.view

    @property
    def undo_action(self) -> QAction:
        return self.actions.undo_action

    @property
    def back_action(self) -> QAction:
        return self.actions.back_action

    @property
    def forward_action(self) -> QAction:
        return self.actions.forward_action

    @property
    def own_dictionary_action(self) -> QAction:
        return self.actions.own_dictionary_action

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
        # Six tabs in the sidebar: as much padding as keeps them all in sight.
        self.left.setStyleSheet(TAB_STYLE.format(side=5))
        self.search = SearchPane()
        self.left.addTab(self.search, "Search")
        self.switcher = QuickSwitcher(self)
        self.preview = PreviewView()
        self.centre = QTabWidget()
        self.centre.setStyleSheet(TAB_STYLE.format(side=8))
        # The first tab: the main preview, and beside it, once asked for, a second note.
        self.preview_split = QSplitter(Qt.Orientation.Horizontal)
        self.preview_split.setChildrenCollapsible(False)
        self.preview_split.addWidget(self.preview)
        self.centre.addTab(self.preview_split, "Preview")
        self.reading = ReadingViews(self.centre, self.preview_split, self)
        self.reading.elsewhere.connect(self._on_preview_link_activated)
        self.graph_tab = GraphTab(self.centre, self.settings, parent=self)
        self.timeline_tab = TimelineTab(self.centre, self.graph_tab, self.settings, parent=self)
        self.backlinks = BacklinksPane()
        # A link to a note, hovered in the preview or the backlinks: the note's start shows.
        self.hover = HoverPreviews(self)
        for browser in (
            self.preview,
            self.backlinks.linked.browser,
            self.backlinks.unlinked.browser,
        ):
            self.hover.attach(browser)
        self.outgoing = OutgoingPane()
        self.outline = Outline()
        self.right = QTabWidget()
        self.right.addTab(self.backlinks, "Backlinks")
        self.right.addTab(self.outgoing, "Outgoing")
        self.right.addTab(self.outline, "Outline")
        self.local_graph = LocalGraphTab(self.right, self.graph_tab, self.settings, parent=self)
        self.related = RelatedViews(
            self,
            self.left,
            self.right,
            self.graph_tab,
            self.local_graph,
            self.settings,
            self,
        )
        self.index_note = IndexNoteTab(self.centre, self, self.settings, parent=self)
        self.review = ReviewTab(self.centre, parent=self)
        # Five tabs in the sidebar too.
        self.right.setStyleSheet(TAB_STYLE.format(side=6))
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for pane in (self.left, self.centre, self.right):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self._default_split = True  # until a saved layout is restored
        self.setCentralWidget(self.splitter)
        self.counts = QLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.warnings_button = WarningsIndicator()
        self.warnings = WarningsDialog(self)
        self.statusBar().addPermanentWidget(self.related.related_tab.status)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.warnings_button)
        self.statusBar().addPermanentWidget(self.counts)
        self.preview.viewport().installEventFilter(self)
        self.recent.set_period(self.settings.recent_period())

    def _connect_parts(self) -> None:
        """The parts to each other: what does not depend on the open vault."""
        actions = self.actions
        actions.vault_chosen.connect(self.open_vault)
        actions.dictionary_chosen.connect(self.use_dictionary)
        actions.theme_chosen.connect(self.set_theme)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)
        actions.switcher_requested.connect(self.switcher.open_switcher)
        actions.search_requested.connect(self._on_actions_search_requested)
        actions.graph_requested.connect(self.graph_tab.show_tab)
        # Widgets → the window's own slots: once, here. Connected again at each vault opened
        # (as the session's are), a link clicked after a second vault acted twice.
        self.outgoing.target_activated.connect(self._on_outgoing_target_activated)
        self.preview.link_activated.connect(self._on_preview_link_activated)
        self.outline.heading_activated.connect(self.preview.scroll_to_line)
        self.switcher.node_chosen.connect(self._on_switcher_node_chosen)
        self.concepts.concept_activated.connect(self._on_concepts_concept_activated)
        actions.tab_requested.connect(lambda: self._open_current_elsewhere("tab"))
        actions.side_requested.connect(lambda: self._open_current_elsewhere("side"))
        self.graph_tab.node_activated.connect(self._on_graph_tab_node_activated)
        self.local_graph.node_activated.connect(self._on_local_graph_node_activated)
        self.timeline_tab.note_activated.connect(self._on_timeline_tab_note_activated)
        self.tags.tag_activated.connect(self._on_tags_tag_activated)
        self.concepts.dictionary_requested.connect(self._on_concepts_dictionary_requested)
        self.warnings_button.clicked.connect(self._on_warnings_button_clicked)
        self.related.message.connect(self._on_session_message)
        self.index_note.message.connect(self._on_session_message)
        self.review.message.connect(self._on_session_message)
        self.related.concept_opened.connect(self._on_concepts_concept_activated)

    def _restore_layout(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        splitter = self.settings.splitter("main")
        if splitter is not None:
            self._default_split = not self.splitter.restoreState(splitter)

    def showEvent(self, event: QShowEvent) -> None:
        """The sidebars' default widths, set once the window has its size: set before, they
        were scaled down to the unsized window's and the centre took all the growth, which
        left the left sidebar too narrow for its tabs (scroll arrows)."""
        super().showEvent(event)
        if self._default_split:
            self._default_split = False
            left, right = SIDEBAR_WIDTHS
            centre = max(200, self.splitter.width() - left - right)
            self.splitter.setSizes([left, centre, right])

    # ------------------------------------------------------------ vaults

    def open_vault(self, root: Path) -> None:
        self._close_vault()
        root = root.resolve()
        dictionary = self.settings.dictionary(root)
        choices = VaultChoices(
            excluded=tuple(self.settings.excluded(root)),
            dictionary=dictionary,
            use_cache=self._use_cache,
            dark=theme.resolve(self.settings.theme()),
            related_threshold=self.settings.related_threshold(),
            index_note=self.settings.index_note(root, ""),  # "": found once indexed
            index_excludes=tuple(self.settings.index_excludes(root)),
        )
        self.vault = vault = OpenVault(root, choices, parent=self)  # every service, wired
        self.model = vault.model
        self.session = vault.session
        self.graph_service = vault.graph
        self.local_graph_service = vault.local_graph
        self.lists = vault.lists
        self.timeline_service = vault.timeline
        self.timeline_tab.set_session(vault.timeline)
        self.related.open_vault(vault)
        self.index_note.open_vault(vault)
        self.review.open_vault(vault)
        self.preview.set_vault_root(root)
        self._connect_vault(vault.model, vault.session, vault.graph, vault.lists)
        self.actions.set_vault(vault.model, vault.session, own_dictionary=dictionary is not None)
        self.concept_tabs = ConceptTabs(
            vault,
            self.centre,
            open_concept=self._on_concepts_concept_activated,
            open_note=vault.session.open_note,
            parent=self,
        )
        self.settings.vault_opened(root)
        self.actions.fill_recent_vaults(self.settings.recent_vaults())
        self.recent.set_previous_session(self.settings.previous_session(root))
        self.setWindowTitle(f"{root.name} — Librarian")
        self.counts.setText("Indexing…")
        self._on_session_warnings_changed((), frozenset())  # the last vault's are gone
        self.progress.setValue(0)
        self._progress_shown = 0.0
        self.progress.show()
        vault.start()
        note = self.settings.last_note(root)
        if note and not self._requested_note:
            vault.session.open_note(note)
        self.vault_changed.emit(root)

    def _close_vault(self) -> None:
        vault = self.vault
        if vault is None:
            return
        root = vault.root
        self.settings.session_ended(root)
        current = vault.session.current
        if current is not None and current.kind == "note":
            self.settings.set_last_note(root, current.node)
        self.related.close_vault()
        self.index_note.close_vault()
        self.review.close_vault()
        if self.concept_tabs is not None:
            self.concept_tabs.close()
            self.concept_tabs.deleteLater()
            self.concept_tabs = None
        vault.close()  # stops every service's threads; they go with it
        self.vault = None
        self.model = None
        self.session = None
        self.graph_service = None
        self.local_graph_service = None
        self.timeline_service = None
        self.lists = None
        self.graph_tab.set_session(None)
        self.local_graph.set_session(None)
        self.timeline_tab.set_session(None)
        self.actions.set_vault(None, None, own_dictionary=False)

    def use_dictionary(self, path: Path | None) -> bool:
        """Use this concept dictionary for the open vault from now on (None: the vault's
        own concepts.json): remembered per vault; the vault is indexed again with it.
        False when the user kept unsaved dictionary edits instead."""
        if self.model is None:
            return False
        tabs = self.concept_tabs
        if (
            tabs is not None
            and tabs.editor.dirty
            and not tabs.editor.confirm(
                "Concept dictionary",
                "The dictionary has unsaved edits. Discard them and switch dictionaries?",
            )
        ):
            return False
        root = self.model.root
        self.settings.set_dictionary(root, path.expanduser().resolve() if path else None)
        self.open_vault(root)
        assert self.model is not None
        self.statusBar().showMessage(f"Concept dictionary: {self.model.dictionary_path}", 8000)
        return True

    def set_theme(self, name: str, dark: bool | None = None) -> None:
        """Use the theme ``name`` (remembered); ``dark``: what "system" means now, when the
        system just said so."""
        self.settings.set_theme(name)
        self.actions.check_theme(name)
        if dark is None:
            dark = theme.resolve(name)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.apply(app, dark)
        if self.session is not None:
            self.session.set_dark(dark)
        self.reading.render_again()  # the notes in tabs and beside, in the new colours

    @Slot(Qt.ColorScheme)
    def _on_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        """The system turned light or dark: follow it, when the theme is "system"."""
        if self.settings.theme() == "system":
            self.set_theme("system", dark=scheme == Qt.ColorScheme.Dark)

    # ------------------------------------------------------------ wiring

    def _connect_vault(
        self,
        model: VaultModel,
        session: SessionService,
        graph_service: GraphService,
        lists: VaultLists,
    ) -> None:
        """The parts to the open vault's services (disconnected when they are deleted)."""
        model.scan_progressed.connect(self._on_model_scan_progressed)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        model.scan_failed.connect(self._on_model_scan_failed)
        model.update_failed.connect(self.statusBar().showMessage)
        session.place_shown.connect(self._on_session_place_shown)
        session.note_missing.connect(self._on_session_note_missing)
        for pane_id in list(self.reading.panes):  # notes of the vault open before
            self.reading.close_pane(pane_id)
        self.hover.wanted.connect(session.request_excerpt)
        session.excerpt_ready.connect(self.hover.show)
        self.reading.wanted.connect(session.render_aside)
        session.aside_ready.connect(self.reading.show_rendered)
        session.backlinks_ready.connect(self.backlinks.show_linked)
        session.unlinked_ready.connect(self.backlinks.show_unlinked)
        session.outline_ready.connect(self.outline.show_headings)
        session.outgoing_ready.connect(self.outgoing.show_links)
        session.history_changed.connect(self.actions.show_history)
        session.files_reset.connect(self.tree.install)
        session.message.connect(self._on_session_message)
        session.undo_changed.connect(self.actions.undo_action.setEnabled)
        session.switcher_ready.connect(self.switcher.set_index)
        session.warnings_changed.connect(self._on_session_warnings_changed)
        session.search_ready.connect(self._on_session_search_ready)
        lists.recent_listed.connect(self.recent.show_notes)
        lists.tags_counted.connect(self.tags.show_counts)
        lists.concepts_counted.connect(self.concepts.show_concepts)
        self.graph_tab.set_session(graph_service)
        if self.local_graph_service is not None:
            self.local_graph.set_session(self.local_graph_service)
        # widgets → session (disconnected from the previous session by deleteLater)
        for signal, slot in (
            (self.tree.note_selected, session.open_note),
            (self.tree.attachment_selected, session.open_note),
            (self.recent.note_selected, session.open_note),
            (self.backlinks.source_activated, session.open_at_line),
            (self.backlinks.link_requested, session.link_mention),
            (self.search.query_changed, session.search),
            (self.search.result_activated, session.open_at_line),
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
        if self.model is not None and self.model.index is not None:
            self._show_counts(self.model.index.summary)
        # Not at once: the first note's render, its backlinks and unlinked mentions run on
        # job threads now, and every thread that runs Python keeps the GUI thread waiting
        # for the interpreter lock a little longer.
        self.graph_tab.schedule_import()
        # Its own event-loop turn too: every slot of index_ready runs in this one.
        QTimer.singleShot(0, self._open_first_note)

    def _open_first_note(self) -> None:
        """The note asked for on the command line, else the last one, else an index note."""
        if self.session is None or self.model is None or not self.model.ready:
            return
        if self._requested_note:
            missing = self.session.open_named(self._requested_note)
            if missing is not None:
                self.missing_note = missing
                self.statusBar().showMessage(missing[0], 10_000)
            self._requested_note = None
        if self.session.current is None:
            self.session.open_home_note()
        if self.session.current is None:  # no note at all: say what to do
            self.preview.setHtml(empty_vault_html(self.model.root))

    @Slot(object)
    def _on_model_index_updated(self, update: Update) -> None:
        delta = update.delta
        self.graph_tab.postpone_import()
        self.tree.remove_files((*delta.notes_removed, *delta.attachments_removed))
        self.tree.add_files(delta.notes_added, "note")
        self.tree.add_files(delta.attachments_added, "attachment")
        if self.session is not None and self.session.current is not None:
            self.tree.select(self.session.current.node)
        self._show_counts(update.summary)
        self.recent.notes_changed(
            {rel: stamp.mtime_ns / 1e9 for rel, stamp in update.stamps}, delta.notes_removed
        )

    @Slot(str)
    def _on_model_scan_failed(self, message: str) -> None:
        self.progress.hide()
        self.counts.setText("Not indexed")
        self.statusBar().showMessage(f"Cannot read the vault: {message}")

    def _show_counts(self, summary: tuple[int, int, int, int]) -> None:
        """The counts the updater took after its last scan or update (walking 10,000 notes
        here took 5-10 ms of the GUI thread at every update)."""
        notes, links, ghosts, concepts = summary
        self.counts.setText(
            f"{notes:,} notes · {links:,} links · {ghosts:,} unresolved · {concepts:,} concepts"
        )

    @Slot(str)
    def _on_concepts_concept_activated(self, concept_id: str) -> None:
        if self.session is not None:
            self.session.open_node("concept", concept_id)
            self.centre.setCurrentWidget(self.preview_split)

    # ------------------------------------------------------------ session events

    @Slot(object, object, bool)
    def _on_session_place_shown(self, place: Place, rendered: Any, refresh: bool) -> None:
        self.preview.show_note(rendered.html, keep_scroll=refresh)
        if not refresh:
            self.backlinks.reset_pages()
            if place.line is not None:
                self.preview.scroll_to_line(place.line)
            elif place.fragment:
                self.preview.scroll_to_heading(place.fragment)
        if place.kind == "note":
            self.tree.select(place.node)
        if self.graph_service is not None:
            self.graph_service.set_centre(place.node)
        if self.local_graph_service is not None:
            self.local_graph_service.set_centre(place.node)
        self.graph_tab.select(place.node)
        self.related.show_place(place.kind, place.node)
        self.centre.setTabText(0, tab_text(rendered.title or "Preview"))
        self.place_rendered.emit(place)

    @Slot(str, str)
    def _on_session_note_missing(self, rel: str, reason: str) -> None:
        self.preview.setHtml(f"<h2>{html.escape(rel)}</h2><p>{html.escape(reason)}</p>")
        self.statusBar().showMessage(reason, 8000)

    @Slot(str, str)
    def show_crash(self, summary: str, trace: str) -> None:
        """An error nobody caught (``services.crash``): told, non-modal; the window goes on."""
        self.crash_boxes = [show_crash(self, summary, trace, self.actions.log_path)]

    @Slot(object, object)
    def _on_session_warnings_changed(self, warnings: Any, files: Any) -> None:
        self.warnings_button.set_count(len(warnings))
        self.warnings.set_warnings(warnings, files)

    @Slot()
    def _on_warnings_button_clicked(self) -> None:
        self.warnings.show()
        self.warnings.raise_()
        self.warnings.activateWindow()

    @Slot(str)
    def _on_session_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 10_000)

    def _open_current_elsewhere(self, where: str) -> None:
        """The note open in the main preview, again in a new tab or to the side."""
        place = self.session.current if self.session is not None else None
        if place is None or place.kind != "note":
            self.statusBar().showMessage("Open a note first: it is the one opened again.", 5000)
        elif where == "tab":
            self.reading.open_in_tab(place.node)
        else:
            self.reading.open_to_side(place.node)

    @Slot(str, str, str)
    def _on_preview_link_activated(self, kind: str, node: str, fragment: str) -> None:
        where = opening_where() if kind == "note" and node.lower().endswith(".md") else "here"
        if where == "tab":  # Ctrl+click
            self.reading.open_in_tab(node)
        elif where == "side":  # Ctrl+Alt+click
            self.reading.open_to_side(node)
        elif kind == "tag-concept":
            if self.concept_tabs is not None:
                self.concept_tabs.tag_concept(node)
        elif self.session is not None:
            self.session.follow_link(kind, node, fragment)

    @Slot(str, object)
    def _on_session_search_ready(self, query: str, result: object) -> None:
        if isinstance(result, str):
            self.search.show_error(result)
        elif isinstance(result, ClosestHits):
            self.search.show_hits(query, result.hits, closest=True)
        else:
            self.search.show_hits(query, result)  # type: ignore[arg-type]

    @Slot(str, str)
    def _on_graph_tab_node_activated(self, kind: str, node: str) -> None:
        if self.session is not None:
            self.session.open_node(kind, node, "")
            self.centre.setCurrentWidget(self.preview_split)

    # ------------------------------------------------------------ related notes

    @property
    def thin_spots(self) -> ThinSpotsPane:
        return self.related.thin_spots

    @property
    def related_tab(self) -> RelatedTab:
        return self.related.related_tab

    @property
    def related_service(self) -> RelatedService | None:
        return self.related.related_service

    @property
    def thin_spots_service(self) -> ThinSpotsService | None:
        return self.related.thin_spots_service

    def show_related(self, related: RelatedIndex | None) -> None:
        """Hand ``related`` to every view drawing related notes (see RelatedViews)."""
        self.related.show_related(related)

    def set_related_threshold(self, threshold: float) -> None:
        """Set the threshold every view shows related notes at (kept in the settings)."""
        self.related.set_related_threshold(threshold)

    @Slot(str)
    def _on_local_graph_node_activated(self, node: str) -> None:
        if self.session is not None:
            self.session.open_node(kind_of_node(node), node, "")

    @Slot(str, int)
    def _on_timeline_tab_note_activated(self, rel: str, line: int) -> None:
        if self.session is not None:
            self.session.open_at_line(rel, line)
            self.centre.setCurrentWidget(self.preview_split)

    @Slot(str, str)
    def _on_switcher_node_chosen(self, kind: str, node: str) -> None:
        if self.session is not None:
            self.session.open_node(kind, node, "")

    @Slot(str)
    def _on_tags_tag_activated(self, tag: str) -> None:
        self.left.setCurrentWidget(self.search)
        self.search.set_query(f"tag:{tag}")

    @Slot()
    def _on_concepts_dictionary_requested(self) -> None:
        if self.concept_tabs is not None:
            self.concept_tabs.show_editor()

    @Slot()
    def _on_actions_search_requested(self) -> None:
        self.left.setCurrentWidget(self.search)
        self.search.focus_query()

    @Slot(str, str)
    def _on_outgoing_target_activated(self, kind: str, node: str) -> None:
        if self.session is not None:
            self.session.open_node("note" if kind == "attachment" else kind, node, "")

    def show_view(self, view: str) -> None:
        """Bring a pane to the front: preview, backlinks, unlinked, outgoing, outline, related,
        recent, tags, files, search, concepts, thin-spots, index-health, graph (around the
        open note), graph-global, local-graph (the sidebar's), conceptmap (the graph tab in
        its concept map mode), timeline, editor, tagging, warnings."""
        left = {
            "files": self.tree,
            "recent": self.recent,
            "tags": self.tags,
            "search": self.search,
            "concepts": self.concepts,
            "thin-spots": self.thin_spots,
        }
        right = {
            "backlinks": self.backlinks,
            "unlinked": self.backlinks,
            "outgoing": self.outgoing,
            "outline": self.outline,
            "related": self.related_tab.pane,
        }
        if view in left:
            self.left.setCurrentWidget(left[view])
        if view in right:
            self.right.setCurrentWidget(right[view])
        if view == "unlinked":
            self.backlinks.splitter.setSizes([200, 600])
        if view == "local-graph":
            self.local_graph.show_tab()
        if view == "graph":
            self.graph_tab.show_tab()
        elif view == "conceptmap":
            self.graph_tab.show_tab("conceptmap")
        elif view == "graph-global":
            self.graph_tab.show_tab("global")
        elif view == "timeline":
            self.timeline_tab.show_tab()
        elif view in ("index-health", "split"):
            self.index_note.show_tab()
        elif view == "review":
            self.review.show_tab()
        elif view in ("contradictions", "supersede"):
            self.review.show_tab("contradictions")
        elif view in ("editor", "suggestions", "isolated") and self.concept_tabs is not None:
            self.concept_tabs.show_editor()
        elif view in ("tagging", "tagging-preview") and self.concept_tabs is not None:
            self.concept_tabs.show_tagging()
        elif view == "warnings":
            self.centre.setCurrentWidget(self.preview_split)
            self._on_warnings_button_clicked()
        else:
            self.centre.setCurrentWidget(self.preview_split)

    # ------------------------------------------------------------ events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.BackButton:
                self.actions.go_back()
                return True
            if event.button() == Qt.MouseButton.ForwardButton:
                self.actions.go_forward()
                return True
        return super().eventFilter(watched, event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.set_window_state(self.saveGeometry(), self.saveState())
        self.settings.set_splitter("main", self.splitter.saveState())
        self.settings.set_recent_period(str(self.recent.period.currentData()))
        self.warnings.close()
        self.graph_tab.stop()
        self.local_graph.stop()
        self.timeline_tab.stop()
        self._close_vault()
        self.settings.sync()
        super().closeEvent(event)


def empty_vault_html(root: Path) -> str:
    """The preview of a vault with no note yet: where notes go, and the other ways on."""
    where = html.escape(str(root))
    return (
        "<h2>This vault has no notes yet</h2>"
        f"<p>Librarian reads the Markdown files (<code>.md</code>) in <code>{where}</code> and "
        "its folders. Save one there, from any editor or an agent, and it appears at once: "
        "the file tree, its links and backlinks, the graph.</p>"
        "<ul>"
        "<li><b>File → Open Vault…</b> (Ctrl+Shift+O) opens another folder of notes, such as "
        "an Obsidian vault.</li>"
        "<li><b>File → Recent Vaults</b> goes back to one you opened before.</li>"
        "<li>The <b>Dictionary</b> tab starts a concept dictionary from one of the starters "
        "(AI agents, research).</li>"
        "<li><b>Help → Keyboard Shortcuts</b> (F1) lists what the keys do.</li>"
        "</ul>"
    )
