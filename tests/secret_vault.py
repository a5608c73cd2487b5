"""A vault with secrets beside it and in its hidden and ignored folders, and the paths to
them an index note must never be read from (issue 26), for the index note's tests."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import write

# What the index note may be: a note of the vault, never a file outside it, in a dot-folder
# or an ignored folder (issue 26). Each pair is (a target that exists, one that does not):
# both must get the same answer, or the answer tells whether a file exists.
SECRET = "- " + "SECRET-API-KEY " * 20 + "\n"  # an entry holding text: its preview shows it
REFUSED_PAIRS = [
    ("../outside.md", "../gone.md"),
    ("../pipe.md", "../gone.md"),  # a FIFO (a device, /dev/tty, alike): never opened
    ("../" * 30 + "etc/passwd", "../" * 30 + "etc/no-such-file"),
    ("../" * 30 + "dev/tty", "../" * 30 + "dev/no-such-device"),
    ("private/keys.md", "private/gone.md"),  # .librarianignore'd
    (".obsidian/notes.md", ".obsidian/gone.md"),
    (".obsidian/plugins/p/data.json", ".obsidian/plugins/p/gone.json"),
    ("attachments/data.json", "attachments/gone.json"),  # not a note
    ("out/outside.md", "out/gone.md"),  # a folder link to the folder above the vault
    ("link.md", "dangling.md"),  # a note's symbolic link out of the vault
]


def refusal(name: str) -> str:
    return (
        f"{name!r} is not a note of this vault: the index note is a .md file inside the "
        "vault, not in a dot-folder or an ignored folder (e.g. MEMORY.md)"
    )


def secret_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "MEMORY.md", "- [[a]]\n")
    write(root, "a.md", "# A\n")
    write(root, ".librarianignore", "private/\n")
    write(root, "private/keys.md", SECRET)
    write(root, ".obsidian/notes.md", SECRET)
    write(root, ".obsidian/plugins/p/data.json", '{"api_key": "SECRET-API-KEY"}\n')
    write(root, "attachments/data.json", '{"api_key": "SECRET-API-KEY"}\n')
    (tmp_path / "outside.md").write_text(SECRET)
    os.mkfifo(tmp_path / "pipe.md")
    os.symlink(tmp_path, root / "out")
    os.symlink(tmp_path / "outside.md", root / "link.md")
    os.symlink(tmp_path / "gone.md", root / "dangling.md")
    return root
