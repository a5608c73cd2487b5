"""The window's search ranks its matches as the agents' search ranks notes (issue 27, 9)."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from tests.conftest import write
from tests.windows import MakeWindow


def test_the_window_search_ranks_the_focused_note_first(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """Both notes hold both words; the long one more often, the short one is about them
    (see tests/unit/search/test_search.py for the BM25 worked by hand)."""
    root = tmp_path / "v"
    filler = " ".join(f"word{n}" for n in range(200))
    write(root, "long.md", f"garden {filler} water water water water water water\n")
    write(root, "short.md", "The garden needs water. Water the garden.\n")
    window = window_on(root)
    window.search.set_query("garden water")
    qtbot.waitUntil(lambda: bool(window.search.hits), timeout=10_000)
    assert [hit.rel for hit in window.search.hits] == ["short.md", "long.md"]


def test_a_question_no_note_holds_every_word_of_shows_the_notes_that_answer_it(
    window_on: MakeWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    root = tmp_path / "v"
    write(root, "db.md", "We chose DuckDB as the staging database.\n")
    write(root, "cats.md", "Cats sleep all day.\n")
    window = window_on(root)
    # "which", "did", "choose" are in no note: no note holds every word; db.md alone holds
    # any of them ("we", "database")
    window.search.set_query("which database did we choose")
    qtbot.waitUntil(lambda: bool(window.search.hits), timeout=10_000)
    assert [hit.rel for hit in window.search.hits] == ["db.md"]
    assert window.search.summary.text() == (
        "No note holds every word of 'which database did we choose'. The note that answers it best:"
    )
    line = window.search.hits[0].snippets[0]
    assert line.text == "We chose DuckDB as the staging database."
    assert line.highlights == ((31, 39),)  # "database": the question's one word it holds
    # A phrase or an operator means what it says: nothing, as before
    window.search.set_query('"which database" did')
    qtbot.waitUntil(lambda: not window.search.hits, timeout=10_000)
    qtbot.waitUntil(
        lambda: window.search.summary.text().startswith("Nothing matches"), timeout=10_000
    )
