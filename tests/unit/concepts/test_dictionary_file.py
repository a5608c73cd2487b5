"""The concept dictionary document: exact bytes after edits, errors with line and column,
saves that refuse a file changed underneath and go through the vault's journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from librarian_gui.core.concepts.dictionary_file import DictionaryFile, DictionaryParseError
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import FileChanged

HAND_WRITTEN = (
    b"{\n"
    b'    "rag": {"aliases": ["RAG", "retrieval augmented generation"],\n'
    b'            "category": "retrieval", "x-owner": "agent"},\n'
    b'    "sandboxing": {\n'
    b'        "aliases": ["sandbox"],\n'
    b'        "category": "security"\n'
    b"    }\n"
    b"}\n"
)


def write(tmp_path: Path, data: bytes, name: str = "concepts.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_an_unchanged_document_renders_byte_for_byte(tmp_path: Path) -> None:
    doc = DictionaryFile.load(write(tmp_path, HAND_WRITTEN))
    assert doc.render() == HAND_WRITTEN
    assert not doc.dirty
    assert [c.id for c in doc.concepts()] == ["rag", "sandboxing"]


def test_an_edit_rewrites_only_its_concept_in_the_file_indentation(tmp_path: Path) -> None:
    doc = DictionaryFile.load(write(tmp_path, HAND_WRITTEN))
    doc.set_field("sandboxing", "aliases", ["sandbox", "bac à sable"])
    doc.add_concept("memory", ["agent memory"], "agents")
    assert doc.render() == (
        b"{\n"
        b'    "rag": {"aliases": ["RAG", "retrieval augmented generation"],\n'
        b'            "category": "retrieval", "x-owner": "agent"},\n'
        b'    "sandboxing": {\n'
        b'        "aliases": ["sandbox", "bac \xc3\xa0 sable"],\n'
        b'        "category": "security"\n'
        b"    },\n"
        b'    "memory": {\n'
        b'        "aliases": ["agent memory"],\n'
        b'        "category": "agents"\n'
        b"    }\n"
        b"}\n"
    )


def test_rename_keeps_the_place_and_merge_folds_aliases(tmp_path: Path) -> None:
    doc = DictionaryFile.load(write(tmp_path, HAND_WRITTEN))
    doc.rename_concept("rag", "retrieval")
    assert list(doc.data) == ["retrieval", "sandboxing"]
    assert doc.data["retrieval"]["x-owner"] == "agent"  # unknown keys are kept
    doc.merge_concepts("sandboxing", "retrieval")
    assert doc.data == {
        "retrieval": {
            "aliases": ["RAG", "retrieval augmented generation", "sandbox", "sandboxing"],
            "category": "retrieval",
            "x-owner": "agent",
        }
    }


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    data = b'\xef\xbb\xbf{\r\n  "a": {"aliases": ["x"]}\r\n}\r\n'
    doc = DictionaryFile.load(write(tmp_path, data))
    doc.add_concept("b", ["y"])
    assert doc.render() == (
        b'\xef\xbb\xbf{\r\n  "a": {"aliases": ["x"]},\r\n'
        b'  "b": {\r\n    "aliases": ["y"]\r\n  }\r\n}\r\n'
    )


@pytest.mark.parametrize(
    ("data", "line", "column", "message"),
    [
        (
            b'{\n  "a": {"aliases": ["x"]}\n  "b": {}\n}\n',
            3,
            3,
            "expected ',' or '}' after a concept",
        ),
        (b'{\n  "a": {"aliases": ["x",]}\n}', 2, 25, "Expecting value"),
        (b'["a"]', 1, 1, 'the file must hold one JSON object: { "id": {...}, ... }'),
        (b'{"a": {}}\nmore', 2, 1, "text after the closing brace"),
        (b'{"a": "\xff"}', 1, 8, "not UTF-8"),
    ],
)
def test_a_file_that_does_not_parse_says_where(
    tmp_path: Path, data: bytes, line: int, column: int, message: str
) -> None:
    with pytest.raises(DictionaryParseError) as caught:
        DictionaryFile.load(write(tmp_path, data))
    assert (caught.value.line, caught.value.column, caught.value.message) == (line, column, message)
    assert (tmp_path / "concepts.json").read_bytes() == data


def test_duplicate_ids_and_bad_shapes_are_reported(tmp_path: Path) -> None:
    data = b'{"a": {"aliases": ["x"]}, "b": ["oops"], "c": {"aliases": "y", "color": 3}, "a": {}}'
    doc = DictionaryFile.load(write(tmp_path, data))
    assert [(i.concept, i.code, i.message) for i in doc.structure_issues()] == [
        (
            "a",
            "duplicate-id",
            '"a" is defined twice; the later definition wins and a save '
            "keeps only it. Merge the two by hand.",
        ),
        ("b", "structure", '"b" must be an object like {"aliases": [...], "category": ...}'),
        ("c", "structure", '"c": aliases must be a list of texts'),
        ("c", "structure", '"c": color must be text'),
    ]


def test_save_inside_the_vault_is_journaled_and_undoable(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    doc = DictionaryFile.load(path)
    doc.delete_concept("rag")
    entry = doc.save(vault=tmp_path)
    assert entry is not None and entry.written == ("concepts.json",)
    assert path.read_bytes() == (
        b'{\n    "sandboxing": {\n        "aliases": ["sandbox"],\n'
        b'        "category": "security"\n    }\n}\n'
    )
    assert not doc.dirty
    Journal(tmp_path).undo()
    assert path.read_bytes() == HAND_WRITTEN


def test_save_refuses_a_file_changed_underneath(tmp_path: Path) -> None:
    path = write(tmp_path, HAND_WRITTEN)
    doc = DictionaryFile.load(path)
    doc.delete_concept("rag")
    path.write_bytes(HAND_WRITTEN + b"\n")
    with pytest.raises(FileChanged):
        doc.save(vault=tmp_path)
    assert path.read_bytes() == HAND_WRITTEN + b"\n"
    (tmp_path / "elsewhere").mkdir()
    outside = write(tmp_path / "elsewhere", HAND_WRITTEN)
    other = DictionaryFile.load(outside)
    outside.write_bytes(b"{}")
    other.add_concept("z", ["q"])
    with pytest.raises(FileChanged):
        other.save(vault=tmp_path / "vault")
    assert outside.read_bytes() == b"{}"


def test_a_missing_file_is_a_new_dictionary(tmp_path: Path) -> None:
    doc = DictionaryFile.load(tmp_path / "concepts.json")
    assert not doc.exists and doc.dirty
    doc.add_concept("memory", ["agent memory"])
    doc.save(vault=tmp_path)
    assert (tmp_path / "concepts.json").read_bytes() == (
        b'{\n  "memory": {\n    "aliases": ["agent memory"]\n  }\n}\n'
    )
