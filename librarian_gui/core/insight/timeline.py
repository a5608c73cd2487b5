"""The concept timeline (DESIGN §6): the notes mentioning each concept per day, week or
month over the notes' dates (DESIGN §2), linked and unlinked mentions told apart."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..index.queries import concept_notes, is_index_note
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..parse.records import DateSource
from .cooccurrence import found_in

if TYPE_CHECKING:
    from ..tagging.batch import Spans

Period = Literal["day", "week", "month"]
FILE_TIME: DateSource = "mtime"  # a note dated only by its file's modification time
READ_GROUP = 400  # notes read and matched together, between checks for a cancel


@dataclass(frozen=True, slots=True)
class DatedMention:
    """One note mentioning one concept: linked (the note links the concept or its note) or
    not (an alias written where the tagger would link it). ``line`` is 1-based, ``text``
    the whole line (front matter included when a property links it); ``dated_by`` says
    where the date comes from ("front-matter", "name" or "mtime": the file's time)."""

    concept: str
    note: str
    date: _dt.date
    dated_by: DateSource
    linked: bool
    line: int
    text: str

    @property
    def by_file_time(self) -> bool:
        return self.dated_by == FILE_TIME


@dataclass(frozen=True, slots=True)
class Bin:
    """One period of one concept: the notes mentioning it, linked or not. Notes dated by
    their file time only are counted apart (``file_time``), and binned at all only when
    asked for: a fresh clone gives every file the same time, a false peak."""

    start: _dt.date  # the period's first day
    linked: int
    unlinked: int
    file_time: int
    notes: tuple[DatedMention, ...]  # newest first, then by path

    @property
    def total(self) -> int:
        return self.linked + self.unlinked + self.file_time


@dataclass(frozen=True, slots=True)
class ConceptTimeline:
    """One concept's bins (periods with at least one note, in order); its first and last
    appearance by the notes with a date of their own (None when there is none); and the
    notes dated by file time only (``by_file_time``, newest first), whether binned or not."""

    concept: str
    bins: tuple[Bin, ...]
    first: _dt.date | None
    last: _dt.date | None
    dated: int  # notes dated by front matter or name
    by_file_time: tuple[DatedMention, ...]

    def bin_at(self, start: _dt.date) -> Bin | None:
        for b in self.bins:
            if b.start == start:
                return b
        return None


@dataclass(frozen=True, slots=True)
class Timeline:
    """Several concepts' timelines binned by one period. ``periods``: every period from the
    earliest note to the latest, empty ones included (the plot's axis)."""

    by: Period
    concepts: tuple[ConceptTimeline, ...]
    periods: tuple[_dt.date, ...]

    def notes_in(self, start: _dt.date) -> tuple[DatedMention, ...]:
        """The notes of the period starting on ``start``, every concept's: newest first,
        then by path, then in the order the concepts were asked for."""
        found = [m for c in self.concepts if (b := c.bin_at(start)) is not None for m in b.notes]
        order = {c.concept: i for i, c in enumerate(self.concepts)}
        found.sort(key=lambda m: (m.note, order[m.concept]))
        found.sort(key=lambda m: m.date, reverse=True)
        return tuple(found)

    def period_at(self, day: _dt.date) -> _dt.date:
        """The start of the period holding ``day``."""
        return period_start(day, self.by)

    def period_end(self, start: _dt.date) -> _dt.date:
        """The last day of the period starting on ``start``."""
        return period_end(start, self.by)

    def next_period(self, start: _dt.date) -> _dt.date:
        return next_period(start, self.by)

    def label(self, start: _dt.date) -> str:
        """How the period starting on ``start`` is named (see ``period_label``)."""
        return period_label(start, self.by)


# ------------------------------------------------------------------ periods


def period_start(day: _dt.date, by: Period) -> _dt.date:
    """The first day of the period holding ``day``: itself, the Monday of its ISO week, or
    the first of its month."""
    if by == "day":
        return day
    if by == "week":
        return day - _dt.timedelta(days=day.weekday())
    return day.replace(day=1)


def period_end(start: _dt.date, by: Period) -> _dt.date:
    """The last day of the period starting on ``start``."""
    if by == "day":
        return start
    if by == "week":
        return start + _dt.timedelta(days=6)
    return next_period(start, by) - _dt.timedelta(days=1)


def next_period(start: _dt.date, by: Period) -> _dt.date:
    if by == "day":
        return start + _dt.timedelta(days=1)
    if by == "week":
        return start + _dt.timedelta(days=7)
    return _dt.date(start.year + start.month // 12, start.month % 12 + 1, 1)


def period_label(start: _dt.date, by: Period) -> str:
    """ "2026-09-08", "2026-W37 (7–13 Sep)" or "2026-09"."""
    if by == "day":
        return start.isoformat()
    if by == "month":
        return f"{start.year:04d}-{start.month:02d}"
    year, week, _ = start.isocalendar()
    end = period_end(start, by)
    span = (
        f"{start.day}–{end:%d %b}".replace("–0", "–")
        if start.month == end.month
        else f"{start.day} {start:%b} – {end.day} {end:%b}"
    )
    return f"{year:04d}-W{week:02d} ({span})"


def periods_between(first: _dt.date, last: _dt.date, by: Period) -> tuple[_dt.date, ...]:
    """Every period's start from the one holding ``first`` to the one holding ``last``."""
    out = []
    at = period_start(first, by)
    while at <= last:
        out.append(at)
        at = next_period(at, by)
    return tuple(out)


# ------------------------------------------------------------------ binning


def bin_mentions(
    mentions: Sequence[DatedMention],
    concepts: Sequence[str],
    by: Period,
    *,
    file_time: bool = False,
) -> Timeline:
    """The timeline of ``concepts`` (in that order) from their mentions: one note counts
    once per concept and period. Notes dated by file time only are binned when
    ``file_time``, else only listed apart."""
    per_concept: dict[str, dict[_dt.date, list[DatedMention]]] = {c: {} for c in concepts}
    apart: dict[str, list[DatedMention]] = {c: [] for c in concepts}
    days = []
    for m in mentions:
        of_concept = per_concept.get(m.concept)
        if of_concept is None:
            continue
        if m.by_file_time:
            apart[m.concept].append(m)
            if not file_time:
                continue
        of_concept.setdefault(period_start(m.date, by), []).append(m)
        days.append(m.date)
    timelines = []
    for concept in concepts:
        found = per_concept[concept]
        bins = []
        for start in sorted(found):
            notes = _newest_first(found[start])
            undated = sum(1 for m in notes if m.by_file_time)
            linked = sum(1 for m in notes if m.linked and not m.by_file_time)
            bins.append(Bin(start, linked, len(notes) - undated - linked, undated, notes))
        dated = [m.date for b in bins for m in b.notes if not m.by_file_time]
        timelines.append(
            ConceptTimeline(
                concept,
                tuple(bins),
                min(dated) if dated else None,
                max(dated) if dated else None,
                len(dated),
                _newest_first(apart[concept]),
            )
        )
    periods = periods_between(min(days), max(days), by) if days else ()
    return Timeline(by, tuple(timelines), periods)


def _newest_first(mentions: list[DatedMention]) -> tuple[DatedMention, ...]:
    ordered = sorted(mentions, key=lambda m: m.note)
    ordered.sort(key=lambda m: m.date, reverse=True)
    return tuple(ordered)


# ------------------------------------------------------------------ gathering


def concept_mentions(
    index: IndexView,
    concepts: Sequence[str],
    read_text: Callable[[str], str | None],
    check: Callable[[], None] = lambda: None,
) -> list[DatedMention]:
    """The notes mentioning each of ``concepts`` (dictionary ids), dated. A note is linked
    to a concept when it is one it is found in (``cooccurrence.found_in``: links to the
    concept or its note; never its own note, nor the index note); else it mentions it
    unlinked where the tagger would link one of its aliases (``librarian tag --only``).

    The index is read from one snapshot; the notes are read with ``read_text`` (a note's
    decoded text, None when unreadable); ``check`` is called
    between groups of notes and may raise to stop."""
    from ..tagging.run import batch_matcher  # numpy: not for the CLI's start-up

    index = index.snapshot()
    found = found_in(index)
    pages = concept_notes(index)
    asked = set(concepts)
    wanted = [c for c in index.concepts.concepts if c.id in asked]
    linked: dict[str, dict[str, int]] = {}  # note → concept → line of its first link
    for cid in (c.id for c in wanted):
        targets = {CONCEPT_PREFIX + cid, pages.get(cid, "")}
        for rel in found.get(cid, ()):
            lines = [link.line for link, t in index.links_of(rel) if t in targets]
            linked.setdefault(rel, {})[cid] = min(lines, default=0)
    dates = {rel: (r.date, r.date_source) for rel, r in index.notes.items()}
    if not wanted:
        return []  # nothing to read the notes for
    batch = batch_matcher(index.concepts.concepts, pages)
    ids = [c.id for c in wanted]
    rels = sorted(rel for rel in dates if not is_index_note(rel))
    out: list[DatedMention] = []
    for at in range(0, len(rels), READ_GROUP):
        check()
        texts, names = [], []
        for rel in rels[at : at + READ_GROUP]:
            text = read_text(rel)
            if text is None:
                text = ""
            texts.append(text.lstrip("\ufeff"))
            names.append(rel)
        plans = batch.plan(texts, names, only=ids)
        for rel, text, spans in zip(names, texts, plans, strict=True):
            date, source = dates[rel]
            mine = linked.get(rel, {})
            for concept, line in mine.items():
                out.append(DatedMention(concept, rel, date, source, True, line, _line(text, line)))
            for start, concept_at in _first_spans(spans):
                concept = batch.ids[concept_at]
                if concept in mine:
                    continue  # linked already (a link the matcher does not see as one)
                line = text.count("\n", 0, start) + 1
                out.append(DatedMention(concept, rel, date, source, False, line, _line(text, line)))
    order = {c: i for i, c in enumerate(ids)}
    out.sort(key=lambda m: (m.note, order[m.concept]))
    return out


def _line(text: str, number: int) -> str:
    """Line ``number`` (1-based) of ``text`` without its line ending; "" past the end."""
    if number < 1:
        return ""
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if not start:
            return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)].rstrip("\r")


def _first_spans(spans: Spans) -> list[tuple[int, int]]:
    """(start, concept index) of a note's spans, the first of each concept only."""
    starts, _ends, concepts = spans
    seen: set[int] = set()
    out = []
    for start, concept in zip(starts.tolist(), concepts.tolist(), strict=True):
        if concept not in seen:
            seen.add(concept)
            out.append((start, concept))
    return out
