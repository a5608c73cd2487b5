"""The concept dictionary as an editable document: load it with its exact text, edit
concepts, and save atomically, keeping every untouched concept byte for byte.

Agents write ``concepts.json`` by hand or with their own formatter. Re-serialising the whole
file on every save would turn a one-alias edit into a diff of the whole file, so the loader
remembers the raw text of each top-level member; a save writes an unchanged member exactly
as it was and renders only the members that changed, in the file's own indentation and
line endings. Key order is kept; unknown keys are kept; a file that does not parse is
reported with line and column and can never be saved over (there is no document to save).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from ..writing.journal import Edit, Journal, JournalEntry
from ..writing.safewrite import (
    UTF8_BOM,
    FileChanged,
    WriteRefused,
    atomic_write,
    digest_of,
    read_snapshot,
    replace_file,
)
from .dictionary import (
    SURROGATE_IS,
    TOO_DEEP,
    Concept,
    ConceptDictionary,
    LintIssue,
    concepts_of,
    escape_surrogates,
    lone_surrogate,
    may_hold_surrogates,
    read_dictionary_bytes,
    text_position,
    too_deep,
    too_deep_at,
)

_WS = re.compile(r"[ \t\n\r]*")
_INLINE_LIST = re.compile(r'"aliases"\s*:\s*\[[^\]\n]*\]')
# Its NaN is one object wherever it is read (json's constants are shared): a NaN inside a
# concept equals the one in the snapshot (``_Member.value``), as containers compare by
# identity first.
_DECODER = json.JSONDecoder()
KNOWN_KEYS = ("aliases", "category", "description", "color", "note")


class DictionaryParseError(Exception):
    """The file is not a JSON object of concepts. ``line`` and ``column`` are 1-based."""

    def __init__(self, path: Path, line: int, column: int, message: str) -> None:
        super().__init__(f"{path.name}: line {line}, column {column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message

    def told(self) -> str:
        """What the user (``librarian concepts``) and an agent (MCP) are told: the file,
        where in it, what is wrong there, and what to do."""
        return (
            f"{self.path}: line {self.line}, column {self.column}: {self.message}; "
            "fix the dictionary"
        )


def unusable(path: Path) -> str | None:
    """Why the dictionary file at ``path`` cannot be used, as ``librarian concepts`` says
    it (``DictionaryParseError.told``, or that it cannot be read); None when it parses or
    is not there (an empty dictionary)."""
    try:
        DictionaryFile.load(path)
    except DictionaryParseError as exc:
        return exc.told()
    except OSError as exc:
        return cannot_read(path, exc)
    return None


def cannot_read(path: Path, exc: OSError) -> str:
    return f"{path}: cannot be read ({exc.strerror})"


@dataclass(slots=True)
class _Member:
    lead: str  # whitespace (and the comma) before the key, as written
    key_raw: str  # the key as written, quotes included
    sep: str  # whitespace, ":" and whitespace between key and value
    value_raw: str
    value: Any  # the parsed value, to tell whether an edit changed it


@dataclass(slots=True)
class _Layout:
    head: str = "{"
    members: dict[str, _Member] = field(default_factory=dict)
    close: str = "\n"  # whitespace before the closing brace
    tail: str = "\n"  # after the closing brace
    indent: str = "  "
    inline_lists: bool = True
    newline: str = "\n"
    bom: bool = False


class DictionaryFile:
    """One dictionary file, loaded for editing. ``data`` maps each id to its JSON value in
    file order; edit it through the methods so renames keep their place."""

    def __init__(self, path: Path, raw: bytes | None) -> None:
        self.path = Path(path)
        self.duplicate_ids: tuple[str, ...] = ()
        self._layout = _Layout()
        self.data: dict[str, Any] = {}
        self._loaded: bytes | None = raw
        # Whether the values may hold a lone surrogate: the parse tells; after an edit,
        # they are looked for again.
        self._surrogates = True
        if raw is not None:
            self._parse(raw)

    # ------------------------------------------------------------ loading

    @classmethod
    def load(cls, path: Path) -> DictionaryFile:
        """Read ``path``; a missing file is a new, empty dictionary. Raises
        ``DictionaryParseError`` (with line and column) when the file is not a JSON object,
        ``DictionaryUnusable`` (an ``OSError``) when it is no file or too large to read,
        and ``OSError`` when it cannot be read."""
        try:
            raw = read_dictionary_bytes(Path(path))
        except FileNotFoundError:
            return cls(path, None)
        return cls(path, raw)

    @property
    def exists(self) -> bool:
        return self._loaded is not None

    @property
    def loaded_digest(self) -> str | None:
        return None if self._loaded is None else digest_of(self._loaded)

    def _parse(self, raw: bytes) -> None:
        layout = _Layout(bom=raw.startswith(UTF8_BOM))
        body = raw[len(UTF8_BOM) :] if layout.bom else raw
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, column = text_position(body.decode("utf-8", "replace"), exc.start)
            raise DictionaryParseError(self.path, line, column, "not UTF-8") from None
        layout.newline = "\r\n" if "\r\n" in text else "\n"
        layout.inline_lists = _INLINE_LIST.search(text) is not None or '"aliases"' not in text
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if pos >= len(text) or text[pos] != "{":
            self._fail(text, pos, 'the file must hold one JSON object: { "id": {...}, ... }')
        layout.head = text[: pos + 1]
        pos += 1
        data: dict[str, Any] = {}
        duplicates: list[str] = []
        lead_start = pos
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("}", pos):
            layout.close = text[lead_start:pos]
            end = pos + 1
        else:
            while True:
                if not text.startswith('"', pos):
                    self._fail(text, pos, "expected a concept id in double quotes")
                key_start = pos
                try:
                    key, key_end = scanstring(text, pos + 1)
                except json.JSONDecodeError as exc:
                    self._fail(text, exc.pos, exc.msg)
                sep_start = key_end
                pos = _WS.match(text, key_end).end()  # type: ignore[union-attr]
                if not text.startswith(":", pos):
                    self._fail(text, pos, "expected ':' after the concept id")
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                value_start = pos
                try:
                    value, pos = _DECODER.raw_decode(text, pos)
                except json.JSONDecodeError as exc:
                    self._fail(text, exc.pos, exc.msg)
                except RecursionError:
                    self._fail(text, too_deep_at(text, value_start, level=1), TOO_DEEP)
                if key in data:
                    duplicates.append(key)
                    del layout.members[key]  # as json.loads: the later one wins
                data[key] = value
                layout.members[key] = _Member(
                    text[lead_start:key_start],
                    text[key_start:key_end],
                    text[sep_start:value_start],
                    text[value_start:pos],
                    None,  # the snapshot, below
                )
                after = _WS.match(text, pos).end()  # type: ignore[union-attr]
                if text.startswith(",", after):
                    lead_start = after + 1
                    pos = _WS.match(text, lead_start).end()  # type: ignore[union-attr]
                    continue
                if text.startswith("}", after):
                    layout.close = text[pos:after]
                    end = after + 1
                    break
                self._fail(text, after, "expected ',' or '}' after a concept")
        rest = text[end:]
        if rest.strip():
            self._fail(text, end + len(rest) - len(rest.lstrip()), "text after the closing brace")
        if too_deep(text):
            self._fail(text, too_deep_at(text), TOO_DEEP)
        # What each member held, to tell an edit: the file parsed again, in C, is cheaper
        # than copying the values (3 s at 90,000 concepts), and equal to them.
        snapshot = _DECODER.decode(text)
        for key, member in layout.members.items():
            member.value = snapshot[key]
        layout.tail = rest
        first = next(iter(layout.members.values()), None)
        if first is not None and "\n" in first.lead:
            layout.indent = first.lead.rsplit("\n", 1)[1] or "  "
        self._layout = layout
        self.data = data
        self.duplicate_ids = tuple(dict.fromkeys(duplicates))
        self._surrogates = may_hold_surrogates(text)

    def _fail(self, text: str, pos: int, message: str) -> Any:
        line, column = text_position(text, pos)
        raise DictionaryParseError(self.path, line, column, message)

    # ------------------------------------------------------------ reading

    def concepts(self) -> tuple[Concept, ...]:
        return concepts_of(self.data, self._surrogates)

    def to_dictionary(self) -> ConceptDictionary:
        concepts = self.concepts()
        return ConceptDictionary(self.path, concepts, _by_id={c.id.lower(): c for c in concepts})

    def structure_issues(self) -> list[LintIssue]:
        """What a concept's JSON holds that the format does not allow (DESIGN §3): codes
        ``duplicate-id``, ``structure`` and ``surrogate`` (text holding a lone surrogate;
        about the whole file, concept None, when it is in the id), all errors."""
        out: list[LintIssue] = []
        for key in self.duplicate_ids:
            if lone_surrogate(key):
                continue  # reported below: the concept is left out
            out.append(
                LintIssue(
                    key,
                    "error",
                    "duplicate-id",
                    f'"{key}" is defined twice; the later definition wins and a save '
                    "keeps only it. Merge the two by hand.",
                )
            )
        for key, value in self.data.items():
            bad = lone_surrogate(key) if self._surrogates else None
            if bad is not None:
                out.append(
                    LintIssue(
                        None,
                        "error",
                        "surrogate",
                        f'The id "{escape_surrogates(key)}" holds a lone surrogate ({bad}), '
                        f"{SURROGATE_IS}: the concept is left out. Write the whole character "
                        "in a text editor.",
                    )
                )
                continue
            if not isinstance(value, dict):
                out.append(
                    LintIssue(
                        key,
                        "error",
                        "structure",
                        f'"{key}" must be an object like {{"aliases": [...], "category": ...}}',
                    )
                )
                continue
            aliases = value.get("aliases", [])
            if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                out.append(
                    LintIssue(
                        key, "error", "structure", f'"{key}": aliases must be a list of texts'
                    )
                )
            for name in ("category", "description", "color", "note"):
                if name in value and not isinstance(value[name], str):
                    out.append(
                        LintIssue(key, "error", "structure", f'"{key}": {name} must be text')
                    )
            if self._surrogates:
                out.extend(_surrogate_issues(key, value))
        return out

    # ------------------------------------------------------------ editing

    def state(self) -> dict[str, Any]:
        """A copy of the concepts, for an editor's undo stack."""
        return copy.deepcopy(self.data)

    def set_state(self, state: dict[str, Any]) -> None:
        self._surrogates = True
        self.data = copy.deepcopy(state)

    def add_concept(self, concept_id: str, aliases: list[str], category: str = "") -> None:
        if concept_id in self.data:
            raise ValueError(f'a concept "{concept_id}" exists already')
        self._surrogates = True
        value: dict[str, Any] = {"aliases": list(aliases)}
        if category:
            value["category"] = category
        self.data[concept_id] = value

    def set_field(self, concept_id: str, name: str, value: Any) -> None:
        """Set one key of a concept (None or "" removes an optional text key)."""
        self._surrogates = True
        entry = self.data[concept_id]
        if not isinstance(entry, dict):
            entry = self.data[concept_id] = {}
        if value is None or (value == "" and name != "category"):
            entry.pop(name, None)
        else:
            entry[name] = value

    def rename_concept(self, old: str, new: str) -> None:
        """Give a concept a new id in the same place of the file."""
        if new != old and new in self.data:
            raise ValueError(f'a concept "{new}" exists already')
        self._surrogates = True
        self.data = {(new if key == old else key): value for key, value in self.data.items()}

    def delete_concept(self, concept_id: str) -> None:
        del self.data[concept_id]

    def merge_concepts(self, source: str, into: str) -> None:
        """Fold ``source`` into ``into``: its aliases (and its id, as an alias) are added
        where ``into`` lacks them, ``into`` keeps its other keys; ``source`` is removed."""
        if source == into:
            raise ValueError("a concept cannot be merged into itself")
        self._surrogates = True
        target = self.data[into]
        if not isinstance(target, dict):
            target = self.data[into] = {}
        merged = [a for a in target.get("aliases", []) if isinstance(a, str)]
        seen = {a.casefold() for a in merged}
        value = self.data[source]
        extra = value.get("aliases", []) if isinstance(value, dict) else []
        for alias in [*extra, source]:
            if isinstance(alias, str) and alias.casefold() not in seen:
                seen.add(alias.casefold())
                merged.append(alias)
        target["aliases"] = merged
        if isinstance(value, dict):
            for name, item in value.items():
                target.setdefault(name, item)
        del self.data[source]

    # ------------------------------------------------------------ saving

    def render(self) -> bytes:
        """The file as it would be saved: unchanged members byte for byte."""
        lay = self._layout
        nl = lay.newline
        parts: list[str] = []
        for key, value in self.data.items():
            old = lay.members.get(key)
            if old is not None and old.value == value:
                parts.append(old.lead + old.key_raw + old.sep + old.value_raw)
                continue
            if old is not None:
                text = old.lead + old.key_raw + old.sep + self._dump(value, 1)
            else:
                text = nl + lay.indent + _key(key) + ": " + self._dump(value, 1)
            # A lone surrogate can only be in a rendered string (raw text is decoded UTF-8,
            # which holds none); its JSON escape is what the file had.
            parts.append(escape_surrogates(text))
        close = lay.close
        if parts and "\n" not in close and not lay.members:
            close = nl
        body = lay.head + ",".join(parts) + close + "}" + lay.tail
        data = body.encode("utf-8")
        return UTF8_BOM + data if lay.bom else data

    @property
    def dirty(self) -> bool:
        """Whether a save would change the file (or create it)."""
        return self._loaded is None or self.render() != self._loaded

    def _dump(self, value: Any, level: int) -> str:
        lay = self._layout
        pad = lay.newline + lay.indent * (level + 1)
        if isinstance(value, dict) and value:
            items = [pad + _key(k) + ": " + self._dump(v, level + 1) for k, v in value.items()]
            return "{" + ",".join(items) + lay.newline + lay.indent * level + "}"
        if isinstance(value, list) and value:
            scalar = all(not isinstance(v, dict | list) for v in value)
            if scalar and lay.inline_lists:
                return json.dumps(value, ensure_ascii=False)
            items = [pad + self._dump(v, level + 1) for v in value]
            return "[" + ",".join(items) + lay.newline + lay.indent * level + "]"
        return json.dumps(value, ensure_ascii=False)

    def save(
        self, vault: Path | None = None, journal: Journal | None = None
    ) -> JournalEntry | None:
        """Write the document atomically, if the file on disk is still what was loaded.

        Inside the vault (``vault`` given and holding the file) the write goes through the
        vault's journal, so Edit → Undo restores the previous file; elsewhere it is an
        atomic replace with the same check. Raises ``FileChanged`` when the file changed
        (or appeared) since it was loaded, ``WriteRefused`` when it cannot be written or
        when an edited concept holds a lone surrogate (the editor cannot show it, so the
        user would save what they cannot see).
        """
        self._refuse_surrogates()
        data = self.render()
        rel = _inside(vault, self.path)
        if self._loaded is None:
            if self.path.exists():
                raise FileChanged(self.path.name, "was created by someone else since; reload it")
            atomic_write(self.path, data)
            entry = None
        elif rel is not None and vault is not None:
            snapshot = read_snapshot(vault, rel)
            if snapshot.digest != self.loaded_digest:
                raise FileChanged(rel, "changed on disk since it was loaded; reload or keep yours")
            journal = journal or Journal(vault)
            # JSON: text appended meanwhile must make the save stand back, not follow it.
            edit = Edit(rel, snapshot, data, keep_appends=False)
            entry = journal.apply(f"Save concept dictionary {rel}", [edit])
            if not entry.written and entry.skipped and entry.skipped[0][1] != "nothing to change":
                raise WriteRefused(rel, entry.skipped[0][1])
        else:
            replace_file(self.path.parent, self.path.name, data, self.loaded_digest or "")
            entry = None
        self._loaded = data
        self._parse(data)
        return entry

    def _refuse_surrogates(self) -> None:
        for key, value in self.data.items():
            old = self._layout.members.get(key)
            if old is not None and old.value == value:
                continue  # written back as it was
            bad = lone_surrogate(key) or _first_surrogate(value)
            if bad is not None:
                shown = escape_surrogates(key)
                raise WriteRefused(
                    self.path.name,
                    f'"{shown}" holds a lone surrogate ({bad}), {SURROGATE_IS}, which '
                    f'Librarian does not write. Undo your edits to "{shown}", or fix it in a '
                    "text editor and reload.",
                )


def _surrogate_issues(key: str, value: dict[str, Any]) -> list[LintIssue]:
    out: list[LintIssue] = []
    aliases = value.get("aliases", [])
    for number, alias in enumerate([aliases] if isinstance(aliases, str) else aliases, 1):
        bad = lone_surrogate(alias) if isinstance(alias, str) else None
        if bad is not None:
            shown = escape_surrogates(alias)
            message = (
                f'Alias {number} ("{shown}") holds a lone surrogate ({bad}), {SURROGATE_IS}: '
                "it never matches. Write the whole character or remove the alias."
            )
            out.append(LintIssue(key, "error", "surrogate", message, shown))
    for name in ("category", "description", "color", "note"):
        field = value.get(name)
        bad = lone_surrogate(field) if isinstance(field, str) else None
        if bad is not None:
            message = (
                f'Its {name} holds a lone surrogate ({bad}), {SURROGATE_IS}, shown as "\ufffd". '
                "Write the whole character."
            )
            out.append(LintIssue(key, "error", "surrogate", message))
    return out


def _first_surrogate(value: Any) -> str | None:
    """The first lone surrogate in a JSON value's keys and texts (escaped), or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            bad = lone_surrogate(item)
            if bad is not None:
                return bad
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _inside(vault: Path | None, path: Path) -> str | None:
    if vault is None:
        return None
    try:
        return path.resolve().relative_to(Path(vault).resolve()).as_posix()
    except ValueError:
        return None
