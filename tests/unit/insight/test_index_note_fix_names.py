"""The index note's Fix on names a wiki link cannot hold (a line break, ``]]``, a space at an
end, a backtick): each entry is written so that the index reads it back as that note, or the
note is reported as one that cannot be listed; a second Fix never adds anything."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.index_note import index_note_health
from librarian_gui.core.insight.index_note_fix import apply_index_note_fix, plan_index_note_fix
from librarian_gui.core.writing.journal import Journal


def scan(root: Path) -> VaultIndex:
    return VaultIndex.scan(root, use_cache=False)


def fix_twice(root: Path) -> tuple[tuple[str, ...], bytes]:
    """Fix, then plan again on the vault read anew: the lines the first fix added and the
    index note after it; the second plan must add nothing."""
    plan = plan_index_note_fix(scan(root))
    apply_index_note_fix(Journal(root), plan)
    written = (root / "MEMORY.md").read_bytes()
    again = plan_index_note_fix(scan(root))
    assert again.added == (), again.added
    assert again.after == again.before
    return plan.added, written


def test_names_with_line_breaks_brackets_and_outer_spaces_are_listed_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    names = ["a\nb", "c\rd", "e]]f", "g]h", "i[j", " lead", "trail ", "k`l", "m\\", "n&o"]
    for name in names:
        (tmp_path / f"{name}.md").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p\nq.md").write_text("")
    added, _ = fix_twice(tmp_path)
    assert added == (
        "- [ lead](%20lead.md)",
        "- [a b](a%0Ab.md)",
        "- [c d](c%0Dd.md)",
        "- [e&#93;&#93;f](e%5D%5Df.md)",
        "- [g&#93;h](g%5Dh.md)",
        "- [i&#91;j](i%5Bj.md)",
        "- [k&#96;l](k%60l.md)",
        "- [[m\\]]",
        "- [[n&o]]",
        "- [trail ](trail%20.md)",
        "- [p q](sub/p%0Aq.md)",
    )
    health = index_note_health(scan(tmp_path))
    assert health.unlisted == () and health.dead_links == ()


def test_an_index_note_in_a_folder_links_such_names_relative_to_it(tmp_path: Path) -> None:
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "Index.md").write_text("# Hub\n")
    (tmp_path / "x]]y.md").write_text("")
    plan = plan_index_note_fix(scan(tmp_path), index_note="hub/Index.md")
    assert plan.added == ("- [x&#93;&#93;y](../x%5D%5Dy.md)",)


def test_a_name_that_is_not_utf8_cannot_be_listed_and_is_said_once(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    (tmp_path / "b.md").write_text("")
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.md"), "wb"):
        pass
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.added == ("- [[b]]",)
    assert plan.unlistable == (
        (
            "caf\udce9.md",
            "its file name is not valid UTF-8, so no link in MEMORY.md can name it; "
            "rename the file",
        ),
    )
    apply_index_note_fix(Journal(tmp_path), plan)
    again = plan_index_note_fix(scan(tmp_path))
    assert again.added == () and again.empty
    assert again.unlistable == plan.unlistable


def test_an_index_note_ending_inside_a_code_block_gets_no_entries(tmp_path: Path) -> None:
    """Every entry appended after an unclosed fence would be code, not a link: appended
    again on every run."""
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n```\nsome code\n")
    (tmp_path / "a.md").write_text("")
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.empty and plan.added == () and plan.after == plan.before
    assert plan.unlistable == (
        (
            "a.md",
            "MEMORY.md ends inside a code block, comment or front matter, which would hide "
            "an entry added after it; close it, then fix again",
        ),
    )


def test_a_description_cannot_hide_the_entries_after_it(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    (tmp_path / "a.md").write_text("costs 5%% and <!-- more `x\n")
    (tmp_path / "b.md").write_text("")
    added, _ = fix_twice(tmp_path)
    assert added == ("- [[a]] — costs 5% and <!- more x", "- [[b]]")


# Characters that end, split or hide a link, or that a file name may hold anyway.
_CHARS = "ab Z\n\r\t[]|#^`%<>()\\:&!*_~$\"'-\u2028\u00a0ä中"


def _name(text: str) -> bool:
    # What the scan takes as a note: no dot-name, no temporary name (core/vault/files.py).
    return bool(text) and not text.startswith((".", "~$")) and not text.endswith("~")


@settings(max_examples=60)
@given(
    st.lists(
        st.text(alphabet=_CHARS, min_size=1, max_size=8).filter(_name),
        min_size=1,
        max_size=5,
        unique_by=str.lower,
    ),
    st.booleans(),
)
def test_a_second_fix_changes_nothing_whatever_the_names(names: list[str], nested: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "MEMORY.md").write_text("# Memory\n")
        base = root / "in sub" if nested else root
        base.mkdir(exist_ok=True)
        for name in names:
            (base / f"{name}.md").write_text("text\n")
        plan = plan_index_note_fix(scan(root))
        if not plan.empty:
            apply_index_note_fix(Journal(root), plan)
        written = (root / "MEMORY.md").read_bytes()
        again = plan_index_note_fix(scan(root))
        assert again.added == ()
        assert (root / "MEMORY.md").read_bytes() == written
        health = index_note_health(scan(root))
        # each note is listed, or said once to be one that cannot be
        assert set(health.unlisted) == {rel for rel, _ in again.unlistable}
        assert health.dead_links == ()


def test_dated_folders_with_such_names(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    for folder in ("lo]]g", " diary"):
        (tmp_path / folder).mkdir()
        for day in ("2024-01-01", "2024-01-02"):
            (tmp_path / folder / f"{day}.md").write_text("")
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.added == (
        "- [lo&#93;&#93;g/](lo%5D%5Dg/) — 2 dated notes, 2024-01-01 to 2024-01-02",
    )
    # The folder of a link is read with the spaces at its ends trimmed.
    assert plan.unlistable == (
        (" diary", "no link in MEMORY.md would be read as pointing to it; rename it"),
    )
    apply_index_note_fix(Journal(tmp_path), plan)
    again = plan_index_note_fix(scan(tmp_path))
    assert again.empty and again.unlistable == plan.unlistable
