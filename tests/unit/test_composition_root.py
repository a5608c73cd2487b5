"""One composition root (issue 29, item 2): ``services/open_vault.py`` builds every
per-vault service; no other module of the application constructs one, and the ui receives
them from it. Read from the sources, so a new construction anywhere fails here."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "librarian_gui"
ROOT = PACKAGE / "services" / "open_vault.py"

# The per-vault services of the window, written out by hand: what the root must build.
PER_VAULT = {
    "VaultModel",
    "SessionService",
    "GraphService",
    "LocalGraphService",
    "VaultLists",
    "TimelineService",
    "ThinSpotsService",
    "RelatedService",
    "IndexNoteService",
    "ReviewService",
    "ConceptService",
    "TaggingService",
}


def _called_names(tree: ast.AST) -> set[str]:
    """Every name called in ``tree``: ``Name(...)`` and ``module.Name(...)``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names


def test_the_root_builds_every_per_vault_service() -> None:
    tree = ast.parse(ROOT.read_text(encoding="utf-8"))
    (root_class,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "OpenVault"]
    assert _called_names(root_class) >= PER_VAULT


def test_no_other_module_constructs_a_per_vault_service() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == ROOT:
            continue
        called = _called_names(ast.parse(path.read_text(encoding="utf-8"))) & PER_VAULT
        found.extend(f"{path.relative_to(PACKAGE)}: {name}" for name in sorted(called))
    assert found == []


def test_the_ui_imports_no_service_class_to_build_it() -> None:
    """The ui names the service classes for types only (under TYPE_CHECKING) or not at
    all: an import at run time would be the first step of building one."""
    found = []
    for path in sorted((PACKAGE / "ui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for node in ast.walk(block)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and id(node) not in typing_only:
                names = {alias.name for alias in node.names} & PER_VAULT
                found.extend(f"{path.relative_to(PACKAGE)}: {name}" for name in sorted(names))
    assert found == []
