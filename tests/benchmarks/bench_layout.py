"""The layout benchmark: step rate and time to settle of the graph view's force layout.

Run from the repository: ``python tests/benchmarks/bench_layout.py`` (``--quick`` for the
generated graph only). Two graphs: a generated one of 20,000 nodes and 99,985 edges
(preferential attachment with a fixed seed: nodes 0-4 form a clique, each later node links
to 5 distinct earlier nodes picked in proportion to their degree, as in Barabási–Albert),
and ../shared/vaults/interconnected-10k as the index sees it (notes and unresolved
targets). Each is laid out from scratch until DESIGN's settle rule holds, then again from
the settled positions as a reopened vault would (every node cached, one small reheat).
Prints a Markdown table; asserts nothing.

``--repulsion`` adds how the repulsion was chosen: on the settled vault layout, the exact
O(N²) sum (about 20 s) against the mesh split the layout uses, a Barnes–Hut quadtree in
numpy (d3's method, vectorised level by level) and a k-d tree cutoff without a far field.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.graph.forces import Repulsion, direct_repulsion  # noqa: E402
from librarian_gui.core.graph.layout import Layout  # noqa: E402

VAULT = REPO.parent / "shared" / "vaults" / "interconnected-10k"
MAX_STEPS = 1000  # a layout that has not settled by then is reported as not settled
STEPS_PER_S = 10.0  # DESIGN §8 / issue 4: at 20,000 nodes / 100,000 edges
SETTLE_S = 15.0


@dataclass(frozen=True, slots=True)
class Graph:
    label: str
    ids: tuple[str, ...]
    edges: npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class Run:
    graph: str
    start: str
    nodes: int
    edges: int
    prepare_s: float  # set_graph: placing the nodes without a position
    step_s: list[float]
    settled_at: int | None  # steps taken when the settle rule first held

    @property
    def settle_s(self) -> float | None:
        if self.settled_at is None:
            return None
        return self.prepare_s + sum(self.step_s[: self.settled_at])


def preferential_attachment(n: int = 20_000, m: int = 5, seed: int = 4) -> Graph:
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(m) for j in range(i)]
    ends = [node for pair in pairs for node in pair]  # each node once per link it has
    for node in range(m, n):
        targets: set[int] = set()
        while len(targets) < m:
            targets.add(ends[int(rng.integers(len(ends)))])
        for target in sorted(targets):
            pairs.append((node, target))
            ends += (node, target)
    ids = tuple(f"n{i}" for i in range(n))
    return Graph(f"generated, preferential attachment ({n:,} nodes)", ids, np.array(pairs, np.intp))


def vault_graph(root: Path) -> Graph:
    from librarian_gui.core.index.index import VaultIndex

    index = VaultIndex.scan(root)
    index.wait_saved()
    nodes = sorted(set(index.notes) | set(index.in_edges) | set(index.out_edges))
    row = {node: i for i, node in enumerate(nodes)}
    pairs = [
        (row[source], row[target])
        for source, targets in index.out_edges.items()
        for target in targets
    ]
    return Graph(f"vault {root.name}", tuple(nodes), np.array(pairs, np.intp))


def lay_out(
    graph: Graph, start: str, cached: dict[str, tuple[float, float]] | None
) -> tuple[Run, Layout]:
    """Steps until the settle rule holds, as the view's worker thread would."""
    layout = Layout(seed=1)
    t0 = time.perf_counter()
    layout.set_graph(graph.ids, graph.edges, positions=cached)
    prepare = time.perf_counter() - t0
    times: list[float] = []
    settled_at = None
    while len(times) < MAX_STEPS:
        t0 = time.perf_counter()
        layout.step()
        times.append(time.perf_counter() - t0)
        if layout.settled:
            settled_at = len(times)
            break
    run = Run(graph.label, start, len(graph.ids), len(graph.edges), prepare, times, settled_at)
    return run, layout


def both_starts(graph: Graph) -> tuple[list[Run], npt.NDArray[np.float64]]:
    """Runs from scratch and from the settled positions; and those positions."""
    fresh, layout = lay_out(graph, "fresh", None)
    saved = {
        node: (float(x), float(y))
        for node, (x, y) in zip(layout.ids, layout.positions.tolist(), strict=True)
    }
    return [fresh, lay_out(graph, "cached", saved)[0]], layout.positions


# ------------------------------------------------------------------ the repulsion's choice

FloatArray = npt.NDArray[np.float64]


def _morton(q: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    v = q & np.uint64(0xFFFF)
    for shift, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def barnes_hut(pos: FloatArray, theta: float = 0.9, depth: int = 16) -> FloatArray:
    """Monopole Barnes–Hut, every node's walk advanced one tree level at a time."""
    n = len(pos)
    lo = pos.min(axis=0)
    span = float((pos.max(axis=0) - lo).max()) * (1 + 1e-9) + 1e-12
    q = ((pos - lo) / span * (1 << depth)).astype(np.uint64)
    code = _morton(q[:, 0]) | (_morton(q[:, 1]) << np.uint64(1))
    order = np.argsort(code, kind="stable")
    code, p = code[order], pos[order]
    levels = []
    for level in range(depth + 1):
        key, start, count = np.unique(
            code >> np.uint64(2 * (depth - level)), return_index=True, return_counts=True
        )
        centre = np.add.reduceat(p, start, axis=0) / count[:, None]
        levels.append((key, count, centre, span / (1 << level)))
    force = np.zeros_like(p)
    walker, cell = np.arange(n), np.zeros(n, dtype=np.intp)
    for level, (key, count, centre, size) in enumerate(levels):
        d = p[walker] - centre[cell]
        r2 = np.einsum("ij,ij->i", d, d)
        take = (size * size < theta * theta * r2) | (count[cell] == 1) | (level == depth)
        w = count[cell][take] / (r2[take] + 1.0)
        for axis in (0, 1):
            force[:, axis] += np.bincount(walker[take], d[take, axis] * w, minlength=n)
        if level == depth or take.all():
            break
        parent = key[cell[~take]] << np.uint64(2)
        below = levels[level + 1][0]
        first = np.searchsorted(below, parent)
        children = np.searchsorted(below, parent + np.uint64(4)) - first
        walker = np.repeat(walker[~take], children)
        offset = np.arange(children.sum()) - np.repeat(np.cumsum(children) - children, children)
        cell = np.repeat(first, children) + offset
    out = np.empty_like(force)
    out[order] = force
    return out


def cutoff_only(pos: FloatArray, radius: float) -> FloatArray:
    from scipy.spatial import cKDTree

    pairs = cKDTree(pos).query_pairs(radius, output_type="ndarray")
    a, b = pairs[:, 0], pairs[:, 1]
    d = pos[a] - pos[b]
    w = 1.0 / (np.einsum("ij,ij->i", d, d) + 1.0)
    out = np.zeros_like(pos)
    for axis in (0, 1):
        out[:, axis] = np.bincount(a, d[:, axis] * w, minlength=len(pos)) - np.bincount(
            b, d[:, axis] * w, minlength=len(pos)
        )
    return out


def repulsion_table(pos: FloatArray) -> str:
    def timed(fn: Callable[[], FloatArray], warm: bool = True) -> tuple[float, FloatArray]:
        if warm:
            fn()  # the first call builds the mesh kernels
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out

    exact_s, exact = timed(lambda: direct_repulsion(pos), warm=False)
    rows = [("exact, every pair", exact_s, exact)]
    mesh = Repulsion()
    seconds, force = timed(lambda: mesh(pos))
    rows.append((f"mesh + k-d tree split (chosen; {mesh.last_pairs:,} pairs)", seconds, force))
    for theta in (0.9, 1.2):
        seconds, force = timed(lambda theta=theta: barnes_hut(pos, theta))
        rows.append((f"Barnes–Hut in numpy, theta {theta}", seconds, force))
    seconds, force = timed(lambda: cutoff_only(pos, 40.0))
    rows.append(("k-d tree, pairs within 40 only", seconds, force))
    lines = [
        f"\nRepulsion alone on the settled vault layout ({len(pos):,} nodes):\n",
        "| method | ms per evaluation | relative error (RMS over nodes) |",
        "|---|---:|---:|",
    ]
    for label, seconds, force in rows:
        error = np.linalg.norm(force - exact) / np.linalg.norm(exact)
        lines.append(f"| {label} | {seconds * 1000:,.0f} | {error:.2%} |")
    return "\n".join(lines)


def table(runs: list[Run]) -> str:
    lines = [
        "| graph | start | nodes | edges | steps/s (median) | slowest step | "
        "steps to settle | time to settle | targets met |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        rate = 1 / statistics.median(run.step_s)
        settle = run.settle_s
        met = "—"
        if run.nodes >= 20_000 and run.start == "fresh":
            ok = rate >= STEPS_PER_S and settle is not None and settle <= SETTLE_S
            met = "yes" if ok else "no"
        lines.append(
            f"| {run.graph} | {run.start} | {run.nodes:,} | {run.edges:,} | {rate:.1f} | "
            f"{max(run.step_s) * 1000:.0f} ms | "
            f"{run.settled_at if run.settled_at is not None else f'> {MAX_STEPS}'} | "
            f"{f'{settle:.1f} s' if settle is not None else '—'} |"
            f" {met} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the generated graph only")
    parser.add_argument(
        "--repulsion", action="store_true", help="also compare ways to compute the repulsion"
    )
    args = parser.parse_args()
    runs, _ = both_starts(preferential_attachment())
    settled = None
    if not args.quick:
        if VAULT.is_dir():
            vault_runs, settled = both_starts(vault_graph(VAULT))
            runs += vault_runs
        else:
            print(f"(skipped: {VAULT} is not here)")
    print(
        f"Layout benchmark, {platform.python_implementation()} {platform.python_version()}, "
        f"numpy {np.__version__}, {os.cpu_count()} cores; targets at 20,000 nodes: "
        f"≥ {STEPS_PER_S:.0f} steps/s, settled ≤ {SETTLE_S:.0f} s (time to settle "
        "includes placing the nodes)\n"
    )
    print(table(runs))
    if args.repulsion and settled is not None:
        print(repulsion_table(np.asarray(settled)))


if __name__ == "__main__":
    main()
