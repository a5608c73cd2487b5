"""Co-occurrence and isolation at scale (issue 15, DESIGN §8): the 1,000-concept dictionary
of ``bench_tagger`` over interconnected-10k, after the tagger has linked it.

Run: ``python tests/benchmarks/bench_cooccurrence.py`` (about two minutes; ``--help``).

The vault is copied to a temporary folder and tagged there as ``librarian tag --apply``
would (first mention of each concept per note linked, through ``plan_tagging``; written
directly, without the journal, as only the result matters here). Then, with the index
scanned:

- **all pairs, warm**: ``pair_table`` (each concept's notes straight from the index's edges,
  under its lock, then every pair sharing a note, with count, Jaccard and lift, as one
  matrix product), in-process, the median of five, and ``found_in`` alone. Beside it, in
  the same run, the plain baseline: each pair's notes intersected, on the first 200
  concepts (it is quadratic), with ours on the same ones (the same pairs asserted).
- **whole processes, warm cache**: ``librarian isolated`` and ``librarian cooccur --all
  --json`` as the user runs them (start-up, cache load, answer), the median of three after
  one run that writes the cache; on the tagged copy, and on the vault as it is with the same
  dictionary (``--concepts``), where most concepts are isolated.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.concepts.dictionary import Concept, load_dictionary  # noqa: E402
from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.insight.cooccurrence import (  # noqa: E402
    all_pairs,
    counted_notes,
    found_in,
    pair_table,
)
from librarian_gui.core.tagging.run import plan_tagging  # noqa: E402
from tests.benchmarks.bench_tagger import phrase_dictionary  # noqa: E402

DEFAULT_VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
PAIRS_TARGET_S = 1.0
PROCESS_TARGET_S = 1.5


def _tag(root: Path, rels: list[str], concepts: list[Concept]) -> tuple[int, int]:
    plan = plan_tagging(root, rels, concepts)
    for note in plan.notes:
        path = root / note.rel
        path.write_bytes(note.new_text().encode("utf-8"))
    return len(plan.notes), plan.total


def _naive_pairs(found: dict[str, frozenset[str]], total: int) -> list[tuple[str, str, int]]:
    ids = list(found)
    out = []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            shared = len(found[a] & found[b])
            if shared:
                out.append((a, b, shared))
    return out


def _median(run: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _process(args: list[str], repeat: int, env: dict[str, str]) -> float:
    command = [
        sys.executable,
        "-c",
        "import sys; from librarian_gui.cli import main; sys.exit(main())",
        *args,
    ]
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=REPO)  # the cache
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env, cwd=REPO)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--concepts", type=int, default=1000)
    parser.add_argument("--aliases", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", type=int, default=200, help="concepts the baseline pairs")
    parser.add_argument(
        "--keep", type=Path, help="tag the copy into this folder once, and reuse it after"
    )
    args = parser.parse_args()
    source = args.vault.resolve()
    if not source.is_dir():
        print(f"no vault at {source}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-cooccur-") as scratch:
        root = (args.keep or Path(scratch)) / "vault"
        done = root / ".tagged.json"
        if done.is_file():
            rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
            changed, links, tagging = json.loads(done.read_text(encoding="utf-8"))
            concepts = load_dictionary(root / "concepts.json").concepts
        else:
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(source, root)
            rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
            concepts = tuple(phrase_dictionary(root, rels, args.concepts, args.aliases))
            t = time.perf_counter()
            changed, links = _tag(root, rels, list(concepts))
            tagging = time.perf_counter() - t
            data = {c.id: {"aliases": list(c.aliases), "category": c.category} for c in concepts}
            (root / "concepts.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
            done.write_text(json.dumps([changed, links, tagging]), encoding="utf-8")

        index = VaultIndex.scan(root, use_cache=False)
        rels = sorted(index.notes)

        def ours() -> object:
            return pair_table(index.snapshot())

        view = index.snapshot()
        found = found_in(view)
        total = counted_notes(view)
        pairs = all_pairs(found, total)
        table = pair_table(index)
        assert list(table.rows()) == list(pairs.rows()), "the two ways differ"
        warm = _median(ours, args.repeat)
        found_s = _median(lambda: found_in(index), args.repeat)
        # The baseline intersects every pair: quadratic, so on the first --baseline concepts,
        # with ours on the same ones (and the same pairs asserted).
        subset = {c: found[c] for c in list(found)[: args.baseline]}
        baseline = _naive_pairs(subset, total)
        assert sorted((p.a, p.b, p.count) for p in all_pairs(subset, total)) == sorted(baseline)
        naive = _median(lambda: _naive_pairs(subset, total), 1)
        ours_subset = _median(lambda: all_pairs(subset, total), args.repeat)
        linked = sum(1 for notes in found.values() if notes)

        env = dict(os.environ, XDG_CACHE_HOME=str(Path(scratch) / "cache"))
        isolated = _process(["isolated", str(root)], 3, env)
        cooccur = _process(["cooccur", str(root), "--all", "--json"], 3, env)
        # The same dictionary over the vault as it is, untagged: most concepts are then
        # isolated (their unlinked mentions counted, a tagger's dry run) and few pairs share.
        chosen = ["--concepts", str(root / "concepts.json")]
        isolated_as_is = _process(["isolated", str(source), *chosen], 3, env)
        cooccur_as_is = _process(["cooccur", str(source), "--all", "--json", *chosen], 3, env)

    rows = [
        ("all pairs (pair_table), warm", warm, PAIRS_TARGET_S),
        ("found_in (the notes of each, as sets)", found_s, None),
        (f"all pairs of the first {args.baseline} concepts", ours_subset, None),
        ("  baseline: each of their pairs intersected", naive, None),
        ("librarian isolated, whole process, warm cache", isolated, PROCESS_TARGET_S),
        ("librarian cooccur --all --json, whole process", cooccur, PROCESS_TARGET_S),
        ("isolated, the vault untagged", isolated_as_is, PROCESS_TARGET_S),
        ("cooccur --all --json, the vault untagged", cooccur_as_is, PROCESS_TARGET_S),
    ]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(
        f"vault: {source.name}, {len(rels):,} notes; tagged {links:,} mentions in "
        f"{changed:,} notes ({tagging:.1f} s)"
    )
    print(
        f"dictionary: {len(concepts):,} concepts × {args.aliases} aliases; {linked:,} found in "
        f"a note; {len(pairs):,} pairs share one"
    )
    print()
    print(f"| {'measure':<48} | {'time':>8} | {'target':>7} | ok |")
    print(f"|{'-' * 50}|{'-' * 10}|{'-' * 9}|----|")
    for name, value, target in rows:
        ok = "" if target is None else ("yes" if value <= target else "NO")
        shown = "" if target is None else f"≤ {target:.1f} s"
        print(f"| {name:<48} | {value:>6.2f} s | {shown:>7} | {ok:<2} |")
    print(f"\nbaseline / ours on {args.baseline} concepts: {naive / ours_subset:.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
