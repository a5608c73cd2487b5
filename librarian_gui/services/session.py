"""One open vault as the views see it: the open note, history, and the answers they show."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.courtesy import Courtesy
from ..core.index.queries import outgoing_summary
from ..core.index.resolver import CONCEPT_PREFIX, UNRESOLVED_PREFIX
from ..core.render.pages import note_page, place_page
from ..core.vault.filetree import FileTreeData
from ..core.vault.textstore import TextStore
from ..core.writing.journal import Journal, JournalEntry, JournalError, UndoResult
from .history import History, Place
from .linker import Update
from .model import VaultModel

if TYPE_CHECKING:  # markdown-it, Pygments, rapidfuzz and numpy load on the job threads
    from ..core.backlinks.unlinked import Mention
    from ..core.index.index import VaultIndex
    from ..core.parse.records import ScanWarning

ALL_PARTS = frozenset({"note", "backlinks", "unlinked", "sidebars"})


class _Cancelled(Exception):
    """Raised inside a job whose answer nobody wants any more."""


class VaultSession(QObject):
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
        write_finished(str): a write asked for here ("link" or "undo") is done, its outcome
            told by ``message``.
        switcher_ready(object): a SwitcherIndex over the current notes, aliases, concepts.
        search_ready(str, object): a query and its hits (list of SearchHit), or an error
            message instead of the list.
        warnings_changed(object, object): the vault's problems (a tuple of ScanWarning,
            sorted by path), and the frozenset of their paths that are notes or files the
            preview can open.
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
    _write_relay = Signal(str, object)  # internal: from the writer thread, delivered queued
    switcher_ready = Signal(object)
    search_ready = Signal(str, object)
    warnings_changed = Signal(object, object)

    def __init__(self, model: VaultModel, *, dark: bool = False, parent: QObject | None = None):
        super().__init__(parent)
        self.model = model
        self.root: Path = model.root
        self.store = TextStore(model.root)
        self.journal = Journal(model.root)
        # Writes wait for the vault's writer lock (another window, an agent's command):
        # never in the GUI thread, and one at a time.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="librarian-write")
        self._write_relay.connect(self._on_write_relay_finished)
        self.history = History()
        self.dark = dark
        self._generation = 0
        self._cancel = threading.Event()
        self._search_cancel = threading.Event()
        self._search_generation = 0
        self._unlinked_cancel = threading.Event()
        self._unlinked_timer = QTimer(self, singleShot=True, interval=700)
        self._unlinked_timer.timeout.connect(self._on_unlinked_timer_timeout)
        self._switcher_timer = QTimer(self, singleShot=True, interval=800)
        self._switcher_timer.timeout.connect(self._on_switcher_timer_timeout)
        # A checkout changes thousands of files in bursts: the warnings are gathered again
        # once a burst has settled.
        self._warnings_timer = QTimer(self, singleShot=True, interval=300)
        self._warnings_timer.timeout.connect(self._on_warnings_timer_timeout)
        self.warnings: tuple[ScanWarning, ...] | None = None  # as last sent; None: not yet
        self._listed: FileTreeData | None = None  # the tree the view was last given
        self._sidebars_sent: tuple[object, ...] = ()  # what outline and outgoing show
        self._embeds: frozenset[str] = frozenset()  # notes the open one shows inline
        model.files_listed.connect(self._on_model_files_listed)
        model.index_ready.connect(self._on_model_index_ready)
        model.index_updated.connect(self._on_model_index_updated)
        model.job_finished.connect(self._on_model_job_finished)

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
            self._cancel.set()
            self._cancel = threading.Event()
        generation, cancel = self._generation, self._cancel
        dark = self.dark
        if "note" in parts:
            render_job = (
                (lambda c: self._render_note(place.node, dark, c))
                if place.kind == "note"
                else (lambda c: self._render_node(place, c))
            )
            self.model.submit(("note", generation, place, refresh), render_job, cancel)
        if "backlinks" in parts:
            reader = self._reader()
            self.model.submit(
                ("backlinks", generation),
                lambda c: _linked(self._index(), place.node, reader, c.is_set),
                cancel,
            )
        if "unlinked" in parts:
            if place.kind != "note":
                self.unlinked_ready.emit([], frozenset())
            elif refresh or quiet:
                self._unlinked_timer.start()  # a scan of the whole vault: once things settle
            else:
                self._on_unlinked_timer_timeout()
        if "sidebars" in parts:
            self._send_sidebars(place)

    @Slot()
    def _on_unlinked_timer_timeout(self) -> None:
        place = self.current
        if place is None or place.kind != "note" or not self.model.ready:
            return
        self._unlinked_cancel.set()
        self._unlinked_cancel = threading.Event()
        cancel = self._unlinked_cancel
        reader = self._reader()

        pause = self.model.pause_for_updates

        def read(rel: str) -> str | None:
            if cancel.is_set():
                raise _Cancelled
            pause()  # a save on its way to the panes goes first
            return reader(rel)

        self.model.submit(
            ("unlinked", self._generation),
            lambda c: self._unlinked(place.node, read),
            cancel,
            slow=True,
        )

    def _send_sidebars(self, place: Place) -> None:
        with self.model.read() as index:
            record = index.notes.get(place.node) if place.kind == "note" else None
            headings = record.parsed.headings if record is not None else ()
            links = outgoing_summary(index, place.node) if record is not None else []
        # A note changed without a new heading or link (an agent appending a line, each
        # note of a checkout) leaves the two panes as they are: no rows made again.
        sent = (place.node, tuple(headings), tuple(links))
        if sent == self._sidebars_sent:
            return
        self._sidebars_sent = sent
        self.outline_ready.emit(headings)
        self.outgoing_ready.emit(links)

    # ------------------------------------------------------------ background jobs

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
            with index.lock:
                record = index.notes.get(rel)
            return store.get(rel, record.stamp) if record is not None else None

        return read

    def _render_note(self, rel: str, dark: bool, cancel: threading.Event) -> Any:
        index = self._index()
        return note_page(index, self.store, self.root, rel, dark=dark, read_note=self._reader())

    def _render_node(self, place: Place, cancel: threading.Event) -> Any:
        return place_page(self._index(), place.kind, place.node, self._reader(), cancel.is_set)

    def _unlinked(
        self, rel: str, reader: Callable[[str], str | None]
    ) -> tuple[list[Mention], frozenset[str]]:
        index = self._index()
        with index.lock:
            if rel not in index.notes:
                return [], frozenset()
        from ..core.backlinks.unlinked import unlinked_mentions

        mentions = unlinked_mentions(index, rel, reader)
        with index.lock:  # read with replacement characters: the writer refuses them
            lossy = {m.source for m in mentions if _is_lossy(index, m.source)}
        return mentions, frozenset(lossy)

    @Slot(str)
    def search(self, text: str) -> None:
        """Run a full-text search; ``search_ready`` brings the hits (a newer query cancels
        an older one still running)."""
        if not self.model.ready:
            self.search_ready.emit(text, "The vault is still being indexed.")
            return
        self._search_cancel.set()
        self._search_cancel = threading.Event()
        self._search_generation += 1
        index, store = self._index(), self.store
        self.model.submit(
            ("search", self._search_generation, text),
            lambda c: _search(index, store, text, c.is_set),
            self._search_cancel,
        )

    @Slot()
    def _on_switcher_timer_timeout(self) -> None:
        if self.model.ready:
            index = self._index()
            # On the slow thread: building takes 0.3 s at 10,000 notes, and a save's
            # backlinks job on the quick thread would wait behind it.
            self.model.submit(
                ("switcher", 0), lambda c: _build_switcher(index), threading.Event(), slow=True
            )

    @Slot()
    def _on_warnings_timer_timeout(self) -> None:
        if self.model.ready:
            index = self._index()
            self.model.submit(("warnings", 0), lambda c: _vault_warnings(index), threading.Event())

    @Slot(object, object)
    def _on_model_job_finished(self, token: object, result: object) -> None:
        if not isinstance(token, tuple):
            return
        if token[0] == "warnings":
            if isinstance(result, tuple) and result[0] != self.warnings:
                self.warnings = result[0]
                self.warnings_changed.emit(*result)
            return
        if token[0] == "tree":
            if isinstance(result, FileTreeData):
                self._listed = result
                self.files_reset.emit(result)
            return
        if token[0] == "switcher":
            if not isinstance(result, Exception):
                self.switcher_ready.emit(result)
            return
        if token[0] == "search":
            if token[1] == self._search_generation:
                message = f"Search failed: {result}" if isinstance(result, Exception) else None
                self.search_ready.emit(token[2], message or result)
            return
        if token[1] != self._generation:
            return  # the user has moved on
        kind = token[0]
        if kind == "note":
            place, refresh = token[2], token[3]
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
        elif kind == "backlinks":
            self.backlinks_ready.emit([] if isinstance(result, Exception) else result)
        elif kind == "unlinked":
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
    def _on_model_index_ready(self, index: VaultIndex) -> None:
        listed = self._listed
        self.model.submit(("tree", 0), lambda c: _tree_if_changed(index, listed), threading.Event())
        self._switcher_timer.start()
        self._on_warnings_timer_timeout()
        QTimer.singleShot(0, self._on_index_ready_show)  # after the window's own handlers

    @Slot()
    def _on_index_ready_show(self) -> None:
        if self.current is not None:
            self._show(self.current, refresh=False, quiet=True)

    @Slot(object)
    def _on_model_index_updated(self, update: Update) -> None:
        delta = update.delta
        for rel in (*delta.notes_changed, *delta.notes_removed):
            self.store.forget(rel)
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
        elif place.node in targets or any(
            rel in delta.notes_changed for rel in self._linking(place.node)
        ):
            self._show(place, refresh=True, parts=frozenset({"backlinks", "unlinked"}))
        elif delta.notes_changed or delta.notes_added:
            self._show(place, refresh=True, parts=frozenset({"unlinked"}))

    def _linking(self, node: str) -> list[str]:
        with self.model.read() as index:
            return list(index.in_edges.get(node, {}))

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

    @Slot()
    def undo_last(self) -> None:
        """Undo the newest write not undone yet (on the writer thread)."""
        self._write("undo", None, self.journal.undo)

    def _write(self, kind: str, what: object, job: Callable[[], object]) -> None:
        relay = self._write_relay

        def run() -> None:
            try:
                result = job()
            except Exception as exc:  # told to the user; the writer thread serves the next
                result = exc
            with contextlib.suppress(RuntimeError):  # the session is gone: nobody to tell
                relay.emit(kind, (what, result))

        self._writer.submit(run)

    @Slot(str, object)
    def _on_write_relay_finished(self, kind: str, outcome: object) -> None:
        what, result = outcome  # type: ignore[misc]
        if kind == "link":
            self._show_linked(what, result)
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
        """Wait for a write in progress to finish (the window is closing)."""
        self._writer.shutdown(wait=True)

    def can_undo(self) -> bool:
        try:
            return any(not e.undone and e.written for e in self.journal.entries())
        except (JournalError, OSError):
            return False


def _vault_warnings(index: VaultIndex) -> tuple[tuple[ScanWarning, ...], frozenset[str]]:
    """Every warning of the vault (one pass over the notes: on a job thread), and which
    of their paths can be opened."""
    with index.lock:
        found = tuple(index.warnings())
        files = frozenset(
            w.path for w in found if w.path in index.notes or w.path in index.attachments
        )
    return found, files


def _is_lossy(index: VaultIndex, rel: str) -> bool:
    record = index.notes.get(rel)
    return record is not None and record.lossy


def _tree_if_changed(index: VaultIndex, listed: FileTreeData | None) -> FileTreeData | None:
    """The vault's file tree if files came or went since ``listed`` was made (while the
    notes were parsed, or a rescan without a listing); None if the view shows them all.
    On a job thread: the two sets of 10,000 paths took 30 ms of the GUI thread."""
    with index.lock:
        notes, attachments = list(index.notes), list(index.attachments)
    if listed is not None and {*notes, *attachments} == {
        p for p in listed.nodes if not p.endswith("/")
    }:
        return None
    return FileTreeData.build(notes, attachments)


def _build_switcher(index: VaultIndex) -> object:
    from ..core.courtesy import gc_paused
    from ..core.search.switcher import SwitcherIndex

    with gc_paused():  # its candidates live as long as the index: frozen with it
        return SwitcherIndex.build(index)  # copies what it needs under the index's lock


def _linked(
    index: VaultIndex, node: str, reader: Callable[[str], str | None], cancelled: Callable[[], bool]
) -> object:
    from ..core.backlinks.linked import linked_mentions

    return linked_mentions(index, node, reader, cancelled)


def _search(
    index: VaultIndex, store: TextStore, text: str, cancelled: Callable[[], bool]
) -> object:
    from ..core.search.search import search

    return search(index, store, text, cancelled=cancelled)


_preloaded = threading.Event()


def start_preload() -> None:
    """Load the modules the first jobs after indexing import, once per process, on a thread
    of its own while the vault indexes (see ``_preload``)."""
    if not _preloaded.is_set():
        _preloaded.set()
        threading.Thread(target=_preload, name="librarian-preload", daemon=True).start()


def _preload() -> None:
    """markdown-it and its plugins (the first note's render) and rapidfuzz (the switcher):
    ~90 modules, each read by PySide's import hook, imported on the job threads right when
    the first note was painted. Here, while the vault indexes, pausing for the GUI thread
    (core.courtesy) and with the collector paused (a full collection would hold the lock)."""
    from ..core.courtesy import courteous, gc_paused

    with gc_paused(), courteous():
        from ..core.render import render  # noqa: F401
        from ..core.search import switcher  # noqa: F401
