"""One open vault as the views see it: the open note, history, and the answers they show."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.courtesy import Courtesy
from ..core.index.queries import node_kind, outgoing_summary
from ..core.index.resolver import CONCEPT_PREFIX, UNRESOLVED_PREFIX
from ..core.live.words import VaultWords
from ..core.render.pages import note_page, place_page
from ..core.vault.filetree import FileTreeData
from ..core.vault.textstore import TextStore
from ..core.writing.journal import WINDOW, Journal, JournalEntry, JournalError, UndoResult
from .history import History, Place
from .jobs import JobControl, JobHandle, JobRunner
from .model import Update, VaultModel
from .preload import preload

if TYPE_CHECKING:  # markdown-it, Pygments, rapidfuzz and numpy load on the job threads
    from ..core.backlinks.unlinked import Mention
    from ..core.index.index import VaultIndex
    from ..core.index.snapshot import IndexView
    from ..core.insight.index_note_fix import IndexNoteFixPlan
    from ..core.library.split import SplitPlan
    from ..core.parse.records import ScanWarning
    from ..core.related.linking import RelatedLinkPlan
    from ..core.review.supersede import SupersedePlan
    from ..core.search.search import SearchHit

ALL_PARTS = frozenset({"note", "backlinks", "unlinked", "sidebars"})


class SessionService(QObject):
    """The open note of one vault and everything shown about it.

    Widgets never reach into this object: the main window connects their signals to its
    slots and its signals to their methods. Rendering and the backlinks' context lines are
    computed on the model's background thread; results for a place the user has left are
    dropped.

    Signals:
        place_shown(object, object, bool): the Place now open, its RenderedNote, and whether
            it is the same note refreshed (keep the scroll position).
        note_missing(str, str): the open note's path, and why it cannot be shown.
        backlinks_ready(object): linked mentions (list of MentionGroup).
        unlinked_ready(object, object): unlinked mentions (list of Mention), and the
            frozenset of their sources Librarian never writes (not UTF-8: no Link there).
        outline_ready(object): the open note's headings.
        outgoing_ready(object): the open note's outgoing links (list of OutgoingLink).
        history_changed(bool, bool): whether back and forward are possible.
        files_reset(FileTreeData): every note and attachment, as a sorted tree.
        message(str): something to tell the user in the status bar.
        undo_changed(bool): whether Edit → Undo has something to undo.
        excerpt_ready(str, str): a note's path and the start of it as a hover shows it
            (asked for by ``request_excerpt``).
        aside_ready(int, str, object): a note rendered for an extra pane (``render_aside``):
            the pane's id, the note, its page (or the exception saying why not).
        write_finished(str): a write asked for here ("link", "related" or "undo") is done,
            its outcome told by ``message``.
        switcher_ready(object): a SwitcherIndex over the current notes, aliases, concepts.
        search_ready(str, object): a query and its hits (list of SearchHit), or an error
            message instead of the list.
        warnings_changed(object, object): the vault's problems (a tuple of ScanWarning,
            sorted by path), and the frozenset of their paths that are notes or files the
            preview can open.
        split_stale(str): a split was refused because its dump changed since the plan
            (other than by lines added at its end): the dump's path, to plan again.
    """

    place_shown = Signal(object, object, bool)
    note_missing = Signal(str, str)
    backlinks_ready = Signal(object)
    unlinked_ready = Signal(object, object)
    outline_ready = Signal(object)
    outgoing_ready = Signal(object)
    history_changed = Signal(bool, bool)
    files_reset = Signal(object)
    message = Signal(str)
    undo_changed = Signal(bool)
    write_finished = Signal(str)
    excerpt_ready = Signal(str, str)
    aside_ready = Signal(int, str, object)
    switcher_ready = Signal(object)
    search_ready = Signal(str, object)
    warnings_changed = Signal(object, object)
    split_stale = Signal(str)

    def __init__(self, model: VaultModel, *, dark: bool = False, parent: QObject | None = None):
        super().__init__(parent)
        self.model = model
        self.root: Path = model.root
        self.store = TextStore(model.root)
        self.journal = Journal(model.root, by=WINDOW)
        # Writes wait for the vault's writer lock (another window, an agent's command):
        # never in the GUI thread, and one at a time.
        self._writer = JobRunner("librarian-write", self)
        self.history = History()
        self.dark = dark
        self._generation = 0
        self._place_jobs: list[JobHandle] = []  # the open place's render and backlinks
        self._search_job: JobHandle | None = None
        self._unlinked_job: JobHandle | None = None
        self._unlinked_timer = QTimer(self, singleShot=True, interval=700)
        self._unlinked_timer.timeout.connect(self._on_unlinked_timer_timeout)
        self._switcher_timer = QTimer(self, singleShot=True, interval=800)
        self._switcher_timer.timeout.connect(self._on_switcher_timer_timeout)
        self._switcher: object | None = None  # the last one built: the next may share it
        # A checkout changes thousands of files in bursts: the warnings are gathered again
        # once a burst has settled.
        self._warnings_timer = QTimer(self, singleShot=True, interval=300)
        self._warnings_timer.timeout.connect(self._on_warnings_timer_timeout)
        self.warnings: tuple[ScanWarning, ...] | None = None  # as last sent; None: not yet
        self._listed: FileTreeData | None = None  # the tree the view was last given
        self._sidebars_sent: tuple[object, ...] = ()  # what outline and outgoing show
        # The notes linking the open place, as its last backlinks job found them; None
        # while that job runs (then any changed note may be one of them).
        self._linking: frozenset[str] | None = None
        self._embeds: frozenset[str] = frozenset()  # notes the open one shows inline
        # Which notes hold each word: unlinked mentions look only in the notes holding a
        # name's words (as the MCP server does), once the warm-up has read every note.
        self.words: VaultWords | None = None
        model.files_listed.connect(self._on_model_files_listed)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)

    # ------------------------------------------------------------ opening places

    @property
    def current(self) -> Place | None:
        return self.history.current

    @Slot(str)
    def open_note(self, rel: str, line: int | None = None, fragment: str | None = None) -> None:
        self._go(Place("note", rel, line, fragment))

    @Slot(str, str, str)
    def open_node(self, kind: str, node: str, fragment: str = "") -> None:
        """Follow a link: a note (or attachment), a concept, or an unresolved target."""
        if kind == "unresolved" and not node.startswith(UNRESOLVED_PREFIX):
            node = UNRESOLVED_PREFIX + node.lower()
        if kind == "concept" and not node.startswith(CONCEPT_PREFIX):
            node = CONCEPT_PREFIX + node
        self._go(Place(kind, node, None, fragment or None))

    @Slot(str, str, str)
    def follow_link(self, kind: str, node: str, fragment: str = "") -> None:
        """A link of the preview: a note link may lead to an attachment, which opens as
        the note kind does (its page)."""
        if kind == "note" and self.model.ready:
            index = self.model.snapshot()
            if node in index.notes or node in index.attachments:
                kind = node_kind(index, node)
        self.open_node("note" if kind == "attachment" else kind, node, fragment)

    def open_named(self, name: str) -> tuple[str, int] | None:
        """Open the note ``name`` stands for (a title or a vault path, as the command line
        takes it). When it names no note, or several, nothing is opened: the reason, and
        the exit code the command line gives it (4 none, 5 several), come back."""
        from ..core.agents.answers import closest_notes
        from ..core.index.queries import AmbiguousNote, NoteNotFound, find_note

        index = self.model.snapshot()
        try:
            rel = find_note(index, name)
        except AmbiguousNote as exc:
            return f"{exc}; give the path to choose one", 5
        except NoteNotFound as exc:
            close = closest_notes(index, name, keep=False)  # asked once, at the start
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            return f"{exc}{hint}", 4
        self.open_note(rel)
        return None

    def open_home_note(self) -> None:
        """Open the vault's home note (``queries.home_note``), if it has a note."""
        from ..core.index.queries import home_note

        index = self.model.snapshot()
        first = home_note(index)
        if first is not None:
            self.open_note(first)

    @Slot(str, int)
    def open_at_line(self, rel: str, line: int) -> None:
        self._go(Place("note", rel, line, None))

    @Slot()
    def go_back(self) -> None:
        place = self.history.back()
        if place is not None:
            self._show(place, refresh=False)

    @Slot()
    def go_forward(self) -> None:
        place = self.history.forward()
        if place is not None:
            self._show(place, refresh=False)

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        if self.current is not None:
            self._show(self.current, refresh=True)

    def _go(self, place: Place) -> None:
        self.history.visit(place)
        self._show(place, refresh=False)

    def _show(
        self,
        place: Place,
        *,
        refresh: bool,
        parts: frozenset[str] = ALL_PARTS,
        quiet: bool = False,
    ) -> None:
        """Compute what the views show of ``place``: the rendered ``note``, ``backlinks``,
        ``unlinked`` mentions, ``sidebars`` (outline, outgoing). A refresh after a change
        elsewhere recomputes only the parts it can have changed."""
        self.history_changed.emit(self.history.can_go_back(), self.history.can_go_forward())
        if not self.model.ready:
            return  # shown once the index is ready
        if "note" in parts or not refresh:  # a new place: drop every answer still coming
            self._generation += 1
            for job in self._place_jobs:
                job.cancel()
            self._place_jobs = []
        generation = self._generation
        dark = self.dark
        jobs = [job for job in self._place_jobs if not job.done]
        if "sidebars" in parts:  # first: quick, and shown with the note, not after it
            jobs.append(self._send_sidebars(place))
        if "note" in parts:
            render_job = (
                (lambda c: self._render_note(place.node, dark, c))
                if place.kind == "note"
                else (lambda c: self._render_node(place, dark, c))
            )
            handle = self.model.submit(render_job, name="note")
            _deliver(handle, partial(self._on_note_job_ended, generation, place, refresh))
            jobs.append(handle)
        if "backlinks" in parts:
            reader = self._reader()
            self._linking = None
            handle = self.model.submit(
                lambda c: _linked(self._index(), place.node, reader, c.cancelled),
                name="backlinks",
            )
            _deliver(handle, partial(self._on_backlinks_job_ended, generation))
            jobs.append(handle)
        self._place_jobs = jobs
        if "unlinked" in parts:
            if place.kind != "note":
                self.unlinked_ready.emit([], frozenset())
            elif refresh or quiet:
                self._unlinked_timer.start()  # a scan of the whole vault: once things settle
            else:
                self._on_unlinked_timer_timeout()

    @Slot()
    def _on_unlinked_timer_timeout(self) -> None:
        place = self.current
        if place is None or place.kind != "note" or not self.model.ready:
            return
        if self._unlinked_job is not None:
            self._unlinked_job.cancel()
        reader = self._reader()
        pause = self.model.pause_for_updates

        def unlinked(control: JobControl) -> object:
            def read(rel: str) -> str | None:
                control.check()
                pause()  # a save on its way to the panes goes first
                return reader(rel)

            return self._unlinked(place.node, read)

        self._unlinked_job = handle = self.model.submit(unlinked, slow=True, name="unlinked")
        _deliver(handle, partial(self._on_unlinked_job_ended, self._generation))

    def _send_sidebars(self, place: Place) -> JobHandle:
        """The outline and the outgoing links, read on the quick job thread from the
        index's latest snapshot."""
        index = self._index()

        def sidebars(_control: JobControl) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            view = index.snapshot()
            record = view.notes.get(place.node) if place.kind == "note" else None
            headings = record.parsed.headings if record is not None else ()
            links = outgoing_summary(view, place.node) if record is not None else []
            return tuple(headings), tuple(links)

        handle = self.model.submit(sidebars, name="sidebars")
        handle.finished.connect(partial(self._on_sidebars_job_finished, self._generation, place))
        return handle

    def _on_sidebars_job_finished(
        self, generation: int, place: Place, result: tuple[tuple[Any, ...], tuple[Any, ...]]
    ) -> None:
        if generation != self._generation:
            return
        headings, links = result
        # A note changed without a new heading or link (an agent appending a line, each
        # note of a checkout) leaves the two panes as they are: no rows made again.
        sent = (place.node, headings, links)
        if sent == self._sidebars_sent:
            return
        self._sidebars_sent = sent
        self.outline_ready.emit(list(headings))
        self.outgoing_ready.emit(list(links))

    # ------------------------------------------------------------ background jobs

    @Slot(int, str)
    def render_aside(self, pane_id: int, rel: str) -> None:
        """Render the note ``rel`` for the extra pane ``pane_id`` (a tab, the split's side),
        on a job thread; ``aside_ready`` brings it."""
        if not self.model.ready:
            return
        dark = self.dark
        handle = self.model.submit(lambda c: self._render_note(rel, dark, c), name="aside")
        _deliver(handle, partial(self._on_aside_job_ended, pane_id, rel))

    def _on_aside_job_ended(self, pane_id: int, rel: str, result: object) -> None:
        self.aside_ready.emit(pane_id, rel, result)

    @Slot(str)
    def request_excerpt(self, rel: str) -> None:
        """Read and format the start of the note ``rel`` for a hover, on a job thread;
        ``excerpt_ready`` brings it. Nothing for a path that names no note."""
        if not self.model.ready:
            return
        index, reader = self._index(), self._reader()
        record = index.notes.get(rel)
        title = record.title if record is not None else None
        if title is None:
            return

        def job(_c: object) -> tuple[str, str]:
            from ..core.render.excerpt import note_excerpt

            return rel, note_excerpt(title, rel, reader(rel))

        handle = self.model.submit(job, name="excerpt")
        _deliver(handle, self._on_excerpt_job_ended)

    def _on_excerpt_job_ended(self, result: object) -> None:
        if isinstance(result, tuple):
            self.excerpt_ready.emit(*result)

    def _index(self) -> VaultIndex:
        index = self.model.index
        assert index is not None
        return index

    def _reader(self) -> Callable[[str], str | None]:
        index, store = self._index(), self.store

        # A job reading the whole vault would hold the GIL for long stretches (see
        # core.courtesy): it pauses every few milliseconds for the GUI thread.
        courtesy = Courtesy()

        def read(rel: str) -> str | None:
            courtesy.tick()
            record = index.notes.get(rel)
            return store.get(rel, record.stamp) if record is not None else None

        return read

    def _render_note(self, rel: str, dark: bool, _control: JobControl) -> Any:
        index = self._index()
        return note_page(index, self.store, self.root, rel, dark=dark, read_note=self._reader())

    def _render_node(self, place: Place, dark: bool, control: JobControl) -> Any:
        index, reader = self._index(), self._reader()

        def note_body(rel: str) -> str:
            page = note_page(
                index, self.store, self.root, rel, dark=dark, read_note=reader, body_only=True
            )
            return "" if isinstance(page, LookupError) else page.html

        return place_page(
            index, place.kind, place.node, reader, control.cancelled, note_body=note_body, dark=dark
        )

    def _unlinked(
        self, rel: str, reader: Callable[[str], str | None]
    ) -> tuple[list[Mention], frozenset[str]]:
        from ..core.backlinks.unlinked import mention_names, unlinked_mentions

        view, words = self._index().snapshot(), self.words
        if rel not in view.notes:
            return [], frozenset()
        names = mention_names(view, rel)
        among = words.holding(names) if words is not None else None
        mentions = unlinked_mentions(view, rel, reader, among)
        # read with replacement characters: the writer refuses them
        lossy = {m.source for m in mentions if _is_lossy(view, m.source)}
        return mentions, frozenset(lossy)

    @Slot(str)
    def search(self, text: str) -> None:
        """Run a full-text search; ``search_ready`` brings the hits (a newer query cancels
        an older one still running)."""
        if not self.model.ready:
            self.search_ready.emit(text, "The vault is still being indexed.")
            return
        if self._search_job is not None:
            self._search_job.cancel()
        index, store = self._index(), self.store
        self._search_job = handle = self.model.submit(
            lambda c: _search(index, store, text, c.cancelled), name="search"
        )
        _deliver(handle, partial(self._on_search_job_ended, text))

    @Slot()
    def _on_switcher_timer_timeout(self) -> None:
        if self.model.ready:
            index, previous = self._index(), self._switcher
            # On the slow thread: building takes 0.3 s at 10,000 notes, and a save's
            # backlinks job on the quick thread would wait behind it.
            handle = self.model.submit(
                lambda _c: _build_switcher(index, previous), slow=True, name="switcher"
            )
            handle.finished.connect(self._on_switcher_job_finished)

    @Slot(object)
    def _on_switcher_job_finished(self, switcher: object) -> None:
        if switcher is not None:
            self._switcher = switcher
        self.switcher_ready.emit(switcher)

    @Slot()
    def _on_warnings_timer_timeout(self) -> None:
        if self.model.ready:
            index = self._index()
            handle = self.model.submit(lambda _c: _vault_warnings(index), name="warnings")
            handle.finished.connect(self._on_warnings_job_finished)

    @Slot(object)
    def _on_warnings_job_finished(self, result: object) -> None:
        if isinstance(result, tuple) and result[0] != self.warnings:
            self.warnings = result[0]
            self.warnings_changed.emit(*result)

    @Slot(object)
    def _on_tree_job_finished(self, result: object) -> None:
        if isinstance(result, FileTreeData):
            self._listed = result
            self.files_reset.emit(result)

    def _on_search_job_ended(self, text: str, result: object) -> None:
        message = f"Search failed: {result}" if isinstance(result, Exception) else None
        self.search_ready.emit(text, message or result)

    def _on_note_job_ended(
        self, generation: int, place: Place, refresh: bool, result: object
    ) -> None:
        if generation != self._generation:
            return  # the user has moved on
        if isinstance(result, LookupError):
            self.note_missing.emit(place.node, str(result))
        elif isinstance(result, Exception):  # a bug, not the file: say so, name it
            self.note_missing.emit(
                place.node,
                f"{place.node} could not be shown: the preview failed "
                f"({type(result).__name__}: {result}).",
            )
        else:
            self._embeds = frozenset(getattr(result, "embeds", ()))
            self.place_shown.emit(place, result, refresh)

    def _on_backlinks_job_ended(self, generation: int, result: object) -> None:
        if generation != self._generation:
            return
        if isinstance(result, Exception):
            self.backlinks_ready.emit([])
            return
        groups, self._linking = result  # type: ignore[misc]
        self.backlinks_ready.emit(groups)

    def _on_unlinked_job_ended(self, generation: int, result: Any) -> None:
        if generation == self._generation:
            mentions, read_only = ([], frozenset()) if isinstance(result, Exception) else result
            self.unlinked_ready.emit(mentions, read_only)

    # ------------------------------------------------------------ live updates

    @Slot(object)
    def _on_model_files_listed(self, tree: FileTreeData) -> None:
        """The tree fills in before the links are resolved; the job modules load now."""
        self._listed = tree
        self.files_reset.emit(tree)
        start_preload()

    @Slot(object)
    def _on_model_index_ready(self, index: IndexView) -> None:
        listed = self._listed
        handle = self.model.submit(lambda _c: _tree_if_changed(index, listed), name="tree")
        handle.finished.connect(self._on_tree_job_finished)
        self._switcher_timer.start()
        self._on_warnings_timer_timeout()
        self.words = VaultWords(index, self._reader())
        self._warm_words(self.words)
        QTimer.singleShot(0, self._on_index_ready_show)  # after the window's own handlers

    def _warm_words(self, words: VaultWords) -> None:
        """Read the next WARM_NOTES notes' words on the slow job thread; then the next, each
        piece a job of its own, so unlinked mentions asked meanwhile wait for one piece."""
        if words is not self.words or self.model.closed:
            return  # the vault was scanned again (a new warm-up runs), or closed
        if self.model.related_running.is_set():
            # After the pass of related notes, not beside it: both are Python reading
            # every note, and the pass is what the user waits for.
            QTimer.singleShot(WARM_RETRY_MS, self, partial(self._warm_words, words))
            return
        pause = self.model.pause_for_updates

        def warm(control: JobControl) -> bool:
            def step() -> None:
                control.check()
                pause()  # a save on its way to the panes goes first

            return words.warm(step, budget=WARM_NOTES)

        handle = self.model.submit(warm, slow=True, name="words")
        handle.finished.connect(lambda done: done or self._warm_words(words))

    @Slot()
    def _on_index_ready_show(self) -> None:
        if self.current is not None:
            self._show(self.current, refresh=False, quiet=True)

    @Slot(object)
    def _on_model_index_updated(self, update: Update) -> None:
        delta = update.delta
        if not delta.empty:
            self._check_undo()  # an agent's write, journaled by another process, is undoable
        for rel in (*delta.notes_changed, *delta.notes_removed):
            self.store.forget(rel)
        if self.words is not None:
            self.words.changed_by(delta)
        self._warnings_timer.start()
        if delta.notes_added or delta.notes_removed or delta.notes_changed:
            self._switcher_timer.start()  # aliases may have changed; rebuilt once settled
        place = self.current
        if place is None:
            return
        for old, new in update.renamed:
            self.history.rename(old, new)
        place = self.current
        assert place is not None
        if place.kind == "note" and place.node in delta.notes_removed:
            self.note_missing.emit(place.node, f"{place.node} was deleted outside Librarian.")
            return
        sources = {s for s, _ in (*delta.edges_added, *delta.edges_removed)}
        targets = {t for _, t in (*delta.edges_added, *delta.edges_removed)}
        renamed_here = any(new == place.node for _, new in update.renamed)
        if renamed_here:
            self._show(place, refresh=False)
        elif (
            place.node in delta.notes_changed
            or place.node in sources
            or not self._embeds.isdisjoint(delta.notes_changed)
        ):
            self._show(place, refresh=True)  # its text, or where its links lead, changed
        elif place.node in targets or self._backlinks_may_change(delta.notes_changed):
            self._show(place, refresh=True, parts=frozenset({"backlinks", "unlinked"}))
        elif delta.notes_changed or delta.notes_added:
            self._show(place, refresh=True, parts=frozenset({"unlinked"}))

    def _backlinks_may_change(self, changed: tuple[str, ...]) -> bool:
        """Whether a change of these notes can change the open place's backlinks: one of
        the notes its backlinks job found linking it changed, or that job is still running
        (it may have read one of them before the change)."""
        if not changed:
            return False
        return self._linking is None or not self._linking.isdisjoint(changed)

    # ------------------------------------------------------------ writing

    @Slot(object)
    def link_mention(self, mention: Mention) -> None:
        """Link one unlinked mention (on the writer thread: the write may wait for another
        of Librarian's writers to finish); ``message`` says how it went."""
        place = self.current
        if place is None or place.kind != "note" or self.model.index is None:
            return
        index, journal, target = self.model.index, self.journal, place.node

        def job() -> object:
            from ..core.backlinks.unlinked import link_mention

            return link_mention(index, journal, mention, target)

        self._write("link", mention, job)

    @Slot(object)
    def link_related(self, plan: RelatedLinkPlan) -> None:
        """Write a previewed related-note link (on the writer thread, through the
        journal: Edit → Undo reverts it); ``message`` says how it went."""
        journal = self.journal

        def job() -> object:
            from ..core.related.linking import apply_related_link

            return apply_related_link(journal, plan)

        self._write("related", plan, job)

    @Slot(object)
    def fix_index_note(self, plan: IndexNoteFixPlan) -> None:
        """Write a previewed index-note Fix (on the writer thread, through the journal:
        Edit → Undo reverts it); ``message`` says how it went."""
        journal = self.journal

        def job() -> object:
            from ..core.insight.index_note_fix import apply_index_note_fix

            return apply_index_note_fix(journal, plan)

        self._write("index", plan, job)

    def split_dump(self, plan: SplitPlan) -> None:
        """Write a previewed split of a dump (on the writer thread, one journal entry:
        Edit → Undo takes all of it back); ``message`` says how it went."""
        journal = self.journal

        def job() -> object:
            from ..core.library.apply import apply_split

            return apply_split(journal, plan)

        self._write("split", plan, job)

    def supersede(self, plan: SupersedePlan) -> None:
        """Write a previewed "supersedes" mark (on the writer thread, through the journal:
        Edit → Undo reverts it); ``message`` says how it went."""
        journal = self.journal

        def job() -> object:
            from ..core.review.supersede import apply_supersede

            return apply_supersede(journal, plan)

        self._write("supersede", plan, job)

    @Slot()
    def undo_last(self) -> None:
        """Undo the newest write not undone yet (on the writer thread)."""
        self._write("undo", None, self.journal.undo)

    def _write(self, kind: str, what: object, job: Callable[[], object]) -> None:
        # An exception is told to the user; the writer thread serves the next write.
        handle = self._writer.submit(lambda _c: job(), name=kind)
        _deliver(handle, partial(self._on_write_job_ended, kind, what))

    def _on_write_job_ended(self, kind: str, what: Any, result: object) -> None:
        if kind == "link":
            self._show_linked(what, result)
        elif kind == "related":
            self._show_related_linked(what, result)
        elif kind == "index":
            self._show_index_note_fixed(what, result)
        elif kind == "split":
            self._show_split(what, result)
        elif kind == "supersede":
            self._show_superseded(what, result)
        else:
            self._show_undone(result)
        self.undo_changed.emit(self.can_undo())
        self.write_finished.emit(kind)

    def _show_linked(self, mention: Mention, result: object) -> None:
        if isinstance(result, Exception):
            self.message.emit(f"Not linked: {result}")
            return
        entry: JournalEntry = result  # type: ignore[assignment]
        if entry.written:
            self.message.emit(
                f"Linked “{mention.text}” in {mention.source}. Edit → Undo reverts it."
            )
        else:
            reasons = "; ".join(reason for _, reason in entry.skipped)
            self.message.emit(f"Not linked: {reasons}")

    def _show_related_linked(self, plan: RelatedLinkPlan, result: object) -> None:
        if isinstance(result, Exception):
            self.message.emit(f"Not linked: {result}")
            return
        self.message.emit(
            f"Linked [[{plan.name}]] under “Related” in {plan.source}. Edit → Undo reverts it."
        )

    def _show_index_note_fixed(self, plan: IndexNoteFixPlan, result: object) -> None:
        if isinstance(result, Exception):
            self.message.emit(f"Index note not fixed: {result}")
            return
        count = len(plan.added)
        self.message.emit(
            f"Added {count} {'entry' if count == 1 else 'entries'} to {plan.index}. "
            "Edit → Undo reverts it."
        )

    def _show_superseded(self, plan: SupersedePlan, result: object) -> None:
        if isinstance(result, Exception):
            self.message.emit(f"Not marked: {result}")
            return
        self.message.emit(
            f"Marked {plan.note} as superseding [[{plan.name}]]. Edit → Undo reverts it."
        )

    def _show_split(self, plan: SplitPlan, result: object) -> None:
        from ..core.library.apply import DumpChanged, SplitResult

        if isinstance(result, DumpChanged):
            self.message.emit(f"Not split: {result}. A fresh plan follows.")
            self.split_stale.emit(plan.dump)
            return
        if isinstance(result, Exception):
            self.message.emit(f"Not split: {result}")
            return
        done: SplitResult = result  # type: ignore[assignment]
        count = len(done.created)
        said = f"Split {plan.dump} into {count} {'note' if count == 1 else 'notes'}"
        if done.kept_tail:
            said += f"; {done.kept_tail:,} bytes written to it since the plan stay at its end"
        self.message.emit(f"{said}. Edit → Undo takes it back.")

    def _show_undone(self, result: object) -> None:
        if isinstance(result, Exception):
            self.message.emit(f"Nothing undone: {result}")
            return
        undone: UndoResult = result  # type: ignore[assignment]
        parts = []
        if undone.restored:
            parts.append(f"restored {', '.join(undone.restored)}")
        for rel, reason in undone.refused:
            parts.append(f"kept {rel} ({reason})")
        self.message.emit("Undo: " + ("; ".join(parts) or "nothing to restore"))

    def shutdown(self) -> None:
        """Wait for the writes asked for to finish (the window is closing)."""
        self._writer.close(drop_queued=False)

    def can_undo(self) -> bool:
        try:
            return self.journal.undoable() is not None
        except (JournalError, OSError):
            return False

    def _check_undo(self) -> None:
        """Say whether Edit → Undo has something to undo, asked off the GUI thread (it reads
        the journal's newest entries)."""
        handle = self._writer.submit(lambda _c: self.can_undo(), name="can-undo")
        _deliver(handle, self._on_undo_checked)

    def _on_undo_checked(self, result: object) -> None:
        if isinstance(result, bool):
            self.undo_changed.emit(result)


WARM_NOTES = 500  # notes whose words one warm-up job reads (2,000 a second or so)
WARM_RETRY_MS = 1000  # while related notes are found: look again this much later


def _deliver(handle: JobHandle, slot: Callable[[object], None]) -> None:
    """Hand the job's result, or the exception it raised, to one slot."""
    handle.finished.connect(slot)
    handle.failed.connect(slot)


def _vault_warnings(index: IndexView) -> tuple[tuple[ScanWarning, ...], frozenset[str]]:
    """Every warning of the vault (one pass over the notes: on a job thread), and which
    of their paths can be opened."""
    index = index.snapshot()
    found = tuple(index.warnings())
    files = frozenset(w.path for w in found if w.path in index.notes or w.path in index.attachments)
    return found, files


def _is_lossy(index: IndexView, rel: str) -> bool:
    record = index.notes.get(rel)
    return record is not None and record.lossy


def _tree_if_changed(index: IndexView, listed: FileTreeData | None) -> FileTreeData | None:
    """The vault's file tree if files came or went since ``listed`` was made (while the
    notes were parsed, or a rescan without a listing); None if the view shows them all.
    On a job thread: the two sets of 10,000 paths took 30 ms of the GUI thread."""
    index = index.snapshot()
    notes, attachments = list(index.notes), list(index.attachments)
    if listed is not None and {*notes, *attachments} == {
        p for p in listed.nodes if not p.endswith("/")
    }:
        return None
    return FileTreeData.build(notes, attachments)


def _build_switcher(index: IndexView, previous: object | None) -> object:
    """The switcher over the index's latest snapshot; ``previous`` (the last one) shared
    when only which notes are recent changed (``SwitcherIndex.build``)."""
    from ..core.courtesy import gc_paused
    from ..core.search.switcher import SwitcherIndex

    last = previous if isinstance(previous, SwitcherIndex) else None
    with gc_paused():  # its candidates live as long as the index: frozen with it
        return SwitcherIndex.build(index, last)


def _linked(
    index: IndexView, node: str, reader: Callable[[str], str | None], cancelled: Callable[[], bool]
) -> tuple[object, frozenset[str]]:
    """The linked mentions of ``node``, and every note linking it (by the index). For a
    concept, the links to its note count too (DESIGN §2)."""
    from ..core.backlinks.linked import linked_mentions

    index = index.snapshot()
    sources = set(index.in_edges.get(node, {}))
    concept = (
        index.concepts.get(node[len(CONCEPT_PREFIX) :]) if node.startswith(CONCEPT_PREFIX) else None
    )
    if concept is not None:
        from ..core.index.queries import concept_notes

        note = concept_notes(index).get(concept.id)
        if note is not None:
            sources.update(index.in_edges.get(note, {}))
    if concept is not None:
        from ..core.render.concept_page import linking_groups

        return linking_groups(index, concept, reader, cancelled), frozenset(sources)
    return linked_mentions(index, node, reader, cancelled), frozenset(sources)


CLOSEST = 10  # notes shown when none holds every word of a plain query (as `librarian search`)


@dataclass(frozen=True, slots=True)
class ClosestHits:
    """What a search of plain words shows when no note holds them all (a question asked
    in the search box, "what did we decide about the database"): the notes that answer
    its words best, as the agents' search ranks them, each with its best lines."""

    hits: tuple[SearchHit, ...]


def _search(index: IndexView, store: TextStore, text: str, cancelled: Callable[[], bool]) -> object:
    from ..core.agents.search import agent_search, note_relevance
    from ..core.search.search import SearchHit, marked_line, parse_query, plain_words, search
    from ..core.text.analyzer import words as question_words

    def text_of(rel: str) -> str | None:
        record = index.notes.get(rel)
        return None if record is None else store.get(rel, record.stamp)

    # Matches ranked as the agents' search ranks notes: one ranking in every front end.
    def relevance(rels: list[str], words: str) -> dict[str, float]:
        return note_relevance(index, text_of, rels, words)

    hits = search(index, store, text, cancelled=cancelled, relevance=relevance)
    if hits or cancelled() or not plain_words(parse_query(text)):
        return hits
    # No note holds every word: the notes that answer them best, as `librarian search`
    # and an agent's search find them, rather than nothing.
    found = agent_search(index, text_of, text, limit=CLOSEST)
    if cancelled() or not found:
        return hits
    asked = question_words(text)  # marked in the lines shown: its words but stop words
    return ClosestHits(
        tuple(
            SearchHit(h.note, h.score, 0, tuple(marked_line(n, line, asked) for n, line in h.lines))
            for h in found
        )
    )


_preloaded = threading.Event()

# markdown-it and its plugins (the first note's render) and rapidfuzz (the switcher): ~90
# modules, each read by PySide's import hook, imported on the job threads right when the
# first note was painted. Loaded instead while the vault indexes.
FIRST_JOBS_MODULES = ("librarian_gui.core.render.render", "librarian_gui.core.search.switcher")


def start_preload() -> None:
    """Load the modules the first jobs after indexing import, once per process."""
    if not _preloaded.is_set():
        _preloaded.set()
        preload(FIRST_JOBS_MODULES, name="librarian-preload")
