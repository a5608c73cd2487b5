"""A Link click on a related note: ``- [[note]]`` under ``## Related`` at the end, exactly
these bytes, through the journal, undone byte for byte, refused when the note changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.linking import (
    apply_related_link,
    plan_related_link,
    with_related_link,
)
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import WriteRefused
from tests.conftest import write


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Body.\n", "Body.\n\n## Related\n\n- [[B]]\n"),
        ("Body.", "Body.\n\n## Related\n\n- [[B]]\n"),
        ("", "## Related\n\n- [[B]]\n"),
        ("Body.\n\n## Related\n\n- [[A]]\n", "Body.\n\n## Related\n\n- [[A]]\n- [[B]]\n"),
        ("Body.\n## related\n- [[A]]\n\n\n", "Body.\n## related\n- [[A]]\n- [[B]]\n\n\n"),
        ("## Related\n", "## Related\n\n- [[B]]\n"),
        (
            "# T\n## Related\n- [[A]]\n\n## Later\ntext\n",
            "# T\n## Related\n- [[A]]\n- [[B]]\n\n## Later\ntext\n",
        ),
        (  # a deeper heading belongs to the section
            "## Related\n- [[A]]\n### Sub\n- [[C]]\n",
            "## Related\n- [[A]]\n### Sub\n- [[C]]\n- [[B]]\n",
        ),
        (  # a heading in a code block is no heading
            "```\n## Related\n```\n",
            "```\n## Related\n```\n\n## Related\n\n- [[B]]\n",
        ),
        ("---\ntitle: x\n---\nBody.\n", "---\ntitle: x\n---\nBody.\n\n## Related\n\n- [[B]]\n"),
        ("## Related\n- [[A]]", "## Related\n- [[A]]\n- [[B]]\n"),
    ],
)
def test_the_link_goes_at_the_end_of_the_related_section(before: str, after: str) -> None:
    assert with_related_link(before, "B") == after


def test_the_files_line_endings_are_kept() -> None:
    assert (
        with_related_link("Body.\r\n## Related\r\n- [[A]]\r\n", "B", "\r\n")
        == "Body.\r\n## Related\r\n- [[A]]\r\n- [[B]]\r\n"
    )
    assert (
        with_related_link("Body.\r\n", "B", "\r\n") == "Body.\r\n\r\n## Related\r\n\r\n- [[B]]\r\n"
    )


@given(st.text(alphabet=st.sampled_from("ab #\n`-[]"), max_size=60))
def test_only_one_line_is_added_and_the_rest_is_kept(text: str) -> None:
    """Whatever the note, the edit adds lines and removes none: deleting the added lines
    (and the newline put at an unterminated end) gives back the note."""
    after = with_related_link(text, "Zed")
    assert after.count("- [[Zed]]") == text.count("- [[Zed]]") + 1
    added = [line for line in after.splitlines() if line not in text.splitlines()]
    assert set(added) <= {"- [[Zed]]", "## Related", ""}
    kept = iter(after.splitlines())
    assert all(line in kept for line in text.splitlines())  # a subsequence, in order


def test_a_link_click_writes_exactly_the_expected_bytes_and_undo_restores_them(
    vault: Path,
) -> None:
    original = "\ufeffDiary entry.\r\nWe moved the loader.\r\n".encode()
    write(vault, "diary/2026-09-08.md", original)
    write(vault, "projects/Pipeline Migration.md", "The loader moves.\n")
    index = VaultIndex.scan(vault, use_cache=False)
    plan = plan_related_link(index, "diary/2026-09-08.md", "projects/Pipeline Migration.md")
    assert plan.name == "Pipeline Migration"
    assert "+- [[Pipeline Migration]]" in plan.diff.splitlines()
    journal = Journal(vault)
    entry = apply_related_link(journal, plan)
    assert entry.written == ("diary/2026-09-08.md",)
    expected = (
        "\ufeffDiary entry.\r\nWe moved the loader.\r\n\r\n## Related\r\n\r\n"
        "- [[Pipeline Migration]]\r\n"
    ).encode()
    assert (vault / "diary/2026-09-08.md").read_bytes() == expected
    undone = journal.undo()
    assert undone.restored == ("diary/2026-09-08.md",)
    assert (vault / "diary/2026-09-08.md").read_bytes() == original


def test_a_note_changed_after_the_preview_is_not_written(vault: Path) -> None:
    write(vault, "a.md", "First.\n")
    write(vault, "b.md", "Second.\n")
    index = VaultIndex.scan(vault, use_cache=False)
    plan = plan_related_link(index, "a.md", "b.md")
    write(vault, "a.md", "First, and an agent's line.\n")
    with pytest.raises(WriteRefused):
        apply_related_link(Journal(vault), plan)
    assert (vault / "a.md").read_text() == "First, and an agent's line.\n"


def test_a_name_shared_by_two_notes_is_linked_by_its_path(vault: Path) -> None:
    write(vault, "a.md", "Body.\n")
    write(vault, "x/Twin.md", "one\n")
    write(vault, "y/Twin.md", "two\n")
    index = VaultIndex.scan(vault, use_cache=False)
    assert plan_related_link(index, "a.md", "y/Twin.md").after == (
        "Body.\n\n## Related\n\n- [[y/Twin]]\n"
    )


def test_a_note_that_is_not_utf8_is_refused(vault: Path) -> None:
    write(vault, "a.md", b"caf\xe9\n")
    write(vault, "b.md", "b\n")
    index = VaultIndex.scan(vault, use_cache=False)
    with pytest.raises(WriteRefused):
        plan_related_link(index, "a.md", "b.md")
