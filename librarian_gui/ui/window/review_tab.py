"""The centre's Review tab, wired to the open vault's review service and to the session
that opens notes (both built by ``services.open_vault``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget

from ..review.pane import ReviewPane

if TYPE_CHECKING:
    from ...services.open_vault import OpenVault
    from ...services.review import ReviewService


class ReviewTab(QObject):
    """Owns the Review pane (a tab of ``centre``) shown for the open vault's ReviewService.
    A note double-clicked opens in the preview, the centre's first tab.

    Signals:
        message(str): something to tell the user in the status bar.
    """

    message = Signal(str)

    def __init__(self, centre: QTabWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.centre = centre
        self.pane = ReviewPane()
        centre.addTab(self.pane, "Review")
        self.service: ReviewService | None = None
        self.pane.note_opened.connect(self._on_pane_note_opened)

    def open_vault(self, vault: OpenVault) -> None:
        self.service = vault.review
        self.service.desk_found.connect(self.pane.show_desk)
        self.service.failed.connect(self.message)
        self.pane.mark_requested.connect(self.service.mark)
        self.pane.mark_all_requested.connect(self.service.mark_all)
        self.pane.note_opened.connect(vault.session.open_note)

    def close_vault(self) -> None:
        service = self.service
        self.service = None
        if service is not None:
            for signal, slot in (
                (self.pane.mark_requested, service.mark),
                (self.pane.mark_all_requested, service.mark_all),
            ):
                signal.disconnect(slot)

    def show_tab(self) -> None:
        self.centre.setCurrentWidget(self.pane)

    @Slot()
    def _on_pane_note_opened(self) -> None:
        self.centre.setCurrentIndex(0)  # the preview (the window adds it first)
