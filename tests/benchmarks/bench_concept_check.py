"""The ``librarian concepts check`` benchmark: a 90,000-concept dictionary over a few hundred
notes, step by step, and the whole command.

Run: ``python tests/benchmarks/bench_concept_check.py`` (about a minute; ``--help`` for
options; ``--keep DIR`` writes the vault there and keeps it).

The dictionary is generated with a fixed seed: ids and aliases are phrases of one to three
pseudo-words (syllables drawn as ``generate_vault`` draws them), every alias distinct, two
or three names per concept, a category each. The notes are prose of function words, the
same pseudo-words and, one word in twenty, an alias. Many pseudo-words are a letter or two
apart, so the near-duplicate search has tens of thousands of pairs to report.

Each step is timed on its own (medians of ``--repeat`` runs): reading the dictionary as the
index does and as the editor does, its structure issues, the index scan, the usage counts
(the tagger's matcher over every note), each concept's own lint, conflicts, near-
duplicates; then the command itself, ``concepts check VAULT --json --no-cache``, in a
fresh process.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.concepts import lint as concept_lint  # noqa: E402
from librarian_gui.core.concepts.dictionary import load_dictionary  # noqa: E402
from librarian_gui.core.concepts.dictionary_file import DictionaryFile  # noqa: E402
from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.tagging.run import concept_usage  # noqa: E402
from librarian_gui.core.vault.files import read_note  # noqa: E402
from tests.benchmarks.generate_vault import CODAS, FUNCTION_WORDS, ONSETS, VOWELS  # noqa: E402

CATEGORIES = ("tools", "people", "places", "methods", "projects")


def generate(root: Path, concepts: int, notes: int, seed: int) -> None:
    rnd = random.Random(seed)
    words: set[str] = set()
    while len(words) < 6000:
        syllables = rnd.randint(1, 3)
        word = "".join(
            rnd.choice(ONSETS) + rnd.choice(VOWELS) + rnd.choice(CODAS) for _ in range(syllables)
        )
        if len(word) >= 3:
            words.add(word)
    vocabulary = sorted(words)

    def phrase(most: int) -> str:
        return " ".join(rnd.choice(vocabulary) for _ in range(rnd.randint(1, most)))

    dictionary: dict[str, Any] = {}
    seen: set[str] = set()
    while len(dictionary) < concepts:
        first = phrase(3)
        concept_id = first.replace(" ", "-")
        if concept_id in dictionary or first in seen:
            continue
        aliases = [first]
        for _ in range(rnd.randint(1, 2)):
            other = phrase(3)
            if other not in seen and other not in aliases:
                aliases.append(other)
        seen.update(aliases)
        dictionary[concept_id] = {"aliases": aliases, "category": rnd.choice(CATEGORIES)}
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps(dictionary, ensure_ascii=False, indent=2)
    (root / "concepts.json").write_text(text + "\n", encoding="utf-8")
    every_alias = [a for value in dictionary.values() for a in value["aliases"]]
    for n in range(notes):
        paragraphs = []
        for _ in range(5):
            said = []
            for _ in range(60):
                roll = rnd.random()
                if roll < 0.05:
                    said.append(rnd.choice(every_alias))
                elif roll < 0.5:
                    said.append(rnd.choice(FUNCTION_WORDS))
                else:
                    said.append(rnd.choice(vocabulary))
            paragraphs.append(" ".join(said) + ".")
        body = f"# Note {n}\n\n" + "\n\n".join(paragraphs) + "\n"
        (root / f"note-{n:04d}.md").write_text(body, encoding="utf-8")


def timed(step: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concepts", type=int, default=90_000)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the vault here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-concept-check-"))
    try:
        if not (root / "concepts.json").exists():
            generate(root, args.concepts, args.notes, args.seed)
        path = root / "concepts.json"
        doc = DictionaryFile.load(path)
        concepts = doc.concepts()
        index = VaultIndex.scan(root, use_cache=False)
        names = sum(len(c.aliases) + 1 for c in concepts)
        print(
            f"{len(concepts):,} concepts ({names:,} names), {len(index.notes)} notes, "
            f"{path.stat().st_size / 1e6:.1f} MB of dictionary; Python "
            f"{platform.python_version()}, {platform.machine()}"
        )
        steps: list[tuple[str, Callable[[], object]]] = [
            ("read, as the index does", lambda: load_dictionary(path)),
            ("read, as the editor does", lambda: DictionaryFile.load(path)),
            ("structure issues", doc.structure_issues),
            (
                f"index scan ({len(index.notes)} notes)",
                lambda: VaultIndex.scan(root, use_cache=False),
            ),
            (
                "usage counts (tagger)",
                lambda: concept_usage(index, concepts, lambda r: read_note(root, r).text),
            ),
            (
                "each concept's lint",
                lambda: [list(concept_lint._concept_issues(c)) for c in concepts],
            ),
            ("conflicts", lambda: concept_lint._conflicts(concepts)),
            ("near-duplicates", lambda: concept_lint._near_duplicates(concepts)),
        ]
        print(f"\n{'step':<28} {'seconds':>8}")
        for name, step in steps:
            print(f"{name:<28} {timed(step, args.repeat):>8.2f}", flush=True)
        command = [sys.executable, "-m", "librarian_gui.cli", "concepts", "check", str(root)]
        command += ["--json", "--no-cache"]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
        seconds = time.perf_counter() - started
        report = json.loads(done.stdout)
        print(
            f"{'librarian concepts check':<28} {seconds:>8.2f}  (exit {done.returncode}: "
            f"{report['errors']:,} errors, {report['warnings']:,} warnings)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
