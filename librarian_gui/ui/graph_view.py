"""The graph tab: the canvas with its controls (global or local, depth, node kinds, pause)."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .graph_canvas import KIND_COLOURS, GraphCanvas

KINDS = ("note", "concept", "unresolved", "attachment")
_KIND_TEXT = {
    "note": "Notes",
    "concept": "Concepts",
    "unresolved": "Unresolved",
    "attachment": "Files",
}


class GraphView(QWidget):
    """Controls above the canvas. Owns no graph logic: the window wires it to the session.

    Signals:
        scope_changed(str, int, tuple): "global" or "local", the local depth (1–3), and the
            node kinds shown.
        paused(bool): the user paused (True) or resumed (False) the layout.
        node_activated(str): a node was clicked (its id).
    """

    scope_changed = Signal(str, int, tuple)
    paused = Signal(bool)
    node_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        super().__init__(parent)
        self.canvas = GraphCanvas(dark=dark)
        self.mode = QComboBox()
        self.mode.addItem("Whole vault", "global")
        self.mode.addItem("Around the open note", "local")
        self.depth = QSpinBox()
        self.depth.setRange(1, 3)
        self.depth.setValue(1)
        self.depth.setPrefix("depth ")
        self.kind_boxes: dict[str, QCheckBox] = {}
        self.pause = QPushButton("Pause")
        self.pause.setCheckable(True)
        self.fit = QPushButton("Fit")
        self.status = QLabel()
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 0)
        bar.addWidget(self.mode)
        bar.addWidget(self.depth)
        kinds_bar = QHBoxLayout()
        kinds_bar.setContentsMargins(6, 0, 6, 0)
        for kind in KINDS:
            box = QCheckBox(_KIND_TEXT[kind])
            box.setChecked(kind != "attachment")
            r, g, b = KIND_COLOURS[kind]
            box.setStyleSheet(f"QCheckBox {{ color: rgb({r},{g},{b}); font-weight: bold; }}")
            box.toggled.connect(self._on_control_changed)
            self.kind_boxes[kind] = box
            kinds_bar.addWidget(box)
        kinds_bar.addStretch(1)
        # The counts and the layout's state can be long: never let them widen the window.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.pause)
        bar.addWidget(self.fit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addLayout(kinds_bar)
        layout.addWidget(self.canvas, 1)
        self.mode.currentIndexChanged.connect(self._on_control_changed)
        self.depth.valueChanged.connect(self._on_control_changed)
        self.pause.toggled.connect(self._on_pause_toggled)
        self.fit.clicked.connect(self.canvas.fit)
        self.canvas.node_activated.connect(self.node_activated)
        self._on_control_changed()

    def scope(self) -> tuple[str, int, tuple[str, ...]]:
        kinds = tuple(k for k, box in self.kind_boxes.items() if box.isChecked())
        return str(self.mode.currentData()), self.depth.value(), kinds

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    @Slot()
    def _on_control_changed(self) -> None:
        mode, depth, kinds = self.scope()
        self.depth.setEnabled(mode == "local")
        self.scope_changed.emit(mode, depth, kinds)

    @Slot(bool)
    def _on_pause_toggled(self, on: bool) -> None:
        self.pause.setText("Resume" if on else "Pause")
        self.paused.emit(on)
