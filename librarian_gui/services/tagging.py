"""Tagging runs off the GUI thread: previews, applying a plan through the vault's journal,
and undoing the last run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QObject

from ..core.concepts.dictionary import Concept
from ..core.index.queries import concept_notes
from ..core.tagging.run import TagPlan, apply_plan, plan_tagging, undo_last_run
from ..core.writing.journal import WINDOW, Journal, JournalEntry, JournalError, UndoResult
from .jobs import JobControl, JobHandle, JobRunner
from .model import VaultModel

__all__ = ["JournalEntry", "TaggingService", "UndoResult", "failure_text"]

ACTIONS = {"preview": "Preview", "apply": "Apply", "undo": "Undo"}


class TaggingService(QObject):
    """Reads the notes for a preview, writes an applied plan and undoes the last run, on a
    thread of its own, one job at a time; a newer preview cancels the one running.

    Each request returns the ``JobHandle`` its answer comes on: a TagPlan for a preview
    (with ``progressed`` while it reads), a JournalEntry for Apply, an UndoResult for Undo;
    ``failed`` brings the exception (``failure_text`` words it). It has no signals itself.
    """

    def __init__(
        self,
        vault_root: Path,
        parent: QObject | None = None,
        *,
        model: VaultModel | None = None,
    ) -> None:
        """``model``: the vault's index, asked on the job thread for each concept's note
        (``queries.concept_notes``), so a note linking a concept's note has it already."""
        super().__init__(parent)
        self.root = Path(vault_root)
        self._model = model
        self._runner = JobRunner("librarian-tag", self)
        self._preview: JobHandle | None = None

    def preview(
        self,
        rels: Sequence[str],
        concepts: Sequence[Concept],
        *,
        all_mentions: bool,
        only: Sequence[str] | None,
    ) -> JobHandle:
        """What a run would link in the notes ``rels`` (of the concepts ``only``, or of
        all). Nothing is written."""
        self.cancel_preview()
        root, rels, concepts = self.root, tuple(rels), tuple(concepts)
        wanted = None if only is None else tuple(only)
        model = self._model

        def job(control: JobControl) -> TagPlan:
            return plan_tagging(
                root,
                rels,
                concepts,
                all_mentions=all_mentions,
                only=wanted,
                progress=control.progress,
                pages=_concept_notes(model),
            )

        self._preview = self._runner.submit(job, name="preview")
        return self._preview

    def cancel_preview(self) -> None:
        """Drop the preview still running, if any: its answer will not come."""
        if self._preview is not None:
            self._preview.cancel()
            self._preview = None

    def apply(self, plan: TagPlan, accepted: Mapping[str, frozenset[int]]) -> JobHandle:
        """Write the ``accepted`` occurrences of ``plan``, journaled (never cancelled: a
        write in progress is finished)."""
        root = self.root

        def job(control: JobControl) -> JournalEntry:
            return apply_plan(root, plan, accepted, Journal(root, by=WINDOW), control.progress)

        return self._runner.submit(job, name="apply")

    def undo_last_run(self) -> JobHandle:
        """Give the notes of the newest tagging run not undone yet their bytes back."""
        root = self.root
        return self._runner.submit(
            lambda _control: undo_last_run(Journal(root, by=WINDOW)), name="undo"
        )

    def close(self) -> None:
        """Cancel a preview, wait for a write in progress, and stop the thread."""
        self.cancel_preview()
        self._runner.close()


def _concept_notes(model: VaultModel | None) -> Mapping[str, str] | None:
    if model is None or model.index is None:
        return None
    index = model.snapshot()
    return concept_notes(index)


def failure_text(kind: str, error: object) -> str:
    """What the view says when a job of ``kind`` ("preview", "apply", "undo") failed."""
    if isinstance(error, JournalError):
        return f"Nothing undone: {error}."
    return f"{ACTIONS[kind]} failed: {error}"
