"""The composition root of an open vault in the window: every per-vault service, built,
wired to each other and closed here, and nowhere else (issue 29, item 2).

The ui is handed an ``OpenVault`` and connects its views to the services it holds; it
constructs no service and carries no data from one service to another (a test reads the
ui's sources to keep it so: ``tests/unit/test_composition_root.py``). What one service
needs of another — the related notes for the thin spots, the first index for the health
of the index note and the thin spots — is connected here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Slot

from .concepts import ConceptService
from .graph import GraphService
from .index_note import IndexNoteService
from .local_graph import LocalGraphService
from .model import VaultModel
from .related import RelatedService
from .review import ReviewService
from .session import SessionService
from .tagging import TaggingService
from .thin_spots import ThinSpotsService
from .timeline import TimelineService
from .vault_lists import VaultLists


@dataclass(frozen=True, slots=True)
class VaultChoices:
    """What the user chose for this vault (the window's settings hold them)."""

    excluded: tuple[str, ...] = ()
    dictionary: Path | None = None  # None: the vault's own concepts.json
    use_cache: bool = True
    dark: bool = False
    related_threshold: float = 0.15
    index_note: str = ""  # "": the vault's own, found once indexed
    index_excludes: tuple[str, ...] = ()


class OpenVault(QObject):
    """One open vault's services: ``model`` (the Qt bridge over the live runtime),
    ``session`` (the open place and its panes' answers), ``graph``, ``local_graph``,
    ``lists`` (the side lists), ``timeline``, ``related``, ``thin_spots``, ``index_note``,
    ``concepts`` (the dictionary editor's questions), ``tagging``. ``start()`` starts
    indexing; ``close()`` stops every thread, in an order where nothing waits for a
    service already gone."""

    def __init__(self, root: Path, choices: VaultChoices, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = root
        self.choices = choices
        self.model = VaultModel(
            root,
            excluded=choices.excluded,
            use_cache=choices.use_cache,
            dictionary=choices.dictionary,
            parent=self,
        )
        model = self.model
        self.session = SessionService(model, dark=choices.dark, parent=self)
        self.graph = GraphService(model, parent=self)
        self.local_graph = LocalGraphService(model, parent=self)
        self.lists = VaultLists(model, parent=self)
        self.timeline = TimelineService(model, parent=self)
        self.thin_spots = ThinSpotsService(model, choices.related_threshold, parent=self)
        self.related = RelatedService(
            model,
            self.session.store,
            threshold=choices.related_threshold,
            use_cache=choices.use_cache,
            parent=self,
        )
        self.index_note = IndexNoteService(
            model, choices.index_note, choices.index_excludes, parent=self
        )
        self.review = ReviewService(model, parent=self)
        self.concepts = ConceptService(model, self)
        self.tagging = TaggingService(root, self, model=model)
        self._closed = False
        # Service to service: the thin spots count notes without a related note.
        self.related.related_ready.connect(self.thin_spots.set_related)
        self.related.threshold_changed.connect(self.thin_spots.set_threshold)
        model.index_ready.connect(self._on_model_index_ready)

    def start(self) -> None:
        """Index the vault (the related notes, the thin spots and the index note's health
        follow once it is indexed)."""
        self.model.start()

    @Slot(object)
    def _on_model_index_ready(self, _index: object) -> None:
        # Each on an event-loop turn of its own: no long stall of the GUI thread.
        QTimer.singleShot(0, self.lists.refresh)
        QTimer.singleShot(0, self.thin_spots.refresh)
        QTimer.singleShot(0, self.index_note.refresh)
        QTimer.singleShot(0, self.review.refresh_watched)

    def set_related_threshold(self, threshold: float) -> None:
        """The one threshold the related notes and the thin spots share moved."""
        self.thin_spots.set_threshold(threshold)
        self.related.set_threshold(threshold)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Stop every service's threads and let go of them (deleted with this object)."""
        if self._closed:
            return
        self._closed = True
        self.model.stop_pausing()  # before the threads below are waited for
        self.graph.stop()
        self.local_graph.stop()
        self.timeline.stop()
        self.related.stop()  # waits for the pass's current chunk
        self.thin_spots.close()
        self.index_note.close()
        self.review.close()
        self.session.shutdown()
        self.concepts.close()
        self.tagging.close()  # cancels a preview, waits for a write in progress
        self.lists.close()
        self.model.close()
        self.deleteLater()
