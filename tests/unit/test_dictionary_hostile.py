"""Hostile concept dictionaries: nested a thousand levels deep, holding lone surrogates.
Each is reported on the file or the concept concerned and stops no command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.concepts import load_dictionary
from librarian_gui.core.dictionary_file import DictionaryFile, DictionaryParseError

# {"a":{"aliases":[[[…]]]}}: the top object is level 1, the concept 2, the first "[" 3, so
# the 99th "[" is level 101, the first past the limit of 100. "{"a":{"aliases":" is 16
# characters: that "[" is at offset 16 + 98 = 114, column 115.
DEEP_LISTS = '{"a":{"aliases":' + "[" * 1000 + "]" * 1000 + "}}"
DEEP_MESSAGE = "nested too deeply: more than 100 levels of brackets, where a concept needs 3"


def deep_objects() -> str:
    """{"a": {"x": {"x": … {} …}}}, 1,000 objects inside the concept, on two lines. Line 2
    is '{"x": ' again and again, the first one level 2: the 100th is level 101, at column
    1 + 99 * 6 = 595."""
    return '{"a":\n' + '{"x": ' * 1000 + "{}" + "}" * 1000 + "}\n"


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "a.md", "We tried RAG, then [[b]].\n")
    write(root, "b.md", "# b\n")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- nested too deeply


def test_a_dictionary_nested_a_thousand_lists_deep_is_a_dictionary_error(tmp_path: Path) -> None:
    path = write(tmp_path, "concepts.json", DEEP_LISTS)
    loaded = load_dictionary(path)
    assert loaded.error == f"concepts.json: line 1, column 115: {DEEP_MESSAGE}"
    assert loaded.concepts == ()
    with pytest.raises(DictionaryParseError) as info:
        DictionaryFile.load(path)
    assert (info.value.line, info.value.column, info.value.message) == (1, 115, DEEP_MESSAGE)


def test_a_dictionary_nested_a_thousand_objects_deep_is_a_dictionary_error(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "concepts.json", deep_objects())
    assert load_dictionary(path).error == f"concepts.json: line 2, column 595: {DEEP_MESSAGE}"
    with pytest.raises(DictionaryParseError) as info:
        DictionaryFile.load(path)
    assert (info.value.line, info.value.column) == (2, 595)


def test_nesting_the_parser_manages_but_copies_and_saves_would_not_is_refused_too(
    tmp_path: Path,
) -> None:
    # 400 lists parse, but copying (the editor's undo) or rendering them recurses in Python.
    text = '{"a": {"aliases": ["RAG"], "x-extra": ' + "[" * 400 + "]" * 400 + "}}"
    path = write(tmp_path, "concepts.json", text)
    # 'x-extra' at level 2, its first "[" level 3: the 99th "[" is at offset 38 + 98 = 136.
    assert load_dictionary(path).error == f"concepts.json: line 1, column 137: {DEEP_MESSAGE}"
    with pytest.raises(DictionaryParseError) as info:
        DictionaryFile.load(path)
    assert (info.value.line, info.value.column) == (1, 137)


def test_a_hundred_levels_are_allowed_and_kept_on_save(tmp_path: Path) -> None:
    # Levels: top object 1, concept 2, "x-extra" lists 3 to 100 (98 of them).
    text = '{"a": {"aliases": ["RAG"], "x-extra": ' + "[" * 98 + "]" * 98 + "}}"
    path = write(tmp_path, "concepts.json", text)
    loaded = load_dictionary(path)
    assert (loaded.error, [(c.id, c.aliases) for c in loaded.concepts]) == (
        None,
        [("a", ("RAG",))],
    )
    doc = DictionaryFile.load(path)
    doc.set_field("a", "category", "retrieval")
    doc.save()
    assert json.loads(path.read_bytes()) == {
        "a": {
            "aliases": ["RAG"],
            "x-extra": json.loads("[" * 98 + "]" * 98),
            "category": "retrieval",
        }
    }


def test_every_command_goes_on_with_a_dictionary_nested_too_deeply(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "concepts.json", DEEP_LISTS)
    code, out, err = run(capsys, "scan", str(vault), "--json")
    data = json.loads(out)
    assert (code, err, data["notes"], data["edges"], data["concepts"]) == (0, "", 2, 1, 0)
    assert data["warning_details"] == [
        {
            "path": "concepts.json",
            "kind": "dictionary",
            "message": f"concepts.json: line 1, column 115: {DEEP_MESSAGE}",
        }
    ]
    code, out, err = run(capsys, "backlinks", str(vault), "b")
    assert (code, err) == (0, "")
    assert "a.md" in out
    expected = (
        f"librarian: {vault / 'concepts.json'}: concepts.json: line 1, column 115: "
        f"{DEEP_MESSAGE}; the file was not changed\n"
    )
    for command in (["concepts", "check"], ["concepts", "suggest"], ["tag", "--dry-run"]):
        code, out, err = run(capsys, *command, str(vault))
        assert (command, code, out, err) == (command, 1, "", expected)
    assert (vault / "concepts.json").read_text(encoding="utf-8") == DEEP_LISTS
