"""The test run itself: what it leaves behind on the machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_run_leaves_no_folder_of_its_own_in_the_temporary_folder(tmp_path: Path) -> None:
    # Each run (and each pytest-xdist worker) made private XDG folders and kept them: a
    # hundred a day on a machine that runs the suite.
    temp = tmp_path / "temp"
    temp.mkdir()
    test = "tests/unit/text/test_forms.py::test_slips_are_damerau_distance_one"
    env = {**os.environ, "TMPDIR": str(temp)}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", test],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert sorted(p.name for p in temp.iterdir()) == []
