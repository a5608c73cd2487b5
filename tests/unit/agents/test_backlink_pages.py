"""Backlinks rendered a page at a time (``answers.backlink_places`` / ``BacklinkRender``)."""

from __future__ import annotations

from pathlib import Path

from librarian_gui.core.agents.answers import BacklinkRender, backlink_places, backlink_rows
from librarian_gui.core.index.index import VaultIndex
from tests.conftest import write


def test_places_render_the_rows_of_backlinks_in_order(tmp_path: Path) -> None:
    write(tmp_path, "hub.md", "# Hub\n\nSee [[hub]] itself.\n")
    write(
        tmp_path, "a.md", "# A\n\nfirst [[hub]] here\nthen [[other]]\n  and [[hub|the hub]] again\n"
    )
    write(tmp_path, "b/c.md", "# C\n[x](../hub.md)\n")
    write(tmp_path, "z.md", "# Z\n\nno link to it\n")
    index = VaultIndex.scan(tmp_path, use_cache=False)

    places = backlink_places(index, "hub.md")
    # written by hand: a.md links twice, b/c.md once; hub.md's link to itself is left out
    assert places == [("a.md", 0), ("a.md", 1), ("b/c.md", 0)]
    render = BacklinkRender(index, "hub.md")
    assert render(("b/c.md", 0)) == {
        "note": "b/c.md",
        "source": "b/c.md",
        "line": 2,
        "column": 0,
        "kind": "markdown",
        "context": "[x](../hub.md)",
    }
    rows = [render(place) for place in places]
    assert [(r["note"], r["line"], r["column"], r["kind"], r["context"]) for r in rows] == [
        ("a.md", 3, 6, "wiki", "first [[hub]] here"),
        ("a.md", 5, 6, "wiki", "and [[hub|the hub]] again"),
        ("b/c.md", 2, 0, "markdown", "[x](../hub.md)"),
    ]
    assert rows == backlink_rows(index, "hub.md")
