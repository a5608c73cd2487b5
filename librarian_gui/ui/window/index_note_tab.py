"""The centre's Index note tab with its Fix preview, wired to the open vault's index-note
service and to the session that opens notes and writes (both built by
``services.open_vault``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QTabWidget, QWidget

from ..index_note.pane import IndexNoteFixDialog, IndexNotePane
from ..index_note.split_dialog import SplitDialog

if TYPE_CHECKING:
    from ...core.insight.index_note import IndexNoteHealth
    from ...core.library.split import SplitPlan
    from ...services.index_note import IndexNoteService
    from ...services.open_vault import OpenVault
    from ...services.settings import Settings


class IndexNoteTab(QObject):
    """Owns the Index note pane (a tab of ``centre``, after the Timeline: the left sidebar's
    seven tabs would not fit its 300 pixels) and the Fix dialog, shown for the open vault's
    IndexNoteService. A row clicked opens the note in the preview, the centre's first
    tab, as the Timeline's rows do.

    Signals:
        message(str): something to tell the user in the status bar.
    """

    message = Signal(str)

    def __init__(
        self,
        centre: QTabWidget,
        window: QWidget,
        settings: Settings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.centre = centre
        self.pane = IndexNotePane()
        centre.addTab(self.pane, "Index note")
        self.dialog = IndexNoteFixDialog(window)
        self.split_dialog = SplitDialog(window)
        self._stale = ""  # a dump whose split was refused: its fresh plan says why
        self.service: IndexNoteService | None = None
        self.pane.scope_changed.connect(self._on_pane_scope_changed)
        self.pane.note_opened.connect(self._on_pane_place_opened)
        self.pane.line_opened.connect(self._on_pane_place_opened)

    def open_vault(self, vault: OpenVault) -> None:
        session = vault.session
        self.service = vault.index_note
        self.pane.show_scope(self.service.index_note, self.service.exclude)
        self.service.health_found.connect(self._on_service_health_found)
        self.service.fix_planned.connect(self.dialog.show_fix)
        self.service.failed.connect(self.message)
        # The pane's and the dialog's connections to the session go with it (deleteLater).
        self.pane.fix_requested.connect(self.service.plan_fix)
        self.pane.note_opened.connect(session.open_note)
        self.pane.line_opened.connect(session.open_at_line)
        self.dialog.confirmed.connect(session.fix_index_note)
        self.pane.split_requested.connect(self.service.plan_split)
        self.service.split_planned.connect(self._on_service_split_planned)
        self.split_dialog.options_changed.connect(self.service.plan_split)
        self.split_dialog.confirmed.connect(session.split_dump)
        session.split_stale.connect(self._on_session_split_stale)

    @Slot(object)
    def _on_service_split_planned(self, plan: SplitPlan) -> None:
        note = ""
        if self._stale == plan.dump:
            note = f"{plan.dump} changed since the plan you confirmed: this is a fresh plan."
        self._stale = ""
        self.split_dialog.show_split(plan, note)

    @Slot(str)
    def _on_session_split_stale(self, dump: str) -> None:
        if self.service is not None:
            self._stale = dump
            self.service.plan_split(dump)

    def show_tab(self) -> None:
        self.centre.setCurrentWidget(self.pane)

    @Slot()
    def _on_pane_place_opened(self) -> None:
        self.centre.setCurrentIndex(0)  # the preview (the window adds it first)

    @Slot(str, object)
    @Slot(object)
    def _on_service_health_found(self, health: IndexNoteHealth) -> None:
        if not self.pane.index_edit.text().strip():  # the note found for the vault: shown
            self.pane.index_edit.setText(health.index)
        self.pane.show_health(health)

    def _on_pane_scope_changed(self, note: str, patterns: tuple[str, ...]) -> None:
        service = self.service
        if service is None or (note, patterns) == (service.index_note, service.exclude):
            return
        self.settings.set_index_note(service.model.root, note)
        self.settings.set_index_excludes(service.model.root, patterns)
        service.set_scope(note, patterns)

    def close_vault(self) -> None:
        """The vault is closing (it closes its services)."""
        self.service = None
