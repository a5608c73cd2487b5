"""``librarian index``: the health report, --json keys, --fix / --dry-run and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.writing.journal import Journal
from tests.index_vault import APPENDED, UNLISTED, write_index_vault


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_report_lists_the_findings_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_index_vault(tmp_path)
    code, out, _ = run(capsys, "index", str(tmp_path), "--exclude-pattern", "templates")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        f"MEMORY.md: 19 lines, {len(data):,} bytes, ~{lines[0].split('~')[1].split()[0]} "
        "tokens (agents load 200 lines, 25 KB)"
    )
    assert lines[1] == "16 notes to list, 1 excluded: 9 listed, 7 not listed"
    assert lines[2:10] == ["not listed (7):", *(f"  {rel}" for rel in UNLISTED)]
    assert lines[10:12] == ["dead links (1):", "  line 11: [[Missing Note]]"]
    assert lines[12] == "entries holding text instead of pointing (1):"
    assert lines[-1] == (
        "dated folders (one entry each): diary/ (3 notes, listed), journal/ (2 notes, "
        "not listed), logs/ (2 notes, listed)"
    )
    assert (tmp_path / "MEMORY.md").read_bytes() == data


def test_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_index_vault(tmp_path)
    code, out, _ = run(capsys, "index", str(tmp_path), "--json", "--exclude-pattern", "templates")
    doc = json.loads(out)
    assert code == 1
    assert doc["unlisted"] == list(UNLISTED)
    assert doc["dead_links"] == [{"line": 11, "target": "Missing Note", "text": "[[Missing Note]]"}]
    assert doc["fix"] is None and doc["healthy"] is False


def test_dry_run_prints_the_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_index_vault(tmp_path)
    code, out, _ = run(
        capsys,
        "index",
        str(tmp_path),
        "--fix",
        "--dry-run",
        "--json",
        "--exclude-pattern",
        "templates",
    )
    fix = json.loads(out)["fix"]
    assert code == 1
    assert fix["dry_run"] is True and fix["written"] is False and fix["journal_entry"] is None
    added = [line[1:] for line in fix["diff"].splitlines() if line.startswith("+- ")]
    assert (
        added == fix["entries"] == [line for line in APPENDED.splitlines() if line.startswith("- ")]
    )
    assert (tmp_path / "MEMORY.md").read_bytes() == data
    assert not (tmp_path / ".librarian").exists()


def test_fix_writes_through_the_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_index_vault(tmp_path)
    code, out, _ = run(capsys, "index", str(tmp_path), "--fix", "--exclude-pattern", "templates")
    assert code == 0
    assert out.splitlines()[-1].startswith("fix: added 6 entries in MEMORY.md (journal entry ")
    assert (tmp_path / "MEMORY.md").read_bytes() == data + APPENDED.encode("utf-8")
    assert Journal(tmp_path).entries()[0].description == (
        "Index note: 6 entries added to MEMORY.md"
    )
    code, out, _ = run(capsys, "index", str(tmp_path), "--fix", "--exclude-pattern", "templates")
    assert code == 1  # the dead link and the entry holding text remain
    assert out.splitlines()[-1] == "fix: nothing to add, every note is listed"


def test_index_option_and_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_index_vault(tmp_path)
    code, out, _ = run(capsys, "index", str(tmp_path), "--index", "zeta", "--json")
    assert json.loads(out)["index"] == "zeta.md"
    code, out, _ = run(capsys, "index", str(tmp_path), "--index", "hub/New", "--json")
    assert json.loads(out)["index"] == "hub/New.md" and json.loads(out)["exists"] is False
    code, _, err = run(capsys, "index", str(tmp_path), "--dry-run")
    assert code == 2 and "--dry-run goes with --fix" in err
    code, _, err = run(capsys, "index", str(tmp_path), "--index", "../x")
    assert code == 2 and "'../x' is not a note of this vault" in err


def test_healthy_index_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("a\n")
    (tmp_path / "MEMORY.md").write_text("- [[a]] — the a\n")
    code, out, _ = run(capsys, "index", str(tmp_path))
    assert code == 0 and out.splitlines()[-1] == "healthy: it lists every note, and only points"


def test_a_second_fix_adds_nothing_for_names_a_wiki_link_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26, item 15: entries for such names were appended again on every run."""
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    for name in ("a\nb", "c\rd", "e]]f"):
        (tmp_path / f"{name}.md").write_text("")
    code, out, _ = run(capsys, "index", str(tmp_path), "--fix")
    assert code == 0 and out.splitlines()[-1].startswith("fix: added 3 entries in MEMORY.md")
    written = (tmp_path / "MEMORY.md").read_bytes()
    assert written == (
        b"# Memory\n\n## Notes\n\n- [a b](a%0Ab.md)\n- [c d](c%0Dd.md)\n"
        b"- [e&#93;&#93;f](e%5D%5Df.md)\n"
    )
    code, out, _ = run(capsys, "index", str(tmp_path), "--fix")
    assert (code, out.splitlines()[-1]) == (0, "fix: nothing to add, every note is listed")
    assert (tmp_path / "MEMORY.md").read_bytes() == written


def test_a_note_that_cannot_be_listed_is_said_and_not_appended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n```\nopen fence\n")
    (tmp_path / "a.md").write_text("")
    for _ in range(2):
        code, out, _ = run(capsys, "index", str(tmp_path), "--fix")
        assert code == 1
        assert out.splitlines()[-3:] == [
            "cannot be listed (1):",
            "  a.md: MEMORY.md ends inside a code block, comment or front matter, which would "
            "hide an entry added after it; close it, then fix again",
            "fix: nothing can be added",
        ]
    assert (tmp_path / "MEMORY.md").read_text() == "# Memory\n\n```\nopen fence\n"
    code, out, _ = run(capsys, "index", str(tmp_path), "--fix", "--json")
    assert json.loads(out)["fix"]["unlistable"] == [
        {
            "path": "a.md",
            "reason": "MEMORY.md ends inside a code block, comment or front matter, which "
            "would hide an entry added after it; close it, then fix again",
        }
    ]


def test_index_outside_the_vault_hidden_or_ignored_is_refused_alike_whether_it_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "MEMORY.md").write_text("- [[a]]\n")
    (root / "a.md").write_text("# A\n")
    (root / ".librarianignore").write_text("private/\n")
    secret = "- " + "SECRET-API-KEY " * 20 + "\n"
    (root / "private").mkdir()
    (root / "private" / "keys.md").write_text(secret)
    (root / ".obsidian" / "plugins" / "p").mkdir(parents=True)
    (root / ".obsidian" / "plugins" / "p" / "data.json").write_text(secret)
    (tmp_path / "outside.md").write_text(secret)
    for names in (
        ("private/keys", "private/gone"),
        (".obsidian/plugins/p/data.json", ".obsidian/plugins/p/gone.json"),
        ("../outside.md", "../gone.md"),
    ):
        for name in names:
            code, out, err = run(capsys, "index", str(root), "--index", name, "--json")
            assert (code, out) == (2, ""), name
            assert err == (
                f"librarian: {name!r} is not a note of this vault: the index note is a .md "
                "file inside the vault, not in a dot-folder or an ignored folder (e.g. "
                "MEMORY.md)\n"
            )


def test_without_memory_the_index_note_is_the_vault_front_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: foam-docs has index.md, and `librarian index` insisted on MEMORY.md."""
    (tmp_path / "a.md").write_text("[[b]]\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("b\n", encoding="utf-8")
    (tmp_path / "index.md").write_text("# Home\n\n- [[a]]\n", encoding="utf-8")
    code, out, _ = run(capsys, "index", str(tmp_path), "--json")
    doc = json.loads(out)
    assert (doc["index"], doc["exists"], doc["unlisted"]) == ("index.md", True, ["b.md"])
    assert code == 1
    # No note named like a front page: MEMORY.md, which a fix creates (not the most linked).
    (tmp_path / "index.md").unlink()
    code, out, _ = run(capsys, "index", str(tmp_path), "--json")
    assert (json.loads(out)["index"], json.loads(out)["exists"]) == ("MEMORY.md", False)
