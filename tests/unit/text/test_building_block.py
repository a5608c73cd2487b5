"""core/text is a building block: it imports the standard library and itself, nothing else
(import-linter's "text-building-block" contract holds it apart from the rest of Librarian;
this holds it apart from third-party packages too)."""

from __future__ import annotations

import ast
import sys

from tests.conftest import REPO

TEXT = REPO / "librarian_gui" / "core" / "text"


def test_the_analyzer_imports_only_the_standard_library_and_itself() -> None:
    found = []
    for path in sorted(TEXT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                continue  # from .stopwords import ...
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else [f"{'.' * node.level}"]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [
                f"{path.name}: {name}"
                for name in names
                if name.split(".")[0] not in sys.stdlib_module_names
            ]
    assert found == []
