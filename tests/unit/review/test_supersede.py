"""The "supersedes" mark (issue 32 item 4): a front-matter property written through the
journal, previewed, undoable; the note's other bytes untouched; refusals with their reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.cli import main
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.parse.parser import parse_note
from librarian_gui.core.review.supersede import apply_supersede, plan_supersede, with_supersedes
from librarian_gui.core.writing.journal import Journal
from librarian_gui.core.writing.safewrite import WriteRefused


def _vault(tmp_path: Path, files: dict[str, bytes]) -> VaultIndex:
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return VaultIndex.scan(tmp_path, use_cache=False)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("# B\n", '---\nsupersedes: "[[a]]"\n---\n# B\n'),
        ("---\ntitle: B\n---\nbody\n", '---\ntitle: B\nsupersedes: "[[a]]"\n---\nbody\n'),
        ("---\n---\nbody\n", '---\nsupersedes: "[[a]]"\n---\nbody\n'),
        (
            '---\nsupersedes: "[[c]]"\ntags: [x]\n---\n',
            '---\nsupersedes:\n  - "[[c]]"\n  - "[[a]]"\ntags: [x]\n---\n',
        ),
        (
            "---\nsupersedes:\n- '[[c]]'\n- [[d]]\n\ntags: [x]\n---\n",
            '---\nsupersedes:\n  - "[[c]]"\n  - "[[d]]"\n  - "[[a]]"\n\ntags: [x]\n---\n',
        ),
        ("---\nsupersedes: [[c]]\n---\n", '---\nsupersedes:\n  - "[[c]]"\n  - "[[a]]"\n---\n'),
        ("---\nsupersedes:\n---\nx\n", '---\nsupersedes: "[[a]]"\n---\nx\n'),
        ('---\nsupersedes: "[[a]]"\n---\n', '---\nsupersedes: "[[a]]"\n---\n'),  # already
        (
            "---\r\ntitle: B\r\n---\r\nbody\r\n",
            '---\r\ntitle: B\r\nsupersedes: "[[a]]"\r\n---\r\nbody\r\n',
        ),
        # no closing line: not front matter (a thematic break), so a new block on top
        ("---\nbody\n", '---\nsupersedes: "[[a]]"\n---\n---\nbody\n'),
    ],
)
def test_the_property_as_written(before: str, after: str) -> None:
    newline = "\r\n" if "\r\n" in before else "\n"
    assert with_supersedes(before, "a", newline) == after


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        ("supersedes: {x: 1}\n", "its supersedes property holds {'x': 1}; edit it by hand"),
        ("supersedes: 3\n", "its supersedes property holds 3; edit it by hand"),
        ("title: [unclosed\n", "front matter is not valid YAML"),
    ],
)
def test_front_matter_it_cannot_take(front: str, reason: str) -> None:
    with pytest.raises(WriteRefused) as caught:
        with_supersedes(f"---\n{front}---\n", "a")
    assert caught.value.reason.startswith(reason)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["title: T", "tags: [x, y]", "supersedes: '[[c]]'", "# note", "k: v"]),
        max_size=4,
    ),
    st.text(alphabet="ab #-\n[]:", max_size=40),
    st.booleans(),
)
def test_the_new_property_names_the_note_and_nothing_else_changes(
    front: list[str], body: str, has_front: bool
) -> None:
    """Whatever the note, the parsed properties after the mark hold every link they held
    and the new one, and the body is the same text."""
    if front.count("supersedes: '[[c]]'") > 1:
        front = [line for line in front if line != "supersedes: '[[c]]'"] + ["supersedes: '[[c]]'"]
    text = ("---\n" + "".join(f"{line}\n" for line in front) + "---\n" if has_front else "") + body
    before = parse_note(text)
    after_text = with_supersedes(text, "a")
    after = parse_note(after_text)
    links = sorted(link.target for link in after.links if link.kind == "property")
    had = sorted(link.target for link in before.links if link.kind == "property")
    assert links == sorted([*had, "a"])
    assert after_text[after.body_start :] == text[before.body_start :]
    assert with_supersedes(after_text, "a") == after_text  # marked twice: once


def test_plan_apply_and_undo(tmp_path: Path) -> None:
    older = b"# Storage\n\nWe chose Postgres.\n"
    newer = "\ufeff# Storage, again\r\n\r\nWe chose DuckDB.\r\n".encode()
    index = _vault(tmp_path, {"notes/storage.md": older, "diary/2024-05-02.md": newer})
    plan = plan_supersede(index, "diary/2024-05-02.md", "notes/storage.md")
    assert plan.name == "storage" and not plan.already
    assert plan.diff == (
        "--- a/diary/2024-05-02.md\n+++ b/diary/2024-05-02.md\n@@ -1,3 +1,6 @@\n"
        '+---\r\n+supersedes: "[[storage]]"\r\n+---\r\n'
        " # Storage, again\r\n \r\n We chose DuckDB.\r\n"
    )
    journal = Journal(tmp_path)
    entry = apply_supersede(journal, plan)
    assert entry.written == ("diary/2024-05-02.md",)
    assert (tmp_path / "diary/2024-05-02.md").read_bytes() == (
        '\ufeff---\r\nsupersedes: "[[storage]]"\r\n---\r\n'
        "# Storage, again\r\n\r\nWe chose DuckDB.\r\n"
    ).encode()
    journal.undo()
    assert (tmp_path / "diary/2024-05-02.md").read_bytes() == newer
    assert (tmp_path / "notes/storage.md").read_bytes() == older


def test_an_agents_append_is_kept_and_a_rewrite_refused(tmp_path: Path) -> None:
    index = _vault(tmp_path, {"a.md": b"# A\n", "b.md": b"# B\n"})
    plan = plan_supersede(index, "b.md", "a.md")
    with (tmp_path / "b.md").open("ab") as f:
        f.write(b"an agent's line\n")
    apply_supersede(Journal(tmp_path), plan)
    assert (tmp_path / "b.md").read_bytes() == (
        b'---\nsupersedes: "[[a]]"\n---\n# B\nan agent\'s line\n'
    )
    plan = plan_supersede(index, "a.md", "b.md")
    (tmp_path / "a.md").write_bytes(b"# A, rewritten\n")
    with pytest.raises(WriteRefused):
        apply_supersede(Journal(tmp_path), plan)
    assert (tmp_path / "a.md").read_bytes() == b"# A, rewritten\n"


def test_the_link_is_the_path_when_the_title_is_not_unique(tmp_path: Path) -> None:
    index = _vault(tmp_path, {"x/a.md": b"# A\n", "y/a.md": b"# A\n", "b.md": b"# B\n"})
    plan = plan_supersede(index, "b.md", "y/a.md")
    assert plan.name == "y/a"
    assert plan.after == '---\nsupersedes: "[[y/a]]"\n---\n# B\n'
    with pytest.raises(WriteRefused) as caught:
        plan_supersede(index, "b.md", "b.md")
    assert str(caught.value) == "b.md: a note cannot supersede itself"


def test_already_named_by_another_spelling(tmp_path: Path) -> None:
    index = _vault(tmp_path, {"x/a.md": b"# A\n", "b.md": b'---\nsupersedes: "[[x/a|old]]"\n---\n'})
    assert plan_supersede(index, "b.md", "x/a.md").already


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _vault(tmp_path, {"a.md": b"# A\n", "b.md": b"---\ntitle: B\n---\nbody\n"})
    assert main(["supersede", str(tmp_path), "b", "a", "--json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["note"], out["supersedes"], out["link"], out["applied"]) == (
        "b.md",
        "a.md",
        "[[a]]",
        False,
    )
    assert (tmp_path / "b.md").read_bytes() == b"---\ntitle: B\n---\nbody\n"
    assert main(["supersede", str(tmp_path), "b", "a", "--apply", "--no-cache"]) == 0
    assert "marked: b.md supersedes a.md" in capsys.readouterr().out
    assert (tmp_path / "b.md").read_bytes() == b'---\ntitle: B\nsupersedes: "[[a]]"\n---\nbody\n'
    entries = Journal(tmp_path).entries()
    assert [e.by["kind"] for e in entries] == ["command line"]
    assert main(["supersede", str(tmp_path), "b", "a", "--no-cache"]) == 0
    assert "names [[a]] in supersedes already" in capsys.readouterr().out
    assert main(["supersede", str(tmp_path), "b", "b", "--no-cache"]) == 1
    assert "a note cannot supersede itself" in capsys.readouterr().err
