"""The graph's RELATED_TO controls (a toggle and a threshold slider) and the pairs they pick:
the related notes' pairs whose two notes are nodes of the drawn graph, at the threshold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSlider, QWidget

from ...core.related.vault import DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from ...core.graph.graphdata import GraphData
    from ...core.related.vault import RelatedIndex
    from .canvas import GraphCanvas

IntArray = npt.NDArray[np.int64]
STEPS = 100  # slider units per unit of cosine
SLIDER_RANGE = (5, 60)  # cosines 0.05-0.60: below, nearly every pair; above, hardly any


class RelatedArrays:
    """The pairs of one RelatedIndex as arrays: each end as an index into ``notes``, the
    cosine, whether the two notes link. The index made them on its worker, so a view
    takes them as they are, and a changed graph costs a lookup per note, not per pair."""

    def __init__(self, related: RelatedIndex) -> None:
        self.notes = related.notes
        self.a = related.a
        self.b = related.b
        self.scores = related.scores
        self.linked = related.linked


class RelatedRows:
    """The related pairs between nodes of one graph, as row pairs and scores, filtered by
    a threshold in numpy: moving the slider over 50,000 pairs walks no Python list."""

    def __init__(self, pairs: RelatedArrays, rows: Mapping[str, int]) -> None:
        row = np.fromiter((rows.get(n, -1) for n in pairs.notes), np.int64, len(pairs.notes))
        a, b = row[pairs.a], row[pairs.b]
        inside = (a >= 0) & (b >= 0)
        self.edges: IntArray = np.column_stack([a[inside], b[inside]]).reshape(-1, 2)
        self.scores = pairs.scores[inside]
        self.linked = pairs.linked[inside]

    def at(self, threshold: float) -> IntArray:
        """The (K, 2) row pairs whose cosine is at least ``threshold``."""
        return self.edges[self.scores >= threshold]

    def unlinked_at(self, threshold: float) -> int:
        """How many of those pairs do not link each other (the rest lie under a link)."""
        return int((~self.linked[self.scores >= threshold]).sum())


class RelatedLayer:
    """What a canvas's RELATED_TO layer shows: the vault's related notes, the threshold,
    whether the layer is shown; ``apply`` hands the canvas the pairs for its graph."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, shown: bool = True) -> None:
        self.related: RelatedIndex | None = None
        self.threshold = threshold
        self.shown = shown
        self._pairs: RelatedArrays | None = None
        self._rows: RelatedRows | None = None
        self._graph: GraphData | None = None

    def set_related(self, related: RelatedIndex | None) -> None:
        self.related = related
        self._pairs = None if related is None else RelatedArrays(related)
        self._rows = None

    def apply(self, canvas: GraphCanvas, graph: GraphData | None) -> str:
        """Draw (or hide) the layer on ``canvas``, which shows ``graph``; the pairs drawn,
        as a count to show ("" while hidden, or with no related notes or no graph)."""
        canvas.set_related_shown(self.shown)
        if graph is None or self._pairs is None:
            canvas.set_related_edges(np.empty((0, 2), np.int64))
            return ""
        if self._rows is None or self._graph is not graph:
            rows = graph.rows or {node: i for i, node in enumerate(graph.ids)}
            self._rows, self._graph = RelatedRows(self._pairs, rows), graph
        edges = self._rows.at(self.threshold)
        canvas.set_related_edges(edges)
        if not self.shown:
            return ""
        # A related pair that links lies under its link: say how many show on their own.
        return f"{len(edges):,} related ({self._rows.unlinked_at(self.threshold):,} not linked)"


class RelatedControls(QWidget):
    """A "Related" check box and a threshold slider with its value, for a graph's controls
    bar. Emits only for the user's changes; ``set_threshold`` and ``set_shown`` set them
    quietly (the window shares one threshold between views).

    Signals:
        threshold_changed(float): the user moved the slider (the new cosine).
        shown_changed(bool): the user ticked (True) or cleared (False) the box.
    """

    threshold_changed = Signal(float)
    shown_changed = Signal(bool)

    def __init__(self, threshold: float, shown: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QCheckBox("Related")
        self.box.setToolTip(
            "Draw RELATED_TO edges: notes that talk about the same things, linked or not"
        )
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(*SLIDER_RANGE)
        self.slider.setFixedWidth(60)
        self.slider.setToolTip("The similarity a pair of notes needs to count as related")
        self.value = QLabel()
        self.value.setMinimumWidth(self.value.fontMetrics().horizontalAdvance("≥ 0.00"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.box)
        layout.addWidget(self.slider)
        layout.addWidget(self.value)
        self.set_threshold(threshold)
        self.set_shown(shown)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.box.toggled.connect(self._on_box_toggled)

    def threshold(self) -> float:
        return self.slider.value() / STEPS

    def shown(self) -> bool:
        return self.box.isChecked()

    def set_threshold(self, threshold: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(round(threshold * STEPS))
        self.slider.blockSignals(False)
        self._show_value()

    def set_shown(self, shown: bool) -> None:
        self.box.blockSignals(True)
        self.box.setChecked(shown)
        self.box.blockSignals(False)
        self.slider.setEnabled(shown)

    def _show_value(self) -> None:
        self.value.setText(f"≥ {self.threshold():.2f}")

    @Slot(int)
    def _on_slider_value_changed(self, _value: int) -> None:
        self._show_value()
        self.threshold_changed.emit(self.threshold())

    @Slot(bool)
    def _on_box_toggled(self, on: bool) -> None:
        self.slider.setEnabled(on)
        self.shown_changed.emit(on)
