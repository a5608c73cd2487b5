"""The docked local graph: the open note's neighbourhood (depth 1–2) around it, its
neighbours named, and the RELATED_TO edges between its notes, in the right sidebar."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QRectF, Signal
from PySide6.QtWidgets import QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from ..elided import ElidedLabel
from .canvas import GraphCanvas
from .related import RelatedLayer

if TYPE_CHECKING:
    from ...core.graph.local import LocalView
    from ...core.related.vault import RelatedIndex

FRAME_MARGIN = 1.25  # the frame reaches this far beyond the furthest node from the centre


class LocalGraphView(QWidget):
    """A depth box, a canvas and a line of counts. A click on a node opens it. The related
    pairs between its notes are drawn as the graph tab draws them: the window passes on
    the related notes (``set_related``) and the shared threshold and toggle.

    Signals:
        node_activated(str): a node was clicked (its id).
        depth_changed(int): the user chose another depth.
    """

    node_activated = Signal(str)
    depth_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False, depth: int = 1):
        super().__init__(parent)
        self.canvas = GraphCanvas(dark=dark)
        self.depth_box = QSpinBox()
        self.depth_box.setRange(1, 2)
        self.depth_box.setPrefix("depth ")
        self.depth_box.setValue(depth)
        self.depth_box.setToolTip("Links followed from the open note, both ways")
        self.status = ElidedLabel(sentence=True)  # a narrow sidebar: "…" and a tooltip
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 4, 4, 0)
        bar.addWidget(self.depth_box)
        bar.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.canvas, 1)
        self.view: LocalView | None = None
        self.related = RelatedLayer()
        self._counts = ""
        self.depth_box.valueChanged.connect(self.depth_changed)
        self.canvas.node_activated.connect(self.node_activated)

    def show_view(self, view: LocalView | None) -> None:
        """A laid-out local graph (None: the open place is no node of the graph)."""
        self.view = view
        if view is None:
            self.canvas.set_graph([], [], [], np.empty((0, 2), np.int64), np.empty((0, 2)))
            self._counts = "No note open"
            self._show_related()
            return
        graph = view.graph
        self.canvas.set_graph(
            graph.ids, graph.kinds, graph.labels, graph.edges, view.positions, fit=False
        )
        rings = graph.isolated
        self.canvas.set_rings(rings if rings is not None and rings.any() else None)
        self.canvas.select(graph.ids[view.centre])
        self.canvas.set_label_priority(view.near)
        self.centre_frame()
        shown = len(graph.ids)
        text = f"{len(view.near)} linked · {shown} nodes"
        if view.total > shown:
            text += f" (of {view.total:,}: the best-linked)"
        self._counts = text
        self._show_related()

    def set_related(self, related: RelatedIndex | None) -> None:
        self.related.set_related(related)
        self._show_related()

    def set_related_threshold(self, threshold: float) -> None:
        self.related.threshold = threshold
        self._show_related()

    def set_related_shown(self, shown: bool) -> None:
        self.related.shown = shown
        self._show_related()

    def _show_related(self) -> None:
        related = self.related.apply(self.canvas, self.view.graph if self.view else None)
        text = self._counts + (f" · {related}" if related else "")
        self.status.setText(text)

    def centre_frame(self) -> None:
        """Frame the graph with the open note in the middle."""
        view = self.view
        if view is None or not len(view.positions):
            return
        centre = view.positions[view.centre]
        reach = np.abs(view.positions - centre).max(axis=0) * FRAME_MARGIN
        rx, ry = max(float(reach[0]), 30.0), max(float(reach[1]), 30.0)
        self.canvas.view_box().setRange(
            QRectF(centre[0] - rx, centre[1] - ry, 2 * rx, 2 * ry), padding=0
        )

    def close(self) -> bool:
        self.canvas.close()
        return bool(super().close())
