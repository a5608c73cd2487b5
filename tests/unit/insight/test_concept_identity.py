"""One identity for a concept (DESIGN §2): the note its ``note`` key names, else the one
named like its id or an alias, *is* the concept — for the dictionary, the queries, the
tagger, the concept page and ``concepts check``. On hand-made vaults and on the demo vault,
the linking notes listed by hand (by grep)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from librarian_gui.cli import main
from librarian_gui.core.concepts.dictionary import Concept, load_dictionary
from librarian_gui.core.concepts.dictionary_file import DictionaryFile
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import concept_note, concept_notes, concept_pages
from librarian_gui.core.insight.cooccurrence import found_in
from librarian_gui.core.render.pages import place_page
from librarian_gui.resources import bundled_demo_vault
from tests.conftest import write


def test_the_note_key_is_read_and_must_be_text(vault: Path) -> None:
    write(vault, "concepts.json", '{"ops": {"aliases": ["ops"], "note": "misc/runbook.md"}}')
    (concept,) = load_dictionary(vault / "concepts.json").concepts
    assert concept == Concept("ops", ("ops",), "", "", "", "misc/runbook.md")
    doc = DictionaryFile(vault / "concepts.json", b'{"ops": {"aliases": [], "note": 3}}')
    assert [(i.code, i.message) for i in doc.structure_issues()] == [
        ("structure", '"ops": note must be text')
    ]


def _vault(root: Path) -> VaultIndex:
    """ops names its note; rag's note is found by an alias; "risk" names a note that does
    not exist, so its note is found by its id; "dup" would claim rag's note second."""
    dictionary = {
        "ops": {"aliases": ["operations"], "note": "misc/runbook"},
        "rag": {"aliases": ["Retrieval Augmented Generation"]},
        "risk": {"aliases": ["danger"], "note": "gone/nowhere.md"},
        "dup": {"aliases": ["dupe"], "note": "notes/Retrieval Augmented Generation.md"},
    }
    write(root, "concepts.json", json.dumps(dictionary))
    write(root, "misc/runbook.md", "How we run things.\n")
    write(root, "notes/Retrieval Augmented Generation.md", "What RAG is.\n")
    write(root, "risk.md", "The note of risk.\n")
    write(root, "a.md", "[[ops]] [[Retrieval Augmented Generation]]\n")
    write(root, "b.md", "[[runbook]] [[rag]] [[risk]]\n")
    write(root, "c.md", "[[misc/runbook.md]]\n")
    return VaultIndex.scan(root, use_cache=False)


def test_a_concepts_note_by_its_key_its_id_or_an_alias(vault: Path) -> None:
    index = _vault(vault)
    index = index.snapshot()
    by_one = {c.id: concept_note(index, c) for c in index.concepts.concepts}
    notes = concept_notes(index)
    pages = {rel: c.id for rel, c in concept_pages(index).items()}
    assert by_one == {
        "ops": "misc/runbook.md",
        "rag": "notes/Retrieval Augmented Generation.md",
        "risk": "risk.md",  # its "note" names nothing: found by its id
        "dup": "notes/Retrieval Augmented Generation.md",
    }
    # A note is the page of one concept: the first in the dictionary that claims it.
    assert notes == {
        "ops": "misc/runbook.md",
        "rag": "notes/Retrieval Augmented Generation.md",
        "risk": "risk.md",
    }
    assert pages == {
        "misc/runbook.md": "ops",
        "notes/Retrieval Augmented Generation.md": "rag",
        "risk.md": "risk",
    }


def test_found_in_counts_links_to_the_note_its_key_names(vault: Path) -> None:
    index = _vault(vault)
    index = index.snapshot()
    found = found_in(index)
    assert found == {
        "ops": frozenset({"a.md", "b.md", "c.md"}),
        "rag": frozenset({"a.md", "b.md"}),
        "risk": frozenset({"b.md"}),
        "dup": frozenset(),
    }


def test_concepts_check_warns_of_a_note_key_naming_no_note(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _vault(vault)
    assert main(["concepts", "check", str(vault), "--json", "--no-cache"]) == 0
    issues = json.loads(capsys.readouterr().out)["issues"]
    assert [(i["concept"], i["code"]) for i in issues if i["code"] == "no-note"] == [
        ("risk", "no-note")
    ]


# ------------------------------------------------------------ the demo vault, by hand

# rate-limiting's note is research/Rate Limiting and Backoff.md (its "note" key). By grep,
# these notes link it ([[Rate Limiting and Backoff]], in front matter too, and one Markdown
# link in diary/2026-10-21); MEMORY.md does as well, and is left out.
RATE_LIMITING_FOUND_IN = (
    "decisions/token-bucket-for-api-calls.md",
    "diary/2026-10-14.md",
    "diary/2026-10-21.md",
    "logs/2026_10_14.md",
    "projects/Eval Harness.md",
    "projects/homelab-ops.md",
    "research/Overview.md",
)


def _demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(bundled_demo_vault(), root)
    return root


def test_the_demo_concept_page_shows_its_note_and_the_notes_linking_it(tmp_path: Path) -> None:
    index = VaultIndex.scan(_demo(tmp_path), use_cache=False)
    index = index.snapshot()
    assert found_in(index)["rate-limiting"] == frozenset(RATE_LIMITING_FOUND_IN)

    def read(rel: str) -> str | None:
        return (index.root / rel).read_text(encoding="utf-8")

    asked: list[str] = []

    def note_body(rel: str) -> str:
        asked.append(rel)
        return "<p>THE NOTE'S BODY</p>"

    page = place_page(
        index, "concept", "//concept/rate-limiting", read, lambda: False, note_body=note_body
    )
    assert asked == ["research/Rate Limiting and Backoff.md"]
    html = page.html
    # The page lists every note linking it, the index note too (as backlinks do).
    assert "<h2>Linked from 8 notes</h2>" in html
    assert "<h2>Unlinked mentions in 4 notes</h2>" in html
    # The note's body comes under the concept's header, before the lists.
    head = html.index("<h1>rate-limiting</h1>")
    body = html.index("THE NOTE'S BODY")
    assert head < body < html.index("<h2>Linked from 8 notes</h2>")
    linked = html[html.index("Linked from") : html.index("Unlinked mentions")]
    assert re.findall(r'href="note:///([^"]*)"', linked) == [
        quote(rel) for rel in sorted(("MEMORY.md", *RATE_LIMITING_FOUND_IN))
    ]


def test_the_tagger_leaves_alone_the_demo_notes_linking_the_concepts_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By grep, ten notes mention rate-limiting's aliases ("token bucket", "rate limit…");
    five of them link its note, one is the note: four are left to tag."""
    root = _demo(tmp_path)
    args = ["tag", str(root), "--concept", "rate-limiting", "--json", "--no-cache"]
    assert main(args) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [n["path"] for n in plan["notes"]] == [
        "diary/2026-11-11.md",
        "logs/2026_10_22.md",
        "logs/2026_11_12.md",
        "people/Priya Raman.md",
    ]


def test_the_concepts_notes_are_kept_with_a_snapshot_and_found_again_after_a_change(
    vault: Path,
) -> None:
    index = _vault(vault)
    first = index.snapshot()
    assert concept_notes(first) is concept_notes(index)  # worked out once per snapshot
    assert dict(concept_notes(first))["ops"] == "misc/runbook.md"
    (vault / "misc/runbook.md").unlink()
    write(vault, "ops.md", "Named like the concept.\n")
    index.update(["misc/runbook.md", "ops.md"])
    # ops' "note" names a note gone now: found by its id; the old snapshot keeps its own.
    assert dict(concept_notes(index)) == {
        "ops": "ops.md",
        "rag": "notes/Retrieval Augmented Generation.md",
        "risk": "risk.md",
    }
    assert concept_notes(first)["ops"] == "misc/runbook.md"
