"""Reading the concept dictionary (``concepts.json``): concept ids, aliases, categories."""

from __future__ import annotations

import errno
import json
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..text.analyzer import IS_SPACED_WORD_CHAR
from ..vault.files import RefusedFile, read_regular_file

DEFAULT_DICTIONARY = "concepts.json"
# Five times the largest real one (90,000 concepts, 6 MB). Read, a gigabyte of JSON takes
# several times its size in memory: the process runs out of it, or aborts.
MAX_DICTIONARY_BYTES = 32_000_000
CASE_SENSITIVE_MAX = 4  # DESIGN §3: "AI", "MCP" match only in capitals

_SLUG = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_NOT_SLUG = re.compile(r"[\W_]+")
# A concept is three levels deep (the file's object, the concept, its aliases). Far deeper
# nesting is no dictionary, and Python's parser, copies and comparisons recurse on it
# until they raise RecursionError: past this depth the file is refused.
MAX_DEPTH = 100
TOO_DEEP = f"nested too deeply: more than {MAX_DEPTH} levels of brackets, where a concept needs 3"
# A JSON string (or the rest of an unterminated one), or a bracket: strings are skipped
# when brackets are counted.
_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")
# The JSON escape of a UTF-16 surrogate: a text without one holds no lone surrogate.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
# Half of a UTF-16 pair: JSON can write one ("\ud800"), but it is no character. Text that
# holds one cannot be written as UTF-8, shown by Qt (it drops it) or found in a note.
_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_IS = "half of a UTF-16 pair and no character"


def dictionary_place(root: Path, chosen: Path | None) -> tuple[Path, str | None]:
    """Where a vault's concept dictionary is: the file chosen for it (resolved) or the
    vault's own ``concepts.json``, and its vault path (None when it lies outside the vault,
    where the vault's watcher does not look). ``root`` is resolved."""
    path = chosen.expanduser().resolve() if chosen else root / DEFAULT_DICTIONARY
    try:
        return path, path.relative_to(root).as_posix()
    except ValueError:
        return path, None


def fold(text: str) -> str:
    """Lowercase without changing the length, so offsets stay offsets: a character whose
    lowercase is longer ("İ") is kept as it is."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def is_case_sensitive(alias: str) -> bool:
    """An alias of at most 4 characters written in capitals ("AI", "MCP") matches only
    as written; every other alias matches ignoring case (DESIGN §3)."""
    return len(alias) <= CASE_SENSITIVE_MAX and alias.upper() == alias != alias.lower()


def bounded_ends(alias: str) -> tuple[bool, bool]:
    """Whether the alias needs a word boundary before and after it: an end that is a letter
    or digit of a script that spaces its words does; an end in Chinese or Japanese, or a
    punctuation mark ("C++"), does not."""
    if not alias:
        return False, False
    return (
        IS_SPACED_WORD_CHAR.match(alias[0]) is not None,
        IS_SPACED_WORD_CHAR.match(alias[-1]) is not None,
    )


def slugify(text: str) -> str:
    """``text`` as a concept id: lowercase, apostrophes dropped ("Wren's" → "wrens"), every
    other run of non-letters and non-digits one hyphen. May not be a slug (it may be empty)."""
    text = text.replace("'", "").replace("’", "")
    return _NOT_SLUG.sub("-", text.lower()).strip("-")


def is_slug(concept_id: str) -> bool:
    """Lowercase letters and digits (any script) in words joined by single hyphens."""
    return _SLUG.fullmatch(concept_id) is not None and concept_id == concept_id.lower()


Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class LintIssue:
    """One finding about the dictionary. ``concept`` is None when it concerns the whole
    file (it does not parse); ``alias`` names the alias concerned, if any; ``code`` is a
    stable key (see concept_lint), ``message`` a sentence for the user."""

    concept: str | None
    severity: Severity
    code: str
    message: str
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class Concept:
    id: str
    aliases: tuple[str, ...]
    category: str
    description: str = ""
    color: str = ""
    note: str = ""  # the vault path of the concept's own note, if the dictionary names one


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


class DictionaryUnusable(OSError):
    """The dictionary's path holds nothing Librarian reads: no regular file (a named pipe
    would block the read forever, ``/dev/zero`` never end it) or one larger than
    ``MAX_DICTIONARY_BYTES``. ``reason`` (also ``strerror``) says so, and what to do."""

    def __init__(self, path: Path, code: int, reason: str) -> None:
        super().__init__(code, reason, str(path))
        self.reason = reason


def read_dictionary_bytes(path: Path) -> bytes:
    """The bytes of the dictionary file at ``path``, if it is a regular file of at most
    ``MAX_DICTIONARY_BYTES``; else ``DictionaryUnusable``, before a byte is read (or once
    the limit is read, if it grows meanwhile). ``FileNotFoundError`` when there is none,
    another ``OSError`` when it cannot be read."""
    try:
        return read_regular_file(path, MAX_DICTIONARY_BYTES)
    except RefusedFile as exc:
        if exc.errno == errno.EFBIG:
            raise DictionaryUnusable(path, errno.EFBIG, _too_large(exc.st.st_size)) from None
        code = errno.EISDIR if stat.S_ISDIR(exc.st.st_mode) else errno.EINVAL
        raise DictionaryUnusable(
            path,
            code,
            f"{_kind(exc.st.st_mode)}, not a file; not read. Put the dictionary file there",
        ) from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _too_large(size: int) -> str:
    return (
        f"{size / 1e6:,.1f} MB, over the {MAX_DICTIONARY_BYTES / 1e6:.0f} MB a concept "
        "dictionary may have; not read. Check that it is the dictionary you meant"
    )


def load_dictionary(path: Path) -> ConceptDictionary:
    """Load a dictionary; a missing file is an empty dictionary, a broken one says why."""
    try:
        raw = read_dictionary_bytes(path)
    except FileNotFoundError:
        return ConceptDictionary(None)
    except DictionaryUnusable as exc:
        return ConceptDictionary(path, error=f"{path.name}: {exc.reason}")
    except OSError as exc:
        return ConceptDictionary(path, error=f"{path.name}: cannot be read ({exc.strerror})")
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        return ConceptDictionary(path, error=f"{path.name}: not UTF-8 at byte {exc.start}")
    except json.JSONDecodeError as exc:
        return ConceptDictionary(
            path, error=f"{path.name}: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        )
    except RecursionError:
        data = None
        deep = True
    else:
        deep = too_deep(text)
    if deep:
        line, column = text_position(text, too_deep_at(text))
        return ConceptDictionary(
            path, error=f"{path.name}: line {line}, column {column}: {TOO_DEEP}"
        )
    if not isinstance(data, dict):
        return ConceptDictionary(path, error=f"{path.name}: the top level must be an object")
    concepts = concepts_of(data, may_hold_surrogates(text))
    return ConceptDictionary(path, concepts, _by_id={c.id.lower(): c for c in concepts})


def too_deep(text: str) -> bool:
    """Whether the lists and objects of a JSON text (one that parses) nest deeper than
    MAX_DEPTH. Without its strings and everything but brackets, the text is brackets
    only, and each pass that takes out the empty pairs ("[]", "{}") takes out one level:
    a few passes over a few hundred kilobytes for a large dictionary, in C."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(MAX_DEPTH):
        if not brackets:
            return False
        brackets = _INNERMOST.sub("", brackets)
    return bool(brackets)


def too_deep_at(text: str, start: int = 0, level: int = 0) -> int:
    """The offset of the first bracket in ``text`` from ``start`` that opens a level past
    MAX_DEPTH, counting from ``level`` (strings skipped); len(text) if there is none."""
    for match in _NESTING.finditer(text, start):
        char = match.group()
        if char in "[{":
            level += 1
            if level > MAX_DEPTH:
                return match.start()
        elif char in "]}":
            level -= 1
    return len(text)


def text_position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of an offset into ``text``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` as its JSON escape (``\\ud800``), or None."""
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found.group()):04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its JSON escape, as the file has it:
    printable, and valid inside a JSON string."""
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def may_hold_surrogates(text: str) -> bool:
    """Whether a JSON text can hold a lone surrogate: only as an escape, which this finds
    (with the escapes of proper pairs, "\\ud83d\\ude00", which are characters)."""
    return _ESCAPED_SURROGATE.search(text) is not None


def concepts_of(data: dict[str, Any], surrogates: bool = True) -> tuple[Concept, ...]:
    """The concepts of a parsed dictionary, in file order. A concept whose id holds a lone
    surrogate is left out: no note can link it, and the tagger could not write a link.
    ``surrogates=False`` says ``data`` holds none (see may_hold_surrogates): nothing is
    searched for them (a second at 90,000 concepts)."""
    if not surrogates:
        return tuple(_concept(key, value, False) for key, value in data.items())
    return tuple(_concept(key, value) for key, value in data.items() if not _SURROGATE.search(key))


def _concept(key: str, value: Any, surrogates: bool = True) -> Concept:
    if not isinstance(value, dict):
        return Concept(key, (), "")
    aliases = value.get("aliases", [])
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list):
        aliases = []
    if not surrogates:
        return Concept(
            key,
            tuple(a for a in aliases if isinstance(a, str)),
            str(value.get("category", "") or ""),
            str(value.get("description", "") or ""),
            str(value.get("color", "") or ""),
            str(value.get("note", "") or ""),
        )
    return Concept(
        key,
        # An alias with a lone surrogate can never match a note's text: it is left out.
        tuple(a for a in aliases if isinstance(a, str) and not _SURROGATE.search(a)),
        _text(value.get("category", "")),
        _text(value.get("description", "")),
        _text(value.get("color", "")),
        _text(value.get("note", "")),
    )


def _text(value: Any) -> str:
    """A text field as shown: a lone surrogate becomes U+FFFD, since Qt could not show it."""
    return _SURROGATE.sub("\ufffd", str(value or ""))
