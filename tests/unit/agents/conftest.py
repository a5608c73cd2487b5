"""A small vault for the agent tools' tests, every date and tag set by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write


@pytest.fixture
def agent_vault(vault: Path) -> Path:
    write(vault, "concepts.json", '{"fruit": {"aliases": ["apple"], "category": "food"}}\n')
    write(
        vault,
        "MEMORY.md",
        "---\ntags: [index]\n---\n# Memory\n- [[pie]]\n- [[b/2026-02-10]]\n- [[tart]]\n",
    )
    write(
        vault,
        "pie.md",
        "---\ndate: 2026-01-05\ntags: [alpha/beta]\n---\n# Pie\n\n"
        "Baked an apple pie with cinnamon.\n\nThe oven ran hot.\n",
    )
    write(vault, "b/2026-02-10.md", "# Tart\n\nAn apple tart for #alpha friends.\n")
    write(
        vault,
        "bb/tart.md",
        "---\ndate: 2026-03-01\n---\nA pear tart, and an apple on the side. #alphabet\n",
    )
    write(vault, "orchard.md", "---\ndate: 2026-04-01\n---\nTrees in rows: [[fruit]].\n")
    return vault
