"""The graph layout: its forces against hand-derived equilibria, its incremental changes,
its approximation of the repulsion, and its position cache."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from librarian_gui.core.graph.forces import Repulsion
from librarian_gui.core.graph.layout import (
    Forces,
    Layout,
    layout_file,
    load_positions,
    save_positions,
)

TRIANGLES = [[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]]


def settle(layout: Layout, limit: int = 1000) -> int:
    steps = 0
    while not layout.settled and steps < limit:
        layout.step()
        steps += 1
    assert layout.settled, f"not settled after {limit} steps"
    return steps


def distances(xy: np.ndarray) -> np.ndarray:
    return np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=2))


def chain(n: int) -> tuple[list[str], list[list[int]]]:
    return [f"n{i}" for i in range(n)], [[i, i + 1] for i in range(n - 1)]


def bisect(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The root of f between lo and hi, where f changes sign."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f(hi) > 0):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


# ------------------------------------------------------------------ determinism


def test_same_graph_and_seed_give_identical_positions_bit_for_bit() -> None:
    ids, edges = chain(400)  # over 256 nodes: the mesh and k-d tree path
    runs = []
    for _ in range(2):
        layout = Layout(seed=7)
        layout.set_graph(ids, edges)
        layout.step(40)
        layout.add_nodes(["x"], {"x": ["n5", "n77"]})
        layout.step(10)
        runs.append(layout.positions.copy())
    assert runs[0].tobytes() == runs[1].tobytes()
    other = Layout(seed=8)
    other.set_graph(ids, edges)
    other.step(40)
    assert not np.array_equal(other.positions, runs[0][:400])


# ------------------------------------------------------------------ equilibria


def test_two_linked_nodes_settle_at_the_hand_derived_distance() -> None:
    # No centring. Both ends have degree 1, so d3's link strength is 1/min(1, 1) = 1, and
    # each end takes half the correction: a pull of 0.5 * (l - 30) * alpha. The repulsion
    # pushes each with 30 * l / (l^2 + 1) * alpha. They balance where
    # 0.5 * (l - 30) = 30 * l / (l^2 + 1): l* = 31.8802 (about 30 + 60 / l*).
    layout = Layout(seed=3, forces=Forces(centre=0.0))
    layout.set_graph(["a", "b"], [[0, 1]])
    settle(layout)
    root = bisect(lambda d: 0.5 * (d - 30) - 30 * d / (d * d + 1), 30.0, 40.0)
    assert root == pytest.approx(31.8802, abs=1e-4)
    # Settled means each step moved a node less than 0.5% of the 31.9-wide box, 0.16, and
    # the velocity shrinks by 0.6 a step: the last steps add up to less than 0.4.
    gap = math.dist(layout.position("a"), layout.position("b"))
    assert gap == pytest.approx(root, abs=0.4)
    layout.step(300)  # alpha is down to 0.001: at rest
    gap = math.dist(layout.position("a"), layout.position("b"))
    assert gap == pytest.approx(root, abs=1e-3)


def test_disconnected_triangles_separate() -> None:
    # Within a triangle each link has strength 1/2, half of it on each end; the two links
    # pull a corner towards the middle with 2 * 0.25 * (l - 30) * cos 30°, the two other
    # corners push it out with 2 * 30 / l * cos 30°: l^2 - 30 l - 120 = 0, l = 33.57. The
    # centring pulls each corner by 0.01 times its ~50 from the middle, 0.5, against a link
    # stiffness of 0.43 per unit: sides are off by up to ~1.2. Between the triangles only
    # repulsion acts (and that weak centring), so they keep well apart.
    side = (30 + math.sqrt(900 + 480)) / 2
    for seed in range(4):
        layout = Layout(seed=seed)
        layout.set_graph(list("abcdef"), TRIANGLES)
        settle(layout)
        d = distances(layout.positions)
        upper = np.triu_indices(3, 1)
        inside = np.concatenate([d[:3, :3][upper], d[3:, 3:][upper]])
        assert inside == pytest.approx(np.full(6, side), abs=1.5)
        assert d[:3, 3:].min() > 1.5 * inside.max()


def test_a_chain_stretches_to_about_its_links() -> None:
    ids, edges = chain(30)
    layout = Layout(seed=1)
    layout.set_graph(ids, edges)
    settle(layout)
    xy = layout.positions
    links = np.sqrt(((xy[1:] - xy[:-1]) ** 2).sum(axis=1))
    # Interior nodes have degree 2: strength 1/2. Rest length 30, plus the push of the
    # nodes further along the chain: every link is between 30 and 45.
    assert links.min() > 30
    assert links.max() < 45


# ------------------------------------------------------------------ changes


def test_a_pinned_node_stays_exactly_put() -> None:
    ids, edges = chain(20)
    layout = Layout(seed=2)
    layout.set_graph(ids, edges)
    layout.step(5)
    layout.pin("n10", (123.25, -7.5))
    before = layout.positions.copy()
    layout.step(100)
    assert layout.position("n10") == (123.25, -7.5)
    assert layout.is_pinned("n10")
    moved = np.sqrt(((layout.positions - before) ** 2).sum(axis=1))
    assert moved[layout.row("n11")] > 1  # its neighbours were pulled towards it
    layout.unpin("n10")
    layout.step(5)
    assert layout.position("n10") != (123.25, -7.5)


def test_an_added_node_starts_near_its_neighbour_and_nothing_else_moves() -> None:
    ids, edges = chain(10)
    layout = Layout(seed=5)
    layout.set_graph(ids, edges)
    settle(layout)
    before = layout.positions.copy()
    layout.add_nodes(["new"], {"new": ["n9"]})
    assert layout.ids == (*ids, "new")
    assert np.array_equal(layout.positions[:10], before)
    # It lands in a disc of radius 0.5 * 30 around n9, moved 0.5 * 30 further out from
    # the layout's centre: at most one link distance from n9.
    assert math.dist(layout.position("new"), layout.position("n9")) <= 30
    assert layout.position("new") != (0.0, 0.0)
    assert 0.1 <= layout.alpha < 0.2  # a small reheat: 0.1 plus 1/11 of the nodes new
    assert not layout.settled
    assert layout.edges.tolist()[-1] == [10, 9]


def test_many_new_leaves_of_one_node_spread_out_around_it() -> None:
    layout = Layout(seed=1)
    layout.set_graph(["hub"], np.zeros((0, 2), np.intp))
    leaves = [f"leaf{i}" for i in range(400)]
    layout.add_nodes(leaves, dict.fromkeys(leaves, ("hub",)))
    xy = layout.positions[1:]
    hub = np.array(layout.position("hub"))
    reach = np.sqrt(((xy - hub) ** 2).sum(axis=1))
    # 400 share a disc of radius 0.5 * 30 * sqrt(400) = 300 around the hub (which is the
    # centre, so the disc is not moved outwards)
    assert reach.max() <= 300
    assert reach.max() > 250  # ... and fill it, rather than heap up on the hub
    assert (distances(xy) + np.eye(400)).min() > 0


def test_removing_nodes_leaves_the_others_where_they_were() -> None:
    ids, edges = chain(300)
    layout = Layout(seed=4)
    layout.set_graph(ids, edges)
    layout.step(20)
    before = dict(zip(layout.ids, layout.positions.tolist(), strict=True))
    layout.remove_nodes(["n0", "n150", "missing"])
    assert len(layout.ids) == 298
    assert "n150" not in layout.ids
    after = dict(zip(layout.ids, layout.positions.tolist(), strict=True))
    assert after == {node: xy for node, xy in before.items() if node not in ("n0", "n150")}
    # Their links went with them: n0-n1, n149-n150 and n150-n151
    linked = {(layout.ids[a], layout.ids[b]) for a, b in layout.edges.tolist()}
    assert linked == {(f"n{i}", f"n{i + 1}") for i in range(299) if i not in (0, 149, 150)}
    layout.step(3)
    assert np.isfinite(layout.positions).all()


def test_new_edges_move_nothing_until_the_next_step() -> None:
    ids, edges = chain(12)
    layout = Layout(seed=1)
    layout.set_graph(ids, edges)
    settle(layout)
    before = layout.positions.copy()
    ends = math.dist(layout.position("n0"), layout.position("n11"))
    layout.set_edges([[0, 11], *edges])  # close the chain into a ring
    assert np.array_equal(layout.positions, before)
    assert layout.alpha == pytest.approx(0.1)
    layout.step(200)
    # A small reheat: the ends draw together, without the whole ring being rebuilt
    assert math.dist(layout.position("n0"), layout.position("n11")) < ends / 2


def test_set_graph_keeps_known_nodes_and_places_new_ones() -> None:
    layout = Layout(seed=1)
    layout.set_graph(["a", "b", "c"], [[0, 1], [1, 2]])
    layout.step(30)
    a, b = layout.position("a"), layout.position("b")
    layout.set_graph(["b", "d", "a"], [[0, 2], [1, 0]])
    assert layout.position("a") == a
    assert layout.position("b") == b
    assert math.dist(layout.position("d"), b) <= 30


def test_forces_change_from_the_next_step() -> None:
    layout = Layout(seed=3, forces=Forces(centre=0.0))
    layout.set_graph(["a", "b"], [[0, 1]])
    settle(layout)
    layout.set_forces(link_distance=60.0)
    assert layout.forces == Forces(30.0, 1.0, 60.0, 0.0)
    layout.reheat(1.0)  # a full run, so that it comes to rest as in the test above
    layout.step(300)
    root = bisect(lambda d: 0.5 * (d - 60) - 30 * d / (d * d + 1), 60.0, 70.0)
    assert math.dist(layout.position("a"), layout.position("b")) == pytest.approx(root, abs=1e-3)
    with pytest.raises(ValueError):
        layout.set_forces(repel=-1.0)


def test_settle_rule_measures_the_largest_step_against_the_box() -> None:
    ids, edges = chain(40)
    layout = Layout(seed=9)
    layout.set_graph(ids, edges)
    assert layout.max_step_fraction() == math.inf
    layout.step(3)
    before = layout.positions.copy()
    layout.step()
    after = layout.positions
    largest = np.sqrt(((after - before) ** 2).sum(axis=1)).max()
    x0, y0, x1, y1 = layout.bounds()
    assert (x0, y0) == tuple(after.min(axis=0))
    assert (x1, y1) == tuple(after.max(axis=0))
    assert layout.max_step_fraction() == pytest.approx(largest / math.hypot(x1 - x0, y1 - y0))


def test_positions_are_read_only_and_never_rewritten() -> None:
    ids, edges = chain(5)
    layout = Layout(seed=1)
    layout.set_graph(ids, edges)
    handed_out = layout.positions
    copy = handed_out.copy()
    with pytest.raises(ValueError):
        handed_out[0, 0] = 1.0
    layout.step(5)
    layout.pin("n0", (1.0, 2.0))
    assert np.array_equal(handed_out, copy)


def test_bad_input_is_refused() -> None:
    layout = Layout()
    with pytest.raises(ValueError):
        layout.set_graph(["a", "a"], [])
    with pytest.raises(ValueError):
        layout.set_graph(["a", "b"], [[0, 2]])
    with pytest.raises(ValueError):
        layout.set_graph(["a", "b"], [[0, 1]], weights=[1.0, 2.0])
    layout.set_graph(["a"], [])
    with pytest.raises(ValueError):
        layout.pin("a", (math.nan, 0.0))


def test_empty_and_single_node_layouts() -> None:
    layout = Layout()
    layout.step(3)
    assert layout.bounds() == (0.0, 0.0, 0.0, 0.0)
    layout.set_graph(["only"], [])
    settle(layout)
    assert layout.position("only") == (0.0, 0.0)


# ------------------------------------------------------------------ the repulsion


def exact_repulsion(xy: np.ndarray) -> np.ndarray:
    """Every pair: the force on i is the sum over j of (x_i - x_j) / (|x_i - x_j|^2 + 1)."""
    d = xy[:, None, :] - xy[None, :, :]
    weight = 1.0 / ((d**2).sum(axis=2) + 1.0)
    np.fill_diagonal(weight, 0.0)
    return (d * weight[:, :, None]).sum(axis=1)


def relative_error(approx: np.ndarray, exact: np.ndarray) -> float:
    return float(np.linalg.norm(approx - exact) / np.linalg.norm(exact))


def layout_like_points(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        # 400 nodes about one link distance (30) apart
        "uniform": rng.random((400, 2)) * 600,
        # a settled layout's density: dense middle, sparse rim
        "gaussian": rng.normal(size=(400, 2)) * 200,
        # clusters of different sizes, one far off
        "clusters": np.concatenate(
            [
                rng.normal(size=(150, 2)) * 80,
                rng.normal(size=(150, 2)) * 60 + (700, 100),
                rng.normal(size=(80, 2)) * 40 + (-300, 900),
                rng.normal(size=(20, 2)) * 30 + (5000, -4000),
            ]
        ),
        # a node dragged far away, summed exactly against the rest
        "outlier": np.concatenate([rng.normal(size=(399, 2)) * 200, [[60_000.0, 25_000.0]]]),
    }


@pytest.mark.parametrize("shape", ["uniform", "gaussian", "clusters", "outlier"])
def test_the_mesh_repulsion_is_within_two_percent_of_the_exact_sum(shape: str) -> None:
    # Measured: 0.3-0.4% on the uniform, gaussian and outlier sets, 1.3% on the clusters
    # (whose far cluster coarsens the grid), 0.2% on a settled 23,698-node vault. d3's
    # Barnes-Hut at its default theta of 0.9 is off by a few percent.
    xy = layout_like_points(np.random.default_rng(11))[shape]
    approx = Repulsion(direct_max=0)(xy)
    exact = exact_repulsion(xy)
    assert relative_error(approx, exact) < 0.02
    # and hardly any node's force points elsewhere: 99% are within 10% of their own exact
    # value (the others are nodes where the pushes nearly cancel)
    per_node = np.linalg.norm(approx - exact, axis=1) / np.linalg.norm(exact, axis=1)
    assert np.quantile(per_node, 0.99) < 0.1


def test_small_graphs_are_summed_exactly() -> None:
    xy = np.random.default_rng(2).random((100, 2)) * 300
    assert np.allclose(Repulsion()(xy), exact_repulsion(xy), rtol=1e-12, atol=1e-15)


def test_a_clump_is_pushed_apart_without_visiting_every_pair() -> None:
    rng = np.random.default_rng(1)
    xy = np.concatenate([rng.normal(size=(3000, 2)) * 0.5, rng.normal(size=(1000, 2)) * 3000])
    repulsion = Repulsion()
    force = repulsion(xy)
    assert np.isfinite(force).all()
    assert repulsion.last_pairs <= 16 * len(xy)  # not the clump's 4.5 million pairs
    outwards = (force[:3000] * (xy[:3000] - xy[:3000].mean(axis=0))).sum(axis=1)
    assert (outwards > 0).mean() > 0.9
    # A pile of identical points, which no k-d tree can split: finite, and the same push
    # (from the ten others) on each point of the pile
    pile = np.concatenate([np.zeros((5000, 2)), rng.random((10, 2)) * 100 + 1])
    force = repulsion(pile)
    assert np.isfinite(force).all()
    assert (force[:5000] == force[0]).all()
    assert (force[0] < 0).all()  # away from the others, which are all up and right


# ------------------------------------------------------------------ the cache


def test_positions_round_trip_through_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    assert load_positions(root) == {}
    layout = Layout(seed=1)
    layout.set_graph(["a.md", "b.md", "//unresolved/é c"], [[0, 1], [1, 2]])
    layout.step(10)
    save_positions(root, layout)
    assert layout_file(root).parent == layout_file(root).parent.parent / "index"
    loaded = load_positions(root)
    assert loaded == {
        node: (float(x), float(y))
        for node, (x, y) in zip(layout.ids, layout.positions.tolist(), strict=True)
    }
    assert load_positions(tmp_path) == {}  # another vault's key: no file

    # Reopened with a note gone and one new: the known ones start exactly where they
    # were, the gone one is ignored, the new one starts near its neighbour.
    again = Layout(seed=2)
    again.set_graph(["a.md", "b.md", "d.md"], [[0, 1], [2, 0]], positions=loaded)
    assert again.position("a.md") == loaded["a.md"]
    assert again.position("b.md") == loaded["b.md"]
    assert math.dist(again.position("d.md"), loaded["a.md"]) <= 30
    assert again.alpha == pytest.approx(0.1 + 0.9 / 3)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"garbage",
        lambda data: data[:20] + b"\x00" * 40 + data[60:],
        lambda data: b"",
    ],
)
def test_a_damaged_cache_reads_as_empty(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    layout = Layout()
    layout.set_graph(["a", "b"], [[0, 1]])
    save_positions(tmp_path, layout)
    path = layout_file(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    assert load_positions(tmp_path) == {}


def test_coincident_cached_positions_are_parted() -> None:
    layout = Layout(seed=1)
    same = dict.fromkeys(["a", "b", "c"], (5.0, 5.0))
    layout.set_graph(["a", "b", "c"], [[0, 1]], positions=same)
    xy = layout.positions
    assert (distances(xy) + np.eye(3)).min() > 0
    assert np.abs(xy - 5.0).max() <= 1.5  # nudged by at most 0.1 * 0.5 * 30
    layout.step(50)
    assert distances(layout.positions)[0, 1] > 20


# ------------------------------------------------------------------ robustness


def test_a_large_graph_under_extreme_forces_stays_finite() -> None:
    rng = np.random.default_rng(3)
    ids = [f"n{i}" for i in range(600)]  # the mesh path
    edges = rng.integers(0, 600, size=(1500, 2))
    layout = Layout(seed=1, forces=Forces(repel=1000, link_strength=2, link_distance=0, centre=1))
    layout.set_graph(ids, edges, positions=dict.fromkeys(ids[:300], (0.0, 0.0)))
    layout.step(200)
    assert np.isfinite(layout.positions).all()
    # every step is capped at 10 link distances (at least 10): nothing was flung away
    assert np.abs(layout.positions).max() < 200 * 10


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], Forces, list[int]]:
    n = draw(st.integers(1, 40))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    edges = draw(st.lists(pairs, max_size=3 * n))
    forces = Forces(
        repel=draw(st.floats(0, 1000)),
        link_strength=draw(st.floats(0, 2)),
        link_distance=draw(st.floats(0, 200)),
        centre=draw(st.floats(0, 1)),
    )
    pins = draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
    return n, edges, forces, pins


@settings(max_examples=60)
@given(graphs(), st.integers(0, 2**32 - 1))
def test_random_small_graphs_stay_finite(
    graph: tuple[int, list[tuple[int, int]], Forces, list[int]], seed: int
) -> None:
    n, edges, forces, pins = graph
    layout = Layout(seed=seed, forces=forces)
    ids = [f"n{i}" for i in range(n)]
    layout.set_graph(ids, np.array(edges, np.intp).reshape(-1, 2))
    for row in pins:
        layout.pin(ids[row], (float(row), 0.0))
    layout.step(100)
    layout.remove_nodes(ids[:1])
    layout.add_nodes(["extra"], {"extra": ids[1:3]})
    layout.step(100)
    assert np.isfinite(layout.positions).all()
    x0, y0, x1, y1 = layout.bounds()
    assert all(math.isfinite(v) for v in (x0, y0, x1, y1))
    assert math.isfinite(layout.max_step_fraction())


# ------------------------------------------------------------------ the orphans' block


def test_orphan_block_is_a_grid_right_of_the_linked_nodes() -> None:
    from librarian_gui.core.graph.place import orphan_block

    linked = np.array([[0.0, 0.0], [100.0, 50.0]])
    # 5 orphans: at most ceil(sqrt(5)) = 3 rows (the box is 50 high: room for 6), so 3 rows
    # of 2; x from 100 + 3 spacings; rows centred on y = 25, top first.
    assert orphan_block(linked, 5, 10.0).tolist() == [
        [130.0, 35.0],
        [140.0, 35.0],
        [130.0, 25.0],
        [140.0, 25.0],
        [130.0, 15.0],
    ]
    # Nothing linked: 4 orphans as a 2 × 2 square around the origin.
    assert orphan_block(np.empty((0, 2)), 4, 10.0).tolist() == [
        [-5.0, 5.0],
        [5.0, 5.0],
        [-5.0, -5.0],
        [5.0, -5.0],
    ]


def test_with_orphan_block_nodes_without_edges_stand_in_it_and_leave_it_when_pinned() -> None:
    from librarian_gui.core.graph.place import orphan_block

    layout = Layout(seed=1, orphan_block=True)
    ids = ["a", "b", "c", "x", "y"]  # a triangle and two orphans
    layout.set_graph(ids, [[0, 1], [1, 2], [2, 0]])
    for _ in range(60):
        layout.step()
        pos = np.array(layout.positions)
        spacing = 0.75 * 30.0
        assert pos[3:].tolist() == orphan_block(pos[:3], 2, spacing).tolist()
    assert pos[3:, 0].min() >= pos[:3, 0].max() + 3 * spacing
    layout.pin("x", (500.0, 500.0))
    layout.step()
    assert layout.position("x") == (500.0, 500.0)
    assert layout.position("y") == tuple(
        orphan_block(np.array(layout.positions)[:4], 1, spacing)[0]
    )
    layout.unpin("x")
    pos = np.array(layout.positions)
    assert pos[3:].tolist() == orphan_block(pos[:3], 2, spacing).tolist()
