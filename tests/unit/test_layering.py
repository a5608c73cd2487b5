"""ui/ takes from core/ only data types and pure formatting, name by name.

import-linter's contract (pyproject.toml, "ui-reads-core-types") lists the core modules ui/
may import. A few of them also hold functions that read the index or the vault; from those,
ui/ may import only the names below. Imports a type checker alone reads do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

UI = REPO / "librarian_gui" / "ui"

ALLOWED_NAMES = {
    "librarian_gui.core.render.render": {"heading_anchor"},
    "librarian_gui.core.index.summaries": {"ConceptLinks"},
    "librarian_gui.core.index.resolver": {"CONCEPT_PREFIX", "TAG_PREFIX", "UNRESOLVED_PREFIX"},
    # tag_candidates: the names a run looks at, from a list of names (no index)
    "librarian_gui.core.tagging.run": {"INDEX_NOTE", "NotePlan", "TagPlan", "tag_candidates"},
    "librarian_gui.core.tagging.matching": {"Occurrence"},
    "librarian_gui.core.tagging.suggestions": {"Suggestion"},
    # the data of the related notes, which services/ builds (not related_index itself)
    "librarian_gui.core.related.vault": {
        "DEFAULT_THRESHOLD",
        "RelatedIndex",
        "RelatedNote",
        "RelatedPair",
    },
    # the preview's images, asked for by QTextBrowser in the GUI thread: the scan's symlink rule
    "librarian_gui.core.vault.files": {"resolve_inside"},
}


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")[: -node.level]
    return ".".join([*package, *([node.module] if node.module else [])])


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports inside ``if TYPE_CHECKING:`` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def disallowed(module: str, source: str) -> list[str]:
    """``module: core.module.name`` for each name ``module`` may not take from core."""
    tree = ast.parse(source)
    typing_only = _type_checking_only(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.lineno in typing_only:
            continue
        target = _absolute(module, node)
        allowed = ALLOWED_NAMES.get(target)
        if allowed is None:
            continue
        found += [f"{module}: {target}.{a.name}" for a in node.names if a.name not in allowed]
    return found


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def test_ui_takes_only_types_and_formatting_from_mixed_core_modules() -> None:
    offenders = [
        offence
        for path in sorted(UI.rglob("*.py"))
        for offence in disallowed(_module_of(path), path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_check_sees_a_function_taken_from_a_mixed_module() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from ...core.tagging.run import TagPlan, apply_plan\n"
        "from ...core.index.summaries import ConceptLinks\n"
        "if TYPE_CHECKING:\n"
        "    from ...core.index.summaries import concept_links\n"
        "def f():\n"
        "    from ...core.index.summaries import vault_tag_counts\n"
    )
    assert disallowed("librarian_gui.ui.panes.example", source) == [
        "librarian_gui.ui.panes.example: librarian_gui.core.tagging.run.apply_plan",
        "librarian_gui.ui.panes.example: librarian_gui.core.index.summaries.vault_tag_counts",
    ]
