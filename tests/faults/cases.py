"""The fault matrix's hostile inputs (DESIGN §9 and issue 13): each builds one into a vault
that otherwise holds a few good notes, and says what Librarian must report about it.

A case names the warnings the scan must give, each as (path, kind, words the message must
hold), and the hostile note, if there is one, that the window opens and the commands are
asked about. Everything else about the vault must read as if the hostile item were not
there: ``GOOD`` notes, their links and backlinks.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

GOOD = {
    "good/A.md": "# A\n\nSee [[B]]. We use RAG here.\n",
    "good/B.md": "# B\n\nBack to [[A]].\n",
}
DICTIONARY = '{"rag": {"aliases": ["RAG"], "category": "retrieval"}}\n'
Expected = tuple[str, str, str]  # (path, kind, words the message holds)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path], None]
    warnings: tuple[Expected, ...] = ()
    note: str | None = None  # a hostile note, listed in the index (opened in the window)
    indexed: tuple[str, ...] = ()  # notes besides GOOD the index must list
    dictionary_error: str | None = None  # words the dictionary's error must hold
    lint: str | None = None  # an error code `concepts check` must report (the rest loads)
    undo_error: str | None = None  # words undo's refusal must hold (a damaged journal)
    # Faults the operating system gives, injected in this process (CI runs as root, which
    # reads any file): called with pytest's monkeypatch and the vault before anything runs.
    inject: Callable[[pytest.MonkeyPatch, Path], None] | None = None
    window: bool = True  # also opened in the window offscreen


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def base_vault(root: Path) -> None:
    for rel, text in GOOD.items():
        write(root, rel, text)
    write(root, "concepts.json", DICTIONARY)


def _huge(root: Path) -> None:
    line = b"[[good/A]] " + b"x" * 89 + b"\n"
    with open(root / "huge.md", "wb") as out:
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            out.write(line)


def _outside(root: Path) -> Path:
    """A folder beside the vault (outside it) with a secret note and an image."""
    outside = root.parent / "outside"
    write(outside, "secret.md", "the secret outside the vault [[good/A]]\n")
    write(outside, "pic.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    return outside


def _symlink(root: Path, rel: str, target: str | Path) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, root / rel)


def _many_links(root: Path) -> None:
    # 100,000 links to 5,000 dead targets: `unresolved` used to be quadratic in them.
    body = "".join(f"[[dead {n % 5000}]] " for n in range(100_000))
    write(root, "many-links.md", body + "\n")


def _bad_name(root: Path) -> None:
    os.makedirs(root / "odd", exist_ok=True)
    with open(os.path.join(os.fsencode(root / "odd"), b"caf\xe9.md"), "wb") as out:
        out.write(b"A name that is not UTF-8, linking [[good/A]].\n")


def _deep_folders(root: Path) -> None:
    write(root, "/".join(["d"] * 120) + "/deep.md", "deep down [[good/A]]\n")


def _huge_dictionary(root: Path) -> None:
    """90,000 concepts of three names each, many a letter apart: `concepts check` did not
    finish in 120 s (its near-duplicate search compared every name with every other)."""
    import json

    concepts = {
        f"topic-{n:05d}": {
            "aliases": [f"topic {n:05d}", f"subject {n:05d}x"],
            "category": f"cat{n % 40}",
        }
        for n in range(90_000)
    }
    concepts["rag"] = {"aliases": ["RAG"], "category": "retrieval"}
    write(root, "concepts.json", json.dumps(concepts))


def _oversized_dictionary(root: Path) -> None:
    """Sparse: its size on no disk. Read, a 1 GB one ran out of memory (issue 26); 64 MB
    is past the limit too, and the fingerprints hash it in a moment."""
    with open(root / "concepts.json", "wb") as out:
        out.truncate(64 << 20)


def _dictionary_replaced(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        (root / "concepts.json").unlink()
        make(root / "concepts.json")

    return build


def _deep_dictionary(root: Path) -> None:
    write(root, "concepts.json", '{"a": {"aliases": ' + "[" * 1000 + "]" * 1000 + "}}")


def _unreadable(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    from librarian_gui.core.vault import files as vault_module

    real_open = os.open

    def refusing(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if os.fspath(path).endswith("locked.md"):  # type: ignore[call-overload]
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[call-overload]
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vault_module.os, "open", refusing)


def _vanishing(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    from librarian_gui.core.vault import reading

    real_read = reading.read_note

    def read_and_delete(vault: Path, rel: str) -> object:
        if rel != "zz-gone.md":
            return real_read(vault, rel)
        gone = vault / rel
        data = gone.read_bytes()
        gone.unlink()  # listed by the walk, deleted before it is read
        try:
            return real_read(vault, rel)
        finally:
            gone.write_bytes(data)  # and back, so that every scan meets it vanishing

    monkeypatch.setattr(reading, "read_note", read_and_delete)


def _tagged_journal(root: Path) -> Path:
    """A real tagging run's entry in the vault's journal (the good notes mention RAG)."""
    from librarian_gui.core.concepts.dictionary import Concept
    from librarian_gui.core.tagging.run import apply_plan, plan_tagging

    write(root, "tagged.md", "A run linked RAG here.\n")
    plan = plan_tagging(root, ["tagged.md"], [Concept("rag", ("RAG",), "retrieval")])
    entry = apply_plan(root, plan)
    return root / ".librarian" / "journal" / entry.id


CASES: tuple[Case, ...] = (
    Case(
        "unreadable note",
        lambda r: write(r, "locked.md", "secret [[good/A]]\n"),
        (("locked.md", "unreadable", "permission denied"),),
        note="locked.md",
        inject=_unreadable,
    ),
    Case(
        "note vanishing mid-scan",
        lambda r: write(r, "zz-gone.md", "here, then not [[good/A]]\n"),
        (("zz-gone.md", "vanished", "vanished while reading"),),
        inject=_vanishing,
    ),
    Case(
        "damaged journal entry",
        lambda r: (_tagged_journal(r) / "entry.json").write_bytes(b'{"format": 1, "id"'),
        indexed=("tagged.md",),
        undo_error="is damaged",
    ),
    Case(
        "journal that is a file",
        lambda r: write(r, ".librarian/journal", "not a folder\n"),
        undo_error=".librarian/journal is a file, not a folder",
    ),
    Case(
        "latin-1 note",
        lambda r: write(r, "latin1.md", "caf\xe9 [[good/A]]\n".encode("latin-1")),
        (("latin1.md", "encoding", "not valid UTF-8"),),
        note="latin1.md",
    ),
    Case(
        "binary note",
        lambda r: write(r, "blob.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00[[good/A]]"),
        (("blob.md", "binary", "binary content"),),
        note="blob.md",
    ),
    Case(
        "UTF-16 note",
        lambda r: write(
            r, "utf16.md", "\ufeffA note saved as UTF-16 [[good/A]]\n".encode("utf-16-le")
        ),
        (("utf16.md", "binary", "UTF-16 text, not UTF-8; listed, not parsed"),),
        note="utf16.md",
    ),
    Case("50 MB note", _huge, (("huge.md", "too-large", "52.4 MB"),), note="huge.md"),
    Case(
        "FIFO named like a note",
        lambda r: os.mkfifo(r / "pipe.md"),
        (("pipe.md", "not-a-file", "pipe"),),
    ),
    Case(
        "folder named like a note",
        lambda r: write(r, "folder.md/inside.md", "inside [[good/A]]\n"),
        (("folder.md", "not-a-file", "folder named like a note"),),
        indexed=("folder.md/inside.md",),
    ),
    Case(
        "malformed front matter",
        lambda r: write(r, "fm.md", "---\ntags: [a, b\n---\n[[good/B]]\n"),
        (("fm.md", "front-matter", "front matter"),),
        note="fm.md",
    ),
    Case(
        "front matter nested 10,000 deep",
        lambda r: write(
            r, "deep-fm.md", "---\na: " + "[" * 10_000 + "]" * 10_000 + "\n---\n[[good/B]]\n"
        ),
        (("deep-fm.md", "front-matter", "front matter"),),
        note="deep-fm.md",
    ),
    Case(
        "symlink to the vault's parent",
        lambda r: _symlink(r, "up", ".."),
        (("up", "symlink-loop", "above it"),),
    ),
    Case(
        "symlink to the vault itself",
        lambda r: _symlink(r, "good/self", r),
        (("good/self", "symlink-loop", "above it"),),
    ),
    Case(
        "note symlinked from outside",
        lambda r: _symlink(r, "x.md", _outside(r) / "secret.md"),
        (("x.md", "symlink-outside", "outside the vault"),),
    ),
    Case(
        "folder symlinked from outside",
        lambda r: _symlink(r, "shared", _outside(r)),
        (("shared", "symlink-outside", "outside the vault"),),
    ),
    Case(
        "file symlink loop",
        lambda r: (_symlink(r, "a.md", "b.md"), _symlink(r, "b.md", "a.md")),
        (("a.md", "symlink-loop", "loop"), ("b.md", "symlink-loop", "loop")),
    ),
    Case(
        "symlink to itself",
        lambda r: _symlink(r, "me.md", "me.md"),
        (("me.md", "symlink-loop", "loop"),),
    ),
    Case(
        "dangling symlink",
        lambda r: _symlink(r, "gone.md", "nowhere.md"),
        (("gone.md", "broken-link", "to nothing"),),
    ),
    Case(
        "interrupted write's temporary file",
        lambda r: write(r, "good/.librarian-k2j3h4.tmp", "a whole copy of a note\n"),
        (("good/.librarian-k2j3h4.tmp", "interrupted-write", "scan --repair"),),
    ),
    Case(
        "links that climb out of the vault",
        lambda r: (
            _outside(r),
            write(
                r,
                "climb.md",
                "[[../outside/secret]] [s](../outside/secret.md) [p](/etc/passwd)\n"
                "![[../outside/pic.png]] ![img](../outside/pic.png) [[good/A]]\n",
            ),
        ),
        note="climb.md",
    ),
    Case("100,000 links to dead targets", _many_links, note="many-links.md"),
    Case(
        "a one-megabyte link target",
        lambda r: write(r, "long.md", "[[" + "x" * 1_000_000 + "]] [[good/A]]\n"),
        note="long.md",
    ),
    Case(
        "100,000 unclosed brackets",
        lambda r: write(r, "open.md", "[[" * 100_000 + " [[good/A]]\n"),
        note="open.md",
    ),
    Case(
        "a 4 MB paragraph of inline code",
        lambda r: write(
            r, "code.md", "start " + "`code` and `` a ` b `` then ` x " * 120_000 + "[[good/A]]\n"
        ),
        note="code.md",
    ),
    Case(
        "note names that differ only in case",
        lambda r: (write(r, "Note.md", "upper [[good/A]]\n"), write(r, "note.md", "lower\n")),
        indexed=("Note.md", "note.md"),
        note="Note.md",
    ),
    Case(
        "file name that is not UTF-8",
        _bad_name,
        (("odd/caf\udce9.md", "file-name", "not valid UTF-8 (shown as caf\\xe9.md)"),),
        note="odd/caf\udce9.md",
    ),
    Case("folders 120 deep", _deep_folders, indexed=("/".join(["d"] * 120) + "/deep.md",)),
    Case(
        "dictionary that does not parse",
        lambda r: write(r, "concepts.json", '{"rag": {"aliases": ["RAG",]}}'),
        dictionary_error="line 1, column",
    ),
    Case(
        "dictionary nested 1,000 deep",
        _deep_dictionary,
        dictionary_error="nested",
    ),
    Case(
        "dictionary holding a lone surrogate",
        lambda r: write(
            r, "concepts.json", '{"rag": {"aliases": ["RAG", "\\ud800"], "category": "x"}}'
        ),
        lint="surrogate",
    ),
    Case(
        "dictionary of 90,000 concepts",
        _huge_dictionary,
        window=False,  # the command line's case; the editor's lint is issue 15's to speed up
    ),
    Case(
        "dictionary of 64 MB",
        _oversized_dictionary,
        dictionary_error="67.1 MB, over the 32 MB a concept dictionary may have",
    ),
    Case(
        "dictionary that is a named pipe",
        _dictionary_replaced(os.mkfifo),
        (("concepts.json", "not-a-file", "pipe"),),
        dictionary_error="a named pipe, not a file",
    ),
    Case(
        "dictionary linked to /dev/zero",
        _dictionary_replaced(lambda path: os.symlink("/dev/zero", path)),
        (("concepts.json", "symlink-outside", "outside the vault"),),
        dictionary_error="a device, not a file",
    ),
    Case(
        "dictionary that is a list",
        lambda r: write(r, "concepts.json", '["rag"]'),
        dictionary_error="top level",
    ),
    Case(
        "dictionary that is not UTF-8",
        lambda r: write(r, "concepts.json", b'{"caf\xe9": {"aliases": []}}'),
        dictionary_error="not UTF-8",
    ),
    Case(
        "ignore file that is binary garbage",
        lambda r: write(r, ".librarianignore", b"\xff\xfe\x00\x01good/\n\x00"),
    ),
)
