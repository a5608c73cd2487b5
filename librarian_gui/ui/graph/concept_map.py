"""The graph tab's concept map: the canvas of concepts with its controls (edge weight,
threshold), legend and counts, kept in the user's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QWidget,
)

from ...core.index.resolver import CONCEPT_PREFIX
from .look import NEUTRAL, RGB, category_colours, overlay
from .map_canvas import MapCanvas

if TYPE_CHECKING:
    from ...core.insight.concept_map import ConceptMap
    from ...services.settings import Settings

WEIGHT_CHOICES = (("lift", "Lift"), ("jaccard", "Jaccard"))
# The slider's steps per unit of each weight, and its default: lift above 1 means more often
# together than chance; Jaccard 0.1, a tenth of the notes of either shared.
SLIDER_SCALE = {"lift": 10.0, "jaccard": 100.0}
SLIDER_DEFAULT = {"lift": 10, "jaccard": 10}
SLIDER_MAX = 100
MAX_DRAWN_EDGES = 3_000  # more over the threshold: only the strongest are drawn
_WEIGHT_TIPS = {
    "lift": "Notes shared over those expected by chance: hubs do not dominate",
    "jaccard": "Notes shared over the notes of either",
}


class ConceptMapView(QWidget):
    """The concept map and its overlays; ``controls`` (weight, threshold, fit) are put in
    the graph tab's top bar by its owner. Owns no logic of the map's: it draws the
    ConceptMap it is given.

    Signals:
        concept_activated(str): a concept was clicked (its node id, ``//concept/ID``).
    """

    concept_activated = Signal(str)

    def __init__(
        self, parent: QWidget | None = None, *, dark: bool = False, settings: Settings | None = None
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._restoring = True
        self.map: ConceptMap | None = None
        self.shown = np.empty(0, bool)  # which of the map's edges are drawn
        self.canvas = MapCanvas(dark=dark)
        self.weight = QComboBox()
        for data, text in WEIGHT_CHOICES:
            self.weight.addItem(text, data)
            self.weight.setItemData(
                self.weight.count() - 1, _WEIGHT_TIPS[data], Qt.ItemDataRole.ToolTipRole
            )
        self.weight.setToolTip("What makes an edge strong")
        self.threshold = QSlider(Qt.Orientation.Horizontal)
        self.threshold.setRange(0, SLIDER_MAX)
        self.threshold.setFixedWidth(160)
        self.threshold.setToolTip("Hide the edges weaker than this")
        self.threshold_label = QLabel()
        self.threshold_label.setMinimumWidth(48)
        self.fit = QPushButton("Fit")
        self.controls = QWidget()
        bar = QHBoxLayout(self.controls)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel("Edges by"))
        bar.addWidget(self.weight)
        bar.addWidget(self.threshold)
        bar.addWidget(self.threshold_label)
        bar.addStretch(1)
        bar.addWidget(self.fit)
        self.legend = overlay(dark)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.status = overlay(dark)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.hint = overlay(dark)
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.canvas, 0, 0)
        top, left = Qt.AlignmentFlag.AlignTop, Qt.AlignmentFlag.AlignLeft
        grid.addWidget(self.hint, 0, 0, top | left)
        grid.addWidget(self.legend, 0, 0, top | Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.status, 0, 0, Qt.AlignmentFlag.AlignBottom | left)
        self.weight.setCurrentIndex(max(0, self.weight.findData(self._option("weight", "lift"))))
        self._restore_threshold()
        self.weight.currentIndexChanged.connect(self._on_weight_changed)
        self.threshold.valueChanged.connect(self._on_threshold_changed)
        self.fit.clicked.connect(self.canvas.fit)
        self.canvas.node_clicked.connect(self._on_canvas_node_clicked)
        self._restoring = False
        self.show_status("Building the concept map…")

    # ------------------------------------------------------------ settings

    def _option(self, name: str, default: Any) -> Any:
        if self._settings is None:
            return default
        return self._settings.graph_option(f"map/{name}", default)

    def _save(self, name: str, value: object) -> None:
        if self._settings is not None and not self._restoring:
            self._settings.set_graph_option(f"map/{name}", value)

    def _restore_threshold(self) -> None:
        weight = self.chosen_weight()
        self.threshold.blockSignals(True)
        self.threshold.setValue(self._option(f"threshold/{weight}", SLIDER_DEFAULT[weight]))
        self.threshold.blockSignals(False)
        self._show_threshold()

    # ------------------------------------------------------------ reading the controls

    def chosen_weight(self) -> str:
        return str(self.weight.currentData())

    def chosen_threshold(self) -> float:
        return self.threshold.value() / SLIDER_SCALE[self.chosen_weight()]

    # ------------------------------------------------------------ showing

    def show_map(self, cmap: ConceptMap) -> None:
        """A new or rebuilt map; the camera frames it the first time."""
        first = self.map is None
        self.map = cmap
        fills, legend = _fills(cmap)
        caption = None
        apart = np.flatnonzero(cmap.never_linked)
        if len(apart):
            block = cmap.positions[apart]
            x, y = float(block[:, 0].min()), float(block[:, 1].max()) + 24.0
            caption = (f"Never linked ({len(apart)})", x, y)
        self.canvas.set_map(
            cmap.ids,
            cmap.positions,
            cmap.dots,
            fills,
            ringed=cmap.isolated,
            faint=cmap.never_linked,
            partners=cmap.cooccurring,
            caption=caption,
        )
        self.legend.setText(
            "<br>".join(
                f"<span style='color: rgb({r},{g},{b})'>●</span> {name}"
                for name, (r, g, b) in legend
            )
        )
        self.legend.setVisible(bool(legend))
        isolated = int(cmap.isolated.sum())
        notes = "note" if cmap.max_notes == 1 else "notes"
        self.hint.setText(
            f"<span style='color: rgb(214,39,40)'>○</span> {isolated} isolated "
            f"(in ≤ {cmap.max_notes} {notes})<br>{len(apart)} never linked, on the right"
            "<br>Hover: what a concept is found with · click: its page"
        )
        self._show_edges()
        if first:
            self.canvas.fit()

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    def _show_edges(self) -> None:
        cmap = self.map
        if cmap is None:
            return
        weights = cmap.weights(self.chosen_weight())
        over = np.flatnonzero(cmap.edges_at(self.chosen_weight(), self.chosen_threshold()))
        capped = len(over) > MAX_DRAWN_EDGES
        if capped:
            strongest = np.argsort(-weights[over], kind="stable")[:MAX_DRAWN_EDGES]
            over = np.sort(over[strongest])
        self.shown = np.zeros(len(cmap.edges), bool)
        self.shown[over] = True
        # Lines by rank among those shown: a few pairs of one-note concepts have a lift in
        # the thousands, and by value every other edge would be drawn as the weakest.
        ranks = np.empty(len(over))
        ranks[np.argsort(weights[over], kind="stable")] = np.arange(len(over))
        strength = ranks / max(len(over) - 1, 1) if len(over) else ranks
        self.canvas.set_edges(cmap.edges[over], strength)
        drawn = f"{len(over):,} of {len(cmap.edges):,} pairs drawn"
        if capped:
            drawn += " (the strongest)"
        self.show_status(f"{len(cmap.ids):,} concepts · {drawn} · {cmap.total:,} notes counted")
        if not cmap.ids:
            self.show_status("No concepts: this vault has no concept dictionary")

    def _show_threshold(self) -> None:
        digits = 1 if self.chosen_weight() == "lift" else 2
        self.threshold_label.setText(f"≥ {self.chosen_threshold():.{digits}f}")

    # ------------------------------------------------------------ events

    @Slot()
    def _on_weight_changed(self) -> None:
        self._save("weight", self.chosen_weight())
        self._restore_threshold()
        self.threshold.setToolTip(_WEIGHT_TIPS[self.chosen_weight()])
        self._show_edges()

    @Slot(int)
    def _on_threshold_changed(self, value: int) -> None:
        self._save(f"threshold/{self.chosen_weight()}", value)
        self._show_threshold()
        self._show_edges()

    @Slot(int)
    def _on_canvas_node_clicked(self, row: int) -> None:
        if self.map is not None:
            self.concept_activated.emit(CONCEPT_PREFIX + self.map.ids[row])


def _fills(cmap: ConceptMap) -> tuple[np.ndarray, list[tuple[str, RGB]]]:
    """Each concept's colour by its category, as the graph view colours categories, and
    the legend."""
    by_name = category_colours(cmap.category_colours)
    fills = np.array([by_name.get(c, NEUTRAL) for c in cmap.categories], np.uint8).reshape(-1, 3)
    legend = list(by_name.items())
    if "" in cmap.categories:
        legend.append(("no category", NEUTRAL))
    return fills, legend
