"""A planned write shown as its diff before anything is written: the dialog the related-note
Link and the index note's Fix share."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from .tagging.diff import DiffView


class PlanDialog(QDialog):
    """Shows one plan (anything with a ``diff``) under a summary; the OK button, named
    ``ok_text``, confirms it, Cancel drops it.

    Signals:
        confirmed(object): the user accepted the plan shown (write it).
    """

    confirmed = Signal(object)

    def __init__(
        self, title: str, width: int, height: int, ok_text: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(width, height)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.diff = DiffView()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.diff)
        layout.addWidget(self.buttons)
        self.plan: Any = None

    def show_plan(self, plan: Any, summary_html: str, *, can_confirm: bool = True) -> None:
        self.plan = plan
        self.summary.setText(summary_html)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(can_confirm)
        self.diff.show_diff(plan.diff)
        self.open()

    @Slot()
    def _on_buttons_accepted(self) -> None:
        plan, self.plan = self.plan, None
        self.accept()
        if plan is not None:
            self.confirmed.emit(plan)
