"""The preview of a related-note Link: the diff of the open note, written only on "Link"."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from ..plan_dialog import PlanDialog

if TYPE_CHECKING:
    from ...core.related.linking import RelatedLinkPlan


class RelatedLinkDialog(PlanDialog):
    """Shows one RelatedLinkPlan as a diff; "Link" confirms it (``confirmed``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Link a related note", 640, 360, "Link", parent)

    def show_link(self, plan: RelatedLinkPlan) -> None:
        self.show_plan(
            plan,
            f"Add <b>[[{html.escape(plan.name)}]]</b> under “Related” at the end of "
            f"<b>{html.escape(plan.source)}</b>. Edit → Undo takes it back.",
        )
