"""The review's passages kept for the next process (``passage_cache``): a second
``librarian duplicates`` reads only the notes changed since the first, gives the same
pairs, and a cache it cannot use (another ``--min-words``, damaged, cut short) is as if
there were none. The similarities are counted by hand in ``test_duplicates``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from librarian_gui.cli import main
from librarian_gui.core.review.duplicates import PassageStore, read_passages, signatures
from librarian_gui.core.review.passage_cache import passages_file
from tests.conftest import write

from .test_duplicates import EDITED, ORIGINAL

# The pair test_duplicates counts: 13 content words shared, 16 + 16 - 13 = 19 in either.
PAIR = {"a": "a.md", "b": "b.md", "a_lines": [3, 3], "b_lines": [3, 3], "similarity": 0.684}
# As long as EDITED, in other words: nothing in common with ORIGINAL.
OTHER = "Tomatoes ripen slowly; gardeners water compost heaps beside fences nightly, keep"
OTHER = (OTHER + " " + "x" * len(EDITED))[: len(EDITED) - 1] + "."


def _vault(root: Path) -> Path:
    write(root, "a.md", f"# A\n\n{ORIGINAL}\n", age=30)
    write(root, "b.md", f"# B\n\n{EDITED}\n", age=30)
    write(root, "c.md", "# C\n\nNothing alike: gardening tomatoes, watering schedules.\n", age=30)
    return root


def _pairs(capsys: pytest.CaptureFixture[str], vault: Path, *extra: str) -> list[object]:
    capsys.readouterr()
    assert main(["duplicates", str(vault), "--json", *extra]) == 0
    found = json.loads(capsys.readouterr().out)
    return [{**p, "similarity": round(p["similarity"], 3)} for p in found["pairs"]]


def _same_stamp(path: Path, text: str) -> None:
    """``text`` written over the note with its size and modification time kept: a note
    read again would show it, a kept one would not."""
    before = path.stat()
    data = text.encode("utf-8")
    assert len(data) == before.st_size
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_second_run_reads_only_the_notes_changed_since(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _vault(vault)
    assert _pairs(capsys, vault) == [PAIR]
    assert passages_file(vault).is_file()
    # b's words changed under the same stamp: the kept passages still say b holds the copy…
    _same_stamp(vault / "b.md", f"# B\n\n{OTHER}\n")
    assert _pairs(capsys, vault) == [PAIR]
    # …which a run that keeps nothing does not
    assert _pairs(capsys, vault, "--no-cache") == []
    # b written again (another size): read again, no pair
    write(vault, "b.md", f"# B\n\n{OTHER} More.\n", age=20)
    assert _pairs(capsys, vault) == []
    # and back: found again
    write(vault, "b.md", f"# B\n\n{EDITED}\n", age=10)
    assert _pairs(capsys, vault) == [PAIR]


def test_a_cache_that_cannot_be_used_is_as_if_there_were_none(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _vault(vault)
    assert _pairs(capsys, vault) == [PAIR]
    kept = passages_file(vault)
    _same_stamp(vault / "b.md", f"# B\n\n{OTHER}\n")  # what a read finds now: no pair
    data = kept.read_bytes()
    kept.write_bytes(data[: len(data) // 2])  # cut short: its checksum does not hold
    assert _pairs(capsys, vault) == []
    # kept again, as read then; the note back as it was under the same stamp
    _same_stamp(vault / "b.md", f"# B\n\n{EDITED}\n")
    assert _pairs(capsys, vault) == []
    # passages kept for 10 words are not used for another --min-words: read again
    assert _pairs(capsys, vault, "--min-words", "12") == [PAIR]


def test_a_dump_gives_back_every_passage_signed(vault: Path) -> None:
    _vault(vault)
    store = PassageStore()
    passages = store.update(vault, ["a.md", "b.md", "c.md"])
    assert store.changed
    data = store.dump()
    assert not store.changed
    again = PassageStore.undump(data)
    assert again is not None and not again.changed
    back = again.update(vault, ["a.md", "b.md", "c.md"])
    assert not again.changed  # nothing read: every stamp is the same
    fresh = read_passages(vault, ["a.md", "b.md", "c.md"])
    made = signatures(fresh)
    assert [(p.note, p.first, p.last) for p in back] == [("a.md", 3, 3), ("b.md", 3, 3)]
    assert [(p.note, p.first, p.last) for p in passages] == [
        (p.note, p.first, p.last) for p in back
    ]
    for k, (kept, read) in enumerate(zip(back, fresh, strict=True)):
        assert np.array_equal(kept.words, read.words)
        assert kept.signature is not None
        assert np.array_equal(kept.signature, made[:, k])
    assert PassageStore.undump(data, min_words=12) is None
    assert PassageStore.undump(data[:-40]) is None
    assert PassageStore.undump(b"not a dump") is None
