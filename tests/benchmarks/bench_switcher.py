"""The quick-switcher benchmark: milliseconds per keystroke at 50,000 candidates.

Run: ``python tests/benchmarks/bench_switcher.py`` (about ten seconds; ``--help`` for options).

Candidates: the note titles of ``../shared/vaults/interconnected-10k`` (read from the file
names, no index needed), then generated names up to ``--candidates``: multi-word note
titles and dated diary entries from the titles' words plus a small technical vocabulary,
aliases of existing notes, and slug-style concept ids with aliases (a few in Chinese).
Without the shared vault every name is generated. The seed is fixed, so runs compare.

Each target name is typed letter by letter, once as written and once with two neighbouring
letters swapped in its middle (a typo); every keystroke is one ``SwitcherIndex.query``.
The table gives median, p95 and max milliseconds per keystroke against DESIGN §8's 10 ms,
and how often the target was in the 20 rows shown after the last keystroke.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.index.resolver import CONCEPT_PREFIX  # noqa: E402
from librarian_gui.core.search.switcher import Candidate, SwitcherIndex  # noqa: E402

DEFAULT_VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
TARGET_MS = 10.0  # DESIGN §8: quick switcher, 50,000 candidates
TECH_WORDS = tuple(
    " ".join(
        (
            "agent memory context window prompt injection retrieval embedding vector index",
            "graph backlink concept dictionary tagger timeline diary project decision research",
            "meeting review design model cache worker thread queue parser scanner linker",
            "watcher search switcher layout render preview security privacy budget token",
            "evaluation benchmark planning roadmap incident postmortem release deploy pipeline",
        )
    ).split(" ")
)
CATEGORIES = ("security", "memory", "tools", "people", "projects", "methods")
CJK_WORDS = ("提示注入", "长期记忆", "知识图谱", "检索增强", "上下文窗口", "智能体")
CJK_CHARS = "攻击防御方法模型系统数据工具评估风险安全设计研究实验日志总结计划"


def build_candidates(vault: Path | None, total: int, rnd: random.Random) -> list[Candidate]:
    titles = sorted(p.stem for p in vault.rglob("*.md")) if vault else []
    words = sorted({w.lower() for t in titles for w in t.split()} | set(TECH_WORDS))
    cands = [Candidate(t, "note", f"{t}.md", f"{t}.md") for t in titles]
    seen = {c.label.lower() for c in cands}

    def fresh(make: Callable[[], str]) -> str:
        for _ in range(1000):
            name = make()
            if name.lower() not in seen:
                seen.add(name.lower())
                return name
        raise RuntimeError("the generator ran out of new names: give it more words")

    def phrase(lo: int, hi: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(rnd.randint(lo, hi)))

    notes_wanted = int(total * 0.7)
    while len(cands) < notes_wanted:
        if rnd.random() < 0.15:
            day = f"{rnd.randint(2019, 2025)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
            name = fresh(lambda: f"{day} {phrase(1, 2)}")  # noqa: B023 (called at once)
            rel = f"diary/{name}.md"
        else:
            name = fresh(lambda: phrase(2, 5).capitalize())
            rel = f"notes/{name}.md"
        cands.append(Candidate(name, "note", rel, rel))
    note_rows = list(cands)
    aliases_wanted = int(total * 0.85)
    while len(cands) < aliases_wanted:
        note = rnd.choice(note_rows)
        cands.append(Candidate(fresh(lambda: phrase(1, 3)), "alias", note.node, note.node))
    while len(cands) < total:
        if rnd.random() < 0.01:
            slug = fresh(lambda: rnd.choice(CJK_WORDS) + "".join(rnd.sample(CJK_CHARS, 2)))
        else:
            slug = fresh(lambda: "-".join(rnd.choice(words) for _ in range(rnd.randint(1, 3))))
        node, category = CONCEPT_PREFIX + slug, rnd.choice(CATEGORIES)
        cands.append(Candidate(slug, "concept", node, category))
        if rnd.random() < 0.5 and len(cands) < total:
            cands.append(Candidate(fresh(lambda: phrase(1, 2)), "alias", node, category))
    return cands


def with_typo(name: str, rnd: random.Random) -> str:
    """Two neighbouring letters swapped somewhere after the second letter."""
    spots = [i for i in range(2, len(name) - 1) if name[i].isalpha() and name[i + 1].isalpha()]
    if not spots:
        return name
    i = rnd.choice(spots)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def type_out(index: SwitcherIndex, text: str, node: str) -> tuple[list[float], bool]:
    times = []
    rows: list[tuple[Candidate, float]] = []
    for end in range(1, len(text) + 1):
        start = time.perf_counter()
        rows = index.query(text[:end])
        times.append((time.perf_counter() - start) * 1000)
    return times, any(c.node == node for c, _ in rows)


def summary(name: str, times: list[float], found: int, typed: int) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    verdict = "ok" if p95 <= TARGET_MS else "**over**"
    return (
        f"| {name} | {len(times)} | {statistics.median(times):.2f} | {p95:.2f} | "
        f"{max(times):.2f} | {found}/{typed} | {verdict} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--candidates", type=int, default=50_000)
    parser.add_argument("--targets", type=int, default=40, help="names typed per scenario")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rnd = random.Random(args.seed)
    vault = args.vault if args.vault.is_dir() else None

    start = time.perf_counter()
    cands = build_candidates(vault, args.candidates, rnd)
    generated_s = time.perf_counter() - start
    start = time.perf_counter()
    index = SwitcherIndex(cands)
    built_s = time.perf_counter() - start

    targets = rnd.sample(cands, args.targets)
    cjk = [c for c in cands if any("\u4e00" <= ch <= "\u9fff" for ch in c.label)]
    scenarios: list[tuple[str, list[tuple[str, str]]]] = [
        ("typed as written", [(c.label, c.node) for c in targets]),
        ("with a swapped pair", [(with_typo(c.label, rnd), c.node) for c in targets]),
        (
            "lowercase, no punctuation",
            [(c.label.lower().replace("-", " "), c.node) for c in targets],
        ),
    ]
    if cjk:
        scenarios.append(("Chinese names", [(c.label, c.node) for c in cjk[: args.targets]]))
    index.query("warm")  # first-call costs (imports, caches) are not a keystroke

    print(f"# Quick switcher, {len(index):,} candidates\n")
    source = f"titles of {vault.name} + generated" if vault else "all generated"
    print(f"- candidates: {source} (seed {args.seed}); generated in {generated_s:.2f} s")
    print(f"- index built in {built_s:.2f} s")
    print(f"- Python {platform.python_version()} on {platform.machine()}, target {TARGET_MS} ms\n")
    print("| keystrokes | n | median ms | p95 ms | max ms | target in top 20 | vs 10 ms |")
    print("|---|---|---|---|---|---|---|")
    every: list[float] = []
    for name, typed in scenarios:
        times: list[float] = []
        found = 0
        for text, node in typed:
            t, hit = type_out(index, text, node)
            times += t
            found += hit
        every += times
        print(summary(name, times, found, len(typed)))
    print(summary("all", every, 0, 0).replace("| 0/0 |", "| |"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
