"""An agent's writes under attack (issue 26), through the MCP SDK's real client against a
real ``librarian mcp --allow-writes``: paths that lead out of the vault or into its hidden
and ignored folders, a folder swapped for a symbolic link while the agent writes into it,
names with control characters, case and Unicode twins, pipes named like notes, huge replies.

Each test asks the server for what a hostile or careless agent would, then checks every
byte inside and outside the vault."""

from __future__ import annotations

import ctypes
import os
import threading
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import write
from tests.faults.conftest import fingerprint, without_own_files
from tests.unit.agents.mcp_client import Agent, ToolFailed, run_agent


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the vault, with a note an agent must never read or write."""
    folder = tmp_path / "outside"
    write(folder, "target.md", "outside, never to be touched\n")
    return folder


@pytest.fixture
def agent_vault(vault: Path) -> Path:
    write(vault, "MEMORY.md", "# Memory\n- [[existing2]]\n")
    write(vault, "existing2.md", "# Existing\n")
    write(vault, "sub/target.md", "inside\n")
    return vault


async def refusal(agent: Agent, tool: str, **arguments: object) -> str | None:
    """The error a tool call was refused with; None when it was carried out."""
    try:
        await agent.call(tool, **arguments)
    except ToolFailed as exc:
        return str(exc)
    return None


def _refused(outcome: dict[str, str], key: str, pattern: str) -> None:
    assert key in outcome, f"{key} was not refused"
    assert pattern in outcome[key], outcome[key]


def test_paths_out_of_the_vault_are_refused_before_anything_is_opened(
    agent_vault: Path, outside: Path, tmp_path: Path
) -> None:
    """Absolute and UNC paths, other file types, and a folder link out of the vault: each a
    clear refusal, nothing written anywhere, and the outside note never even opened."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    os.symlink(outside, agent_vault / "outdir")
    absolute = tmp_path / "abs" / "x.md"
    outcome: dict[str, str] = {}

    async def scenario(agent: Agent) -> None:
        calls: dict[str, tuple[str, dict[str, object]]] = {
            "absolute": ("write_note", {"path": str(absolute), "text": "x"}),
            "absolute append": ("append_to_note", {"note": str(absolute), "text": "x"}),
            "unc": ("write_note", {"path": "\\\\server\\share\\x.md", "text": "x"}),
            "drive": ("write_note", {"path": "C:\\notes\\x.md", "text": "x"}),
            "image": ("write_note", {"path": "img.png", "text": "x"}),
            "image append": ("append_to_note", {"note": "pics/img.png", "text": "x"}),
            "climb": ("write_note", {"path": "sub/../../x.md", "text": "x"}),
            "link out": ("append_to_note", {"note": "outdir/target.md", "text": "x"}),
            "link out new": ("write_note", {"path": "outdir/new.md", "text": "x"}),
            "link out overwrite": (
                "write_note",
                {"path": "outdir/target.md", "text": "x", "overwrite": True},
            ),
        }
        for key, (tool, arguments) in calls.items():
            if (said := await refusal(agent, tool, **arguments)) is not None:
                outcome[key] = said

    opened: list[str] = []

    class Opened(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            opened.append(f"{event.event_type} {event.src_path!s}")

    before_vault = without_own_files(fingerprint(agent_vault), agent_vault)
    before_outside = fingerprint(outside)
    observer = Observer()
    observer.schedule(Opened(), str(outside), recursive=True)
    observer.start()
    try:
        run_agent(agent_vault, scenario, "--allow-writes")
    finally:
        observer.stop()
        observer.join()

    _refused(outcome, "absolute", "is an absolute path")
    _refused(outcome, "absolute append", "is an absolute path")
    _refused(outcome, "unc", "is an absolute path")
    _refused(outcome, "drive", "is an absolute path")
    _refused(outcome, "image", "img.png: is a file of type image/png, not a note")
    _refused(outcome, "image append", "pics/img.png: is a file of type image/png, not a note")
    _refused(outcome, "climb", "sub/../../x.md: is not a path inside the vault")
    for key in ("link out", "link out new", "link out overwrite"):
        _refused(outcome, key, "through the symbolic link outdir")
    assert not absolute.exists()
    assert without_own_files(fingerprint(agent_vault), agent_vault) == before_vault
    assert fingerprint(outside) == before_outside
    assert opened == []  # not even read before refusing


def test_hidden_and_ignored_folders_are_never_written(agent_vault: Path) -> None:
    existing = {
        ".git/x.md": "git's\n",
        ".obsidian/ws.md": "workspace\n",
        ".trash/old.md": "deleted\n",
        "private/secret.md": "ignored\n",
    }
    for rel, text in existing.items():
        write(agent_vault, rel, text)
    write(agent_vault, ".librarianignore", "private/\n")
    before = without_own_files(fingerprint(agent_vault), agent_vault)
    outcome: dict[str, str] = {}

    async def scenario(agent: Agent) -> None:
        for rel in existing:
            for key, tool, arguments in (
                (f"overwrite {rel}", "write_note", {"path": rel, "text": "x", "overwrite": True}),
                (f"append {rel}", "append_to_note", {"note": rel, "text": "x"}),
            ):
                if (said := await refusal(agent, tool, **arguments)) is not None:
                    outcome[key] = said
        for key, rel in (("new hidden", ".obsidian/new.md"), ("new ignored", "private/new.md")):
            if (said := await refusal(agent, "write_note", path=rel, text="x")) is not None:
                outcome[key] = said

    run_agent(agent_vault, scenario, "--allow-writes")
    for rel in (".git/x.md", ".obsidian/ws.md", ".trash/old.md"):
        _refused(outcome, f"overwrite {rel}", f"{rel}: is in a hidden folder")
        _refused(outcome, f"append {rel}", f"{rel}: is in a hidden folder")
    _refused(outcome, "overwrite private/secret.md", "is ignored (.librarianignore)")
    _refused(outcome, "append private/secret.md", "is ignored (.librarianignore)")
    _refused(outcome, "new hidden", ".obsidian/new.md: is in a hidden folder")
    _refused(outcome, "new ignored", "private/new.md: is ignored (.librarianignore)")
    assert without_own_files(fingerprint(agent_vault), agent_vault) == before


def test_new_names_with_control_characters_are_refused(agent_vault: Path) -> None:
    names = {
        "newline": "evil\nMEMORY.md",
        "return": "a\rb.md",
        "tab": "tab\there.md",
        "right-to-left override": "rlo\u202egnp.md",
        "in a folder": "fold\ner/x.md",
    }
    before = without_own_files(fingerprint(agent_vault), agent_vault)
    outcome: dict[str, str] = {}

    async def scenario(agent: Agent) -> None:
        for key, name in names.items():
            for tool, arguments in (
                ("write_note", {"path": name, "text": "x"}),
                ("append_to_note", {"note": name, "text": "x"}),
            ):
                if (said := await refusal(agent, tool, **arguments)) is not None:
                    outcome[f"{tool} {key}"] = said

    run_agent(agent_vault, scenario, "--allow-writes")
    for key, name in names.items():
        code = f"U+{ord(next(c for c in name if unicodedata.category(c) in ('Cc', 'Cf'))):04X}"
        for tool in ("write_note", "append_to_note"):
            _refused(outcome, f"{tool} {key}", f"holds the control character {code}")
    assert without_own_files(fingerprint(agent_vault), agent_vault) == before


def test_case_and_unicode_twins_resolve_to_the_existing_note(agent_vault: Path) -> None:
    nfc = unicodedata.normalize("NFC", "café.md")
    write(agent_vault, f"Diary/{nfc}", "# Café\n")
    replies: list[dict[str, object]] = []
    refused: list[str] = []

    async def scenario(agent: Agent) -> None:
        replies.append(await agent.call("append_to_note", note="Existing2.md", text="one"))
        replies.append(
            await agent.call(
                "append_to_note", note=unicodedata.normalize("NFD", "diary/café.md"), text="two"
            )
        )
        try:
            await agent.call("write_note", path="EXISTING2.md", text="three")
        except ToolFailed as exc:
            refused.append(str(exc))

    run_agent(agent_vault, scenario, "--allow-writes")
    assert [r["note"] for r in replies] == ["existing2.md", f"Diary/{nfc}"]
    assert (agent_vault / "existing2.md").read_bytes() == b"# Existing\none\n"
    assert (agent_vault / "Diary" / nfc).read_bytes() == "# Café\ntwo\n".encode()
    assert sorted(p.name for p in agent_vault.iterdir() if p.suffix == ".md") == [
        "MEMORY.md",
        "existing2.md",
    ]
    assert os.listdir(agent_vault / "Diary") == [nfc]
    assert refused == [
        "Error executing tool write_note: existing2.md exists already; nothing was written. "
        "Append with append_to_note, or ask write_note to overwrite it"
    ]


def test_pipes_and_devices_named_like_notes_are_refused_without_blocking(
    agent_vault: Path,
) -> None:
    os.mkfifo(agent_vault / "pipe.md")
    os.symlink("pipe.md", agent_vault / "to-pipe.md")
    outcome: dict[str, str] = {}
    answered: list[str] = []

    async def scenario(agent: Agent) -> None:
        for key, tool, arguments in (
            ("append pipe", "append_to_note", {"note": "pipe.md", "text": "x"}),
            ("append link", "append_to_note", {"note": "to-pipe.md", "text": "x"}),
            ("overwrite pipe", "write_note", {"path": "pipe.md", "text": "x", "overwrite": True}),
            ("new pipe", "write_note", {"path": "pipe.md", "text": "x"}),
        ):
            if (said := await refusal(agent, tool, **arguments)) is not None:
                outcome[key] = said
        found = await agent.call("read_note", note="existing2")
        answered.append(found["note"])

    run_agent(agent_vault, scenario, "--allow-writes")
    _refused(outcome, "append pipe", "pipe.md: is not a regular file")
    _refused(outcome, "overwrite pipe", "pipe.md: is not a regular file")
    _refused(outcome, "append link", "to-pipe.md: is a symbolic link")
    _refused(outcome, "new pipe", "pipe.md exists already")
    assert answered == ["existing2.md"]


def test_a_read_only_note_is_refused_by_every_write(agent_vault: Path) -> None:
    note = agent_vault / "sub" / "target.md"
    note.chmod(0o444)
    outcome: dict[str, str] = {}

    async def scenario(agent: Agent) -> None:
        for key, tool, arguments in (
            ("overwrite", "write_note", {"path": "sub/target.md", "text": "x", "overwrite": True}),
            ("append", "append_to_note", {"note": "sub/target.md", "text": "x"}),
        ):
            if (said := await refusal(agent, tool, **arguments)) is not None:
                outcome[key] = said

    run_agent(agent_vault, scenario, "--allow-writes")
    for key in ("overwrite", "append"):
        _refused(outcome, key, "sub/target.md: is read-only (mode 0444)")
    assert note.read_bytes() == b"inside\n"
    assert note.stat().st_mode & 0o777 == 0o444


def test_a_write_with_many_links_gets_a_bounded_reply(agent_vault: Path) -> None:
    text = "".join(f"[[note {n}]] " for n in range(20_000)) + "[[existing2]]\n"
    replies: list[dict[str, object]] = []

    async def scenario(agent: Agent) -> None:
        replies.append(await agent.call("write_note", path="many.md", text=text))

    run_agent(agent_vault, scenario, "--allow-writes")
    (reply,) = replies
    assert reply["links_total"] == 20_001
    assert reply["unresolved_total"] == 20_000
    links = reply["links"]
    assert isinstance(links, list)
    assert [row["target"] for row in links] == [f"note {n}" for n in range(len(links))]
    assert len(links) == 50
    assert reply["unresolved"] == sorted(f"note {n}" for n in range(20_000))[:50]
    assert (agent_vault / "many.md").read_text() == text


# ------------------------------------------------------------------ the symlink race

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchanger(a: Path, b: Path, stop: threading.Event) -> threading.Thread:
    """A thread swapping the names ``a`` and ``b`` (a folder and a link) as fast as it can."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    names = (os.fsencode(a), os.fsencode(b))

    def swap() -> None:
        while not stop.is_set():
            if renameat2(_AT_FDCWD, names[0], _AT_FDCWD, names[1], _RENAME_EXCHANGE) != 0:
                raise OSError(ctypes.get_errno(), "renameat2")

    return threading.Thread(target=swap, daemon=True)


def test_a_folder_swapped_for_a_link_out_never_takes_a_write_outside(
    agent_vault: Path, outside: Path
) -> None:
    """``sub`` (a real folder) and ``swap`` (a link out of the vault) trade names in a loop
    while the agent creates and appends into ``sub``: nothing lands or stays outside."""
    os.symlink(outside, agent_vault / "swap")
    stop = threading.Event()
    swapper = _exchanger(agent_vault / "sub", agent_vault / "swap", stop)
    before_outside = fingerprint(outside)
    outcomes = {"written": 0, "refused": 0}
    reasons: list[str] = []

    async def scenario(agent: Agent) -> None:
        swapper.start()
        for n in range(150):
            for tool, arguments in (
                ("write_note", {"path": f"sub/new{n}.md", "text": f"new {n}"}),
                ("append_to_note", {"note": "sub/target.md", "text": f"line {n}"}),
                ("write_note", {"path": "sub/target.md", "text": f"all {n}", "overwrite": True}),
            ):
                try:
                    await agent.call(tool, **arguments)
                    outcomes["written"] += 1
                except ToolFailed as exc:
                    reasons.append(str(exc))
                    outcomes["refused"] += 1
        stop.set()
        swapper.join()

    try:
        run_agent(agent_vault, scenario, "--allow-writes")
    finally:
        stop.set()
    assert fingerprint(outside) == before_outside
    assert outcomes["written"] > 0 and outcomes["refused"] > 0, outcomes
    for reason in reasons:  # a write refused says why: it met the link, or the folder moved
        assert "symbolic link" in reason or "moved" in reason, reason


def test_tagging_and_linking_refuse_a_read_only_note_too(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One rule for every writer: tag --apply replaced a 0444 note (a rename needs only the
    folder's permission) while append_to_note refused it."""
    from librarian_gui.cli import main

    write(vault, "concepts.json", '{"rag": {"aliases": ["RAG"], "category": "x"}}\n')
    locked = write(vault, "locked.md", "We use RAG.\n")
    free = write(vault, "free.md", "RAG too.\n")
    locked.chmod(0o444)
    code = main(["tag", str(vault), "--apply", "--no-cache"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert (
        "locked.md: is read-only (mode 0444); Librarian changes no read-only note. Make it "
        "writable to change it here"
    ) in out + err
    assert locked.read_bytes() == b"We use RAG.\n"
    assert free.read_bytes() == b"[[rag|RAG]] too.\n"


def test_a_note_too_deep_to_watch_is_refused_and_the_vault_stays_watched(
    agent_vault: Path,
) -> None:
    """1,100 folders down (a path the system allows): the note was made, and watchdog's
    recursive walk of the new folders killed the thread that hands out every event — the
    server answered from then on without seeing the vault change."""
    deep = "/".join(["d"] * 1_100) + "/deep.md"
    refused: list[str] = []
    found: list[str] = []

    async def scenario(agent: Agent) -> None:
        import anyio

        try:
            await agent.call("write_note", path=deep, text="# Deep\n")
        except ToolFailed as exc:
            refused.append(str(exc))
        write(agent_vault, "sub/later.md", "# Later\n")  # another program's note
        with anyio.fail_after(10):
            while True:
                try:
                    found.append((await agent.call("read_note", note="sub/later.md"))["note"])
                    return
                except ToolFailed:  # not seen yet
                    await anyio.sleep(0.05)

    run_agent(agent_vault, scenario, "--allow-writes")
    assert refused == [
        f"Error executing tool write_note: {deep[:80]}…: is 1,100 folders deep; Librarian makes "
        "notes at most 800 folders down, the depth its watcher can follow. Give a shallower path"
    ]
    assert found == ["sub/later.md"]
    assert not (agent_vault / "d").exists()
