"""The graph tab: the canvas with its display controls (scope, kinds, filters, RELATED_TO
edges, colours, forces, export), the legend and the isolated-concepts count, kept in the
user's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .canvas import KIND_COLOURS, RELATED_COLOURS, GraphCanvas
from .concept_map import ConceptMapView
from .look import NEUTRAL, PALETTE, RGB, category_colours, overlay
from .related import RelatedControls, RelatedLayer

if TYPE_CHECKING:
    from ...core.graph.graphdata import GraphData, GraphFilter
    from ...core.related.vault import RelatedIndex
    from ...services.settings import Settings

CONCEPT_MAP = "conceptmap"  # the mode showing the concept map (services.graph's)
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
KINDS = ("note", "concept", "tag", "unresolved", "attachment")
_KIND_TEXT = {
    "note": "Notes",
    "concept": "Concepts",
    "tag": "Tags",
    "unresolved": "Unresolved",
    "attachment": "Files",
}
COLOUR_MODES = (("kind", "Kind"), ("category", "Category"), ("folder", "Folder"))
# name, Layout.set_forces keyword, slider range, slider units per force unit, default
FORCES = (
    ("Repel", "repel", (0, 300), 1.0, 30.0),
    ("Link strength", "link_strength", (0, 200), 100.0, 1.0),
    ("Link distance", "link_distance", (5, 200), 1.0, 30.0),
    ("Centre", "centre", (0, 100), 1000.0, 0.01),
)


class GraphView(QWidget):
    """Controls above and beside the canvas. Owns no graph logic: the window wires it to the
    session. Every control is restored from and saved to ``settings`` (keys ``graph/…``;
    the related threshold is the one ``Settings.related_threshold`` keeps for every view).
    ``set_related`` gives it the vault's related notes: their pairs between nodes of the
    graph, at or above the threshold, are drawn as a faint layer while "Related" is ticked.

    Signals:
        scope_changed(str, int, tuple): "global" or "local", the local depth (1–3), and the
            node kinds shown.
        filters_changed(object): a GraphFilter (category, path, orphans, isolation).
        forces_changed(object): force strengths by name (``Layout.set_forces`` keywords).
        layout_reset(): the user asked for a fresh layout.
        paused(bool): the user paused (True) or resumed (False) the layout.
        node_activated(str): a node was clicked (its id).
        node_dragged(str, float, float): a node is dragged to (x, y).
        node_released(str): a dragged node was let go.
        related_threshold_changed(float): the user moved the related threshold slider.
        related_shown_changed(bool): the user showed (True) or hid the RELATED_TO edges.
    """

    scope_changed = Signal(str, int, tuple)
    filters_changed = Signal(object)
    forces_changed = Signal(object)
    layout_reset = Signal()
    paused = Signal(bool)
    node_activated = Signal(str)
    node_dragged = Signal(str, float, float)
    node_released = Signal(str)
    related_threshold_changed = Signal(float)
    related_shown_changed = Signal(bool)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        dark: bool = False,
        settings: Settings | None = None,
        canvas: GraphCanvas | None = None,
        concept_map: ConceptMapView | None = None,
    ) -> None:
        """``canvas`` and ``concept_map``: made beforehand (with the same ``dark`` and
        ``settings``), so that a view made ahead of time costs the GUI thread a few short
        turns rather than one long one."""
        super().__init__(parent)
        self._settings = settings
        self._dark = dark
        self._restoring = True
        self.graph: GraphData | None = None
        self._counts = ""
        self._fit_when_settled = False
        # A new graph is drawn in the event-loop turn after it is set up: both in one turn
        # (15 + 25 ms at 23,700 nodes) made the window's worst lag when the graph arrived.
        self._paint_soon = QTimer(self, singleShot=True, interval=0)
        self._paint_soon.timeout.connect(self._on_paint_soon_timeout)
        self._legend: list[tuple[str, RGB]] = []
        self.canvas = canvas or GraphCanvas(dark=dark)
        self.concept_map = concept_map or ConceptMapView(dark=dark, settings=settings)
        self._build_top_bars()
        self._build_panel()
        self._build_overlays()
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addWidget(self._stack, 1)
        body.addWidget(self.concept_map, 1)
        body.addWidget(self.panel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self._bar)
        layout.addLayout(self._kinds_bar)
        layout.addLayout(body, 1)
        self._restore()
        self._connect()
        self._on_scope_control_changed()
        self._on_filter_control_changed()
        self._show_related()  # the layer hidden or not, as kept
        # Only now: saving what was just restored wrote the settings file on the first
        # Ctrl+G (a flush of 20-60 ms on the GUI thread).
        self._restoring = False

    # ------------------------------------------------------------ building

    def _build_top_bars(self) -> None:
        self.mode = QComboBox()
        self.mode.addItem("Whole vault", "global")
        self.mode.addItem("Around the open note", "local")
        self.mode.addItem("Concept map", CONCEPT_MAP)
        self.mode.setItemData(
            2, "Concepts sized by their notes, joined by the notes they share", _TOOLTIP
        )
        self.depth_box = QSpinBox()
        self.depth_box.setRange(1, 3)
        self.depth_box.setPrefix("depth ")
        self.text_filter = QLineEdit()
        self.text_filter.setPlaceholderText("Highlight…")
        self.text_filter.setClearButtonEnabled(True)
        self.text_filter.setToolTip("Highlight the nodes whose name contains this text")
        self.matches = QLabel()
        self.pause = QPushButton("Pause")
        self.pause.setCheckable(True)
        self.fit = QPushButton("Fit")
        self.more = QToolButton()
        self.more.setText("Display")
        self.more.setCheckable(True)
        self.more.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more.setArrowType(Qt.ArrowType.RightArrow)
        self.more.setToolTip("Filters, colours, forces, reset and export")
        self._bar = QHBoxLayout()
        self._bar.setContentsMargins(6, 4, 6, 0)
        self._bar.addWidget(self.mode)
        self._bar.addWidget(self.concept_map.controls, 1)
        self._bar.addWidget(self.depth_box)
        self._bar.addWidget(self.text_filter, 1)
        # In the top bar: the kinds bar is as wide as the centre leaves it at the default size.
        self._related = RelatedLayer()
        if self._settings is not None:
            self._related.threshold = self._settings.related_threshold()
            self._related.shown = self._settings.related_edges_shown()
        self.related_controls = RelatedControls(self._related.threshold, self._related.shown)
        self._bar.addWidget(self.related_controls)
        for widget in (self.matches, self.pause, self.fit, self.more):
            self._bar.addWidget(widget)
        self.kind_boxes: dict[str, QCheckBox] = {}
        self._kinds_bar = QHBoxLayout()
        self._kinds_bar.setContentsMargins(6, 0, 6, 0)
        for kind in KINDS:
            box = QCheckBox(_KIND_TEXT[kind])
            r, g, b = KIND_COLOURS[kind]
            box.setStyleSheet(f"QCheckBox {{ color: rgb({r},{g},{b}); font-weight: bold; }}")
            self.kind_boxes[kind] = box
            self._kinds_bar.addWidget(box)
        self._kinds_bar.addSpacing(12)
        self.isolated_only = QCheckBox("Only isolated concepts")
        self.isolated_only.setToolTip("Concepts found in at most N notes, and those notes")
        self.isolated_max = QSpinBox()
        self.isolated_max.setRange(0, 50)
        self.isolated_max.setPrefix("in ≤ ")
        self.isolated_max.setSuffix(" notes")
        self._kinds_bar.addWidget(self.isolated_only)
        self._kinds_bar.addWidget(self.isolated_max)
        self._kinds_bar.addStretch(1)

    def _build_panel(self) -> None:
        self.category = QComboBox()
        self.category.addItem("All categories", "")
        self.path_filter = QLineEdit()
        self.path_filter.setPlaceholderText("folder/ prefix")
        self.path_filter.setClearButtonEnabled(True)
        self.hide_orphans = QCheckBox("Hide orphans")
        self.colour_by = QComboBox()
        for data, text in COLOUR_MODES:
            self.colour_by.addItem(text, data)
        self.force_sliders: dict[str, QSlider] = {}
        self.reset = QPushButton("Reset layout")
        self.reset.setToolTip("Lay the graph out afresh, ignoring the saved positions")
        self.export_png_button = QPushButton("PNG…")
        self.export_svg_button = QPushButton("SVG…")
        self.panel = QFrame()
        self.panel.setFrameShape(QFrame.Shape.StyledPanel)
        self.panel.setFixedWidth(240)
        form = QFormLayout(self.panel)
        form.setContentsMargins(8, 6, 8, 6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(_heading("Filter"))
        form.addRow("Category", self.category)
        form.addRow("Path", self.path_filter)
        form.addRow(self.hide_orphans)
        form.addRow(_heading("Colour"))
        form.addRow("Colour by", self.colour_by)
        form.addRow(_heading("Forces"))
        for text, key, (low, high), _scale, _default in FORCES:
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(low, high)
            slider.setToolTip(text)
            self.force_sliders[key] = slider
            form.addRow(text, slider)
        form.addRow(self.reset)
        form.addRow(_heading("Export the view"))
        exports = QHBoxLayout()
        exports.addWidget(self.export_png_button)
        exports.addWidget(self.export_svg_button)
        form.addRow(exports)

    def _build_overlays(self) -> None:
        """The canvas with labels in its corners (one grid cell holds them all)."""
        self._stack = QWidget()
        grid = QGridLayout(self._stack)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.canvas, 0, 0)
        self.isolated_label = overlay(self._dark)
        self.isolated_label.setTextFormat(Qt.TextFormat.RichText)
        self.isolated_label.setToolTip("Click to show only the isolated concepts and their notes")
        self.legend = overlay(self._dark)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.status = overlay(self._dark)
        # The counts and the layout's state can be long: never let them widen the window.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        top, left, right = (
            Qt.AlignmentFlag.AlignTop,
            Qt.AlignmentFlag.AlignLeft,
            Qt.AlignmentFlag.AlignRight,
        )
        grid.addWidget(self.isolated_label, 0, 0, top | left)
        grid.addWidget(self.legend, 0, 0, top | right)
        grid.addWidget(self.status, 0, 0, Qt.AlignmentFlag.AlignBottom | left)

    def _connect(self) -> None:
        self.mode.currentIndexChanged.connect(self._on_scope_control_changed)
        self.depth_box.valueChanged.connect(self._on_scope_control_changed)
        for box in self.kind_boxes.values():
            box.toggled.connect(self._on_scope_control_changed)
        for signal in (
            self.isolated_only.toggled,
            self.isolated_max.valueChanged,
            self.hide_orphans.toggled,
            self.category.currentIndexChanged,
            self.path_filter.editingFinished,
        ):
            signal.connect(self._on_filter_control_changed)
        self.text_filter.textChanged.connect(self._on_text_filter_text_changed)
        self.colour_by.currentIndexChanged.connect(self._on_colour_by_changed)
        for slider in self.force_sliders.values():
            slider.valueChanged.connect(self._on_force_slider_changed)
        self.pause.toggled.connect(self._on_pause_toggled)
        self.fit.clicked.connect(self.canvas.fit)
        self.more.toggled.connect(self._on_more_toggled)
        self.reset.clicked.connect(self._on_reset_clicked)
        self.export_png_button.clicked.connect(self._on_export_png_clicked)
        self.export_svg_button.clicked.connect(self._on_export_svg_clicked)
        self.isolated_label.linkActivated.connect(self._on_isolated_label_activated)
        self.canvas.node_activated.connect(self.node_activated)
        self.concept_map.concept_activated.connect(self.node_activated)
        self.canvas.node_dragged.connect(self.node_dragged)
        self.canvas.node_released.connect(self.node_released)
        self.related_controls.threshold_changed.connect(self._on_related_threshold_changed)
        self.related_controls.shown_changed.connect(self._on_related_shown_changed)

    # ------------------------------------------------------------ settings

    def _option(self, name: str, default: Any) -> Any:
        return default if self._settings is None else self._settings.graph_option(name, default)

    def _save(self, name: str, value: object) -> None:
        if self._settings is not None and not self._restoring:
            self._settings.set_graph_option(name, value)

    def _restore(self) -> None:
        self.mode.setCurrentIndex(max(0, self.mode.findData(self._option("mode", "global"))))
        self.depth_box.setValue(self._option("depth", 1))
        kinds = self._option("kinds", ("note", "concept", "unresolved"))
        for kind, box in self.kind_boxes.items():
            box.setChecked(kind in kinds)
        self.isolated_only.setChecked(self._option("isolated_only", False))
        self.isolated_max.setValue(self._option("isolated_max", 2))
        self.hide_orphans.setChecked(self._option("hide_orphans", False))
        self._wanted_category = str(self._option("category", ""))
        if self._wanted_category:
            self.category.addItem(self._wanted_category, self._wanted_category)
            self.category.setCurrentIndex(1)
        self.path_filter.setText(self._option("path", ""))
        self.text_filter.setText(self._option("text", ""))
        self.colour_by.setCurrentIndex(
            max(0, self.colour_by.findData(self._option("colour_by", "kind")))
        )
        for _text, key, _range, scale, default in FORCES:
            self.force_sliders[key].setValue(round(self._option(f"force/{key}", default) * scale))
        self.more.setChecked(self._option("panel", False))
        self._on_more_toggled(self.more.isChecked())

    # ------------------------------------------------------------ reading the controls

    def set_mode(self, mode: str) -> None:
        """ "global" (the whole vault) or "local" (around the open note), as if chosen."""
        index = self.mode.findData(mode)
        if index >= 0:
            self.mode.setCurrentIndex(index)

    def scope(self) -> tuple[str, int, tuple[str, ...]]:
        kinds = tuple(k for k, box in self.kind_boxes.items() if box.isChecked())
        return str(self.mode.currentData()), self.depth_box.value(), kinds

    def graph_filter(self) -> GraphFilter:
        from ...core.graph.graphdata import GraphFilter

        return GraphFilter(
            kinds=self.scope()[2],
            category=str(self.category.currentData() or ""),
            path=self.path_filter.text().strip(),
            hide_orphans=self.hide_orphans.isChecked(),
            isolated_only=self.isolated_only.isChecked(),
            isolated_max=self.isolated_max.value(),
        )

    def forces(self) -> dict[str, float]:
        return {key: self.force_sliders[key].value() / scale for _t, key, _r, scale, _d in FORCES}

    # ------------------------------------------------------------ showing

    def show_graph(self, graph: GraphData, positions: Any, *, fit: bool = False) -> None:
        """A new or changed graph and its positions; the camera moves only with ``fit``.
        Drawn in the next event-loop turn."""
        self.graph = graph
        self.canvas.setUpdatesEnabled(False)
        self._paint_soon.start()
        self.canvas.set_graph(
            graph.ids,
            graph.kinds,
            graph.labels,
            graph.edges,
            positions,
            fit=False,
            draw_edges=graph.draw_edges,
            rows=graph.rows,
        )
        self._fill_categories(graph)
        self._show_colours()
        rings = graph.isolated
        self.canvas.set_rings(rings if rings is not None and rings.any() else None)
        self.canvas.set_main(graph.main)
        if fit:
            self.canvas.fit()  # once the main component is known: it frames that
        self._show_highlight()
        n = self.isolated_max.value()
        notes = "note" if n == 1 else "notes"
        text = f"<a href='isolated'>{graph.isolated_total} isolated concepts</a> (in ≤ {n} {notes})"
        if graph.unused:
            text += f"<br>{graph.unused} never linked"
        self.isolated_label.setText(text)
        self._show_related()

    @Slot()
    def _on_paint_soon_timeout(self) -> None:
        self.canvas.setUpdatesEnabled(True)

    def set_related(self, related: RelatedIndex | None) -> None:
        """The vault's related notes (None: not found yet): their pairs between nodes of
        the graph, at the threshold, drawn while "Related" is ticked."""
        self._related.set_related(related)
        self._show_related()

    def set_related_threshold(self, threshold: float) -> None:
        """Another view moved the shared threshold: follow it (that view saved it)."""
        self.related_controls.set_threshold(threshold)
        self._related.threshold = self.related_controls.threshold()
        self._show_related()

    def set_related_shown(self, shown: bool) -> None:
        self.related_controls.set_shown(shown)
        self._related.shown = shown
        self._show_related()

    def _show_related(self) -> None:
        """The canvas's RELATED_TO layer, and the counts with the pairs it draws."""
        related = self._related.apply(self.canvas, self.graph)
        self._show_legend()
        graph = self.graph
        if graph is not None:
            self._counts = f"{len(graph.ids):,} nodes · {len(graph.edges):,} edges"
            if related:
                self._counts += f" · {related}"
            self.show_status(self._counts)

    def show_positions(self, positions: Any, settled: bool, rate: float) -> None:
        """A layout step: move the nodes, say how the layout is doing."""
        if len(positions) != len(self.canvas.ids):
            return  # from a graph the canvas no longer shows
        self.canvas.set_positions(positions)
        state = "settled" if settled else f"laying out, {rate:.0f} steps/s"
        self.show_status(f"{self._counts} · {state}")
        if settled and self._fit_when_settled:
            self._fit_when_settled = False
            self.canvas.fit()

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    def legend_entries(self) -> list[tuple[str, RGB]]:
        return list(self._legend)

    def export_image(self, path: str) -> bool:
        """Write the view as PNG or SVG (by the file's suffix); False if it failed."""
        if path.lower().endswith(".svg"):
            return self.canvas.export_svg(path)
        return self.canvas.export_png(path)

    # ------------------------------------------------------------ colours

    def _fill_categories(self, graph: GraphData) -> None:
        names = [name for name, _colour in graph.category_colours]
        current = str(self.category.currentData() or "")
        shown = [str(self.category.itemData(i)) for i in range(1, self.category.count())]
        if shown == names:
            return
        self.category.blockSignals(True)
        while self.category.count() > 1:
            self.category.removeItem(1)
        for name in names:
            self.category.addItem(name, name)
        if current and current not in names:
            self.category.addItem(current, current)  # a saved choice this vault lacks
        self.category.setCurrentIndex(max(0, self.category.findData(current)))
        self.category.blockSignals(False)

    def _show_colours(self) -> None:
        graph = self.graph
        mode = str(self.colour_by.currentData())
        colours: list[RGB] | None = None
        legend: list[tuple[str, RGB]] = []
        if graph is None:
            pass
        elif mode == "category":
            by_name = category_colours(graph.category_colours)
            colours = [by_name.get(c, NEUTRAL) for c in graph.categories]
            legend = [*by_name.items(), ("no category", NEUTRAL)]
        elif mode == "folder":
            names = sorted(
                {
                    f
                    for f, k in zip(graph.folders, graph.kinds, strict=True)
                    if k in ("note", "attachment")
                }
            )
            by_name = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
            colours = [
                by_name[f] if k in ("note", "attachment") else NEUTRAL
                for f, k in zip(graph.folders, graph.kinds, strict=True)
            ]
            legend = [(name or "(vault root)", c) for name, c in by_name.items()]
            legend.append(("not a file", NEUTRAL))
        else:
            legend = [(_KIND_TEXT[k], KIND_COLOURS[k]) for k in KINDS if k in set(graph.kinds)]
        self._legend = legend
        self.canvas.set_node_colours(colours)
        self._show_legend()

    def _show_legend(self) -> None:
        """The colours' names, and the RELATED_TO layer's line while it is drawn."""
        lines = [
            f"<span style='color: rgb({r},{g},{b})'>●</span> {name}"
            for name, (r, g, b) in self._legend
        ]
        if self._related.shown and self._related.related is not None:
            r, g, b = RELATED_COLOURS[self._dark]
            lines.append(
                f"<span style='color: rgb({r},{g},{b})'>━━</span> related "
                f"≥ {self._related.threshold:.2f}"
            )
        self.legend.setText("<br>".join(lines))
        self.legend.setVisible(bool(lines))

    def _show_highlight(self) -> None:
        query = self.text_filter.text().strip().casefold()
        graph = self.graph
        if not query or graph is None:
            mask = None
            self.matches.setText("")
        else:
            mask = np.array(
                [
                    query in label.casefold() or query in node.casefold()
                    for node, label in zip(graph.ids, graph.labels, strict=True)
                ],
                bool,
            )
            count = int(mask.sum())
            self.matches.setText(f"{count} found" if count != 1 else "1 found")
        self.canvas.set_highlight(mask)

    # ------------------------------------------------------------ control events

    @Slot()
    def _on_scope_control_changed(self) -> None:
        mode, depth, kinds = self.scope()
        self.depth_box.setEnabled(mode == "local")
        self._show_mode(mode)
        self._save("mode", mode)
        self._save("depth", depth)
        self._save("kinds", kinds)
        if not self._restoring:
            self.scope_changed.emit(mode, depth, kinds)

    @Slot()
    def _on_filter_control_changed(self) -> None:
        chosen = self.graph_filter()
        self._save("isolated_only", chosen.isolated_only)
        self._save("isolated_max", chosen.isolated_max)
        self._save("hide_orphans", chosen.hide_orphans)
        self._save("category", chosen.category)
        self._save("path", chosen.path)
        if not self._restoring:
            self.filters_changed.emit(chosen)

    def _show_mode(self, mode: str) -> None:
        """The concept map, or the vault's graph with its controls."""
        mapping = mode == CONCEPT_MAP
        self.concept_map.setVisible(mapping)
        self.concept_map.controls.setVisible(mapping)
        graph_only = (
            self._stack,
            self.depth_box,
            self.text_filter,
            self.related_controls,
            self.matches,
            self.pause,
        )
        kinds_bar = (*self.kind_boxes.values(), self.isolated_only, self.isolated_max)
        for widget in (*graph_only, self.fit, self.more, *kinds_bar):
            widget.setVisible(not mapping)
        self.panel.setVisible(not mapping and self.more.isChecked())

    @Slot(float)
    def _on_related_threshold_changed(self, threshold: float) -> None:
        if self._settings is not None:
            self._settings.set_related_threshold(threshold)
        self._related.threshold = threshold
        self._show_related()
        self.related_threshold_changed.emit(threshold)

    @Slot(bool)
    def _on_related_shown_changed(self, shown: bool) -> None:
        if self._settings is not None:
            self._settings.set_related_edges_shown(shown)
        self._related.shown = shown
        self._show_related()
        self.related_shown_changed.emit(shown)

    @Slot(str)
    def _on_text_filter_text_changed(self, text: str) -> None:
        self._save("text", text)
        self._show_highlight()

    @Slot()
    def _on_colour_by_changed(self) -> None:
        self._save("colour_by", str(self.colour_by.currentData()))
        self._show_colours()

    @Slot()
    def _on_force_slider_changed(self) -> None:
        forces = self.forces()
        for key, value in forces.items():
            self._save(f"force/{key}", value)
        self.forces_changed.emit(forces)

    @Slot(bool)
    def _on_more_toggled(self, on: bool) -> None:
        self.panel.setVisible(on)
        self.more.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self._save("panel", on)

    @Slot()
    def _on_reset_clicked(self) -> None:
        self._fit_when_settled = True
        self.layout_reset.emit()

    @Slot()
    def _on_export_png_clicked(self) -> None:
        self._export_with_dialog("PNG image (*.png)", ".png")

    @Slot()
    def _on_export_svg_clicked(self) -> None:
        self._export_with_dialog("SVG image (*.svg)", ".svg")

    def _export_with_dialog(self, file_filter: str, suffix: str) -> None:
        path, _chosen = QFileDialog.getSaveFileName(
            self, "Export the graph view", "graph" + suffix, file_filter
        )
        if not path:
            return
        if not path.lower().endswith(suffix):
            path += suffix
        ok = self.export_image(path)
        self.show_status(f"Saved {path}" if ok else f"Could not write {path}: check the folder")

    @Slot(str)
    def _on_isolated_label_activated(self, _link: str) -> None:
        self.isolated_only.setChecked(not self.isolated_only.isChecked())

    @Slot(bool)
    def _on_pause_toggled(self, on: bool) -> None:
        self.pause.setText("Resume" if on else "Pause")
        self.paused.emit(on)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label
