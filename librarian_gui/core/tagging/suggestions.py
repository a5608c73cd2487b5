"""Candidate concepts: phrases many notes write, in plain prose, that no alias, concept id
or note title covers yet. The editor lists them with "Add as concept"; the command line
prints them (``librarian concepts suggest``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..backlinks.unlinked import excluded_spans
from ..concepts.dictionary import Concept, slugify
from ..index.snapshot import IndexView
from ..parse.parser import mask_note
from ..text.analyzer import phrase_runs, phrase_words
from ..text.stopwords import STOP_WORDS_BY_LANGUAGE
from ..vault.files import MAX_NOTE_BYTES

MAX_WORDS = 3
MIN_NOTES = 3
MAX_SHARE = 0.5  # a phrase in more than half of the notes is boilerplate, not a concept
MAX_SUGGESTIONS = 50
# Counting every phrase of a 50 MB vault takes a minute; an even sample of the notes, about
# this much text, finds the same widespread phrases in a few seconds.
SAMPLE_BYTES = 3_000_000

_POSSESSIVE = re.compile(r"['’]s$", re.I)
# Markup, not prose: words joined by underscores are an identifier ("max_retries",
# org-mode's "BEGIN_NOTE"; "_italics_" stay prose), and a line opening with "#+" is an
# org-mode directive ("#+TITLE: …", "#+BEGIN_QUOTE").
_MARKUP = re.compile(r"[^\W_]+(?:_+[^\W_]+)+|^[ \t]*#\+[^\n]*", re.M)
# Month and weekday names read like names (capitalised) but are no concepts.
_CALENDAR_WORDS = """january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday today yesterday
    tomorrow januar februar märz juni juli oktober dezember montag dienstag mittwoch
    donnerstag freitag samstag sonntag janvier février mars avril mai juin juillet août
    septembre octobre novembre décembre lundi mardi mercredi jeudi vendredi samedi
    dimanche enero febrero marzo abril mayo junio julio agosto septiembre octubre
    noviembre diciembre lunes martes miércoles jueves viernes sábado domingo"""
_CALENDAR = frozenset(_CALENDAR_WORDS.split())
_STOP = frozenset().union(_CALENDAR, *(words for _, words in STOP_WORDS_BY_LANGUAGE))


@dataclass(frozen=True, slots=True)
class Suggestion:
    """``phrase`` as the notes most often write it; ``notes``: how many notes write it
    outside links and code; ``mentions``: how many times; ``examples``: a few of the
    notes (vault paths, sorted)."""

    phrase: str
    notes: int
    mentions: int
    examples: tuple[str, ...]

    @property
    def concept_id(self) -> str:
        """The id "Add as concept" proposes: the phrase as a lowercase slug."""
        return slugify(self.phrase)


def pick_sample(sizes: dict[str, int], budget: int = SAMPLE_BYTES) -> list[str]:
    """Notes to read for suggestions: all of them when their sizes add up to at most
    ``budget`` bytes, else every k-th note in path order (an even spread over folders and
    dates) so that about ``budget`` bytes are read."""
    rels = sorted(sizes)
    total = sum(sizes.values())
    if total <= budget or not rels:
        return rels
    step = total / budget
    return [rel for i, rel in enumerate(rels) if int(i / step) != int((i + 1) / step)]


def prose_runs(text: str) -> list[str]:
    """The runs of words of a note's plain prose: no front matter, code, comments, links,
    URLs, tags or HTML; each run ends where punctuation or a line end breaks the clause."""
    masked = mask_note(text)
    starts, ends = excluded_spans(masked)
    if starts:
        parts = []
        at = 0
        for start, end in zip(starts, ends, strict=True):
            parts.append(masked[at:start])
            parts.append("\n")
            at = end
        parts.append(masked[at:])
        masked = "".join(parts)
    if "_" in masked or "#+" in masked:
        masked = _MARKUP.sub("\n", masked)
    return phrase_runs(masked)


def note_phrases(text: str) -> tuple[list[str], list[str]]:
    """Every 1..MAX_WORDS-word span of a note's prose runs (as written) that neither starts
    nor ends with a stop word or a number; and the single words written with a capital
    inside a run (not first: a sentence's first word is capitalised anyway)."""
    phrases: list[str] = []
    inner_capitals: list[str] = []
    for run in prose_runs(text):
        words = phrase_words(run)
        if "'" in run or "’" in run:
            words = [_POSSESSIVE.sub("", w) for w in words]
        ok = [not (low in _STOP or low.isdigit()) for low in map(str.lower, words)]
        n = len(words)
        phrases.extend(w for w, good in zip(words, ok, strict=True) if good)
        inner_capitals.extend(words[i] for i in range(1, n) if ok[i] and words[i][:1].isupper())
        for i in range(n - 1):
            if ok[i]:
                if ok[i + 1]:
                    phrases.append(f"{words[i]} {words[i + 1]}")
                if i + 2 < n and ok[i + 2]:
                    phrases.append(f"{words[i]} {words[i + 1]} {words[i + 2]}")
    return phrases, inner_capitals


def suggest_concepts(
    texts: Iterable[tuple[str, str | None]],
    concepts: Sequence[Concept],
    titles: Iterable[str] = (),
    *,
    limit: int = MAX_SUGGESTIONS,
    min_notes: int = MIN_NOTES,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[Suggestion]:
    """The phrases of ``texts`` ((vault path, text or None) per note) written in at least
    ``min_notes`` notes and at most half of them, most widespread first.

    Left out: a phrase that contains an alias, a concept id or a note title as whole words
    (those are covered: the tagger or the unlinked mentions link them) or is part of one; a
    single word unless the notes mostly capitalise it mid-sentence (a name, "Kubernetes",
    not "memory"); and a phrase whose words nearly always come inside one longer suggested
    phrase (only the longer one is listed)."""
    covered = {str.lower(c.id.replace("-", " ")) for c in concepts}
    covered.update(a.lower() for c in concepts for a in c.aliases)
    covered.update(t.lower() for t in titles)
    covered_words = {tuple(phrase_words(c)) for c in covered}
    covered_words.discard(())
    inside_covered = {  # every run of whole words of a covered phrase
        words[i:j]
        for words in covered_words
        for i in range(len(words))
        for j in range(i + 1, len(words) + 1)
    }
    doc_freq: Counter[str] = Counter()  # folded phrase -> notes writing it
    written: Counter[str] = Counter()  # phrase as written -> times
    capitalised: Counter[str] = Counter()  # single words written with a capital, not first
    examples: tuple[dict[str, str], ...] = ({}, {}, {})  # the first three notes of a phrase
    total = 0
    for rel, text in texts:
        if cancelled():
            return []
        if not text:
            continue
        total += 1
        phrases, inner_capitals = note_phrases(text)
        written.update(phrases)
        capitalised.update(inner_capitals)
        keys = set(map(str.lower, phrases))
        doc_freq.update(keys)
        for first in examples:  # the first notes of each phrase, kept for three of them
            new = [k for k in keys if k not in first]
            first.update(dict.fromkeys(new, rel))
            keys.difference_update(new)
            if not keys:
                break
    forms: dict[str, Counter[str]] = {}
    for shown, times in written.items():
        key = shown.lower()
        if doc_freq[key] >= min_notes:
            forms.setdefault(key, Counter())[shown] = times
    ceiling = max(min_notes, int(total * MAX_SHARE))
    kept: dict[str, int] = {}
    for key, notes in doc_freq.items():
        if notes < min_notes or notes > ceiling:
            continue
        words = tuple(key.split(" "))
        if words in inside_covered or _contains(words, covered_words):
            continue
        if len(words) == 1 and not _is_name(key, forms[key], capitalised):
            continue
        kept[key] = notes
    mentions = {k: sum(forms[k].values()) for k in kept}
    # A phrase nearly always written inside a longer kept phrase is that phrase ("vector"
    # in "vector store"); a longer phrase whose part is written far more often on its own
    # is only a context of that part ("Wren agreed" beside "Wren").
    for key in sorted(kept, key=lambda k: -k.count(" ")):
        for part in _parts(key):
            if part in kept and key in kept and mentions[key] >= 0.8 * mentions[part]:
                del kept[part]
    for key in list(kept):
        if any(p in kept and mentions[p] >= 1.5 * mentions[key] for p in _parts(key)):
            del kept[key]
    ranked = sorted(kept, key=lambda k: (-kept[k], -mentions[k], k))[:limit]
    return [
        Suggestion(
            forms[k].most_common(1)[0][0],
            kept[k],
            mentions[k],
            tuple(sorted(e[k] for e in examples if k in e)),
        )
        for k in ranked
    ]


def _parts(key: str) -> list[str]:
    """The shorter runs of whole words inside a phrase ("a b c" → "a", "b", "c", "a b",
    "b c")."""
    tokens = key.split(" ")
    return [
        " ".join(tokens[i : i + n])
        for n in range(1, len(tokens))
        for i in range(len(tokens) - n + 1)
    ]


def _contains(words: tuple[str, ...], covered: set[tuple[str, ...]]) -> bool:
    """Whether ``words`` contain a covered phrase as whole words."""
    return any(
        words[i:j] in covered for i in range(len(words)) for j in range(i + 1, len(words) + 1)
    )


def _is_name(key: str, forms: Counter[str], capitalised: Counter[str]) -> bool:
    """A single word is a candidate when written like a name or an acronym: capitalised
    mid-sentence in most of its uses, or in capitals ("RAG")."""
    uses = sum(forms.values())
    inner = sum(capitalised[form] for form in forms)
    if any(form.isupper() and len(form) >= 2 for form in forms):
        upper = sum(c for form, c in forms.items() if form.isupper())
        if upper * 2 >= uses:
            return True
    return len(key) >= 3 and inner * 2 >= uses


def vault_suggestions(
    index: IndexView,
    concepts: Sequence[Concept],
    read_text: Callable[[str], str | None],
    *,
    limit: int = MAX_SUGGESTIONS,
    min_notes: int = MIN_NOTES,
    cancelled: Callable[[], bool] = lambda: False,
) -> tuple[list[Suggestion], int, int]:
    """Suggestions for a vault: (suggestions, notes read, notes that can be read). Notes
    are read outside the index lock; a large vault is sampled (``pick_sample``).

    A note with no text to read — too large to index, binary, unreadable — is no part of
    the sample or its budget: a 50 MB note would otherwise stand for most of the budget
    and leave the ordinary notes unread."""
    index = index.snapshot()
    records = list(index.notes.values())
    # Records are immutable: their parses (aliases) are decoded as they are read.
    sizes = {
        record.path: record.stamp.size
        for record in records
        if record.stamp.size <= MAX_NOTE_BYTES  # listed by the index, never read
    }
    # The others were parsed when indexed, unless a warning says why not (binary,
    # unreadable): only those are read now to tell.
    for record in records:
        if cancelled():
            return [], 0, 0
        if record.warnings and record.path in sizes and read_text(record.path) is None:
            del sizes[record.path]
    titles = [record.title for record in records]
    titles += [alias for record in records for alias in record.aliases]
    rels = pick_sample(sizes)
    texts = ((rel, read_text(rel)) for rel in rels)
    found = suggest_concepts(
        texts, concepts, titles, limit=limit, min_notes=min_notes, cancelled=cancelled
    )
    return found, len(rels), len(sizes)
