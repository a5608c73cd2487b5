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


def test_backlinks_read_the_sources_links_without_keeping_their_parses(tmp_path: Path) -> None:
    """A cached record's links are read from its parse's bytes for each question, not its
    whole parse decoded and kept (a note linked from 7,645 notes kept 7,645 parses)."""
    import os

    write(tmp_path, "hub.md", "# Hub\n")
    write(tmp_path, "a.md", "# A\n\nfirst [[hub]] here\n")
    write(tmp_path, "b.md", "# B\n\n[[a]] and [[hub#Hub|the hub]]\n")
    for rel in ("hub.md", "a.md", "b.md"):
        os.utime(tmp_path / rel, (1_000_000_000, 1_000_000_000))  # the cache trusts them
    VaultIndex.scan(tmp_path, use_cache=True).wait_saved()
    index = VaultIndex.scan(tmp_path, use_cache=True)  # records from the cache's rows
    assert index.last_parsed == 0
    rows = backlink_rows(index, "hub.md")
    # written by hand: a.md line 3 column 6; b.md line 3 column 10
    assert [(r["note"], r["line"], r["column"], r["context"]) for r in rows] == [
        ("a.md", 3, 6, "first [[hub]] here"),
        ("b.md", 3, 10, "[[a]] and [[hub#Hub|the hub]]"),
    ]
    assert [rel for rel, r in index.notes.items() if r._parsed is not None] == []
