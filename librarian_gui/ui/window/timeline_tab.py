"""The centre's Timeline tab: a placeholder until the graph's modules (pyqtgraph) are in,
then the timeline view, wired to the vault's timeline session, built only while shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget

from .. import theme
from .graph_tab import GraphTab
from .lazy_tab import LazyTab

if TYPE_CHECKING:
    from ...services.settings import Settings
    from ...services.timeline import TimelineService
    from ..timeline.view import TimelineView

TITLE = "Timeline"


class TimelineTab(LazyTab):
    """The tab, its view made on its first showing (the graph tab loads pyqtgraph), and the
    view's query handed to the open vault's timeline session.

    Signals:
        note_activated(str, int): a note listed under the plot was clicked (path, line).
    """

    note_activated = Signal(str, int)

    def __init__(
        self,
        centre: QTabWidget,
        graph_tab: GraphTab,
        settings: Settings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(centre, graph_tab, TITLE, "Loading the timeline…", parent)
        self.settings = settings
        self.view: TimelineView | None = None
        self._timeline: TimelineService | None = None
        self._wanted: tuple[str, ...] | None = None  # concepts to tick once the view is made

    def set_session(self, session: TimelineService | None) -> None:
        self._session = self._timeline = session
        if session is None:
            return
        session.concepts_listed.connect(self._on_session_concepts_listed)
        session.timeline_ready.connect(self._on_session_timeline_ready)
        session.timeline_failed.connect(self._on_session_timeline_failed)
        if self.view is not None:
            self.view.set_concepts(())  # the new vault's come from its session
        session.set_active(self.is_shown())

    def stop(self) -> None:
        self._poll.stop()

    def show_tab(self, concepts: tuple[str, ...] | None = None) -> None:
        """The tab in front (its placeholder while pyqtgraph loads), with ``concepts``
        ticked if given."""
        if concepts is not None:
            self._wanted = concepts
        self._bring_to_front()
        if self.view is not None:
            self._apply_wanted(self.view)

    def _apply_wanted(self, view: TimelineView) -> None:
        if self._wanted is not None and view.concept_list.count():
            view.choose(self._wanted)
            self._wanted = None

    def _make_view(self) -> None:
        from ..timeline.view import TimelineView  # pyqtgraph: loaded by the import thread

        view = self.view = TimelineView(dark=theme.resolve(self.settings.theme()))
        view.note_activated.connect(self.note_activated)
        view.query_changed.connect(self._on_view_query_changed)
        self._swap_in(view)
        if self._timeline is not None:
            view.set_concepts(self._timeline.known)
            self._apply_wanted(view)

    @Slot(object, str, bool)
    def _on_view_query_changed(self, concepts: tuple[str, ...], by: str, file_time: bool) -> None:
        if self._timeline is not None:
            self._timeline.set_query(concepts, by, file_time)  # type: ignore[arg-type]

    @Slot(object)
    def _on_session_concepts_listed(self, ids: tuple[str, ...]) -> None:
        if self.view is not None:
            self.view.set_concepts(ids)
            self._apply_wanted(self.view)

    @Slot(object)
    def _on_session_timeline_ready(self, timeline: Any) -> None:
        if self.view is not None:
            self.view.show_timeline(timeline)

    @Slot(str)
    def _on_session_timeline_failed(self, message: str) -> None:
        if self.view is not None:
            self.view.show_status(message)
