"""Applying a split: one journal entry, undone byte for byte; an agent appending meanwhile."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from librarian_gui.core.agents.context import ContextPack, context_pack
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.library.apply import DumpChanged, apply_split
from librarian_gui.core.library.sections import split_lines
from librarian_gui.core.library.split import NothingToSplit, plan_split
from librarian_gui.core.vault.files import read_note
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import WriteRefused
from tests.unit.library.test_split import DUMP, OTHER, write_vault

REPO = Path(__file__).resolve().parents[3]


def notes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.md"))
        if ".librarian" not in p.parts
    }


def test_apply_writes_the_plan_and_undo_takes_it_back(tmp_path: Path) -> None:
    write_vault(tmp_path)
    before = notes(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    result = apply_split(Journal(tmp_path), plan)
    after = notes(tmp_path)
    assert sorted(after) == [
        "MEMORY.md",
        "decisions/Deploy notes.md",
        "decisions/use-duckdb.md",
        "logs/2024-03-01.md",
        "logs/2024-03-02.md",
        "other.md",
        "security/Ideas.md",
    ]
    assert after["MEMORY.md"] == plan.index_text.encode()
    assert after["logs/2024-03-02.md"] == (
        b"## 2024-03-02\n- Fixed the [[Deploy notes|deploy]].\n\n## 2024-03-02 evening\nLate fix.\n"
    )
    assert after["other.md"] == (
        b"See [[decisions/Deploy notes#Deploy notes]] and "
        b"[the log](logs/2024-03-01.md#2024-03-01).\n"
    )
    assert result.kept_tail == 0
    assert len(Journal(tmp_path).entries()) == 1
    undone = Journal(tmp_path).undo()
    assert undone.entry_id == result.entry.id and undone.refused == ()
    assert notes(tmp_path) == before


def test_the_new_notes_resolve_after_the_split(tmp_path: Path) -> None:
    write_vault(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    apply_split(Journal(tmp_path), plan)
    index = VaultIndex.scan(tmp_path, use_cache=False)
    assert dict(index.out_edges["other.md"]) == {
        "decisions/Deploy notes.md": 1,
        "logs/2024-03-01.md": 1,
    }
    # the logs' entry links their folder, as the index note's fix writes one
    assert {t for t in index.out_edges["MEMORY.md"] if t in index.notes} == {
        "decisions/Deploy notes.md",
        "security/Ideas.md",
    }
    assert "logs/2024-03-01.md" in index.out_edges
    assert set(index.out_edges["logs/2024-03-02.md"]) == {"decisions/Deploy notes.md"}


def test_lines_appended_since_the_plan_stay_in_the_dump(tmp_path: Path) -> None:
    write_vault(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    with open(tmp_path / "MEMORY.md", "a", encoding="utf-8") as note:
        note.write("## 2024-03-03\nAn agent's new entry.\n")
    grown = (tmp_path / "MEMORY.md").read_bytes()
    result = apply_split(Journal(tmp_path), plan)
    assert result.kept_tail == len("## 2024-03-03\nAn agent's new entry.\n")
    assert (tmp_path / "MEMORY.md").read_text() == (
        plan.index_text + "## 2024-03-03\nAn agent's new entry.\n"
    )
    Journal(tmp_path).undo()
    assert (tmp_path / "MEMORY.md").read_bytes() == grown


def test_an_agent_appending_during_the_apply_loses_nothing(tmp_path: Path) -> None:
    """Appends that land before the dump's new version is swapped in stay at its end; one
    that lands in the old version while it is swapped makes the write stand back (the
    journal keeps the other program's bytes), and the split is taken back whole."""
    write_vault(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    applied = True
    with subprocess.Popen(
        [sys.executable, "-m", "tests.appender", str(tmp_path / "MEMORY.md"), "300", "7"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    ) as agent:
        assert agent.stdout is not None and agent.stdout.readline() == "ready\n"
        try:
            apply_split(Journal(tmp_path), plan)
        except DumpChanged:
            pytest.fail("an append is not a change that refuses the split")
        except WriteRefused as exc:
            assert "the split was taken back, nothing changed" in str(exc)
            applied = False
        finally:
            assert agent.stdout.read() == "done\n"
    text = (tmp_path / "MEMORY.md").read_text()
    head = plan.index_text if applied else DUMP
    assert text.startswith(head)
    tail = text[len(head) :].splitlines()
    assert tail == [f"agent line {n} mentions alpha" for n in range(300)]
    if not applied:
        assert sorted(notes(tmp_path)) == ["MEMORY.md", "decisions/use-duckdb.md", "other.md"]
        assert (tmp_path / "other.md").read_text() == OTHER


def test_a_dump_rewritten_since_the_plan_is_refused(tmp_path: Path) -> None:
    write_vault(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    (tmp_path / "MEMORY.md").write_text(DUMP.replace("Late fix.", "Late fix, edited."))
    before = notes(tmp_path)
    with pytest.raises(DumpChanged, match="make a fresh plan"):
        apply_split(Journal(tmp_path), plan)
    assert notes(tmp_path) == before
    assert Journal(tmp_path).entries() == []


def test_a_note_made_under_a_new_name_meanwhile_takes_the_split_back(tmp_path: Path) -> None:
    write_vault(tmp_path)
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    (tmp_path / "security").mkdir()
    (tmp_path / "security" / "Ideas.md").write_text("written by someone else\n")
    before = notes(tmp_path)
    with pytest.raises(WriteRefused, match="taken back, nothing changed"):
        apply_split(Journal(tmp_path), plan)
    assert notes(tmp_path) == before
    assert (tmp_path / "other.md").read_text() == OTHER


# ------------------------------------------------------------------ any dump

_TEXT = st.sampled_from(
    [
        *("", "text", "- item", "  indented", "> quote", "**bold**", "same line", "```", "---"),
        *("see [a](x.md)", "[[#Topic]] and [b](MEMORY.md#other-topic)", "[[MEMORY#Sub]]"),
    ]
)
_HEADING = st.sampled_from(
    ["## 2024-05-01", "## 2024-05-02 later", "## Topic", "## Other topic", "### Sub", "# Title"]
)
_LINE = st.one_of(_TEXT, _HEADING)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_LINE, min_size=1, max_size=40),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_any_dump_splits_and_undoes_losslessly(
    lines: list[str], newline: str, final_newline: bool
) -> None:
    text = newline.join(lines) + (newline if final_newline else "")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "MEMORY.md").write_bytes(text.encode())
        try:
            plan = plan_split(VaultIndex.scan(root, use_cache=False), "MEMORY.md")
        except NothingToSplit:
            return
        apply_split(Journal(root), plan)
        # a line whose links the plan rewrote is counted as it was
        back = {c.after: c.before for c in plan.link_changes}
        landed: Counter[str] = Counter()
        for data in notes(root).values():
            for line in split_lines(data.decode()):
                for after, before in back.items():
                    line = line.replace(after, before)
                landed[line.rstrip("\r\n")] += 1
        expected = Counter(line.rstrip("\r\n") for line in split_lines(text))
        expected.update(line.rstrip("\r\n") for line in plan.index_added)
        assert landed == expected
        Journal(root).undo()
        assert notes(root) == {"MEMORY.md": text.encode()}


def test_a_context_pack_before_and_after_the_split(tmp_path: Path) -> None:
    """Before: the pack's index share holds the first lines of the dump; after: the whole
    short index, and the day that answers as a note of its own."""
    line = "the agent kept a note about the crawler queue\n"
    days = "".join(f"## 2024-02-{d:02d}\n{line * 30}\n" for d in range(1, 21))
    days = days.replace("## 2024-02-07\n", "## 2024-02-07\nWe chose DuckDB for staging.\n")
    (tmp_path / "MEMORY.md").write_text(f"# Memory\n\nThe agent's memory.\n\n{days}")
    question = "what did we choose for staging?"

    def pack_of(root: Path) -> ContextPack:
        index = VaultIndex.scan(root, use_cache=False)
        return context_pack(index, lambda rel: read_note(root, rel).text, question, 1000)

    before = pack_of(tmp_path)
    assert before.index_note == "MEMORY.md"
    # 4 lines above the days, 32 a day, the line added: the last (blank) line not counted
    assert before.index_total == 4 + 20 * 32 + 1 - 1 and before.index_lines < before.index_total
    plan = plan_split(VaultIndex.scan(tmp_path, use_cache=False), "MEMORY.md")
    apply_split(Journal(tmp_path), plan)
    after = pack_of(tmp_path)
    assert (after.index_lines, after.index_total) == (5, 5)
    assert "logs/2024-02-07.md" in after.notes
    assert "We chose DuckDB for staging." in after.text
