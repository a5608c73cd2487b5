"""Under CI the suite must test the installed wheel: a resource missing from it fails here."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="checks the CI install only")
def test_installed_wheel_carries_its_resources() -> None:
    # -I: isolated, so neither the working folder nor PYTHONPATH can put the source tree first
    code = (
        "import librarian_gui, librarian_gui.resources as r; "
        "print(librarian_gui.__file__); "
        "assert (r.bundled_demo_vault() / 'MEMORY.md').is_file(); "
        "assert (r.bundled_demo_vault() / 'concepts.json').is_file(); "
        "assert (r.concepts_dir() / 'concepts.schema.json').is_file(); "
        "assert [s.path.name for s in r.starter_dictionaries()] == "
        "['starter-ai-agents.json', 'starter-research.json']; "
        "assert 'font' in r.preview_css(False) and 'font' in r.preview_css(True)"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "site-packages" in result.stdout
