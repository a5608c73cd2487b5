"""Context packs (DESIGN §6): the index note and the passages most relevant to a question,
never over a token budget, each with its note path, heading and line range."""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..index.snapshot import IndexSnapshot, IndexView
from ..parse.parser import split_front_matter
from ..text.analyzer import terms
from .aliases import alias_terms
from .corpus import Corpus, TextOf
from .index_lines import fold_dated_runs
from .pack_budget import INDEX_SHARE
from .passages import Passage
from .ranking import NOT_ANSWERED, TIME_QUESTION, answers_well, name_scores, score_passages
from .tokens import estimate_tokens, from_tenths, joined_tenths, tenths

if TYPE_CHECKING:
    from ..related.vault import RelatedIndex

REFILLS = 4  # rounds of packing passages into what the printed body left
QUERY_SHOWN = 200  # characters of the query repeated in the header


@dataclass(frozen=True, slots=True)
class PackedPassage:
    """A passage in a pack: where it is, its score, why it was chosen, what it costs."""

    passage: Passage
    score: float
    reasons: tuple[str, ...]
    tokens: int

    def to_json(self) -> dict[str, Any]:
        p = self.passage
        return {
            "note": p.note,
            "heading": list(p.heading),
            "lines": [p.first, p.last],
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class ContextPack:
    """A pack's Markdown ``text`` (at most ``budget`` tokens by ``estimate_tokens``) and
    what it holds: the index note (``index_note``, None when absent; ``index_lines`` of its
    ``index_total`` lines kept) and the ``passages``, in the order they are printed."""

    query: str
    budget: int
    text: str
    tokens: int
    index_note: str | None
    index_lines: int
    index_total: int
    passages: tuple[PackedPassage, ...]
    time_question: bool = False
    notes: tuple[str, ...] = field(default=())
    answers_well: bool = True
    index_folded: int = 0  # links to dated notes the index note's lines show as ranges

    def to_json(self) -> dict[str, Any]:
        """What ``librarian context --json`` prints: the notes and passages (path, heading,
        lines, score, reasons, tokens) and the ``text``; only the text is held to the
        budget, the rest describes it."""
        return {
            "query": self.query,
            "budget": self.budget,
            "tokens": self.tokens,
            "time_question": self.time_question,
            "answers_well": self.answers_well,
            **({} if self.answers_well else {"warning": NOT_ANSWERED}),
            "index_note": None
            if self.index_note is None
            else {
                "note": self.index_note,
                "lines": self.index_lines,
                "of": self.index_total,
                "dated_links_as_ranges": self.index_folded,
            },
            "notes": list(self.notes),
            "passages": [p.to_json() for p in self.passages],
            "text": self.text,
        }


def context_pack(
    index: IndexView,
    text_of: TextOf,
    query: str,
    budget: int,
    *,
    index_note: str = "MEMORY.md",
    related: RelatedIndex | None = None,
    index_share: float = INDEX_SHARE,
) -> ContextPack:
    """The pack for ``query`` within ``budget`` tokens (see the module's docstring).

    The index note comes first, cut to its first lines when it would take more than
    ``index_share`` of the budget. Then passages by score, best first, while they fit:
    BM25 over the passages, raised by the note's own match (BM25 over whole notes, its
    name), by a matching passage next to it, by links and shared concepts with the best
    notes (and RELATED_TO similarity when ``related`` is given), and, for a question about
    time, by saying when (time words) or by the note's date falling in a month or year
    the question names. Printed grouped by note, in line order. Ties go to the path and
    line, so the same index and question always give the same pack."""
    budget = max(int(budget), 0)
    index = index.snapshot()
    index_rel = _find(index, index_note)
    rels, named = _named_beside(index, index_rel, query)
    wanted = [*terms(query), *alias_terms(index.concepts, query)]
    corpus = Corpus.build(index, text_of, rels, wanted, keep={rels[i] for i in named})
    timed = bool(TIME_QUESTION.search(query))
    scored = score_passages(index, corpus, query, timed, related)

    index_lines: list[str] = []
    if index_rel is not None:
        whole = (text_of(index_rel) or "").lstrip("\ufeff")
        body = whole[split_front_matter(whole)[0] :].strip("\n")  # its front matter: no pointer
        index_lines = body.split("\n") if body else []
    index_lines, folded = fold_dated_runs(index_lines)
    how = _how(timed, related is not None)
    well = answers_well(index, corpus, query)
    pack = _assemble(
        corpus, query, budget, index_rel, index_lines, folded, index_share, scored, timed, how, well
    )
    return dataclasses.replace(pack, answers_well=well, index_folded=folded)


def _named_beside(
    index: IndexSnapshot, index_rel: str | None, query: str
) -> tuple[list[str], dict[int, float]]:
    """Every note but the index note, sorted, and the ones whose name is close to the
    query (``name_scores``, by position in that list). The names are matched over the
    whole vault, whose keys ``name_scores`` keeps from one question to the next, and the
    index note is then left out: asked about the vault less one note, it would read every
    note's names again at each pack (50,000 notes: 0.15 s). A note's score does not
    depend on the other notes, so the scores are those of the list without it."""
    whole = index.sorted_notes()
    named = name_scores(index, whole, query)
    if index_rel is None:
        return list(whole), named
    cut = bisect.bisect_left(whole, index_rel)  # its place: ``whole`` is sorted
    rels = [*whole[:cut], *whole[cut + 1 :]]
    return rels, {(i if i < cut else i - 1): v for i, v in named.items() if i != cut}


def _find(index: IndexView, name: str) -> str | None:
    """The index note: its vault path, in any case, ``.md`` optional."""
    if name in index.notes:
        return name
    folded = name.strip().strip("/").casefold()
    wanted = {folded, folded + ".md"}
    matches = sorted(r for r in index.notes if r.casefold() in wanted)
    return matches[0] if matches else None


def _how(timed: bool, similar: bool) -> str:
    """What the passages were chosen by, as the header says it."""
    how = "text match (BM25) over passages and notes, neighbouring passages, links and shared "
    how += "concepts, similarity (related notes)" if similar else "concepts"
    if timed:
        how += ", and (a question about time) words saying when and the notes' dates"
    return how


def _header(
    query: str,
    budget: int,
    used: int,
    index_part: str,
    count: int,
    notes: int,
    how: str,
    well: bool,
) -> str:
    q = query if len(query) <= QUERY_SHOWN else query[: QUERY_SHOWN - 1] + "…"
    follow = "the closest passages follow" if count else "no passage matches it"
    warning = "" if well else f"Warning: {NOT_ANSWERED}; {follow}.\n"
    return (
        f"# Context for: {q}\n{warning}"
        f"Within {budget} tokens (estimated; {used} used): {index_part}; "
        f"{_plural(count, 'passage')} from {_plural(notes, 'note')}, chosen by {how}. "
        "Each passage: note path (date), heading, lines.\n"
    )


def _index_part(rel: str | None, kept: int, total: int, folded: int) -> str:
    """What the header says of the index note: whole or its first lines, and how many of
    its links to dated notes show as ranges (``index_lines``)."""
    if rel is None:
        return "no index note"
    shown = "whole" if kept == total else f"{kept} of {total} lines"
    if folded:
        shown += f"; {_plural(folded, 'link')} to dated notes as ranges"
    return f"the index note {rel} ({shown})"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _index_block(rel: str, lines: Sequence[str], kept: int) -> str:
    body = "\n".join(lines[:kept])
    more = f"\n… ({len(lines) - kept} more lines)" if kept < len(lines) else ""
    return f"\n## {rel} (index note)\n{body}{more}\n"


def _index_lines_within(rel: str, lines: Sequence[str], share: int) -> int:
    """How many of the index note's first lines fit in ``share`` tokens (0 when none do).

    The block grows with its lines, so the count is found by doubling, then halving: a
    few estimates of blocks about as long as the answer. Taking one line off at a time
    from the whole note priced a 50,000-line dump thousands of times (a pack on a vault
    whose MEMORY.md had grown to 937 lines took 5.8 s, all of it here)."""

    def fits(kept: int) -> bool:
        return estimate_tokens(_index_block(rel, lines, kept)) <= share

    if fits(len(lines)):
        return len(lines)
    low, high = 0, 1  # ``low`` fits (or is 0), ``high`` is the first tried that does not
    while high < len(lines) and fits(high):
        low, high = high, high * 2
    high = min(high, len(lines))
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _note_block(corpus: Corpus, n: int) -> str:
    """A note's heading in a pack: its path and date; the date not again when the path
    says it already (a diary's ``diary/2026-03-03.md``): the budget goes to passages."""
    rel, d = corpus.notes[n], corpus.dates[n].isoformat()
    if d in rel:
        return f"\n## {rel}\n"
    src = "" if corpus.date_sources[n] != "mtime" else ", file time"
    return f"\n## {rel} ({d}{src})\n"


@functools.lru_cache(maxsize=8192)
def _passage_cost(p: Passage) -> int:
    """A passage's block, label shown, as estimated (the last 8,192 kept: questions reuse
    passages, and each holds its text). From
    the passage's own price when it was cut (``Passage.tenths``): only the label is priced
    here, exactly as the whole block would be (``joined_tenths``); pricing every scored
    passage's text again was a quarter of a pack at 10,000 notes."""
    if p.tenths is None:
        return estimate_tokens(_passage_block(p, True))
    label, _, _ = _passage_block(p, True).partition("\n")
    # the block's lines: its label, the text's (priced as one: only its last line meets
    # what follows), and the empty one after its closing newline
    last = p.text[p.text.rfind("\n") + 1 :]
    return from_tenths(joined_tenths([label, last, ""], [tenths(label), p.tenths, 0]))


def _passage_block(p: Passage, heading_shown: bool) -> str:
    where = f"L{p.first}–{p.last}" if p.last != p.first else f"L{p.first}"
    label = f"{where} · {p.heading_text}" if heading_shown and p.heading else where
    return f"[{label}]\n{p.text}\n"


def _body(
    corpus: Corpus,
    index_rel: str | None,
    index_lines: Sequence[str],
    kept: int,
    chosen: Sequence[int],
) -> tuple[str, list[int], list[int]]:
    """The pack below its header, the passages in print order, and the notes in print
    order: notes in the order of their best passage; in a note, passages in line order,
    and neighbours (nothing but blank lines between, the same heading) under one label."""
    by_note: dict[int, list[int]] = {}
    for p in chosen:
        by_note.setdefault(corpus.note_of[p], []).append(p)
    parts = []
    if index_rel is not None and kept > 0:
        parts.append(_index_block(index_rel, index_lines, kept))
    order: list[int] = []
    for n, ps in by_note.items():
        parts.append(_note_block(corpus, n))
        runs: list[list[int]] = []
        for p in sorted(ps):  # passage order is file order within a note
            run = runs[-1] if runs else None
            if (
                run
                and p == run[-1] + 1
                and corpus.passages[p].heading == corpus.passages[run[-1]].heading
            ):
                run.append(p)
            else:
                runs.append([p])
        last_heading: tuple[str, ...] | None = None
        titled = _titled(corpus, n)
        for run in runs:
            first, last = corpus.passages[run[0]], corpus.passages[run[-1]]
            parts.append(
                _run_block(
                    first,
                    last.last,
                    [corpus.passages[p].text for p in run],
                    first.heading != last_heading,
                    titled,
                )
            )
            last_heading = first.heading
            order.extend(run)
    return "".join(parts), order, list(by_note)


def _titled(corpus: Corpus, n: int) -> bool:
    """Whether the whole of note ``n`` sits under one heading, its first, and that heading
    only repeats the note's name (``# Garden`` in ``garden.md``): the path above says it
    already, so labels leave it out and show only the headings below it, which say where
    in the note a passage is. A title that says more than the name (``# Conversation 1:
    Caroline and Melanie`` in ``2023-05-08.md``) is kept."""
    start = bisect.bisect_left(corpus.note_of, n)
    end = bisect.bisect_right(corpus.note_of, n, lo=start)
    first = corpus.passages[start].heading[:1] if start < end else ()
    if not first or _name_key(first[0]) != _name_key(corpus.notes[n].rsplit("/", 1)[-1][:-3]):
        return False
    return all(corpus.passages[p].heading[:1] == first for p in range(start + 1, end))


def _name_key(name: str) -> str:
    """A name as a reader compares it: letters and digits only, case folded."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def _run_block(
    first: Passage, last_line: int, texts: Sequence[str], heading_shown: bool, titled: bool
) -> str:
    where = f"L{first.first}–{last_line}" if last_line != first.first else f"L{first.first}"
    heading = first.heading[1:] if titled else first.heading
    label = f"{where} · {' › '.join(heading)}" if heading_shown and heading else where
    body = "\n\n".join(texts)
    return f"[{label}]\n{body}\n"


def _assemble(
    corpus: Corpus,
    query: str,
    budget: int,
    index_rel: str | None,
    index_lines: list[str],
    folded: int,
    index_share: float,
    scored: list[tuple[float, int, tuple[str, ...]]],
    timed: bool,
    how: str,
    well: bool,
) -> ContextPack:
    """Reserve the header at its widest, then the index note within its share, then fill
    the rest with passages by score; the body printed is often shorter than reserved
    (neighbours share a label, a note its heading), so passages are added again into what
    is left until none fits. The header and the body meet at a newline, so their
    estimates add up to a bound of the whole (``tokens``)."""
    wide = 10 ** len(str(budget)) - 1 if budget else 9
    widest = _index_part(index_rel, wide, wide + 1, wide if folded else 0)
    room = budget - estimate_tokens(_header(query, budget, wide, widest, wide, wide, how, well))
    if room < 0:
        return ContextPack(query, budget, "", 0, index_rel, 0, len(index_lines), (), timed)
    kept = 0
    if index_rel is not None and index_lines:
        share = min(room, int(budget * index_share))
        kept = _index_lines_within(index_rel, index_lines, share)
    chosen: list[int] = []
    taken: set[int] = set()
    costs: dict[int, int] = {}  # passage → its block's estimate, label shown
    heads: dict[int, int] = {}  # note → its heading block's
    for _ in range(REFILLS):
        body, order, note_order = _body(corpus, index_rel, index_lines, kept, chosen)
        spare = room - estimate_tokens(body)
        notes = {corpus.note_of[p] for p in chosen}
        added = False
        for _, p, _ in scored:
            if p in taken:
                continue
            n = corpus.note_of[p]
            if p not in costs:
                costs[p] = _passage_cost(corpus.passages[p])
            cost = costs[p]
            if n not in notes:
                if n not in heads:
                    heads[n] = estimate_tokens(_note_block(corpus, n))
                cost += heads[n]
            if cost <= spare:
                spare -= cost
                chosen.append(p)
                taken.add(p)
                notes.add(n)
                added = True
        if not added:
            break
    reasons = {p: (s, r) for s, p, r in scored}
    while True:
        body, order, note_order = _body(corpus, index_rel, index_lines, kept, chosen)
        index_part = _index_part(index_rel, kept, len(index_lines), folded)
        used = 0
        for _ in range(4):  # the header prints what the text uses: settle the number
            header = _header(
                query, budget, used, index_part, len(order), len(note_order), how, well
            )
            text = header + body
            if estimate_tokens(text) == used:
                break
            used = estimate_tokens(text)
        used = estimate_tokens(text)
        if used <= budget:
            break
        if chosen:  # a safety net only: the reserved costs above already bound the text
            chosen.pop()
        elif kept:
            kept -= 1
        else:
            return ContextPack(query, budget, "", 0, index_rel, 0, len(index_lines), (), timed)
    packed = tuple(
        PackedPassage(
            corpus.passages[p],
            reasons[p][0],
            reasons[p][1],
            costs[p],
        )
        for p in order
    )
    return ContextPack(
        query,
        budget,
        text,
        used,
        index_rel,
        kept,
        len(index_lines),
        packed,
        timed,
        tuple(corpus.notes[n] for n in note_order),
    )
