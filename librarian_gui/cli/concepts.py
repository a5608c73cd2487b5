"""The command line's concept commands: ``librarian concepts check``, ``librarian concepts
suggest`` and ``librarian tag``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.concepts.dictionary import (
    DEFAULT_DICTIONARY,
    Concept,
    ConceptDictionary,
    DictionaryUnusable,
    LintIssue,
)
from ..core.concepts.dictionary_file import DictionaryFile, DictionaryParseError, cannot_read
from ..core.concepts.lint import lint_concepts, lint_errors
from ..core.courtesy import gc_paused
from ..core.index.queries import concept_notes, named_note
from ..core.tagging.run import (
    apply_plan,
    concept_usage,
    plan_tagging,
    tag_candidates,
    undo_last_run,
)
from ..core.tagging.suggestions import MAX_SUGGESTIONS, MIN_NOTES, vault_suggestions
from ..core.vault.files import read_note
from ..core.writing.journal import COMMAND_LINE, Journal, JournalError
from ..core.writing.lock import WAIT, VaultBusy
from ..core.writing.safewrite import WriteRefused
from .common import OpenIndex
from .exits import EXIT_BUSY, EXIT_FINDINGS, EXIT_USAGE, CommandFailed, Result


def positive(text: str) -> int:
    """An argparse type: a whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be 1 or more")
    return value


def dictionary_path(args: argparse.Namespace, vault: Path) -> Path:
    return Path(args.concepts).expanduser() if args.concepts else vault / DEFAULT_DICTIONARY


def load_document(path: Path, *, writes: bool = False) -> DictionaryFile:
    """The dictionary file; one that does not parse is a failure saying where (and, for a
    command that writes, that it wrote nothing)."""
    try:
        return DictionaryFile.load(path)
    except DictionaryParseError as exc:
        unchanged = " (nothing was changed)" if writes else ""
        raise CommandFailed(EXIT_FINDINGS, exc.told() + unchanged) from exc
    except DictionaryUnusable as exc:
        raise CommandFailed(EXIT_FINDINGS, f"{path}: {exc.reason}") from exc
    except OSError as exc:
        raise CommandFailed(EXIT_FINDINGS, cannot_read(path, exc)) from exc


def _reader(root: Path) -> Callable[[str], str | None]:
    def read(rel: str) -> str | None:
        return read_note(root, rel).text

    return read


def cmd_concepts_check(args: argparse.Namespace, open_index: OpenIndex) -> Result:
    # A large dictionary is hundreds of thousands of small objects, none in a cycle, made
    # while the matcher and the linter make more: each pass of the cyclic collector would
    # walk them all again (6 of 23 s at 90,000 concepts).
    with gc_paused():
        return _check(args, open_index)


def _check(args: argparse.Namespace, open_index: OpenIndex) -> Result:
    vault = Path(args.vault).expanduser()
    path = dictionary_path(args, vault)
    if not path.exists():  # a pipe or a folder there is said so by load_document
        raise CommandFailed(EXIT_FINDINGS, f"{path}: no concept dictionary there")
    doc = load_document(path)
    concepts = doc.concepts()
    linked = mentioned = None
    missing: list[LintIssue] = []
    if not args.no_usage:
        index = open_index(args, concepts=_as_read(path, concepts))
        linked, mentioned = concept_usage(index, concepts, _reader(index.root))
        missing = [
            LintIssue(c.id, "warning", "no-note", _no_note(c.note))
            for c in concepts
            if c.note.strip() and named_note(index, c.note) is None
        ]
    issues = dictionary_issues(doc, concepts, linked, mentioned) + missing
    errors = sum(1 for i in issues if i.severity == "error")
    data = {
        "dictionary": str(path),
        "concepts": len(concepts),
        "errors": errors,
        "warnings": len(issues) - errors,
        "issues": [
            {
                "concept": i.concept,
                "severity": i.severity,
                "code": i.code,
                "alias": i.alias,
                "message": i.message,
            }
            for i in issues
        ],
    }
    if linked is not None and mentioned is not None:
        data["usage"] = {
            c.id: {"linked": linked.get(c.id, 0), "mentioned": mentioned.get(c.id, 0)}
            for c in concepts
        }
    return data, human_check(data), EXIT_FINDINGS if errors else 0


def _no_note(note: str) -> str:
    return (
        f'"note" names "{note}", which is no note of the vault: its note is looked for by '
        "its id and aliases instead. Fix the path or remove the key."
    )


def dictionary_issues(
    doc: DictionaryFile,
    concepts: Sequence[Concept],
    linked: dict[str, int] | None = None,
    mentioned: dict[str, int] | None = None,
) -> list[LintIssue]:
    """What ``concepts check`` reports for ``doc`` (``concepts``: its ``concepts()``, made
    once by the caller; a second time took a second at 90,000 concepts): its structure,
    then each concept's lint (the unused-concept warnings only with the usage counts)."""
    issues: list[LintIssue] = doc.structure_issues()
    issues += lint_concepts(concepts, linked=linked, mentioned=mentioned)
    return issues


def issue_line(severity: str, concept: str | None, code: str, message: str) -> str:
    """One issue as ``concepts check`` prints it."""
    return f"  {severity:<7} {concept or '-'}  [{code}] {message}"


def human_check(data: dict[str, Any]) -> str:
    lines = [f"{data['dictionary']}: {data['concepts']} concepts"]
    for item in data["issues"]:
        lines.append(issue_line(item["severity"], item["concept"], item["code"], item["message"]))
    lines.append(f"{data['errors']} errors, {data['warnings']} warnings")
    return "\n".join(lines)


def cmd_concepts_suggest(args: argparse.Namespace, open_index: OpenIndex) -> Result:
    vault = Path(args.vault).expanduser()
    path = dictionary_path(args, vault)
    concepts = load_document(path).concepts() if path.exists() else ()
    index = open_index(args, concepts=_as_read(path, concepts) if path.exists() else None)
    found, read, total = vault_suggestions(
        index, concepts, _reader(index.root), limit=args.limit, min_notes=args.min_notes
    )
    data = {
        "notes_read": read,
        "notes": total,
        "suggestions": [
            {
                "phrase": s.phrase,
                "id": s.concept_id,
                "notes": s.notes,
                "mentions": s.mentions,
                "examples": list(s.examples),
            }
            for s in found
        ],
    }
    return data, human_suggest(data), 0


def human_suggest(data: dict[str, Any]) -> str:
    sampled = "" if data["notes_read"] == data["notes"] else f" (a sample of {data['notes_read']})"
    lines = [f"phrases no alias covers, in {data['notes']} notes{sampled}:"]
    for s in data["suggestions"]:
        lines.append(f"  {s['notes']:>5} notes {s['mentions']:>6}×  {s['phrase']}  → {s['id']}")
    if not data["suggestions"]:
        lines.append("  none")
    return "\n".join(lines)


def cmd_tag(args: argparse.Namespace, open_index: OpenIndex) -> Result:
    vault = Path(args.vault).expanduser()
    if args.entry and not args.undo:
        raise CommandFailed(EXIT_USAGE, "--entry goes with --undo")
    if args.undo:
        journal = Journal(vault, by=COMMAND_LINE)
        try:
            if args.entry:
                result = journal.undo(args.entry, args.wait)
            else:
                result = undo_last_run(journal, args.wait)
        except VaultBusy as exc:
            raise CommandFailed(EXIT_BUSY, str(exc)) from exc
        except (JournalError, WriteRefused) as exc:
            raise CommandFailed(EXIT_FINDINGS, str(exc)) from exc
        data = {
            "entry": result.entry_id,
            "restored": list(result.restored),
            "refused": [{"path": p, "reason": r} for p, r in result.refused],
            "untouched": list(result.untouched),
        }
        lines = [f"undid tagging run {result.entry_id}: {len(result.restored)} notes restored"]
        lines += [f"  refused {p}: {r}" for p, r in result.refused]
        return data, "\n".join(lines), EXIT_FINDINGS if result.refused else 0
    concepts = _usable_concepts(dictionary_path(args, vault), vault)
    known = {c.id for c in concepts}
    unknown = [c for c in args.concept or () if c not in known]
    if unknown:
        raise CommandFailed(EXIT_FINDINGS, f"no concept {', '.join(unknown)} in the dictionary")
    index = open_index(args, concepts=_as_read(dictionary_path(args, vault), concepts))
    rels = tag_candidates(index.notes, include_index=args.include_index)
    pages = concept_notes(index)
    plan = plan_tagging(
        index.root,
        rels,
        concepts,
        all_mentions=args.all_mentions,
        only=args.concept or None,
        pages=pages,
    )
    counts = plan.counts()
    data: dict[str, Any] = {
        "notes_scanned": plan.scanned,
        "notes_changed": len(plan.notes),
        "mentions": plan.total,
        "per_concept": counts,
        "notes": [
            {
                "path": n.rel,
                "mentions": [
                    {"concept": o.concept, "line": o.line, "column": o.column, "text": o.text}
                    for o in n.occurrences
                ],
            }
            for n in plan.notes
        ],
        "warnings": [{"path": p, "reason": r} for p, r in plan.warnings],
    }
    summary = [f"{plan.total} mentions in {len(plan.notes)} of {plan.scanned} notes"]
    summary += [f"  {cid:<30} {count}" for cid, count in counts.items()]
    summary += [f"  skipped {p}: {r}" for p, r in plan.warnings]
    if not args.apply:
        if args.json:
            return data, "", 0
        diffs = "".join(n.diff() for n in plan.notes)
        return data, diffs + "\n".join(summary), 0
    try:
        entry = apply_plan(index.root, plan, wait=args.wait)
    except VaultBusy as exc:
        raise CommandFailed(EXIT_BUSY, str(exc)) from exc
    except (JournalError, WriteRefused) as exc:
        raise CommandFailed(EXIT_FINDINGS, str(exc)) from exc
    data["entry"] = entry.id or None
    data["written"] = list(entry.written)
    data["skipped"] = [
        {"path": p, "reason": r} for p, r in entry.skipped if r != "nothing to change"
    ]
    lines = [*summary, f"wrote {len(entry.written)} notes (undo: librarian tag VAULT --undo)"]
    lines += [f"  skipped {s['path']}: {s['reason']}" for s in data["skipped"]]
    return data, "\n".join(lines), EXIT_FINDINGS if data["skipped"] else 0


def _as_read(path: Path, concepts: Sequence[Concept]) -> ConceptDictionary:
    """The dictionary the command read (``load_document``), for the index to use as it is:
    a 90,000-concept file read twice was a tenth of ``tag --dry-run``."""
    return ConceptDictionary(path, tuple(concepts), _by_id={c.id.lower(): c for c in concepts})


def _usable_concepts(path: Path, vault: Path) -> tuple[Concept, ...]:
    """The concepts a tagging run may use: of a dictionary that exists and that ``concepts
    check`` finds no errors in (an alias claimed by two concepts would link the wrong one)."""
    if not path.exists():
        raise CommandFailed(
            EXIT_FINDINGS,
            f"{path}: no concept dictionary there, so there is nothing to tag; write one "
            f"(a starter is in the concepts/ folder of Librarian's repository), or give "
            "--concepts PATH",
        )
    doc = load_document(path, writes=True)
    concepts = doc.concepts()
    errors = [i for i in doc.structure_issues() if i.severity == "error"]
    errors += lint_errors(concepts)
    if errors:
        # Every line of an error starts with "librarian:", as the command line's errors do.
        listed = "".join(
            f"\nlibrarian: {issue_line(i.severity, i.concept, i.code, i.message)}" for i in errors
        )
        raise CommandFailed(
            EXIT_FINDINGS,
            f"{path}: {len(errors)} error{'s' if len(errors) != 1 else ''} in the dictionary; "
            f"fix {'them' if len(errors) != 1 else 'it'} first (librarian concepts check "
            f"{vault}), nothing was changed:{listed}",
        )
    return concepts


def add_commands(
    sub: Any, common: Callable[[argparse.ArgumentParser], None]
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add ``concepts check``, ``concepts suggest`` and ``tag`` to the subparsers."""
    concepts = sub.add_parser(
        "concepts", help="the concept dictionary", description="the concept dictionary"
    )
    inner = concepts.add_subparsers(dest="concepts_command", required=True, metavar="ACTION")
    check = inner.add_parser(
        "check",
        help="lint the dictionary: conflicts, stop-words, short aliases, unused concepts",
        description="Lint the concept dictionary; exit code 1 when it has errors.",
    )
    common(check)
    check.add_argument(
        "--no-usage", action="store_true", help="skip counting links and mentions in the notes"
    )
    suggest = inner.add_parser(
        "suggest",
        help="candidate concepts: frequent phrases that no alias, id or note title covers",
        description="List phrases written in plain prose in several notes that no alias, "
        "concept id or note title covers, most widespread first. A vault of more than "
        "3 MB of notes is sampled evenly.",
    )
    common(suggest)
    suggest.add_argument(
        "--limit", type=positive, default=MAX_SUGGESTIONS, help="default: %(default)s"
    )
    suggest.add_argument(
        "--min-notes",
        type=positive,
        default=MIN_NOTES,
        help="written in at least this many notes (default: %(default)s)",
    )
    tag = sub.add_parser(
        "tag",
        help="link alias mentions to their concepts (dry run by default)",
        description="Turn alias mentions into [[concept|text]] links. Without --apply it "
        "prints the unified diff and the counts per concept and writes nothing.",
    )
    common(tag)
    mode = tag.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="show what would change (default)")
    mode.add_argument("--apply", action="store_true", help="write the links (journaled)")
    mode.add_argument("--undo", action="store_true", help="undo the last tagging run")
    tag.add_argument(
        "--entry", metavar="ID", help="with --undo: undo this journal entry (its folder name)"
    )
    tag.add_argument(
        "--wait",
        type=float,
        default=WAIT,
        metavar="SECONDS",
        help="wait this long for another Librarian writing the vault (default: %(default)s)",
    )
    tag.add_argument(
        "--all-mentions", action="store_true", help="link every mention, not the first"
    )
    tag.add_argument(
        "--concept", metavar="ID", action="append", help="only this concept (repeatable)"
    )
    tag.add_argument(
        "--include-index", action="store_true", help="tag the index note (MEMORY.md) too"
    )
    return check, suggest, tag


def write(text: str) -> None:
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
