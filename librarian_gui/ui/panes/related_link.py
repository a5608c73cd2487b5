"""The preview of a related-note Link: the diff of the open note, written only on "Link"."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from ..tagging.diff import DiffView

if TYPE_CHECKING:
    from ...core.related.linking import RelatedLinkPlan


class RelatedLinkDialog(QDialog):
    """Shows one RelatedLinkPlan as a diff; "Link" confirms it, "Cancel" drops it.

    Signals:
        link_confirmed(object): the user accepted the plan shown (write it).
    """

    link_confirmed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Link a related note")
        self.resize(640, 360)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.diff = DiffView()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Link")
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.diff)
        layout.addWidget(self.buttons)
        self.plan: RelatedLinkPlan | None = None

    def show_plan(self, plan: RelatedLinkPlan) -> None:
        self.plan = plan
        self.summary.setText(
            f"Add <b>[[{html.escape(plan.name)}]]</b> under “Related” at the end of "
            f"<b>{html.escape(plan.source)}</b>. Edit → Undo takes it back."
        )
        self.diff.show_diff(plan.diff)
        self.open()

    @Slot()
    def _on_buttons_accepted(self) -> None:
        plan, self.plan = self.plan, None
        self.accept()
        if plan is not None:
            self.link_confirmed.emit(plan)
