"""Related notes in the background: found on their own thread after the
first index, found again after a change, a stale pass cancelled without a trace."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from librarian_gui.core.related.incremental import update_related
from librarian_gui.core.related.vault import related_index
from librarian_gui.core.vault.files import read_note
from librarian_gui.core.vault.textstore import TextStore
from librarian_gui.services.model import VaultModel
from librarian_gui.services.related import RelatedService
from tests.conftest import write
from tests.unit.related.test_model import NOTES

WORDS = [
    "heron",
    "egret",
    "marsh",
    "reed",
    "pods",
    "helm",
    "chart",
    "kubernetes",
    "sourdough",
    "levain",
    "crumb",
    "oven",
]


@pytest.fixture
def model(vault: Path, qtbot: QtBot) -> Iterator[VaultModel]:
    for rel, text in NOTES.items():
        write(vault, rel, text + "\n")
    m = VaultModel(vault, use_cache=False)
    with qtbot.waitSignal(m.index_ready, timeout=10_000):
        m.start()
    yield m
    m.close()


@pytest.fixture
def session(model: VaultModel) -> Iterator[RelatedService]:
    s = RelatedService(model, TextStore(model.root), use_cache=False)
    yield s
    s.stop()


def fresh(model: VaultModel) -> object:
    return related_index(model.snapshot(), lambda rel: read_note(model.root, rel).text)


def test_related_notes_come_after_the_first_index(
    model: VaultModel, session: RelatedService, qtbot: QtBot
) -> None:
    with qtbot.waitSignal(session.related_ready, timeout=20_000) as ready:
        pass  # started by the model's index (already ready: at once)
    related = ready.args[0]
    assert related.pairs == fresh(model).pairs  # type: ignore[attr-defined]
    assert related.related("bread/starter.md", 0.1)[0].note == "bread/loaf.md"
    assert session.running is False


def test_a_changed_note_is_related_again(
    model: VaultModel, session: RelatedService, qtbot: QtBot
) -> None:
    qtbot.waitSignal(session.related_ready, timeout=20_000).wait()
    before = session.current
    assert before is not None
    rye = "A rye sourdough: the starter fed with rye flour and water, a dense crumb.\n"
    with qtbot.waitSignal(session.related_ready, timeout=20_000) as ready:
        write(model.root, "bread/rye.md", rye)
    after = ready.args[0]
    assert "bread/starter.md" in [r.note for r in after.related("bread/rye.md", 0.1)]
    # One note of thirteen: an update against the last pass's vocabulary, not a rebuild.
    expected = update_related(before.model, {"bread/rye.md": rye})
    assert after.model.notes == expected.notes
    assert (after.model.rows == expected.rows).all()
    assert (after.model.scores == expected.scores).all()


def test_a_pass_cancelled_midway_leaves_no_trace(
    model: VaultModel, session: RelatedService, qtbot: QtBot
) -> None:
    """Many notes, so the first pass is still reading when the second replaces it: only
    the second's answer arrives, and it is the answer of a full build."""
    qtbot.waitSignal(session.related_ready, timeout=20_000).wait()
    rng = random.Random(7)
    for n in range(600):
        write(model.root, f"gen/{n:04}.md", " ".join(rng.choices(WORDS, k=40)) + "\n")
    qtbot.waitUntil(lambda: len(model.index.notes) == 612, timeout=20_000)  # type: ignore[union-attr]
    qtbot.wait(100)  # the update's wish for a pass has come; a refresh supersedes it
    answers: list[object] = []
    session.related_ready.connect(answers.append)
    session.refresh()
    qtbot.waitUntil(lambda: session.running, timeout=20_000)
    first = session.runner._cancel  # the pass under way's
    with qtbot.waitSignal(session.related_ready, timeout=60_000):
        session.refresh()
    assert first.is_set()
    qtbot.wait(300)  # anything the cancelled pass could still send has arrived
    assert len(answers) == 1
    assert answers[0].pairs == fresh(model).pairs  # type: ignore[attr-defined]
    assert session.current is answers[0]


def test_the_open_notes_related_notes_are_explained_at_the_threshold(
    session: RelatedService, qtbot: QtBot
) -> None:
    qtbot.waitSignal(session.related_ready, timeout=20_000).wait()
    with qtbot.waitSignal(session.note_related, timeout=10_000) as shown:
        session.show_note("ops/rollout.md")
    note, found = shown.args
    assert note == "ops/rollout.md"
    assert found[0].related.note == "ops/incident.md"
    assert found[0].line == 1
    terms = {found[0].text[a:b].casefold() for a, b in found[0].spans}
    assert terms <= set(found[0].related.terms) and terms
    with qtbot.waitSignal(session.note_related, timeout=10_000) as shown:
        session.set_threshold(1.01)  # above any cosine (the two ops notes share all: 1.0)
    assert shown.args[1] == []
