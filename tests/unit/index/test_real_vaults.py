"""Link counts on two real vaults, checked three ways.

1. ``tests/reference_counts.py`` is an independent, deliberately simple
   implementation of the link rules (DESIGN.md section 2). Its per-file output
   is pinned here for notes whose links were counted by hand from the raw
   files (HAND_CHECKED), so the reference itself is proven on real data.
2. Its totals over each vault are pinned as literal numbers (REFERENCE_TOTALS).
3. The real index (``librarian_gui.core.index.index.VaultIndex``) must report the
   same literal numbers through ``stats()``. One test per statistic, so each
   can fail on its own; a failure lists the first files whose links differ
   from the reference, for diffing.

Rules where the vaults are ambiguous, and the reading chosen here:
- A tab/4-space indented line that directly follows an ATX heading (no blank
  line in between) IS indented code, as in CommonMark (a heading is not a
  paragraph, so nothing stops the code block) and so in Obsidian's reading
  view: 94 Logseq links sit in such blocks (e.g. pages/Snap to grid.md:7-10,
  pages/Glossary.md, pages/Local Http server.md:8-54) and do not count.
- A note linking to itself makes an edge (a distinct directed pair) but does
  not stop it being an orphan.
- ``[label](((uuid)))`` (Logseq block reference with a label) is a Markdown
  link whose destination is ``((uuid))`` (CommonMark allows balanced
  parentheses): kind ``markdown``, unresolved. 20 in logseq-docs, e.g.
  pages/Filename format.md:8.
- ``[label]([[Page]])`` (Logseq page reference with a label) is one wiki link
  to ``Page`` and no Markdown link. E.g. pages/contents.md:28,
  pages/term___page reference with label.md:10.
- ``![alt](../assets/pages_one year in logseq_….png)`` (spaces, no angle
  brackets) is not a link at all (pages/one year in logseq.md:8-17).
- ``[text]()`` (empty destination) is not counted, like a bare fragment
  (user/recipes/capture-notes-with-shortcuts-and-github-actions.md:18).
- Code spans do not cross line ends (no multi-line span in these vaults
  changes a count).
"""

from __future__ import annotations

import functools
import os
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
for _path in (REPO / "tests", REPO):  # reference_counts, librarian_gui
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from reference_counts import (  # noqa: E402
    KINDS,
    reference_counts,
    reference_links,
    reference_resolved,
)

# /work/main/tests/unit/index -> parents[4] is /work; in CI shared/ sits beside the
# clone's folder, i.e. <repo>/../shared/vaults -- the same expression.
VAULTS = REPO.parent / "shared" / "vaults"
VAULT_NAMES = ("foam-docs", "logseq-docs")


def _vault(name: str) -> Path:
    path = VAULTS / name
    if not path.is_dir():
        message = f"test vault not found: {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@functools.cache
def _ref_links(name: str) -> dict:
    return reference_links(_vault(name))


# --------------------------------------------------------------------------
# Hand-checked notes: every (kind, target as written, line) counted by eye
# from the raw file. Comments say what each sample exercises.

HAND_CHECKED: dict[str, dict[str, list[tuple[str, str, int]]]] = {
    "foam-docs": {
        # inline code `[[...]]` (l.3, 22, 31, 39, 57-66), a table full of
        # `[[...]]` in code spans (l.76-83), md links in code (l.26-27, 40-41),
        # reference definitions (l.91-95)
        "user/features/wikilinks.md": [
            ("wiki", "graph-view", 12),
            ("wiki", "block-anchors", 33),
            ("wiki", "link-reference-definitions", 70),
            ("wiki", "footnotes", 87),
            ("wiki", "block-anchors", 88),
            ("wiki", "templates", 89),
        ],
        # fenced code holding [[x|y]], [[x#h]], [[x#^block]] (l.13-39),
        # relative md links (l.136-140), reference definition (l.142)
        "user/getting-started/navigation.md": [
            ("wiki", "graph-view", 52),
            ("markdown", "../recipes/search-and-navigate-notes.md", 136),
            ("markdown", "../features/graph-view.md", 137),
            ("markdown", "../features/backlinking.md", 138),
            ("markdown", "../features/templates.md", 139),
            ("markdown", "../features/tags.md", 140),
        ],
        # [[x#^block]], [[x#^b|label]], ![[x#^b]] only inside fences/code
        "user/features/block-anchors.md": [
            ("wiki", "wikilinks", 143),
            ("wiki", "footnotes", 144),
            ("wiki", "embeds", 145),
        ],
        # 23 ![[...]] embeds, all inside ```markdown fences or code spans
        "user/features/embeds.md": [
            ("wiki", "foam-queries", 5),
            ("wiki", "block-anchors", 33),
        ],
        # [[x|label]] outside code (l.28), reference definitions (l.34-37)
        "user/recipes/search-and-navigate-notes.md": [
            ("wiki", "orphans", 23),
            ("wiki", "tags", 24),
            ("wiki", "graph-view", 28),
            ("wiki", "resource-filters", 28),
        ],
        # relative .md links, same folder and ../
        "user/getting-started/first-workspace.md": [
            ("wiki", "migrating-from-obsidian", 68),
            ("markdown", "note-taking-in-foam.md", 200),
            ("markdown", "navigation.md", 201),
            ("markdown", "../features/graph-view.md", 202),
            ("markdown", "../features/templates.md", 203),
            ("markdown", "installation.md", 209),
            ("wiki", "frequently-asked-questions", 210),
        ],
        # fragment-only TOC links (l.35-45, not counted), HTML comments and
        # an HTML contributors table (l.111-293), an absent image (l.97), a
        # link to the attachment LICENSE.txt (l.301)
        "index.md": [
            ("wiki", "recommended-extensions", 62),
            ("wiki", "recipes", 82),
            ("wiki", "frequently-asked-questions", 83),
            ("wiki", "recommended-extensions", 88),
            ("markdown", "assets/images/foam-navigation-demo.gif", 97),
            ("wiki", "recipes", 99),
            ("wiki", "principles", 105),
            ("wiki", "contribution-guide", 106),
            ("wiki", "recommended-extensions", 297),
            ("markdown", "LICENSE.txt", 301),
        ],
        # [[cli|CLI documentation]] (l.61), bold-wrapped links, 7 ref defs
        "user/getting-started/installation.md": [
            ("wiki", "get-started-with-vscode", 19),
            ("wiki", "cli", 61),
            ("wiki", "first-workspace", 67),
            ("wiki", "get-started-with-vscode", 68),
            ("wiki", "note-taking-in-foam", 69),
            ("wiki", "navigation", 70),
            ("wiki", "graph-view", 71),
            ("wiki", "frequently-asked-questions", 77),
        ],
        # md link going above the vault root (unresolved)
        "dev/contribution-guide.md": [
            ("markdown", "../../CONTRIBUTING.md", 3),
        ],
        # [`code`]() with an empty destination, URLs only otherwise
        "user/recipes/capture-notes-with-shortcuts-and-github-actions.md": [],
        # [[x]] and reference definitions only inside fences
        "user/features/link-reference-definitions.md": [],
    },
    "logseq-docs": {
        # Logseq page properties `type:: [[Feature]]` (body text, so links),
        # {{cards [[Logseq]]}} macros (links), `[[card]]` in code (not)
        "pages/Flashcards.md": [
            ("wiki", "Feature", 1),
            ("wiki", "All Platforms", 2),
            ("markdown", "../assets/sidebar-make-a-flashcard.png", 12),
            ("wiki", "Left sidebar", 13),
            ("wiki", "Queries", 15),
            ("wiki", "Logseq", 17),
            ("wiki", "Logseq", 20),
            ("wiki", "Clozes", 24),
            ("wiki", "Ed", 33),
            (
                "markdown",
                "../assets/CleanShot_202021-07-22_20at_2021.46.52_1626961624975_0.png",
                35,
            ),
            ("wiki", "Command", 38),
            ("wiki", "Query", 40),
        ],
        # ((uuid)) and {{embed ((uuid))}} as plain text (l.61), namespace
        # targets [[term/...]], md links with URLs (l.18, 20: not counted)
        "pages/Markdown.md": [
            ("wiki", "term/page reference", 25),
            ("wiki", "Block Reference", 29),
            ("markdown", "../assets/2021-05-21_18.41.54_1621593786418_0.gif", 39),
            ("markdown", "../assets/2021-05-21_18.45.31_1621593958149_0.gif", 42),
            ("wiki", "term/embedded page", 43),
            ("wiki", "term/embedded block", 48),
            ("wiki", "Properties", 53),
            ("wiki", "Templates", 57),
            ("wiki", "Properties", 62),
            ("wiki", "term/page reference with label", 63),
            ("wiki", "term/block reference with label", 66),
            ("wiki", "Tasks", 69),
            ("wiki", "Hiccup", 76),
        ],
        # [label](((uuid))) block references with labels, bare ((uuid)),
        # fences inside list items (l.53-55, 65-67)
        "pages/Filename format.md": [
            ("wiki", "Feature", 1),
            ("wiki", "Desktop", 2),
            ("markdown", "((63503015-99b5-4186-9c42-d3ab9c82482b))", 8),
            ("markdown", "../assets/image_1666165908432_0.png", 13),
            ("markdown", "../assets/image_1666170051566_0.png", 23),
            # lines 30-107: tab-indented right under "## Functionality": code
            ("markdown", "((634faa53-1294-4fc8-8343-e2edc39eb755))", 112),
            ("markdown", "((634fb104-f332-4743-904a-4827ee754bfc))", 116),
            ("wiki", "custom page title", 117),
            ("markdown", "((634fb9a8-cab9-441e-b476-41fa828010ea))", 117),
            ("markdown", "((634fd550-3ce9-4c5c-88e0-37d45007d6c8))", 119),
            ("wiki", "Left sidebar", 123),
            ("markdown", "../assets/image_1666188586117_0.png", 124),
            ("markdown", "../assets/image_1666188369625_0.png", 125),
        ],
        # [label]([[mallard]]) counts once, as a wiki link
        "pages/term___page reference with label.md": [
            ("wiki", "mallard", 9),
            ("wiki", "mallard", 10),
        ],
        # YAML front matter; 6 images whose destinations hold spaces without
        # <...> are not links; 4-space indentation without blank lines
        "pages/one year in logseq.md": [
            ("wiki", "local-first", 35),
            ("wiki", "Queries", 41),
            ("wiki", "Advanced Queries", 41),
            ("wiki", "Plugins", 41),
            ("wiki", "Isomorphic-git", 46),
            ("wiki", "Excalidraw", 49),
            ("wiki", "Undo and Redo", 55),
        ],
        # alias:: property (plain text); everything under "## Usage" and
        # "## Functionality" is tab-indented right after a heading: indented code
        "pages/page_embed.md": [
            ("wiki", "Feature", 2),
            ("wiki", "All Platforms", 3),
            ("wiki", "embed", 5),
            ("wiki", "Block embed", 6),
        ],
        # `\` inside a code span; {{embed [[x]]}} in and out of code
        "pages/tips_and_tricks.md": [
            ("wiki", "Flashcards", 14),
            ("wiki", "term/alias", 29),
        ],
        # `[label]([[Projects]])` and `[[PKM]]` only in code spans
        "pages/Aliases and external links.md": [],
        # fenced code inside list items, {{embed ((uuid))}}, tags::
        "pages/Properties.md": [
            ("wiki", "Feature", 1),
            ("wiki", "All Platforms", 2),
            ("wiki", "config.edn", 42),
            ("wiki", "How to take smart notes", 50),
            ("wiki", "book", 53),
            ("wiki", "sönke ahrens", 54),
            ("wiki", "february 21, 2017", 55),
            ("wiki", "How to solve it", 58),
            ("wiki", "book", 61),
            ("wiki", "george polya", 62),
            ("wiki", "Built-in Properties", 72),
        ],
        # lines 8 and 10-48 (under "## Background" / "## Usage") and 53-54
        # (under "## Additional Links") are indented code: only the properties
        "pages/Local Http server.md": [
            ("wiki", "Feature", 1),
            ("wiki", "Desktop", 2),
        ],
        "pages/Code block.md": [
            ("wiki", "Feature", 1),
            ("wiki", "All Platforms", 2),
            ("wiki", "Codemirror", 3),
        ],
        # a journal: front matter `title:` only, body "-"
        "journals/2020_09_14.md": [],
    },
}

# Hand-checked resolutions: (note, target as written) -> resolved path or None.
HAND_RESOLVED: dict[str, list[tuple[str, str, str | None]]] = {
    "foam-docs": [
        # bare name, unique stem in another folder
        ("user/getting-started/installation.md", "cli", "user/tools/cli.md"),
        # md link to an attachment
        ("index.md", "LICENSE.txt", "LICENSE.txt"),
        # image whose file is absent (binaries were left out of the copy)
        ("index.md", "assets/images/foam-navigation-demo.gif", None),
        # ../../ from dev/ goes above the vault root
        ("dev/contribution-guide.md", "../../CONTRIBUTING.md", None),
        # ../ relative to the note's folder
        ("user/getting-started/navigation.md", "../features/tags.md", "user/features/tags.md"),
        # dangling wiki links
        ("user/tools/cli/search.md", "cli-grep", None),
        ("user/index.md", "publishing", None),
    ],
    "logseq-docs": [
        # case-insensitive stem match
        ("pages/Markdown.md", "Templates", "pages/templates.md"),
        # namespace target: the file is pages/setting___theme modes.md, so no match
        ("pages/Basic settings.md", "setting/theme modes", None),
        # a note linking itself: resolved, and an edge (a distinct pair) to itself
        ("pages/Class.md", "Class", "pages/Class.md"),
        ("pages/Filename format.md", "((63503015-99b5-4186-9c42-d3ab9c82482b))", None),
        ("pages/Flashcards.md", "../assets/sidebar-make-a-flashcard.png", None),
        ("pages/Flashcards.md", "Left sidebar", "pages/Left sidebar.md"),
    ],
}

REFERENCE_TOTALS = {
    "foam-docs": {
        "notes": 86,
        "attachments": 1,
        "links": {"wiki": 199, "embed": 0, "markdown": 38, "property": 0},
        "resolved": 213,
        "unresolved": 24,
        "unresolved_targets": 22,
        "edges": 216,
        "orphans": 6,
    },
    "logseq-docs": {
        "notes": 313,
        "attachments": 1,
        "links": {"wiki": 2108, "embed": 0, "markdown": 146, "property": 0},
        "resolved": 677,
        "unresolved": 1577,
        "unresolved_targets": 726,
        "edges": 1362,
        "orphans": 95,
    },
}

SAMPLES = [(v, n) for v, notes in HAND_CHECKED.items() for n in notes]
STAT_KEYS = (
    "notes",
    "attachments",
    "resolved",
    "unresolved",
    "unresolved_targets",
    "edges",
    "orphans",
)


# --------------------------------------------------------------- reference


@pytest.mark.parametrize(("vault_name", "note"), SAMPLES, ids=[f"{v}:{n}" for v, n in SAMPLES])
def test_reference_matches_hand_count(vault_name, note):
    assert _ref_links(vault_name)[note] == HAND_CHECKED[vault_name][note]


@pytest.mark.parametrize("vault_name", VAULT_NAMES)
def test_reference_resolution_samples(vault_name):
    rows = reference_resolved(_vault(vault_name))
    for note, target, expected in HAND_RESOLVED[vault_name]:
        got = {r[3] for r in rows[note] if r[1] == target}
        assert got == {expected}, (note, target, got)


@pytest.mark.parametrize("vault_name", VAULT_NAMES)
def test_reference_totals(vault_name):
    assert reference_counts(_vault(vault_name)) == REFERENCE_TOTALS[vault_name]


def test_reference_rules_on_forms_the_vaults_lack(tmp_path):
    """Embeds, property links, %% comments, \\| and [[#h]] on a tiny vault."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "a.md").write_text(
        '---\nup: "[[B]]"\nrel:\n  - "[[sub/c]]"\n  - "not [[x]]"\n---\n'
        "See [[B|bee]] ![[pic.png]] [[#Head]] [[c#^blk|x]] \\[[no]] `[[no]]`\n"
        "%% [[no]] %% <!-- [[no]] --> | [[B\\|label]] |\n"
        "[m](sub/c.md) [o](../x.md) [u](https://x.y/a.md) [f](#h) ![i](pic%20two.png)\n"
        "[r]: b.md\nUse [r] and [t][r].\n\n    [[indented]]\n\n```\n[[fenced]]\n```\n"
        "[[Missing]] [[missing.md]]\n",
        encoding="utf-8",
    )
    (tmp_path / "b.md").write_text("[[a]]\n", encoding="utf-8")
    (tmp_path / "sub" / "c.md").write_text("lonely\n", encoding="utf-8")
    (tmp_path / "lone.md").write_text("no links\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"x")
    (tmp_path / ".obsidian" / "x.md").write_text("[[a]]", encoding="utf-8")
    assert reference_links(tmp_path)["a.md"] == [
        ("property", "B", 2),
        ("property", "sub/c", 4),
        ("wiki", "B", 7),
        ("embed", "pic.png", 7),
        ("wiki", "", 7),
        ("wiki", "c", 7),
        ("wiki", "B", 8),
        ("markdown", "sub/c.md", 9),
        ("markdown", "../x.md", 9),
        ("markdown", "pic%20two.png", 9),
        ("wiki", "Missing", 18),
        ("wiki", "missing.md", 18),
    ]
    assert reference_counts(tmp_path) == {
        "notes": 4,
        "attachments": 1,
        "links": {"wiki": 7, "embed": 1, "markdown": 3, "property": 2},
        # unresolved: ../x.md, pic two.png, Missing, missing.md
        "resolved": 9,
        "unresolved": 4,
        "unresolved_targets": 3,  # ../x, pic two.png, missing
        # a->b, a->sub/c, a->pic.png, a->3 ghosts, b->a, a->a ([[#Head]])
        "edges": 8,
        "orphans": 1,  # lone.md
    }


# --------------------------------------------------------------- real index


@functools.cache
def _scan(name: str):
    from librarian_gui.core.index.index import VaultIndex

    return VaultIndex.scan(_vault(name), use_cache=False)


@functools.cache
def _stats(name: str) -> dict:
    return _scan(name).stats()


def _by_kind(links) -> dict:
    if isinstance(links, Mapping):
        return {k: links.get(k, 0) for k in KINDS}
    return {k: getattr(links, k, 0) for k in KINDS}


def _per_file_diff(name: str, limit: int = 5) -> str:
    """The first files whose links differ from the reference, for diffing."""
    try:
        index = _scan(name)
    except Exception as exc:  # pragma: no cover - only when the index is broken
        return f"(index unavailable: {exc!r})"
    lines = []
    for note, expected in _ref_links(name).items():
        try:
            got = [(link.kind, link.target, link.line) for link in index.note(note).links]
        except Exception as exc:
            lines.append(f"  {note}: index.note() failed: {exc!r}")
        else:
            if Counter((k, ln) for k, _, ln in got) == Counter((k, ln) for k, _, ln in expected):
                continue
            missing = sorted(set(expected) - set(got), key=lambda t: t[2])
            extra = sorted(set(got) - set(expected), key=lambda t: t[2])
            lines.append(
                f"  {note}: index {len(got)} links, reference {len(expected)}\n"
                f"    only in reference: {missing[:6]}\n"
                f"    only in index:     {extra[:6]}"
            )
        if len(lines) >= limit:
            break
    return "\n".join(lines) if lines else "  (every file has the same links as the reference)"


@pytest.mark.parametrize("vault_name", VAULT_NAMES)
@pytest.mark.parametrize("key", STAT_KEYS)
def test_index_stat(vault_name, key):
    expected = REFERENCE_TOTALS[vault_name][key]
    got = _stats(vault_name)[key]
    if got != expected and key not in ("notes", "attachments"):
        pytest.fail(
            f"{vault_name} stats()[{key!r}] = {got}, expected {expected}; "
            f"first files whose links differ:\n{_per_file_diff(vault_name)}"
        )
    assert got == expected


@pytest.mark.parametrize("vault_name", VAULT_NAMES)
def test_index_links_by_kind(vault_name):
    expected = REFERENCE_TOTALS[vault_name]["links"]
    got = _by_kind(_stats(vault_name)["links"])
    assert got == expected, (
        f"{vault_name} links by kind {got}, expected {expected}; "
        f"first files whose links differ:\n{_per_file_diff(vault_name)}"
    )


@pytest.mark.parametrize("vault_name", VAULT_NAMES)
def test_index_reports_warnings(vault_name):
    assert "warnings" in _stats(vault_name)


@pytest.mark.parametrize(("vault_name", "note"), SAMPLES, ids=[f"{v}:{n}" for v, n in SAMPLES])
def test_index_hand_checked_notes(vault_name, note):
    got = [(link.kind, link.line) for link in _scan(vault_name).note(note).links]
    expected = [(k, ln) for k, _, ln in HAND_CHECKED[vault_name][note]]
    assert sorted(got) == sorted(expected)
