"""The auto-tagger benchmark: a dry run of 1,000 concepts × 5 aliases over interconnected-10k.

Run: ``python tests/benchmarks/bench_tagger.py`` (about three minutes; ``--help`` for options).

The dictionary is drawn from the corpus itself so that it really matches: the most frequent
phrases of one to three words (counted over every tenth note, link text left out) that
neither start nor end with a function word and whose words have at least three letters,
5,000 of them, dealt out five per concept. A dry run reads every note and plans its links
(first mention per note, then every mention), without writing anything: in bulk
(``core/tagging/batch.py``: numpy over notes joined into pieces of 0.5 MB, on two threads),
checked against the note-by-note ``find_occurrences`` on the sample notes.

Side by side, the naive approach — one compiled regular expression per alias, each run over
every note — finds the same alias matches (asserted: the same set of note, start, end and
concept as the Aho–Corasick pass, boundaries and case rules included). It costs minutes over
the whole vault, so by default it runs on the first ``--naive-notes`` notes (both approaches
on that same input), and the table gives the ratio there.
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.concepts.dictionary import (  # noqa: E402
    Concept,
    bounded_ends,
    fold,
    is_case_sensitive,
)
from librarian_gui.core.tagging.matching import AliasMatcher, find_occurrences  # noqa: E402
from librarian_gui.core.tagging.run import batch_matcher, plan_tagging  # noqa: E402
from librarian_gui.core.text.analyzer import SPACED_WORD_CHAR  # noqa: E402

DEFAULT_VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
TARGET_S = 3.0  # DESIGN §8
_FUNCTION_WORDS = (
    "the of and to a in that it is was i he for you with as his had be on at by not this "
    "but have from they she which her or all we an were my one so said there their are "
    "would me what if been no when who will more them out up into do has could some than "
    "then its only other any may about our these most can very upon your such time made "
    "should did must now over also"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split(" "))
_LINK = re.compile(r"\[\[[^\]]*\]\]")


def frequent_phrases(root: Path, rels: list[str], count: int) -> list[str]:
    counter: Counter[str] = Counter()
    for rel in rels[::10]:
        text = _LINK.sub(" ", (root / rel).read_text(encoding="utf-8", errors="replace"))
        words = re.findall(r"[a-z]+", text.lower())
        for n in (1, 2, 3):
            for i in range(len(words) - n + 1):
                gram = words[i : i + n]
                if gram[0] in FUNCTION_WORDS or gram[-1] in FUNCTION_WORDS:
                    continue
                if any(len(w) < 3 for w in gram):
                    continue
                counter[" ".join(gram)] += 1
    return [phrase for phrase, _ in counter.most_common(count)]


def naive_patterns(concepts: list[Concept]) -> list[tuple[re.Pattern[str], str]]:
    """One compiled regex per alias, the boundary and case rules written into it."""
    patterns = []
    for concept in concepts:
        for alias in concept.aliases:
            start, end = bounded_ends(alias)
            body = re.escape(alias)
            body = (f"(?<!{SPACED_WORD_CHAR})" if start else "") + body
            body += f"(?!{SPACED_WORD_CHAR})" if end else ""
            flags = 0 if is_case_sensitive(alias) else re.IGNORECASE
            # A lookahead finds overlapping matches too, as the automaton does.
            patterns.append((re.compile(f"(?=({body}))", flags), concept.id))
    return patterns


def naive_matches(
    root: Path, rels: list[str], patterns: list[tuple[re.Pattern[str], str]]
) -> set[tuple[str, int, int, str]]:
    found: set[tuple[str, int, int, str]] = set()
    for rel in rels:
        text = (root / rel).read_text(encoding="utf-8").lstrip("\ufeff")
        for pattern, concept in patterns:
            for m in pattern.finditer(text):
                found.add((rel, m.start(1), m.end(1), concept))
    return found


def automaton_matches(
    root: Path, rels: list[str], matcher: AliasMatcher
) -> set[tuple[str, int, int, str]]:
    found = set()
    for rel in rels:
        text = (root / rel).read_text(encoding="utf-8").lstrip("\ufeff")
        for start, end, concept in matcher.candidates(text, fold(text)):
            found.add((rel, start, end, concept))
    return found


def phrase_dictionary(
    root: Path, rels: list[str], count: int, aliases: int, categories: int = 8
) -> list[Concept]:
    """``count`` concepts of ``aliases`` phrases each, the corpus's most frequent, dealt out
    in order (the dictionary the concept benchmarks share), in ``categories`` categories."""
    phrases = frequent_phrases(root, rels, count * aliases)
    return [
        Concept(
            f"concept-{i:04d}",
            tuple(phrases[i * aliases : (i + 1) * aliases]),
            f"c{i % categories}",
        )
        for i in range(count)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--concepts", type=int, default=1000)
    parser.add_argument("--aliases", type=int, default=5, help="aliases per concept")
    parser.add_argument("--naive-notes", type=int, default=40, help="0: every note")
    parser.add_argument("--repeat", type=int, default=5, help="dry runs per mode (median shown)")
    args = parser.parse_args()
    root = args.vault.resolve()
    if not root.is_dir():
        print(f"no vault at {root}", file=sys.stderr)
        return 2
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    phrases = frequent_phrases(root, rels, args.concepts * args.aliases)
    concepts = [
        Concept(f"concept-{i:04d}", tuple(phrases[i * args.aliases : (i + 1) * args.aliases]), "x")
        for i in range(args.concepts)
    ]
    rows = []

    t = time.perf_counter()
    batch = batch_matcher(concepts)  # the bulk planner's hash tables (and numpy's import)
    matcher = batch.matcher
    build = time.perf_counter() - t
    runs: dict[bool, list[float]] = {False: [], True: []}
    plans = {}
    for _ in range(args.repeat):  # the modes alternate, so neither always goes first
        for every in (False, True):
            t = time.perf_counter()
            plan = plan_tagging(root, rels, batch, all_mentions=every)
            plan.counts()  # what the preview shows first: mentions per concept
            runs[every].append(time.perf_counter() - t)
            plans[every] = plan
            del plan
    for label, every in (("dry run, first mention", False), ("dry run, all mentions", True)):
        plan = plans[every]
        rows.append((label, len(rels), runs[every], plan.total, len(plan.notes)))

    sample = rels if args.naive_notes == 0 else rels[: args.naive_notes]
    t = time.perf_counter()
    fast = automaton_matches(root, sample, matcher)
    fast_s = time.perf_counter() - t
    t = time.perf_counter()
    patterns = naive_patterns(concepts)
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    slow = naive_matches(root, sample, patterns)
    slow_s = time.perf_counter() - t
    assert fast == slow, (len(fast - slow), len(slow - fast))
    # The dry run plans in bulk (tagger_batch); on the same notes it must choose exactly
    # what the note-by-note tagger chooses.
    for every in (False, True):
        bulk = plan_tagging(root, sample, batch, all_mentions=every)
        planned = {n.rel: [(o.start, o.end, o.concept) for o in n.occurrences] for n in bulk.notes}
        for rel in sample:
            text = (root / rel).read_text(encoding="utf-8").lstrip("\ufeff")
            one = find_occurrences(text, matcher, all_mentions=every, source=rel)
            assert planned.get(rel, []) == [(o.start, o.end, o.concept) for o in one], rel

    print(f"# tagger benchmark — {platform.python_version()}, {root.name}, {len(rels)} notes")
    print(f"dictionary: {args.concepts} concepts × {args.aliases} aliases (most frequent phrases)")
    print(f"automaton and hash tables built in {build:.2f} s (once per dictionary)\n")
    print("| step | notes | seconds: median (range) | mentions to link | notes changed | target |")
    print("|---|---:|---:|---:|---:|---|")
    for label, notes, times, mentions, changed in rows:
        seconds = statistics.median(times)
        target = f"≤ {TARGET_S:.0f} s: {'met' if seconds <= TARGET_S else 'missed'}"
        spread = f"{seconds:.2f} ({min(times):.2f}–{max(times):.2f})"
        print(f"| {label} | {notes} | {spread} | {mentions:,} | {changed:,} | {target} |")
    print()
    print("| alias matching on the same notes | notes | matches | seconds |")
    print("|---|---:|---:|---:|")
    print(f"| Aho–Corasick (one pass per note) | {len(sample)} | {len(fast):,} | {fast_s:.2f} |")
    print(f"| one regex per alias (naive) | {len(sample)} | {len(slow):,} | {slow_s:.2f} |")
    print(f"\nsame matches: yes; naive / Aho–Corasick = {slow_s / fast_s:.0f}×")
    print(f"bulk plan = note-by-note plan on those {len(sample)} notes (both modes): yes")
    print(f"(compiling the {len(patterns):,} regexes took {compile_s:.1f} s more, not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
