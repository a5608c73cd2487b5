"""Every note's searchable terms as postings: the notes holding a question's terms, found
without reading every note (issue 30: each question read and counted every text of the
vault, a third of a question's time at 10,000 notes).

A note's terms are its title's twice and its text's (``analyzer.terms``), as agent search
counts a whole note. The postings of the notes counted at the last packing sit in arrays
(term → notes, their counts); a note changed since is counted again at the next question
and kept apart until the next packing, its packed row set aside. Scores are BM25 over
every note, exactly as the arrays and the fresh rows stand together."""

from __future__ import annotations

import marshal
import math
import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from itertools import repeat, starmap
from typing import TYPE_CHECKING, Protocol, cast

from ..text.analyzer import piece_terms, term_pieces, terms

if TYPE_CHECKING:  # numpy loads with the first question, not with the package
    import numpy as np
    import numpy.typing as npt

    # A note counted: its term ids, how often each occurs, how many terms it has.
    Row = tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], int]

K1 = 1.2
B = 0.75
FRESH_SHARE = 0.05  # notes counted since the packing, past this share of all: pack again
FRESH_LEAST = 256  # … and never for fewer than this many
# A text the analyzer's terms of are kept with the postings a process saves (``dump``):
# postings counted by an analyzer that splits it otherwise are not loaded (``undump``).
_PROBE = "Don't stop: the runners ran 3 races in 2024, naïve café — 東京の会議 and ideas."
_DUMP_FORMAT = 1

Text = Callable[[str], str]
# A note as a counting worker gives it (``count_worker``): its path, its term ids in that
# worker's numbering as int64 bytes, their counts as float32 bytes, how many terms.
WorkerRow = tuple[str, bytes, bytes, int]
# Counts notes on worker processes: given "path\0title" items, yields each chunk of
# notes counted as ``count_worker`` answers: (worker, terms new to it, [WorkerRow]).
Many = Callable[[list[str]], Iterable[object]]
MANY_LEAST = 1500  # notes to count before workers are worth their start (reading.POOL_THRESHOLD)


class Note(Protocol):
    """What the postings read of a note's record: ``stamp`` changes with its file."""

    @property
    def stamp(self) -> Hashable: ...

    @property
    def title(self) -> str: ...


class NoteTerms:
    """The postings of a vault's notes (see the module's docstring). Thread-safe: a
    question brings it up to date and reads it under one lock."""

    def __init__(self) -> None:
        import numpy as np

        self._lock = threading.Lock()
        self._vocab: dict[str, int] = {}
        self._stamps: dict[str, Hashable] = {}  # note → the stamp it was counted at
        # Packed: row → note, term → rows (CSR: ``_ptr[t]:_ptr[t + 1]`` of ``_rows``, ``_tfs``)
        self._paths: list[str] = []
        self._row: dict[str, int] = {}
        self._ptr: npt.NDArray[np.int64] = np.zeros(1, np.int64)
        self._rows: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self._tfs: npt.NDArray[np.float32] = np.zeros(0, np.float32)
        self._lengths: npt.NDArray[np.float64] = np.zeros(0)
        self._live: npt.NDArray[np.bool_] = np.zeros(0, bool)  # False: changed or gone
        # Counted since the packing: note → (term ids, counts, length)
        self._fresh: dict[str, Row] = {}
        self.unsaved = 0  # notes counted since made, loaded or dumped
        # The notes mapping last brought up to date with (``_sync``): an index snapshot's,
        # which never changes, so the same one again has nothing new to count (50,000
        # notes: a loop of 70 ms at every question while the vault stands still).
        self._synced: Mapping[str, Note] | None = None

    def __len__(self) -> int:
        return len(self._stamps)

    def stamps(self) -> dict[str, Hashable]:
        """Each note counted, with the stamp it was counted at."""
        with self._lock:
            return dict(self._stamps)

    def dump(self) -> bytes:
        """The postings as bytes, for ``undump`` in another process (the notes counted
        since the last packing packed first: the same scores)."""
        with self._lock:
            if self._fresh or not self._live.all():
                self._pack()
            self.unsaved = 0
            vocab = sorted(self._vocab, key=self._vocab.__getitem__)
            return marshal.dumps(
                (
                    _DUMP_FORMAT,
                    terms(_PROBE),
                    vocab,
                    self._paths,
                    [_plain(self._stamps[rel]) for rel in self._paths],
                    self._ptr.tobytes(),
                    self._rows.tobytes(),
                    self._tfs.tobytes(),
                    self._lengths.tobytes(),
                )
            )

    @classmethod
    def undump(
        cls, data: bytes | memoryview, stamp: Callable[..., Hashable] = tuple
    ) -> NoteTerms | None:
        """Postings ``dump`` made, or None when they are not usable here (another format,
        another analyzer, or not whole). ``stamp`` makes a note's stamp of its fields.

        The maps are made in C and the arrays read in place (read-only: the postings
        never change them, only replace them): at 50,000 notes a command line's search
        loaded them in 1.0 s, a loop per term and per note, copies of the arrays."""
        import numpy as np

        try:
            form, probe, vocab, paths, stamps, ptr, rows, tfs, lengths = marshal.loads(data)
            if form != _DUMP_FORMAT or probe != terms(_PROBE):
                return None
            made = cls()
            made._vocab = dict(zip(vocab, range(len(vocab)), strict=True))
            made._paths = list(paths)
            made._row = dict(zip(made._paths, range(len(made._paths)), strict=True))
            if set(map(type, stamps)) <= {tuple}:
                made._stamps = dict(zip(paths, starmap(stamp, stamps), strict=True))
            else:
                made._stamps = {
                    rel: stamp(*s) if isinstance(s, tuple) else s
                    for rel, s in zip(paths, stamps, strict=True)
                }
            made._ptr = np.frombuffer(ptr, np.int64)
            made._rows = np.frombuffer(rows, np.int32)
            made._tfs = np.frombuffer(tfs, np.float32)
            made._lengths = np.frombuffer(lengths, np.float64)
            made._live = np.ones(len(made._paths), bool)
        except (ValueError, TypeError, EOFError):
            return None
        whole = (
            len(made._ptr) == len(vocab) + 1
            and made._ptr[0] == 0
            and made._ptr[-1] == len(made._rows) == len(made._tfs)
            and len(made._lengths) == len(made._paths) == len(made._row)
            and (
                not len(made._rows)
                or 0 <= int(made._rows.min()) <= int(made._rows.max()) < len(paths)
            )
        )
        return made if whole else None

    def best(
        self,
        notes: Mapping[str, Note],
        text_of: Text,
        among: Collection[str],
        query: Sequence[str],
        limit: int,
        many: Many | None = None,
    ) -> list[str]:
        """The ``limit`` notes of ``among`` with the best BM25 for ``query``'s terms (each
        distinct term once), best first, ties by path; only notes holding a term.
        ``notes`` is every note of the vault (path → record): notes whose stamp changed
        are counted again from ``text_of`` first, so idf and lengths are the vault's as it
        stands — or, ``MANY_LEAST`` of them or more, by ``many``'s workers, reading what
        ``text_of`` would (a note they do not deliver is counted here). A mapping once
        given must not change (an index snapshot's): given again, the same object is taken
        as counted already."""
        with self._lock:
            self._sync(notes, text_of, many)
            scores = self._scores(query)
        wanted = [(-s, rel) for rel, s in scores.items() if rel in among]
        wanted.sort()
        return [rel for _, rel in wanted[:limit]]

    def stats(self) -> VaultStats:
        """The vault's size, mean note length and document frequencies, as the last
        ``best`` left them: whole-note BM25 over a few candidates, scored as over the vault."""
        with self._lock:
            size = int(self._live.sum()) + len(self._fresh)
            total = float(self._lengths[self._live].sum()) + sum(f[2] for f in self._fresh.values())
        return VaultStats(self, size, total / size if size else 0.0)

    def df(self, term: str) -> int:
        """How many notes hold ``term``."""
        with self._lock:
            t = self._vocab.get(term)
            if t is None:
                return 0
            held = 0
            if t < len(self._ptr) - 1:
                held = int(self._live[self._rows[self._ptr[t] : self._ptr[t + 1]]].sum())
            return held + sum(1 for f in self._fresh.values() if t in f[0])

    def _sync(self, notes: Mapping[str, Note], text_of: Text, many: Many | None = None) -> None:
        if notes is self._synced:
            return
        for rel in self._stamps.keys() - notes.keys():
            del self._stamps[rel]
            self._forget(rel)
        counted = self._stamps
        stale = [rel for rel, note in notes.items() if counted.get(rel, _NEVER) != note.stamp]
        apart: dict[str, Row] = {}
        if many is not None and len(stale) >= MANY_LEAST:
            apart = self._counted_apart(many, [f"{rel}\0{notes[rel].title}" for rel in stale])
        counter = TermCounter(self._vocab)  # for this pass only: the words met, found once
        for rel in stale:
            note = notes[rel]
            self._forget(rel)
            row = apart.pop(rel, None)
            self._fresh[rel] = row if row is not None else counter.count(note.title, text_of(rel))
            counted[rel] = note.stamp
            self.unsaved += 1
        if len(self._fresh) > max(FRESH_LEAST, FRESH_SHARE * len(self._stamps)):
            self._pack()
        self._synced = notes

    def _counted_apart(self, many: Many, items: list[str]) -> dict[str, Row]:
        """The rows ``many`` counted on worker processes (``count_worker``), their term
        ids made this vocabulary's; a note no worker delivered is not among them."""
        import numpy as np

        vocab = self._vocab
        ours: dict[int, npt.NDArray[np.int64]] = {}  # a worker's term ids → ours
        out: dict[str, Row] = {}
        for chunk in many(items):
            worker, new_terms, rows = cast(tuple[int, list[str], list[WorkerRow]], chunk)
            mapped = np.array([vocab.setdefault(t, len(vocab)) for t in new_terms], np.int64)
            known = ours[worker] = np.concatenate([ours.get(worker, mapped[:0]), mapped])
            for rel, ids, tfs, length in rows:
                out[rel] = (
                    known[np.frombuffer(ids, np.int64)],
                    np.frombuffer(tfs, np.float32).copy(),
                    length,
                )
        return out

    def _forget(self, rel: str) -> None:
        self._fresh.pop(rel, None)
        row = self._row.get(rel)
        if row is not None:
            self._live[row] = False

    def _pack(self) -> None:
        """The live packed rows and the fresh ones as new arrays, sorted by term."""
        import numpy as np

        keep = np.flatnonzero(self._live)
        renumber = np.full(len(self._live), -1, np.int64)
        renumber[keep] = np.arange(len(keep))
        term_of = np.repeat(np.arange(len(self._ptr) - 1), np.diff(self._ptr))
        held = self._live[self._rows]
        fresh = sorted(self._fresh)
        paths = [self._paths[i] for i in keep] + fresh
        first = len(keep)
        sizes = [len(self._fresh[rel][0]) for rel in fresh]
        all_terms = np.concatenate([term_of[held], *(self._fresh[rel][0] for rel in fresh)])
        all_rows = np.concatenate(
            [renumber[self._rows[held]], np.repeat(np.arange(first, len(paths)), sizes)]
        )
        all_tfs = np.concatenate([self._tfs[held], *(self._fresh[rel][1] for rel in fresh)])
        order = np.argsort(all_terms, kind="stable")
        self._ptr = np.zeros(len(self._vocab) + 1, np.int64)
        np.cumsum(np.bincount(all_terms, minlength=len(self._vocab)), out=self._ptr[1:])
        self._rows = all_rows[order].astype(np.int32)
        self._tfs = all_tfs[order]
        self._lengths = np.concatenate(
            [self._lengths[keep], np.array([self._fresh[rel][2] for rel in fresh], float)]
        )
        self._live = np.ones(len(paths), bool)
        self._paths = paths
        self._row = {rel: i for i, rel in enumerate(paths)}
        self._fresh = {}

    def _scores(self, query: Sequence[str]) -> dict[str, float]:
        import numpy as np

        size = int(self._live.sum()) + len(self._fresh)
        if not size:
            return {}
        total = float(self._lengths[self._live].sum()) + sum(f[2] for f in self._fresh.values())
        mean = total / size or 1.0
        packed = np.zeros(len(self._paths))
        fresh: dict[str, float] = {}
        norm = K1 * (1.0 - B + B * self._lengths / mean)
        for term in dict.fromkeys(query):
            t = self._vocab.get(term)
            if t is None:
                continue
            span = slice(self._ptr[t], self._ptr[t + 1]) if t < len(self._ptr) - 1 else slice(0)
            rows, tfs = self._rows[span], self._tfs[span]
            live = self._live[rows]
            found = {rel: f[1][f[0] == t] for rel, f in self._fresh.items() if t in f[0]}
            df = int(live.sum()) + len(found)
            if not df:
                continue
            idf = math.log(1.0 + (size - df + 0.5) / (df + 0.5))
            rows, tfs = rows[live], tfs[live]
            packed[rows] += idf * tfs * (K1 + 1.0) / (tfs + norm[rows])
            for rel, tf in found.items():
                n = K1 * (1.0 - B + B * self._fresh[rel][2] / mean)
                fresh[rel] = fresh.get(rel, 0.0) + idf * float(tf[0]) * (K1 + 1.0) / (
                    float(tf[0]) + n
                )
        out = {self._paths[i]: float(packed[i]) for i in np.flatnonzero(packed > 0)}
        out.update(fresh)
        return out


_NEVER = object()
_UNKNOWN = -(1 << 62)  # a piece ``TermCounter`` has not met
# The pieces a ``TermCounter`` keeps at most (then it forgets them and meets them again): a
# vault of varied text (numbers, names, identifiers, Chinese or Japanese runs) can hold
# millions of distinct ones, which the first count of an MCP server would keep otherwise.
PIECES_KEPT = 200_000


class TermCounter:
    """Counts notes' terms into ids of one vocabulary (term → id; a new term gets the
    next id), keeping what each piece of text met stands for: its one term's id (≥ 0),
    no term (−1: a stop word, a number), or its several terms (−2 − i: ``several[i]``, as
    "don't" gives two). Made for one counting pass: the pieces it keeps are the pass's, at
    most ``PIECES_KEPT`` of them."""

    __slots__ = ("known", "several", "vocab")

    def __init__(self, vocab: dict[str, int]) -> None:
        self.vocab = vocab
        self.known: dict[str | bytes, int] = {}
        self.several: list[list[int]] = []

    def count(self, title: str, text: str) -> Row:
        """A note's term ids (ascending), how often each occurs and how many terms it
        has: its title's terms twice and its text's. Each piece of the text (a word as
        the analyzer cuts it, before folding) is looked up, in C, to the id of its term;
        only pieces the pass has not met yet go through the analyzer, and numpy counts.
        A vault's first question counts every note: on interconnected-10k (53 MB, 9.6
        million pieces, 10,000 distinct) the whole pass took 5.7-6.6 s of CPU with a Python
        step per piece (its terms looked up, joined, counted, each term's id looked up),
        4.5-5.3 s so; what is left is mostly splitting the text and hashing each fresh
        piece to look it up."""
        import numpy as np

        if len(self.known) > PIECES_KEPT:  # between notes: no count holds a code now
            self.known.clear()
            self.several.clear()
        vocab = self.vocab
        name = [vocab.setdefault(t, len(vocab)) for t in terms(title)]
        pieces = term_pieces(text)
        known = self.known
        got = np.fromiter(map(known.get, pieces, repeat(_UNKNOWN)), np.int64, len(pieces))
        for i in np.flatnonzero(got == _UNKNOWN).tolist():
            got[i] = self._code(pieces[i])
        every = got[got >= 0]
        if name or self.several:
            parts = [np.array(name + name, np.int64), every]
            if self.several:
                several = self.several
                parts += [np.array(several[-2 - c], np.int64) for c in got[got <= -2].tolist()]
            every = np.concatenate(parts)
        ids, counts = np.unique(every, return_counts=True)
        return ids, counts.astype(np.float32), len(every)

    def _code(self, piece: str | bytes) -> int:
        code = self.known.get(piece)
        if code is None:
            vocab = self.vocab
            ids = [vocab.setdefault(t, len(vocab)) for t in piece_terms(piece)]
            if len(ids) == 1:
                code = ids[0]
            elif not ids:
                code = -1
            else:
                code = -2 - len(self.several)
                self.several.append(ids)
            self.known[piece] = code
        return code


def _plain(stamp: Hashable) -> Hashable:
    """A stamp as marshal keeps it: a named tuple (``FileStamp``) as a plain one."""
    return tuple(stamp) if isinstance(stamp, tuple) else stamp


class VaultStats:
    """What BM25 needs of the whole vault to score some of its notes as the vault would:
    its size, mean length, and each term's document frequency (asked when needed)."""

    __slots__ = ("_terms", "mean_length", "size")

    def __init__(self, terms: NoteTerms, size: int, mean_length: float) -> None:
        self._terms = terms
        self.size = size
        self.mean_length = mean_length

    def df(self, term: str) -> int:
        return self._terms.df(term)
