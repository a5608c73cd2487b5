"""Near-duplicate passages (issue 32 item 3), measured on copies of vaults nobody here wrote.

Run: ``python tests/benchmarks/bench_duplicates.py [--vaults DIR] [--per-rate 40]`` (about a
minute). Asserts nothing; prints tables.

Into the notes of ``foam-docs`` and ``logseq-docs`` (in memory; the vaults are only read) it
injects, with a fixed seed:

- **near-duplicates**: ``--per-rate`` paragraphs (15 content words or more, each copied
  once) copied from a note to the end of another, each with a share of its words edited —
  0 %, 5 %, 10 % and 20 %, a third of the edits dropping a word, a third changing it for a
  word of another note, a third moving it elsewhere in the paragraph. Words are what the
  edits touch: each line keeps its list marker (its indentation goes: indented at the end of
  another note it would be a code block), and a token that is markup
  (a backtick, a heading's or a tag's #, a link's bracket, a property's "::", no letter at
  all) stays where it was — edits that scramble Markdown would make a code block or a
  heading of the copy, which is not what a person or an agent editing a copy does;
- **boilerplate**: the same 3–8 lines (a review block, its length drawn once) added to the
  end of 30 % of the notes.

Then ``find_duplicates`` (what ``librarian duplicates`` prints) and a plain baseline — two
notes holding the same line (exact, after trimming, 20 characters or more) are a pair — are
scored in the same run: **recall**, the share of injected pairs found (a pair of the same
two notes whose line ranges overlap the copied paragraph's, both ends); **precision**, the
share of reported pairs that are injected ones, every pair the untouched vault already gives
left out (neither right nor wrong) and every pair involving the boilerplate counted wrong.
Targets: recall ≥ 0.9 up to 20 % of words changed, precision ≥ 0.9. Then the time of
``librarian duplicates`` on interconnected-10k in a fresh process (target ≤ 5 s).
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.review.duplicates import find_duplicates, passages_of  # noqa: E402

VAULTS = REPO.parent / "shared" / "vaults"
RATES = (0.0, 0.05, 0.10, 0.20)
BOILERPLATE_SHARE = 0.3
REVIEW_LINES = [
    "Reviewed by the weekly memory pass; keep this note unless superseded.",
    "Status: current. Owner: the research agent. Sources checked against upstream docs.",
    "Questions about this page go to the maintainers channel before any edit.",
    "Related work is tracked in the project board under documentation cleanup tasks.",
    "Formatting follows the house style guide for headings, lists and code samples.",
    "Links were verified automatically during the nightly consistency check run.",
    "Translations pending for German, French and Japanese readers of this material.",
    "Last audit found no outdated screenshots, commands or configuration examples here.",
]
Pair = tuple[str, str, tuple[int, int], tuple[int, int]]


def _edit(words: list[str], rate: float, pool: list[str], rng: random.Random) -> list[str]:
    edits = round(len(words) * rate)
    out = list(words)
    for k in range(edits):
        kind = k % 3
        if kind == 0 and len(out) > 1:
            del out[rng.randrange(len(out))]
        elif kind == 1:
            out[rng.randrange(len(out))] = rng.choice(pool)
        else:
            word = out.pop(rng.randrange(len(out)))
            out.insert(rng.randrange(len(out) + 1), word)
    return out


_PREFIX = re.compile(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+)?")


def _is_word(token: str) -> bool:
    return (
        any(ch.isalpha() for ch in token)
        and not any(ch in token for ch in "`#[]{}()|<>")
        and (not token.endswith("::"))
    )


def _edit_words(lines: list[str], rate: float, pool: list[str], rng: random.Random) -> str:
    """``lines`` with ``rate`` of their words edited (see the module's docstring): each
    line's prefix and markup tokens kept in place, the words edited as one sequence and put
    back into the word slots, line by line (a slot left over stays empty)."""
    prefixes, rows = [], []
    for line in lines:
        prefix = _PREFIX.match(line)
        head = prefix.group() if prefix else ""
        line, head = line[len(head) :], head.lstrip()  # indentation off: no code block
        prefixes.append(head)
        rows.append(line.split())
    slots = [(n, k) for n, row in enumerate(rows) for k, token in enumerate(row) if _is_word(token)]
    edited = _edit([rows[n][k] for n, k in slots], rate, pool, rng)
    for (n, k), word in zip(slots, edited + [""] * (len(slots) - len(edited)), strict=False):
        rows[n][k] = word
    # an edit that adds no word is a move; more words than slots go on the last one
    if len(edited) > len(slots) and slots:
        n, k = slots[-1]
        rows[n][k] = " ".join([rows[n][k], *edited[len(slots) :]])
    out = [
        (head + " ".join(t for t in row if t)).rstrip()
        for head, row in zip(prefixes, rows, strict=True)
    ]
    return "\n".join(line for line in out if line.strip())


def inject(
    notes: dict[str, str], per_rate: int, seed: int
) -> tuple[dict[str, str], list[tuple[Pair, float]], set[str]]:
    """The notes with injections, each injected pair with its edit rate, and the notes
    given the boilerplate."""
    rng = random.Random(seed)
    out = dict(notes)
    sources = [(rel, p) for rel, text in sorted(notes.items()) for p in passages_of(rel, text, 15)]
    pool = [w for text in notes.values() for w in text.split() if w.isalpha()]
    injected: list[tuple[Pair, float]] = []
    rels = sorted(notes)
    # each copy of another paragraph: copies of one paragraph in several notes would make it
    # text many notes hold (boilerplate) by the injection itself
    chosen = iter(rng.sample(sources, per_rate * len(RATES)))
    for rate in RATES:
        for _ in range(per_rate):
            rel, passage = next(chosen)
            target = rng.choice([r for r in rels if r != rel])
            lines = notes[rel].split("\n")[passage.first - 1 : passage.last]
            copied = _edit_words(lines, rate, pool, rng)
            text = out[target].rstrip("\n")
            first = text.count("\n") + 3  # after a blank line
            last = first + copied.count("\n")
            out[target] = f"{text}\n\n{copied}\n"
            injected.append(((rel, target, (passage.first, passage.last), (first, last)), rate))
    block = "\n".join(REVIEW_LINES[: rng.randint(3, 8)])
    boiled = set(rng.sample(rels, round(len(rels) * BOILERPLATE_SHARE)))
    for rel in sorted(boiled):
        out[rel] = f"{out[rel].rstrip(chr(10))}\n\n{block}\n"
    return out, injected, boiled


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _matches(found: Pair, truth: Pair) -> bool:
    a, b, a_lines, b_lines = found
    ta, tb, ta_lines, tb_lines = truth
    if (a, b) == (ta, tb):
        return _overlap(a_lines, ta_lines) and _overlap(b_lines, tb_lines)
    if (a, b) == (tb, ta):
        return _overlap(a_lines, tb_lines) and _overlap(b_lines, ta_lines)
    return False


def ours(notes: dict[str, str]) -> list[Pair]:
    found = find_duplicates(sorted(notes.items()))
    return [(p.a.note, p.b.note, (p.a.first, p.a.last), (p.b.first, p.b.last)) for p in found.pairs]


def baseline(notes: dict[str, str]) -> list[Pair]:
    """Two notes holding the same line (trimmed, 20 characters or more), once per line."""
    where: dict[str, list[tuple[str, int]]] = {}
    for rel, text in sorted(notes.items()):
        seen = set()
        for number, line in enumerate(text.split("\n"), 1):
            key = line.strip()
            if len(key) >= 20 and key not in seen:
                seen.add(key)
                where.setdefault(key, []).append((rel, number))
    out = []
    for places in where.values():
        for i, (a, la) in enumerate(places):
            for b, lb in places[i + 1 :]:
                out.append((a, b, (la, la), (lb, lb)))
    return out


def _holds(place: tuple[str, tuple[int, int]], note: str, lines: tuple[int, int]) -> bool:
    return place[0] == note and _overlap(place[1], lines)


def score(
    found: list[Pair],
    before: list[Pair],
    injected: list[tuple[Pair, float]],
    boiled: set[str],
    template: list[tuple[str, tuple[int, int]]],
) -> dict[str, Any]:
    """Recall per rate and precision (see the module's docstring). A pair between two
    copies of one paragraph, a copy and its source, or a copy and a paragraph the untouched
    vault holds nearly the same as its source, is right: both hold the same passage. A copy
    of a paragraph the untouched vault has in five notes or more (a template's table) is
    boilerplate itself: not counted for recall (``excluded``)."""
    known = {(a, b) for a, b, _, _ in before} | {(b, a) for a, b, _, _ in before}
    copies: dict[tuple[str, tuple[int, int]], list[tuple[str, tuple[int, int]]]] = {}
    for (src, dst, src_lines, dst_lines), _ in injected:
        places = copies.setdefault((src, src_lines), [(src, src_lines)])
        places.append((dst, dst_lines))
    # what the untouched vault holds nearly the same as a copied paragraph: the copy holds it too
    for (src, src_lines), places in copies.items():
        for a, b, a_lines, b_lines in before:
            if _holds((src, src_lines), a, a_lines):
                places.append((b, b_lines))
            elif _holds((src, src_lines), b, b_lines):
                places.append((a, a_lines))
    right = wrong = 0
    for a, b, a_lines, b_lines in found:
        same = any(
            any(_holds(p, a, a_lines) for p in places)
            and any(_holds(p, b, b_lines) for p in places)
            for places in copies.values()
        )
        if same:
            right += 1
        elif (a, b) in known and not (a in boiled and b in boiled):
            continue  # the untouched vault gives it too
        else:
            wrong += 1
    recall: dict[float, float] = {}
    excluded = 0
    for rate in RATES:
        truths = [t for t, r in injected if r == rate]
        kept = [t for t in truths if not any(_holds(p, t[0], t[2]) for p in template)]
        excluded += len(truths) - len(kept)
        hits = sum(any(_matches(p, t) for p in found) for t in kept)
        recall[rate] = hits / len(kept) if kept else 1.0
    precision = right / (right + wrong) if right + wrong else 1.0
    return {
        "recall": recall,
        "precision": precision,
        "reported": len(found),
        "wrong": wrong,
        "excluded": excluded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=VAULTS)
    parser.add_argument("--per-rate", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = []
    for name in ("foam-docs", "logseq-docs"):
        folder = args.vaults / name
        notes = {
            p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(folder.rglob("*.md"))
        }
        changed, injected, boiled = inject(notes, args.per_rate, args.seed)
        untouched = find_duplicates(sorted(notes.items()))
        template = [(p.note, (p.first, p.last)) for b in untouched.boilerplate for p in b.passages]
        start = time.perf_counter()
        found = ours(changed)
        seconds = time.perf_counter() - start
        mine = score(found, ours(notes), injected, boiled, template)
        rows.append((name, "ours", mine, seconds))
        start = time.perf_counter()
        found = baseline(changed)
        seconds = time.perf_counter() - start
        base = score(found, baseline(notes), injected, boiled, template)
        rows.append((name, "baseline: the same line", base, seconds))
    rates = " | ".join(f"recall, {r:.0%} of words edited" for r in RATES)
    print(f"| vault | method | {rates} | precision | pairs reported (wrong) | time |")
    print("|---|---|" + "---:|" * (len(RATES) + 3))
    for name, method, s, seconds in rows:
        cells = " | ".join(f"{s['recall'][r]:.2f}" for r in RATES)
        print(
            f"| {name} | {method} | {cells} | {s['precision']:.2f} | "
            f"{s['reported']:,} ({s['wrong']:,}) | {seconds:.2f} s |"
        )
    for name, _method, s, _ in rows[::2]:
        print(
            f"{name}: {s['excluded']} of {len(RATES) * args.per_rate} copies were of a "
            "paragraph the vault holds in five notes or more (boilerplate): not counted"
        )
    print("\ntargets: recall ≥ 0.9 up to 20 % of words edited, precision ≥ 0.9\n")
    vault = args.vaults / "interconnected-10k"
    if vault.is_dir():
        command = [sys.executable, "-m", "librarian_gui.cli", "duplicates", str(vault), "--json"]
        subprocess.run(command, check=True, capture_output=True, cwd=REPO)  # the index cached
        times = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=REPO)
            times.append(time.perf_counter() - start)
        print(
            f"librarian duplicates on interconnected-10k (10,000 notes), a fresh process, "
            f"index cache warm: {min(times):.2f} s best of 3, {max(times):.2f} s worst "
            "(target ≤ 5 s)"
        )


if __name__ == "__main__":
    main()
