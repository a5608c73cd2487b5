"""The ``librarian`` command: output, JSON keys, exit codes, and no Qt at start-up."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.cli.common import _Progress
from tests.conftest import write


@pytest.fixture
def cli_vault(vault: Path) -> Path:
    write(vault, "Alpha.md", '---\nup: "[[Beta]]"\n---\nSee [[Beta|b]] and [ga](sub/Gamma.md).\n')
    write(vault, "Beta.md", "Back to [[alpha]].\n\nAnd [[Nowhere]] twice [[nowhere]].\n")
    write(vault, "sub/Gamma.md", "Deep note, [[Beta#Top]].\n")
    write(vault, "x/Twin.md", "")
    write(vault, "y/Twin.md", "")
    write(vault, "img.png", b"\x89PNG")
    return vault


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_json(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "scan", str(cli_vault), "--json")
    assert code == 0
    data = json.loads(out)
    assert {
        k: data[k]
        for k in (
            "notes",
            "attachments",
            "links",
            "resolved",
            "unresolved",
            "orphans",
            "warnings",
            "edges",
            "unresolved_targets",
        )
    } == {
        "notes": 5,
        "attachments": 1,
        "links": {"wiki": 5, "embed": 0, "markdown": 1, "property": 1},
        "resolved": 5,
        "unresolved": 2,
        "orphans": 2,
        "warnings": 0,
        "edges": 5,  # Alpha→Beta, Alpha→Gamma, Beta→Alpha, Beta→ghost, Gamma→Beta
        "unresolved_targets": 1,
    }
    assert data["warning_details"] == []


def test_scan_human(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "scan", str(cli_vault))
    assert code == 0 and err == ""
    assert "notes        5\n" in out
    assert "links        7 (wiki 5, embed 0, markdown 1, property 1)\n" in out


def test_backlinks(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "backlinks", str(cli_vault), "beta", "--json")
    assert code == 0
    assert json.loads(out) == [
        {
            "note": "Alpha.md",
            "source": "Alpha.md",
            "line": 2,
            "column": 5,
            "kind": "property",
            "context": 'up: "[[Beta]]"',
        },
        {
            "note": "Alpha.md",
            "source": "Alpha.md",
            "line": 4,
            "column": 4,
            "kind": "wiki",
            "context": "See [[Beta|b]] and [ga](sub/Gamma.md).",
        },
        {
            "note": "sub/Gamma.md",
            "source": "sub/Gamma.md",
            "line": 1,
            "column": 11,
            "kind": "wiki",
            "context": "Deep note, [[Beta#Top]].",
        },
    ]
    code, out, _ = run(capsys, "backlinks", str(cli_vault), "Beta.md")
    assert out == (
        'Alpha.md:2: up: "[[Beta]]"\n'
        "Alpha.md:4: See [[Beta|b]] and [ga](sub/Gamma.md).\n"
        "sub/Gamma.md:1: Deep note, [[Beta#Top]].\n"
    )


def test_links(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "links", str(cli_vault), "Beta", "--json")
    assert code == 0
    assert [
        (r["target"], r["line"], r["node"], r["node_kind"], r["resolved"]) for r in json.loads(out)
    ] == [
        ("alpha", 1, "Alpha.md", "note", True),
        ("Nowhere", 3, "//unresolved/nowhere", "unresolved", False),
        ("nowhere", 3, "//unresolved/nowhere", "unresolved", False),
    ]


def test_neighbors(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "neighbors", str(cli_vault), "sub/Gamma", "--depth", "2", "--json")
    assert code == 0
    assert [(r["node"], r["distance"]) for r in json.loads(out)] == [
        ("Alpha.md", 1),
        ("Beta.md", 1),
        ("//unresolved/nowhere", 2),
    ]


def test_orphans_and_unresolved(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "orphans", str(cli_vault), "--json")
    assert json.loads(out) == ["x/Twin.md", "y/Twin.md"]
    _, out, _ = run(capsys, "unresolved", str(cli_vault), "--json")
    assert json.loads(out) == [
        {
            "target": "Nowhere",
            "count": 2,
            "sources": [{"note": "Beta.md", "source": "Beta.md", "count": 2}],
        }
    ]


def test_errors_and_exit_codes(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "scan", str(cli_vault / "missing"))
    assert (code, out) == (3, "")
    assert err == f"librarian: {cli_vault / 'missing'}: no such vault folder\n"
    code, _, err = run(capsys, "backlinks", str(cli_vault), "Nowhere")
    assert code == 4
    assert err == (
        "librarian: no note named 'Nowhere' (1 note links to it as an unresolved target)\n"
    )
    code, _, err = run(capsys, "links", str(cli_vault), "Twin")
    assert code == 5
    assert err == (
        "librarian: 'Twin' matches 2 notes: x/Twin.md, y/Twin.md; give the path to choose one\n"
    )
    code, _, err = run(capsys, "links", str(cli_vault), "img.png")
    assert (code, err) == (4, "librarian: 'img.png' is an attachment, not a note\n")
    with pytest.raises(SystemExit) as info:
        main(["neighbors", str(cli_vault), "Beta", "--depth", "4"])
    assert info.value.code == 2


def _packages_after_a_scan(vault: Path) -> set[str]:
    """The top-level packages a ``librarian scan`` imports, in a fresh interpreter."""
    code = (
        "import sys; from librarian_gui.cli import main; "
        f"rc = main(['scan', {str(vault)!r}, '--no-cache']); "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules}))); sys.exit(rc)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(result.stdout.strip().splitlines()[-1].split())


def test_command_line_never_imports_qt(cli_vault: Path) -> None:
    packages = _packages_after_a_scan(cli_vault)
    assert "librarian_gui" in packages
    assert packages & {"PySide6", "pyqtgraph", "shiboken6"} == set()


def test_a_scan_imports_neither_the_renderer_nor_numpy(cli_vault: Path) -> None:
    """Every command builds the whole parser; what only some commands need (the Markdown
    renderer for ``split``, numpy for search and packs) is imported by those commands."""
    assert _packages_after_a_scan(cli_vault) & {"markdown_it", "numpy"} == set()


def test_core_has_no_qt_import() -> None:
    core = Path(__file__).resolve().parents[2] / "librarian_gui" / "core"
    offenders = [
        str(p.relative_to(core))
        for p in core.rglob("*.py")
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith(
            (
                "import PySide6",
                "from PySide6",
                "import pyqtgraph",
                "from pyqtgraph",
                "import shiboken6",
            )
        )
    ]
    assert offenders == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_only_for_long_scans() -> None:
    tty = _Terminal()
    bar = _Progress(tty)
    bar(250, 1000)
    bar(1000, 1000)
    bar.close()
    assert tty.getvalue() == (
        "\rIndexing [#######.......................] 250/1000"
        "\rIndexing [##############################] 1000/1000"
        "\r" + " " * 60 + "\r"
    )
    small = _Terminal()
    _Progress(small)(10, 10)
    assert small.getvalue() == ""
    pipe = io.StringIO()
    _Progress(pipe)(1000, 1000)
    assert pipe.getvalue() == ""


def test_a_file_as_vault_and_a_typo_in_a_note_say_so(
    cli_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "scan", str(cli_vault / "Beta.md"))
    assert (code, out) == (3, "")
    assert err == f"librarian: {cli_vault / 'Beta.md'}: is a file, not a vault folder\n"
    code, _, err = run(capsys, "backlinks", str(cli_vault), "Bta")
    assert code == 4
    assert err == "librarian: no note named 'Bta'; did you mean Beta.md?\n"


def test_a_concept_id_as_the_json_names_it_is_a_note_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    write(vault, "concepts.json", json.dumps({"rag": {"aliases": ["retrieval"]}}))
    write(vault, "a.md", "We tried [[rag]] today.\n")
    code, out, _ = run(capsys, "backlinks", str(vault), "//concept/rag", "--json")
    assert code == 0
    assert [b["source"] for b in json.loads(out)] == ["a.md"]
    code, _, err = run(capsys, "backlinks", str(vault), "//concept/nope")
    assert code == 4
    assert err.startswith("librarian: no note named '//concept/nope' (no concept of the")


@pytest.mark.parametrize(
    "command",
    [
        ["concepts", "check", "VAULT"],
        ["tag", "VAULT"],
        ["cooccur", "VAULT", "--all"],
        ["timeline", "VAULT", "x"],
        ["search", "VAULT", "q"],
    ],
)
def test_every_command_says_a_file_is_not_a_vault(
    cli_vault: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    note = cli_vault / "Beta.md"  # concepts check and tag looked for Beta.md/concepts.json
    code, out, err = run(capsys, *[str(note) if a == "VAULT" else a for a in command])
    assert (code, out) == (3, "")
    assert err == f"librarian: {note}: is a file, not a vault folder\n"
