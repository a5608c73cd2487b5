"""The index note's Fix: exactly the bytes expected appended, line endings and BOM kept,
undo gives the bytes back, and a note changed since the preview is never written."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.insight.index_note import index_note_health
from librarian_gui.core.insight.index_note_fix import (
    apply_index_note_fix,
    plan_index_note_fix,
    trim,
)
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import WriteRefused
from tests.index_vault import APPENDED, EXCLUDE, write_index_vault


def scan(root: Path) -> VaultIndex:
    return VaultIndex.scan(root, use_cache=False)


@pytest.mark.parametrize(("newline", "bom"), [("\n", False), ("\r\n", True)])
def test_fix_appends_exactly_the_entries_and_undo_restores(
    tmp_path: Path, newline: str, bom: bool
) -> None:
    before = write_index_vault(tmp_path, newline=newline, bom=bom)
    index = scan(tmp_path)
    plan = plan_index_note_fix(index, exclude=EXCLUDE)
    assert not plan.creates and len(plan.added) == 6
    journal = Journal(tmp_path)
    entry = apply_index_note_fix(journal, plan)
    assert entry.written == ("MEMORY.md",)
    after = (tmp_path / "MEMORY.md").read_bytes()
    assert after == before + APPENDED.replace("\n", newline).encode("utf-8")
    # the vault read again: every note listed, the fix added nothing more to do
    health = index_note_health(scan(tmp_path), exclude=EXCLUDE)
    assert health.unlisted == () and health.missing == ()
    journal.undo()
    assert (tmp_path / "MEMORY.md").read_bytes() == before


def test_an_index_without_a_final_line_ending_gets_one(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A thing\n")
    (tmp_path / "MEMORY.md").write_bytes(b"# Index\n- [[b]]")
    (tmp_path / "b.md").write_text("")
    plan = plan_index_note_fix(scan(tmp_path))
    apply_index_note_fix(Journal(tmp_path), plan)
    expected = b"# Index\n- [[b]]\n\n## Notes\n\n- [[a]] \xe2\x80\x94 A thing\n"
    assert (tmp_path / "MEMORY.md").read_bytes() == expected


def test_fix_refused_when_the_index_changed_since_the_plan(tmp_path: Path) -> None:
    write_index_vault(tmp_path)
    plan = plan_index_note_fix(scan(tmp_path), exclude=EXCLUDE)
    changed = b"# Someone else's edit\n"
    (tmp_path / "MEMORY.md").write_bytes(changed)
    with pytest.raises(WriteRefused, match="changed on disk"):
        apply_index_note_fix(Journal(tmp_path), plan)
    assert (tmp_path / "MEMORY.md").read_bytes() == changed


def test_a_missing_index_note_is_created_and_undo_removes_it(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("---\ndate: 2020-01-01\n---\nBee line\n")
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "2024-01-01.md").write_text("x\n")
    (tmp_path / "log" / "2024-01-02.md").write_text("y\n")
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.creates
    assert plan.diff.startswith("--- /dev/null\n+++ b/MEMORY.md\n")
    journal = Journal(tmp_path)
    apply_index_note_fix(journal, plan)
    assert (tmp_path / "MEMORY.md").read_text(encoding="utf-8") == (
        "# MEMORY\n"
        "\n"
        "## Notes\n"
        "\n"
        "- [[b]] — Bee line\n"
        "\n"
        "## log/\n"
        "\n"
        "- [log/](log/) — 2 dated notes, 2024-01-01 to 2024-01-02\n"
    )
    journal.undo()
    assert not (tmp_path / "MEMORY.md").exists()


def test_creation_refused_when_the_index_appeared_since_the_plan(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("b\n")
    plan = plan_index_note_fix(scan(tmp_path))
    (tmp_path / "MEMORY.md").write_bytes(b"theirs\n")
    with pytest.raises(WriteRefused, match="created by another program"):
        apply_index_note_fix(Journal(tmp_path), plan)
    assert (tmp_path / "MEMORY.md").read_bytes() == b"theirs\n"


def test_nothing_to_add(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("b\n")
    (tmp_path / "MEMORY.md").write_text("- [[b]]\n")
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.empty and plan.diff == "" and plan.after == plan.before
    with pytest.raises(WriteRefused, match="nothing to add"):
        apply_index_note_fix(Journal(tmp_path), plan)
    assert not (tmp_path / ".librarian").exists()


def test_index_note_in_a_folder_links_relative_to_it(tmp_path: Path) -> None:
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "Index.md").write_text("# Hub\n")
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "2024-01-01.md").write_text("x\n")
    (tmp_path / "log" / "2024-01-02.md").write_text("y\n")
    (tmp_path / "my notes").mkdir()
    (tmp_path / "my notes" / "c.md").write_text("# C (see)\n")
    plan = plan_index_note_fix(scan(tmp_path), index_note="hub/Index.md")
    assert plan.added == (
        "- [log/](../log/) — 2 dated notes, 2024-01-01 to 2024-01-02",
        "- [[c]] — C (see)",
    )


def test_trim() -> None:
    assert trim("short") == "short"
    assert trim("word " * 20, 20) == "word word word…"
    assert trim("One sentence. Twothree", 20) == "One sentence."
    assert trim("x" * 30, 10) == "x" * 9 + "…"


_FOLDERS = ("", "a/", "b/c/", "log/", "My Notes/")
_NAMES = ("x", "X", "2024-01-0{}", "2023_05_1{}", "n#{}", "p (note {})", "Überblick {}", "y")


@st.composite
def _vaults(draw: st.DrawFn) -> tuple[dict[str, str], list[str], str, bool]:
    count = draw(st.integers(1, 10))
    notes: dict[str, str] = {}
    for n in range(count):
        folder = draw(st.sampled_from(_FOLDERS))
        name = draw(st.sampled_from(_NAMES)).format(n)
        rel = f"{folder}{name}.md"
        if rel.lower() not in {r.lower() for r in notes}:
            notes[rel] = draw(
                st.sampled_from(["", "# Heading\n", "plain line\n", "---\na: 1\n---\n"])
            )
    listed = draw(st.lists(st.sampled_from(sorted(notes)), unique=True))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return notes, listed, newline, draw(st.booleans())


@settings(max_examples=40)
@given(_vaults())
def test_after_a_fix_every_note_is_listed_and_no_byte_before_changed(
    vault: tuple[dict[str, str], list[str], str, bool],
) -> None:
    notes, listed, newline, bom = vault
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        for rel, text in notes.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        lines = ["# Index", *(f"- [[{rel[:-3]}]]" for rel in listed if "#" not in rel)]
        before = (b"\xef\xbb\xbf" if bom else b"") + newline.join(lines).encode("utf-8")
        (root / "MEMORY.md").write_bytes(before)
        plan = plan_index_note_fix(scan(root))
        if plan.empty:
            return
        apply_index_note_fix(Journal(root), plan)
        after = (root / "MEMORY.md").read_bytes()
        assert after.startswith(before)
        added = after[len(before) :].decode("utf-8")
        # The file's own line endings, every one — when it has one: a one-line index note
        # ("# Index", nothing listed) says nothing of them, and the fix writes "\n".
        if newline == "\r\n" and len(lines) > 1:
            assert "\n" not in added.replace("\r\n", "")
        health = index_note_health(scan(root))
        assert health.unlisted == () and health.missing == () and health.dead_links == ()


def test_descriptions(tmp_path: Path) -> None:
    notes = {
        "eval-metrics.md": "# Eval metrics\n\n## Context\n\nWhat we [[measure|count]].\n",
        "plans.md": "---\ntitle: x\n---\n\n# Q3 plans for [[team]]\n",
        "bare.md": "```\ncode\n```\n<!-- note -->\nFirst [words](x.md) here\n",
        "empty.md": "# empty\n",
    }
    for rel, text in notes.items():
        (tmp_path / rel).write_text(text)
    plan = plan_index_note_fix(scan(tmp_path))
    assert plan.added == (
        "- [[bare]] — First words here",
        "- [[empty]]",
        "- [[eval-metrics]] — What we count.",
        "- [[plans]] — Q3 plans for team",
    )


def test_the_index_note_spelled_in_another_case_is_that_note(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_text("# Mine\n")
    (tmp_path / "a.md").write_text("# Alpha\n")
    index = scan(tmp_path)
    health = index_note_health(index)  # asked for MEMORY.md
    assert (health.index, health.exists, health.unlisted) == ("memory.md", True, ("a.md",))
    apply_index_note_fix(Journal(tmp_path), plan_index_note_fix(index))
    assert (tmp_path / "memory.md").read_text() == "# Mine\n\n## Notes\n\n- [[a]] — Alpha\n"
    assert not (tmp_path / "MEMORY.md").exists()
