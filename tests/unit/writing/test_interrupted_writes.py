"""The temporary file a killed atomic write leaves (``.librarian-….tmp``) is reported, never
indexed: not by the scan, not by the live update."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import IgnoreRules, classify_file
from tests.conftest import write

LEFT = "left by an interrupted Librarian write; `librarian scan --repair` removes it"


def test_a_scan_reports_each_interrupted_write_and_indexes_none(vault: Path) -> None:
    write(vault, "a.md", "[[b]]\n")
    write(vault, "notes/b.md", "")
    write(vault, ".librarian-k2j3h4.tmp", "half a note")
    write(vault, "notes/.librarian-20240521-101502-123456-000-00003.tmp", "")
    # Other dot-files and temporaries stay silent, as before.
    write(vault, "notes/.librarian-k2j3h4.md", "")
    write(vault, "notes/.other.tmp", "")
    write(vault, "notes/librarian-x.tmp", "")
    (vault / ".librarian-folder.tmp").mkdir()
    index = VaultIndex.scan(vault, use_cache=False)
    assert sorted(index.notes) == ["a.md", "notes/b.md"]
    assert index.attachments == {}
    assert [(w.path, w.kind, w.message) for w in index.warnings()] == [
        (".librarian-k2j3h4.tmp", "interrupted-write", LEFT),
        ("notes/.librarian-20240521-101502-123456-000-00003.tmp", "interrupted-write", LEFT),
    ]


def test_the_live_path_never_indexes_a_write_in_progress(vault: Path) -> None:
    """Seen live, such a file is most likely a write under way; nor would any event clear a
    warning about it (the watcher drops dot-names), so only a full scan reports it."""
    write(vault, "a.md", "")
    index = VaultIndex.scan(vault, use_cache=False)
    write(vault, "sub/.librarian-abc123.tmp", "being written")
    assert classify_file(vault, IgnoreRules(vault), "sub/.librarian-abc123.tmp") is None
    delta = index.update([vault / "sub/.librarian-abc123.tmp", vault / "sub"])
    assert (delta.notes_added, delta.attachments_added) == ((), ())
    assert sorted(index.notes) == ["a.md"]
    assert index.attachments == {}
    assert index.warnings() == []
