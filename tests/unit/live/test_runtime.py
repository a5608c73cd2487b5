"""``LiveVault`` when its folder goes: deleted or moved away, said gone; another folder at the
path, opened anew. Real files, the real watcher and threads, every one joined."""

from __future__ import annotations

import gc
import shutil
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from librarian_gui.core.live.runtime import LiveVault
from tests.conftest import write

DEADLINE = 10.0  # seconds an eventual condition may take on a loaded 2-core machine


def gone_message(root: Path) -> str:
    return (
        f"the vault folder {root} is gone (deleted or moved away); questions are answered "
        "again once a folder is back at that path"
    )


def fill_old(root: Path) -> None:
    write(root, "alpha.md", "# Alpha\n\nThe old alpha links [[beta]].\n")
    write(root, "beta.md", "# Beta\n\nThe old beta.\n")
    write(root, "notes/kept.md", "# Kept\n\nOld and [[alpha]].\n")


def fill_new(root: Path) -> None:
    # The same paths as the old vault, the same sizes, other words: only the stamps (mtime,
    # inode) tell a cached parse of the old vault from these.
    write(root, "alpha.md", "# Alpha\n\nThe new alpha links [[gamma]].\n")
    write(root, "beta.md", "# Beta\n\nThe new beta.\n")
    write(root, "gamma.md", "# Gamma\n\nOnly in the new vault.\n")


@pytest.fixture
def live(vault: Path) -> Iterator[LiveVault]:
    fill_old(vault)
    opened = LiveVault(vault)
    try:
        yield opened
    finally:
        opened.close()


def eventually(check: Callable[[], bool], what: str) -> None:
    """Poll ``check`` until it holds, or fail after DEADLINE seconds."""
    end = time.monotonic() + DEADLINE
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {DEADLINE} s: {what}")
        time.sleep(0.02)


def answered(live: LiveVault) -> dict[str, str | None] | str:
    """What a question sees: each note's text, or the error it gets."""
    try:
        live.fresh()
    except LookupError as exc:
        return str(exc)
    return {rel: live.text(rel) for rel in sorted(live.index.notes)}


def new_answers(root: Path) -> dict[str, str | None]:
    return {rel: (root / rel).read_text() for rel in ("alpha.md", "beta.md", "gamma.md")}


def seen(live: LiveVault, rel: str, text: str) -> bool:
    """Whether a question now gets ``text`` as ``rel``, as the index read it."""
    live.fresh()
    record = live.index.notes.get(rel)
    size = len(text.encode("utf-8"))
    return record is not None and record.stamp.size == size and live.text(rel) == text


def live_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("live-"))


def test_a_deleted_folder_is_said_gone_then_a_new_one_there_is_read(
    live: LiveVault, vault: Path
) -> None:
    assert sorted(live.index.notes) == ["alpha.md", "beta.md", "notes/kept.md"]
    shutil.rmtree(vault)
    assert answered(live) == gone_message(vault)
    assert answered(live) == gone_message(vault)  # still gone: asked again, said again
    vault.mkdir()
    fill_new(vault)
    assert answered(live) == new_answers(vault)
    assert live.index.out_edges["alpha.md"] == {"gamma.md": 1}
    related = live.related(wait=DEADLINE)
    assert related is not None
    assert dict(related.stamps) == {rel: r.stamp for rel, r in live.index.notes.items()}
    # The new folder is watched: a note written into it (and into a new folder of it,
    # whose watch is made then) is seen without being told.
    write(vault, "later/delta.md", "# Delta\n")
    eventually(lambda: "later/delta.md" in live.index.notes, "later/delta.md indexed")
    # The warm-up holds back while changes come: on a busy machine it may still run here.
    eventually(lambda: "live-warm" not in live_threads(), "the warm-up done")
    assert live_threads() == ["live-related", "live-updates", "live-watch"]


def test_deleted_and_made_again_between_two_questions(live: LiveVault, vault: Path) -> None:
    # The new folder may get the old one's inode (ext4 gives freed ones out again): the
    # watcher's report of the old root's deletion tells them apart then.
    shutil.rmtree(vault)
    vault.mkdir()
    fill_new(vault)
    eventually(lambda: answered(live) == new_answers(vault), "the new notes answered")


def test_a_folder_moved_away_and_another_moved_in(live: LiveVault, vault: Path) -> None:
    other = vault.parent / "other"
    other.mkdir()
    fill_new(other)
    vault.rename(vault.parent / "old")
    other.rename(vault)
    assert answered(live) == new_answers(vault)
    # The old watch followed the old folder away: the one in the vault now is watched anew.
    write(vault, "gamma.md", "# Gamma\n\nChanged in the vault.\n")
    eventually(lambda: seen(live, "gamma.md", "# Gamma\n\nChanged in the vault.\n"), "gamma")


def test_a_folder_moved_away_and_back_is_the_same_vault(live: LiveVault, vault: Path) -> None:
    away = vault.parent / "away"
    vault.rename(away)
    assert answered(live) == gone_message(vault)
    away.rename(vault)
    write(vault, "beta.md", "# Beta\n\nBack, and changed.\n")
    eventually(lambda: seen(live, "beta.md", "# Beta\n\nBack, and changed.\n"), "beta")


def test_reopening_stops_the_old_threads_and_lets_the_old_index_go(
    live: LiveVault, vault: Path
) -> None:
    live.related(wait=DEADLINE)
    old = weakref.ref(live.index)
    shutil.rmtree(vault)
    assert answered(live) == gone_message(vault)
    assert live_threads() == []  # the old watcher and threads stopped and joined
    vault.mkdir()
    fill_new(vault)
    assert answered(live) == new_answers(vault)
    gc.collect()
    assert old() is None
    live.close()
    assert live_threads() == []


def test_a_question_is_not_held_up_by_a_large_change_being_read(live: LiveVault) -> None:
    """An agent's 3 MB note: the question does not read it first (nor wait for the update
    thread reading it), it is answered from the index as it stands and told which note it
    does not see yet; then the note is read, and the next question sees it."""
    from librarian_gui.core.live.runtime import FRESH_BYTES

    text = "".join(f"[[alpha]] line {n}\n" for n in range(150_000))
    assert len(text) > FRESH_BYTES
    write(live.root, "big.md", text)
    opening = live._opening
    answered: list[tuple[str, ...]] = []
    with opening.updater._updating:  # the update thread busy with an earlier batch
        live.changed(["big.md"])
        asking = threading.Thread(target=lambda: answered.append(live.fresh()))
        asking.start()
        asking.join(DEADLINE)
        assert not asking.is_alive(), "the question waited for the update"
        assert answered == [("big.md",)]
        assert "big.md" not in live.index.notes
    eventually(
        lambda: live.fresh() == () and "big.md" in live.index.notes,
        "the update thread read the note",
    )
    # The watcher's own events for the big write may still be applied by the update
    # thread (a question then names what is under way, as it should): let them settle.
    eventually(
        lambda: not opening.updater.applying and not opening.updater.inbox.waiting(),
        "the update thread idle",
    )
    # A small change: read before the question is answered. The update thread is held
    # while the question looks (else the watcher's own event may have it take the change
    # first, and the question waits for that batch: the test below): the question applies
    # it itself.
    write(live.root, "small.md", "# Small\n[[alpha]]\n")
    with opening.updater._updating:
        live.changed(["small.md"])
        asking = threading.Thread(target=lambda: answered.append(live.fresh()))
        asking.start()
        eventually(lambda: _waits_in_apply(asking), "the question applies the change itself")
    asking.join(DEADLINE)
    assert answered[-1] == ()
    assert "small.md" in live.index.notes


def test_a_question_waits_for_a_small_change_the_update_thread_is_reading(
    live: LiveVault,
) -> None:
    """Read-your-writes: an agent writes a note and asks at once, and the update thread has
    taken the change first (on a loaded machine its wait for quiet ended before the
    question came). The change is small: the question waits for that batch and sees the
    note, rather than answering without it (a two-process test run caught that)."""
    updater = live._opening.updater
    eventually(lambda: not updater.applying and not updater.inbox.waiting(), "idle")
    entered, release = threading.Event(), threading.Event()
    read_piece = updater._apply_piece

    def held(*args: object) -> None:
        entered.set()
        release.wait(DEADLINE)
        read_piece(*args)  # type: ignore[arg-type]

    updater._apply_piece = held  # type: ignore[method-assign]
    try:
        write(live.root, "small.md", "# Small\n[[alpha]]\n")
        live.changed(["small.md"])
        updater.flush()  # the update thread takes it now, and is held reading it
        assert entered.wait(DEADLINE)
        answered: list[tuple[str, ...]] = []
        asking = threading.Thread(target=lambda: answered.append(live.fresh()))
        asking.start()
        eventually(lambda: _waits_in_apply(asking), "the question waits for the batch")
        assert "small.md" not in live.index.notes and answered == []
        release.set()
        asking.join(DEADLINE)
        assert answered == [()]
        assert "small.md" in live.index.notes
    finally:
        release.set()
        del updater._apply_piece


def _waits_in_apply(thread: threading.Thread) -> bool:
    """Whether ``thread`` is inside ``VaultUpdater.apply`` (waiting for its lock)."""
    frame = sys._current_frames().get(thread.ident or 0)
    while frame is not None:
        if frame.f_code.co_name == "apply" and frame.f_code.co_filename.endswith("updater.py"):
            return True
        frame = frame.f_back
    return False


def test_the_notes_terms_are_counted_before_the_first_question(live: LiveVault) -> None:
    """The update thread counts every note into the candidates' postings once the words
    are read: the first question does not read the whole vault (10,000 notes: 3 s)."""
    from librarian_gui.core.agents.corpus import note_terms

    eventually(lambda: len(note_terms(live.index)) == 3, "every note counted")
    assert note_terms(live.index).stats().df("old") == 3  # "old" is in the three notes


def test_the_names_and_the_newest_notes_are_read_before_the_first_question(
    live: LiveVault,
) -> None:
    """The warm-up also finds every note's name keys (a search matches them all) and
    analyses the newest notes (a question of stop words reads them): 0.2 s each at 10,000
    notes, which the first such question paid."""
    from librarian_gui.core.agents import corpus, ranking

    def named() -> bool:
        kept = ranking._NAMES.get(live.index.snapshot().identity)
        return kept is not None and kept[0] == ("alpha.md", "beta.md", "notes/kept.md")

    eventually(named, "every note's names found")
    index = live.index.snapshot()
    for rel in index.notes:  # each note's analysis is kept: asking for it makes nothing new
        misses = corpus.analysed.cache_info().misses
        corpus.analysed(rel, index.notes[rel].title, live.text(rel) or "")
        assert corpus.analysed.cache_info().misses == misses, rel


def test_a_chosen_dictionary_in_the_vault_is_read_again_when_it_changes(vault: Path) -> None:
    """``concepts=`` naming a file of the vault (not its concepts.json): a change to it is
    a change of the dictionary, read again with the next update, as the window reads it."""
    write(vault, "a.md", "# A\n\nThe pgsql driver.\n")
    write(vault, "meta/dict.json", '{"postgres": {"aliases": ["Postgres"], "category": "t"}}\n')
    opened = LiveVault(vault, concepts=vault / "meta" / "dict.json")
    try:
        assert [c.aliases for c in opened.index.concepts.concepts] == [("Postgres",)]
        write(
            vault,
            "meta/dict.json",
            '{"postgres": {"aliases": ["Postgres", "pgsql"], "category": "t"}}\n',
        )

        def grown() -> bool:
            opened.fresh()
            return [c.aliases for c in opened.index.concepts.concepts] == [("Postgres", "pgsql")]

        eventually(grown, "the dictionary read again")
    finally:
        opened.close()


def test_a_held_opening_starts_its_background_work_when_told(vault: Path) -> None:
    """``held``: no warm-up (the notes' words) and no related-notes pass until
    ``begin_background``; then both, once."""
    fill_old(vault)
    opened = LiveVault(vault, held=True)
    try:
        time.sleep(0.5)  # what a started warm-up and pass would need here, and more
        assert opened.mention_sources(["beta"]) is None  # words not read: any note may
        assert opened.related_edges() is None
        opened.begin_background()
        opened.begin_background()  # once only: a second thread would fail to start
        eventually(lambda: opened.related_edges() is not None, "the first related pass")
        eventually(
            lambda: opened.mention_sources(["beta"]) == {"alpha.md", "beta.md"},
            "the words read: alpha.md and beta.md say beta, notes/kept.md does not",
        )
    finally:
        opened.close()


def test_a_question_for_related_notes_starts_a_held_opening(vault: Path) -> None:
    fill_old(vault)
    opened = LiveVault(vault, held=True)
    try:
        related = opened.related(wait=DEADLINE)
        assert related is not None
        assert sorted(related.model.notes) == ["alpha.md", "beta.md", "notes/kept.md"]
    finally:
        opened.close()


def test_a_held_opening_closes_without_having_begun(vault: Path) -> None:
    fill_old(vault)
    opened = LiveVault(vault, held=True)
    opened.close()
    opened.begin_background()  # after close: nothing starts
    assert not [t for t in threading.enumerate() if t.name == "live-warm" and t.is_alive()]
