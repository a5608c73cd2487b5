"""Readers read a snapshot the writer publishes (issue 29, item 3): it never changes after,
two reads of it agree, and the next one is as a fresh scan makes it."""

from __future__ import annotations

import threading
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.snapshot import IndexSnapshot
from tests.conftest import assert_same_as_fresh_scan, snapshot, write


def test_a_snapshot_stays_as_it_was_read_while_the_index_changes(tmp_path: Path) -> None:
    write(tmp_path, "A.md", "[[B]]\n")
    write(tmp_path, "B.md", "[[A]] [[C]]\n")
    write(tmp_path, "C.md", "no links\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    before = index.snapshot()
    (tmp_path / "C.md").unlink()
    write(tmp_path, "A.md", "[[C]] [[New]]\n")
    write(tmp_path, "New.md", "[[A]]\n")
    index.update(["C.md", "A.md", "New.md"])
    after = index.snapshot()

    # The snapshot read before: the vault as it was, every map and the names' resolution.
    assert sorted(before.notes) == ["A.md", "B.md", "C.md"]
    assert dict(before.out_edges["A.md"]) == {"B.md": 1}
    assert dict(before.in_edges["A.md"]) == {"B.md": 1}
    assert dict(before.in_edges["C.md"]) == {"B.md": 1}
    assert "//unresolved/new" not in before.in_edges
    assert before.resolver.resolve_name("C") == "C.md"
    assert before.resolver.resolve_name("New") == "//unresolved/new"
    assert before.summary == (3, 3, 0, 0)

    # The one published after: C gone (B's link to it now names nothing), A and New changed.
    assert sorted(after.notes) == ["A.md", "B.md", "New.md"]
    assert dict(after.out_edges["A.md"]) == {"//unresolved/c": 1, "New.md": 1}
    assert dict(after.in_edges["A.md"]) == {"B.md": 1, "New.md": 1}
    assert dict(after.in_edges["//unresolved/c"]) == {"A.md": 1, "B.md": 1}
    assert after.resolver.resolve_name("C") == "//unresolved/c"
    assert after.resolver.resolve_name("New") == "New.md"
    assert after.summary == (3, 5, 1, 0)  # links: A 2, B 2, New 1
    assert after.generation == before.generation + 1
    assert index.notes is after.notes  # the index's own maps are its latest snapshot's


def test_a_snapshot_is_what_readers_see_before_the_first_scan(tmp_path: Path) -> None:
    write(tmp_path, "A.md", "[[B]]\n")
    index = VaultIndex(tmp_path, use_cache=False)
    assert isinstance(index.snapshot(), IndexSnapshot)
    assert dict(index.notes) == {} and index.summary == (0, 0, 0, 0)
    index.rescan()
    assert list(index.notes) == ["A.md"]


NAMES = ("a", "b", "c", "d", "sub/e")
# One step: write a note linking some names (or delete it).
_STEP = st.tuples(
    st.sampled_from(NAMES),
    st.one_of(st.none(), st.lists(st.sampled_from((*NAMES, "ghost", "E")), max_size=4)),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_STEP, min_size=1, max_size=8))
def test_every_snapshot_keeps_its_state_through_any_updates(
    tmp_path_factory: object, steps: list[tuple[str, list[str] | None]]
) -> None:
    root = tmp_path_factory.mktemp("v")  # type: ignore[attr-defined]
    write(root, "a.md", "[[b]]\n")
    write(root, "b.md", "[[a]] [[c]]\n")
    index = VaultIndex.scan(root, use_cache=False)
    kept = [(index.snapshot(), snapshot(index.snapshot()))]
    for name, links in steps:
        rel = f"{name}.md"
        if links is None:
            (root / rel).unlink(missing_ok=True)
        else:
            write(root, rel, " ".join(f"[[{target}]]" for target in links) + "\n")
        index.update([rel])
        kept.append((index.snapshot(), snapshot(index.snapshot())))
        for old, values in kept:  # no update changed what an earlier snapshot holds
            assert snapshot(old) == values
        assert_same_as_fresh_scan(index)
        # the counts an update keeps: as a fresh scan counts them
        assert index.summary == VaultIndex.scan(root, use_cache=False).summary


def test_readers_on_other_threads_always_see_a_whole_snapshot(tmp_path: Path) -> None:
    """A reader walks snapshot after snapshot while the writer updates 150 times: every
    link it sees is in both maps, every linking note is a note, and nothing fails (a dict
    changed in the middle of a walk raises)."""
    for n in range(40):
        write(tmp_path, f"n{n}.md", f"[[n{(n + 1) % 40}]] [[hub]]\n")
    write(tmp_path, "hub.md", "# hub\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)
    stop = threading.Event()
    problems: list[str] = []
    walks = [0]

    def read() -> None:
        try:
            while not stop.is_set():
                view = index.snapshot()
                for source, out in view.out_edges.items():
                    assert source in view.notes, source
                    for target, count in out.items():
                        assert view.in_edges[target][source] == count, (source, target)
                for target, sources in view.in_edges.items():
                    for source in sources:
                        assert target in view.out_edges[source], (source, target)
                walks[0] += 1
        except Exception as exc:
            problems.append(repr(exc))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for step in range(150):
            n = step % 40
            if step % 3 == 0:
                (tmp_path / f"n{n}.md").unlink()
            else:
                write(tmp_path, f"n{n}.md", f"[[n{(n + 7) % 40}]] [[hub]] [[n{step}]]\n")
            index.update([f"n{n}.md"])
    finally:
        stop.set()
        reader.join(10)
    assert problems == []
    assert walks[0] > 0
    assert_same_as_fresh_scan(index)
