"""``librarian split``'s plan on a small dump written by hand, every expected value by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.library.sections import heading_date, shape_of, split_lines
from librarian_gui.core.library.split import NothingToSplit, SplitOptions, plan_split

DUMP = """---
title: memory
---
# Memory

What I keep between sessions.

## 2024-03-01
Started the **crawler**. See [[#Deploy notes]].

## Deploy notes
Deploys go through CI, decided in [[use-duckdb]].
```
## not a heading: code
```

## 2024-03-02
- Fixed the [[Deploy notes|deploy]].

## Ideas
Try the [[prompt-injection]] filter.

## 2024-03-02 evening
Late fix.
"""

OTHER = "See [[MEMORY#Deploy notes]] and [the log](MEMORY.md#2024-03-01).\n"
CONCEPTS = '{"prompt-injection": {"aliases": ["prompt injection"], "category": "security"}}'


def write_vault(root: Path) -> None:
    (root / "decisions").mkdir()
    (root / "decisions" / "use-duckdb.md").write_text("# Use DuckDB\nWe chose DuckDB.\n")
    (root / "other.md").write_text(OTHER)
    (root / "MEMORY.md").write_text(DUMP)
    (root / "concepts.json").write_text(CONCEPTS)


@pytest.fixture
def index(tmp_path: Path) -> VaultIndex:
    write_vault(tmp_path)
    return VaultIndex.scan(tmp_path, use_cache=False)


def test_lines_join_back_to_the_text() -> None:
    assert split_lines("a\r\nb\n\nc") == ("a\r\n", "b\n", "\n", "c")
    assert split_lines("a\n") == ("a\n",)
    assert split_lines("") == ()


def test_shape_front_matter_preamble_and_sections() -> None:
    shape = shape_of(DUMP)
    assert shape.front_matter_end == 3
    assert shape.preamble_end == 7  # "# Memory", a blank, a line, a blank
    assert shape.level == 2
    assert [(s.number, s.title, s.first, s.end) for s in shape.sections] == [
        (1, "2024-03-01", 7, 10),
        (2, "Deploy notes", 10, 16),  # the "##" inside the code block is not a heading
        (3, "2024-03-02", 16, 19),
        (4, "Ideas", 19, 22),
        (5, "2024-03-02 evening", 22, 24),
    ]
    assert [str(s.date) for s in shape.sections] == [
        "2024-03-01",
        "None",
        "2024-03-02",
        "None",
        "2024-03-02",
    ]
    assert (shape.dated, shape.topics) == (3, 2)


def test_split_level_is_the_shallowest_with_five_headings() -> None:
    entries = "".join(f"### 2024-01-0{day}\nline {day}\n" for day in range(1, 7))
    text = f"# Memory\n## Log\n{entries}## Decisions\n### Use X\nbecause\n"
    shape = shape_of(text)
    assert shape.level == 3
    assert shape.preamble_end == 2  # "# Memory" and "## Log" stay, above the first entry
    assert [(s.title, s.grouping) for s in shape.sections] == [
        *((f"2024-01-0{day}", False) for day in range(1, 7)),
        ("Decisions", True),
        ("Use X", False),
    ]


def test_plan_targets(index: VaultIndex) -> None:
    plan = plan_split(index, "MEMORY.md")
    assert dict(plan.section_targets) == {
        1: "logs/2024-03-01.md",
        2: "decisions/Deploy notes.md",  # it links a note in decisions/
        3: "logs/2024-03-02.md",
        4: "security/Ideas.md",  # it links a concept of the category "security"
        5: "logs/2024-03-02.md",  # the same day's log
    }
    assert [(t.path, t.kind, t.sections) for t in plan.targets] == [
        ("logs/2024-03-01.md", "log", (1,)),
        ("decisions/Deploy notes.md", "topic", (2,)),
        ("logs/2024-03-02.md", "log", (3, 5)),
        ("security/Ideas.md", "topic", (4,)),
    ]
    texts = {t.path: t.text for t in plan.targets}
    assert texts["logs/2024-03-01.md"] == (
        "## 2024-03-01\nStarted the **crawler**. See [[decisions/Deploy notes#Deploy notes]].\n\n"
    )
    assert texts["logs/2024-03-02.md"] == (
        "## 2024-03-02\n- Fixed the [[Deploy notes|deploy]].\n\n## 2024-03-02 evening\nLate fix.\n"
    )
    assert texts["decisions/Deploy notes.md"] == (
        "## Deploy notes\nDeploys go through CI, decided in [[use-duckdb]].\n"
        "```\n## not a heading: code\n```\n\n"
    )


def test_plan_index_points(index: VaultIndex) -> None:
    plan = plan_split(index, "MEMORY.md")
    assert plan.index_text == (
        "---\ntitle: memory\n---\n# Memory\n\nWhat I keep between sessions.\n\n"
        "- [logs/](logs/) — 2 logs, 2024-03-01 to 2024-03-02\n"
        "- [[decisions/Deploy notes|Deploy notes]] — Deploys go through CI, decided in "
        "use-duckdb.\n"
        "- [[security/Ideas|Ideas]] — Try the prompt-injection filter.\n"
    )
    assert plan.index_added == (
        "- [logs/](logs/) — 2 logs, 2024-03-01 to 2024-03-02\n",
        "- [[decisions/Deploy notes|Deploy notes]] — Deploys go through CI, decided in "
        "use-duckdb.\n",
        "- [[security/Ideas|Ideas]] — Try the prompt-injection filter.\n",
    )


def test_plan_rewrites_links_to_moved_headings(index: VaultIndex) -> None:
    plan = plan_split(index, "MEMORY.md")
    assert [(c.note, c.line, c.before, c.after) for c in plan.link_changes] == [
        ("MEMORY.md", 9, "[[#Deploy notes]]", "[[decisions/Deploy notes#Deploy notes]]"),
        ("other.md", 1, "[[MEMORY#Deploy notes]]", "[[decisions/Deploy notes#Deploy notes]]"),
        (
            "other.md",
            1,
            "[the log](MEMORY.md#2024-03-01)",
            "[the log](logs/2024-03-01.md#2024-03-01)",
        ),
    ]
    snapshot, text = plan.elsewhere["other.md"]
    assert snapshot.text == OTHER
    assert text == (
        "See [[decisions/Deploy notes#Deploy notes]] and "
        "[the log](logs/2024-03-01.md#2024-03-01).\n"
    )


def test_every_line_lands_once(index: VaultIndex) -> None:
    plan = plan_split(index, "MEMORY.md")
    landed = [line for t in plan.targets for line in split_lines(t.text)]
    landed += list(split_lines(plan.index_text))
    for line in plan.index_added:
        landed.remove(line)
    rewritten = {c.after: c.before for c in plan.link_changes if c.note == "MEMORY.md"}
    back = []
    for line in landed:
        for after, before in rewritten.items():
            line = line.replace(after, before)
        back.append(line.rstrip("\n"))
    assert sorted(back) == sorted(line.rstrip("\n") for line in split_lines(DUMP))


def test_user_choices(index: VaultIndex) -> None:
    options = SplitOptions(
        logs="month", logs_folder="diary", keep=frozenset({4}), to={2: "ops/Deploys"}
    )
    plan = plan_split(index, "MEMORY.md", options)
    assert dict(plan.section_targets) == {
        1: "diary/2024-03.md",
        2: "ops/Deploys.md",
        3: "diary/2024-03.md",
        5: "diary/2024-03.md",
    }
    assert plan.kept == (4,)
    assert "## Ideas\nTry the [[prompt-injection]] filter.\n\n" in plan.index_text
    assert "- [diary/](diary/) — 1 log, 2024-03-01 to 2024-03-02\n" in plan.index_text


def test_taken_names_get_a_number(tmp_path: Path) -> None:
    write_vault(tmp_path)
    (tmp_path / "ideas.md").write_text("an older note of that name\n")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "2024-03-01.md").write_text("a log already\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    plan = plan_split(index, "MEMORY.md")
    assert plan.section_targets[4] == "security/Ideas (2).md"
    assert plan.section_targets[1] == "logs/2024-03-01 (2).md"


def test_nothing_to_split(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nOne paragraph.\n## Only one\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    with pytest.raises(NothingToSplit):
        plan_split(index, "MEMORY.md")


def test_an_index_of_too_many_entries_points_at_folders(tmp_path: Path) -> None:
    topics = "".join(f"## Topic {n}\nabout {n}\n\n" for n in range(1, 251))
    (tmp_path / "MEMORY.md").write_text(f"# Memory\n\n{topics}")
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    assert len(plan.targets) == 250
    # "Topic 1, Topic 2, …": titles while they fit in 90 characters
    titles = ", ".join(f"Topic {n}" for n in range(1, 11))
    assert plan.index_text == f"# Memory\n\n- [notes/](notes/) — 250 notes: {titles}, …\n"
    assert plan.warnings == ()


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("2024-03-01 standup", "2024-03-01"),
        ("Sep 14th, 2020", "2020-09-14"),
        ("14 September 2020", "2020-09-14"),
        ("Monday 08 May 2023, 13:56", "2023-05-08"),
        ("Sept 3, 2021", "2021-09-03"),
        ("Dec. 5 2019", "2019-12-05"),
        ("June 31, 2020", None),  # no such day
        ("Marching 3 2020", None),  # not a month
        ("May 2020", None),  # no day
        ("Ideas", None),
    ],
)
def test_heading_dates(heading: str, expected: str | None) -> None:
    found = heading_date(heading)
    assert (found.isoformat() if found else None) == expected


def test_a_description_skips_empty_bullets(tmp_path: Path) -> None:
    topics = "".join(f"## Topic {n}\n-\n- [[Link {n}|the {n}th]] *thing*\n\n" for n in range(5))
    (tmp_path / "MEMORY.md").write_text(topics)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    assert [t.description for t in plan.targets] == [f"the {n}th thing" for n in range(5)]


def test_a_description_skips_outliner_properties(tmp_path: Path) -> None:
    topics = "".join(
        f"## Topic {n}\ntype:: Feature\n- tags:: a\nWhat {n} does.\n" for n in range(5)
    )
    (tmp_path / "MEMORY.md").write_text(topics)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    assert [t.description for t in plan.targets] == [f"What {n} does." for n in range(5)]


def test_new_folders_go_beside_a_dump_in_a_folder(tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    topics = "".join(f"## 2024-01-0{n}\nday {n}\n" for n in range(1, 5)) + "## Ideas\nsome\n"
    (tmp_path / "agent" / "MEMORY.md").write_text(topics)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "agent/MEMORY.md")
    assert [t.path for t in plan.targets] == [
        *(f"agent/logs/2024-01-0{n}.md" for n in range(1, 5)),
        "agent/notes/Ideas.md",
    ]
    assert plan.index_text == (
        "- [agent/logs/](logs/) — 4 logs, 2024-01-01 to 2024-01-04\n"
        "- [[agent/notes/Ideas|Ideas]] — some\n"
    )


def test_links_in_moved_sections_keep_resolving(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a b.md").write_text("# A b\n")
    dump = (
        "## Topic 1\nsee [the doc](docs/a%20b.md#top), ![pic](<docs/x y.png>) and [me](MEMORY.md)\n"
        "## Topic 2\nup to [one](MEMORY.md#topic-1), [[MEMORY#Topic 2]], [[#Topic 2]]\n"
        "## Topic 3\n[far](/docs/a%20b.md)\n## Topic 4\nx\n## Topic 5\ny\n"
    )
    (tmp_path / "MEMORY.md").write_text(dump)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    texts = {t.path: t.text for t in plan.targets}
    # Topic 1 links a note in docs/: it goes there
    assert texts["docs/Topic 1.md"] == (
        "## Topic 1\nsee [the doc](a%20b.md#top), ![pic](<x y.png>) and [me](../MEMORY.md)\n"
    )
    assert texts["notes/Topic 2.md"] == (
        "## Topic 2\nup to [one](../docs/Topic%201.md#topic-1), [[notes/Topic 2#Topic 2]], "
        "[[#Topic 2]]\n"
    )
    assert texts["docs/Topic 3.md"] == "## Topic 3\n[far](/docs/a%20b.md)\n"  # from the root
