"""Hostile concept dictionaries: nested a thousand levels deep, holding lone surrogates.
Each is reported on the file or the concept concerned and stops no command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.concepts.dictionary import load_dictionary
from librarian_gui.core.concepts.dictionary_file import DictionaryFile, DictionaryParseError
from librarian_gui.core.writing.safewrite import WriteRefused

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
    write(root, "one.md", "We tried RAG, then [[two]].\n")
    write(root, "two.md", "# Two\n")
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
            "message": f"line 1, column 115: {DEEP_MESSAGE}",  # the path is said once
        }
    ]
    code, out, err = run(capsys, "backlinks", str(vault), "two")
    assert (code, err) == (0, "")
    assert "one.md" in out
    said = f"librarian: {vault / 'concepts.json'}: line 1, column 115: {DEEP_MESSAGE}; "
    for command, expected in (
        (["concepts", "check"], said + "fix the dictionary\n"),  # reads only: nothing to say
        (["concepts", "suggest"], said + "fix the dictionary\n"),
        (["tag", "--dry-run"], said + "fix the dictionary (nothing was changed)\n"),
    ):
        code, out, err = run(capsys, *command, str(vault))
        assert (command, code, out, err) == (command, 1, "", expected)
    assert (vault / "concepts.json").read_text(encoding="utf-8") == DEEP_LISTS


# ---------------------------------------------------------------- lone surrogates

# JSON escapes of half a UTF-16 pair, written as the file holds them: "\ud800" in an alias,
# "\udfff" in a description, "\ud83d" (half an emoji) in an id.
SURROGATES = (
    b"{\n"
    b'  "a": {"aliases": ["\\ud800", "good alias"]},\n'
    b'  "b": {"aliases": ["beta"], "description": "x\\udfffy"},\n'
    b'  "c\\ud83d": {"aliases": ["gamma"]}\n'
    b"}\n"
)
ALIAS_ISSUE = (
    'Alias 1 ("\\ud800") holds a lone surrogate (\\ud800), half of a UTF-16 pair and no '
    "character: it never matches. Write the whole character or remove the alias."
)
FIELD_ISSUE = (
    "Its description holds a lone surrogate (\\udfff), half of a UTF-16 pair and no "
    'character, shown as "\ufffd". Write the whole character.'
)
ID_ISSUE = (
    'The id "c\\ud83d" holds a lone surrogate (\\ud83d), half of a UTF-16 pair and no '
    "character: the concept is left out. Write the whole character in a text editor."
)
SAVE_REFUSED = (
    'concepts.json: "a" holds a lone surrogate (\\ud800), half of a UTF-16 pair and no '
    'character, which Librarian does not write. Undo your edits to "a", or fix it in a '
    "text editor and reload."
)


def test_lone_surrogates_leave_out_what_they_are_in_and_say_so(tmp_path: Path) -> None:
    path = write(tmp_path, "concepts.json", SURROGATES)
    loaded = load_dictionary(path)
    assert loaded.error is None
    expected = [("a", ("good alias",), ""), ("b", ("beta",), "x\ufffdy")]
    assert [(c.id, c.aliases, c.description) for c in loaded.concepts] == expected
    doc = DictionaryFile.load(path)
    assert [(c.id, c.aliases, c.description) for c in doc.concepts()] == expected
    assert [
        (i.concept, i.severity, i.code, i.alias, i.message) for i in doc.structure_issues()
    ] == [
        ("a", "error", "surrogate", "\\ud800", ALIAS_ISSUE),
        ("b", "error", "surrogate", None, FIELD_ISSUE),
        (None, "error", "surrogate", None, ID_ISSUE),
    ]


def test_concepts_check_reports_lone_surrogates_and_exits_1(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "concepts.json", SURROGATES)
    code, out, err = run(capsys, "concepts", "check", str(vault), "--no-usage")
    assert (code, err) == (1, "")
    assert out == (
        f"{vault / 'concepts.json'}: 2 concepts\n"
        f"  error   a  [surrogate] {ALIAS_ISSUE}\n"
        f"  error   b  [surrogate] {FIELD_ISSUE}\n"
        f"  error   -  [surrogate] {ID_ISSUE}\n"
        "3 errors, 0 warnings\n"
    )
    code, out, err = run(capsys, "concepts", "check", str(vault), "--json")
    data = json.loads(out)
    assert (code, err, data["errors"], data["warnings"]) == (1, "", 3, 2)
    assert [(i["concept"], i["code"], i["alias"]) for i in data["issues"]] == [
        ("a", "surrogate", "\\ud800"),
        ("b", "surrogate", None),
        (None, "surrogate", None),
        ("a", "unused", None),  # no note writes "good alias" or "beta"
        ("b", "unused", None),
    ]


def test_other_commands_go_on_and_tag_stops_with_lone_surrogates_in_the_dictionary(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "concepts.json", SURROGATES)
    write(vault, "c.md", "Beta, then a good alias and gamma.\n")
    code, out, err = run(capsys, "scan", str(vault), "--json")
    assert (code, err, json.loads(out)["concepts"]) == (0, "", 2)
    # tagging is the one that stops: concepts check reports the surrogates as errors
    code, out, err = run(capsys, "tag", str(vault), "--dry-run")
    assert (code, out) == (1, "")
    assert err == (
        f"librarian: {vault / 'concepts.json'}: 3 errors in the dictionary; fix them first "
        f"(librarian concepts check {vault}), nothing was changed:\n"
        f"librarian:   error   a  [surrogate] {ALIAS_ISSUE}\n"
        f"librarian:   error   b  [surrogate] {FIELD_ISSUE}\n"
        f"librarian:   error   -  [surrogate] {ID_ISSUE}\n"
    )
    assert (vault / "c.md").read_text(encoding="utf-8") == "Beta, then a good alias and gamma.\n"
    code, out, err = run(capsys, "concepts", "suggest", str(vault), "--json")
    assert (code, err, json.loads(out)["notes"]) == (0, "", 3)
    code, out, err = run(capsys, "export", str(vault), "--format", "json")
    assert (code, err) == (0, "")
    assert sorted(n["concept"] for n in json.loads(out)["nodes"] if "concept" in n) == ["a", "b"]


def test_a_save_that_would_write_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "concepts.json", SURROGATES)
    doc = DictionaryFile.load(path)
    assert doc.render() == SURROGATES and not doc.dirty
    doc.set_field("b", "category", "greek")  # "b"'s description is written again
    doc.set_field("a", "category", "letters")
    assert doc.dirty
    # As rendered, a lone surrogate is its JSON escape again (valid JSON, what was read).
    assert doc.render() == (
        b"{\n"
        b'  "a": {\n    "aliases": ["\\ud800", "good alias"],\n    "category": "letters"\n  },\n'
        b'  "b": {\n    "aliases": ["beta"],\n    "description": "x\\udfffy",\n'
        b'    "category": "greek"\n  },\n'
        b'  "c\\ud83d": {"aliases": ["gamma"]}\n'
        b"}\n"
    )
    with pytest.raises(WriteRefused) as info:
        doc.save()
    assert str(info.value) == SAVE_REFUSED
    assert path.read_bytes() == SURROGATES
    # Edits elsewhere save, and the concepts holding surrogates keep their bytes.
    doc = DictionaryFile.load(path)
    doc.add_concept("d", ["delta"])
    doc.save()
    assert path.read_bytes() == SURROGATES[:-3] + b',\n  "d": {\n    "aliases": ["delta"]\n  }\n}\n'


def test_an_untouched_concept_holding_nan_keeps_its_bytes(tmp_path: Path) -> None:
    # NaN is not JSON, but Python's parser reads it; NaN equals nothing, itself included,
    # so an untouched concept holding one must still be seen as untouched.
    text = b'{"a": {"aliases": ["x"], "x-score": NaN}, "b": {"aliases": ["y"]}}'
    path = write(tmp_path, "concepts.json", text)
    doc = DictionaryFile.load(path)
    doc.set_field("b", "category", "z")
    # "b" in the default indentation (the file has no line breaks to take it from).
    assert doc.render() == (
        b'{"a": {"aliases": ["x"], "x-score": NaN}, "b": {\n    "aliases": ["y"],\n'
        b'    "category": "z"\n  }}'
    )
