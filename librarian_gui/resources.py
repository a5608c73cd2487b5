"""Where the bundled files are: the demo vault, the starter dictionaries, the preview CSS."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import platformdirs


def _bundled(name: str) -> Path:
    """A top-level folder of the repository, mapped into the wheel as ``librarian_gui/name``
    (pyproject ``force-include``); in a source checkout it sits beside the package."""
    installed = Path(str(resources.files("librarian_gui"))) / name
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / name


def resources_dir() -> Path:
    return _bundled("resources")


def concepts_dir() -> Path:
    return _bundled("concepts")


@dataclass(frozen=True, slots=True)
class Starter:
    """A starter concept dictionary of the ``concepts/`` folder."""

    title: str
    path: Path
    concepts: int


# The starters offered to a vault without a dictionary, in the order offered.
STARTERS = (("AI agents", "starter-ai-agents.json"), ("Research", "starter-research.json"))


def starter_dictionaries() -> list[Starter]:
    """The starter dictionaries that are there and parse, each with its number of concepts."""
    found = []
    for title, name in STARTERS:
        path = concepts_dir() / name
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append(Starter(title, path, len(data)))
    return found


def preview_css(dark: bool) -> str:
    """The note preview's style sheet for the light or the dark theme."""
    name = "dark.css" if dark else "light.css"
    return (resources_dir() / "preview" / name).read_text(encoding="utf-8")


def bundled_demo_vault() -> Path:
    return resources_dir() / "demo-vault"


def user_demo_vault() -> Path:
    """The demo vault the app opens: a copy in the user data folder, made on first use, so
    the installed files are never written."""
    target = Path(platformdirs.user_data_dir("librarian", appauthor=False)) / "demo-vault"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(bundled_demo_vault(), target)
    return target
