"""The graph tab's GUI-thread stall (DESIGN §8: no stall over 50 ms): the window on a copy of
../shared/vaults/interconnected-10k, indexed and resting; then the first Ctrl+G, until the
layout has settled and the edges are drawn. A 5 ms timer records the event loop's lag.

The window prepares the tab while the vault rests (the graph's modules load on a thread, then
the view is made and drawn once, hidden): a second meter covers that idle time, from 1 s
after the index is ready (the panes have filled; bench_gui measures that) to the Ctrl+G.

Run from the repository root (offscreen, about a minute per run):

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_graph_open.py [--repeat 3]

Each run is a fresh process. Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
DEFAULT_VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
STALL_TARGET_MS = 50.0


def one_run(vault: Path, wait_for_modules: bool = True) -> dict[str, float]:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from librarian_gui.services.settings import Settings
    from librarian_gui.ui.window.main_window import MainWindow
    from tests.benchmarks.bench_gui import LagMeter, spin

    app = QApplication.instance() or QApplication(sys.argv[:1])
    work = Path(tempfile.mkdtemp(prefix="librarian-bench-graph-open-"))
    try:
        copy = work / "vault"
        shutil.copytree(vault, copy)
        settings = Settings(QSettings(str(work / "s.ini"), QSettings.Format.IniFormat))
        window = MainWindow(copy, settings=settings, use_cache=False)
        window.resize(1400, 860)
        window.show()
        assert window.model is not None
        ready: list[bool] = []
        window.model.index_ready.connect(lambda _i: ready.append(True))
        spin(app, lambda: bool(ready), 120)
        spin(app, lambda: False, 1.0)  # the panes fill (bench_gui's part)
        idle = LagMeter()
        idle.start()
        spin(app, lambda: False, 3.0)  # the vault at rest
        waited = time.perf_counter()
        if wait_for_modules:
            # The window loads the graph's modules on a thread once the vault has been
            # quiet 3 s, then makes the view hidden; a Ctrl+G while the modules load waits
            # for them (see --no-wait).
            from librarian_gui.ui.window.graph_tab import graph_modules_loaded

            spin(app, graph_modules_loaded.is_set, 60)
            spin(app, lambda: window.graph is not None, 5)
            spin(app, lambda: False, 0.3)  # its hidden first paint
        waited = time.perf_counter() - waited
        idle.stop()
        lag = LagMeter()
        lag.start()
        started = time.perf_counter()
        window.show_view("graph-global")
        # While the modules still load (--no-wait), the tab says so and the view comes after.
        spin(app, lambda: window.graph is not None, 60)
        assert window.graph_service is not None and window.graph is not None
        settled: list[float] = []
        window.graph_service.positions_ready.connect(
            lambda _p, done, _r: settled.append(time.perf_counter() - started) if done else None
        )
        spin(app, lambda: bool(settled), 60)
        canvas = window.graph.canvas
        spin(app, canvas._edge_layer.is_current, 10)  # the settled edges drawn
        drawn = time.perf_counter() - started
        lag.stop()
        window.close()
        return {
            "settled_s": settled[0] if settled else float("nan"),
            "drawn_s": drawn,
            "worst_lag_ms": lag.worst * 1000,
            "lags_over_50ms": float(sum(1 for s in lag.samples if s > 0.05)),
            "ticks": float(len(lag.samples)),
            "waited_s": waited,
            "idle_worst_lag_ms": idle.worst * 1000,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="press Ctrl+G 4 s after indexing even if the graph's modules are still loading",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_run(args.vault, wait_for_modules=not args.no_wait)))
        return
    runs = []
    for i in range(args.repeat):
        print(f"run {i + 1}/{args.repeat} …", file=sys.stderr)
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                "--vault",
                str(args.vault),
                *(["--no-wait"] if args.no_wait else []),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    worst = [r["worst_lag_ms"] for r in runs]
    when = "4 s after indexing" if args.no_wait else "once the graph's modules had loaded"
    waits = ", ".join(f"{r['waited_s']:.1f}" for r in runs)
    print(
        f"\nGraph tab opened on {args.vault.name}, {len(runs)} fresh processes, {when}"
        f" (waited {waits} s more):\n"
    )
    print("| measure | median | runs | target | met? |")
    print("|---|---:|---|---|---|")
    print(
        f"| worst GUI-thread lag, first Ctrl+G → settled and drawn | "
        f"{statistics.median(worst):.0f} ms | {', '.join(f'{w:.0f}' for w in worst)} | "
        f"≤ {STALL_TARGET_MS:.0f} ms | {'yes' if max(worst) <= STALL_TARGET_MS else '**NO**'} |"
    )
    idle = [r["idle_worst_lag_ms"] for r in runs]
    print(
        f"| worst GUI-thread lag, idle before it (modules load, the view made hidden) | "
        f"{statistics.median(idle):.0f} ms | {', '.join(f'{w:.0f}' for w in idle)} | "
        f"≤ {STALL_TARGET_MS:.0f} ms | {'yes' if max(idle) <= STALL_TARGET_MS else '**NO**'} |"
    )
    over = [r["lags_over_50ms"] for r in runs]
    print(
        f"| lags over 50 ms | {statistics.median(over):.0f} | "
        f"{', '.join(f'{o:.0f}' for o in over)} | 0 | {'yes' if max(over) == 0 else '**NO**'} |"
    )
    for key, name in (("settled_s", "layout settled"), ("drawn_s", "edges drawn")):
        values = [r[key] for r in runs]
        print(
            f"| {name} after Ctrl+G | {statistics.median(values):.1f} s | "
            f"{', '.join(f'{v:.1f}' for v in values)} | — | — |"
        )


if __name__ == "__main__":
    main()
