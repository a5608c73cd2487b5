"""``librarian concepts check`` and ``librarian tag`` on small vaults written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main

DICTIONARY = (
    b"{\n"
    b'  "rag": {"aliases": ["RAG", "retrieval augmented generation"], "category": "retrieval"},\n'
    b'  "sandboxing": {"aliases": ["sandbox"], "category": "security"},\n'
    b'  "crdt": {"aliases": ["CRDT"], "category": "sync"}\n'
    b"}\n"
)
NOTES = {
    "a.md": b"We tried RAG. Then RAG again, in a sandbox.\n",
    "b.md": b"| tool | use |\r\n|---|---|\r\n| sandbox | isolation |\r\n",
    "MEMORY.md": b"- RAG notes: [[a]]\n",
    "c.md": b"Nothing here.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "concepts.json").write_bytes(DICTIONARY)
    for rel, data in NOTES.items():
        (root / rel).write_bytes(data)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_reports_unused_concepts_and_exits_0_on_warnings(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "concepts", "check", str(vault), "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["concepts"], data["errors"], data["warnings"]) == (3, 0, 1)
    assert [(i["concept"], i["code"]) for i in data["issues"]] == [("crdt", "unused")]
    assert data["usage"] == {
        "rag": {"linked": 0, "mentioned": 2},  # a.md and MEMORY.md (check counts every note)
        "sandboxing": {"linked": 0, "mentioned": 2},
        "crdt": {"linked": 0, "mentioned": 0},
    }


def test_check_exits_1_on_errors_and_on_a_file_that_does_not_parse(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "concepts.json").write_bytes(
        b'{"rag": {"aliases": ["RAG"]}, "rag-2": {"aliases": ["rag"]}}'
    )
    code, out, _ = run(capsys, "concepts", "check", str(vault), "--no-usage")
    assert code == 1
    assert out.splitlines()[-1] == "2 errors, 0 warnings"
    broken = b'{"rag": {"aliases": ["RAG"]}\n "x": {}}'
    (vault / "concepts.json").write_bytes(broken)
    code, _, err = run(capsys, "concepts", "check", str(vault))
    assert code == 1
    assert err == (
        f"librarian: {vault / 'concepts.json'}: line 2, column 2: "
        "expected ',' or '}' after a concept; fix the dictionary\n"  # a check changes nothing
    )
    assert (vault / "concepts.json").read_bytes() == broken
    for flag, value in (("--limit", "-1"), ("--min-notes", "0")):
        with pytest.raises(SystemExit) as info:
            main(["concepts", "suggest", str(vault), flag, value])
        assert info.value.code == 2
        assert capsys.readouterr().err.endswith(f"argument {flag}: {value}: must be 1 or more\n")


def test_tag_dry_run_prints_the_diff_and_writes_nothing(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "tag", str(vault))
    assert code == 0
    assert out == (
        "--- a/a.md\n"
        "+++ b/a.md\n"
        "@@ -1 +1 @@\n"
        "-We tried RAG. Then RAG again, in a sandbox.\n"
        "+We tried [[rag|RAG]]. Then RAG again, in a [[sandboxing|sandbox]].\n"
        "--- a/b.md\n"
        "+++ b/b.md\n"
        "@@ -2,2 +2,2 @@\n"
        " |---|---|\r\n"
        "-| sandbox | isolation |\r\n"
        "+| [[sandboxing\\|sandbox]] | isolation |\r\n"
        "3 mentions in 2 of 3 notes\n"
        "  sandboxing                     2\n"
        "  rag                            1\n"
    )
    for rel, data in NOTES.items():
        assert (vault / rel).read_bytes() == data


def test_tag_apply_then_undo(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tag", str(vault), "--apply", "--all-mentions", "--concept", "rag")
    assert code == 0
    assert out.splitlines()[-1] == "wrote 1 notes (undo: librarian tag VAULT --undo)"
    assert (vault / "a.md").read_bytes() == (
        b"We tried [[rag|RAG]]. Then [[rag|RAG]] again, in a sandbox.\n"
    )
    assert (vault / "MEMORY.md").read_bytes() == NOTES["MEMORY.md"]
    code, out, _ = run(capsys, "tag", str(vault), "--undo", "--json")
    assert code == 0
    assert json.loads(out)["restored"] == ["a.md"]
    for rel, data in NOTES.items():
        assert (vault / rel).read_bytes() == data
    code, _, err = run(capsys, "tag", str(vault), "--undo")
    assert (code, err) == (1, "librarian: no tagging run to undo\n")


def test_tag_undo_refuses_a_note_changed_since(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "tag", str(vault), "--apply", "--include-index")
    assert (vault / "MEMORY.md").read_bytes() == b"- [[rag|RAG]] notes: [[a]]\n"
    (vault / "b.md").write_bytes(b"edited by hand\n")
    code, out, _ = run(capsys, "tag", str(vault), "--undo")
    assert code == 1
    assert "  refused b.md: changed since this write; left alone so no edit is lost" in out
    assert (vault / "a.md").read_bytes() == NOTES["a.md"]
    assert (vault / "MEMORY.md").read_bytes() == NOTES["MEMORY.md"]
    assert (vault / "b.md").read_bytes() == b"edited by hand\n"


def test_tag_an_unknown_concept_fails(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tag", str(vault), "--concept", "nope")
    assert (code, err) == (1, "librarian: no concept nope in the dictionary\n")


@pytest.mark.parametrize("mode", [(), ("--apply",)], ids=["dry-run", "apply"])
def test_tag_refuses_a_dictionary_with_errors_and_lists_them(
    vault: Path, capsys: pytest.CaptureFixture[str], mode: tuple[str, ...]
) -> None:
    # "RAG" claimed by two concepts (a conflict, on both) and an empty alias: three errors
    broken = (
        b'{"rag": {"aliases": ["RAG"]}, "rag-2": {"aliases": ["rag"]},\n'
        b' "sandboxing": {"aliases": ["sandbox", " "]}}\n'
    )
    (vault / "concepts.json").write_bytes(broken)
    code, out, err = run(capsys, "tag", str(vault), *mode)
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == (
        f"librarian: {vault / 'concepts.json'}: 3 errors in the dictionary; fix them first "
        f"(librarian concepts check {vault}), nothing was changed:"
    )
    assert [line.split("]")[0] for line in lines[1:]] == [
        "librarian:   error   rag  [conflict",
        "librarian:   error   rag-2  [conflict",
        "librarian:   error   sandboxing  [empty-alias",
    ]
    for rel, data in NOTES.items():
        assert (vault / rel).read_bytes() == data
    assert not (vault / ".librarian").exists()


def test_tag_lists_the_same_errors_as_concepts_check(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "concepts.json").write_bytes(b'{"rag": {"aliases": ["RAG"], "category": 3}}')
    _, out, _ = run(capsys, "concepts", "check", str(vault), "--no-usage")
    checked = [line for line in out.splitlines() if line.startswith("  error")]
    code, _, err = run(capsys, "tag", str(vault))
    assert code == 1
    assert err.splitlines()[1:] == [f"librarian: {line}" for line in checked]
    assert [line.split("]")[0] for line in checked] == ["  error   rag  [structure"]


def test_tag_without_a_dictionary_says_so_and_exits_1(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "concepts.json").unlink()
    code, out, err = run(capsys, "tag", str(vault), "--apply")
    assert (code, out) == (1, "")
    assert err.startswith(
        f"librarian: {vault / 'concepts.json'}: no concept dictionary there, so there is "
        "nothing to tag; "
    )
    assert err.count("\n") == 1
    missing = vault.parent / "elsewhere.json"
    code, _, err = run(capsys, "tag", str(vault), "--concepts", str(missing))
    assert code == 1
    assert err.startswith(f"librarian: {missing}: no concept dictionary there")
    for rel, data in NOTES.items():
        assert (vault / rel).read_bytes() == data


@pytest.mark.parametrize(
    ("before", "old", "new", "after"),
    [
        pytest.param(
            b"[[rag]] [[RAG|retrieval]] ![[rag#Why]] [[rag\\|x]] [[ragged]] `[[rag]]` [[other]]\n",
            "rag",
            "retrieval-augmentation",
            b"[[retrieval-augmentation]] [[retrieval-augmentation|retrieval]] "
            b"![[retrieval-augmentation#Why]] [[retrieval-augmentation\\|x]] [[ragged]] `[[rag]]` "
            b"[[other]]\n",
            id="only-the-target-changes",
        ),
        # Obsidian rewrites links in properties on a rename too; a YAML comment is no property
        pytest.param(
            b'---\r\nrelated: "[[rag]]"\r\nsee:\r\n  - "[[RAG|retrieval]]"\r\n# "[[rag]]" here\r\n'
            b"---\r\nBody [[rag]].\r\n",
            "rag",
            "ra",
            b'---\r\nrelated: "[[ra]]"\r\nsee:\r\n  - "[[ra|retrieval]]"\r\n# "[[rag]]" here\r\n'
            b"---\r\nBody [[ra]].\r\n",
            id="front-matter-properties-too",
        ),
    ],
)
def test_relink_rewrites_links_to_a_renamed_concept(
    tmp_path: Path, before: bytes, old: str, new: str, after: bytes
) -> None:
    from librarian_gui.core.tagging.run import apply_plan, plan_relink

    (tmp_path / "n.md").write_bytes(before)
    apply_plan(tmp_path, plan_relink(tmp_path, ["n.md"], old, new))
    assert (tmp_path / "n.md").read_bytes() == after


def test_concepts_suggest_lists_phrases_no_alias_covers(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, extra in enumerate(["", " Twice: the vector store.", ""]):
        (vault / f"s{i}.md").write_text(
            f"Our vector store and RAG in a sandbox.{extra}\n", encoding="utf-8"
        )
    code, out, _ = run(capsys, "concepts", "suggest", str(vault), "--json")
    assert code == 0
    # By hand: "vector store" is in s0, s1 (twice), s2; RAG and sandbox are aliases; the
    # other words are stop-words or lowercase ("our" is a stop-word).
    assert json.loads(out) == {
        "notes_read": 7,
        "notes": 7,
        "suggestions": [
            {
                "phrase": "vector store",
                "id": "vector-store",
                "notes": 3,
                "mentions": 4,
                "examples": ["s0.md", "s1.md", "s2.md"],
            }
        ],
    }
    code, out, _ = run(capsys, "concepts", "suggest", str(vault))
    assert out.splitlines() == [
        "phrases no alias covers, in 7 notes:",
        "      3 notes      4×  vector store  → vector-store",
    ]
