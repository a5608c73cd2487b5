"""Every hostile input through every command of ``librarian``: a clear message on that item,
the rest of the vault read as if it were not there, and not one byte of it changed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from librarian_gui.cli import main
from tests.faults.cases import GOOD, Case
from tests.faults.conftest import fingerprint, without_own_files


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    # An error is one line starting with "librarian:", never a traceback.
    assert all(line.startswith("librarian: ") for line in err.splitlines()), err
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str, codes: tuple[int, ...] = (0,)) -> Any:
    code, out, err = run(capsys, *args, "--json")
    assert code in codes, (args, code, err)
    return json.loads(out)


def expected_warnings(case: Case) -> list[tuple[str, str]]:
    pairs = [(path, kind) for path, kind, _ in case.warnings]
    if case.dictionary_error is not None:
        pairs.append(("concepts.json", "dictionary"))
    return sorted(pairs)


def check_scan(data: dict[str, Any], case: Case) -> None:
    details = data["warning_details"]
    assert sorted((w["path"], w["kind"]) for w in details) == expected_warnings(case)
    said = {(w["path"], w["kind"]): w["message"] for w in details}
    for path, kind, words in case.warnings:
        assert words in said[(path, kind)], (path, kind, said[(path, kind)])
    if case.dictionary_error is not None:
        assert case.dictionary_error in said[("concepts.json", "dictionary")]
    notes = {*GOOD, *case.indexed, *([case.note] if case.note else [])}
    assert data["notes"] == len(notes)
    assert data["warnings"] == len(details)


def test_every_command_on_the_hostile_vault(
    hostile: Path, case: Case, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Every byte but Librarian's own (.librarian: the journal, the writers' lock).
    before = without_own_files(fingerprint(tmp_path), hostile)
    vault = str(hostile)
    for _ in ("cold", "warm"):  # the second scan reads the cache the first one wrote
        check_scan(run_json(capsys, "scan", vault), case)
    check_scan(run_json(capsys, "scan", vault, "--no-cache"), case)

    links = run_json(capsys, "links", vault, "good/A")
    assert [(x["target"], x["node"], x["resolved"]) for x in links] == [("B", "good/B.md", True)]
    sources = {b["source"] for b in run_json(capsys, "backlinks", vault, "good/A")}
    assert "good/B.md" in sources
    assert sources <= {"good/B.md", *case.indexed, *([case.note] if case.note else [])}
    near = run_json(capsys, "neighbors", vault, "good/A", "--depth", "2")
    assert {"good/B.md"} <= {n["node"] for n in near}
    assert "good/A.md" not in run_json(capsys, "orphans", vault)
    run_json(capsys, "unresolved", vault)
    if case.note is not None:
        run_json(capsys, "links", vault, case.note)
        run_json(capsys, "backlinks", vault, case.note)

    code, out, _ = run(capsys, "export", vault, "--format", "json")
    assert code == 0
    nodes = {n["id"] for n in json.loads(out)["nodes"]}
    assert {"good/A.md", "good/B.md"} <= nodes
    graphml = tmp_path / "graph.graphml"
    assert run(capsys, "export", vault, "--format", "graphml", "--output", str(graphml))[0] == 0
    graphml.unlink()

    broken = case.dictionary_error is not None
    if broken:  # reported on stderr with where it breaks; exit 1, nothing else said
        code, out, err = run(capsys, "concepts", "check", vault)
        assert (code, out) == (1, "")
        assert err.count("\n") == 1
    elif case.lint is not None:  # an error on that concept; the others are read
        check = run_json(capsys, "concepts", "check", vault, codes=(1,))
        assert case.lint in {issue["code"] for issue in check["issues"]}
    else:
        assert run_json(capsys, "concepts", "check", vault)["errors"] == 0
    if broken:  # the commands that need the dictionary say why they cannot run
        for command in (
            ("concepts", "suggest", vault),
            ("tag", vault, "--dry-run"),
            ("cooccur", vault, "--all"),
            ("isolated", vault),
        ):
            code, out, err = run(capsys, *command)
            assert (code, out) == (1, "")
            assert err.startswith(f"librarian: {hostile / 'concepts.json'}: ")
    else:
        run_json(capsys, "concepts", "suggest", vault)
        run_json(capsys, "cooccur", vault, "--all")
        assert "rag" in {r["concept"] for r in run_json(capsys, "isolated", vault)["isolated"]}
    if case.lint is not None:  # tagging with a dictionary that has errors is refused
        code, out, err = run(capsys, "tag", vault, "--dry-run")
        assert (code, out) == (1, "")
        assert f"[{case.lint}]" in err
    elif not broken:
        plan = run_json(capsys, "tag", vault, "--dry-run")
        assert "good/A.md" in {n["path"] for n in plan["notes"]}  # "RAG" is still found

    code, out, err = run(capsys, "tag", vault, "--undo")
    if case.undo_error is not None:
        assert (code, out) == (1, "")
        assert case.undo_error in err
    else:
        assert (code, err) == (1, "librarian: no tagging run to undo\n")

    after = without_own_files(fingerprint(tmp_path), hostile)
    assert after == before, "a command changed a byte of the vault"


def test_scan_repair_leaves_every_note_as_it_was(
    hostile: Path, case: Case, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = without_own_files(fingerprint(tmp_path), hostile)
    data = run_json(capsys, "scan", str(hostile), "--repair", "--no-cache")
    temps = [path for path, kind, _ in case.warnings if kind == "interrupted-write"]
    assert len(data["repaired"]) == len(temps)
    gone = {os.path.join(os.fsencode(hostile), os.fsencode(t)) for t in temps}
    after = without_own_files(fingerprint(tmp_path), hostile)
    assert after == {p: v for p, v in before.items() if p not in gone}
