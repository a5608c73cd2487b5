"""What the window shows of the related notes: the Related tab, the Thin spots pane,
the graphs' RELATED_TO layers, and the one threshold they share; wired to the open vault's
related-notes and thin-spots services (built by ``services.open_vault``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget, QWidget

from ..thin_spots.pane import ThinSpotsPane
from .related_tab import RelatedTab

if TYPE_CHECKING:
    from ...core.related.vault import RelatedIndex
    from ...services.open_vault import OpenVault
    from ...services.related import RelatedService
    from ...services.settings import Settings
    from ...services.thin_spots import ThinSpotsService
    from .graph_tab import GraphTab
    from .local_graph_tab import LocalGraphTab


class RelatedViews(QObject):
    """Makes the Thin spots pane (a tab of ``left``: vault-wide worklists live there, the
    right sidebar is about the open note) and the Related tab (of ``right``), and shows the
    open vault's related notes and thin spots; hands every new RelatedIndex to the graphs,
    and keeps one threshold (in the settings) for all of them.

    Signals:
        message(str): something to tell the user in the status bar.
        concept_opened(str): the user chose a concept in the Thin spots pane.
    """

    message = Signal(str)
    concept_opened = Signal(str)

    def __init__(
        self,
        window: QWidget,
        left: QTabWidget,
        right: QTabWidget,
        graph_tab: GraphTab,
        local_graph: LocalGraphTab,
        settings: Settings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.graph_tab = graph_tab
        self.local_graph = local_graph
        self.thin_spots = ThinSpotsPane()
        left.addTab(self.thin_spots, "Thin spots")
        self.related_tab = RelatedTab(right, window, parent=self)
        self.vault: OpenVault | None = None
        self.related_tab.message.connect(self.message)
        self.thin_spots.concept_opened.connect(self.concept_opened)
        graph_tab.related_threshold_changed.connect(self._on_graph_tab_related_threshold_changed)
        graph_tab.related_shown_changed.connect(local_graph.set_related_shown)

    @property
    def related_service(self) -> RelatedService | None:
        return self.vault.related if self.vault is not None else None

    @property
    def thin_spots_service(self) -> ThinSpotsService | None:
        return self.vault.thin_spots if self.vault is not None else None

    def open_vault(self, vault: OpenVault) -> None:
        """Show ``vault``'s related notes and thin spots (its services are built, wired and
        closed by the vault: ``services.open_vault``)."""
        self.vault = vault
        self.related_tab.set_sessions(vault.related, vault.session)
        # Not when the vault closes: on the window's close the graph canvases are gone.
        self.show_related(None)  # the previous vault's related notes
        vault.thin_spots.thin_spots_found.connect(self.thin_spots.show_spots)
        vault.related.related_ready.connect(self.show_related)
        vault.related.threshold_changed.connect(self.set_related_threshold)
        self.thin_spots.note_opened.connect(vault.session.open_note)  # gone with the session

    def close_vault(self) -> None:
        """The vault is closing (it stops its services): nothing more is shown of it."""
        self.vault = None
        self.related_tab.set_sessions(None, None)

    def show_place(self, kind: str, node: str) -> None:
        self.related_tab.show_place(kind, node)

    @Slot(object)
    def show_related(self, related: RelatedIndex | None) -> None:
        """The open vault's related notes (None: none yet) to every view drawing them: the
        graph tab's and the docked local graph's RELATED_TO layer (the thin spots have them
        from the related-notes service itself)."""
        self.graph_tab.set_related(related)
        self.local_graph.set_related(related)

    @Slot(float)
    def set_related_threshold(self, threshold: float) -> None:
        """The threshold moved outside the graph (the Related tab): kept in the settings,
        and every view follows."""
        self.settings.set_related_threshold(threshold)
        self.graph_tab.set_related_threshold(threshold)
        self._on_graph_tab_related_threshold_changed(threshold)

    @Slot(float)
    def _on_graph_tab_related_threshold_changed(self, threshold: float) -> None:
        """The graph view's slider moved (it saved the value): the other views follow."""
        self.local_graph.set_related_threshold(threshold)
        if self.vault is not None:  # the Related tab and the thin spots (when it moved there)
            self.vault.set_related_threshold(threshold)
