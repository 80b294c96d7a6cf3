"""Kronecker factorization of a per-frequency block (SPEC 8.4-8.5).

A block of order ``q`` is three vectors ``(a, b, c)`` in ``C^q`` (SPEC 6).  A
Kronecker product ``u (x) v`` of two partial solutions with ``q1`` and ``q2``
nodes (SPEC 3) has node ``(j1, j2)`` equal to ``(u_a[j1] v_a[j2], u_b[j1]
v_b[j2], u_c[j1] v_c[j2])``: arranged on a ``q1 x q2`` grid, each of the three
vectors is a rank-1 matrix.  Factoring a block means finding the grid (which
node sits in which cell) and the factors.

Gauge (SPEC 8.4)
----------------
A node ``(a, b, c)`` and ``(t a, t b, c / t^2)`` (real ``t != 0``) compute the
same function, so before factoring every node is *balanced*: ``t > 0`` is
chosen so that ``|t a| |t b| = |c / t^2|^2`` (for ``|a| = |b|`` all three
moduli become equal).  Balancing is multiplicative under ``*``, so a balanced
block of a product is the product of the balanced factors, and the catalogue
constructions with unit-modulus parameters are already balanced.  The
remaining sign ``t = -1`` -- ``(-a, -b, c)`` -- is handled by working, while
the grid is searched, with the sign-invariant node *features*
``(a^2, a b, b^2, c)``: ``x = u (x) v`` up to per-node signs iff the
features are a Kronecker product; the per-node signs are recovered afterwards
from the fitted factors.

The factors are normalized as SPEC 8.4: per factor and per ``p``, the first
node (grid cell 0) is 1, and the block is ``scale_p * (u^(1) (x) ... )_p``;
``scale_a scale_b scale_c`` is the common per-node product ``a_j b_j c_j``
(``1/q`` for the catalogue's global blocks, which all have ``r_kkk = 1``).

The search (polynomial, with a stated bound; no node order is enumerated)
-----------------------------------------------------------------------
1. *Repeated nodes.*  Nodes whose features agree within :data:`CLUSTER_TOL`
   (relative) are one *cluster*; the block is a multiset ``mu`` of ``C <= q``
   distinct features (``z_syn * z_syn`` is 3 features 3 times).  ``O(q^2)``.
2. *Multiplication table.*  With an anchor cluster ``o`` (the most typical
   modulus) at the origin of the grid, every factor is a set ``A_i`` of
   feature ratios containing 1 and the block is ``o A_1 ... A_k``.
   ``T[x, y]`` = the cluster closest to ``g_x g_y / g_o`` (relative distance
   at most ``match_tol``, else none).  ``O(C^3)``, vectorized.
3. *Factor sets.*  A candidate set of ``p`` clusters ``A = (o, y_1, ..)``, for
   ``p`` in :data:`PEEL_SIZES` = (2, 3) (the catalogue's factor sizes), is
   kept when the block is a union of translates ``x A``: the multiplicities
   ``beta`` of the translates solve ``M beta = mu`` in non-negative integers
   (``M[c, x]`` = how many ``a`` in ``A`` send ``x`` to ``c``).  The
   least-squares (minimum-norm) solution is tried first -- it spreads
   ``beta`` over the repeated nodes, which is what keeps ``z_syn * z_syn``
   from reading as ``z_syn`` times one node three times -- and, when it is
   consistent but fractional, a greedy exact cover (no backtracking).
   ``O(C^3)`` per candidate.  Only ``y`` whose ratio maps at least ``C / p``
   present clusters to present clusters are candidates (a true factor's ratio
   maps a whole translate), so generic blocks have few; at most ``C`` sets of
   size 2 and ``C (C + 1) / 2`` of size 3.
4. *Assembly.*  The kept sets are multiplied greedily (each may be used
   again, as ``z_syn`` is twice in ``z_syn * z_syn``) while the product
   stays within the multiset; a 2-set whose ratio is the product of two
   others' (a diagonal, which tiles when a factor is an involution such as
   ``z_nu=i``) is tried last.  A product covering the block is the finest
   grid; one covering part of it, ``P``, leaves one more factor: the bases
   ``R`` with ``R P`` = the block (one more tiling), so a block such as
   ``z_syn,ab * r4`` with a non-catalogue 4-node ``r4`` is the grid 3 x 4.
   Alternative grids (up to :data:`MAX_ALTERNATIVES`) start the greedy
   product at different kept sets; the classifier names each.  Coarser
   shapes are read off the finest exact grid by merging axes.
5. *Refinement* by alternating least squares: the rank-1 fit of every
   feature channel over the grid (higher-order power iteration) and an
   optimal reassignment of nodes to cells (Hungarian algorithm, ``O(q^3)``),
   until the assignment is stable; then the per-node signs are fixed from the
   fitted factors and each of ``a, b, c`` gets its best rank-1 (Kronecker) fit.
   Along every axis of size ``m <= 3`` the grid is also refitted with its
   fibers re-aligned against each fiber in turn (``_fiber_orientations``: the
   best of the ``m!`` orders of every fiber, ``O(q^2)``; the two re-aligned
   grids of least misfit are fitted, ``O(q)`` each, and the better one refined
   once more; a second pass only after an improvement),
   because when a factor is nearly degenerate (``z_nu`` with ``nu`` near 1, or
   ``z_xi(1, 1) * z_nu(-1)``, whose ratios nearly form a cyclic group) a grid
   with some fibers in the wrong order is a fixed point of the reassignment.
6. *Splitting* (``_split_from_coarser``).  A finer shape with no exact grid,
   or whose best error is more than :data:`SPLIT_GAIN` times a coarser exact
   grid's, is also built from that coarser grid: its factor along one axis is
   factored on its own and that axis replaced by the factor's grid, then
   refined as in 5.  This reads near-degenerate products whose nodes merge
   into clusters (``z_nu=i * z_xi * z_nu(nu)`` with ``nu`` near ``-i``: the
   tiling finds ``2 x 4`` but no ``2 x 2 x 2``); coarser shapes left without
   an exact grid are then merged from the split grids.  When the coarser grid
   came from local search, the other exact grids of that search (up to
   :data:`MAX_ALTERNATIVES`) are split in turn until one gives an exact finer
   grid (``z_nu=i * z_xi(1, -1) * z_nu(nu)`` with ``nu`` near ``i``: nearly
   four pairs of equal nodes, and the best ``2 x 4`` grid's 4-node factor is
   no product).  A finer shape asked for without its coarser shapes
   (:func:`factor_block_shape`) that has no exact grid gets them searched
   too, for the splitting only (they are not reported).  When more factor
   sets tile than assemblies start from (near-degenerate blocks whose ratio
   sets nearly form a group: ``z_xi(~-1, 1) * z_nu(~1) * z_syn,ab(~1, ~-1)``
   has 22), the 2-factor grid of the translates of each remaining set (at most
   :data:`UNTRIED_MAX`, fibers re-aligned, ``O(q^2)`` each) is also fitted and
   kept when it fits over :data:`SPLIT_GAIN` times better than every exact
   grid found; it is then split as above.
7. *Swaps* (``_swap_near_equal``).  The best grid of each shape (error between
   1e-12 and twice :data:`FACTOR_TOL`) tries swapping nodes within
   :data:`CLUSTER_TOL` of each other between their cells (at most
   :data:`SWAP_PAIRS_MAX` pairs, every single swap fitted at once, the best
   kept only if it cuts the misfit below 0.8x and the refined error drops; at
   most :data:`SWAP_ROUNDS_MAX` rounds): near-equal nodes that the tiling
   treats as one repeated node can sit in each other's cells, a fixed point of
   the refinement (``z_nu=i * z_xi(~1, 1) * z_nu(nu)`` with ``nu`` 0.02 rad
   from ``i``: 0.0097 against 0.0007 for the true grid).

**Bound.**  At most :data:`SEARCH_BUDGET` (4000) candidate sets are solved
per block (each ``O(C^3)``, ``C <= q <= MAX_ORDER = 64``), plus at most
:data:`MAX_ALTERNATIVES` assemblies and refinements (``O(q^3)`` each, plus
at most two passes of one more per axis of size 2 or 3, each with its
``O(q^2)`` re-alignment fits), plus per finer shape at most one split per
coarser shape and axis (one search of the same kind, with its own budget,
on a factor of order ``<= q/2``; only when a coarser grid is exact and the
finer one is not, or fits more than twice worse; up to
:data:`MAX_ALTERNATIVES` splits per coarser shape when its grid came from
local search and the first split is not exact; the coarser shapes of a finer
shape asked for alone are searched as in 4-5 only when it has no exact grid),
plus at most :data:`UNTRIED_MAX` translate-grid fits (``O(q^2)`` each, one
more refinement for each that fits over twice better), plus per shape at
most :data:`SWAP_ROUNDS_MAX` swap rounds (one batched fit of at most
:data:`SWAP_PAIRS_MAX` swaps and one refinement each): the
work is ``O(SEARCH_BUDGET q^3)`` whatever the block.  In practice a
catalogue product of order 64 takes about 0.3 s (``benchmarks/bench_classify.py``).
A search that exhausts the budget without an exact grid is reported as *not
factored within the bound* (``BlockFactorization.skipped``), never run on;
blocks larger than :data:`MAX_ORDER` are not factored either.  What is not
searched: factors of sizes other than 2 and 3 are found only as the one
remaining factor (``z_nu * r6`` is 2 x 6, but ``r4 * r4'`` with two
non-catalogue 4-node factors is not found as 4 x 4).

The reported *error* is ``||x - x_hat|| / ||x||`` over the ``3 q`` entries of
the balanced, sign-fixed block ``x`` and its Kronecker reconstruction
``x_hat``.  When no exact grid is found for a shape, the refinement is run
from the identity grid (and, for shapes ``2 x q/2`` with ``q <=``
:data:`MATCHING_MAX_ORDER`, from tolerance-free matching starts, so a block a
few percent off a product still gets its grid) and the smallest error found
is reported: an upper bound on the true minimum over all ``q!`` orders, which
only a full enumeration could give (``benchmarks/bench_classify.py``).  Above
:data:`MATCHING_MAX_ORDER` this local search (3 reassignment rounds) is run for
the 2-factor shapes only, so a large non-factorable block stays cheap.

Several different grids can reconstruct a block exactly (for example
``z_syn * z_nu(nu) = z_syn * z_nu(w nu)`` up to node order, because z_syn is
a group); the classifier names each alternative against the catalogue (see
:mod:`cogo.analysis.classify`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = [
    "FACTOR_TOL",
    "MATCH_TOL",
    "MAX_ORDER",
    "SEARCH_BUDGET",
    "Factor",
    "Factorization",
    "BlockFactorization",
    "balance_gauge",
    "node_features",
    "factor_shapes",
    "factor_block",
    "factor_block_shape",
    "canonical_factorization",
    "canonical_node_order",
    "fit_grid",
    "linear_assignment",
    "rank1",
    "rank1_batch",
    "kron_vectors",
]

#: A factorization whose relative reconstruction error is at most this counts as exact.
FACTOR_TOL = 0.05
#: Relative feature distance below which two nodes are matched in the multiplication table.
MATCH_TOL = 0.1
#: Most distinct exact grids returned per shape.
MAX_ALTERNATIVES = 6
#: Largest block order that is factored (larger blocks are reported unfactored).
MAX_ORDER = 64

_TINY = 1e-300


# --------------------------------------------------------------------------- results
@dataclass
class Factor:
    """One Kronecker factor ``(a, b, c)`` in ``C^m``, normalized so that its first node is ``(1, 1, 1)``.

    >>> import numpy as np
    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # an order-6 block (SPEC 7.1)
    >>> f2, f3 = factor_block(x.a, x.b, x.c).best.factors
    >>> len(f2.a), len(f3.a), bool(np.allclose([f3.a[0], f3.b[0], f3.c[0]], 1))
    (2, 3, True)
    """

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray

    @property
    def q(self) -> int:
        return int(len(self.a))

    @property
    def vectors(self) -> np.ndarray:
        """The factor as an array of shape ``(3, m)``."""
        return np.stack([self.a, self.b, self.c])

    def to_partial(self, name: str = "factor", params: dict | None = None):
        """This factor as a :class:`cogo.solvers.partial.PartialSolution`."""
        from cogo.solvers.partial import PartialSolution

        return PartialSolution(name, self.a.copy(), self.b.copy(), self.c.copy(), dict(params or {}))


@dataclass
class Factorization:
    """A block written as a Kronecker product over a node grid (SPEC 8.5).

    Attributes
    ----------
    shape : tuple of int
        Factor sizes ``(m_1, ..., m_k)``; their product is the block order.
    grid : int array of shape ``shape``
        ``grid[j_1, ..., j_k]`` is the block node (index into the block's
        vectors) at that cell; node ``(j_1, ..., j_k)`` of the product
        ``factors[0] * ... * factors[-1]``.
    factors : list of :class:`Factor`
        Normalized factors (first node 1, SPEC 8.4).
    scale : complex array (3,)
        ``(scale_a, scale_b, scale_c)``: the balanced, sign-fixed block is
        ``scale_p * kron(factors)_p`` in grid order.
    error : float
        Relative reconstruction error of the balanced, sign-fixed block.
    signs, balance : arrays (q,)
        The per-node gauge that was undone: node ``j`` of the block equals
        ``(signs_j a'_j / balance_j, signs_j b'_j / balance_j, c'_j balance_j^2)``
        with ``(a', b', c')`` its balanced, sign-fixed form.
    exact_grid : bool
        True when the grid came from an exact tiling (step 3 of the module
        docstring), False when it came from local search only.

    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # z_nu=i * z_syn: a 2 x 3 Kronecker product
    >>> f = factor_block(x.a, x.b, x.c).best
    >>> f.shape, f.grid.tolist(), round(f.error, 9), f.exact_grid
    ((2, 3), [[0, 2, 1], [4, 3, 5]], 0.0, True)

    The grid is the canonical representative (:func:`canonical_factorization`): the product
    has several exact grids (the stabilizer of ``z_syn`` moves nodes between them) and each
    factor may start at any of its elements; the rule picks one by the values alone, so the
    same block with its nodes permuted and gauge-transformed gets the same grid, relabelled:

    >>> import numpy as np
    >>> perm, s = np.array([3, 5, 0, 4, 1, 2]), np.array([-1.0, 2.0, 0.5, -3.0, 1.0, -0.25])
    >>> g = factor_block(s * x.a[perm], s * x.b[perm], x.c[perm] / s**2).best
    >>> perm[g.grid].tolist()
    [[0, 2, 1], [4, 3, 5]]
    """

    shape: tuple[int, ...]
    grid: np.ndarray
    factors: list[Factor]
    scale: np.ndarray
    error: float
    signs: np.ndarray
    balance: np.ndarray
    exact_grid: bool = True

    @property
    def q(self) -> int:
        return int(np.prod(self.shape))

    @property
    def sort_key(self) -> tuple:
        """How factorizations are ranked: the error to :data:`ERROR_DECIMALS` decimals, then the
        canonical key of the factors (:func:`canonical_factorization`), so equally good grids are
        ranked by what they are, not by float noise or the order they were found in."""
        return (round(float(self.error), ERROR_DECIMALS),
                tuple(tuple(_feature_key(f.vectors[:, e]) for e in range(f.q)) for f in self.factors))

    @property
    def abc_scale(self) -> complex:
        """``scale_a scale_b scale_c``: the per-node product ``a_j b_j c_j`` of the reconstruction."""
        return complex(np.prod(self.scale))

    def kron(self) -> np.ndarray:
        """``scale_p * kron(factors)_p`` in grid (cell) order, shape ``(3, q)``."""
        return self.scale[:, None] * kron_vectors([f.vectors for f in self.factors])

    def reconstruct(self) -> np.ndarray:
        """The reconstruction in the block's own gauge and node order, shape ``(3, q)``."""
        cells = self.kron()
        out = np.empty_like(cells)
        out[:, self.grid.reshape(-1)] = cells
        t, s = self.balance, self.signs
        out[0] *= s / t
        out[1] *= s / t
        out[2] *= t ** 2
        return out


@dataclass
class BlockFactorization:
    """All factorizations tried for one block: per shape, the grids found (best first).

    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> bf = factor_block(x.a, x.b, x.c)
    >>> bf.q, bf.factorable, sorted(bf.by_shape), bf.skipped
    (6, True, [(2, 3)], None)
    """

    q: int
    tol: float
    by_shape: dict = field(default_factory=dict)
    skipped: str | None = None

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        return list(self.by_shape)

    def best_for(self, shape: tuple[int, ...]) -> Factorization | None:
        alts = self.by_shape.get(tuple(shape)) or []
        return alts[0] if alts else None

    @property
    def exact(self) -> list[Factorization]:
        """Every factorization with error at most ``tol``, finest shape first, then by error."""
        out = [f for alts in self.by_shape.values() for f in alts if f.error <= self.tol]
        return sorted(out, key=lambda f: (-len(f.shape),) + f.sort_key)

    @property
    def best(self) -> Factorization | None:
        """The finest factorization within ``tol`` (ties: smallest error); else the smallest error found."""
        ex = self.exact
        if ex:
            return ex[0]
        allf = [alts[0] for alts in self.by_shape.values() if alts]
        return min(allf, key=lambda f: f.sort_key) if allf else None

    @property
    def factorable(self) -> bool:
        return bool(self.exact)

    @property
    def min_error(self) -> float | None:
        allf = [alts[0] for alts in self.by_shape.values() if alts]
        return min(f.error for f in allf) if allf else None


# --------------------------------------------------------------------------- basic pieces
def _vec(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == object:
        arr = arr.astype(np.complex128)
    arr = np.asarray(arr, dtype=np.complex128).reshape(-1)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"block vector {name} contains NaN or infinite values")
    return arr


def balance_gauge(a: Any, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Undo the per-node gauge ``(t a, t b, c / t^2)`` (SPEC 8.4) by balancing every node.

    Returns ``(t a, t b, c / t^2, t)`` with ``t = (|c| / sqrt(|a| |b|))^(1/3) > 0``
    per node, so that ``|t a| |t b| = |c / t^2|^2``; nodes with a zero entry
    keep ``t = 1``.

    >>> import numpy as np
    >>> a, b, c = np.array([1.0, 2.0]), np.array([3.0, 1.0]), np.array([0.5, 4.0])
    >>> ga, gb, gc, t = balance_gauge(5 * a, 5 * b, c / 25)   # gauge-transformed with t = 5
    >>> ua, ub, uc, _ = balance_gauge(a, b, c)
    >>> bool(np.allclose([ga, gb, gc], [ua, ub, uc]))        # the same balanced node: the gauge is undone
    True
    >>> bool(np.allclose(np.abs(ua * ub), np.abs(uc) ** 2))
    True
    """
    a, b, c = _vec(a, "a"), _vec(b, "b"), _vec(c, "c")
    ma, mb, mc = np.abs(a), np.abs(b), np.abs(c)
    ok = (ma > 0) & (mb > 0) & (mc > 0)
    t = np.ones(len(a))
    t[ok] = np.cbrt(mc[ok] / np.sqrt(ma[ok] * mb[ok]))
    return a * t, b * t, c / t ** 2, t


def node_features(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Sign-invariant node features ``(a^2, a b, b^2, c)``, shape ``(q, 4)``.

    ``(a, b, c)`` is a Kronecker product up to per-node signs ``(-a, -b, c)``
    iff its features are a Kronecker product (channel by channel).

    >>> import numpy as np
    >>> F = node_features(np.array([1, -1]), np.array([2, -2]), np.array([3, 3]))
    >>> F.real.tolist()                                 # (a, b, c) and (-a, -b, c) look the same
    [[1, 2, 4, 3], [1, 2, 4, 3]]
    """
    return np.stack([a * a, a * b, b * b, c], axis=1)


def kron_vectors(factors: Sequence[np.ndarray]) -> np.ndarray:
    """Kronecker product along nodes of arrays ``(C, m_i)``: ``(C, prod m_i)``, node order row-major (SPEC 3).

    >>> import numpy as np
    >>> kron_vectors([np.array([[1, 2]]), np.array([[1, 10, 100]])]).real.tolist()
    [[1.0, 10.0, 100.0, 2.0, 20.0, 200.0]]
    """
    out = np.asarray(factors[0], dtype=np.complex128)
    for f in factors[1:]:
        f = np.asarray(f, dtype=np.complex128)
        out = (out[:, :, None] * f[:, None, :]).reshape(out.shape[0], -1)
    return out


def factor_shapes(q: int) -> list[tuple[int, ...]]:
    """Every factorization of ``q`` into at least two factors of size >= 2, as non-decreasing tuples.

    >>> factor_shapes(12)
    [(2, 2, 3), (2, 6), (3, 4)]
    """
    out: list[tuple[int, ...]] = []

    def rec(rest: int, lo: int, acc: list[int]) -> None:
        if rest == 1:
            if len(acc) >= 2:
                out.append(tuple(acc))
            return
        for m in range(lo, rest + 1):
            if rest % m == 0:
                rec(rest // m, m, acc + [m])

    if q >= 4:
        rec(q, 2, [])
    return sorted(out)


def linear_assignment(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost perfect assignment of a square cost matrix (Hungarian algorithm, ``O(n^3)``).

    Returns ``col`` with ``col[i]`` the column assigned to row ``i``.

    >>> import numpy as np
    >>> cost = np.array([[4.0, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> col = linear_assignment(cost)
    >>> col.tolist(), float(cost[[0, 1, 2], col].sum())   # 1 + 2 + 2 is the minimum total
    ([1, 0, 2], 5.0)
    """
    cost = np.asarray(cost, dtype=float)
    n = cost.shape[0]
    if cost.shape != (n, n):
        raise ValueError(f"cost matrix must be square, got {cost.shape}")
    u = np.zeros(n + 1)
    v = np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=np.int64)  # p[j]: row matched to column j (1-based; 0 = none)
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used[1:]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            upd = free & (cur < minv[1:])
            mv = minv[1:]
            mv[upd] = cur[upd]
            w = way[1:]
            w[upd] = j0
            cand = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    col = np.empty(n, dtype=np.int64)
    col[p[1:] - 1] = np.arange(n)
    return col


def rank1(T: np.ndarray, iters: int = 30, tol: float = 1e-10) -> tuple[complex, list[np.ndarray]]:
    """Best rank-1 approximation ``T ~ lam * u_1 (x) ... (x) u_k`` of a complex tensor (unit ``u_i``).

    Two modes: the leading singular pair.  More modes: higher-order power
    iteration started from the leading left singular vectors of the mode
    unfoldings (HOSVD), which converges in a few steps for the near rank-1
    tensors of interest.

    >>> import numpy as np
    >>> T = np.multiply.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])).astype(complex)
    >>> lam, (u1, u2) = rank1(T)                         # exactly rank 1: lam u1 (x) u2 = T
    >>> bool(np.allclose(lam * np.multiply.outer(u1, u2), T)), round(abs(lam), 9)
    (True, 15.811388301)
    """
    T = np.asarray(T, dtype=np.complex128)
    k = T.ndim
    if k == 1:
        nrm = float(np.linalg.norm(T))
        return complex(nrm), [T / nrm if nrm > 0 else np.eye(len(T), 1, dtype=complex)[:, 0]]
    if k == 2:
        U, S, Vh = np.linalg.svd(T)
        return complex(S[0]), [U[:, 0], Vh[0]]
    us = []
    for i in range(k):
        unf = np.moveaxis(T, i, 0).reshape(T.shape[i], -1)
        U, _, _ = np.linalg.svd(unf, full_matrices=False)
        us.append(U[:, 0])
    letters = "abcdefghij"[:k]
    prev = None
    for _ in range(iters):
        for i in range(k):
            ops = [np.conj(us[j]) for j in range(k) if j != i]
            sub = ",".join(letters[j] for j in range(k) if j != i)
            w = np.einsum(f"{letters},{sub}->{letters[i]}", T, *ops)
            nrm = np.linalg.norm(w)
            us[i] = w / nrm if nrm > 0 else us[i]
        lam = complex(np.einsum(f"{letters},{','.join(letters)}->", T, *[np.conj(x) for x in us]))
        if prev is not None and abs(lam - prev) <= tol * max(1.0, abs(lam)):
            break
        prev = lam
    lam = complex(np.einsum(f"{letters},{','.join(letters)}->", T, *[np.conj(x) for x in us]))
    return lam, us


def rank1_batch(T: np.ndarray, iters: int = 30, tol: float = 1e-10) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`rank1` for a stack of tensors ``T[c]`` at once: returns ``lam`` (C,) and ``u_i`` (C, m_i).

    >>> import numpy as np
    >>> T = np.multiply.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])).astype(complex)
    >>> lam, us = rank1_batch(np.stack([T, 2 * T]))
    >>> np.round(np.abs(lam), 9).tolist(), [u.shape for u in us]
    ([15.811388301, 31.622776602], [(2, 2), (2, 3)])
    """
    T = np.asarray(T, dtype=np.complex128)
    C, shape = T.shape[0], T.shape[1:]
    k = len(shape)
    if k == 1:
        nrm = np.linalg.norm(T, axis=1)
        return nrm.astype(np.complex128), [T / np.where(nrm == 0, 1.0, nrm)[:, None]]
    if k == 2:
        U, S, Vh = np.linalg.svd(T)
        return S[:, 0].astype(np.complex128), [U[:, :, 0], Vh[:, 0, :]]
    us = []
    for i in range(k):
        unf = np.moveaxis(T, i + 1, 1).reshape(C, shape[i], -1)
        U, _, _ = np.linalg.svd(unf, full_matrices=False)
        us.append(U[:, :, 0])
    L = "abcdefghij"[:k]
    full = "z" + L + "," + ",".join("z" + ch for ch in L) + "->z"
    prev = None
    for _ in range(iters):
        for i in range(k):
            ops = [np.conj(us[j]) for j in range(k) if j != i]
            sub = ",".join("z" + L[j] for j in range(k) if j != i)
            w = np.einsum(f"z{L},{sub}->z{L[i]}", T, *ops)
            nrm = np.linalg.norm(w, axis=1, keepdims=True)
            us[i] = np.where(nrm > 0, w / np.where(nrm == 0, 1.0, nrm), us[i])
        lam = np.einsum(full, T, *[np.conj(u) for u in us])
        if prev is not None and np.all(np.abs(lam - prev) <= tol * np.maximum(1.0, np.abs(lam))):
            break
        prev = lam
    return lam, us


def _kron_batch(lam: np.ndarray, us: list[np.ndarray]) -> np.ndarray:
    """``lam[c] * kron(u_1[c], ..., u_k[c])`` for every c: (C, prod m_i)."""
    out = us[0]
    for u in us[1:]:
        out = (out[:, :, None] * u[:, None, :]).reshape(out.shape[0], -1)
    return lam[:, None] * out


def _rank1_cells(T: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Rank-1 reconstruction of each channel of ``T`` (cells, C) over the grid ``shape``; returns (cells, C)."""
    lam, us = rank1_batch(T.T.reshape((T.shape[1],) + tuple(shape)))
    return _kron_batch(lam, us).T


# --------------------------------------------------------------------------- the peeling search
class _Budget:
    """Counts the candidate factor sets tried (each one ``O(C^3)`` solve); refuses steps over ``limit``."""

    def __init__(self, limit: int):
        self.limit = int(limit)
        self.used = 0

    def step(self) -> bool:
        self.used += 1
        return self.used <= self.limit

    @property
    def exhausted(self) -> bool:
        return self.used > self.limit


def _rel_dist(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``||X_i - Y_j|| / max(||X_i||, ||Y_j||)`` for feature rows ``X`` (n, 4) and ``Y`` (m, 4): (n, m)."""
    nx_ = np.linalg.norm(X, axis=1)
    ny = np.linalg.norm(Y, axis=1)
    d = np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=-1)
    return d / np.maximum(np.maximum(nx_[:, None], ny[None, :]), _TINY)


def _clusters(F: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Group nodes with (nearly) identical features: connected components of ``relative distance <= tol``.

    Returns ``(cluster label per node, representative features per cluster (C, 4))``
    (the mean of its members' features).  ``O(q^2)``.
    """
    q = F.shape[0]
    adj = _rel_dist(F, F) <= tol
    label = np.full(q, -1, dtype=np.int64)
    C = 0
    for s in range(q):
        if label[s] >= 0:
            continue
        comp = np.zeros(q, dtype=bool)
        comp[s] = True
        frontier = comp.copy()
        while frontier.any():
            frontier = adj[frontier].any(axis=0) & ~comp
            comp |= frontier
        label[comp] = C
        C += 1
    G = np.stack([F[label == k].mean(axis=0) for k in range(C)])
    return label, G


#: Decimals to which errors are read when factorizations are ranked (float noise of 1e-16 decides nothing).
ERROR_DECIMALS = 9


def _ekey(f) -> float:
    return round(float(f.error), ERROR_DECIMALS)


#: Decimals to which feature values are read in canonical keys (node order, anchor, factor orientation).
KEY_DECIMALS = 6


def _feature_key(f: np.ndarray) -> tuple:
    """A canonical, noise-robust sort key of one node's features ``(a^2, a b, b^2, c)`` (or any complex vector).

    Per entry: the angle in degrees read in ``[0, 360)`` and the log-modulus, both rounded to
    :data:`KEY_DECIMALS` decimals (an angle within ``1e-6`` degrees of 360 reads as 0), so two
    nodes equal up to float noise get the same key and the order does not depend on node order.
    """
    f = np.asarray(f, dtype=np.complex128).reshape(-1)
    mag = np.abs(f)
    ang = np.round(np.mod(np.degrees(np.angle(f)), 360.0), KEY_DECIMALS)
    ang = np.where(ang >= 360.0, 0.0, ang) + 0.0
    lm = np.round(np.log(np.maximum(mag, _TINY)), KEY_DECIMALS) + 0.0
    ang = np.where(mag > 0, ang, 0.0)
    return tuple(float(v) for pair in zip(ang, lm) for v in pair)


def _product_table(G: np.ndarray, o: int, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """``T[x, y]``: the cluster closest to ``g_x g_y / g_o`` (relative distance <= ``tol``, else -1); and that distance.

    ``O(C^3)``, vectorized.
    """
    C = G.shape[0]
    P = G[:, None, :] * G[None, :, :] / np.where(G[o] == 0, _TINY, G[o])
    D = _rel_dist(P.reshape(-1, 4), G).reshape(C, C, C)
    T = np.argmin(D, axis=2)
    dist = np.take_along_axis(D, T[:, :, None], axis=2)[:, :, 0]
    return np.where(dist <= tol, T, -1), dist


def _solve_tiling(T: np.ndarray, A: Sequence[int], mu: np.ndarray, budget: _Budget) -> np.ndarray | None:
    """Multiplicities ``beta`` (non-negative integers) with ``mu = beta * A`` as multisets of clusters, or None.

    ``mu[c]`` is how often cluster ``c`` occurs in the multiset being factored;
    the translate of ``x`` by ``A`` is ``{T[x, a] : a in A}``.  The linear system
    ``M beta = mu`` (``M[c, x]`` = how many ``a`` in ``A`` send ``x`` to ``c``)
    is solved by least squares: its minimum-norm solution spreads ``beta``
    over as many clusters as it can (for the degenerate block
    ``z_syn * z_syn``, nine nodes that are three features three times,
    ``A = z_syn`` gives ``beta = (1, 1, 1)``: the other factor is ``z_syn``
    again, not one node three times).  When that solution is consistent but
    not a non-negative integer vector (several tilings exist), a greedy exact
    cover (the scarcest cluster first, no backtracking; one more budget step)
    is tried.  ``O(C^3)``.
    """
    C = len(mu)
    rows = T[:, list(A)]  # (C, p)
    X = np.flatnonzero((rows >= 0).all(axis=1) & (mu > 0))
    if len(X) == 0:
        return None
    M = np.zeros((C, len(X)))
    for j, x in enumerate(X):
        np.add.at(M[:, j], rows[x], 1.0)
    target = mu.astype(float)

    def integral(sol: np.ndarray) -> np.ndarray | None:
        rb = np.round(sol)
        if np.all(np.abs(sol - rb) < 1e-6) and np.all(rb >= 0) and np.array_equal(M @ rb, target):
            beta = np.zeros(C, dtype=np.int64)
            beta[X] = rb.astype(np.int64)
            return beta
        return None

    sol = np.linalg.lstsq(M, target, rcond=None)[0]
    beta = integral(sol)
    if beta is not None:
        return beta
    if np.linalg.norm(M @ sol - target) > 1e-6 * max(1.0, float(np.linalg.norm(target))) or not budget.step():
        return None
    # consistent but fractional (several tilings): a greedy exact cover, the scarcest cluster first, no backtracking
    need = target.copy()
    rb = np.zeros(len(X))
    while need.sum() > 0.5:
        fits = (M <= need[:, None] + 1e-9).all(axis=0)  # translates that still fit
        opts = (M[:, fits] > 0).sum(axis=1)
        live = np.flatnonzero(need > 0.5)
        if not fits.any() or (opts[live] == 0).any():
            return None
        c = live[np.argmin(opts[live])]
        j = np.flatnonzero(fits & (M[c] > 0))[0]
        rb[j] += 1
        need -= M[:, j]
    return integral(rb)


def _peel_candidates(T: np.ndarray, D: np.ndarray, o: int, mu: np.ndarray, p: int) -> list[tuple[int, ...]]:
    """Candidate factor sets ``(o, y_1, .., y_(p-1))`` (multisets of present clusters), most promising first.

    The ratio ``g_y / g_o`` of a true factor maps every cluster of the other
    factor's translate through ``o`` to a present cluster, so ``y`` must send
    at least ``C / p`` of the ``C`` present clusters to present clusters; the
    others are not tried.  Sets that use the ratio 1 (``y = o``: repeated
    nodes) come last.  At most ``C`` sets for ``p = 2`` and ``C (C + 1) / 2``
    for ``p = 3``.
    """
    present = mu > 0
    Cp = int(present.sum())
    good = (T >= 0) & present[:, None] & present[T.clip(0)]
    hits = (good & present[:, None]).sum(axis=0)
    ok = [int(y) for y in np.flatnonzero(present & (hits * p >= Cp))]
    avg = {y: float(D[good[:, y], y].mean()) if hits[y] else np.inf for y in ok}
    ok.sort(key=lambda y: (y == o, -int(hits[y]), round(avg[y], ERROR_DECIMALS)))
    rank = {y: i for i, y in enumerate(ok)}
    out = []
    for ys in itertools.combinations_with_replacement(ok, p - 1):
        S = (o,) + ys
        if (np.bincount(np.asarray(S), minlength=len(mu)) > mu).any():
            continue  # a set cannot use a cluster more often than it occurs
        out.append(S)
    out.sort(key=lambda S: (sum(y == o for y in S[1:]), sum(rank[y] for y in S[1:])))
    return out


#: Factor sizes peeled off a block (the catalogue's factors have 2 and 3 nodes).
PEEL_SIZES = (2, 3)
#: Most candidate factor sets (each one ``O(C^3)`` solve) tried per block.
SEARCH_BUDGET = 4000
#: Relative feature distance below which nodes are treated as one repeated node.
CLUSTER_TOL = 0.05


class _Search:
    """The factor-set search over the clusters of one block (module docstring, steps 1-4)."""

    def __init__(self, F: np.ndarray, match_tol: float, budget: int):
        self.label, self.G = _clusters(F, CLUSTER_TOL)
        self.mu = np.bincount(self.label, minlength=len(self.G)).astype(np.int64)
        mod = np.abs(self.G).mean(axis=1)
        # anchor preference: the most typical modulus, read to 1e-6 so float noise (1e-16 from a real checkpoint)
        # does not pick it; ties by the canonical key of the features (_feature_key), not by node order
        dev = np.round(np.abs(np.log(np.maximum(mod, _TINY))), 6)
        keys = [_feature_key(g) for g in self.G]
        self.pref = np.array(sorted(range(len(self.G)), key=lambda i: (dev[i], keys[i])), dtype=np.int64)
        self.o = int(self.pref[0])
        self.T, self.D = _product_table(self.G, self.o, match_tol)
        self.budget = _Budget(budget)
        self.tilings: dict = {}  # kept factor set -> multiplicities of its translates (factor_sets)
        self.untried: list = []  # kept factor sets that no assembly in grids() started from

    def factor_sets(self) -> list[tuple[int, ...]]:
        """Every candidate set of :data:`PEEL_SIZES` nodes through the anchor whose translates tile the block."""
        n = int(self.mu.sum())
        out = []
        for p in PEEL_SIZES:
            if n % p or n == p:
                continue
            for A in _peel_candidates(self.T, self.D, self.o, self.mu, p):
                if not self.budget.step():
                    return out
                beta = _solve_tiling(self.T, A, self.mu, self.budget)
                if beta is not None:
                    out.append(A)
                    self.tilings[A] = beta
        # a 2-set whose ratio is the product of two other 2-sets' ratios is a diagonal of their grid
        # (it tiles when one of them is an involution, as z_nu=i is): tried after the others
        two = [A[1] for A in out if len(A) == 2 and A[1] != self.o]
        diag = {int(self.T[u, v]) for u in two for v in two if u != v}
        out.sort(key=lambda A: (len(A) == 2 and A[1] in diag, self.o in A[1:]))
        return out

    def assemble(self, sets: list[tuple[int, ...]]) -> list | None:
        """Greedy product of factor sets (each usable repeatedly) staying within the block's multiset.

        Returns the list of sets used, in order (the grid's axes), possibly
        covering only part of the block.
        """
        n = int(self.mu.sum())
        P = np.array([self.o])
        used: list = []
        while len(P) < n:
            # the first step takes the first set (the assembly's start); every later step the set whose new
            # cells match the table best (smallest largest distance; ties: list order).  Taking the first set
            # that fits instead let a spurious product within match_tol (z_syn * z_syn * z_nu(e^0.3i) *
            # z_nu(e^1.3i): r^2 lands 0.094 from a present node, and the repeated nodes leave room for it)
            # reuse a 2-set, depending on which cluster the node order made the anchor.
            pick = None
            for i, A in enumerate(sets):
                if n % (len(P) * len(A)):
                    continue
                idx = (P[:, None], np.asarray(A)[None, :])
                Q = self.T[idx].reshape(-1)
                if (Q < 0).any() or (np.bincount(Q, minlength=len(self.mu)) > self.mu).any():
                    continue
                worst = float(self.D[idx].max())
                if pick is None or worst < pick[0] - 1e-9:
                    pick = (worst, A, Q)
                if not used:
                    break
            if pick is None:
                break
            P = pick[2]
            used.append(pick[1])
        return used

    def cells(self, sets: list[tuple[int, ...]], rest: np.ndarray | None = None) -> np.ndarray:
        """Cluster of every grid cell: ``cell(i_1, .., i_k, j) = rest_j * A_1[i_1] * ... * A_k[i_k]`` (via the table)."""
        P = np.array([self.o]) if rest is None else rest
        for A in sets:
            P = self.T[P[..., None], np.asarray(A)]
        return P if rest is not None else P.reshape(-1)

    def grids(self, max_alternatives: int) -> list[np.ndarray]:
        """Node grids (axes sorted by size) of the exact factorizations found, best first."""
        sets = self.factor_sets()
        self.untried = sets[max_alternatives:]
        out, seen = [], set()
        n = int(self.mu.sum())
        for start in range(min(len(sets), max_alternatives)):
            used = self.assemble(sets[start:] + sets[:start])
            if not used:
                continue
            m = int(np.prod([len(A) for A in used]))
            P = self.cells(used)
            if m == n:
                cells = P.reshape([len(A) for A in used])
            else:
                # the remaining factor: the bases R with R * P = the block (one more tiling)
                beta = _solve_tiling(self.T, tuple(int(v) for v in P), self.mu, self.budget) \
                    if self.budget.step() else None
                if beta is None:
                    continue
                R = np.repeat(np.arange(len(beta)), beta)
                cells = self.T[R[:, None], P[None, :]] if len(P) else None
                cells = np.moveaxis(cells.reshape((len(R),) + tuple(len(A) for A in used)), 0, -1)
            g = self._nodes(cells)
            if g is None:
                continue
            key = tuple(sorted(g.shape)), tuple(sorted(frozenset(r.tolist()) for r in g.reshape(g.shape[0], -1)))
            if key in seen:
                continue
            seen.add(key)
            out.append(g)
        return out

    def translate_grids(self, sets: list[tuple[int, ...]]) -> list[np.ndarray]:
        """Node grid ``(n/p, p)`` of the tiling by each set's translates (a row per translate ``x A``)."""
        out = []
        for A in sets:
            beta = self.tilings.get(A)
            if beta is None:
                continue
            R = np.repeat(np.arange(len(beta)), beta)
            g = self._nodes(self.T[R[:, None], np.asarray(A)[None, :]])
            if g is not None:
                out.append(g)
        return out

    def _nodes(self, cells: np.ndarray) -> np.ndarray | None:
        """Replace clusters by distinct nodes; axes sorted by size."""
        if (cells < 0).any() or cells.ndim < 2:
            return None
        pools = [list(np.flatnonzero(self.label == k)) for k in range(len(self.G))]
        flat = cells.reshape(-1)
        nodes = np.empty(len(flat), dtype=np.int64)
        for i, k in enumerate(flat):
            if not pools[k]:
                return None
            nodes[i] = pools[k].pop(0)
        grid = nodes.reshape(cells.shape)
        return np.transpose(grid, np.argsort(grid.shape, kind="stable"))


def _matching_starts(F: np.ndarray, o: int) -> list[np.ndarray]:
    """Tolerance-free starting grids of shape ``(2, q/2)``: one per candidate partner of the anchor.

    For a partner ``j`` the 2-factor's feature ratio is ``r = F_j / F_o``; every
    node pair ``(s, t)`` costs the relative misfit of ``F_t = r F_s`` (the
    better orientation), and a maximum-weight perfect matching (networkx
    blossom, ``O(q^3)``) pairs all nodes at least total cost.  Unlike the
    tiling of :func:`_grids_for_shape` this needs no match threshold, so a
    noisy trained block (a few percent off a product) still gets the right
    grid, which :func:`fit_grid` then refines.  ``O(q^4)`` in all.
    """
    import networkx as nx  # only when a matching is needed (keeps start-up cheap)

    q = F.shape[0]
    if q % 2 or q < 4:
        return []
    nrm = np.linalg.norm(F, axis=1)
    iu, ju = np.triu_indices(q, 1)
    starts = []
    for j in range(q):
        if j == o:
            continue
        r = F[j] / np.where(F[o] == 0, _TINY, F[o])
        fwd = np.linalg.norm(F[None, :, :] - r * F[:, None, :], axis=2)  # [s, t]: misfit of F_t = r F_s
        den = nrm[None, :] + np.abs(r * F).sum(axis=1)[:, None] / 2 + _TINY
        cost = fwd / den
        pair = np.minimum(cost, cost.T)
        g = nx.Graph()
        big = float(pair[iu, ju].max()) + 1.0
        g.add_weighted_edges_from(zip(iu.tolist(), ju.tolist(), (big - pair[iu, ju]).tolist()))
        m = nx.max_weight_matching(g, maxcardinality=True)
        if len(m) != q // 2:
            continue
        rows = [(u, v) if cost[u, v] <= cost[v, u] else (v, u) for u, v in m]
        rows.sort(key=lambda uv: (o not in uv, uv))
        starts.append(np.array(rows, dtype=np.int64).T.copy())
    return starts


def fit_grid(x: np.ndarray, F: np.ndarray, grid: np.ndarray, reassign: bool = True,
             max_rounds: int = 10) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, float]:
    """Refine a grid and fit Kronecker factors to the balanced block ``x`` (3, q) with features ``F``.

    Alternates rank-1 fits of the feature channels with an optimal
    reassignment of nodes to cells (Hungarian algorithm), then fixes the
    per-node signs and fits each of ``a, b, c`` by a rank-1 tensor (SPEC 8.5).
    Returns ``(grid, factor_vectors, scale, signs, error)`` with
    ``factor_vectors[i]`` of shape ``(3, m_i)`` normalized to first node 1.

    >>> import numpy as np
    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> X = np.stack(balance_gauge(x.a, x.b, x.c)[:3])
    >>> grid, facs, scale, signs, err = fit_grid(X, node_features(*X), np.arange(6).reshape(2, 3))
    >>> grid.tolist(), [f.shape for f in facs], round(err, 9)   # the 2 x 3 grid fits exactly
    ([[0, 1, 2], [3, 4, 5]], [(3, 2), (3, 3)], 0.0)
    """
    shape = grid.shape
    q = grid.size
    flat = grid.reshape(-1).copy()
    for _ in range(max_rounds if reassign else 1):
        pred = _rank1_cells(F[flat], shape)  # (cells, 4)
        if not reassign:
            break
        cost = np.round((np.abs(F[:, None, :] - pred[None, :, :]) ** 2).sum(-1), ERROR_DECIMALS)  # (nodes, cells)
        col = linear_assignment(cost)
        new = np.empty(q, dtype=np.int64)
        new[col] = np.arange(q)
        if np.array_equal(new, flat):
            break
        flat = new
    # signs: predicted a, b up to a common sign per node from the feature fit
    # square roots taken factor by factor (per cell they would carry arbitrary signs)
    lam, uu = rank1_batch(F[flat, :2].T.reshape((2,) + tuple(shape)))
    ra = [np.sqrt(u[0]) for u in uu]
    rb = [u[1] / np.where(r == 0, _TINY, r) for u, r in zip(uu, ra)]
    l2 = np.sqrt(lam[0])
    ahat = l2 * kron_vectors([r[None, :] for r in ra])[0]
    bhat = lam[1] / (l2 if l2 != 0 else _TINY) * kron_vectors([r[None, :] for r in rb])[0]
    xa, xb = x[0, flat], x[1, flat]
    score = np.real(np.conj(ahat) * xa + np.conj(bhat) * xb)
    sg = np.where(score < 0, -1.0, 1.0)
    cells = np.stack([xa * sg, xb * sg, x[2, flat]])  # (3, cells)
    k = len(shape)
    facs = [np.empty((3, m), dtype=np.complex128) for m in shape]
    scale = np.empty(3, dtype=np.complex128)
    recon = np.empty_like(cells)
    lams, uss = rank1_batch(cells.reshape((3,) + tuple(shape)))
    for p in range(3):
        lam = lams[p]
        for i in range(k):
            u = uss[i][p]
            piv = u[0] if abs(u[0]) > 1e-12 * max(1.0, np.abs(u).max()) else u[np.argmax(np.abs(u))]
            facs[i][p] = u / piv
            lam *= piv
        scale[p] = lam
        recon[p] = lam * kron_vectors([f[p][None, :] for f in facs])[0]
    nrm = np.linalg.norm(cells)
    err = float(np.linalg.norm(cells - recon) / nrm) if nrm > 0 else 0.0
    signs = np.empty(q)
    signs[flat] = sg
    return flat.reshape(shape), facs, scale, signs, err


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


def _prepare(a: Any, b: Any, c: Any):
    a, b, c = _vec(a, "a"), _vec(b, "b"), _vec(c, "c")
    if not (len(a) == len(b) == len(c)):
        raise ValueError(f"block vectors must have equal lengths; got {len(a)}, {len(b)}, {len(c)}")
    ab, bb, cb, t = balance_gauge(a, b, c)
    prod = np.abs(ab * bb * cb)
    s = float(np.cbrt(prod.mean())) if len(a) and prod.mean() > 0 else 1.0
    x = np.stack([ab, bb, cb])
    F = node_features(ab / s, bb / s, cb / s)
    return x, F, t


def factor_block_shape(a: Any, b: Any, c: Any, shape: Sequence[int], match_tol: float = MATCH_TOL,
                       tol: float = FACTOR_TOL, max_alternatives: int = MAX_ALTERNATIVES,
                       _prepared=None) -> list[Factorization]:
    """Factorizations of one block over one grid ``shape`` (SPEC 8.5), best first.

    Returns the exact grids of that shape (error <= ``tol``; found by the
    search of :func:`factor_block` directly or merged from a finer exact grid),
    else the single best grid found by local search (error > ``tol``
    typically).

    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> fs = factor_block_shape(x.a, x.b, x.c, (2, 3))
    >>> fs[0].shape, round(fs[0].error, 9)
    ((2, 3), 0.0)
    """
    shape = tuple(int(m) for m in shape)
    prepared = _prepare(a, b, c) if _prepared is None else _prepared
    q = prepared[1].shape[0]
    if int(np.prod(shape)) != q or any(m < 2 for m in shape) or len(shape) < 2:
        raise ValueError(f"shape {shape} is not a factorization of the block order {q} into factors >= 2")
    shape = tuple(sorted(shape))
    bf = _factor(prepared, [shape], tol, match_tol, max_alternatives, SEARCH_BUDGET)
    return list(bf.by_shape.get(shape, []))


def factor_block(a: Any, b: Any, c: Any, shapes: Iterable[Sequence[int]] | None = None,
                 tol: float = FACTOR_TOL, match_tol: float = MATCH_TOL,
                 budget: int = SEARCH_BUDGET) -> BlockFactorization:
    """Factor a block ``(a, b, c)`` over every shape of :func:`factor_shapes` (or the given ``shapes``).

    Returns a :class:`BlockFactorization`; ``.best`` is the finest
    factorization with relative error at most ``tol`` (else the smallest
    error found) and ``.factorable`` says whether one exists.  Blocks of
    prime order (and order 1) have no shape; blocks larger than
    :data:`MAX_ORDER` are not factored, and a search that used up ``budget``
    candidate sets without an exact grid says so (``.skipped`` says why in
    both cases; the bound is in the module docstring).

    >>> from cogo.solvers.partial import z_nu_i, z_syn, z_xi
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # order 6 = 2 x 3 (SPEC 8.5)
    >>> bf = factor_block(x.a, x.b, x.c)
    >>> bf.factorable, bf.best.shape, round(bf.best.error, 9)
    (True, (2, 3), 0.0)
    >>> y = 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1))     # order 4 = 2 x 2
    >>> factor_block(y.a, y.b, y.c).best.shape
    (2, 2)
    """

    prepared = _prepare(a, b, c)
    q = prepared[1].shape[0]
    if q > MAX_ORDER:
        res = BlockFactorization(q=q, tol=float(tol))
        res.skipped = f"block order {q} exceeds {MAX_ORDER}"
        return res
    shapes = factor_shapes(q) if shapes is None else [tuple(sorted(int(m) for m in s)) for s in shapes]
    return _factor(prepared, shapes, tol, match_tol, MAX_ALTERNATIVES, budget)


#: Most kept factor sets beyond the assemblies' starts whose translate grids are fitted (``O(q)`` each) by :func:`_factor`.
UNTRIED_MAX = 32

#: Blocks up to this order also get the tolerance-free matching starts (``O(q^4)``) when no grid is exact.
MATCHING_MAX_ORDER = 16


def canonical_node_order(F: np.ndarray) -> np.ndarray:
    """The canonical order of a block's nodes: by :func:`_feature_key` of their balanced features (stable).

    The features ``(a^2, a b, b^2, c)`` of the balanced nodes are invariant under the per-node gauge
    ``(s a, s b, c / s^2)`` (signs included), so the order is a function of the block up to node
    permutation; nodes equal to :data:`KEY_DECIMALS` decimals keep their relative order (they are
    interchangeable).

    >>> import numpy as np
    >>> F = np.array([[2, 1, 1, 1], [1, 1, 1, 1], [1j, 1, 1, 1]], dtype=complex)
    >>> canonical_node_order(F).tolist()              # angle 0 before 90 degrees; modulus 1 before 2
    [1, 0, 2]
    """
    keys = [_feature_key(f) for f in np.asarray(F)]
    return np.array(sorted(range(len(keys)), key=lambda j: keys[j]), dtype=np.int64)


def _orient_factor(V: np.ndarray) -> tuple[int, np.ndarray, list[int]] | None:
    """Canonical orientation of one factor ``V`` (3, m): ``(base, signs per element, element order)``.

    For every choice of the *base* element the factor is divided by it (per ``p``); every other
    element's sign gauge ``(a, b) -> (-a, -b)`` is fixed so that its ``a`` has angle in ``[0, 180)``
    degrees; the others are sorted by :func:`_feature_key`; the base whose sorted key sequence is
    smallest wins (ties: the first).  None when an entry is 0 (no normalization exists).
    """
    m = V.shape[1]
    best = None
    for base in range(m):
        if np.any(np.abs(V[:, base]) < _TINY):
            continue
        N = V / V[:, base:base + 1]
        sig = np.ones(m)
        for e in range(m):
            if e != base and _feature_key(N[0, e])[0] >= 180.0:
                sig[e] = -1.0
        N2 = N.copy()
        N2[:2] *= sig
        others = sorted((e for e in range(m) if e != base), key=lambda e: _feature_key(N2[:, e]))
        key = tuple(_feature_key(N2[:, e]) for e in others)
        if best is None or key < best[0]:
            best = (key, base, sig, others)
    if best is None:
        return None
    _, base, sig, others = best
    return base, sig, [base] + others


def canonical_factorization(fz: Factorization) -> Factorization:
    """The canonical representative of a factorization (docs/analysis.md, "Canonical answers").

    The same block has many equal factorizations: every factor may start at any of its elements
    (the factors are normalized to their first element), each element's sign gauge ``(-a, -b, c)``
    is free, and factors of equal size may be listed in either order.  The representative: each
    factor oriented by :func:`_orient_factor`, ``scale_a`` at an angle in ``[0, 180)`` degrees (the
    sign gauge of all nodes at once), then the factors sorted by size and, for equal sizes, by
    their key sequence.  The reconstruction (:meth:`Factorization.reconstruct`), the
    error and the node partition are unchanged; the grid, the factors, ``scale`` and ``signs``
    move together.

    >>> import numpy as np
    >>> from cogo.solvers.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> f = factor_block(x.a, x.b, x.c).best             # already canonical: a second pass changes nothing
    >>> g = canonical_factorization(f)
    >>> g.grid.tolist() == f.grid.tolist(), bool(np.allclose(g.reconstruct(), f.reconstruct()))
    (True, True)
    """
    grid = fz.grid.copy()
    signs = np.array(fz.signs, dtype=float).copy()
    scale = np.array(fz.scale, dtype=np.complex128).copy()
    vecs = []
    keys = []
    for i, f in enumerate(fz.factors):
        V = np.asarray(f.vectors, dtype=np.complex128)
        o = _orient_factor(V)
        if o is None:
            vecs.append(V)
            keys.append(())
            continue
        base, sig, order = o
        for e in range(V.shape[1]):
            if sig[e] < 0:
                signs[np.take(grid, e, axis=i).reshape(-1)] *= -1.0
        scale = scale * V[:, base]
        N = V / V[:, base:base + 1]
        N[:2] *= sig
        N = N[:, order]
        grid = np.take(grid, order, axis=i)
        vecs.append(N)
        keys.append(tuple(_feature_key(N[:, e]) for e in range(1, N.shape[1])))
    if abs(scale[0]) > 0 and _feature_key(scale[0])[0] >= 180.0:
        # the global sign gauge (-a, -b, c) of every node at once: scale_a at an angle in [0, 180) degrees
        scale[:2] *= -1.0
        signs = -signs
    ax = sorted(range(len(vecs)), key=lambda i: (vecs[i].shape[1], keys[i]))
    grid = np.transpose(grid, ax).copy()
    vecs = [vecs[i] for i in ax]
    return Factorization(tuple(grid.shape), grid, [Factor(*v) for v in vecs], scale, fz.error, signs,
                         fz.balance, fz.exact_grid)


#: Decimals (relative to the block's rounded mean node size) to which the balanced nodes are read before the search.
SNAP_DECIMALS = 10

#: Grids whose error on the canonically read nodes is at most this are refitted to the nodes as given.
REFIT_ERROR = 1e-9


def _snap(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple]]:
    """The balanced nodes ``x`` (3, q) read canonically: ``(x', F', flip, keys)``.

    Every node's sign gauge ``(-a, -b, c)`` is fixed so that ``a`` has angle in ``[0, 180)`` degrees
    (read by :func:`_feature_key`; ``flip`` holds the signs applied), and every entry is rounded to
    :data:`SNAP_DECIMALS` decimals relative to the block's mean node size (itself rounded to 10
    significant digits).  Two copies of one block that differ by node order, the per-node gauge and
    float noise (a real checkpoint's Fourier transform: ~1e-16) then give bit-identical nodes, so the
    heuristic search (:class:`_Search`, the fits) makes the same decisions on both and nodes equal to
    that precision are interchangeable in any order; ``keys`` are the rounded nodes (a total order's
    tie-break).  Changes each entry by at most ``5e-11`` of the mean node size.  :func:`_factor`
    chooses the grids on ``x'``; an exact one (error at most :data:`REFIT_ERROR`: a rank-one fit that
    is well conditioned) has its factors refitted to the nodes as given, so its error stays at machine
    precision; an inexact one keeps the fit to ``x'`` (near-degenerate fits are ill conditioned, and
    their parameters would otherwise move with the noise at the 1e-4 level).
    """
    x = np.asarray(x, dtype=np.complex128)
    q = x.shape[1]
    flip = np.ones(q)
    for j in range(q):
        if abs(x[0, j]) > 0 and _feature_key(x[0, j])[0] >= 180.0:
            flip[j] = -1.0
    y = x.copy()
    y[:2] *= flip
    prod = np.abs(y[0] * y[1] * y[2])
    s = float(np.cbrt(prod.mean())) if q and prod.mean() > 0 else 1.0
    s = float(f"{s:.10g}") if s > 0 else 1.0
    re_ = np.round(y.real / s, SNAP_DECIMALS) + 0.0
    im_ = np.round(y.imag / s, SNAP_DECIMALS) + 0.0
    y = (re_ + 1j * im_) * s
    keys = [tuple(np.concatenate([re_[:, j], im_[:, j]]).tolist()) for j in range(q)]
    F = node_features(y[0] / s, y[1] / s, y[2] / s)
    return y, F, flip, keys


def _factor(prepared, shapes: list, tol: float, match_tol: float, max_alternatives: int,
            budget: int) -> BlockFactorization:
    """:func:`_factor_ordered` on the block's nodes in canonical order (:func:`canonical_node_order`).

    Every result is mapped back to the caller's node indices and put in canonical form
    (:func:`canonical_factorization`), so the answer is a function of the block up to node
    order and the per-node gauge, not of the order the nodes came in.
    """
    x0, F0, t = prepared
    x, F, flip, rkeys = _snap(x0)
    nkeys = [_feature_key(f) for f in F]
    perm = np.array(sorted(range(len(nkeys)), key=lambda j: (nkeys[j], rkeys[j])), dtype=np.int64)
    res = _factor_ordered((x[:, perm], F[perm], t[perm]), shapes, tol, match_tol, max_alternatives, budget)
    for shape, alts in res.by_shape.items():
        out = []
        for fz in alts:
            if fz.error <= REFIT_ERROR:
                # an exact grid (well conditioned): its factors fitted to the nodes as given (machine precision)
                g, facs, scale, signs, err = fit_grid(x0, F0, perm[fz.grid], reassign=False)
                fz = Factorization(fz.shape, g, [Factor(*f) for f in facs], scale, err, signs, t, fz.exact_grid)
            else:
                # an inexact fit (ill conditioned near degenerate values): kept as fitted to the canonical nodes
                signs = np.empty_like(np.asarray(fz.signs, dtype=float))
                signs[perm] = np.asarray(fz.signs, dtype=float) * flip[perm]
                fz = Factorization(fz.shape, perm[fz.grid], fz.factors, fz.scale, fz.error, signs, t,
                                   fz.exact_grid)
            out.append(canonical_factorization(fz))
        out.sort(key=lambda f: f.sort_key)
        seen, uniq = set(), []
        for fz in out:  # grids that differ only in orientation, or by swapping equal nodes, are one grid
            key = tuple(nkeys[j] for j in fz.grid.reshape(-1))
            if key not in seen:
                seen.add(key)
                uniq.append(fz)
        res.by_shape[shape] = uniq
    return res


def _factor_ordered(prepared, shapes: list, tol: float, match_tol: float, max_alternatives: int,
                    budget: int) -> BlockFactorization:
    x, F, t = prepared
    q = F.shape[0]
    res = BlockFactorization(q=q, tol=float(tol))
    shapes = [tuple(s) for s in shapes]
    if not shapes:
        return res
    search = _Search(F, match_tol, budget)
    fits: list[Factorization] = []
    for grid in search.grids(max_alternatives):
        g, facs, scale, signs, err = _fit_reoriented(x, F, grid)
        fits.append(Factorization(tuple(g.shape), g, [Factor(*f) for f in facs], scale, err, signs, t, True))
    # near-degenerate blocks (several factors near a degenerate value at once: ratio sets that nearly form a
    # group) have many sets that tile within match_tol, and the assemblies started from the first ones can all
    # be wrong (z_xi(~-1, 1) * z_nu(~1) * z_syn,ab(~1, ~-1): every grid 0.015, the true one 0.0012); the
    # 2-factor grid of the translates of each set no assembly started from (at most UNTRIED_MAX, O(q) each)
    # is kept when it fits over twice better than every exact grid found, and then split (_split_from_coarser)
    found = [f.error for f in fits if f.error <= tol]
    if found and search.untried:
        for grid in search.translate_grids(search.untried[:UNTRIED_MAX]):
            # the translates are the right fibers but not always in a consistent order: re-aligned (O(q^2))
            axis = int(np.argmin(grid.shape))
            tries = [grid] + (_fiber_orientations(F, grid, axis) if grid.shape[axis] <= REALIGN_MAX_SIZE else [])
            errs = [fit_grid(x, F, g, reassign=False)[-1] for g in tries]
            if min(errs) < min(found) / SPLIT_GAIN:
                g, facs, scale, signs, err = _fit_reoriented(x, F, tries[int(np.argmin(np.round(errs, ERROR_DECIMALS)))])
                fits.append(Factorization(tuple(g.shape), g, [Factor(*f) for f in facs], scale, err, signs, t, True))
    fits.sort(key=lambda f: (-len(f.shape), _ekey(f)))
    by: dict = {}
    for f in fits:
        by.setdefault(f.shape, []).append(f)
    exact_fine = [f for f in fits if f.error <= tol]
    spare: dict = {}  # shape -> further exact grids of the local search (kept for splitting, not reported)

    def shape_alts(shape: tuple[int, ...]) -> list[Factorization] | None:
        alts = [f for f in by.get(shape, []) if f.error <= tol]
        if not alts:
            # a product of a finer shape is also one of this coarser shape: merge its axes (no reassignment)
            for fz in exact_fine:
                for grid in _merged_grids(fz.grid, shape)[:1]:
                    g, facs, scale, signs, err = fit_grid(x, F, grid, reassign=False)
                    alts.append(Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, True))
                if alts:
                    break
        if any(f.error <= tol for f in alts):
            return sorted([f for f in alts if f.error <= tol], key=_ekey)[:max_alternatives]
        if q > MATCHING_MAX_ORDER and len(shape) > 2:
            return None  # large non-factorable blocks: the upper bound comes from the 2-factor shapes only
        starts = [np.arange(q).reshape(shape)]
        if len(shape) == 2 and shape[0] == 2 and q <= MATCHING_MAX_ORDER:
            starts += _matching_starts(F, int(np.flatnonzero(search.label == search.pref[0])[0]))
        for grid in starts:
            g, facs, scale, signs, err = _fit_reoriented(x, F, grid, max_rounds=10 if q <= MATCHING_MAX_ORDER else 3)
            alts.append(Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, False))
        alts.sort(key=_ekey)
        # a near-degenerate block can have several exact grids of this shape from different starts, only some
        # of which split further (z_nu=i * z_xi(1, -1) * z_nu(~i): the best 2 x 4 grid's 4-node factor is no
        # product): the others are kept aside for _split_from_coarser
        spare[shape] = _distinct([f for f in alts[1:] if f.error <= tol], alts[:1])[:max_alternatives]
        return alts[:1]

    for shape in sorted(shapes, key=lambda s: (-len(s), s)):
        alts = shape_alts(shape)
        if alts is not None:
            res.by_shape[shape] = alts
    # a finer shape asked for without the coarser shapes it can be split from (factor_block_shape): when it has
    # no exact grid, those coarser shapes are searched too (for the splitting only; they are not reported)
    helpers = sorted({c for s in shapes if not any(f.error <= tol for f in res.by_shape.get(s) or [])
                      for c in factor_shapes(q) if c not in shapes and len(c) < len(s) and _split_axes(c, s)},
                     key=lambda s: (-len(s), s))
    for shape in helpers:
        alts = shape_alts(shape)
        if alts is not None:
            res.by_shape[shape] = alts
    shapes = shapes + helpers
    for shape in sorted(shapes, key=len):  # coarse to fine: a split grid can be split again
        _split_from_coarser(x, F, t, res, shape, match_tol, max_alternatives, budget, spare)
    # near-equal nodes of one cluster can sit in each other's cells (a fixed point of the reassignment): the best
    # grid of each shape gets its near-equal pairs swapped when that fits better, before coarser shapes merge it
    for shape, alts in res.by_shape.items():
        fz = alts[0] if alts else None
        if fz is None or not 1e-12 < fz.error <= 2 * FACTOR_TOL:
            continue
        g, facs, scale, signs, err = _swap_near_equal(x, F, (fz.grid, None, None, None, fz.error))
        if err < fz.error:
            new = Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, fz.exact_grid)
            res.by_shape[shape] = sorted([new] + alts[1:], key=_ekey)
    for shape in sorted(shapes, key=lambda s: (-len(s), s)):  # fine to coarse: merge finer grids back up
        # a merged exact grid fits at least as well as the finer one: merge when this shape has no exact grid
        # (split grids came after the first merge) or a worse one than a finer exact grid (near-degenerate
        # blocks whose tiling found this shape's grid wrong)
        cur = res.by_shape.get(shape) or []
        finer = sorted((f for s, alts in res.by_shape.items() if len(s) > len(shape) for f in alts[:1]
                        if f.error <= tol), key=lambda f: (_ekey(f), -len(f.shape)))
        if not finer or (cur and cur[0].error <= min(tol, finer[0].error)):
            continue
        for grid in _merged_grids(finer[0].grid, shape)[:1]:
            g, facs, scale, signs, err = fit_grid(x, F, grid, reassign=False)
            if not cur or err < cur[0].error:
                new = Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, finer[0].exact_grid)
                keep = [f for f in cur if f.error <= tol] if err <= tol else []
                res.by_shape[shape] = [new] + keep[:max_alternatives - 1]
    for shape in helpers:
        res.by_shape.pop(shape, None)
    if search.budget.exhausted and not res.factorable:
        res.skipped = (f"not factored within the search bound ({search.budget.limit} candidate factor sets, "
                       f"{len(search.G)} distinct nodes)")
    return res


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


def _split_from_coarser(x: np.ndarray, F: np.ndarray, t: np.ndarray, res: BlockFactorization,
                        shape: tuple[int, ...], match_tol: float, max_alternatives: int, budget: int,
                        spare: dict | None = None) -> None:
    """Improve ``res.by_shape[shape]`` from a coarser exact grid whose factor along one axis is itself a product.

    When the finer ``shape`` has no exact grid, or its best error is more than
    :data:`SPLIT_GAIN` times a coarser exact grid's, the factor of that grid
    along an axis of size ``m`` is factored on its own (its ``m`` nodes, shapes
    of :func:`factor_shapes` up to :data:`MATCHING_MAX_ORDER`, else only the
    needed one) and its grid replaces that axis; the result is refined by
    :func:`_fit_reoriented` and kept when it fits better.  A near-degenerate
    product (``z_nu=i * z_xi * z_nu(nu)`` with ``nu`` near ``-i``: nodes within
    a few percent of each other are one cluster, and the tiling finds no
    ``2 x 2 x 2`` grid) is then read from its ``2 x 4`` grid.  At most one
    sub-factorization (order ``m <= q/2``) per coarser shape and axis.
    """
    alts = res.by_shape.get(shape) or []
    cur = alts[0].error if alts else np.inf
    tol = res.tol
    cands = []

    def split(fz: Factorization, src: tuple[int, ...]) -> None:
        for axis, sub in _split_axes(src, shape):
            f = fz.factors[axis]
            shapes = factor_shapes(f.q) if f.q <= MATCHING_MAX_ORDER else [sub]
            sf = _factor(_prepare(f.a, f.b, f.c), shapes, tol, match_tol, 1, budget).best_for(sub)
            if sf is None:
                continue
            g = np.take(fz.grid, sf.grid, axis=axis)  # the axis replaced by the sub-grid's axes
            g = np.transpose(g, np.argsort(g.shape, kind="stable"))
            g, facs, scale, signs, err = _fit_reoriented(x, F, g)
            cands.append(Factorization(shape, g, [Factor(*v) for v in facs], scale, err, signs, t,
                                       fz.exact_grid and sf.exact_grid))

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
        for fz in (spare or {}).get(src, []):
            if cands and min(f.error for f in cands) <= tol:
                break
            split(fz, src)
    if not cands:
        return
    new = min(cands, key=_ekey)
    if new.error >= cur:
        return
    keep = [f for f in alts if f.error <= tol] if new.error <= tol else []
    res.by_shape[shape] = sorted(keep + [new], key=_ekey)[:max_alternatives]


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
