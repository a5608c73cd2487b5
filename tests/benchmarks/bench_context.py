"""Retrieval for agents, measured on LoCoMo (``/work/shared/vaults/locomo-dev``): does a
context pack of 1,000 / 2,000 / 4,000 tokens hold each question's evidence lines, and does
``agent_search`` put an evidence note in its top 5 — beside a plain BM25 baseline (``bm25s``)
in the same run.

Run: ``python tests/benchmarks/bench_context.py`` (about two minutes; ``--vaults DIR``;
``--ablation`` for packs with each part of the ranking off, three minutes more; ``--big DIR``
to time one pack and one search on a large vault such as interconnected-10k, with
``--index-note NOTE`` one of its notes as the index note an agent's vault has).

Baseline, packs: the same paragraphs (``split_passages``), ranked by ``bm25s`` (English stop
words, no stemming), their raw text packed greedily, best first, while the token estimate of
the texts (one newline each) fits the budget — no header, no index note, no paths. Ours
carries the header, the index note, every note path, date and line range inside the same
budget. Baseline, search: ``bm25s`` over whole notes, its top 5.

Evidence recall of a pack: the share of a question's evidence lines found whole among the
pack's lines, averaged over the questions. Search recall@5: the share of questions with an
evidence note among the top 5. Categories as LoCoMo numbers them: 1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop (5, adversarial, is not in the vaults).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import bm25s  # noqa: E402

from librarian_gui.core.agents import ranking as ranking_module  # noqa: E402
from librarian_gui.core.agents.context import context_pack  # noqa: E402
from librarian_gui.core.agents.corpus import Corpus  # noqa: E402
from librarian_gui.core.agents.passages import split_passages  # noqa: E402
from librarian_gui.core.agents.search import agent_search  # noqa: E402
from librarian_gui.core.agents.tokens import estimate_tokens  # noqa: E402
from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.text.analyzer import terms  # noqa: E402
from librarian_gui.core.vault.files import read_note  # noqa: E402
from librarian_gui.core.vault.textstore import TextStore  # noqa: E402

BUDGETS = (1000, 2000, 4000)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _tok(texts: list[str]) -> Any:
    return bm25s.tokenize(texts, stopwords="en", show_progress=False)


def _held(lines: set[str], evidence: list[str]) -> float:
    """The share of ``evidence`` found whole among ``lines``. An evidence line can run
    over two of the note's lines (a turn with its photo's caption below): each is there."""
    found = sum(all(part.strip() in lines for part in e.strip().split("\n")) for e in evidence)
    return found / len(evidence)


def run_vault(folder: Path, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    index = VaultIndex.scan(folder, use_cache=False)

    def text_of(rel: str) -> str | None:
        return read_note(index.root, rel).text

    rels = sorted(index.notes)
    note_bm25 = bm25s.BM25()
    note_bm25.index(_tok([text_of(r) or "" for r in rels]), show_progress=False)
    paragraphs = [p for r in rels for p in split_passages(r, text_of(r) or "")]
    para_bm25 = bm25s.BM25()
    para_bm25.index(_tok([p.text for p in paragraphs]), show_progress=False)
    rows = []
    for q in questions:
        if not q["evidence_lines"]:
            continue  # nothing to find (see main)
        row: dict[str, Any] = {"category": q["category"]}
        evidence = q["evidence_lines"]
        hits = agent_search(index, text_of, q["question"], limit=5)
        row["search"] = float(any(h.note in q["evidence_notes"] for h in hits))
        docs, _ = note_bm25.retrieve(_tok([q["question"]]), k=5, show_progress=False)
        row["search_base"] = float(any(rels[d] in q["evidence_notes"] for d in docs[0]))
        ranked, _ = para_bm25.retrieve(
            _tok([q["question"]]), k=len(paragraphs), show_progress=False
        )
        for budget in BUDGETS:
            start = time.perf_counter()
            pack = context_pack(index, text_of, q["question"], budget)
            row.setdefault("seconds", []).append(time.perf_counter() - start)
            assert pack.tokens <= budget and estimate_tokens(pack.text) <= budget
            row[f"pack{budget}"] = _held({ln.strip() for ln in pack.text.split("\n")}, evidence)
            lines: set[str] = set()
            room = budget
            for d in ranked[0]:
                cost = estimate_tokens(paragraphs[d].text) + 1
                if cost <= room:
                    room -= cost
                    lines.update(ln.strip() for ln in paragraphs[d].text.split("\n"))
            row[f"base{budget}"] = _held(lines, evidence)
        rows.append(row)
    return rows


_WIKI = re.compile(r"!?\[\[([^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]")
LINK_TASKS = 300  # questions per vault, the first in path order


def link_task(vault: Path) -> str:
    """Search on notes nobody here wrote: a line linking a note, with the link cut out, is
    the question; the linked note is the answer. The vault is copied with every wiki link
    replaced by its text (so neither side follows links) and both sides search the copy:
    ours (``agent_search``, top 5) and bm25s over whole notes (top 5)."""
    import tempfile

    source = VaultIndex.scan(vault, use_cache=False).snapshot()
    questions: list[tuple[str, str]] = []
    for rel in sorted(source.notes):
        lines = (read_note(source.root, rel).text or "").split("\n")
        for link in source.notes[rel].parsed.links:
            if link.kind != "wiki":
                continue
            target = source.resolver.resolve(link, rel)
            if target == rel or target not in source.notes:
                continue
            question = _WIKI.sub(" ", lines[link.line - 1]).strip(" -*#>\t")
            if len(terms(question)) >= 3:
                questions.append((question, target))
    questions = questions[:LINK_TASKS]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / vault.name
        for rel in source.notes:
            text = read_note(source.root, rel).text or ""
            out = root / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(_WIKI.sub(lambda m: m.group(2) or m.group(1) or "", text), "utf-8")
        index = VaultIndex.scan(root, use_cache=False)

        def text_of(rel: str) -> str | None:
            return read_note(index.root, rel).text

        rels = sorted(index.notes)
        base = bm25s.BM25()
        base.index(_tok([text_of(r) or "" for r in rels]), show_progress=False)
        ours = theirs = 0
        for question, target in questions:
            ours += any(h.note == target for h in agent_search(index, text_of, question, limit=5))
            docs, _ = base.retrieve(_tok([question]), k=5, show_progress=False)
            theirs += any(rels[d] == target for d in docs[0])
    n = max(1, len(questions))
    return (
        f"{vault.name}: {len(questions)} lines linking a note, link cut out: the linked note "
        f"in the top 5, ours {ours / n:.3f} / bm25s {theirs / n:.3f}"
    )


# Each part of a pack's ranking switched off in turn (--ablation): the constants that weigh it.
ABLATIONS = {
    "no note match": {"NOTE_WEIGHT": 0.0},
    "no neighbours": {"NEIGHBOUR_WEIGHT": 0.0},
    "no answer turns": {"ANSWER_WEIGHT": 0.35},
    "no time/dates": {"TIME_BOOST": 0.0, "DATE_BOOST": 0.0, "DATELINE_WEIGHT": 0.0},
    "no date lines": {"DATELINE_WEIGHT": 0.0},
    "no concept aliases": {"CONCEPT_WEIGHT": 0.0},
    "no graph": {"GRAPH_BOOST": 0.0},
    "no feedback": {"FEEDBACK_TERMS": 0},
    "no speaker boost": {"SPEAKER_BOOST": 0.0, "SPEAKER_ONLY": 0.0},
    "BM25 passages only": {
        "NOTE_WEIGHT": 0.0,
        "NEIGHBOUR_WEIGHT": 0.0,
        "ANSWER_WEIGHT": 0.0,
        "TIME_BOOST": 0.0,
        "DATE_BOOST": 0.0,
        "DATELINE_WEIGHT": 0.0,
        "CONCEPT_WEIGHT": 0.0,
        "GRAPH_BOOST": 0.0,
        "FEEDBACK_TERMS": 0,
        "SPEAKER_BOOST": 0.0,
        "SPEAKER_ONLY": 0.0,
    },
}


def ablation(vaults: Path, budget: int = 2000) -> str:
    """Evidence recall of packs of ``budget`` tokens with each part of the ranking off."""
    lines = [f"ablation, pack@{budget} evidence recall (all questions):"]
    for name, values in ABLATIONS.items():
        saved = {k: getattr(ranking_module, k) for k in values}
        for k, v in values.items():
            setattr(ranking_module, k, v)
        try:
            held = []
            for qfile in sorted(vaults.glob("*.questions.json")):
                folder = vaults / qfile.name.removesuffix(".questions.json")
                index = VaultIndex.scan(folder, use_cache=False)

                def text_of(rel: str, index: VaultIndex = index) -> str | None:
                    return read_note(index.root, rel).text

                for q in json.loads(qfile.read_text(encoding="utf-8")):
                    if q["evidence_lines"]:
                        pack = context_pack(index, text_of, q["question"], budget)
                        got = {ln.strip() for ln in pack.text.split("\n")}
                        held.append(_held(got, q["evidence_lines"]))
        finally:
            for k, v in saved.items():
                setattr(ranking_module, k, v)
        lines.append(f"  {name:<20} {statistics.mean(held):.3f}")
    return "\n".join(lines)


def abstention(vaults: Path) -> str:
    """How often ``answers_well`` says no: on each conversation's own questions (all have
    an answer there: a "no" is wrong) and on the other conversations' questions (asked of
    a memory that never heard of them: a "no" is right)."""
    qfiles = sorted(vaults.glob("*.questions.json"))
    indexes = {
        q: VaultIndex.scan(vaults / q.name.removesuffix(".questions.json"), use_cache=False)
        for q in qfiles
    }
    own = [0, 0]
    other = [0, 0]
    for asked in qfiles:
        questions = json.loads(asked.read_text(encoding="utf-8"))
        for vault, index in indexes.items():

            def text_of(rel: str, index: VaultIndex = index) -> str | None:
                return read_note(index.root, rel).text

            rels = sorted(index.notes)
            tally = own if vault == asked else other
            for q in questions:
                corpus = Corpus.build(index, text_of, rels, terms(q["question"]))
                tally[0] += not ranking_module.answers_well(index, corpus, q["question"])
                tally[1] += 1
    return (
        f"abstention (answers_well false): own conversation's questions {own[0]}/{own[1]} "
        f"({own[0] / own[1]:.3f}, wrong); other conversations' {other[0]}/{other[1]} "
        f"({other[0] / other[1]:.3f}, right)"
    )


def table(rows: list[dict[str, Any]]) -> str:
    cols = [f"pack{b}" for b in BUDGETS] + ["search"]
    head = (
        f"{'category':<12} {'n':>4} "
        + " ".join(f"{c.replace('pack', 'pack@'):>16}" for c in cols[:-1])
        + f" {'search@5':>16}"
    )
    out = [head, f"{'':<12} {'':>4} " + " ".join(f"{'ours / base':>16}" for _ in cols)]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[f"{r['category']} {CATEGORIES[r['category']]}"].append(r)
    groups["all"] = rows
    for name in sorted(groups, key=lambda g: (g == "all", g)):
        rs = groups[name]
        cells = []
        for c in cols:
            base = c.replace("pack", "base") if c != "search" else "search_base"
            ours = statistics.mean(r[c] for r in rs)
            theirs = statistics.mean(r[base] for r in rs)
            cells.append(f"{ours:.3f} / {theirs:.3f}")
        out.append(f"{name:<12} {len(rs):>4} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(out)


BIG_QUERIES = (
    "how does the graph layout handle large vaults",
    "what did the marshal discover about the crime",
    "when was the golden specimen seized",
    "who threatened the office",
    "something during",
    "why were the pipes declined",
    "what countries did the bird visit in April",
    "the extraordinary duties of the member",
    "cousin",
    "where did they hear the infinite phrase",
)


def time_big(
    folder: Path, query: str, budget: int, rounds: int = 3, index_note: str = "MEMORY.md"
) -> str:
    """Scan FOLDER, then time packs and searches warm: the first of each builds the corpus.
    ``index_note``: the note packs take as the index note (context_pack's default; a vault
    without it packs without one)."""
    start = time.perf_counter()
    index = VaultIndex.scan(folder)
    scanned = time.perf_counter() - start

    store = TextStore(index.root)  # as the MCP server keeps the texts it read

    def text_of(rel: str) -> str | None:
        record = index.notes.get(rel)
        return None if record is None else store.get(rel, record.stamp)

    start = time.perf_counter()
    pack = context_pack(index, text_of, query, budget, index_note=index_note)
    first = time.perf_counter() - start
    # As the MCP server settles its heap once a vault is loaded (``live._settle_heap``):
    # otherwise a full collection walking the index's millions of objects lands in some
    # question's time.
    gc.freeze()
    packs: list[float] = []
    searches: list[float] = []
    for _ in range(rounds):
        for q in (query, *BIG_QUERIES):
            start = time.perf_counter()
            context_pack(index, text_of, q, budget, index_note=index_note)
            packs.append(time.perf_counter() - start)
            start = time.perf_counter()
            agent_search(index, text_of, q, limit=10)
            searches.append(time.perf_counter() - start)

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (
        f"{folder.name}: {len(index.notes)} notes, scan {scanned:.2f} s (cache allowed); "
        f"index note {pack.index_note or 'none'}; "
        f"first pack {first:.2f} s ({len(pack.passages)} passages, {pack.tokens} tokens; "
        "texts read once and kept, as the MCP server keeps them)\n"
        f"warm, {len(packs)} questions: pack of {budget} tokens p50 {pct(packs, 0.5):.0f} ms "
        f"p95 {pct(packs, 0.95):.0f} ms (target ≤ 300); search p50 {pct(searches, 0.5):.0f} ms "
        f"p95 {pct(searches, 0.95):.0f} ms (target ≤ 100)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=Path("/work/shared/vaults/locomo-dev"))
    parser.add_argument("--big", type=Path, help="also time one pack on this vault")
    parser.add_argument("--query", default="how does the graph layout handle large vaults")
    parser.add_argument(
        "--index-note",
        default="MEMORY.md",
        help="with --big: the note packs take as the index note (an agent's vault has one; "
        "the generated vaults and interconnected-10k do not: name one of their notes)",
    )
    parser.add_argument(
        "--ablation", action="store_true", help="also each part of the ranking switched off"
    )
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    skipped = 0
    for qfile in sorted(args.vaults.glob("*.questions.json")):
        folder = args.vaults / qfile.name.removesuffix(".questions.json")
        questions = json.loads(qfile.read_text(encoding="utf-8"))
        skipped += sum(1 for q in questions if not q["evidence_lines"])
        rows += run_vault(folder, questions)
    print(
        f"{len(rows)} questions ({skipped} without evidence lines left out); "
        "evidence recall of packs, search recall@5 (ours / bm25s)"
    )
    print(table(rows))
    seconds = [s for r in rows for s in r["seconds"]]
    print(
        f"time per pack (LoCoMo, every budget): median {statistics.median(seconds) * 1000:.0f} "
        f"ms, max {max(seconds) * 1000:.0f} ms"
    )
    print(abstention(args.vaults))
    for name in ("foam-docs", "logseq-docs"):
        if (args.vaults.parent / name).is_dir():
            print(link_task(args.vaults.parent / name))
    if args.ablation:
        print(ablation(args.vaults))
    if args.big:
        print(time_big(args.big, args.query, 2000, index_note=args.index_note))


if __name__ == "__main__":
    main()
