"""The command line as people expect one (issue 28, items 10 and 13): ``--version``, help
for every option, one key for the note a JSON row is about, and an undo that says what it
did."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from librarian_gui import __version__
from librarian_gui.cli import build_parser, main
from librarian_gui.core.agents.writes import append_to_note, write_note
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"librarian {__version__}\n"


def subparsers(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, Any]]:
    """Every (sub)command's parser under ``parser``, by its command line."""
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += subparsers(sub, f"{name} {sub_name}")
    return found


def test_every_option_of_every_command_has_help() -> None:
    parsers = subparsers(build_parser(), "librarian")
    assert len(parsers) > 20  # the walk reached the subcommands of subcommands
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, parser in parsers
        for action in parser._actions
        # SUPPRESS: hidden on purpose (a test's --wait); a sub-command list is its choices
        if not action.help and not isinstance(action, argparse._SubParsersAction)
    ]
    assert missing == []


def test_limits_the_mcp_server_shares_are_the_same(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "a.md", "To [[b]].\n")
    write(vault, "b.md", "To [[c]].\n")
    write(vault, "c.md", "To [[d]].\n")
    write(vault, "d.md", "The end of a chain about cheese.\n")
    code, out, _ = run(capsys, "neighbors", str(vault), "a", "--depth", "3", "--json")
    assert (code, [r["note"] for r in json.loads(out)]) == (0, ["b.md", "c.md", "d.md"])
    # no --budget: 2000 tokens, as the MCP tool's default
    code, out, _ = run(capsys, "context", str(vault), "cheese", "--json")
    assert (code, json.loads(out)["budget"]) == (0, 2000)


def test_every_row_names_its_note_as_note_beside_the_old_key(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "Alpha.md", "See [[Beta]] and [[Nowhere]].\n")
    write(vault, "Beta.md", "Back to [[Alpha]].\n")
    _, out, _ = run(capsys, "backlinks", str(vault), "Beta", "--json")
    assert [(r["note"], r["source"]) for r in json.loads(out)] == [("Alpha.md", "Alpha.md")]
    _, out, _ = run(capsys, "neighbors", str(vault), "Beta", "--depth", "2", "--json")
    assert [(r["note"], r["node"]) for r in json.loads(out)] == [
        ("Alpha.md", "Alpha.md"),
        ("//unresolved/nowhere", "//unresolved/nowhere"),
    ]
    _, out, _ = run(capsys, "unresolved", str(vault), "--json")
    assert json.loads(out)[0]["sources"] == [{"note": "Alpha.md", "source": "Alpha.md", "count": 1}]


def test_undo_says_a_created_note_was_removed_and_an_appended_one_restored(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "diary.md", "# Diary\n")
    index = VaultIndex.scan(vault, use_cache=False)
    made = write_note(index, "# New\n", "notes/new.md")
    added = append_to_note(index, "later", "diary")
    code, out, _ = run(capsys, "undo", str(vault))
    assert (code, out) == (
        0,
        f"undid 'Agent: append to diary.md' ({added['entry']})\n  restored  diary.md\n",
    )
    code, out, _ = run(capsys, "undo", str(vault), "--json")
    assert json.loads(out)["removed"] == ["notes/new.md"]
    assert json.loads(out)["restored"] == ["notes/new.md"]  # as before: kept one release
    assert not (vault / "notes" / "new.md").exists()
    write(vault, "two.md", "# Two\n")
    made = write_note(VaultIndex.scan(vault, use_cache=False), "# Three\n", "three.md")
    code, out, _ = run(capsys, "undo", str(vault))
    assert (code, out) == (
        0,
        f"undid 'Agent: write three.md' ({made['entry']})\n  removed   three.md\n",
    )
    assert not (vault / "three.md").exists()
