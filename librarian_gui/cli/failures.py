"""What the command line says when the system stops a command — a full disk, a read-only
or unreadable file, no memory left, something nested too deeply to follow: one
``librarian:`` line naming the file (or, when the error names none, the vault and the
command) and what to do, and exit code 1; never a traceback."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

# What to do about an OSError, by its errno; a write adds how to clear what it left.
_ADVICE = {
    errno.ENOSPC: "Free some space",
    errno.EDQUOT: "Free some space (the disk quota is used up)",
    errno.EROFS: "Make it writable",
    errno.EACCES: "Check its permissions",
    errno.EPERM: "Check its permissions",
    errno.ENAMETOOLONG: "Use a shorter path",
    errno.EIO: "Check the disk",
}
_FLAGS = ("apply", "undo", "fix", "repair")


def command_of(args: argparse.Namespace) -> str:
    """The command as the user gave it, without its arguments: ``librarian tag --apply``."""
    words = ["librarian", str(getattr(args, "command", "") or "")]
    if getattr(args, "concepts_command", None):
        words.append(args.concepts_command)
    words += [f"--{flag}" for flag in _FLAGS if getattr(args, flag, False) is True]
    if words[-1] == "--fix" and getattr(args, "dry_run", False):
        words.append("--dry-run")
    return " ".join(word for word in words if word)


def writes(args: argparse.Namespace) -> bool:
    """Whether the command writes the vault (through the journal)."""
    if getattr(args, "command", None) == "undo":
        return True
    if getattr(args, "fix", False) and not getattr(args, "dry_run", False):
        return True
    return any(getattr(args, flag, False) is True for flag in ("apply", "undo", "repair"))


def vault_of(args: argparse.Namespace) -> Path | None:
    vault = getattr(args, "vault", None)
    return Path(vault).expanduser() if vault is not None else None


def os_error_line(exc: OSError, args: argparse.Namespace) -> str:
    """One line for an OSError that stopped the command: the file it names (else the
    vault), what the system said, and what to do."""
    vault = vault_of(args)
    where = exc.filename if exc.filename is not None else vault
    said = exc.strerror or str(exc)
    head = f"{where}: {said}" if where is not None else said
    advice = _ADVICE.get(exc.errno or 0, "")
    if writes(args) and vault is not None:
        # The journal finishes or removes what an interrupted write left; --repair does
        # it at once (and says what it did).
        then = f"run librarian scan {vault} --repair, which clears anything the write left"
        advice = f"{advice}, then {then}" if advice else then[0].upper() + then[1:]
    elif advice:
        advice += ", then run it again"
    line = f"{head}; {command_of(args)} stopped"
    return f"{line}. {advice}" if advice else line


def last_resort(exc: BaseException, args: argparse.Namespace) -> str:
    """The line for what no command caught: an OSError, MemoryError or RecursionError."""
    vault = vault_of(args)
    command = command_of(args)
    if isinstance(exc, MemoryError):
        where = f"{vault}: " if vault is not None else ""
        return (
            f"{where}out of memory; {command} stopped. Close other programs, or leave large "
            "folders out with --exclude, then run it again"
        )
    if isinstance(exc, RecursionError):
        where = f"{vault}: " if vault is not None else ""
        return (
            f"{where}something is nested too deeply to follow; {command} stopped. Look for "
            "a folder path or a file nested thousands of levels deep"
        )
    if isinstance(exc, OSError):
        return os_error_line(exc, args)
    return f"{exc}; {command} stopped"
