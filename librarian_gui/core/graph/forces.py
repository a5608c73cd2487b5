"""The forces of the graph layout as array maths: mesh-accelerated repulsion, link springs."""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt
import scipy.fft
from scipy.spatial import cKDTree

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

# Repulsion between every pair is split, as in Ewald summation, into a short-range part,
# summed exactly over the pairs closer than CUTOFF * sigma (a k-d tree finds them), and a
# smooth long-range part, convolved over a grid with one FFT. The pair force is d3's
# many-body force, strength * d / |d|^2, softened by SOFTENING^2 so that near-coincident
# nodes get a finite push.
SOFTENING = 1.0
# The split's Gaussian width, in grid cells: the widest whose short-range pairs fit the
# budget. Measured on a settled 23,698-node layout against the exact sum: relative error
# 0.04% at 1 cell (400,000 pairs, 87 ms), 0.2% at 0.5 (97,000 pairs, 29 ms), 0.6% at 0.25
# (23,000 pairs, 25 ms). On sparse layouts (few nodes per cell) narrow widths are worse:
# 2% at 0.5 cell for 500 scattered nodes, 0.3% at 1 cell.
SIGMA_CELLS = (1.0, 0.7, 0.5, 0.35, 0.25)
# exp(-CUTOFF^2 / 2) = 0.2%: the short-range part left out beyond the cutoff.
CUTOFF = 3.5
DIRECT_MAX = 256  # up to this many nodes every pair is summed: cheaper than the grid
GRID = 256  # at most 512 x 512 padded FFTs: 3 of them take ~5 ms on one core
MIN_GRID = 32
CELLS_PER_NODE = 2.5
# Pairs per node the short-range sum may visit before the split narrows (clumped layouts),
# and before the cutoff is cut short (a pathological clump).
PAIR_BUDGET = 6
MIN_PAIR_BUDGET = 50_000  # ~5 ms: small graphs can afford the most accurate split
MAX_PAIRS = 16
# A node further outside the box of the other nodes than this fraction of its size (one
# dragged far away and pinned) is summed exactly against every node instead of stretching
# the grid; the box is that of all but the OUTLIERS most extreme nodes on each side.
OUTLIERS = 8
OUTLIER_MARGIN = 0.25
_CHUNK = 1 << 18  # pairs per block of the exact sums, to bound their temporary arrays


def direct_repulsion(pos: FloatArray, targets: IntArray | None = None) -> FloatArray:
    """The exact unit-strength repulsion on ``targets`` (default: every node) from all nodes,
    O(N * len(targets)), summed in blocks."""
    rows = np.arange(len(pos)) if targets is None else targets
    out = np.zeros((len(rows), 2))
    step = max(1, _CHUNK // max(1, len(pos)))
    for start in range(0, len(rows), step):
        block = rows[start : start + step]
        d = pos[block, None, :] - pos[None, :, :]
        inv = 1.0 / (np.einsum("ijk,ijk->ij", d, d) + SOFTENING * SOFTENING)
        inv[np.arange(len(block)), block] = 0.0
        out[start : start + step] = np.einsum("ijk,ij->ik", d, inv)
    return out


class Repulsion:
    """The many-body repulsion of a layout, in O(N log N) past DIRECT_MAX nodes.

    A call costs three FFTs of at most 512 x 512 and one k-d tree query: 30 ms at 23,698
    nodes, against 17 s for every pair and 290 ms for a numpy Barnes-Hut at d3's theta of
    0.9 (tests/benchmarks/bench_layout.py --repulsion). Its error against the exact sum is
    0.2-1.3% (root mean square over nodes, relative; see tests/unit/test_layout.py). The
    result depends only on the positions, so layouts stay deterministic.
    """

    def __init__(self, direct_max: int = DIRECT_MAX) -> None:
        self.direct_max = direct_max
        self.last_pairs = 0  # short-range pairs of the last call, for benchmarks

    def __call__(self, pos: FloatArray) -> FloatArray:
        """The unit-strength repulsion on each node: sum over j of d / (|d|^2 + eps^2)."""
        n = len(pos)
        if n <= self.direct_max:
            self.last_pairs = n * (n - 1) // 2
            return direct_repulsion(pos)
        inner, outer = _split_outliers(pos)
        if len(outer) == 0:
            return self._mesh(pos)
        out = np.zeros_like(pos)
        out[inner] = self._mesh(pos[inner])
        # Outliers against everything, and everything against the outliers (Newton's third
        # law: the same pair terms with the opposite sign).
        out[outer] = direct_repulsion(pos, outer)
        far = pos[outer]
        for k in range(len(outer)):
            d = pos[inner] - far[k]
            inv = 1.0 / (np.einsum("ij,ij->i", d, d) + SOFTENING * SOFTENING)
            out[inner] += d * inv[:, None]
        return out

    def _mesh(self, pos: FloatArray) -> FloatArray:
        n = len(pos)
        lo = pos.min(axis=0)
        span = float((pos.max(axis=0) - lo).max())
        grid, sigma_cells, cap = _resolution(pos - lo, span)
        h = span / (grid - 2) if span > 0 else 1.0
        u = (pos - lo) / h
        cell = np.minimum(u.astype(np.intp), grid - 2)
        frac = u - cell
        padded = 2 * grid  # zero padding turns the FFT's circular convolution into a plain one
        base = cell[:, 0] * padded + cell[:, 1]
        fx, fy = frac[:, 0], frac[:, 1]
        gx, gy = 1.0 - fx, 1.0 - fy
        corners = (base, base + padded, base + 1, base + padded + 1)
        weights = (gx * gy, fx * gy, gx * fy, fx * fy)
        # Cloud-in-cell: each node spreads its unit charge over the 4 nearest grid points,
        # and reads the field back from the same 4 with the same weights, so a node's own
        # charge exerts no net force on it.
        density = np.bincount(
            np.concatenate(corners), np.concatenate(weights), minlength=padded * padded
        )
        kx, ky = _long_range_kernel(grid, sigma_cells)
        # Single precision: the field needs 3 digits, and the FFTs take half the time.
        spectrum = scipy.fft.rfft2(density.astype(np.float32).reshape(padded, padded))
        out = np.empty_like(pos)
        for axis, kernel in ((0, kx), (1, ky)):
            field = scipy.fft.irfft2(spectrum * kernel, s=(padded, padded)).ravel()
            out[:, axis] = sum(
                (field.take(c) * w for c, w in zip(corners, weights, strict=True)),
                start=np.zeros(n),
            )
        out /= h  # the kernel is in grid units, and the force falls as 1 / distance
        short, self.last_pairs = _short_range(pos, sigma_cells * h, cap)
        out += short
        return out


def _resolution(offset: FloatArray, span: float) -> tuple[int, float, int | None]:
    """The grid size and the split's width in cells, most accurate first: the coarsest grid
    of about CELLS_PER_NODE cells per node, refined (and then the split narrowed) while the
    short-range pairs, about sum(count * (count - 1)) * pi * (CUTOFF * sigma)^2 / 2 over
    the cells, exceed the budget. A cap on the pairs comes third, when even that fails (a
    clump of thousands of nodes in one cell)."""
    n = len(offset)
    budget = max(PAIR_BUDGET * n, MIN_PAIR_BUDGET)
    grid = min(GRID, max(MIN_GRID, 1 << math.ceil(math.log2(math.sqrt(CELLS_PER_NODE * n)))))
    while True:
        h = span / (grid - 2) if span > 0 else 1.0
        cell = np.minimum((offset / h).astype(np.intp), grid - 2)
        counts = np.bincount(cell[:, 0] * grid + cell[:, 1], minlength=grid * grid)
        pairs_per_area = float(np.dot(counts, counts - 1)) * math.pi / 2
        widths = SIGMA_CELLS if grid == GRID else SIGMA_CELLS[:1]
        for sigma in widths:
            if pairs_per_area * (CUTOFF * sigma) ** 2 <= budget:
                return grid, sigma, None
        if grid == GRID:
            return grid, SIGMA_CELLS[-1], max(MAX_PAIRS * n, MIN_PAIR_BUDGET)
        grid *= 2


@functools.lru_cache(maxsize=8)  # ~2 MB each; a layout uses one or two at a time
def _long_range_kernel(grid: int, sigma: float) -> tuple[npt.NDArray[np.complex64], ...]:
    """The Fourier transforms of d * (1 - exp(-|d|^2 / 2 sigma^2)) / |d|^2 on the padded
    grid, divided by the square of the cloud-in-cell window to undo its smoothing (this
    halves the error; the Gaussian keeps the division bounded)."""
    padded = 2 * grid
    offsets = np.fft.fftfreq(padded, 1.0 / padded).astype(np.float32)
    x, y = offsets[:, None], offsets[None, :]
    r2 = x * x + y * y
    r2[0, 0] = 1.0
    g = -np.expm1(r2 / np.float32(-2 * sigma * sigma)) / r2
    g[0, 0] = 0.0
    window = np.sinc(np.fft.fftfreq(padded))[:, None] ** 2 * np.sinc(np.fft.rfftfreq(padded)) ** 2
    window = (window * window).astype(np.float32)
    return tuple(scipy.fft.rfft2(axis * g) / window for axis in (x, y))


def _short_range(pos: FloatArray, sigma: float, cap: int | None) -> tuple[FloatArray, int]:
    """The exact force minus the mesh's share, over the pairs within the cutoff, and how many
    pairs that was. With a ``cap``, the cutoff shrinks until the pairs fit under it."""
    n = len(pos)
    if cap is not None:
        # A k-d tree cannot split a pile of identical points: it would compare them all.
        # Sum over one of each (the others, exactly on it, feel no short-range push).
        _, first = np.unique(pos, axis=0, return_index=True)
        if len(first) < n:
            out = np.zeros_like(pos)
            out[first], count = _short_range(pos[first], sigma, cap)
            return out, count
    tree = cKDTree(pos, balanced_tree=False)
    radius = CUTOFF * sigma
    if cap is not None:
        # Counting is cheap (the tree counts whole boxes within reach at once); listing
        # millions of pairs is not.
        for _ in range(20):
            count = (int(tree.count_neighbors(tree, radius)) - n) // 2
            if count <= cap:
                break
            radius *= 0.9 * math.sqrt(cap / count)
        else:  # thousands of nodes on one point: no radius leaves them out
            return np.zeros_like(pos), 0
    pairs = tree.query_pairs(radius, output_type="ndarray")
    out = np.zeros_like(pos)
    if len(pairs) == 0:
        return out, 0
    # One coordinate at a time: gathering from 1-D arrays is 6x faster than rows of pos.
    a, b = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    x, y = np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1])
    dx = x.take(a) - x.take(b)
    dy = y.take(a) - y.take(b)
    r2 = dx * dx + dy * dy
    safe = np.maximum(r2, 1e-300)
    long = np.where(r2 > 0, -np.expm1(r2 / (-2 * sigma * sigma)) / safe, 0.0)
    s = 1.0 / (r2 + SOFTENING * SOFTENING) - long
    for axis, d in ((0, dx), (1, dy)):
        f = d * s
        out[:, axis] = np.bincount(a, f, minlength=n) - np.bincount(b, f, minlength=n)
    return out, len(pairs)


def _split_outliers(pos: FloatArray) -> tuple[IntArray, IntArray]:
    """Rows inside the robust box of the layout, and rows far outside it."""
    n = len(pos)
    k = OUTLIERS
    if n <= 4 * k + 1:
        rows = np.arange(n)
        return rows, rows[:0]
    lo = np.partition(pos, k, axis=0)[k]
    hi = np.partition(pos, n - 1 - k, axis=0)[n - 1 - k]
    margin = OUTLIER_MARGIN * float((hi - lo).max())
    far = np.any((pos < lo - margin) | (pos > hi + margin), axis=1)
    if not far.any():
        rows = np.arange(n)
        return rows, rows[:0]
    return np.flatnonzero(~far), np.flatnonzero(far)


def link_forces(
    pos: FloatArray,
    vel: FloatArray,
    src: IntArray,
    dst: IntArray,
    strength: FloatArray,
    bias: FloatArray,
    distance: float,
) -> FloatArray:
    """d3's link force, all links at once: each link pulls its ends' predicted positions
    (position + velocity) towards ``distance`` apart; ``bias`` is the target's share."""
    n = len(pos)
    out = np.zeros_like(pos)
    if len(src) == 0:
        return out
    ahead = pos + vel
    x, y = np.ascontiguousarray(ahead[:, 0]), np.ascontiguousarray(ahead[:, 1])
    dx = x.take(dst) - x.take(src)
    dy = y.take(dst) - y.take(src)
    length = np.sqrt(dx * dx + dy * dy)
    # Coincident ends have no direction to pull along: the repulsion parts them first.
    scale = np.where(length > 0, (length - distance) / np.maximum(length, 1e-300), 0.0)
    scale *= strength
    pull_src, pull_dst = scale * (1 - bias), scale * bias
    for axis, d in ((0, dx), (1, dy)):
        out[:, axis] = np.bincount(src, d * pull_src, minlength=n) - np.bincount(
            dst, d * pull_dst, minlength=n
        )
    return out
