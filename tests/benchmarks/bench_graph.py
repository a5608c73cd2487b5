"""The graph canvas benchmark: frames per second of a shown window while panning, zooming
and animating, the worst frame, and layout steps per second while the canvas draws.

Run from the repository: ``QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_graph.py``
(``--seconds S`` per measurement, default 3). Graphs: a generated one of 20,000 nodes and
99,985 edges (bench_layout's preferential attachment), ../shared/vaults/interconnected-10k
as the graph view shows it (with its unresolved targets, and notes only), and a generated
2,000-node graph for the animation. Label placement: the time each frame of the pans spent
choosing which nodes to name (``labels.place_labels``), median and worst, with the names
drawn at the whole-graph zoom. ``--related``: the vault's graphs again with the RELATED_TO
layer on (the related notes built as the app builds them; every pair at threshold 0, and
those at the default threshold), beside the rows without it. Each is laid out until
settled first (positions are kept in the system's temporary folder for the next run). A
frame is a completed paint of the canvas's viewport, counted by an event filter; the camera
moves with ``ViewBox.translateBy`` and ``scaleBy`` between event-loop turns, as a mouse
drag or the wheel would. Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from librarian_gui.core.graph.layout import Layout  # noqa: E402
from librarian_gui.ui.graph.canvas import GraphCanvas  # noqa: E402
from tests.benchmarks.bench_layout import preferential_attachment  # noqa: E402

VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
CACHE = Path(tempfile.gettempdir()) / "librarian-bench-graph"
FPS_TARGET = 30.0
STALL_TARGET_MS = 50.0
LABEL_TARGET_MS = 8.0
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Graph = tuple[list[str], list[str], list[str], IntArray]  # ids, kinds, labels, edges


class PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def generated(n: int) -> Graph:
    g = preferential_attachment(n)
    ids = list(g.ids)
    return ids, ["note"] * n, ids, np.asarray(g.edges, np.int64)


def vault(kinds: tuple[str, ...] | None) -> Graph:
    from librarian_gui.core.graph.graphdata import global_graph
    from librarian_gui.core.index.index import VaultIndex

    data = global_graph(VaultIndex.scan(VAULT), kinds)
    return list(data.ids), list(data.kinds), list(data.labels), np.asarray(data.edges)


def settled(graph: Graph) -> FloatArray:
    ids, _kinds, _labels, edges = graph
    key = hashlib.sha1(("\n".join(ids) + edges.tobytes().hex()).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npy"
    if path.exists():
        return np.load(path)
    layout = Layout(seed=1)
    layout.set_graph(ids, edges)
    while not layout.settled and layout_steps(layout) < 1000:
        layout.step()
    CACHE.mkdir(exist_ok=True)
    np.save(path, layout.positions)
    return np.array(layout.positions)


def layout_steps(layout: Layout, _count: list[int] = [0]) -> int:  # noqa: B006
    _count[0] += 1
    return _count[0]


class Bench:
    def __init__(self, app: QApplication, seconds: float) -> None:
        self.app = app
        self.seconds = seconds
        self.canvas = GraphCanvas()
        self.canvas.resize(1200, 800)
        self.canvas.show()
        self.counter = PaintCounter()
        self.canvas.viewport().installEventFilter(self.counter)
        self.view = self.canvas.view_box()

    def show(self, graph: Graph, positions: FloatArray) -> None:
        self.canvas.set_graph(*graph, positions)
        self.rest()

    def rest(self) -> None:
        """Until the edge images of the resting view are drawn (the related layer's too,
        when it has edges)."""
        canvas = self.canvas
        deadline = time.perf_counter() + 10

        def current() -> bool:
            related = canvas._related_layer
            return canvas._edge_layer.is_current() and (
                not len(canvas.related_edges) or related.is_current()
            )

        while not current() and time.perf_counter() < deadline:
            self.app.processEvents()
            time.sleep(0.005)

    def run(self, step: Callable[[int], None]) -> tuple[float, float]:
        """Frames per second and the worst event-loop turn (ms) while ``step`` runs."""
        self.rest()
        self.counter.paints = 0
        worst = 0.0
        frame = 0
        start = time.perf_counter()
        while (now := time.perf_counter()) - start < self.seconds:
            step(frame)
            self.app.processEvents()
            worst = max(worst, time.perf_counter() - now)
            frame += 1
        return self.counter.paints / (time.perf_counter() - start), worst * 1000

    def pan(self) -> tuple[float, float]:
        width = self.view.viewPixelSize()[0]

        def step(frame: int) -> None:  # back and forth over a view's width, 15 px a frame
            direction = 1 if (frame // 80) % 2 == 0 else -1
            self.view.translateBy(x=direction * 15 * width)

        self.canvas.fit()
        return self.run(step)

    def zoom(self) -> tuple[float, float]:
        def step(frame: int) -> None:  # in 4x and out again, around the centre
            factor = 1 / 1.035 if (frame // 40) % 2 == 0 else 1.035
            self.view.scaleBy((factor, factor))

        self.canvas.fit()
        return self.run(step)


def animation(bench: Bench, graph: Graph) -> tuple[float, float]:
    """A 2,000-node layout from scratch; every frame shows the next step's positions."""
    layout = Layout(seed=1)
    layout.set_graph(graph[0], graph[3])
    frames = []
    for _ in range(120):
        layout.step()
        frames.append(np.array(layout.positions))
    bench.show(graph, frames[-1])
    bench.canvas.fit()
    return bench.run(lambda frame: bench.canvas.set_positions(frames[frame % len(frames)]))


def live_layout(
    bench: Bench, graph: Graph, positions: FloatArray, related: IntArray | None = None
) -> tuple[float, float, float]:
    """The layout steps on a thread (reheated), the canvas takes its positions at most 30
    times a second, as the graph session sends them, and the camera pans meanwhile: every
    frame draws the edges live (a budget of them), the ``related`` pairs' layer too."""
    layout = Layout(seed=1)
    layout.set_graph(
        graph[0], graph[3], positions=dict(zip(graph[0], map(tuple, positions), strict=True))
    )
    bench.show(graph, positions)
    if related is not None:
        bench.canvas.set_related_edges(related)
    stop = threading.Event()
    latest: list[FloatArray] = [positions]
    steps = [0]

    def work() -> None:
        layout.reheat(0.3)
        while not stop.is_set():
            layout.step()
            latest[0] = layout.positions
            steps[0] += 1
            time.sleep(0)

    thread = threading.Thread(target=work)
    width = bench.view.viewPixelSize()[0]
    sent = [0.0]

    def step(frame: int) -> None:
        now = time.perf_counter()
        if now - sent[0] >= 1 / 30:
            sent[0] = now
            bench.canvas.set_positions(latest[0])
        bench.view.translateBy(x=(1 if (frame // 80) % 2 == 0 else -1) * 5 * width)

    started = time.perf_counter()
    thread.start()
    fps, worst = bench.run(step)
    stop.set()
    thread.join()
    return fps, worst, steps[0] / (time.perf_counter() - started)


def related_pairs() -> object:
    """The vault's RelatedIndex, built as the app builds it (from the notes' text)."""
    from librarian_gui.core.index.index import VaultIndex
    from librarian_gui.core.related.vault import related_index
    from librarian_gui.core.vault.files import read_note

    started = time.perf_counter()
    found = related_index(VaultIndex.scan(VAULT), lambda rel: read_note(VAULT, rel).text)
    print(f"related notes built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument(
        "--related", action="store_true", help="the vault's graphs with RELATED_TO edges too"
    )
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication([])
    bench = Bench(app, args.seconds)
    rows: list[str] = []
    label_rows: list[str] = []

    def row(name: str, nodes: int, edges: int, fps: float, worst: float, extra: str = "") -> None:
        ok = "yes" if fps >= FPS_TARGET and worst <= STALL_TARGET_MS else "no"
        rows.append(
            f"| {name} | {nodes:,} | {edges:,} | {fps:.1f} | {worst:.0f} | {extra} | {ok} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)

    graphs = [
        ("generated 20k", generated(20_000)),
        ("interconnected-10k, with unresolved", vault(None)),
        ("interconnected-10k, notes only", vault(("note",))),
    ]
    related = None
    for name, graph in graphs:
        positions = settled(graph)
        bench.show(graph, positions)
        nodes, edges = len(graph[0]), len(graph[3])
        bench.canvas._labels.place_seconds.clear()
        row(f"{name}: pan", nodes, edges, *bench.pan())
        times = np.array(bench.canvas.label_place_seconds()) * 1000
        if len(times):
            bench.canvas.fit()
            bench.canvas.grab()
            named = len(bench.canvas.labelled())
            median, p95 = float(np.median(times)), float(np.percentile(times, 95))
            ok = "yes" if p95 <= LABEL_TARGET_MS else "no"
            label_rows.append(
                f"| {name}: label placement per frame | {nodes:,} | {len(times)} | "
                f"{median:.2f} | {p95:.2f} | {float(times.max()):.2f} | {named} | {ok} |"
            )
            print(label_rows[-1], file=sys.stderr, flush=True)
        row(f"{name}: zoom", nodes, edges, *bench.zoom())
        if args.related and name.startswith("interconnected"):
            from librarian_gui.core.related.vault import DEFAULT_THRESHOLD
            from librarian_gui.ui.graph.related import RelatedArrays, RelatedRows

            if related is None:
                related = related_pairs()
            arrays = RelatedArrays(related)  # type: ignore[arg-type]
            pairs = RelatedRows(arrays, {n: i for i, n in enumerate(graph[0])})
            for threshold in (0.0, DEFAULT_THRESHOLD):
                shown = pairs.at(threshold)
                bench.canvas.set_related_edges(shown)
                bench.rest()
                extra = f"+ {len(shown):,} related (≥ {threshold:g})"
                row(f"{name}: pan, related on", nodes, edges, *bench.pan(), extra)
                row(f"{name}: zoom, related on", nodes, edges, *bench.zoom(), extra)
            # Every frame drawn live (the positions move): the layer's budget is what costs.
            fps, worst, rate = live_layout(bench, graph, positions)
            row(f"{name}: layout running, panning", nodes, edges, fps, worst, f"{rate:.1f} steps/s")
            fps, worst, rate = live_layout(bench, graph, positions, pairs.at(0.0))
            extra = f"{rate:.1f} steps/s, + {len(pairs.at(0.0)):,} related"
            row(f"{name}: layout running, panning, related on", nodes, edges, fps, worst, extra)
            bench.show(graph, positions)  # the layer off again
        if name.startswith("generated"):
            fps, worst, rate = live_layout(bench, graph, positions)
            row(f"{name}: layout running, panning", nodes, edges, fps, worst, f"{rate:.1f} steps/s")
    small = generated(2_000)
    row("generated 2k: full animation", 2_000, len(small[3]), *animation(bench, small))
    print(
        f"\nGraph canvas, {os.cpu_count()} cores, 1200×800 offscreen, {args.seconds:g} s each "
        f"(targets: ≥ {FPS_TARGET:g} frames/s, worst frame ≤ {STALL_TARGET_MS:g} ms)\n"
    )
    print("| run | nodes | edges | frames/s | worst frame (ms) | layout | target met |")
    print("|---|---:|---:|---:|---:|---|---|")
    print("\n".join(rows))
    print(f"\nLabel placement (target: ≤ {LABEL_TARGET_MS:g} ms per frame)\n")
    print(
        "| run | nodes | frames | median (ms) | p95 (ms) | worst (ms) | names at fit "
        "| target met (p95) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(label_rows))


if __name__ == "__main__":
    main()
