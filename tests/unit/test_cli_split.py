"""``librarian split`` and the dumps ``librarian index`` lists: text, --json, --apply, undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from tests.unit.library.test_split import write_vault


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def big_dump(root: Path) -> bytes:
    """30 days of 10 lines of 100 characters: 362 lines, 30,460 bytes, 30 dated sections."""
    line = "x" * 99 + "\n"
    days = "".join(f"## 2024-04-{day:02d}\n{line * 10}\n" for day in range(1, 31))
    data = f"# Memory\n\n{days}".encode()
    (root / "MEMORY.md").write_bytes(data)
    return data


def test_index_lists_a_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = big_dump(tmp_path)
    code, out, _ = run(capsys, "index", str(tmp_path), "--json")
    assert code == 1
    dumps = json.loads(out)["dumps"]
    assert dumps == [
        {
            "note": "MEMORY.md",
            "candidate": True,
            "lines": 2 + 30 * 12,
            "bytes": len(data),
            "tokens": dumps[0]["tokens"],
            "sections": 30,
            "dated_sections": 30,
            "topic_sections": 0,
            "heading_level": 2,
            "past_limits": ["lines", "bytes", "tokens"],
            "first_date": "2024-04-01",
            "last_date": "2024-04-30",
            "command": 'librarian split VAULT "MEMORY.md"',
        }
    ]
    assert dumps[0]["tokens"] > 6_400
    code, out, _ = run(capsys, "index", str(tmp_path))
    assert (
        "MEMORY.md: 362 lines, 29.7 KB, ~" in out
        and '30 sections (30 dated, 0 by topic); librarian split VAULT "MEMORY.md"' in out
    )
    # a limit the user sets: past 100,000 bytes it is not a dump
    code, out, _ = run(capsys, "index", str(tmp_path), "--json", "--max-bytes", "100000")
    assert json.loads(out)["dumps"] == []


def test_split_plan_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_vault(tmp_path)
    before = (tmp_path / "MEMORY.md").read_bytes()
    code, out, _ = run(capsys, "split", str(tmp_path), "MEMORY", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["applied"] is False and doc["journal_entry"] is None
    assert [(s["n"], s["target"]) for s in doc["sections"]] == [
        (1, "logs/2024-03-01.md"),
        (2, "decisions/Deploy notes.md"),
        (3, "logs/2024-03-02.md"),
        (4, "security/Ideas.md"),
        (5, "logs/2024-03-02.md"),
    ]
    assert (tmp_path / "MEMORY.md").read_bytes() == before
    assert not (tmp_path / "logs").exists()
    code, out, _ = run(capsys, "split", str(tmp_path), "MEMORY", "--keep", "4", "--merge", "2,3")
    assert code == 0
    assert out.splitlines()[3:8] == [
        "     1  2024-03-01" + " " * 42 + "lines 8-10        → logs/2024-03-01.md",
        "     2  Deploy notes" + " " * 40 + "lines 11-16       → decisions/Deploy notes.md",
        "     3  2024-03-02" + " " * 42 + "lines 17-19       → decisions/Deploy notes.md",
        "     4  Ideas" + " " * 47 + "lines 20-22       → stays in MEMORY.md",
        "     5  2024-03-02 evening" + " " * 34 + "lines 23-24       → logs/2024-03-02.md",
    ]
    assert out.endswith("nothing written: --apply writes this plan\n")


def test_apply_then_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_vault(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*.md")}
    code, out, _ = run(capsys, "split", str(tmp_path), "MEMORY.md", "--apply", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["applied"] is True and doc["kept_tail_bytes"] == 0
    assert (tmp_path / "security" / "Ideas.md").read_text() == (
        "## Ideas\nTry the [[prompt-injection]] filter.\n\n"
    )
    code, out, _ = run(capsys, "undo", str(tmp_path))
    assert code == 0
    assert {p.name: p.read_bytes() for p in tmp_path.rglob("*.md")} == before


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nnothing but a paragraph\n")
    code, _, err = run(capsys, "split", str(tmp_path), "MEMORY")
    assert code == 1
    assert err == (
        "librarian: MEMORY.md has no sections to move: no heading level repeats below its title\n"
    )
    write_vault(tmp_path)
    code, _, err = run(capsys, "split", str(tmp_path), "MEMORY", "--to", "3")
    assert code == 2 and "--to '3': write it N=PATH" in err
    code, _, err = run(capsys, "split", str(tmp_path), "Nowhere")
    assert code == 4
