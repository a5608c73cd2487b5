"""Reading the concept dictionary (``concepts.json``): concept ids, aliases, categories."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_DICTIONARY = "concepts.json"


@dataclass(frozen=True, slots=True)
class Concept:
    id: str
    aliases: tuple[str, ...]
    category: str
    description: str = ""
    color: str = ""


@dataclass(frozen=True, slots=True)
class ConceptDictionary:
    """The concepts of one dictionary file, in file order; ``error`` when it did not load."""

    path: Path | None
    concepts: tuple[Concept, ...] = ()
    error: str | None = None
    _by_id: dict[str, Concept] = field(default_factory=dict, compare=False, repr=False)

    def get(self, concept_id: str) -> Concept | None:
        """Look a concept up by id, case-insensitively (ids resolve like link targets)."""
        return self._by_id.get(concept_id.lower())

    def __len__(self) -> int:
        return len(self.concepts)


def load_dictionary(path: Path) -> ConceptDictionary:
    """Load a dictionary; a missing file is an empty dictionary, a broken one says why."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConceptDictionary(None)
    except OSError as exc:
        return ConceptDictionary(path, error=f"{path.name}: cannot be read ({exc.strerror})")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return ConceptDictionary(path, error=f"{path.name}: not UTF-8 at byte {exc.start}")
    except json.JSONDecodeError as exc:
        return ConceptDictionary(
            path, error=f"{path.name}: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        )
    if not isinstance(data, dict):
        return ConceptDictionary(path, error=f"{path.name}: the top level must be an object")
    concepts = [_concept(key, value) for key, value in data.items()]
    return ConceptDictionary(path, tuple(concepts), _by_id={c.id.lower(): c for c in concepts})


def _concept(key: str, value: Any) -> Concept:
    if not isinstance(value, dict):
        return Concept(key, (), "")
    aliases = value.get("aliases", [])
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list):
        aliases = []
    return Concept(
        key,
        tuple(a for a in aliases if isinstance(a, str)),
        str(value.get("category", "") or ""),
        str(value.get("description", "") or ""),
        str(value.get("color", "") or ""),
    )
