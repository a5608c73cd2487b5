"""A vault kept live for questions (the MCP server): its index, words and related notes.

``LiveVault`` watches the vault, starts from the index cache, and keeps the index current
with a ``VaultUpdater`` (``updater``, the window's too): its thread applies the changes
after a short debounce, and a question asked before that (``fresh``) applies what waits
first, so an answer never misses a change the server was told of — its own writes included
(``changed``) — unless it is too big to read first (``FRESH_BYTES``, ``FRESH_PATHS``): then
the answer says what it does not see yet. A warm-up thread reads every note's words once,
and the terms questions pick candidates by. A ``RelatedRunner`` (the window's too) keeps the
related notes: from their cache at start, then redone for changed notes a moment after the
last change. Readers read the index's latest snapshot, without a lock (see ``IndexSnapshot``).

The vault's folder itself may go while the server runs (deleted, or moved away) and another
come to its path. Each question stats the path once: no folder there raises ``VaultGone``
(the question's error, not an answer from the folder that went); another folder than the
one opened (another device or inode, or the watcher saw the opened one deleted) is opened
anew: the old watcher and threads stopped and joined, the new folder scanned and watched,
its related notes found again.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import stat
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ..agents.answers import Adjacency, related_adjacency
from ..courtesy import give_back_memory
from ..index.index import VaultIndex
from ..related.vault import RelatedIndex
from ..review.outside import OutsideLog
from ..vault.files import read_note, stamp_of
from ..vault.textstore import TextStore
from .batches import CHUNK_PATHS
from .related import RelatedListener, RelatedRunner
from .updater import Listener, Update, VaultUpdater
from .words import VaultWords

_log = logging.getLogger(__name__)
# Bytes of changed files a question reads itself before it is answered (a diary entry, a
# git pull of notes); more (an agent's 50 MB note) is read by the update thread while
# questions are answered, and the answers say which notes they do not see yet.
FRESH_BYTES = 2_000_000
# Changed files a question reads itself at most: more (a ``git checkout``) are read by the
# update thread in pieces (``batches.chunks``), questions answered between them.
FRESH_PATHS = CHUNK_PATHS
# Characters of note texts kept in memory, the most recently read first; past it a text is
# read again from its file (from the system's page cache: 0.1–0.2 ms a note). Keeping every
# text was 80 MB at 20,000 notes, 400 MB at 100,000 (issue 30); at 32 M characters a 10,000-
# note vault of 5 KB notes did not fit, and unlinked mentions, which read every note holding
# a name's words, took 80 ms p95 instead of 40.
KEPT_TEXT_CHARS = 64_000_000


class VaultGone(LookupError):
    """The vault's folder is not at its path any more: deleted, or moved away."""

    def __init__(self, root: Path) -> None:
        super().__init__(
            f"the vault folder {root} is gone (deleted or moved away); questions are "
            "answered again once a folder is back at that path"
        )


@dataclass(frozen=True, slots=True)
class _Options:
    concepts: Path | None
    excluded: tuple[str, ...]
    use_cache: bool
    related: bool
    held: bool


class LiveVault:
    """The index of ``root``, kept current while the process runs; ``close`` stops it.

    What one opening of the folder holds (the index, the notes' texts and words, the related
    notes, the watcher and threads) is an ``_Opening``; another folder at the path gets a new
    one (``fresh``). A reader that took ``index`` before keeps a consistent old index.
    """

    def __init__(
        self,
        root: Path,
        *,
        concepts: Path | None = None,
        excluded: Iterable[str] = (),
        use_cache: bool = True,
        related: bool = True,
        held: bool = False,
    ) -> None:
        """``held``: the background work of the opening (counting the notes' terms, reading
        their words, the first pass of related notes) waits for ``begin_background`` (the
        MCP server calls it after its first answer: see ``mcp_server.serve``), or for a
        question that needs it (``related``)."""
        self._options = _Options(concepts, tuple(excluded), use_cache, related, held)
        self._opening = _Opening(Path(root), self._options)
        self.root = self._opening.root
        self._reopening = threading.Lock()  # one question opens the folder anew, not two
        self._closed = False

    @property
    def index(self) -> VaultIndex:
        return self._opening.index

    def begin_background(self) -> None:
        """Start the background work a ``held`` opening holds back (once; later calls and
        an opening not held do nothing)."""
        self._opening.begin()

    @property
    def outside(self) -> OutsideLog:
        """The log of the changes other programs make (``core/review/outside``)."""
        return self._opening.outside

    def changed(self, paths: Iterable[str]) -> None:
        """Queue vault paths (relative) to read again: events, and the server's own writes."""
        self._opening.changed(paths)

    def fresh(self) -> tuple[str, ...]:
        """Make the index current for a question: raise ``VaultGone`` when no folder is at
        the vault's path, open the folder anew when it is another one, then apply every
        queued change, waiting for a small batch the update thread is reading (an agent's
        write is in its next answer). One ``stat`` when nothing of that happened. Returns
        the vault paths the answer will not see yet: changes too large to read before
        answering (``FRESH_PATHS``, ``FRESH_BYTES``), read by the update thread meanwhile."""
        return self.following().fresh()

    def following(self) -> _Opening:
        """The opening of the folder at the vault's path now: ``VaultGone`` when there is
        none, a new opening when it is another folder than the one opened (one ``stat``).
        A write asks this, and not ``fresh``: it never waits for queued changes."""
        opening = self._opening
        if opening.lost.is_set() or _identity(self.root) != opening.identity:
            opening = self._reopen()
        return opening

    def _reopen(self) -> _Opening:
        with self._reopening:
            old = self._opening
            now = _identity(self.root)
            if self._closed or (now is not None and now == old.identity and not old.lost.is_set()):
                return old  # closing; or another question opened the folder meanwhile
            # Stopped even while no folder is there: its watch died with the folder, and
            # its threads would only read what is not there any more.
            old.close()
            if now is None:
                raise VaultGone(self.root)
            _log.warning("the vault folder %s was replaced: reading it anew", self.root)
            try:  # a folder opened again does not wait for a first answer
                self._opening = _Opening(self.root, replace(self._options, held=False))
            except FileNotFoundError:  # gone again while it was read
                raise VaultGone(self.root) from None
            return self._opening

    def text(self, rel: str) -> str | None:
        """A note's text as the index last saw it (None: not a readable note)."""
        return self._opening.text(rel)

    def mention_sources(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can mention one of ``names`` (None: every note may)."""
        return self._opening.words.holding(names)

    def related(self, wait: float = 0.0) -> RelatedIndex | None:
        """The latest related notes; None until the first pass is done (after ``wait``
        seconds at most)."""
        return self._opening.related(wait)

    def related_edges(self) -> Adjacency | None:
        """Each note's RELATED_TO neighbours (``answers.related_adjacency``) of the latest
        pass; None before the first."""
        return self._opening.related_edges()

    def close(self) -> None:
        with self._reopening:
            self._closed = True
            self._opening.close()


def _identity(root: Path) -> tuple[int, int] | None:
    """Which folder is at ``root`` (device, inode); None when none is."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


class _Opening:
    """One opening of the vault's folder: its index (scanned and kept current by a
    ``VaultUpdater``), the texts and words read from it, its related notes, and the threads
    keeping them current until ``close``."""

    def __init__(self, root: Path, options: _Options) -> None:
        # Taken before the scan: a folder replaced while it is read is seen at the next
        # question, not taken for the one read.
        self.identity = _identity(root)
        self._told = _Told()
        # The index reads the dictionary itself (``--concepts`` or the vault's own), and
        # again when it changes: in the vault, with the notes; outside, when the updater's
        # watch on its folder says so, as in the window.
        self.outside = OutsideLog(root)  # what other programs change, for the review desk
        self.updater = VaultUpdater(
            root,
            self._told,
            excluded=options.excluded,
            use_cache=options.use_cache,
            dictionary=options.concepts,
            name="live",
            changes=self.outside,
        )
        try:
            self.updater.watch()  # before the scan: a change in between is not lost
            self.index = self.updater.scan()
        except BaseException:
            self.updater.close()
            raise
        self.root = self.index.root
        self._use_cache = options.use_cache
        self.texts = TextStore(self.root, max_chars=KEPT_TEXT_CHARS)
        # Complete after the warm-up. Reads with a function of the index and texts, not
        # the opening's own method: a cycle would keep a closed opening (frozen) alive.
        self.words = VaultWords(self.index, functools.partial(_text, self.index, self.texts))
        self._told.words = self.words
        self.lost = self.updater.lost
        # Background work (the warm-up, related notes) holds back while changes come.
        self._quiet = self.updater.quiet
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._warm, name="live-warm", daemon=True)]
        self._began = False
        self._beginning = threading.Lock()
        # Related notes: the window's worker too (core/live/related.py), told of changes
        # by the updater's listener; it reads a function of the index and the root, not
        # the opening: no cycle keeps a closed opening alive.
        self._related_kept = _RelatedKept()
        self._related: RelatedRunner | None = None
        if options.related:
            self._related = RelatedRunner(
                functools.partial(_same, self.index),
                functools.partial(_note_text, self.root),
                self._related_kept,
                wait_for_updates=self._quiet.pause,
                use_cache=options.use_cache,
                name="live",
            )
            self._told.related = self._related
        self.updater.start()
        if not options.held:
            self.begin()

    def begin(self) -> None:
        """Start the background work: the warm-up's thread and the first related pass."""
        with self._beginning:
            if self._began or self._stop.is_set():
                return
            self._began = True
            if self._related is not None:
                self._related.want()
            for thread in self._threads:
                thread.start()

    # ------------------------------------------------------------ changes

    def changed(self, paths: Iterable[str]) -> None:
        self.updater.put(paths)

    def fresh(self) -> tuple[str, ...]:
        updater = self.updater
        unseen = updater.inbox.unseen()  # waiting, or taken by the update thread, not read
        if not unseen and not updater.inbox.waiting():  # (waiting: the dictionary too)
            return ()
        if len(unseen) > FRESH_PATHS or self._unread_bytes(unseen) > FRESH_BYTES:
            updater.flush()  # the update thread reads them now; the question goes on
            return unseen
        # Small: read before the answer, read-your-writes. A batch the update thread took
        # already (its wait for quiet may end first on a busy machine) is waited for, then
        # what waits is applied here.
        updater.apply()
        return ()

    def _unread_bytes(self, paths: Iterable[str]) -> int:
        """The bytes an update of ``paths`` would read: the files the index has not read
        as they are now (one ``lstat`` each)."""
        total = 0
        for rel in paths:
            try:
                st = os.lstat(os.path.join(self.root, rel))
            except OSError:
                continue
            record = self.index.notes.get(rel)
            if record is None or record.stamp != stamp_of(st):
                total += st.st_size
        return total

    def text(self, rel: str) -> str | None:
        return _text(self.index, self.texts, rel)

    def _warm(self) -> None:
        # Loaded here, after the first answer (``held``), not with the server.
        from ..agents.corpus import FilesText, analyse_newest, count_candidates
        from ..agents.ranking import learn_names

        # Questions (search, context_pack) pick their candidates from every note's terms:
        # count them first, ahead of the first question, which otherwise counts them
        # itself while the words below are read (10,000 notes: the first search took 15 s).
        try:
            # read from the files, so a big vault's on worker processes (``FilesText``)
            count_candidates(self.index, FilesText(self.index.root, self.text))
            learn_names(self.index)
            analyse_newest(self.index, self.text)
        except Exception:  # a question counts them itself then; say why in the log
            _log.exception("counting the notes' terms and names ahead of the first question failed")

        # Unlinked mentions and concepts read every note: read them once, ahead of the
        # first question, and from then on only the notes that change.
        def step() -> None:
            if self._stop.is_set():
                raise _Stopped
            self._quiet.pause()  # changes first; the words of what they touch are read

        try:
            self.words.warm(step)
        except _Stopped:
            return
        _settle_heap()

    # ------------------------------------------------------------ related notes

    def related(self, wait: float) -> RelatedIndex | None:
        runner = self._related
        if runner is None:
            return None
        if wait > 0:  # a question that waits for them: not held back any longer
            self.begin()
            runner.ready.wait(wait)
        return runner.current

    def related_edges(self) -> Adjacency | None:
        runner = self._related
        if runner is None or runner.current is None:
            return None
        return self._related_kept.adjacency

    # ------------------------------------------------------------ stopping

    def close(self) -> None:
        """Stop and join the watcher and the threads (each observer holds an inotify
        instance, 128 a user); the opening is lost from then on."""
        self.lost.set()
        with self._beginning:  # no thread starts now
            self._stop.set()
        self.updater.close()
        if self._related is not None:
            self._related.close()
        for thread in self._threads:
            if thread.ident is not None:  # started
                thread.join(timeout=10)
        self.index.wait_saved()


class _Told(Listener):
    """What the updater tells an opening, on the thread that applied a batch: the words of
    the notes it changed are read, related notes are wanted again. It holds no reference
    to the opening or the updater: no cycle keeps a closed opening alive."""

    def __init__(self) -> None:
        self.words: VaultWords | None = None
        self.related: RelatedRunner | None = None

    def updated(self, update: Update) -> None:
        if self.related is not None:
            self.related.changed()
        if self.words is not None:
            self.words.changed_by(update.delta)
            self.words.catch_up()

    def batch_done(self) -> None:
        _settle_heap()


class _RelatedKept(RelatedListener):
    """What the server keeps of each pass of related notes: the RELATED_TO neighbours
    (``related_adjacency``), made on the runner's thread, then the heap settled."""

    def __init__(self) -> None:
        self.adjacency: Adjacency = {}

    def related_ready(self, generation: int, related: RelatedIndex) -> None:
        self.adjacency = related_adjacency(related)
        _settle_heap()


def _same(index: VaultIndex) -> VaultIndex:
    return index


def _note_text(root: Path, rel: str) -> str | None:
    return read_note(root, rel).text


def _text(index: VaultIndex, texts: TextStore, rel: str) -> str | None:
    """A note's text as ``index`` last saw it (None: not a readable note)."""
    record = index.notes.get(rel)
    return None if record is None else texts.get(rel, record.stamp)


class _Stopped(Exception):
    """The opening is closing: a background loop ends."""


def _settle_heap() -> None:
    """Move every object alive now out of the cyclic collector's sight (``gc.freeze``).

    The index, the notes' texts and words are millions of long-lived objects; each full
    collection walks them all, and an answer that allocates a few thousand rows set one
    off: a 2-hop ``neighbors`` took 200 ms instead of 30. Frozen objects are still freed
    when their last reference goes; only a cycle among them would stay (none is made).
    Called after each batch of changes, so what they built is settled too; and what the
    work before freed is handed back to the system (``give_back_memory``).
    """
    gc.freeze()
    give_back_memory()
