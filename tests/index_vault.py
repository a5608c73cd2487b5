"""A vault whose index note's health is known by hand: which notes it lists (by link, by
folder entry, through a dated folder), its dead link, its entry holding text, and the
exact entries a fix appends."""

from __future__ import annotations

from pathlib import Path

LONG = (
    "this entry holds a long body of prose that goes on and on about the note instead of "
    "pointing at it, which an index should not do at all, ever."
)
INDEX_LINES = [
    "---",
    "title: index",
    "---",
    "# Memory",
    "",
    "Short intro.",
    "",
    "- [[Alpha]] — the first",
    "- [[projects/beta]] — second",
    "- [Gamma](topics/gamma.md)",
    "- [[Missing Note]] — gone",  # line 11: dead
    "- [logs/](logs/) — the logs",  # a folder entry
    "- [[diary/2024-01-02]] … newest",  # lists the whole dated diary
    "- [[widget]] — a concept",  # a concept without a note: not dead
    f"- [[zeta]] — {LONG}",  # line 15: holds text
    "",
    "```",
    "[[In Code]]",
    "```",
]
NOTES = {
    "Alpha.md": "# Alpha\n\nFirst note body.\n",
    "archive/old.md": "# Old stuff\n",
    "diary/2024-01-01.md": "day one\n",
    "diary/2024-01-02.md": "day two\n",
    "diary/2024-01-03.md": "day three\n",
    "journal/2023_05_14.md": "a log\n",
    "journal/2023_05_15.md": "another log\n",
    "logs/2024-03-01.md": "log\n",
    "logs/2024-03-02.md": "log\n",
    "notes/a#b.md": "# Hash name\n",
    "omega.md": "# omega\n\nThe last letter.\n",
    "projects/beta.md": "# Beta\n",
    "projects/delta.md": "# Delta plans\n\nMore.\n",
    "templates/daily.md": "# {{date}}\n",
    "topics/epsilon.md": (
        "---\ntags: [x]\n---\nEpsilon is about *things*. See [[Alpha|the alpha]].\n"
    ),
    "topics/gamma.md": "Gamma.\n",
    "zeta.md": "# Zeta\n",
}
EXCLUDE = ("templates",)
# With EXCLUDE: every note but the index note and templates/daily.md.
UNLISTED = (
    "archive/old.md",
    "journal/2023_05_14.md",
    "journal/2023_05_15.md",
    "notes/a#b.md",
    "omega.md",
    "projects/delta.md",
    "topics/epsilon.md",
)
LISTED = (
    "Alpha.md",
    "diary/2024-01-01.md",
    "diary/2024-01-02.md",
    "diary/2024-01-03.md",
    "logs/2024-03-01.md",
    "logs/2024-03-02.md",
    "projects/beta.md",
    "topics/gamma.md",
    "zeta.md",
)
# The root's notes first, then by top folder; a dated folder is one entry.
APPENDED = (
    "\n"
    "## Notes\n"
    "\n"
    "- [[omega]] — The last letter.\n"
    "\n"
    "## archive/\n"
    "\n"
    "- [[old]] — Old stuff\n"
    "\n"
    "## journal/\n"
    "\n"
    "- [journal/](journal/) — 2 dated notes, 2023-05-14 to 2023-05-15\n"
    "\n"
    "## notes/\n"
    "\n"
    "- [a#b](notes/a%23b.md) — Hash name\n"
    "\n"
    "## projects/\n"
    "\n"
    "- [[delta]] — Delta plans\n"
    "\n"
    "## topics/\n"
    "\n"
    "- [[epsilon]] — Epsilon is about *things*. See the alpha.\n"
)


def index_text(newline: str = "\n") -> str:
    return newline.join(INDEX_LINES) + newline


def write_index_vault(root: Path, *, newline: str = "\n", bom: bool = False) -> bytes:
    """The vault under ``root``; returns the index note's bytes."""
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (root / "concepts.json").write_text('{"widget": {"aliases": ["widgets"]}}\n')
    data = (b"\xef\xbb\xbf" if bom else b"") + index_text(newline).encode("utf-8")
    (root / "MEMORY.md").write_bytes(data)
    return data
