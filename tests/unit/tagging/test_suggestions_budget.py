"""``concepts suggest``'s sample budget counts only notes it can read: a note too large to
index, binary or unreadable leaves the suggestions as they are without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.tagging.suggestions import vault_suggestions
from librarian_gui.core.vault.files import MAX_NOTE_BYTES, read_note

NOTES = {
    "n1.md": "The vector store was slow.\n",
    "n2.md": "We rebuilt the vector store.\n",
    "n3.md": "A vector store needs care.\n",
    "n4.md": "Nothing here.\n",
    "n5.md": "Lunch was good.\n",
    "n6.md": "Rain again.\n",
}
# By hand: "vector store" is in prose in n1, n2 and n3, 3 notes of 6 (at least 3, at most
# half); "vector" and "store" alone are no names (never capitalised mid-sentence); every
# other phrase is in one note.
SUGGESTIONS = [
    {
        "phrase": "vector store",
        "id": "vector-store",
        "notes": 3,
        "mentions": 3,
        "examples": ["n1.md", "n2.md", "n3.md"],
    }
]


def big_file(path: Path, size: int) -> None:
    """A file of ``size`` zero bytes, sparse: it takes no room on disk."""
    with path.open("wb") as fh:
        fh.truncate(size)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for rel, text in NOTES.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


def suggest(capsys: pytest.CaptureFixture[str], vault: Path) -> dict[str, object]:
    code = main(["concepts", "suggest", str(vault), "--json", "--no-cache"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    data: dict[str, object] = json.loads(out)
    return data


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("huge.md", 50_000_000),  # over the 16 MB limit: listed, never read
        ("blob.md", 5_000_000),  # under it, but binary: read, not parsed
    ],
)
def test_a_note_that_cannot_be_read_does_not_starve_the_sample(
    vault: Path, capsys: pytest.CaptureFixture[str], name: str, size: int
) -> None:
    assert suggest(capsys, vault) == {"notes": 6, "notes_read": 6, "suggestions": SUGGESTIONS}
    big_file(vault / name, size)
    assert (size > MAX_NOTE_BYTES) == (name == "huge.md")
    assert suggest(capsys, vault) == {"notes": 6, "notes_read": 6, "suggestions": SUGGESTIONS}
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == [name, *NOTES]  # it is a note of the vault all the same
    found, read, total = vault_suggestions(index, [], lambda rel: read_note(vault, rel).text)
    assert ([s.phrase for s in found], read, total) == (["vector store"], 6, 6)
