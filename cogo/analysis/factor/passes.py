"""The factorization of a block as named passes over a pool of candidate grids (SPEC 8.5).

:func:`cogo.analysis.factor.factorization.factor_block` puts the block's nodes in canonical order and
runs :data:`PASSES` over one :class:`GridPool`; each pass reads the grids found so far and adds or
improves some, and states its contract and its cost.  In order:

========================  ===================================================================
pass                      contract
========================  ===================================================================
``tiling``                orders 4 and 6: every ``2 x q/2`` grid ranked in closed form
                          (:func:`feature_misfits`), the exact ones fitted; else, or when none is
                          exact, the exact grids of the tiling search (:mod:`cogo.analysis.factor.tiling`),
                          each refined (:func:`_fit_reoriented`: reassignment, re-aligned fibers)
``translates``            for near-degenerate blocks, 2-factor grids of the tiling sets no
                          assembly started from, kept when :data:`SPLIT_GAIN` times better
``shapes``                every shape asked for: its exact grids, or merged from a finer exact
                          grid, else the best local search (identity and matching starts)
``coarser shapes``        for a finer shape asked for alone, the coarser shapes to split from
``split``                 a finer shape read from a coarser exact grid whose factor along one
                          axis is itself a product (the factor factored on its own)
``swap``                  near-equal nodes swapped between cells of each shape's best grid
``merge``                 coarser shapes merged from the best finer exact grid when better
``finish``                helper shapes dropped; an exhausted search bound is said
========================  ===================================================================

Why each pass exists -- the blocks that needed it, each kept as a regression test in
``tests/analysis/test_factorization.py`` -- is told in docs/analysis.md ("How a block is factored").

**Bound.**  At most :data:`cogo.analysis.factor.tiling.SEARCH_BUDGET` (4000) candidate sets are solved
per block (each ``O(C^3)``, ``C <= q <= MAX_ORDER = 64``), plus at most ``MAX_ALTERNATIVES``
assemblies and refinements (``O(q^3)`` each, plus at most two passes of one more per axis of size
2 or 3), plus per finer shape at most one split per coarser shape and axis (one search of the same
kind on a factor of order ``<= q/2``; up to ``MAX_ALTERNATIVES`` splits per coarser shape when its
grid came from local search), plus at most :data:`UNTRIED_MAX` translate-grid fits (``O(q^2)``
each), plus per shape at most :data:`SWAP_ROUNDS_MAX` swap rounds: the work is
``O(SEARCH_BUDGET q^3)`` whatever the block (about 0.3 s for a catalogue product of order 64,
``benchmarks/bench_classify.py``).  A search that exhausts the budget without an exact grid is
reported as *not factored within the bound* (``BlockFactorization.skipped``), never run on.
When no exact grid is found for a shape the smallest error found is reported: an upper bound on the
true minimum over all ``q!`` orders.  Above :data:`MATCHING_MAX_ORDER` the local search (3
reassignment rounds) is run for the 2-factor shapes only, so a large non-factorable block stays
cheap.  Not searched: factors of sizes other than 2 and 3 are found only as the one remaining
factor (``z_nu * r6`` is 2 x 6, but ``r4 * r4'`` with two non-catalogue 4-node factors is not
found as 4 x 4).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] H. W. Kuhn, "The Hungarian method for the assignment problem", Naval Research Logistics Quarterly 2, 1955.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from cogo.analysis.factor.kronecker import (
    _TINY,
    ERROR_DECIMALS,
    FACTOR_TOL,
    BlockFactorization,
    Factorization,
    GridFit,
    _ekey,
    _rel_dist,
    factor_shapes,
    fit_grid,
    fit_grids,
)
from cogo.analysis.factor.lowrank import _kron_batch, rank1_batch
from cogo.analysis.factor.tiling import CLUSTER_TOL, MATCH_TOL, SEARCH_BUDGET, TilingSearch, _matching_starts

__all__ = ["GridPool", "Pass", "PASSES", "run_passes", "two_row_grids", "feature_misfits", "closed_form_fits", "SPLIT_GAIN", "UNTRIED_MAX", "MATCHING_MAX_ORDER"]


#: Axes up to this size get their fibers re-aligned (``m!`` orders tried per fiber) by :func:`_fit_reoriented`.
REALIGN_MAX_SIZE = 3


def _fiber_orientations(F: np.ndarray, grid: np.ndarray, axis: int, most: int = 2) -> list[np.ndarray]:
    """Re-aligned copies of ``grid`` along ``axis``: every fiber keeps its nodes, their order along ``axis`` is re-chosen.

    In a Kronecker product whose factor along ``axis`` is ``u`` (``m`` nodes),
    every fiber along that axis (a column of the grid viewed as ``m x (q/m)``)
    has the features ``s_j * u`` (channel by channel, ``s_j`` the other
    factors' cell).  For each column ``k`` taken as the reference ``u`` every
    column ``j`` gets the order ``pi`` of its ``m`` nodes (one of ``m!``) that
    minimizes the least-squares misfit ``min_s ||F_pi(j) - s u||^2``; column
    0's order fixes how the axis is labelled.  When a factor is close to
    degenerate (two nodes nearly equal, as ``z_nu`` with ``nu`` near 1, or
    ratio sets that nearly form a group, as ``z_xi(1, 1) * z_nu(-1)``) a grid
    with some fibers in the wrong order is a fixed point of the Hungarian
    reassignment of :func:`fit_grid`; these re-alignments leave it.

    Returns at most ``most`` distinct grids other than ``grid``, smallest
    total misfit first, and only those whose total misfit is below 0.8 times
    the unchanged grid's (a factor that is a group, as ``z_syn``, fits in
    every cyclic order: such ties are not returned).  ``O((q/m)^2 m! m)``
    arithmetic, for ``m <=`` :data:`REALIGN_MAX_SIZE`.
    """
    m = grid.shape[axis]
    moved = np.moveaxis(grid, axis, 0)
    cols = moved.reshape(m, -1)  # (m, n): column j is one fiber
    P = np.array(list(itertools.permutations(range(m))), dtype=np.int64)  # (m!, m), P[0] = identity
    V = F[cols]  # (m, n, 4)
    # misfit of column j in order pi against reference k: ||V_j||^2 - sum_c |<u_kc, V_pi(j)c>|^2 / ||u_kc||^2
    dot = np.einsum("ikc,pijc->kpjc", np.conj(V), V[P])
    uu = np.maximum((np.abs(V) ** 2).sum(axis=0), _TINY)  # (n, 4): ||u_k||^2 per channel
    misfit = (np.abs(V) ** 2).sum(axis=(0, 2))[None, None, :] - (np.abs(dot) ** 2 / uu[:, None, None, :]).sum(-1)
    choice = np.round(misfit, ERROR_DECIMALS).argmin(axis=1)  # (k, j); float noise breaks no tie
    score = np.take_along_axis(misfit, choice[:, None, :], axis=1)[:, 0, :].sum(axis=1)  # (k,)
    current = float(misfit[:, 0, :].sum(axis=1).min())
    inv = np.argsort(P, axis=1)
    index = {tuple(r): i for i, r in enumerate(P.tolist())}
    out, seen = [], {(0,) * cols.shape[1]}
    for k in np.argsort(np.round(score, ERROR_DECIMALS), kind="stable"):
        if len(out) >= most or not score[k] < 0.8 * current:
            break
        comp = P[choice[k]][:, inv[choice[k, 0]]]  # (n, m): column 0 keeps its order
        key = tuple(index[tuple(r)] for r in comp.tolist())
        if key in seen:
            continue
        seen.add(key)
        new = np.take_along_axis(cols, comp.T, axis=0)
        out.append(np.moveaxis(new.reshape(moved.shape), 0, axis))
    return out


def _fit_reoriented(x: np.ndarray, F: np.ndarray, grid: np.ndarray, max_rounds: int = 10,
                    limit: float = 2 * FACTOR_TOL):
    """:func:`fit_grid` with reassignment, then along every axis of size <= 3 also from :func:`_fiber_orientations`.

    Each re-aligned grid is fitted without reassignment (``O(q)``); the
    best, when it is better, is refined with reassignment once more.  At most
    two extra fits and one extra refinement per axis of size ``m <=``
    :data:`REALIGN_MAX_SIZE` (at most ``log2 q`` axes), and a second pass over
    the axes only when the first one improved the fit (a fiber order fixed
    along one axis can expose a wrong one along another); only for a grid
    within ``limit`` of a product (mis-aligned fibers of a product cost about
    the distance of the degenerate factor from its degeneracy), so
    non-factorable blocks pay nothing.
    """
    best = fit_grid(x, F, grid, max_rounds=max_rounds)
    for _ in range(2):
        improved = False
        for axis in range(best[0].ndim):
            g0 = best[0]
            if g0.shape[axis] > REALIGN_MAX_SIZE or not 1e-12 < best[-1] <= limit:  # exact already, or no product near
                continue
            cands = [fit_grid(x, F, g, reassign=False) for g in _fiber_orientations(F, g0, axis)]
            if cands:
                c = min(cands, key=lambda f: round(float(f[-1]), ERROR_DECIMALS))
                if c[-1] < best[-1]:
                    c2 = fit_grid(x, F, c[0], max_rounds=max_rounds)
                    best = c2 if c2[-1] <= c[-1] else c
                    improved = True
        if not improved:
            break
    return best


#: Most pairs of near-equal nodes (feature distance <= :data:`CLUSTER_TOL`) tried per swap round by :func:`_swap_near_equal`.
SWAP_PAIRS_MAX = 8
#: Most swaps kept per grid by :func:`_swap_near_equal`.
SWAP_ROUNDS_MAX = 4


def _swap_near_equal(x: np.ndarray, F: np.ndarray, best: tuple, max_rounds: int = 10) -> tuple:
    """Exchange the cells of two near-equal nodes of a fitted grid (a :func:`fit_grid` result) when that fits better.

    Two nodes whose features are within :data:`CLUSTER_TOL` of each other are
    one cluster for the tiling, which puts either in either cell; when they
    are not truly equal (``z_nu=i * z_xi(~1, 1) * z_nu(nu)`` with ``nu`` 0.02
    rad from ``i``: the 8 nodes are four pairs 0.04 apart) a grid with a pair
    swapped is a fixed point of the reassignment (the rank-1 fit follows the
    swap), fitting at 0.01 where the true grid fits at 0.0008.  Each round
    fits the features of the grid with each of the (at most
    :data:`SWAP_PAIRS_MAX`, farthest apart first) near-equal pairs swapped, all
    at once (one batched rank-1 fit), and refines the best swap with
    reassignment when its feature misfit is below 0.8 times the current one
    (swaps of truly repeated nodes change the misfit by the noise only); it is
    kept when its error is lower.  At most :data:`SWAP_ROUNDS_MAX` rounds, and
    nothing for a block without near-equal pairs.
    """
    D = _rel_dist(F, F)
    iu, ju = np.triu_indices(F.shape[0], 1)
    near = D[iu, ju] <= CLUSTER_TOL
    if not near.any():
        return best
    order = np.argsort(-np.round(D[iu, ju][near], ERROR_DECIMALS), kind="stable")[:SWAP_PAIRS_MAX]
    I, J = iu[near][order], ju[near][order]
    for _ in range(SWAP_ROUNDS_MAX):
        grid = best[0]
        shape, flat = grid.shape, grid.reshape(-1)
        pos = np.empty(flat.size, dtype=np.int64)
        pos[flat] = np.arange(flat.size)
        G = np.repeat(flat[None, :], len(I) + 1, axis=0)  # row 0: the grid itself
        rows = np.arange(1, len(I) + 1)
        G[rows, pos[I]], G[rows, pos[J]] = J, I
        V = F[G]  # (pairs + 1, cells, 4)
        lam, us = rank1_batch(np.moveaxis(V, 2, 1).reshape((-1,) + shape))
        rec = np.moveaxis(_kron_batch(lam, us).reshape(V.shape[0], 4, -1), 1, 2)
        misfit = (np.abs(V - rec) ** 2).sum(axis=(1, 2))
        k = int(np.argmin(np.round(misfit[1:], ERROR_DECIMALS))) + 1
        if not misfit[k] < 0.64 * misfit[0]:  # 0.8 times the misfit (squared here)
            break
        c = fit_grid(x, F, G[k].reshape(shape), max_rounds=max_rounds)
        if not c[-1] < best[-1]:
            break
        best = c
    return best


#: Most kept factor sets beyond the assemblies' starts whose translate grids are fitted (``O(q)`` each) by :func:`_factor`.
UNTRIED_MAX = 32

#: Blocks up to this order also get the tolerance-free matching starts (``O(q^4)``) when no grid is exact.
MATCHING_MAX_ORDER = 16


#: A finer shape is also built by splitting a coarser exact grid when its own best error exceeds this many times the coarser one's.
SPLIT_GAIN = 2.0


def _split_axes(coarse: tuple[int, ...], fine: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
    """The ways ``(axis, sub_shape)`` to get ``fine`` from ``coarse`` by splitting one axis into ``sub_shape``.

    >>> _split_axes((2, 4), (2, 2, 2)), _split_axes((3, 4), (2, 2, 3)), _split_axes((2, 6), (3, 4))
    ([(1, (2, 2))], [(1, (2, 2))], [])
    """
    out = []
    for i, m in enumerate(coarse):
        rest = list(coarse[:i] + coarse[i + 1:])
        sub = list(fine)
        for k in rest:
            if k not in sub:
                break
            sub.remove(k)
        else:
            if len(sub) >= 2 and int(np.prod(sub)) == m:
                out.append((i, tuple(sub)))
    return out


def _split_from_coarser(pool: GridPool, shape: tuple[int, ...]) -> None:
    """Improve ``pool.result.by_shape[shape]`` from a coarser exact grid whose factor along one axis is a product.

    When the finer ``shape`` has no exact grid, or its best error is more than
    :data:`SPLIT_GAIN` times a coarser exact grid's, the factor of that grid
    along an axis of size ``m`` is factored on its own (``pool.subfactor``: its
    ``m`` nodes, shapes of :func:`factor_shapes` up to :data:`MATCHING_MAX_ORDER`,
    else only the needed one) and its grid replaces that axis; the result is
    refined by :func:`_fit_reoriented` and kept when it fits better.  A
    near-degenerate product whose nodes merge into clusters (the tiling finds
    ``2 x 4`` but no ``2 x 2 x 2``) is then read from its ``2 x 4`` grid.  When
    nothing splits exactly, the further exact grids of the local search
    (``pool.spare``) are split in turn.  At most one sub-factorization (order
    ``m <= q/2``) per coarser grid and axis.
    """
    res, tol, x, F = pool.result, pool.tol, pool.x, pool.F
    alts = res.by_shape.get(shape) or []
    cur = alts[0].error if alts else np.inf
    cands = []

    def split(fz: Factorization, src: tuple[int, ...]) -> None:
        for axis, sub in _split_axes(src, shape):
            f = fz.factors[axis]
            shapes = factor_shapes(f.q) if f.q <= MATCHING_MAX_ORDER else [sub]
            sf = pool.subfactor(f, shapes).best_for(sub)
            if sf is None:
                continue
            g = np.take(fz.grid, sf.grid, axis=axis)  # the axis replaced by the sub-grid's axes
            g = np.transpose(g, np.argsort(g.shape, kind="stable"))
            cands.append(pool.make(_fit_reoriented(x, F, g), fz.exact_grid and sf.exact_grid, shape))

    sources = []
    for src, src_alts in list(res.by_shape.items()):
        if len(src) >= len(shape) or not src_alts:
            continue
        fz = src_alts[0]
        if fz.error > tol or not (cur > tol or cur > SPLIT_GAIN * fz.error):
            continue
        sources.append(src)
        split(fz, src)
    # still nothing exact: the further exact grids the local search found for the coarser shapes, in turn,
    # until one splits (at most max_alternatives - 1 more per coarser shape)
    for src in sources:
        for fz in pool.spare.get(src, []):
            if cands and min(f.error for f in cands) <= tol:
                break
            split(fz, src)
    if not cands:
        return
    new = min(cands, key=_ekey)
    if new.error >= cur:
        return
    keep = [f for f in alts if f.error <= tol] if new.error <= tol else []
    res.by_shape[shape] = sorted(keep + [new], key=_ekey)[:pool.max_alternatives]


def _distinct(fs: list[Factorization], taken: list[Factorization]) -> list[Factorization]:
    """The factorizations of ``fs`` whose grid (as a set of cells per first-axis slice) is not one of ``taken``'s."""
    def key(f: Factorization):
        return tuple(sorted(frozenset(r.tolist()) for r in f.grid.reshape(f.grid.shape[0], -1)))

    seen = {key(f) for f in taken}
    out = []
    for f in fs:
        k = key(f)
        if k not in seen:
            seen.add(k)
            out.append(f)
    return out


def _merged_grids(grid: np.ndarray, shape: tuple[int, ...]) -> list[np.ndarray]:
    """The grids of ``shape`` obtained from ``grid`` by merging groups of its axes (finer -> coarser)."""
    fine = grid.shape
    if len(fine) <= len(shape) or int(np.prod(fine)) != int(np.prod(shape)):
        return []
    out = []
    for labels in itertools.product(range(len(shape)), repeat=len(fine)):
        if labels[0] != 0 or sorted(set(labels)) != list(range(len(shape))):
            continue
        sizes = tuple(int(np.prod([fine[i] for i in range(len(fine)) if labels[i] == g])) for g in range(len(shape)))
        if tuple(sorted(sizes)) != shape:
            continue
        order = sorted(range(len(shape)), key=lambda g: (sizes[g], g))
        axes = [i for g in order for i in range(len(fine)) if labels[i] == g]
        out.append(np.transpose(grid, axes).reshape(shape))
        if len(out) >= 4:
            break
    return out


# --------------------------------------------------------------------------- the pool and its passes
@dataclass
class GridPool:
    """The candidate grids of one block while the passes run (the block in canonical node order)."""

    x: np.ndarray
    """The balanced, canonically read block ``(3, q)``."""
    F: np.ndarray
    """Its node features ``(q, 4)``."""
    t: np.ndarray
    """Its per-node balance ``(q,)``."""
    shapes: list
    """The shapes asked for."""
    tol: float = FACTOR_TOL
    """A grid with error at most ``tol`` is exact."""
    match_tol: float = MATCH_TOL
    """The tiling's match tolerance."""
    max_alternatives: int = 6
    """Most grids kept per shape."""
    budget: int = SEARCH_BUDGET
    """Most candidate sets the tiling search solves."""
    subfactor: Callable | None = None
    """``subfactor(factor, shapes) -> BlockFactorization``: one factor factored on its own (the split pass)."""
    search: Any = None
    """The exact tiling search (:class:`cogo.analysis.factor.tiling.TilingSearch`), set by the tiling pass."""
    fits: list = field(default_factory=list)
    """The fitted tiling grids of every shape (the tiling and translate passes)."""
    result: BlockFactorization = None
    """Per shape, the grids kept so far, best first."""
    spare: dict = field(default_factory=dict)
    """Shape -> further exact grids of the local search (kept for splitting, not reported)."""
    helpers: list = field(default_factory=list)
    """The coarser shapes searched only to be split (dropped by the finish pass)."""
    closed: list | None = None
    """The closed-form exact grids (:func:`closed_form_fits`) when read beforehand with other blocks'; else None."""
    _by_fit: dict = field(default_factory=dict)
    _exact_fine: list = field(default_factory=list)

    def __post_init__(self):
        self.result = BlockFactorization(q=self.q, tol=float(self.tol))

    @property
    def q(self) -> int:
        """The block order."""
        return int(self.F.shape[0])

    def make(self, fit: GridFit, exact_grid: bool, shape: tuple | None = None) -> Factorization:
        """The :class:`Factorization` of a :func:`fit_grid` result on this block."""
        return Factorization.from_fit(fit, self.t, exact_grid, shape)


class Pass(NamedTuple):
    """One named pass over a :class:`GridPool`: what it adds (``contract``) and what it may cost."""

    name: str
    run: Callable[[GridPool], None]
    contract: str
    cost: str


#: The passes, in the order they run (the order they are defined in below); each reads and extends the pool.
PASSES: list[Pass] = []


def _register(name: str, contract: str, cost: str) -> Callable:
    """Add the decorated function to :data:`PASSES` as the pass ``name`` (contract and cost stated here)."""
    def add(run: Callable[[GridPool], None]) -> Callable[[GridPool], None]:
        PASSES.append(Pass(name, run, contract, cost))
        return run
    return add


#: Block orders whose ``2 x (q/2)`` grids are all tried in closed form before the tiling search (:func:`tiling_pass`).
CLOSED_FORM_ORDERS = (4, 6)
#: Of those grids, the ones whose feature misfit is at most this many times the factor tolerance are fitted.
CLOSED_FORM_SCREEN = 4.0
_TWO_ROW: dict = {}


def two_row_grids(q: int) -> np.ndarray:
    """Every ``2 x (q/2)`` grid of ``q`` nodes up to swapping the rows and permuting the columns: ``(G, 2, q/2)``.

    Node 0 opens the first row, whose nodes are increasing; the second row is every order of the rest
    (``C(q-1, q/2-1) (q/2)!`` grids: 6 for ``q = 4``, 60 for ``q = 6``).
    """
    if q not in _TWO_ROW:
        m = q // 2
        rows = []
        for rest in itertools.combinations(range(1, q), m - 1):
            first = (0,) + rest
            others = [j for j in range(q) if j not in first]
            rows.extend((first, p) for p in itertools.permutations(others))
        _TWO_ROW[q] = np.array(rows, dtype=np.int64).reshape(-1, 2, m)
    return _TWO_ROW[q]


def feature_misfits(F: np.ndarray, grids: np.ndarray) -> np.ndarray:
    """Relative rank-1 misfit of the features ``F`` (q, 4) on each grid of ``grids`` (G, 2, m), in closed form.

    Per channel the ``2 x m`` matrix ``M`` of the grid has ``sigma_2^2 = 2 D / (T + sqrt(T^2 - 4 D))`` with
    ``T = ||M||^2`` and ``D = ||r_0||^2 ||r_1||^2 - |<r_0, r_1>|^2`` (its rows ``r_0``, ``r_1``); the misfit is
    ``sqrt(sum_channels sigma_2^2 / ||F||^2)``, the error of the best rank-1 fit per channel.  ``F`` may be a
    stack (B, q, 4) of blocks of one order: then (B, G), each row as that block alone.
    """
    M = F[..., grids, :]                                     # (..., G, 2, m, 4)
    n0 = (np.abs(M[..., 0, :, :]) ** 2).sum(axis=-2)
    n1 = (np.abs(M[..., 1, :, :]) ** 2).sum(axis=-2)
    ip = np.abs((np.conj(M[..., 0, :, :]) * M[..., 1, :, :]).sum(axis=-2)) ** 2
    T = n0 + n1
    D = np.maximum(n0 * n1 - ip, 0.0)
    s2 = 2 * D / np.maximum(T + np.sqrt(np.maximum(T * T - 4 * D, 0.0)), _TINY)
    if F.ndim == 2:
        return np.sqrt(s2.sum(axis=-1) / max(float((np.abs(F) ** 2).sum()), _TINY))
    norms = np.array([max(float((np.abs(f) ** 2).sum()), _TINY) for f in F])
    return np.sqrt(s2.sum(axis=-1) / norms[:, None])


#: Splits whose feature misfit exceeds this factor of the best split's plus :data:`CLOSED_FORM_SLACK` are not
#: fitted: their grids fit far worse than the best (the naming keeps grids within twice the best error plus
#: 0.005, :data:`cogo.analysis.naming.EXACT_RATIO`; a feature misfit is one to two times the node error).
CLOSED_FORM_NEAR = 8.0
CLOSED_FORM_SLACK = 0.02
#: Alignments of one split within this factor of its best feature misfit (plus 1e-9) are all fitted.
CLOSED_FORM_TIES = 2.0


def closed_form_fits(blocks: list) -> list[list]:
    """The exact ``2 x (q/2)`` grids of blocks of order 4 or 6, best first, from every grid at once.

    ``blocks``: ``(x, F, tol, max_alternatives)`` of each block in canonical node order (:class:`GridPool`'s);
    blocks of one order are read together (one :func:`feature_misfits` and one :func:`fit_grids` call), each
    block's answer as read alone.  The splits of the nodes into two rows are ranked by their best alignment's
    :func:`feature_misfits`; those within :data:`CLOSED_FORM_SCREEN` ``x tol`` and within
    :data:`CLOSED_FORM_NEAR` times the best split's misfit plus :data:`CLOSED_FORM_SLACK` (at most
    ``max_alternatives``) have their alignments within :data:`CLOSED_FORM_TIES` of that best fitted by
    :func:`fit_grid` without reassignment (every reassignment is another grid of the list; the columns of a
    geometric factor such as ``z_syn`` align several ways with near-equal misfits), and the best fit of each split
    within ``tol`` is kept: one grid per split, as the tiling search lists them.  Empty when none is.
    """
    out: list = [None] * len(blocks)
    for q in sorted({b[1].shape[0] for b in blocks}):
        idx = [i for i, b in enumerate(blocks) if b[1].shape[0] == q]
        grids = two_row_grids(q)
        per_split = math.factorial(q // 2)  # the alignments of one split (the orders of its second row) are consecutive
        Fs = _side_by_side([blocks[i][1][None] for i in idx], 0)
        mis = np.round(feature_misfits(Fs[0], grids)[None] if len(idx) == 1 else feature_misfits(Fs, grids),
                       ERROR_DECIMALS)
        picks, offs = [], []
        for n, i in enumerate(idx):
            m = mis[n].reshape(-1, per_split)
            lead = m.min(axis=1)
            splits = np.argsort(lead, kind="stable")
            bound = min(CLOSED_FORM_SCREEN * blocks[i][2], CLOSED_FORM_NEAR * lead[splits[0]] + CLOSED_FORM_SLACK)
            splits = splits[lead[splits] <= bound][:blocks[i][3]]
            picks.append([np.flatnonzero(m[s] <= CLOSED_FORM_TIES * lead[s] + 1e-9) + s * per_split for s in splits])
            offs.extend([n * q] * sum(len(near) for near in picks[-1]))
        sel = [g for near in picks for g in near]
        offs = np.array(offs, dtype=np.int64) if len(idx) > 1 else None  # one block: its own node indices
        done = fit_grids(_side_by_side([blocks[i][0] for i in idx], 1), Fs.reshape(-1, Fs.shape[-1]),
                         grids[np.concatenate(sel)] + (0 if offs is None else offs[:, None, None]), offs) if sel else []
        pos = 0
        for n, i in enumerate(idx):
            fits = []
            for near in picks[n]:
                cand = done[pos:pos + len(near)]
                pos += len(near)
                fits.append(min(cand, key=lambda f: round(float(f[-1]), ERROR_DECIMALS)))
            out[i] = sorted((f for f in fits if f[-1] <= blocks[i][2]), key=lambda f: round(float(f[-1]), ERROR_DECIMALS))
    return out


def _side_by_side(arrays: list, axis: int) -> np.ndarray:
    """``arrays`` concatenated along ``axis`` (the one array itself when alone)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=axis)


class _Exhaustive:
    """The stand-in for the tiling search when :func:`closed_form_fits` tried every grid: nothing left untried."""

    untried: list = []

    class budget:  # noqa: N801 - read as ``search.budget.exhausted`` like the tiling search's
        exhausted = False


@_register("tiling", "exact grids of every shape the tiling finds (orders 4, 6: every 2 x q/2 grid), refitted",
           "orders 4, 6: one closed-form misfit per grid (6, 60) + at most MAX_ALTERNATIVES x (q/2)! O(q) fits; else "
           "SEARCH_BUDGET O(C^3) candidate solves + MAX_ALTERNATIVES O(q^3) refinements")
def tiling_pass(pool: GridPool) -> None:
    """The exact grids of the tiling search (:mod:`cogo.analysis.factor.tiling`), each refined by :func:`_fit_reoriented`.

    Blocks of order 4 and 6 (the catalogue's) first try every ``2 x (q/2)`` grid in closed form
    (:func:`closed_form_fits`); the search runs only when none of them is exact.
    """
    if pool.q in CLOSED_FORM_ORDERS and (2, pool.q // 2) in pool.shapes:
        fits = pool.closed if pool.closed is not None else \
            closed_form_fits([(pool.x, pool.F, pool.tol, pool.max_alternatives)])[0]
        if fits:
            pool.search = _Exhaustive()
            pool.fits.extend(pool.make(f, True) for f in fits)
            return
    pool.search = TilingSearch(pool.F, pool.match_tol, pool.budget)
    for grid in pool.search.grids(pool.max_alternatives):
        pool.fits.append(pool.make(_fit_reoriented(pool.x, pool.F, grid), True))


@_register("translates", "2-factor grids of untried tiling sets that fit SPLIT_GAIN x better",
           "UNTRIED_MAX O(q^2) fits, one refinement each kept")
def translate_pass(pool: GridPool) -> None:
    """The 2-factor grids of the translates of the factor sets no assembly started from.

    Near-degenerate blocks (several factors near a degenerate value at once: ratio sets that nearly
    form a group) have many sets that tile within ``match_tol``, and the assemblies started from the
    first ones can all be wrong (docs/analysis.md, "Hard blocks"); the grid of the translates of each
    remaining set (at most :data:`UNTRIED_MAX`) is kept when it fits over :data:`SPLIT_GAIN` times
    better than every exact grid found, and later split (:func:`split_pass`).
    """
    x, F = pool.x, pool.F
    found = [f.error for f in pool.fits if f.error <= pool.tol]
    if not (found and pool.search.untried):
        return
    for grid in pool.search.translate_grids(pool.search.untried[:UNTRIED_MAX]):
        # the translates are the right fibers but not always in a consistent order: re-aligned (O(q^2))
        axis = int(np.argmin(grid.shape))
        tries = [grid] + (_fiber_orientations(F, grid, axis) if grid.shape[axis] <= REALIGN_MAX_SIZE else [])
        errs = [fit_grid(x, F, g, reassign=False)[-1] for g in tries]
        if min(errs) < min(found) / SPLIT_GAIN:
            best = tries[int(np.argmin(np.round(errs, ERROR_DECIMALS)))]
            pool.fits.append(pool.make(_fit_reoriented(x, F, best), True))


def _shape_alternatives(pool: GridPool, shape: tuple[int, ...]) -> list[Factorization] | None:
    """The grids of one shape: its exact tiling grids, else merged from a finer exact grid, else local search."""
    x, F, q, tol = pool.x, pool.F, pool.q, pool.tol
    alts = [f for f in pool._by_fit.get(shape, []) if f.error <= tol]
    if not alts:
        # a product of a finer shape is also one of this coarser shape: merge its axes (no reassignment)
        for fz in pool._exact_fine:
            for grid in _merged_grids(fz.grid, shape)[:1]:
                alts.append(pool.make(fit_grid(x, F, grid, reassign=False), True, shape))
            if alts:
                break
    if any(f.error <= tol for f in alts):
        return sorted([f for f in alts if f.error <= tol], key=_ekey)[:pool.max_alternatives]
    if q > MATCHING_MAX_ORDER and len(shape) > 2:
        return None  # large non-factorable blocks: the upper bound comes from the 2-factor shapes only
    starts = [np.arange(q).reshape(shape)]
    if len(shape) == 2 and shape[0] == 2 and q <= MATCHING_MAX_ORDER:
        search = pool.search
        starts += _matching_starts(F, int(np.flatnonzero(search.label == search.pref[0])[0]))
    for grid in starts:
        fit = _fit_reoriented(x, F, grid, max_rounds=10 if q <= MATCHING_MAX_ORDER else 3)
        alts.append(pool.make(fit, False, shape))
    alts.sort(key=_ekey)
    # a near-degenerate block can have several exact grids of this shape from different starts, only some
    # of which split further: the others are kept aside for split_pass
    pool.spare[shape] = _distinct([f for f in alts[1:] if f.error <= tol], alts[:1])[:pool.max_alternatives]
    return alts[:1]


@_register("shapes", "every shape asked for has its exact grids, else its best local-search grid",
           "per shape: merges O(q) or MATCHING starts (O(q^4) up to order 16) with O(q^3) refinements")
def shape_pass(pool: GridPool) -> None:
    """Every shape asked for: its exact grids (tiling, or merged from a finer one), else the best local search."""
    pool.fits.sort(key=lambda f: (-len(f.shape), _ekey(f)))
    for f in pool.fits:
        pool._by_fit.setdefault(f.shape, []).append(f)
    pool._exact_fine = [f for f in pool.fits if f.error <= pool.tol]
    for shape in sorted(pool.shapes, key=lambda s: (-len(s), s)):
        alts = _shape_alternatives(pool, shape)
        if alts is not None:
            pool.result.by_shape[shape] = alts


@_register("coarser shapes", "coarser shapes to split from, for finer shapes asked alone",
           "as 'shapes', only when a finer shape has no exact grid")
def coarser_shape_pass(pool: GridPool) -> None:
    """The coarser shapes a finer shape without an exact grid can be split from, when not asked for.

    A finer shape asked for alone (:func:`cogo.analysis.factor.factorization.factor_block_shape`) gets them
    searched as in :func:`shape_pass`, for the splitting only; :func:`finish_pass` drops them.
    """
    res, tol = pool.result, pool.tol
    pool.helpers = sorted({c for s in pool.shapes if not any(f.error <= tol for f in res.by_shape.get(s) or [])
                           for c in factor_shapes(pool.q) if c not in pool.shapes and len(c) < len(s)
                           and _split_axes(c, s)}, key=lambda s: (-len(s), s))
    for shape in pool.helpers:
        alts = _shape_alternatives(pool, shape)
        if alts is not None:
            res.by_shape[shape] = alts


@_register("split", "finer shapes read from a coarser exact grid whose factor is a product",
           "per shape and axis one sub-search of order <= q/2 (+ spare grids up to MAX_ALTERNATIVES)")
def split_pass(pool: GridPool) -> None:
    """Coarse to fine: a finer shape is also built by splitting a coarser exact grid (:func:`_split_from_coarser`)."""
    for shape in sorted(pool.shapes + pool.helpers, key=len):  # a split grid can be split again
        _split_from_coarser(pool, shape)


@_register("swap", "each shape's best grid with near-equal nodes swapped, when better",
           "SWAP_ROUNDS_MAX batched fits of SWAP_PAIRS_MAX swaps, one refinement each")
def swap_pass(pool: GridPool) -> None:
    """The best grid of each shape with near-equal nodes swapped between cells, when that fits better.

    Near-equal nodes of one cluster can sit in each other's cells (a fixed point of the
    reassignment); done before coarser shapes are merged from finer ones (:func:`merge_pass`).
    """
    res = pool.result
    for shape, alts in res.by_shape.items():
        fz = alts[0] if alts else None
        if fz is None or not 1e-12 < fz.error <= 2 * FACTOR_TOL:
            continue
        fit = _swap_near_equal(pool.x, pool.F, GridFit(fz.grid, None, None, None, fz.error))
        if fit.error < fz.error:
            res.by_shape[shape] = sorted([pool.make(fit, fz.exact_grid, shape)] + alts[1:], key=_ekey)


@_register("merge", "coarser shapes at least as good as the best finer exact grid",
           "one O(q) fit per shape")
def merge_pass(pool: GridPool) -> None:
    """Fine to coarse: a shape without an exact grid, or with a worse one than a finer exact grid, gets it merged.

    A merged exact grid fits at least as well as the finer one; split grids came after the first
    merge (:func:`shape_pass`), and near-degenerate blocks can have this shape's tiling grid wrong.
    """
    res, tol = pool.result, pool.tol
    for shape in sorted(pool.shapes + pool.helpers, key=lambda s: (-len(s), s)):
        cur = res.by_shape.get(shape) or []
        finer = sorted((f for s, alts in res.by_shape.items() if len(s) > len(shape) for f in alts[:1]
                        if f.error <= tol), key=lambda f: (_ekey(f), -len(f.shape)))
        if not finer or (cur and cur[0].error <= min(tol, finer[0].error)):
            continue
        for grid in _merged_grids(finer[0].grid, shape)[:1]:
            fit = fit_grid(pool.x, pool.F, grid, reassign=False)
            if not cur or fit.error < cur[0].error:
                keep = [f for f in cur if f.error <= tol] if fit.error <= tol else []
                res.by_shape[shape] = [pool.make(fit, finer[0].exact_grid, shape)] + keep[:pool.max_alternatives - 1]


@_register("finish", "helper shapes dropped; an exhausted search bound is said",
           "O(1)")
def finish_pass(pool: GridPool) -> None:
    """Drop the helper shapes; say when the search bound, not the block, ended the search."""
    for shape in pool.helpers:
        pool.result.by_shape.pop(shape, None)
    search = pool.search
    if search.budget.exhausted and not pool.result.factorable:
        pool.result.skipped = (f"not factored within the search bound ({search.budget.limit} candidate factor "
                               f"sets, {len(search.G)} distinct nodes)")




def run_passes(x: np.ndarray, F: np.ndarray, t: np.ndarray, shapes: list, tol: float, match_tol: float,
               max_alternatives: int, budget: int, subfactor: Callable, closed: list | None = None) -> BlockFactorization:
    """Run :data:`PASSES` over a fresh :class:`GridPool` of one block (canonical node order).

    ``closed``: the block's :func:`closed_form_fits` when read beforehand with other blocks' (else the tiling
    pass reads them).

    Returns
    -------
    BlockFactorization
        Per shape asked for, the grids found, best first (not yet in canonical form: see
        :func:`cogo.analysis.factor.factorization.factor_block`).
    """
    pool = GridPool(x, F, t, [tuple(s) for s in shapes], tol, match_tol, max_alternatives, budget, subfactor,
                    closed=closed)
    if not pool.shapes:
        return pool.result
    for p in PASSES:
        p.run(pool)
    return pool.result
