"""The right sidebar's Related tab with its Link preview and the related notes' progress in the
status bar, wired to the open vault's related-notes service."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QTabWidget, QWidget

from ..related.link_dialog import RelatedLinkDialog
from ..related.pane import RelatedPane

if TYPE_CHECKING:
    from ...services.related import RelatedService
    from ...services.session import SessionService


class RelatedTab(QObject):
    """Owns the Related pane (a tab of ``tabs``), the Link dialog and a status-bar label;
    connects them to a RelatedService and the SessionService that writes and opens notes.

    Signals:
        message(str): something to tell the user in the status bar.
    """

    message = Signal(str)

    def __init__(self, tabs: QTabWidget, window: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tabs = tabs
        self.pane = RelatedPane()
        tabs.insertTab(1, self.pane, "Related")
        self.dialog = RelatedLinkDialog(window)
        self.status = QLabel()
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.status.hide()
        self.related: RelatedService | None = None
        self.session: SessionService | None = None
        self._note: str | None = None

    def set_sessions(self, related: RelatedService | None, session: SessionService | None) -> None:
        """Follow another vault's sessions (None: no vault open). The connections to the
        last ones go with them (deleteLater), as the window's other parts' do."""
        self.related, self.session = related, session
        self._note = None
        self.status.hide()
        self.pane.show_waiting("No note open.")
        if related is None or session is None:
            return
        related.note_related.connect(self._on_related_note_related)
        related.state_changed.connect(self._on_related_state_changed)
        related.progressed.connect(self._on_related_progressed)
        related.link_planned.connect(self.dialog.show_link)
        related.failed.connect(self.message)
        related.threshold_changed.connect(self.pane.set_threshold)
        self.pane.set_threshold(related.threshold)
        self.pane.threshold_changed.connect(related.set_threshold)
        self.pane.link_requested.connect(related.plan_link)
        self.pane.source_activated.connect(session.open_at_line)
        self.dialog.confirmed.connect(session.link_related)

    def show_place(self, kind: str, node: str) -> None:
        """The window opened a place: a note's related notes are asked for."""
        if self.related is None:
            return
        note = node if kind == "note" and node.lower().endswith(".md") else None
        if note == self._note:
            return
        self._note = note
        if note is None:
            self.pane.show_waiting("Related notes are shown for notes.")
        elif not self.related.compares(note):
            self.pane.show_not_compared(note)
        elif self.related.current is None:
            self.pane.show_waiting("Finding related notes… (the first time takes a moment)")
        self.related.show_note(note)

    def show_tab(self) -> None:
        self.tabs.setCurrentWidget(self.pane)

    @Slot(str, object)
    def _on_related_note_related(self, note: str, found: Any) -> None:
        if note == self._note and self.related is not None and self.related.compares(note):
            self.pane.show_related(note, found, self.related.threshold)

    @Slot(str)
    def _on_related_state_changed(self, state: str) -> None:
        self.status.setText(state)
        self.status.setVisible(bool(state))

    @Slot(int, int)
    def _on_related_progressed(self, done: int, total: int) -> None:
        self.status.setText(f"Finding related notes… {done:,} / {total:,}")
        self.status.show()
