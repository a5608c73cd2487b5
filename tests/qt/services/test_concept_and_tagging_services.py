"""The tagging service and the dictionary store on real files: a newer preview silences an
older one, Apply writes through the journal and Undo gives the bytes back; the store
refuses to save over a dictionary changed on disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.core.concepts.dictionary import Concept
from librarian_gui.services.concepts import DictionaryChanged, DictionaryStore
from librarian_gui.services.tagging import TaggingService, failure_text
from tests.conftest import write

CONCEPTS = (Concept("sandboxing", ("sandbox",), "security"),)
NOTE = b"Run it in a sandbox.\n"
LINKED = b"Run it in a [[sandboxing|sandbox]].\n"


@pytest.fixture
def service(vault: Path, qtbot: QtBot) -> Iterator[TaggingService]:
    write(vault, "a.md", NOTE)
    write(vault, "b.md", b"nothing to link\n")
    made = TaggingService(vault)
    yield made
    made.close()


def test_a_newer_preview_silences_the_older_one(service: TaggingService, qtbot: QtBot) -> None:
    older = service.preview(["a.md", "b.md"], CONCEPTS, all_mentions=False, only=None)
    older_results: list[object] = []
    older.finished.connect(older_results.append)
    older.failed.connect(older_results.append)
    newer = service.preview(["a.md"], CONCEPTS, all_mentions=False, only=["sandboxing"])
    assert older.cancelled
    with qtbot.waitSignal(newer.finished, timeout=10_000) as blocker:
        pass
    [plan] = blocker.args
    assert [note.rel for note in plan.notes] == ["a.md"]
    assert plan.scanned == 1
    assert older_results == []


def test_apply_writes_through_the_journal_and_undo_gives_the_bytes_back(
    service: TaggingService, vault: Path, qtbot: QtBot
) -> None:
    preview = service.preview(["a.md", "b.md"], CONCEPTS, all_mentions=False, only=None)
    with qtbot.waitSignal(preview.finished, timeout=10_000) as blocker:
        pass
    [plan] = blocker.args
    apply = service.apply(plan, {"a.md": frozenset({0})})
    with qtbot.waitSignal(apply.finished, timeout=10_000) as blocker:
        pass
    [entry] = blocker.args
    assert entry.written == ("a.md",)
    assert (vault / "a.md").read_bytes() == LINKED
    undo = service.undo_last_run()
    with qtbot.waitSignal(undo.finished, timeout=10_000) as blocker:
        pass
    [undone] = blocker.args
    assert undone.restored == ("a.md",)
    assert (vault / "a.md").read_bytes() == NOTE
    again = service.undo_last_run()  # nothing left: the journal's error, worded for the view
    with qtbot.waitSignal(again.failed, timeout=10_000) as blocker:
        pass
    assert failure_text("undo", blocker.args[0]).startswith("Nothing undone: ")


def test_the_store_refuses_to_save_over_a_dictionary_changed_on_disk(vault: Path) -> None:
    path = write(vault, "concepts.json", b'{\n  "a": {"aliases": ["alpha"]}\n}\n')
    store = DictionaryStore(vault, path)
    document = store.load()
    assert store.differs_on_disk(document) is False
    document.set_field("a", "category", "letters")
    path.write_bytes(b'{\n  "b": {"aliases": ["beta"]}\n}\n')
    assert store.differs_on_disk(document) is True
    with pytest.raises(DictionaryChanged):
        store.save(document)
    assert path.read_bytes() == b'{\n  "b": {"aliases": ["beta"]}\n}\n'
