"""The concept dictionary's linter: aliases that conflict, repeat, are too common or too short."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from ..text.analyzer import NO_SPACES
from ..text.stopwords import STOP_WORDS_BY_LANGUAGE
from .dictionary import (
    Concept,
    LintIssue,
    Severity,
    bounded_ends,
    fold,
    is_case_sensitive,
    is_slug,
    slugify,
)

SHORT_LENGTH = 3  # a case-insensitive alias in a spaced script needs at least this many
NEAR_SCORE = 90  # rapidfuzz ``fuzz.ratio`` from which two strings are near-duplicates
NEAR_MIN_LENGTH = 4  # shorter strings are too close to each other to compare usefully

_NO_SPACES_ONLY = re.compile(f"[{NO_SPACES}]+")
_NO_SPACES_CHAR = re.compile(f"[{NO_SPACES}]")
_NUMBER = re.compile(r"\d+")
_SEVERITY_RANK: dict[Severity, int] = {"error": 0, "warning": 1}
_UNUSED = "No note links or mentions it; add an alias your notes use, or remove it."


_ANY_STOP_WORD = frozenset().union(*(words for _, words in STOP_WORDS_BY_LANGUAGE))


def lint_concepts(
    concepts: Sequence[Concept],
    *,
    linked: Mapping[str, int] | None = None,
    mentioned: Mapping[str, int] | None = None,
) -> list[LintIssue]:
    """Everything worth fixing in a dictionary, by concept in the given order; within a
    concept errors first, then by code, then by alias.

    ``linked`` and ``mentioned`` map a concept id to the number of notes that link it and
    that mention one of its aliases without a link; given both, unused concepts are
    reported too. Codes (each issue's ``alias`` is the alias as written, None when the
    issue is about the concept or its id):

    - ``empty-alias`` (error): an alias that is empty or only whitespace;
    - ``conflict`` (error): an alias that matches the same text as another concept's
      alias (reported on both concepts);
    - ``duplicate-alias``: an alias listed twice in one concept, as the matcher sees it;
    - ``stop-word``: an alias made of very common English, German, French or Spanish words;
    - ``short``: an alias too short to be safe;
    - ``inside-words``: an alias that can match inside longer words;
    - ``slug``: an id that is not a lowercase slug;
    - ``no-aliases``: a concept that can never be tagged;
    - ``unused``: a concept no note links or mentions;
    - ``near-duplicate``: two concepts with nearly the same alias or id (on both).
    """
    found: list[tuple[int, LintIssue]] = []
    for index, concept in enumerate(concepts):
        found.extend((index, issue) for issue in _concept_issues(concept))
        if (
            linked is not None
            and mentioned is not None
            and not linked.get(concept.id, 0)
            and not mentioned.get(concept.id, 0)
        ):
            found.append((index, _issue(concept, "warning", "unused", _UNUSED)))
    found.extend(_conflicts(concepts))
    found.extend(_near_duplicates(concepts))
    found.sort(key=_in_order)
    return [issue for _, issue in found]


def lint_errors(concepts: Sequence[Concept]) -> list[LintIssue]:
    """The errors ``lint_concepts`` finds (``empty-alias``, ``conflict``), in its order,
    without the work its warnings take: what decides whether a tagging run may use the
    dictionary. At 90,000 concepts the whole lint took 6.8 s, its errors 0.7 s."""
    found = [
        (index, _empty_alias(concept, number, alias))
        for index, concept in enumerate(concepts)
        for number, alias in enumerate(concept.aliases, 1)
        if not alias.strip()
    ]
    found.extend(_conflicts(concepts))
    found.sort(key=_in_order)
    return [issue for _, issue in found]


def _in_order(item: tuple[int, LintIssue]) -> tuple[int, int, str, str, str]:
    """By concept, then errors first, then by code, alias and message."""
    index, issue = item
    return index, _SEVERITY_RANK[issue.severity], issue.code, issue.alias or "", issue.message


def _empty_alias(concept: Concept, number: int, alias: str) -> LintIssue:
    return _issue(concept, "error", "empty-alias", f"Alias {number} is empty; remove it.", alias)


def _issue(
    concept: Concept, severity: Severity, code: str, message: str, alias: str | None = None
) -> LintIssue:
    return LintIssue(concept.id, severity, code, message, alias)


def _overlap(a: str, b: str) -> bool:
    """Whether two stripped aliases match some text in common: equal ignoring case,
    unless both match only as written ("AI" and "ai" overlap, "AI" and "Ai" too)."""
    if fold(a) != fold(b):
        return False
    return a == b or not (is_case_sensitive(a) and is_case_sensitive(b))


def _concept_issues(concept: Concept) -> Iterator[LintIssue]:
    if not is_slug(concept.id):
        yield _issue(concept, "warning", "slug", _slug_message(concept.id))
    if not concept.aliases:
        yield _issue(
            concept,
            "warning",
            "no-aliases",
            "It has no aliases, so no note can be tagged with it; add at least one.",
        )
    seen: list[str] = []
    for number, alias in enumerate(concept.aliases, 1):
        text = alias.strip()
        if not text:
            yield _empty_alias(concept, number, alias)
            continue
        earlier = next((e for e in seen if _overlap(e, text)), None)
        if earlier is not None:
            also = "" if earlier == text else f' (also as "{earlier}")'
            yield _issue(
                concept,
                "warning",
                "duplicate-alias",
                f'"{text}" is listed twice{also}; remove one.',
                alias,
            )
            continue  # its other warnings are the earlier spelling's
        seen.append(text)
        for code, message in _alias_problems(text):
            yield _issue(concept, "warning", code, message, alias)


def _slug_message(concept_id: str) -> str:
    suggestion = slugify(concept_id)
    rename = (
        f'rename it to "{suggestion}"'
        if is_slug(suggestion)
        else "rename it to lowercase words joined by hyphens"
    )
    return f'The id "{concept_id}" is not a slug (lowercase words joined by hyphens); {rename}.'


def _alias_problems(text: str) -> Iterator[tuple[str, str]]:
    """(code, message) of each warning about one stripped, non-empty alias."""
    case_sensitive = is_case_sensitive(text)
    if not case_sensitive:
        words = fold(text).split()
        # Most aliases hold a word of no list: one set lookup tells.
        languages = (
            [name for name, stop in STOP_WORDS_BY_LANGUAGE if stop.issuperset(words)]
            if _ANY_STOP_WORD.issuperset(words)
            else []
        )
        if languages:
            what = "a very common word" if len(words) == 1 else "made only of very common words"
            yield (
                "stop-word",
                f'"{text}" is {what} in {_and(languages)}; it would tag nearly every note '
                "written in it. Use a longer phrase.",
            )
    no_spaces = _NO_SPACES_ONLY.fullmatch(text) is not None
    # Capitals ("AI") and Chinese or Japanese characters narrow what an alias matches
    # enough that two are safe; a single character never is.
    shortest = 2 if no_spaces or case_sensitive else SHORT_LENGTH
    if len(text) < shortest:
        capitals = text.upper()
        hint = (
            f', or write an abbreviation in capitals ("{capitals}") so it matches only as written'
            if len(text) > 1 and is_case_sensitive(capitals)
            else ""
        )
        yield (
            "short",
            f'"{text}" has only {len(text)} character{"s" if len(text) > 1 else ""}; it would '
            f"tag unrelated text. Use a longer alias{hint}.",
        )
    inside = _inside_words(text)
    if inside:
        yield "inside-words", inside


def _inside_words(text: str) -> str:
    """Why the alias can match inside longer words, or "" when it cannot."""
    bounded = bounded_ends(text)
    if bounded == (True, True):
        return ""  # letters or digits of a spaced script at both ends: the usual alias
    ends = [
        (name, char)
        for name, char, bounded in zip(("start", "end"), (text[0], text[-1]), bounded, strict=True)
        # A Chinese or Japanese word of two characters or more is specific enough to be
        # found anywhere; a single character is part of too many other words.
        if not bounded and (_NO_SPACES_CHAR.match(char) is None or len(text) <= 1)
    ]
    if not ends:
        return ""
    if all(_NO_SPACES_CHAR.match(char) for _, char in ends):
        return (
            f'"{text}" can match inside longer words: Chinese, Japanese and other scripts '
            "without spaces are matched anywhere, and one character is part of many words. "
            "Use a longer term."
        )
    where = "start and end" if len(ends) == 2 else ends[0][0]
    marks = _and([f'"{char}"' for _, char in ends])
    return (
        f'"{text}" can match inside longer words: its {where} ({marks}) needs no word '
        "boundary, so a letter may touch it. Use a longer alias if it tags unrelated text."
    )


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _conflicts(concepts: Sequence[Concept]) -> list[tuple[int, LintIssue]]:
    """A conflict issue per alias and other concept with an alias that overlaps it."""
    claims: defaultdict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for index, concept in enumerate(concepts):
        for alias in concept.aliases:
            text = alias.strip()
            if text:
                claims[fold(text)].append((index, alias, text))
    reported: set[tuple[int, str, int]] = set()
    found: list[tuple[int, LintIssue]] = []
    for claimants in claims.values():
        if len(claimants) < 2:
            continue  # the usual alias: no other claims its text
        for a, (ia, alias_a, text_a) in enumerate(claimants):
            for ib, alias_b, text_b in claimants[a + 1 :]:
                if ia == ib or not _overlap(text_a, text_b):
                    continue
                for i, alias, text, j, other in (
                    (ia, alias_a, text_a, ib, text_b),
                    (ib, alias_b, text_b, ia, text_a),
                ):
                    if (i, alias, j) in reported:
                        continue
                    reported.add((i, alias, j))
                    owner = f'"{concepts[j].id}"'
                    clash = (
                        f'"{text}" is also an alias of {owner}'
                        if other == text
                        else f'"{text}" matches the same text as "{other}" of {owner}'
                    )
                    message = f"{clash}; a mention would tag both. Keep it in one concept."
                    found.append((i, _issue(concepts[i], "error", "conflict", message, alias)))
    return found


_new_tuple = tuple.__new__


class _Name(NamedTuple):
    """A concept's alias or id as near-duplicates are compared."""

    concept: int
    rank: int  # its place among the concept's aliases; the id comes after them
    text: str  # as written (stripped)
    alias: str | None  # the alias as written, None for the id


def _near_duplicates(concepts: Sequence[Concept]) -> list[tuple[int, LintIssue]]:
    """One near-duplicate issue on each side of every pair of concepts with close names,
    naming the closest two (aliases before ids). An id equal to another concept's alias
    or id counts; equal aliases do not (they are conflicts)."""
    owners: defaultdict[str, list[_Name]] = defaultdict(list)
    for index, concept in enumerate(concepts):
        spelled: list[tuple[int, str, str | None]] = [
            (r, a.strip(), a) for r, a in enumerate(concept.aliases)
        ]
        spelled.append((len(concept.aliases), concept.id, None))
        for rank, text, alias in spelled:
            key = fold(text)
            if len(key) >= NEAR_MIN_LENGTH:
                # tuple.__new__: a third of the time of _Name(...), at 270,000 names.
                owners[key].append(_new_tuple(_Name, (index, rank, text, alias)))
    keys = list(owners)
    best: dict[tuple[int, int], tuple[tuple[float, int, int, int], _Name, _Name]] = {}

    def consider(a: _Name, b: _Name, score: float) -> None:
        if a.concept == b.concept:
            return
        if a.concept > b.concept:
            a, b = b, a
        pair = (a.concept, b.concept)
        rank = (-score, (a.alias is None) + (b.alias is None), a.rank, b.rank)
        if pair not in best or rank < best[pair][0]:
            best[pair] = (rank, a, b)

    for names in owners.values():
        if len(names) < 2:
            continue  # the usual name: no other has its key
        for x, a in enumerate(names):
            for b in names[x + 1 :]:
                if a.alias is None or b.alias is None:
                    consider(a, b, 100.0)
    # Names that differ only in a number are one class (a series): never compared.
    series: dict[str, int] = {}
    classes = [series.setdefault(_NUMBER.sub("0", key), len(series)) for key in keys]
    skipped: set[tuple[int, int]] = set()
    for i, j, score in _close_keys(keys, classes, skipped):
        # Names that differ only in a number ("python 3.11", "python 3.12"; "adr-0007",
        # "adr-0008") are a series, not a typo.
        if _NUMBER.sub("0", keys[i]) == _NUMBER.sub("0", keys[j]):
            continue
        for a in owners[keys[i]]:
            for b in owners[keys[j]]:
                consider(a, b, score)
    out = []
    for _, a, b in best.values():
        for own, other in ((a, b), (b, a)):
            concept = concepts[own.concept]
            this = f'"{own.text}"' if own.alias is not None else f'The id "{own.text}"'
            that = (
                f'"{other.text}" of "{concepts[other.concept].id}"'
                if other.alias is not None
                else f'the id of "{other.text}"'
            )
            same = "" if fold(own.text) == fold(other.text) else "nearly "
            message = (
                f"{this} is {same}the same as {that}; merge the two concepts or tell their "
                "names apart."
            )
            out.append(
                (own.concept, _issue(concept, "warning", "near-duplicate", message, own.alias))
            )
    out.extend(_series_not_compared(keys, classes, skipped))
    return out


def _series_not_compared(
    keys: list[str], classes: list[int], skipped: set[tuple[int, int]]
) -> list[tuple[int, LintIssue]]:
    """One issue about the whole dictionary for each two big series of names too alike to
    be compared pair by pair (see core/close_pairs): what was not looked for is said."""
    if not skipped:
        return []
    first: dict[int, str] = {}
    size: Counter[int] = Counter(classes)
    for key, number in zip(keys, classes, strict=True):
        first.setdefault(number, key)
    out = []
    for a, b in sorted(skipped, key=lambda pair: (first[pair[0]], first[pair[1]])):
        message = (
            f'Near-duplicates between the {size[a]:,} names like "{first[a]}" and the '
            f'{size[b]:,} names like "{first[b]}" were not looked for: too many pairs to '
            "compare. Names that differ only in a number are never near-duplicates."
        )
        out.append((-1, LintIssue(None, "warning", "near-duplicates-skipped", message)))
    return out


def _close_keys(
    keys: list[str], classes: list[int], skipped: set[tuple[int, int]]
) -> Iterator[tuple[int, int, float]]:
    """Pairs (i, j) of different keys whose ``fuzz.ratio`` is at least NEAR_SCORE, each
    once, with the ratio (see core/close_pairs: it compares far fewer than all pairs)."""
    if len(keys) < 2:
        return  # nothing to compare: and numpy and rapidfuzz need not load (0.25 s)
    # Imported here, not with the module: the GUI and the CLI import core at start-up.
    from .close_pairs import close_pairs

    yield from close_pairs(keys, NEAR_SCORE, classes, skipped)
