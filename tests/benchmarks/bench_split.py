"""From dump to library (issue 31), measured on dumps built from vaults nobody here wrote.

Run: ``python tests/benchmarks/bench_split.py [--vaults DIR] [--sizes 1000,10000,50000]``
(about a minute). Asserts nothing; prints a table, and exits 1 when a line is lost or
duplicated or undo does not give the dump back byte for byte.

Each dump is every note of ``foam-docs`` or ``logseq-docs`` (in path order) under a
``## <title>`` heading (its front matter's ``title``, else its file name), or every session of a
LoCoMo conversation under ``## <date>`` (its file name), in one ``MEMORY.md``: the note's
front matter left out and its own headings two levels deeper (``# A`` → ``### A``), so that
they stay inside its section. To reach a size, the notes are written again in the same
order until the dump has that many lines (the second time a title comes, its section goes
to the same note as the first). Each dump is split in a vault of its own (a temporary
folder); per dump it prints:

- **lines kept**: the multiset of the dump's lines equals the multiset of the new notes'
  lines plus the new index's, less the lines the plan says the index gained — exactly (a
  line whose links the plan rewrote, a relative path from a section's new folder, counted
  as it was);
- **undo**: the dump byte for byte, the new notes gone;
- **index**: the new index's lines and bytes (target ≤ 200 lines, ≤ 25 KB), and whether it
  points at every new note (the index note's health lists none of them as not listed);
- **grouping**: over the sections of the first round, pairs that came from one source folder
  and pairs that land in one new folder: precision and recall (no target);
- **time**: plan (from the scanned index) and apply, and the whole ``librarian split
  --apply`` in a fresh process (target: plan ≤ 2 s and apply ≤ 5 s at 50,000 lines).

And per LoCoMo conversation, the evidence recall of a 2,000-token context pack (the share of
each question's evidence lines the pack holds, averaged) on the dump and on the split vault:
the split must not hurt an agent.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.agents.context import context_pack  # noqa: E402
from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.insight.index_note import index_note_health  # noqa: E402
from librarian_gui.core.library.apply import apply_split  # noqa: E402
from librarian_gui.core.library.sections import split_lines  # noqa: E402
from librarian_gui.core.library.split import plan_split  # noqa: E402
from librarian_gui.core.parse.parser import parse_note  # noqa: E402
from librarian_gui.core.vault.files import read_note  # noqa: E402
from librarian_gui.core.writing.journal import Journal  # noqa: E402

VAULTS = REPO.parent / "shared" / "vaults"
SIZES = (1_000, 10_000, 50_000)
PACK_BUDGET = 2_000
_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.MULTILINE)


def _section_of(rel: str, text: str, dated: bool) -> str:
    """A note as a section of the dump: its heading, then its body (front matter out, its
    headings two levels deeper)."""
    parsed = parse_note(text)
    front = text[: parsed.body_start]
    body = text[parsed.body_start :]
    stem = rel.rsplit("/", 1)[-1][:-3]
    found = _TITLE.search(front) if front else None
    title = stem if dated or found is None else found.group(1).strip("'\"")
    lines = body.split("\n")
    skip = text.count("\n", 0, parsed.body_start)
    for heading in parsed.headings:
        at = heading.line - 1 - skip
        if 0 <= at < len(lines) and lines[at].lstrip().startswith("#"):
            line = lines[at]
            indent = len(line) - len(line.lstrip())
            hashes = len(line.lstrip()) - len(line.lstrip().lstrip("#"))
            deeper = min(6, hashes + 2)
            lines[at] = line[:indent] + "#" * deeper + line.lstrip()[hashes:]
    body = "\n".join(lines).strip("\n")
    return f"## {title}\n{body}\n\n"


def build_dump(folder: Path, lines: int | None, dated: bool) -> tuple[str, list[str]]:
    """The dump's text, and the source folder of each section of the first round."""
    notes = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*.md")
        if p.name != "MEMORY.md" or p.parent != folder
    )
    sections = []
    sources = []
    for rel in notes:
        text = (folder / rel).read_text(encoding="utf-8", errors="replace")
        sections.append(_section_of(rel, text, dated))
        sources.append(rel.rsplit("/", 1)[0] if "/" in rel else "")
    parts = ["# Memory\n\nEverything kept so far.\n\n"]
    count = 4
    while True:
        for section in sections:
            parts.append(section)
            count += section.count("\n")
            if lines is not None and count >= lines:
                return "".join(parts), sources
        if lines is None:
            return "".join(parts), sources


def _lines(text: str) -> Counter[str]:
    return Counter(line.rstrip("\r\n") for line in split_lines(text))


def measure(label: str, dump: str, sources: list[str], work: Path) -> dict[str, Any]:
    root = work / label
    root.mkdir()
    (root / "MEMORY.md").write_text(dump, encoding="utf-8")
    index = VaultIndex.scan(root, use_cache=False)
    start = time.perf_counter()
    plan = plan_split(index, "MEMORY.md")
    plan_s = time.perf_counter() - start
    start = time.perf_counter()
    result = apply_split(Journal(root), plan)
    apply_s = time.perf_counter() - start
    files = {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*.md")
        if ".librarian" not in p.parts
    }
    # links rewritten inside the dump (relative paths from a section's new folder): each
    # line counted as it was before the rewrite
    back = {c.after: c.before for c in plan.link_changes if c.note == "MEMORY.md"}
    landed: Counter[str] = Counter()
    for text in files.values():
        for line in _lines(text).elements():
            if back and ("](" in line or "[[" in line):
                for after, before in back.items():
                    if after in line:
                        line = line.replace(after, before)
            landed[line] += 1
    expected = _lines(dump)
    expected.update(line.rstrip("\r\n") for line in plan.index_added)
    lost = sum((expected - landed).values())
    extra = sum((landed - expected).values())
    new_index = files["MEMORY.md"]
    split_index = VaultIndex.scan(root, use_cache=False)
    health = index_note_health(split_index, dumps=False)
    unlisted = set(health.unlisted) & set(result.created)
    # grouping, over the first round's sections
    first = plan.shape.sections[: len(sources)]
    where = [plan.section_targets.get(s.number, "MEMORY.md").rsplit("/", 1)[0] for s in first]
    same_source = same_folder = both = 0
    for a, b in combinations(range(len(first)), 2):
        s, f = sources[a] == sources[b], where[a] == where[b]
        same_source += s
        same_folder += f
        both += s and f
    Journal(root).undo()
    after = {
        p.relative_to(root).as_posix() for p in root.rglob("*.md") if ".librarian" not in p.parts
    }
    undone = (root / "MEMORY.md").read_text(encoding="utf-8") == dump and after == {"MEMORY.md"}
    # the command line, in a fresh process
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "librarian_gui.cli", "split", str(root), "MEMORY.md", "--apply"],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    cli_s = time.perf_counter() - start
    return {
        "dump": label,
        "lines": dump.count("\n"),
        "sections": len(plan.shape.sections),
        "notes": len(result.created),
        "rewritten": len(plan.link_changes),
        "lost": lost,
        "extra": extra,
        "undo": undone,
        "index_lines": new_index.count("\n"),
        "index_kb": len(new_index.encode()) / 1024,
        "unlisted": len(unlisted),
        "precision": both / same_folder if same_folder else 1.0,
        "recall": both / same_source if same_source else 1.0,
        "plan_s": plan_s,
        "apply_s": apply_s,
        "cli_s": cli_s,
    }


def _held(lines: set[str], evidence: list[str]) -> float:
    found = sum(all(part.strip() in lines for part in e.strip().split("\n")) for e in evidence)
    return found / len(evidence)


def recall(root: Path, questions: list[dict[str, Any]]) -> float:
    index = VaultIndex.scan(root, use_cache=False)

    def text_of(rel: str) -> str | None:
        return read_note(index.root, rel).text

    scores = []
    for q in questions:
        if not q["evidence_lines"]:
            continue
        pack = context_pack(index, text_of, q["question"], PACK_BUDGET)
        scores.append(_held({ln.strip() for ln in pack.text.split("\n")}, q["evidence_lines"]))
    return sum(scores) / len(scores)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=VAULTS)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    recalls = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in ("foam-docs", "logseq-docs"):
            for size in sizes:
                dump, sources = build_dump(args.vaults / name, size, dated=False)
                rows.append(measure(f"{name}-{size}", dump, sources, work))
                print(f"  {rows[-1]['dump']}: done", file=sys.stderr)
        locomo = args.vaults / "locomo-dev"
        for conv in sorted(p for p in locomo.iterdir() if p.is_dir()):
            dump, sources = build_dump(conv, None, dated=True)
            label = f"locomo-{conv.name}"
            rows.append(measure(label, dump, sources, work))
            questions = json.loads((locomo / f"{conv.name}.questions.json").read_text())
            on_dump = work / f"{label}-dump"
            on_dump.mkdir()
            (on_dump / "MEMORY.md").write_text(dump, encoding="utf-8")
            split = work / f"{label}-split"
            shutil.copytree(work / label, split, ignore=shutil.ignore_patterns(".librarian"))
            recalls.append((label, recall(on_dump, questions), recall(split, questions)))
            print(f"  {label}: done", file=sys.stderr)
    failed = False
    print(
        "| dump | lines | sections | new notes | links rewritten | lines lost / extra | "
        "undo byte for byte | new index | points at every new note | grouping P / R | plan | "
        "apply | `split --apply` |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|")
    for r in rows:
        ok = r["lost"] == 0 and r["extra"] == 0 and r["undo"]
        failed = failed or not ok
        size_ok = r["index_lines"] <= 200 and r["index_kb"] <= 25
        points = "yes" if r["unlisted"] == 0 else f"**{r['unlisted']} not listed**"
        print(
            f"| {r['dump']} | {r['lines']:,} | {r['sections']:,} | {r['notes']:,} | "
            f"{r['rewritten']:,} | "
            f"{r['lost']} / {r['extra']}{'' if ok else ' **FAIL**'} | "
            f"{'yes' if r['undo'] else '**NO**'} | {r['index_lines']} lines, "
            f"{r['index_kb']:.1f} KB{'' if size_ok else ' **over**'} | "
            f"{points} | "
            f"{r['precision']:.2f} / {r['recall']:.2f} | {r['plan_s']:.2f} s | "
            f"{r['apply_s']:.2f} s | {r['cli_s']:.2f} s |"
        )
    print("\ntargets: lines lost / extra 0 / 0, undo yes, new index ≤ 200 lines and ≤ 25 KB")
    print("pointing at every new note; plan ≤ 2 s and apply ≤ 5 s at 50,000 lines\n")
    print(f"| conversation | pack recall at {PACK_BUDGET:,} tokens: the dump | the split vault |")
    print("|---|---:|---:|")
    for label, on_dump, on_split in recalls:
        print(f"| {label} | {on_dump:.3f} | {on_split:.3f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
