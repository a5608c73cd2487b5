"""The docked local graph: the open note's neighbourhood by depth, trimmed to a limit, laid
out with the note at the centre."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.graph.local import local_view
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write


def _vault(root: Path) -> VaultIndex:
    write(root, "A.md", "[[B]] [[C]] [[Ghost]]\n")
    write(root, "B.md", "[[D]]\n")
    write(root, "C.md", "nothing\n")
    write(root, "D.md", "[[E]]\n")
    write(root, "E.md", "end\n")
    write(root, "Z.md", "alone\n")
    return VaultIndex.scan(root, use_cache=False)


def test_depth_one_and_two_around_a_note_with_it_at_the_centre(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    one = local_view(index, "A.md", 1)
    assert one is not None
    assert one.graph.ids == ("//unresolved/ghost", "A.md", "B.md", "C.md")
    assert one.centre == 1 and one.near == (0, 2, 3) and one.total == 4
    assert one.positions[1].tolist() == [0.0, 0.0]
    two = local_view(index, "A.md", 2)
    assert two is not None
    assert two.graph.ids == ("//unresolved/ghost", "A.md", "B.md", "C.md", "D.md")
    assert two.near == (0, 2, 3)  # D is two hops away
    assert two.positions[1].tolist() == [0.0, 0.0]


def test_past_the_limit_the_direct_neighbours_are_kept_first(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    view = local_view(index, "B.md", 2, limit=3)
    assert view is not None
    # Within 2 hops of B: A, C, D, E, Ghost (6 with B); its direct neighbours are A and D.
    assert view.total == 6
    assert view.graph.ids == ("A.md", "B.md", "D.md")
    assert view.graph.edges.tolist() == [[0, 1], [1, 2]]
    assert view.centre == 1 and view.near == (0, 2)


def test_a_note_without_links_is_alone_and_a_missing_node_gives_none(tmp_path: Path) -> None:
    index = _vault(tmp_path)
    alone = local_view(index, "Z.md", 2)
    assert alone is not None and alone.graph.ids == ("Z.md",) and alone.near == ()
    assert local_view(index, "nope.md", 1) is None
