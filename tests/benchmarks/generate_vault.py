"""A deterministic generator of realistic Obsidian-style vaults for the indexing benchmarks."""

from __future__ import annotations

import argparse
import datetime as _dt
import itertools
import json
import os
import posixpath
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

VOCABULARY_SIZE = 5_000
FOLDERS = 40  # the diary folder included
DIARY_SHARE = 0.10
ROOT_SHARE = 0.02  # notes at the top of the vault
DUPLICATE_NAME_SHARE = 0.01  # same name in two folders, as real vaults have
FRONT_MATTER_SHARE = 0.30
MISSING_LINK_SHARE = 0.10
SAME_FOLDER_LINK_SHARE = 0.30
NOTE_BYTES = (2_700, 4_700)  # before links and mark-up
PARAGRAPHS = (2, 8)
LINKS_PER_NOTE = (5, 15)
DIARY_START = _dt.date(2015, 1, 1)
# Link forms and their shares; "markdown" is [text](relative/path.md).
LINK_FORMS: tuple[tuple[str, float], ...] = (
    ("wiki", 0.40),
    ("wiki-label", 0.18),
    ("wiki-heading", 0.10),
    ("wiki-path", 0.05),
    ("embed", 0.05),
    ("markdown", 0.22),
)


def _word_list(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# The words no language does without, so the pseudo-text reads like prose in a profiler.
FUNCTION_WORDS = _word_list(
    "the of and to a in is that it was for on are as with his they at be this from have or by "
    "one had not but what all were when we there can an your which their said if do will each "
    "about how up out them then she many some so these would other into has more her two like "
    "him see time could no make than first been its who now people my made over did down only"
)
ONSETS = _word_list(
    "b bl br c ch d dr f fl g gr h j k l m n p pl pr qu r s sh sl st t th tr v w z "
    "b c d f g l m n p r s t v"
)
VOWELS = _word_list("a e i o u a e i o ou ai ea io y é ü")
CODAS = ("", "", "", "", "n", "r", "l", "s", "t", "m", "nd", "rk", "st", "x", "ng", "th")
_LANGUAGES = ("python", "js", "bash", "sql", "")
_MAX_FOLDER_DEPTH = 3


@dataclass(frozen=True, slots=True)
class NoteSpec:
    """Where one generated note lives and what it is called."""

    folder: str  # "" for the vault root
    name: str

    @property
    def rel(self) -> str:
        return f"{self.folder}/{self.name}.md" if self.folder else f"{self.name}.md"


@dataclass(slots=True)
class VaultSummary:
    """What the generator wrote: the counts a benchmark reports next to the index's own."""

    path: str
    notes: int = 0
    folders: int = 0
    bytes: int = 0
    links: Counter[str] = field(default_factory=Counter)  # by form, code blocks excluded
    missing_links: int = 0
    links_in_code: int = 0
    front_matter: int = 0
    diary: int = 0
    seconds: float = 0.0

    @property
    def total_links(self) -> int:
        return sum(self.links.values())

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "notes": self.notes,
            "folders": self.folders,
            "bytes": self.bytes,
            "links": dict(self.links),
            "total_links": self.total_links,
            "missing_links": self.missing_links,
            "links_in_code": self.links_in_code,
            "front_matter": self.front_matter,
            "diary": self.diary,
            "seconds": round(self.seconds, 2),
        }


def build_vocabulary(rng: random.Random, size: int = VOCABULARY_SIZE) -> list[str]:
    """``size`` distinct pseudo-words (function words first, so they are the most frequent)."""
    words = list(FUNCTION_WORDS)
    seen = set(words)
    while len(words) < size:
        syllables = rng.choices((1, 2, 2, 3, 3, 4))[0]
        word = "".join(
            rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables)
        )
        if 2 < len(word) < 16 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_weights(n: int, exponent: float = 1.0) -> list[float]:
    """Cumulative Zipf weights over ranks 1..n, for ``random.choices(cum_weights=...)``."""
    return list(itertools.accumulate(1.0 / (rank**exponent) for rank in range(1, n + 1)))


class VaultGenerator:
    """Generates one vault; every choice comes from one seeded ``random.Random``."""

    def __init__(self, notes: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.words = build_vocabulary(self.rng)
        self.word_weights = zipf_weights(len(self.words))
        self.content_words = self.words[len(FUNCTION_WORDS) :]
        self.tags = self._make_tags()
        self.folders = self._make_folders()
        self.specs = self._make_notes(notes)
        self.by_folder: dict[str, list[int]] = {}
        for i, spec in enumerate(self.specs):
            self.by_folder.setdefault(spec.folder, []).append(i)
        # Hubs: a shuffled order of notes, drawn with Zipf weights, so a few notes collect
        # many backlinks as index and "map of content" notes do.
        self.popularity = list(range(len(self.specs)))
        self.rng.shuffle(self.popularity)
        self.popularity_weights = zipf_weights(len(self.specs), 0.8)
        self.missing = self._make_missing(max(20, notes // 10))
        self.missing_weights = zipf_weights(len(self.missing), 0.7)

    # ------------------------------------------------------------ names

    def _title(self, words: int) -> str:
        text = " ".join(self.rng.choices(self.content_words, k=words))
        return text[0].upper() + text[1:]

    def _make_tags(self) -> list[str]:
        tops = self.rng.sample(self.content_words, 20)
        tags = list(tops)
        for _ in range(130):
            tags.append(f"{self.rng.choice(tops)}/{self.rng.choice(self.content_words)}")
        return tags

    def _make_folders(self) -> list[str]:
        folders: list[str] = []
        while len(folders) < 12:
            name = self._title(self.rng.choice((1, 1, 2)))
            if name not in folders:
                folders.append(name)
        while len(folders) < FOLDERS - 1:
            parent = self.rng.choice(folders)
            if parent.count("/") + 1 >= _MAX_FOLDER_DEPTH:
                continue
            name = f"{parent}/{self._title(self.rng.choice((1, 1, 2)))}"
            if name not in folders:
                folders.append(name)
        folders.append("diary")
        return folders

    def _make_notes(self, count: int) -> list[NoteSpec]:
        diary = int(count * DIARY_SHARE)
        specs = [
            NoteSpec("diary", (DIARY_START + _dt.timedelta(days=d)).isoformat())
            for d in range(diary)
        ]
        topic_folders = self.folders[:-1]
        taken: set[str] = set()  # lower-case names: Obsidian matches names without case
        rels = {spec.rel.lower() for spec in specs}
        names: list[str] = []
        while len(specs) < count:
            if names and self.rng.random() < DUPLICATE_NAME_SHARE:
                name = self.rng.choice(names)  # the same name again, in another folder
            else:
                name = self._title(self.rng.choice((1, 2, 2, 2, 3, 3, 4)))
                if name.lower() in taken:
                    continue
                taken.add(name.lower())
                names.append(name)
            folder = "" if self.rng.random() < ROOT_SHARE else self.rng.choice(topic_folders)
            spec = NoteSpec(folder, name)
            if spec.rel.lower() not in rels:
                rels.add(spec.rel.lower())
                specs.append(spec)
        return specs

    def _make_missing(self, count: int) -> list[str]:
        existing = {spec.name.lower() for spec in self.specs}
        missing: list[str] = []
        while len(missing) < count:
            name = self._title(self.rng.choice((1, 2, 2, 3)))
            if name.lower() not in existing:
                existing.add(name.lower())
                missing.append(name)
        return missing

    def headings_of(self, index: int) -> list[str]:
        """The section headings of note ``index``; links with ``#Heading`` point at these."""
        rng = random.Random(self.seed * 1_000_003 + index)
        return [
            " ".join(rng.choices(self.content_words, k=rng.randint(1, 3))).capitalize()
            for _ in range(rng.randint(1, 4))
        ]

    # ------------------------------------------------------------ text

    def _sentence(self) -> str:
        count = self.rng.randint(5, 16)
        words = self.rng.choices(self.words, cum_weights=self.word_weights, k=count)
        text = " ".join(words)
        return text[0].upper() + text[1:] + self.rng.choice("....?!")

    def _paragraph_text(self, size: int) -> list[str]:
        sentences: list[str] = []
        length = 0
        while length < size:
            sentence = self._sentence()
            if self.rng.random() < 0.06:
                sentence += f" #{self.rng.choice(self.tags)}"
            sentences.append(sentence)
            length += len(sentence) + 1
        return sentences

    def _target(self, source: int) -> tuple[int | None, str]:
        """A link target: (note index, name), or (None, missing name)."""
        rng = self.rng
        if rng.random() < MISSING_LINK_SHARE:
            return None, rng.choices(self.missing, cum_weights=self.missing_weights)[0]
        if rng.random() < SAME_FOLDER_LINK_SHARE:
            target = rng.choice(self.by_folder[self.specs[source].folder])
        else:
            target = self.popularity[
                rng.choices(range(len(self.specs)), cum_weights=self.popularity_weights)[0]
            ]
        return target, self.specs[target].name

    def _link(self, source: int, summary: VaultSummary) -> str:
        rng = self.rng
        target, name = self._target(source)
        form = rng.choices([f for f, _ in LINK_FORMS], weights=[w for _, w in LINK_FORMS])[0]
        if target is None:
            summary.missing_links += 1
            if form == "wiki-path":
                form = "wiki"
        if form == "wiki-heading" and target is None:
            form = "wiki-label"
        summary.links[form] += 1
        label = " ".join(rng.choices(self.content_words, k=rng.randint(1, 3)))
        if form == "wiki":
            return f"[[{name}]]"
        if form == "wiki-label":
            return f"[[{name}|{label}]]"
        if form == "wiki-heading":
            assert target is not None
            return f"[[{name}#{rng.choice(self.headings_of(target))}]]"
        if form == "wiki-path":
            assert target is not None
            return f"[[{self.specs[target].rel[:-3]}]]"
        if form == "embed":
            return f"![[{name}]]"
        here = self.specs[source].folder
        there = self.specs[target].rel if target is not None else posixpath.join(here, name + ".md")
        return f"[{label}]({quote(posixpath.relpath(there, here or '.'))})"

    def _front_matter(self, index: int, summary: VaultSummary) -> list[str]:
        rng = self.rng
        lines = ["---"]
        tags = rng.sample(self.tags, rng.randint(1, 4))
        if rng.random() < 0.5:
            lines.append(f"tags: [{', '.join(tags)}]")
        else:
            lines.append("tags:")
            lines.extend(f"  - {tag}" for tag in tags)
        if rng.random() < 0.4:
            lines.append("aliases:")
            lines.extend(f"  - {self._title(rng.randint(1, 3))}" for _ in range(rng.randint(1, 2)))
        if rng.random() < 0.6:
            day = DIARY_START + _dt.timedelta(days=rng.randint(0, 3_000))
            lines.append(f"date: {day.isoformat()}")
        if rng.random() < 0.35:
            parent, parent_name = self._target(index)
            if parent is not None:
                lines.append(f'up: "[[{parent_name}]]"')
                summary.links["property"] += 1
        lines.append(f"status: {rng.choice(('draft', 'active', 'done', 'someday'))}")
        lines.append("---")
        return lines

    def _code_block(self) -> list[str]:
        rng = self.rng
        name = rng.choice(self.specs).name
        body = [
            f"value = {rng.randint(0, 999)}  # see [[{name}]]",
            f"print('{rng.choice(self.content_words)}', value)",
        ]
        return [f"```{rng.choice(_LANGUAGES)}", *body, "```"]

    def _table(self, index: int, summary: VaultSummary) -> list[str]:
        rng = self.rng
        cols = rng.randint(2, 4)
        head = [rng.choice(self.content_words).capitalize() for _ in range(cols)]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * cols]
        for _ in range(rng.randint(2, 5)):
            cells = [rng.choice(self.content_words) for _ in range(cols)]
            if rng.random() < 0.4:
                target, name = self._target(index)
                summary.links["wiki"] += 1
                summary.missing_links += target is None
                cells[0] = f"[[{name}]]"
            rows.append("| " + " | ".join(cells) + " |")
        return rows

    def note_text(self, index: int, summary: VaultSummary) -> str:
        """The whole text of note ``index``; its links and parts are counted in ``summary``."""
        rng = self.rng
        spec = self.specs[index]
        lines: list[str] = []
        if rng.random() < FRONT_MATTER_SHARE:
            lines.extend(self._front_matter(index, summary))
            summary.front_matter += 1
        if rng.random() < 0.5:
            lines += [f"# {spec.name}", ""]
        paragraphs = rng.randint(*PARAGRAPHS)
        headings = self.headings_of(index)[:paragraphs]
        heading_at = sorted(rng.sample(range(paragraphs), len(headings)))
        size = rng.randint(*NOTE_BYTES) - 250 * len(headings)
        blocks = [self._paragraph_text(max(120, size // paragraphs)) for _ in range(paragraphs)]
        # Links go between the words of random sentences (never inside another link's label).
        words = [[sentence.split(" ") for sentence in block] for block in blocks]
        flat = [(b, s) for b, block in enumerate(words) for s in range(len(block))]
        for _ in range(rng.randint(*LINKS_PER_NOTE)):
            b, s = rng.choice(flat)
            words[b][s].insert(rng.randint(1, len(words[b][s])), self._link(index, summary))
        blocks = [[" ".join(sentence) for sentence in block] for block in words]
        for p, sentences in enumerate(blocks):
            if p in heading_at:
                lines += [f"## {headings[heading_at.index(p)]}", ""]
            shape = rng.random()
            if shape < 0.15:
                lines.extend(f"- {sentence}" for sentence in sentences)
            elif shape < 0.20:
                lines.extend(f"> {sentence}" for sentence in sentences)
            elif shape < 0.25 and spec.folder == "diary":
                lines.extend(f"- [{rng.choice(' x')}] {sentence}" for sentence in sentences)
            else:
                lines.append(" ".join(sentences))
            lines.append("")
            if rng.random() < 0.04:
                lines += [*self._code_block(), ""]
                summary.links_in_code += 1
            if rng.random() < 0.03:
                lines += [*self._table(index, summary), ""]
        return "\n".join(lines)

    def mtime_ns(self, index: int, now: float) -> int:
        """A modification time well in the past (the index cache trusts only settled files)."""
        spec = self.specs[index]
        if spec.folder == "diary":
            day = _dt.datetime.fromisoformat(spec.name + "T21:00:00")
            return int(day.timestamp() * 1e9)
        return int((now - self.rng.uniform(86_400, 2 * 365 * 86_400)) * 1e9)

    def write(self, out: Path) -> VaultSummary:
        summary = VaultSummary(str(out))
        start = time.perf_counter()
        now = time.time()
        for folder in self.folders:
            (out / folder).mkdir(parents=True, exist_ok=True)
        summary.folders = len(self.folders)
        for index, spec in enumerate(self.specs):
            data = self.note_text(index, summary).encode("utf-8")
            path = out / spec.rel
            path.write_bytes(data)
            stamp = self.mtime_ns(index, now)
            os.utime(path, ns=(stamp, stamp))
            summary.notes += 1
            summary.bytes += len(data)
            summary.diary += spec.folder == "diary"
        summary.seconds = time.perf_counter() - start
        return summary


def generate(out: Path, notes: int = 20_000, seed: int = 1) -> VaultSummary:
    """Write a vault of ``notes`` notes into ``out`` (which must be empty or absent)."""
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out}: folder is not empty; give a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)
    return VaultGenerator(notes, seed).write(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path, help="folder to create (must be empty or absent)")
    parser.add_argument("--notes", type=int, default=20_000, help="number of notes (20000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    try:
        summary = generate(args.out, args.notes, args.seed)
    except FileExistsError as exc:
        print(f"generate_vault: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary.as_dict()))
    else:
        print(
            f"{summary.notes:,} notes ({summary.diary:,} diary) in {summary.folders} folders, "
            f"{summary.bytes / 1e6:.1f} MB, {summary.total_links:,} links "
            f"({summary.missing_links:,} to missing notes), {summary.seconds:.1f} s → {args.out}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
