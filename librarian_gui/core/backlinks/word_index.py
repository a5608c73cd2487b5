"""Which notes hold each word: narrows a search for a note's names to the notes that can hold them.

Unlinked mentions look for a note's title and aliases as whole words in every other note;
reading 10,000 notes for each question costs a tenth of a second. A name written as whole
words can only be in a note holding each of its words, so the notes to look in are the
intersection of its words' notes. A name in a script written without word spaces (Chinese,
Japanese, Thai…: the analyzer's ``NO_SPACES``) is matched anywhere, so it cannot be
narrowed: every note is looked in.

Words are the analyzer's ``word_set``: bounded as the matcher bounds a name, lowercased with
``str.lower`` as the matcher's first test is (a note is read only when it holds a name's
lowercase form), so a note that test passes holds the name's words.

The postings sit in arrays, not in Python sets (issue 30: a set of paths per word was 70 %
of an idle MCP server's memory, 1 GB at 20,000 notes): words and notes are numbered, each
word's notes are a slice of one array of note rows (CSR), and a note put since the last
packing keeps its sorted word numbers apart, its packed row set aside, until the next
packing (once the index is complete, then when those notes pass a share of all).
"""

from __future__ import annotations

import marshal
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..parse.records import FileStamp
from ..text.analyzer import has_unspaced, mention_words, word_set

if TYPE_CHECKING:  # numpy loads with the first note put, not with the package
    import numpy as np
    import numpy.typing as npt

FRESH_SHARE = 0.05  # notes put since the packing, past this share of all: pack again
FRESH_LEAST = 256  # … and never for fewer than this many
# A text whose ``word_set`` is kept with the words a process saves (``dump``): words split
# otherwise (another version's analyzer) are not loaded (``undump``).
_PROBE = "Don't stop: the runners ran 3 races in 2024, naïve CAFÉ_2 — 東京の会議 and alpha中文."
_DUMP_FORMAT = 1


_CHUNK = 5_000  # items marshalled apiece: a few ms each, so a window's thread gets its turn


def _chunked(items: list[Any]) -> list[bytes]:
    out = []
    for i in range(0, len(items), _CHUNK):
        out.append(marshal.dumps(items[i : i + _CHUNK]))
        time.sleep(0)  # let a GUI thread waiting for the GIL have it now
    return out


def _unchunked(chunks: list[bytes]) -> list[Any]:
    out: list[Any] = []
    for chunk in chunks:
        out += marshal.loads(chunk)
        time.sleep(0)
    return out


class WordIndex:
    """Word → the notes holding it, kept per note at the file stamp it was read at.
    Thread-safe: one thread updates while others ask."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vocab: dict[str, int] = {}  # word → its number
        self._stamps: dict[str, FileStamp] = {}  # note → the stamp it was read at
        # Packed (none before the first packing): row → note, word → rows
        # (``_rows[_ptr[w] : _ptr[w + 1]]``, ascending), rows put again or removed since
        self._paths: list[str] = []
        self._row: dict[str, int] = {}
        self._ptr: npt.NDArray[np.int64] | None = None
        self._rows: npt.NDArray[np.int32] | None = None
        self._live: npt.NDArray[np.bool_] | None = None
        self._fresh: dict[str, npt.NDArray[np.int32]] = {}  # put since: note → word numbers
        self._complete = False

    @property
    def complete(self) -> bool:
        """Every note of the vault is in (set by the owner, once it has put them all)."""
        return self._complete

    @complete.setter
    def complete(self, value: bool) -> None:
        with self._lock:
            self._complete = value
            if value and self._fresh:
                self._pack()

    def stamp(self, rel: str) -> FileStamp | None:
        return self._stamps.get(rel)

    def stamps(self) -> dict[str, FileStamp]:
        """Each note put, with the stamp it was read at."""
        with self._lock:
            return dict(self._stamps)

    def dump(self) -> bytes:
        """The words as bytes, for ``undump`` in another process (packed first)."""
        import numpy as np

        with self._lock:
            if self._fresh or (self._live is not None and not self._live.all()):
                self._pack()
            vocab = sorted(self._vocab, key=self._vocab.__getitem__)
            ptr = self._ptr if self._ptr is not None else np.zeros(len(vocab) + 1, np.int64)
            rows = self._rows if self._rows is not None else np.zeros(0, np.int32)
            stamps = [tuple(self._stamps[rel]) for rel in self._paths]
            return marshal.dumps(
                (
                    _DUMP_FORMAT,
                    sorted(word_set(_PROBE)),
                    _chunked(vocab),
                    _chunked(self._paths),
                    _chunked(stamps),
                    ptr.tobytes(),
                    rows.tobytes(),
                )
            )

    @classmethod
    def undump(cls, data: bytes | memoryview) -> WordIndex | None:
        """Words ``dump`` made, not complete (the owner checks each note's stamp), or None
        when they are not usable here (another format, another analyzer, not whole)."""
        import numpy as np

        try:
            form, probe, vocab, paths, stamps, ptr, rows = marshal.loads(data)
            if form != _DUMP_FORMAT or probe != sorted(word_set(_PROBE)):
                return None
            vocab, paths, stamps = _unchunked(vocab), _unchunked(paths), _unchunked(stamps)
            made = cls()
            made._vocab = {word: i for i, word in enumerate(vocab)}
            made._paths = list(paths)
            made._row = {rel: i for i, rel in enumerate(made._paths)}
            made._stamps = {
                rel: FileStamp(*stamp) for rel, stamp in zip(paths, stamps, strict=True)
            }
            # read-only views of the loaded bytes: packed arrays are replaced, never written
            made._ptr = np.frombuffer(ptr, np.int64)
            made._rows = np.frombuffer(rows, np.int32)
            made._live = np.ones(len(made._paths), bool)
        except (ValueError, TypeError, EOFError):
            return None
        whole = (
            len(made._ptr) == len(made._vocab) + 1 == len(vocab) + 1
            and made._ptr[0] == 0
            and bool((np.diff(made._ptr) >= 0).all())
            and made._ptr[-1] == len(made._rows)
            and len(made._stamps) == len(made._row) == len(paths)
            and (
                not len(made._rows)
                or 0 <= int(made._rows.min()) <= int(made._rows.max()) < len(paths)
            )
        )
        return made if whole else None

    def take(self, other: WordIndex) -> bool:
        """Hold what ``other`` holds (words ``undump`` loaded), when nothing was put here
        yet; False (nothing changed) otherwise."""
        with self._lock:
            if self._stamps or self._fresh or self._complete:
                return False
            with other._lock:
                self._vocab, self._stamps = other._vocab, other._stamps
                self._paths, self._row = other._paths, other._row
                self._ptr, self._rows, self._live = other._ptr, other._rows, other._live
                self._fresh = other._fresh
            return True

    def put(self, rel: str, stamp: FileStamp, text: str) -> None:
        import numpy as np

        words = word_set(text)
        with self._lock:
            vocab = self._vocab
            new = words.difference(vocab)  # numbered in C: a generator apiece was 30 % slower
            if new:
                vocab.update(zip(new, range(len(vocab), len(vocab) + len(new)), strict=True))
            ids = np.fromiter(map(vocab.__getitem__, words), np.int32, len(words))
            ids.sort()
            self._drop(rel)
            self._fresh[rel] = ids
            self._stamps[rel] = stamp
            if self._complete and len(self._fresh) > max(
                FRESH_LEAST, FRESH_SHARE * len(self._stamps)
            ):
                self._pack()

    def remove(self, rel: str) -> None:
        with self._lock:
            self._drop(rel)
            self._stamps.pop(rel, None)

    def _drop(self, rel: str) -> None:
        self._fresh.pop(rel, None)
        row = self._row.get(rel)
        if row is not None and self._live is not None:
            self._live[row] = False

    def _pack(self) -> None:
        """Every note's words into the arrays: the live packed rows, then the fresh notes."""
        import numpy as np

        terms_parts: list[npt.NDArray[np.int32]] = []
        rows_parts: list[npt.NDArray[np.int32]] = []
        paths: list[str] = []
        if self._ptr is not None and self._rows is not None and self._live is not None:
            words = len(self._ptr) - 1
            old_terms = np.repeat(np.arange(words, dtype=np.int32), np.diff(self._ptr))
            keep = self._live[self._rows]
            renumber = np.cumsum(self._live, dtype=np.int64) - 1  # old row → new row
            terms_parts.append(old_terms[keep])
            rows_parts.append(renumber[self._rows[keep]].astype(np.int32))
            paths = [p for p, alive in zip(self._paths, self._live.tolist(), strict=True) if alive]
        for rel, ids in self._fresh.items():
            terms_parts.append(ids)
            rows_parts.append(np.full(len(ids), len(paths), np.int32))
            paths.append(rel)
        terms = np.concatenate(terms_parts) if terms_parts else np.zeros(0, np.int32)
        rows = np.concatenate(rows_parts) if rows_parts else np.zeros(0, np.int32)
        order = np.lexsort((rows, terms))
        counts = np.bincount(terms, minlength=len(self._vocab))
        self._ptr = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=self._ptr[1:])
        self._rows = rows[order]
        self._paths = paths
        self._row = {rel: i for i, rel in enumerate(paths)}
        self._live = np.ones(len(paths), bool)
        self._fresh = {}

    def holding(self, names: Iterable[str]) -> set[str] | None:
        """The notes that can hold one of ``names`` as whole words; None when that cannot
        be narrowed (the index is not complete, or a name is in an unspaced script or has
        no word)."""
        if not self._complete:
            return None
        found: set[str] = set()
        with self._lock:
            for name in names:
                words = mention_words(name)
                if not words or has_unspaced(name):
                    return None
                found |= self._holding_all(words)
        return found

    def _holding_all(self, words: list[str]) -> set[str]:
        """The notes holding every one of ``words``."""
        import numpy as np

        ids = []
        for w in dict.fromkeys(words):
            t = self._vocab.get(w)
            if t is None:
                return set()  # no note holds it
            ids.append(t)
        out: set[str] = set()
        ptr, all_rows, live = self._ptr, self._rows, self._live
        if ptr is not None and all_rows is not None and live is not None:
            packed = len(ptr) - 1

            def held(t: int) -> npt.NDArray[np.int32]:
                return all_rows[ptr[t] : ptr[t + 1]] if t < packed else all_rows[:0]

            rows = held(ids[0])
            for t in sorted(ids[1:], key=lambda t: len(held(t))):
                if not len(rows):
                    break
                rows = np.intersect1d(rows, held(t), assume_unique=True)
            out = {self._paths[r] for r in rows[live[rows]].tolist()}
        wanted = np.array(ids, np.int32)
        for rel, own in self._fresh.items():
            at = np.searchsorted(own, wanted)
            if (at < len(own)).all() and (own[np.minimum(at, len(own) - 1)] == wanted).all():
                out.add(rel)
        return out
