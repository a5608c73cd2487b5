"""The bundled demo vault: present in the installed package, and every link form in use.
Expected values come from the vault's author's notes (what was written on purpose)."""

from __future__ import annotations

import json

from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.index.queries import unresolved
from librarian_gui.resources import bundled_demo_vault, concepts_dir


def demo() -> VaultIndex:
    return VaultIndex.scan(bundled_demo_vault(), use_cache=False)


def test_demo_vault_ships_with_the_package() -> None:
    root = bundled_demo_vault()
    assert (root / "MEMORY.md").is_file()
    assert (root / "concepts.json").is_file()
    assert (concepts_dir() / "concepts.schema.json").is_file()


def test_demo_vault_shape() -> None:
    index = demo()
    stats = index.stats()
    assert stats["notes"] == 42  # 43 files, templates/ excluded by .librarianignore
    assert stats["concepts"] == 34
    assert stats["warnings"] == 0
    assert all(count > 0 for count in stats["links"].values())  # type: ignore[union-attr]
    assert index.orphans() == ["inbox/reading-list.md", "inbox/tokenizer-quirks.md"]
    assert [(u.target, u.count) for u in unresolved(index)] == [
        ("research/reranking-experiments", 3),
        ("Agent Sandboxing", 2),
        ("Backup Strategy", 2),
        ("decisions/retire-the-nas", 1),
    ]
    folders = {p.split("/")[0] for p in index.notes if "/" in p}
    assert folders == {"diary", "logs", "projects", "research", "decisions", "people", "inbox"}


def test_same_name_notes_resolve_to_the_nearest() -> None:
    index = demo()

    def overview_target(source: str) -> str:
        return next(t for lk, t in index.links_of(source) if lk.target == "Overview")

    assert overview_target("projects/Memory Hygiene.md") == "projects/Overview.md"
    assert overview_target("research/crdt-sync.md") == "research/Overview.md"


def test_concept_with_a_page_is_one_node() -> None:
    index = demo()
    assert "//concept/prompt-injection" not in index.in_edges
    assert len(index.in_edges["research/prompt-injection.md"]) >= 3


def test_starter_dictionaries_parse_and_use_several_languages() -> None:
    for name in ("starter-ai-agents.json", "starter-research.json"):
        data = json.loads((concepts_dir() / name).read_text(encoding="utf-8"))
        aliases = [a for c in data.values() for a in c["aliases"]]
        assert len(data) >= 15
        assert any(not a.isascii() for a in aliases), name
