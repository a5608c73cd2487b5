"""The concept map benchmark: building and laying out the map of 1,000 concepts over
interconnected-10k, and its frames per second while panning.

Run from the repository: ``QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_concept_map.py``
(``--seconds S`` per measurement, default 3; about a minute and a half).

The dictionary is bench_tagger's: 1,000 concepts × 5 aliases, the corpus's most frequent
phrases, written to a temporary file and given to the index as its dictionary (a concept is
found in the notes linking the notes titled by its aliases). Timed: the map's arrays from the
index (``concept_map``, as the window's job runs it), its force layout, ``show_map`` in the
GUI thread, and frames per second of the ConceptMapView (1,200 × 800, shown) while the camera
moves with ``ViewBox.translateBy`` between event-loop turns, 15 px a frame, as a mouse drag
would; a frame is a completed paint of the canvas's viewport (bench_graph's counter), each
step asking for one with ``repaint()``. Prints a
Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from PySide6.QtWidgets import QApplication  # noqa: E402

from librarian_gui.core.index.index import VaultIndex  # noqa: E402
from librarian_gui.core.insight.concept_map import concept_map, lay_out  # noqa: E402
from librarian_gui.ui.graph.concept_map import ConceptMapView  # noqa: E402
from tests.benchmarks.bench_graph import PaintCounter  # noqa: E402
from tests.benchmarks.bench_tagger import DEFAULT_VAULT, phrase_dictionary  # noqa: E402

FPS_TARGET = 60.0


def pan(app: QApplication, view: ConceptMapView, seconds: float) -> tuple[float, float]:
    """Frames per second and the worst event-loop turn (ms), panning back and forth."""
    canvas = view.canvas
    counter = PaintCounter()
    canvas.viewport().installEventFilter(counter)
    box = canvas.view_box()
    canvas.fit()
    width = box.viewPixelSize()[0]
    for _ in range(5):
        app.processEvents()
    counter.paints = 0
    worst = 0.0
    frame = 0
    start = time.perf_counter()
    while (now := time.perf_counter()) - start < seconds:
        # Back and forth by 150 px, so the map stays on screen however fast the frames come
        # (a long sweep took it off screen, and an empty view draws fast).
        direction = 1 if (frame // 10) % 2 == 0 else -1
        box.translateBy(x=direction * 15 * width)
        canvas.viewport().repaint()
        app.processEvents()
        worst = max(worst, time.perf_counter() - now)
        frame += 1
    return counter.paints / (time.perf_counter() - start), worst * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--concepts", type=int, default=1000)
    parser.add_argument("--aliases", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    root = args.vault.resolve()
    if not root.is_dir():
        print(f"no vault at {root}", file=sys.stderr)
        return 2
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    concepts = phrase_dictionary(root, rels, args.concepts, args.aliases)
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "concepts.json"
        file.write_text(
            json.dumps(
                {c.id: {"aliases": list(c.aliases), "category": c.category} for c in concepts}
            ),
            encoding="utf-8",
        )
        index = VaultIndex.scan(root, dictionary=file)  # warm: the cache of earlier runs
        times = []
        for _ in range(3):
            t = time.perf_counter()
            as_is = concept_map(index)
            times.append(time.perf_counter() - t)
        rows.append(
            (
                "map from the index (arrays, all pairs)",
                f"{min(times) * 1000:.0f} ms",
                f"{len(as_is.ids)} concepts, {len(as_is.edges)} pairs, "
                f"{int(as_is.never_linked.sum())} never linked",
            )
        )
        t = time.perf_counter()
        cmap = lay_out(as_is)
        rows.append(("force layout", f"{(time.perf_counter() - t) * 1000:.0f} ms", "until settled"))
    total = len(rels)
    view = ConceptMapView()
    view.resize(1200, 800)
    view.show()
    t = time.perf_counter()
    view.show_map(cmap)
    app.processEvents()
    rows.append(("show_map (GUI thread)", f"{(time.perf_counter() - t) * 1000:.0f} ms", ""))
    for label, value in (("default threshold (lift ≥ 1)", None), ("threshold 0", 0)):
        if value is not None:
            view.threshold.setValue(value)
        fps, worst = pan(app, view, args.seconds)
        drawn = view.canvas.drawn_edges()
        rows.append(
            (
                f"pan, {label}",
                f"{fps:.0f} frames/s",
                f"{drawn:,} edges drawn, worst turn {worst:.1f} ms (target ≥ {FPS_TARGET:.0f}/s)",
            )
        )
    view.close()
    print(f"\n{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"vault: {root.name}, {total:,} notes; dictionary {args.concepts} × {args.aliases}\n")
    print("| measure | result | notes |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
