"""The index note as a pack shows it: a run of links to dated notes of one folder as one
range, everything else as written (expected lines written by hand)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents.context import context_pack
from librarian_gui.core.agents.index_lines import fold_dated_runs
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from tests.conftest import write


def test_a_diary_listed_note_by_note_is_one_range() -> None:
    lines = [
        "# Memory",
        "",
        "- [[diary/2023-05-08]]",
        "- [[diary/2023-05-25]]",
        "- [[diary/2023-06-09|June]]",
        "- [[diary/2023-06-27]]",
        "- [[projects/garden]]",
    ]
    assert fold_dated_runs(lines) == (
        [
            "# Memory",
            "",
            "- [[diary/2023-05-08]] … [[diary/2023-06-27]] (4 dated notes)",
            "- [[projects/garden]]",
        ],
        4,
    )


def test_markdown_links_newest_first_and_numbered_items_fold_too() -> None:
    lines = [
        "1. [Dec 3](logs/2026-12-03.md)",
        "2. [Dec 2](logs/2026-12-02.md)",
        "3. [Dec 1](logs/2026-12-01.md)",
    ]
    assert fold_dated_runs(lines) == (
        ["1. [Dec 3](logs/2026-12-03.md) … [Dec 1](logs/2026-12-01.md) (3 dated notes)"],
        3,
    )


def test_what_is_not_a_bare_run_of_dated_links_stays_as_written() -> None:
    two = ["- [[diary/2023-05-08]]", "- [[diary/2023-05-25]]"]  # a first and a last: a range
    described = [
        "- [[diary/2023-05-08]] the move",
        "- [[diary/2023-05-25]] the loan",
        "- [[diary/2023-06-09]] the garden",
    ]
    folders = ["- [[a/2023-05-08]]", "- [[b/2023-05-09]]", "- [[a/2023-05-10]]"]
    unordered = ["- [[d/2023-05-08]]", "- [[d/2023-05-10]]", "- [[d/2023-05-09]]"]
    undated = ["- [[d/garden]]", "- [[d/kitchen]]", "- [[d/roof]]"]
    for lines in (two, described, folders, unordered, undated):
        assert fold_dated_runs(lines) == (lines, 0)
    # a run broken by one out of order: the first three fold, the rest stays
    broken = [*unordered[:2], "- [[d/2023-05-11]]", "- [[d/2023-05-01]]"]
    assert fold_dated_runs(broken)[0] == [
        "- [[d/2023-05-08]] … [[d/2023-05-11]] (3 dated notes)",
        "- [[d/2023-05-01]]",
    ]


LINE = st.one_of(
    st.sampled_from(["", "# Memory", "- [[notes/x]]", "text", "- [[d/2023-01-01]] and more"]),
    st.builds(lambda d: f"- [[d/2023-01-{d:02d}]]", st.integers(1, 28)),
    st.builds(lambda d: f"- [[e/2024-02-{d:02d}]]", st.integers(1, 28)),
)


@given(st.lists(LINE, max_size=30))
def test_folding_keeps_every_other_line_in_order_and_counts_its_links(lines: list[str]) -> None:
    out, folded = fold_dated_runs(lines)
    ranges = [ln for ln in out if " … " in ln]
    assert sum(int(ln.rsplit("(", 1)[1].split()[0]) for ln in ranges) == folded
    assert len(out) == len(lines) - folded + len(ranges)
    # the lines left as written are the input's, in its order
    rest = iter(lines)
    for line in out:
        if " … " not in line:
            assert line in rest


def test_a_pack_shows_the_diary_as_one_range_and_says_so(vault: Path) -> None:
    entries = "".join(f"- [[diary/2026-03-{d:02d}]]\n" for d in range(1, 11))
    write(vault, "MEMORY.md", "# Memory\n\n" + entries + "- [[garden]]\n")
    for d in range(1, 11):
        write(vault, f"diary/2026-03-{d:02d}.md", f"# Day {d}\n\nWatered the tomatoes.\n")
    write(vault, "garden.md", "# Garden\n\nThe tomatoes grow by the south wall.\n")
    index = VaultIndex.scan(vault, use_cache=False)
    pack = context_pack(
        index, lambda rel: read_note(index.root, rel).text, "where do the tomatoes grow?", 1000
    )
    assert (
        "## MEMORY.md (index note)\n# Memory\n\n"
        "- [[diary/2026-03-01]] … [[diary/2026-03-10]] (10 dated notes)\n- [[garden]]\n"
    ) in pack.text
    assert "the index note MEMORY.md (whole; 10 links to dated notes as ranges)" in pack.text
    index_json = json.loads(json.dumps(pack.to_json()))["index_note"]
    assert index_json == {"note": "MEMORY.md", "lines": 4, "of": 4, "dated_links_as_ranges": 10}
