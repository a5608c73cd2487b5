"""The right sidebar's Graph tab: the open note's local graph, made once the graph's modules
are in (never importing them on the way to the first window), built only while shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget

from .. import theme
from .graph_tab import GraphTab
from .lazy_tab import LazyTab

if TYPE_CHECKING:
    from ...core.related.vault import RelatedIndex
    from ...services.local_graph import LocalGraphService
    from ...services.settings import Settings
    from ..graph.local_view import LocalGraphView


class LocalGraphTab(LazyTab):
    """A placeholder in the sidebar until the graph's modules are in, then the local graph
    view, wired to the vault's local graph session. The related notes, threshold and toggle
    given before the view exists are handed to it when it is made.

    Signals:
        node_activated(str): a node of the local graph was clicked (its id).
    """

    node_activated = Signal(str)

    def __init__(
        self,
        sidebar: QTabWidget,
        graph_tab: GraphTab,
        settings: Settings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(sidebar, graph_tab, "Graph", "Loading the graph…", parent)
        self.settings = settings
        self.view: LocalGraphView | None = None
        self._local: LocalGraphService | None = None
        self._related: RelatedIndex | None = None
        self._stopped = False  # the window closed: its canvas's items are gone

    def set_session(self, session: LocalGraphService | None) -> None:
        self._session = self._local = session
        if session is None:
            return
        session.view_ready.connect(self._on_session_view_ready)
        session.set_depth(int(self.settings.graph_option("local_depth", 1)))
        if self.view is not None:
            self.view.depth_changed.connect(session.set_depth)
        session.set_active(self.is_shown())

    def set_related(self, related: RelatedIndex | None) -> None:
        self._related = related
        if self.view is not None:
            self.view.set_related(related)

    def set_related_threshold(self, threshold: float) -> None:
        if self.view is not None:
            self.view.set_related_threshold(threshold)

    def set_related_shown(self, shown: bool) -> None:
        if self.view is not None:
            self.view.set_related_shown(shown)

    def stop(self) -> None:
        self._stopped = True
        self._poll.stop()
        if self.view is not None:
            self.view.canvas.close()

    def show_tab(self) -> None:
        self._bring_to_front()

    def _make_view(self) -> None:
        from ..graph.local_view import LocalGraphView  # loaded by the import thread

        depth = int(self.settings.graph_option("local_depth", 1))
        view = self.view = LocalGraphView(dark=theme.resolve(self.settings.theme()), depth=depth)
        view.node_activated.connect(self.node_activated)
        view.depth_changed.connect(self._on_view_depth_changed)
        view.set_related_threshold(self.settings.related_threshold())
        view.set_related_shown(self.settings.related_edges_shown())
        view.set_related(self._related)
        if self._local is not None:
            view.depth_changed.connect(self._local.set_depth)
        self._swap_in(view)

    @Slot(int)
    def _on_view_depth_changed(self, depth: int) -> None:
        self.settings.set_graph_option("local_depth", depth)

    @Slot(object)
    def _on_session_view_ready(self, view: Any) -> None:
        if self.view is not None and not self._stopped:  # one on its way at the close
            self.view.show_view(view)
