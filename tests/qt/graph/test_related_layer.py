"""The graph's RELATED_TO layer on a vault whose related notes are known by hand: exactly the
pairs at the threshold between nodes of the graph, hidden by the toggle, the slider and the
toggle kept in the settings and shared through the view's signals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from librarian_gui.core.graph.graphdata import GraphData, global_graph
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.related.vault import RelatedIndex
from librarian_gui.services.settings import Settings
from librarian_gui.ui.graph.local_view import LocalGraphView
from librarian_gui.ui.graph.view import GraphView
from tests.related_vault import HIGH_THRESHOLD, TOPIC_PAIRS, build_related, write_related_vault

Pairs = set[tuple[str, str]]


@pytest.fixture
def related(tmp_path: Path) -> tuple[VaultIndex, RelatedIndex]:
    root = tmp_path / "vault"
    write_related_vault(root)
    return build_related(root)


def _settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


def _view(qtbot: QtBot, settings: Settings | None = None) -> GraphView:
    view = GraphView(settings=settings)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    return view


def _show(view: GraphView, graph: GraphData) -> None:
    rng = np.random.default_rng(1)
    view.show_graph(graph, rng.uniform(-100, 100, (len(graph.ids), 2)), fit=True)


def _drawn(view: GraphView) -> Pairs:
    """The pairs of note ids the canvas's RELATED_TO layer holds."""
    ids = view.canvas.ids
    return {tuple(sorted((ids[a], ids[b]))) for a, b in view.canvas.related_edges.tolist()}  # type: ignore[misc]


def _expected(related: RelatedIndex, nodes: set[str], threshold: float) -> Pairs:
    return {(p.a, p.b) for p in related.pairs_at(threshold) if p.a in nodes and p.b in nodes}


def test_the_layer_draws_the_pairs_at_the_threshold_between_the_graphs_notes(
    qtbot: QtBot, related: tuple[VaultIndex, RelatedIndex]
) -> None:
    index, found = related
    view = _view(qtbot)
    graph = global_graph(index, ("note", "concept"))
    _show(view, graph)
    view.set_related(found)
    view.set_related_threshold(HIGH_THRESHOLD)
    assert _drawn(view) == TOPIC_PAIRS  # by hand: each topic's two notes, nothing across
    view.set_related_threshold(0.10)
    wanted = _expected(found, set(graph.ids), 0.10)
    assert len(wanted) > len(TOPIC_PAIRS)  # the faint cross-topic pairs join them
    assert _drawn(view) == wanted
    # Only the bread notes link each other: every other pair shows on its own.
    assert view.status.text().endswith(f"· {len(wanted)} related ({len(wanted) - 1} not linked)")


def test_pairs_with_a_note_outside_the_graph_are_left_out(
    qtbot: QtBot, related: tuple[VaultIndex, RelatedIndex]
) -> None:
    _index, found = related
    view = _view(qtbot)
    ids = ("bread/loaf.md", "bread/starter.md", "chess/blitz.md", "//concept/sourdough")
    edges = np.array([[1, 0], [0, 3], [1, 3]], np.int64)
    graph = GraphData(ids, ("note", "note", "note", "concept"), ids, edges, draw_edges=edges)
    view.set_related(found)  # before the graph: drawn once the graph comes
    view.set_related_threshold(0.10)
    _show(view, graph)
    # Bread and chess share no word; the chess pair and the birds' pairs are not drawn.
    assert _drawn(view) == {("bread/loaf.md", "bread/starter.md")}
    assert _drawn(view) == _expected(found, set(ids), 0.10)


def test_the_toggle_hides_the_layer_and_the_image_cache_draws_it(
    qtbot: QtBot, related: tuple[VaultIndex, RelatedIndex]
) -> None:
    index, found = related
    view = _view(qtbot)
    _show(view, global_graph(index, ("note",)))
    view.set_related(found)
    layer = view.canvas._related_layer
    qtbot.waitUntil(lambda: layer.renders > 0, timeout=3_000)  # cached like the links
    shown: list[bool] = []
    view.related_shown_changed.connect(shown.append)
    view.related_controls.box.setChecked(False)  # as the user clears it
    assert shown == [False]
    assert not view.canvas.related_shown() and not layer.isVisible()
    assert not view.related_controls.slider.isEnabled()
    assert "related" not in view.status.text()
    view.related_controls.box.setChecked(True)
    assert shown == [False, True] and layer.isVisible()


def test_the_slider_and_the_toggle_are_kept_in_the_settings(
    qtbot: QtBot, tmp_path: Path, related: tuple[VaultIndex, RelatedIndex]
) -> None:
    settings = _settings(tmp_path)
    view = _view(qtbot, settings)
    assert view.related_controls.threshold() == 0.15  # DEFAULT_THRESHOLD
    moved: list[float] = []
    view.related_threshold_changed.connect(moved.append)
    view.related_controls.slider.setValue(32)
    view.related_controls.box.setChecked(False)
    assert moved == [0.32]
    settings.sync()
    again = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.related_threshold() == 0.32
    assert again.related_edges_shown() is False
    restored = _view(qtbot, again)
    assert restored.related_controls.threshold() == 0.32
    assert not restored.related_controls.shown()
    assert not restored.canvas.related_shown()
    quiet: list[float] = []
    restored.related_threshold_changed.connect(quiet.append)
    restored.set_related_threshold(0.2)  # another view's change: followed, not echoed
    assert restored.related_controls.threshold() == 0.2 and quiet == []


def test_the_docked_local_graph_draws_the_related_pairs_between_its_notes(
    qtbot: QtBot, related: tuple[VaultIndex, RelatedIndex]
) -> None:
    from librarian_gui.core.graph.local import local_view

    index, found = related
    view = LocalGraphView()
    qtbot.addWidget(view)
    view.resize(300, 300)
    view.show()
    local = local_view(index, "bread/starter.md", 2)
    assert local is not None
    view.show_view(local)
    view.set_related_threshold(0.10)
    view.set_related(found)
    ids = view.canvas.ids
    drawn = {tuple(sorted((ids[a], ids[b]))) for a, b in view.canvas.related_edges.tolist()}
    assert drawn == _expected(found, set(ids), 0.10)
    assert ("bread/loaf.md", "bread/starter.md") in drawn
    view.set_related_shown(False)
    assert not view.canvas.related_shown()


def test_the_window_shares_the_related_notes_and_the_graphs_threshold(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from librarian_gui.ui.window.main_window import MainWindow

    root = tmp_path / "vault"
    write_related_vault(root)
    settings = _settings(tmp_path)
    win = MainWindow(root, settings=settings, use_cache=False, open_note="bread/starter.md")
    qtbot.addWidget(win)
    win.resize(1400, 860)
    with qtbot.waitSignal(win.place_rendered, timeout=20_000):
        win.show()
    assert win.graph_service is not None and win.local_graph_service is not None
    _index, found = build_related(root)
    win.show_related(found)  # before the graph's view is made: handed to it when made
    with qtbot.waitSignal(win.graph_service.graph_ready, timeout=30_000):
        win.show_view("graph-global")
    view = win.graph
    assert view is not None
    assert _drawn(view) == _expected(found, set(view.canvas.ids), 0.15)
    with qtbot.waitSignal(win.local_graph_service.view_ready, timeout=30_000):
        win.show_view("local-graph")
    local = win.local_graph.view
    assert local is not None and local.related.related is found
    view.related_controls.slider.setValue(round(HIGH_THRESHOLD * 100))  # as the user drags it
    assert settings.related_threshold() == HIGH_THRESHOLD
    assert _drawn(view) == TOPIC_PAIRS
    assert local.related.threshold == HIGH_THRESHOLD
    ids = local.canvas.ids
    assert {tuple(sorted((ids[a], ids[b]))) for a, b in local.canvas.related_edges.tolist()} == {
        ("bread/loaf.md", "bread/starter.md")
    }
    pane = win.thin_spots
    qtbot.waitUntil(
        lambda: pane.spots is not None and pane.spots.threshold == HIGH_THRESHOLD, timeout=5_000
    )
    view.related_controls.box.setChecked(False)
    assert not local.canvas.related_shown()
    win.close()


def test_hovering_a_node_keeps_its_related_notes_bright_while_the_layer_shows(
    qtbot: QtBot,
) -> None:
    from PySide6.QtCore import QPointF

    from librarian_gui.ui.graph.canvas import GraphCanvas

    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(400, 400)
    canvas.show()
    positions = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])
    canvas.set_graph(["a", "b", "c", "d"], ["note"] * 4, ["A", "B", "C", "D"], [[0, 1]], positions)
    canvas.set_related_edges(np.array([[2, 0]]))  # a and c: related, not linked
    canvas.scene().sigMouseMoved.emit(canvas.view_box().mapViewToScene(QPointF(0.0, 0.0)))
    assert canvas.dimmed().tolist() == [False, False, False, True]
    canvas.grab()
    assert canvas.labelled()[:3] == ["A", "B", "C"]  # the node, its linked, its related
    canvas.set_related_shown(False)
    assert canvas.dimmed().tolist() == [False, False, True, True]
