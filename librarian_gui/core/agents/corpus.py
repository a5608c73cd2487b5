"""The notes a question looks at, read once: their passages and terms, and BM25 over both
(what ``agent_search`` and ``context_pack`` share)."""

from __future__ import annotations

import datetime as _dt
import functools
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..index import cachefile
from ..index.cache import cache_dir, changed_too_recently, vault_key
from ..index.snapshot import IndexIdentity, IndexView
from ..parse.records import FileStamp
from ..search.postings import FRESH_LEAST, Many, NoteTerms, VaultStats
from ..text.analyzer import terms
from ..text.forms import vault_form
from .bm25 import BM25
from .passages import Passage, split_passages
from .speakers import speakers, unlabelled

# Past this many notes a question splits and scores only the CANDIDATES notes whose
# whole text matches its terms best (``candidates``); a search, which shows a few notes,
# SEARCH_CANDIDATES times the notes it shows (at least CANDIDATES / 2).
PREFILTER_ABOVE = 400
CANDIDATES = 100
SEARCH_CANDIDATES = 5
KEPT_NOTES = 512  # notes whose passages and terms are kept for the next question

TextOf = Callable[[str], "str | None"]


class FilesText:
    """A ``TextOf`` that reads each note from its file in the vault at ``root`` (as
    ``read_note`` does, maybe through a ``TextStore``): the first count of a big vault's
    terms may then read the files on worker processes instead (``candidates``)."""

    def __init__(self, root: Path, read: TextOf) -> None:
        self.root = root
        self._read = read

    def __call__(self, rel: str) -> str | None:
        return self._read(rel)


@dataclass(slots=True)
class Corpus:
    """``notes`` (sorted paths) with their ``texts``, ``dates`` and ``passages`` (in note
    order, then file order); ``note_of[i]`` is the note index of passage ``i``. BM25 over
    whole notes (title counted twice) and over passages (heading path counted once)."""

    notes: list[str]
    texts: list[str]
    dates: list[_dt.date]
    date_sources: list[str]
    passages: list[Passage]
    note_of: list[int]
    note_bm25: BM25
    passage_bm25: BM25
    passage_terms: list[list[str]] = field(repr=False)
    # Who speaks in each passage: the terms of the speaker labels cut from its lines (see
    # ``speakers``), and every such term of the corpus.
    passage_speakers: list[frozenset[str]] = field(repr=False, default_factory=list)
    speaker_terms: frozenset[str] = frozenset()
    # ``in_vault``'s answers, per term: a question's terms are read by its passages' score,
    # its notes' and whether it is answered well, each asking again.
    _forms: dict[str, str] = field(repr=False, default_factory=dict)

    @classmethod
    def build(
        cls,
        index: IndexView,
        text_of: TextOf,
        notes: Sequence[str],
        query: Sequence[str] = (),
        keep: Collection[str] = (),
        limit: int = CANDIDATES,
    ) -> Corpus:
        """The corpus of ``notes``; past ``PREFILTER_ABOVE`` notes and with query terms,
        only the ``limit`` notes whose whole text matches the terms best (``candidates``;
        and ``keep``, notes matched by name) are split and scored; without terms, the ``limit``
        newest (and ``keep``)."""
        index = index.snapshot()
        records = [r for r in map(index.notes.get, notes) if r is not None]
        if len(records) > PREFILTER_ABOVE and not query:
            # No word to look for (none given, or stop words only): the newest notes, and
            # the ones named, as a reader of a diary would start; never the whole vault.
            newest = newest_notes(index, notes)[:limit]
            wanted = set(newest) | set(keep)
            records = [r for r in records if r.path in wanted]
        vault: VaultStats | None = None
        if len(records) > PREFILTER_ABOVE and query:
            chosen = set(candidates(index, text_of, [r.path for r in records], query, limit))
            chosen.update(keep)
            records = [r for r in records if r.path in chosen]
            # whole notes scored as in the vault: the candidates all hold the query's
            # words, so counted among themselves those words would weigh next to nothing
            vault = note_terms(index).stats()
        texts = [_read(text_of, r.path) for r in records]
        rels = [r.path for r in records]
        passages: list[Passage] = []
        note_of: list[int] = []
        note_counts: list[Counter[str]] = []
        passage_terms: list[list[str]] = []
        passage_counts: list[Counter[str]] = []
        passage_speakers: list[frozenset[str]] = []
        for i, (record, text) in enumerate(zip(records, texts, strict=True)):
            note = analysed(record.path, record.title, text)
            passages.extend(note.passages)
            note_of.extend([i] * len(note.passages))
            passage_terms.extend(note.terms)
            passage_counts.extend(note.counts)
            passage_speakers.extend(note.speakers)
            note_counts.append(note.whole_counts)
        return cls(
            rels,
            texts,
            [r.date for r in records],
            [r.date_source for r in records],
            passages,
            note_of,
            BM25(note_counts, vault),
            BM25(passage_counts),
            passage_terms,
            passage_speakers,
            frozenset().union(*passage_speakers),
        )

    def in_vault(self, query: Sequence[str]) -> list[str]:
        """``query``'s terms, each the corpus never uses replaced by the form of it that the
        corpus uses (``forms.vault_form``: "decid" by "decide", "funraiser" by
        "fundraiser"), when it has one."""
        held, forms = self.note_bm25.held, self._forms
        out = []
        for t in query:
            form = forms.get(t)
            if form is None:
                found = None if held(t) else vault_form(t, held, self.note_bm25.vocabulary())
                form = forms[t] = t if found is None else found
            out.append(form)
        return out

    def split_names(self, query: Sequence[str]) -> tuple[list[str], frozenset[str]]:
        """The query's terms that are evidence, and the speakers it names. Names are not
        evidence (``speakers``) unless the query is nothing but names."""
        named = frozenset(t for t in query if t in self.speaker_terms)
        rest = [t for t in query if t not in named]
        return (rest, named) if rest else (list(query), named)


@dataclass(frozen=True, slots=True)
class Analysed:
    """One note as a question reads it (see ``analysed``). Treat the lists as read-only."""

    passages: tuple[Passage, ...]
    terms: tuple[list[str], ...]  # each passage's: its heading's and its own, labels cut
    counts: tuple[Counter[str], ...]  # each passage's terms counted
    whole_counts: Counter[str]  # the note's terms: its title's twice, then its passages'
    speakers: tuple[frozenset[str], ...]  # who speaks in each passage: its labels' terms


@functools.lru_cache(maxsize=KEPT_NOTES)
def analysed(rel: str, title: str, text: str) -> Analysed:
    """A note's passages, their terms and who speaks in each, kept for the last
    ``KEPT_NOTES`` notes: an agent's questions read the same notes again, and counting
    their terms again was a third of a repeated question's time."""
    name = terms(title)
    whole = name + name
    split = tuple(split_passages(rel, text))
    known = speakers([line for p in split for line in p.text.split("\n")])
    split_terms = []
    said = []
    for p in split:
        body, labels = unlabelled(p.text, known)
        found = terms(body)
        whole += found
        split_terms.append(terms(" ".join(p.heading)) + found)
        said.append(frozenset(t for label in labels for t in terms(label)))
    return Analysed(
        split,
        tuple(split_terms),
        tuple(Counter(t) for t in split_terms),
        Counter(whole),
        tuple(said),
    )


def newest_first(dated: Sequence[tuple[_dt.date, str]]) -> list[str]:
    """The paths of (date, path) pairs, newest first, then by path (the same order always)."""
    return [rel for _, rel in sorted(dated, key=lambda d: (-d[0].toordinal(), d[1]))]


def newest_notes(index: IndexView, notes: Sequence[str]) -> Sequence[str]:
    """The notes of ``notes`` (distinct paths) the index holds, by ``newest_first``. The
    order of the whole vault is worked out once per snapshot and kept with it; many notes
    (the vault less its index note, say) are taken from it in that order. A question of
    stop words only sorted every note by date (50,000 notes: 0.1-0.3 s)."""
    snapshot = index.snapshot()
    held = snapshot.notes
    if len(notes) < PREFILTER_ABOVE:
        return newest_first([(r.date, r.path) for r in map(held.get, notes) if r is not None])
    kept = snapshot.kept(
        "newest_first", lambda: tuple(newest_first([(r.date, r.path) for r in held.values()]))
    )
    if notes is snapshot.derived.get("sorted_notes"):  # the whole vault, as sorted_notes gave it
        return kept
    wanted = set(notes)
    return [rel for rel in kept if rel in wanted]


_POSTINGS: weakref.WeakKeyDictionary[IndexIdentity, NoteTerms] = weakref.WeakKeyDictionary()
_POSTINGS_LOCK = threading.Lock()
# The postings kept beside the index cache (``save_postings``): a process's first question
# counts only the notes changed since, not every note (10,000 notes: 5-6 s, each
# ``librarian search`` and each server's first search).
_POSTINGS_MAGIC = b"LIBRARIAN-POSTINGS 1\n"
MAX_POSTINGS_BYTES = 1 << 30


def postings_file(root: Path) -> Path:
    return cache_dir() / "postings" / f"{vault_key(root)}.bin"


def note_terms(index: IndexView) -> NoteTerms:
    """The postings of the notes of ``index``: kept per open index, first loaded from the
    vault's cache (``save_postings``) when it has one, else empty."""
    with _POSTINGS_LOCK:
        postings = _POSTINGS.get(index.identity)
        if postings is None:
            loaded = None
            if index.identity.use_cache:
                data = cachefile.read_sealed(
                    postings_file(index.root), _POSTINGS_MAGIC, MAX_POSTINGS_BYTES
                )
                loaded = NoteTerms.undump(data, FileStamp) if data is not None else None
            postings = _POSTINGS[index.identity] = loaded or NoteTerms()
        return postings


def save_postings(index: IndexView, postings: NoteTerms) -> bool:
    """Keep ``postings`` for the next process on this vault, unless a note changed so
    recently that a rewrite in the same timestamp tick could go unseen (as the index cache
    does), or the index keeps no cache; False when not kept. Not an error when it cannot
    be written: a cache is a convenience."""
    if not index.identity.use_cache:
        return False
    stamps = postings.stamps()
    mtimes = (s.mtime_ns for s in stamps.values() if isinstance(s, FileStamp))
    if changed_too_recently(mtimes, time.time_ns()):
        return False
    return cachefile.write_sealed(postings_file(index.root), _POSTINGS_MAGIC, postings.dump())


def candidates(
    index: IndexView,
    text_of: TextOf,
    among: Sequence[str],
    query: Sequence[str],
    limit: int = CANDIDATES,
) -> list[str]:
    """The ``limit`` notes of ``among`` whose whole text (title twice) matches the
    query's terms best by BM25 over the vault, from postings kept per open index
    (``NoteTerms``: the first question counts every note, later ones the notes changed)."""
    index = index.snapshot()
    postings = note_terms(index)
    # the snapshot's own notes: the same mapping again is a vault that did not change
    read = functools.partial(_read, text_of)
    found = postings.best(index.notes, read, set(among), query, limit, _many(index, text_of))
    if postings.unsaved >= FRESH_LEAST:  # a question that counted many: kept for the next
        save_postings(index, postings)
    return found


def count_candidates(index: IndexView, text_of: TextOf) -> None:
    """Count every note of ``index`` into its postings (``candidates``) now, ahead of the
    first question, which would otherwise read the whole vault (10,000 notes: 3 s)."""
    index = index.snapshot()
    postings = note_terms(index)
    read = functools.partial(_read, text_of)
    postings.best(index.notes, read, (), (), 0, _many(index, text_of))
    if postings.unsaved:
        save_postings(index, postings)


def analyse_newest(index: IndexView, text_of: TextOf) -> None:
    """Analyse the ``CANDIDATES`` newest notes now (``analysed`` keeps them), ahead of the
    first question of stop words only or empty search, which reads them (10,000 generated
    notes: 0.19 s the first time, 15 ms after)."""
    index = index.snapshot()
    Corpus.build(index, text_of, sorted(index.notes))


def _many(index: IndexView, text_of: TextOf) -> Many | None:
    """Counting workers for the postings (``count_worker``) where ``text_of`` reads the
    index's own files and the machine has the cores; else None (counted here)."""
    from ..vault.reading import ParsePool

    if not (isinstance(text_of, FilesText) and text_of.root == index.root):
        return None
    if not ParsePool.useful():
        return None
    root = index.root
    return lambda items: ParsePool(root, "librarian_gui.core.search.count_worker").run(items)


def _read(text_of: TextOf, rel: str) -> str:
    try:
        return text_of(rel) or ""
    except (OSError, UnicodeError):  # a note gone or unreadable since the scan: no text
        return ""
