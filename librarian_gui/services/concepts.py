"""The concept editor's background questions (usage counts, suggestions, link rewrites
after a rename) and the one door through which the dictionary file is read and saved."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

from ..core.concepts.dictionary import DictionaryUnusable, read_dictionary_bytes
from ..core.concepts.dictionary_file import DictionaryFile
from ..core.insight.cooccurrence import found_in
from ..core.tagging.run import concept_usage, plan_relink
from ..core.tagging.suggestions import vault_suggestions
from ..core.writing.journal import WINDOW, Journal, JournalEntry
from ..core.writing.safewrite import FileChanged, WriteRefused, create_file, digest_of
from ..resources import Starter, starter_dictionaries
from .jobs import JobControl, JobHandle
from .model import VaultModel

if TYPE_CHECKING:
    from ..core.concepts.dictionary import Concept


class ConceptService(QObject):
    """Answers the concept editor's questions on the model's slow job thread; a newer
    question of a kind cancels the one still running.

    Signals:
        usage_counted(object, object): per concept id, the notes linking it and the notes
            mentioning it without a link (two dicts).
        found_counted(object, object): just before usage_counted, from the same count:
            per concept id the notes it is found in, the index note left out
            (frozensets), and the notes mentioning it without a link: what isolation is
            measured by (DESIGN §4).
        suggestions_found(object, int, int): candidate concepts (list of Suggestion), the
            notes read, the notes there are.
        suggestions_failed(str): why no suggestions came.
        relink_planned(object, str): the TagPlan rewriting ``[[old]]`` links to
            ``[[new]]``, and its title.
    """

    usage_counted = Signal(object, object)
    found_counted = Signal(object, object)
    suggestions_found = Signal(object, int, int)
    suggestions_failed = Signal(str)
    relink_planned = Signal(object, str)

    def __init__(self, model: VaultModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._usage_job: JobHandle | None = None
        self._suggest_job: JobHandle | None = None

    def count_usage(self) -> None:
        """Read every note: how many link, and how many mention, each concept."""
        model = self.model
        if not model.ready:
            return
        root = model.root

        def usage(control: JobControl) -> object:
            from ..core.vault.files import read_note

            index = model.snapshot()
            concepts = index.concepts.concepts
            linked, mentioned = concept_usage(
                index, concepts, lambda rel: read_note(root, rel).text, control.cancelled
            )
            index = model.snapshot()
            found = found_in(index)
            return linked, mentioned, found

        if self._usage_job is not None:
            self._usage_job.cancel()
        self._usage_job = model.submit(usage, slow=True, name="concept-usage")
        self._usage_job.finished.connect(self._on_usage_job_finished)

    def find_suggestions(self, concepts: Sequence[Concept]) -> None:
        """Phrases of the notes that no concept in ``concepts`` covers yet."""
        model = self.model
        if not model.ready:
            self.suggestions_failed.emit("the vault is still being indexed")
            return
        root = model.root

        def suggest(control: JobControl) -> object:
            from ..core.vault.files import read_note

            index = model.index
            assert index is not None  # ready before; an index is never taken away
            return vault_suggestions(
                index, concepts, lambda rel: read_note(root, rel).text, cancelled=control.cancelled
            )

        if self._suggest_job is not None:
            self._suggest_job.cancel()
        self._suggest_job = model.submit(suggest, slow=True, name="suggest")
        self._suggest_job.finished.connect(self._on_suggest_job_finished)
        self._suggest_job.failed.connect(self._on_suggest_job_failed)

    def plan_relink(self, old: str, new: str) -> None:
        """The rewrite of the notes' links to ``old`` into links to ``new`` (not written)."""
        model = self.model
        root = model.root

        def relink(_control: JobControl) -> object:
            index = model.snapshot()
            rels = sorted(index.notes)
            return plan_relink(root, rels, old, new), f"Rewrite links [[{old}]] → [[{new}]]"

        handle = model.submit(relink, slow=True, name="relink")
        handle.finished.connect(self._on_relink_job_finished)

    def close(self) -> None:
        """Drop the answers still coming (the model's close stops its threads)."""
        for job in (self._usage_job, self._suggest_job):
            if job is not None:
                job.cancel()

    @Slot(object)
    def _on_usage_job_finished(self, result: object) -> None:
        if isinstance(result, tuple):
            linked, mentioned, found = result
            # The notes found in first: the editor's table, drawn on the usage count,
            # flags the isolated concepts by them.
            self.found_counted.emit(found, mentioned)
            self.usage_counted.emit(linked, mentioned)

    @Slot(object)
    def _on_suggest_job_finished(self, result: object) -> None:
        if isinstance(result, tuple):
            self.suggestions_found.emit(*result)
        else:
            self.suggestions_failed.emit(str(result))

    @Slot(object)
    def _on_suggest_job_failed(self, error: object) -> None:
        self.suggestions_failed.emit(str(error))

    @Slot(object)
    def _on_relink_job_finished(self, result: object) -> None:
        if isinstance(result, tuple):
            self.relink_planned.emit(*result)


class DictionaryNotSaved(Exception):
    """The dictionary was not written; the message says why."""


class DictionaryChanged(DictionaryNotSaved):
    """The file changed on disk (or appeared) since it was loaded: nothing was written."""


class DictionaryStore:
    """Reads and saves one concept dictionary file: inside the vault, a save goes through
    the vault's journal (Edit → Undo restores the file); elsewhere it is an atomic replace.
    Either refuses to write over a file that changed since it was loaded."""

    def __init__(self, vault_root: Path, path: Path) -> None:
        self.vault_root = Path(vault_root)
        self.path = Path(path)

    def load(self) -> DictionaryFile:
        """Raises ``DictionaryParseError`` (with line and column) or ``OSError``."""
        return DictionaryFile.load(self.path)

    def save(self, document: DictionaryFile) -> JournalEntry | None:
        """Write ``document``: the journal entry, or None outside the vault or for a new
        file. Raises ``DictionaryChanged`` or ``DictionaryNotSaved`` when nothing was
        written."""
        try:
            return document.save(vault=self.vault_root, journal=Journal(self.vault_root, by=WINDOW))
        except FileChanged as exc:
            raise DictionaryChanged(str(exc)) from exc
        except (WriteRefused, OSError) as exc:
            raise DictionaryNotSaved(str(exc)) from exc

    def starters(self) -> list[Starter]:
        """The starter dictionaries a vault without one can begin from."""
        return starter_dictionaries()

    def create_from(self, starter: Starter) -> None:
        """Copy ``starter`` to the dictionary's path, which must not exist: an existing
        file (one that appeared since it was loaded, too) is never replaced. Raises
        ``DictionaryChanged`` when the file exists, ``DictionaryNotSaved`` when it cannot
        be written."""
        try:
            data = starter.path.read_bytes()
        except OSError as exc:
            raise DictionaryNotSaved(f"{starter.path}: cannot be read ({exc.strerror})") from exc
        try:
            create_file(self.path, data)
        except FileExistsError as exc:
            raise DictionaryChanged(
                f"{self.path.name} exists already; it was left as it is"
            ) from exc
        except OSError as exc:
            raise DictionaryNotSaved(f"{self.path}: {exc.strerror or exc}") from exc

    def differs_on_disk(self, document: DictionaryFile | None) -> bool | None:
        """Whether the file now holds other bytes than ``document`` was loaded from (a file
        gone counts as other bytes, unless it was new; with no document, anything differs);
        None if it cannot be read just now (mid-replace: the next change event will tell)."""
        try:
            raw: bytes | None = read_dictionary_bytes(self.path)
        except FileNotFoundError:
            raw = None
        except DictionaryUnusable:  # a pipe, or too large: not what was loaded
            return True
        except OSError:
            return None
        if document is None:
            return True
        return (None if raw is None else digest_of(raw)) != document.loaded_digest
