"""The centre's Review tab, wired to the open vault's review service and to the session
that opens notes and writes (both built by ``services.open_vault``): its Changes page (the
review desk) and its Contradictions page (candidates, and the "supersedes" mark)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget

from ..review.contradictions import ContradictionsPane, SupersedeDialog
from ..review.pane import ReviewPane

if TYPE_CHECKING:
    from ...services.open_vault import OpenVault
    from ...services.review import ReviewService


class ReviewTab(QObject):
    """Owns the Review pages (a tab of ``centre``) shown for the open vault's
    ReviewService. A note double-clicked, or a side's title clicked, opens in the preview,
    the centre's first tab. The desk and the contradiction candidates are each gathered
    when their page is first shown (they read every note), then again after changes.

    Signals:
        message(str): something to tell the user in the status bar.
    """

    message = Signal(str)

    def __init__(self, centre: QTabWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.centre = centre
        self.pane = ReviewPane()
        self.contradictions = ContradictionsPane()
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.pane, "Changes")
        self.pages.addTab(self.contradictions, "Contradictions")
        centre.addTab(self.pages, "Review")
        self.dialog = SupersedeDialog(centre)
        self.service: ReviewService | None = None
        self.pane.note_opened.connect(self._on_place_opened)
        self.contradictions.line_opened.connect(self._on_place_opened)
        self.pages.currentChanged.connect(self._on_pages_current_changed)
        centre.currentChanged.connect(self._on_pages_current_changed)

    def open_vault(self, vault: OpenVault) -> None:
        self.service = service = vault.review
        service.desk_found.connect(self.pane.show_desk)
        service.contradictions_found.connect(self.contradictions.show_candidates)
        service.supersede_planned.connect(self.dialog.show_mark)
        service.failed.connect(self.message)
        self.pane.mark_requested.connect(service.mark)
        self.pane.mark_all_requested.connect(service.mark_all)
        self.contradictions.supersede_requested.connect(service.plan_supersede)
        # The pages' and the dialog's connections to the session go with it (deleteLater).
        self.pane.note_opened.connect(vault.session.open_note)
        self.contradictions.line_opened.connect(vault.session.open_at_line)
        self.dialog.confirmed.connect(vault.session.supersede)
        self._gather_shown()

    def close_vault(self) -> None:
        service = self.service
        self.service = None
        if service is not None:
            for signal, slot in (
                (self.pane.mark_requested, service.mark),
                (self.pane.mark_all_requested, service.mark_all),
                (self.contradictions.supersede_requested, service.plan_supersede),
            ):
                signal.disconnect(slot)

    def show_tab(self, page: str = "changes") -> None:
        self.centre.setCurrentWidget(self.pages)
        self.pages.setCurrentWidget(self.contradictions if page == "contradictions" else self.pane)

    @Slot()
    def _on_place_opened(self) -> None:
        self.centre.setCurrentIndex(0)  # the preview (the window adds it first)

    @Slot(int)
    def _on_pages_current_changed(self, _index: int) -> None:
        self._gather_shown()

    def _gather_shown(self) -> None:
        """The page shown now gathers what it shows, the first time."""
        service = self.service
        if service is None or self.centre.currentWidget() is not self.pages:
            return
        page = self.pages.currentWidget()
        if page is self.pane and not service.desk_watched:
            service.refresh()
        elif page is self.contradictions and service.contradictions is None:
            service.find_contradictions()
