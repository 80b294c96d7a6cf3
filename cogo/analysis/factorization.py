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

The grid search (polynomial; no node order is enumerated)
---------------------------------------------------------
For a shape ``q = m_1 x ... x m_k`` (sizes >= 2, ``m_k`` the largest) pick an
anchor node ``o`` and place it at the origin of the grid.  Then every factor
``A_i`` (as a set of feature ratios to its first node) contains 1, and the
node features are the products ``f_o * alpha^(1) * ... * alpha^(k)``.  So

1. a *multiplication table* ``M[x, y]`` = the node whose features are closest
   to ``f_x f_y / f_o`` (relative distance at most ``match_tol``, else none)
   is computed once (``O(q^3)``, vectorized);
2. for every factor but the largest, the candidate factor sets are the
   subsets of size ``m_i - 1`` of the anchor's ratios (``O(q^(m_i-1))``
   candidates; only sizes up to :data:`MAX_ENUMERATED` = 4 are enumerated,
   so a 2-factor has ``q - 1`` candidates and a 3-factor ``(q-1)(q-2)/2``);
   a candidate is kept only if the *translates* ``x * A_i`` (rows of ``M``)
   can tile the node set exactly.  For a 2-factor the translates are node
   pairs and exact tiling is a perfect matching of the graph of pairs: in
   linear time when that graph is a union of paths and cycles (the generic
   case), else with networkx's blossom algorithm (polynomial);
3. for every combination of kept candidates the product set ``P = A_1 ... A_(k-1)``
   is read off ``M``, and the nodes are tiled by translates of ``P``; each
   tile is one node of the largest (complementary) factor.  Tiles of size 2
   again use the matching; larger tiles use an exact-cover search (Algorithm X)
   whose work is capped at :data:`COVER_BUDGET` steps: for the covers that
   Kronecker products produce -- translates that are either equal or
   disjoint -- it picks one tile per step, so it is linear;
4. each grid found is refined by alternating least squares: the rank-1 fit
   of every feature channel over the grid (higher-order power iteration) and
   an optimal reassignment of nodes to cells (Hungarian algorithm, ``O(q^3)``),
   until the assignment is stable; then the per-node signs are fixed from the
   fitted factors and each of ``a, b, c`` gets its best rank-1 (Kronecker) fit.

The reported *error* is ``||x - x_hat|| / ||x||`` over the ``3 q`` entries of
the balanced, sign-fixed block ``x`` and its Kronecker reconstruction
``x_hat``.  When no exact tiling exists for a shape (a block that is not a
Kronecker product of that shape), the same refinement is run from a few
deterministic starting grids and the smallest error found is reported: an
upper bound on the true minimum over all ``q!`` orders, which only a full
enumeration could give (see ``benchmarks/bench_classify.py`` for that
baseline).

Candidate factor sets and their combinations are tried best fitting first
(smallest summed feature distance of their tiling).  Nearly coincident nodes,
which degenerate products such as ``z_nu=i * z_nu(i)`` have, make the table
ambiguous; the tiles then try each near candidate (see ``_Table``).

Several different grids can reconstruct a block exactly (for example
``z_syn * z_nu(nu) = z_syn * z_nu(w nu)`` up to node order, because z_syn is
a group); up to :data:`MAX_ALTERNATIVES` of them are returned so that the
classifier can name the factors against the catalogue (see
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
    "MAX_ENUMERATED",
    "Factor",
    "Factorization",
    "BlockFactorization",
    "balance_gauge",
    "node_features",
    "factor_shapes",
    "factor_block",
    "factor_block_shape",
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
#: Largest factor size found by enumerating subsets of the anchor's ratios.
MAX_ENUMERATED = 4
#: Most factor combinations tried per shape.
MAX_COMBOS = 400
#: Most distinct exact grids returned per shape.
MAX_ALTERNATIVES = 6
#: Work cap (search steps) of one exact-cover search.
COVER_BUDGET = 5000
#: Largest block order that is factored (larger blocks are reported unfactored).
MAX_ORDER = 48

_TINY = 1e-300


# --------------------------------------------------------------------------- results
@dataclass
class Factor:
    """One Kronecker factor ``(a, b, c)`` in ``C^m``, normalized so that its first node is ``(1, 1, 1)``."""

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
    """All factorizations tried for one block: per shape, the grids found (best first)."""

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
        return sorted(out, key=lambda f: (-len(f.shape), f.error))

    @property
    def best(self) -> Factorization | None:
        """The finest factorization within ``tol`` (ties: smallest error); else the smallest error found."""
        ex = self.exact
        if ex:
            return ex[0]
        allf = [alts[0] for alts in self.by_shape.values() if alts]
        return min(allf, key=lambda f: f.error) if allf else None

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
    """
    return np.stack([a * a, a * b, b * b, c], axis=1)


def kron_vectors(factors: Sequence[np.ndarray]) -> np.ndarray:
    """Kronecker product along nodes of arrays ``(C, m_i)``: ``(C, prod m_i)``, node order row-major (SPEC 3)."""
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
    """:func:`rank1` for a stack of tensors ``T[c]`` at once: returns ``lam`` (C,) and ``u_i`` (C, m_i)."""
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


# --------------------------------------------------------------------------- exact covers
def _perfect_matching(n: int, pairs: list[tuple[int, int]], costs: list[float]) -> list[int] | None:
    """Indices of pairs forming a perfect matching of ``n`` nodes (networkx blossom), or None."""
    import networkx as nx  # only when a matching is needed (keeps start-up cheap)

    if n % 2 or not pairs:
        return None
    touched = np.zeros(n, dtype=bool)
    for x, y in pairs:
        touched[x] = touched[y] = True
    if not touched.all():
        return None
    best: dict = {}
    for i, ((x, y), cst) in enumerate(zip(pairs, costs)):
        key = (min(x, y), max(x, y))
        if key not in best or cst < costs[best[key]]:
            best[key] = i
    deg = np.zeros(n, dtype=np.int64)
    for x, y in best:
        deg[x] += 1
        deg[y] += 1
    if deg.max() <= 2:
        return _matching_paths_cycles(n, best)
    g = nx.Graph()
    for (x, y), i in best.items():
        g.add_edge(x, y, weight=10.0 - costs[i], idx=i)
    m = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(m) != n:
        return None
    return [g.edges[x, y]["idx"] for x, y in m]


def _matching_paths_cycles(n: int, edges: dict) -> list[int] | None:
    """Perfect matching of a graph of maximum degree 2 (disjoint paths and cycles), in linear time.

    A perfect matching exists iff every component has an even number of
    nodes; it takes every other edge, starting at a path's end.
    """
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for (x, y), i in edges.items():
        adj[x].append((y, i))
        adj[y].append((x, i))
    seen = np.zeros(n, dtype=bool)
    out: list[int] = []
    starts = [v for v in range(n) if len(adj[v]) == 1] + list(range(n))
    for s0 in starts:
        if seen[s0]:
            continue
        # walk the component from s0 (a path end when it has degree 1)
        walk_nodes, walk_edges = [s0], []
        seen[s0] = True
        cur, prev_edge = s0, -1
        while True:
            nxt = [(v, i) for v, i in adj[cur] if i != prev_edge and not seen[v]]
            if not nxt:
                break
            v, i = nxt[0]
            walk_edges.append(i)
            walk_nodes.append(v)
            seen[v] = True
            cur, prev_edge = v, i
        if len(walk_nodes) % 2:
            return None
        out.extend(walk_edges[0::2])
    return out


class _BudgetExceeded(Exception):
    pass


def _exact_cover(n: int, tiles: list[tuple[int, ...]], costs: list[float], budget: int = None) -> list[int] | None:
    """Indices of tiles covering ``0..n-1`` exactly once (Algorithm X, capped at ``budget`` steps), or None."""
    budget = COVER_BUDGET if budget is None else budget
    cover_of: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(tiles)), key=lambda i: costs[i]):
        for e in tiles[i]:
            cover_of[e].append(i)
    if any(not c for c in cover_of):
        return None
    covered = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    steps = [0]

    def search() -> bool:
        if covered.all():
            return True
        steps[0] += 1
        if steps[0] > budget:
            raise _BudgetExceeded
        best_e, best_opts = -1, None
        for e in np.flatnonzero(~covered):
            opts = [i for i in cover_of[e] if not covered[list(tiles[i])].any()]
            if not opts:
                return False
            if best_opts is None or len(opts) < len(best_opts):
                best_e, best_opts = e, opts
                if len(opts) == 1:
                    break
        for i in best_opts:
            covered[list(tiles[i])] = True
            chosen.append(i)
            if search():
                return True
            chosen.pop()
            covered[list(tiles[i])] = False
        return False

    try:
        return list(chosen) if search() else None
    except _BudgetExceeded:
        return None


class _Table:
    """The multiplication table of a block relative to an anchor ``o`` (step 1 of the module docstring).

    ``M[x, y]`` is the node closest to ``f_x f_y / f_o`` when its relative
    distance is at most ``tol`` (else -1), ``dist`` that distance.  Nearly
    coincident nodes (two nodes whose features agree up to noise, which
    degenerate products have) make the closest node ambiguous: ``near(x, y)``
    lists every node within ``min(tol, 3 d_min + 0.02)``, closest first.
    """

    def __init__(self, F: np.ndarray, o: int, tol: float):
        T = F[:, None, :] * F[None, :, :] / np.where(F[o] == 0, _TINY, F[o])
        tn = np.linalg.norm(T, axis=-1)
        D = np.linalg.norm(F[None, None, :, :] - T[:, :, None, :], axis=-1) / np.maximum(tn, _TINY)[:, :, None]
        M = np.argmin(D, axis=2)
        dist = np.take_along_axis(D, M[:, :, None], axis=2)[:, :, 0]
        self.M = np.where(dist <= tol, M, -1)
        self.dist = np.where(dist <= tol, dist, np.inf)
        lim = np.minimum(tol, 3 * dist + 0.02)
        amb = ((D <= lim[:, :, None]).sum(axis=2) > 1) & (self.M >= 0)
        self.ambiguous = amb
        self._D, self._lim = D, lim

    def near(self, x: int, y: int) -> list[int]:
        if not self.ambiguous[x, y]:
            return [int(self.M[x, y])] if self.M[x, y] >= 0 else []
        d = self._D[x, y]
        idx = np.flatnonzero(d <= self._lim[x, y])
        return [int(v) for v in idx[np.argsort(d[idx])]]


#: Most node choices tried per tile when nearly coincident nodes make the table ambiguous.
_MAX_TILE_CHOICES = 16


def _tiles(tab: _Table, P: Sequence[int]) -> tuple[list[tuple[int, ...]], list[float]]:
    """Translates ``x * P`` (rows of the multiplication table), one per base node, deduplicated as sets."""
    P = np.asarray(P, dtype=np.int64)
    T = tab.M[:, P]  # (q, |P|)
    C = tab.dist[:, P].sum(axis=1)
    ok = (T >= 0).all(axis=1)
    amb = tab.ambiguous[:, P].any(axis=1)
    tiles: list[tuple[int, ...]] = []
    costs: list[float] = []
    seen: dict = {}

    def add(t: tuple[int, ...], cst: float) -> None:
        if len(set(t)) != len(t):
            return
        key = frozenset(t)
        if key in seen:
            j = seen[key]
            if cst < costs[j]:
                tiles[j], costs[j] = t, cst
            return
        seen[key] = len(tiles)
        tiles.append(t)
        costs.append(cst)

    for x in np.flatnonzero(ok):
        if not amb[x]:
            add(tuple(int(v) for v in T[x]), float(C[x]))
            continue
        opts = [tab.near(int(x), int(p)) for p in P]
        for t in itertools.islice(itertools.product(*opts), _MAX_TILE_CHOICES):
            add(tuple(t), float(sum(tab._D[x, p, v] for p, v in zip(P, t))))
    return tiles, costs


def _tile_nodes(q: int, tab: _Table, P: Sequence[int]) -> list[tuple[int, ...]] | None:
    """Tile the ``q`` nodes exactly by translates of ``P``; tiles ordered like ``P``; None if impossible."""
    tiles, costs = _tiles(tab, P)
    if len(P) == 2:
        idx = _perfect_matching(q, tiles, costs)
    else:
        idx = _exact_cover(q, tiles, costs)
    if idx is None:
        return None
    return [tiles[i] for i in idx]


def _tiling_cost(tab: _Table, tiles: list[tuple[int, ...]], P: Sequence[int]) -> float:
    """Sum of the relative feature distances of a tiling (how well it fits; 0 for an exact product)."""
    P = np.asarray(P)
    return float(sum(tab._D[t[0], P, np.asarray(t)].sum() for t in tiles))


def _candidate_sets(q: int, o: int, m: int, tab: _Table) -> list[tuple[tuple[int, ...], float]]:
    """Factor sets of size ``m`` through the anchor (``(o, y_1, ..)``) whose translates tile the nodes
    exactly, with the cost of the tiling; best fitting first."""
    others = [y for y in range(q) if y != o]
    out = []
    for ys in itertools.combinations(others, m - 1):
        S = (o,) + ys
        tiles = _tile_nodes(q, tab, S)
        if tiles is not None:
            out.append((S, _tiling_cost(tab, tiles, S)))
    out.sort(key=lambda t: t[1])
    return out


def _product_set(tab: _Table, sets: Sequence[Sequence[int]]) -> list[int] | None:
    """Nodes of the product of factor sets (row-major cell order), or None if not all present and distinct."""
    P = list(sets[0])
    for S in sets[1:]:
        nxt = tab.M[np.asarray(P)[:, None], np.asarray(S)[None, :]].reshape(-1)
        if (nxt < 0).any():
            return None
        P = [int(v) for v in nxt]
    if len(set(P)) != len(P):
        return _resolve_duplicates(tab, sets)
    return P


def _resolve_duplicates(tab: _Table, sets: Sequence[Sequence[int]]) -> list[int] | None:
    """Product set with distinct nodes when nearly coincident nodes collide (bipartite matching of cells to nodes)."""
    import networkx as nx  # only when a matching is needed (keeps start-up cheap)

    P = [int(v) for v in sets[0]]
    for S in sets[1:]:
        opts = []
        for p in P:
            for s_ in S:
                o = tab.near(p, int(s_))
                if not o:
                    return None
                opts.append(o)
        g = nx.Graph()
        for ci, o in enumerate(opts):
            for v in o:
                g.add_edge(("c", ci), ("n", v))
        top = [("c", ci) for ci in range(len(opts))]
        m = nx.bipartite.hopcroft_karp_matching(g, top_nodes=top)
        if any(t not in m for t in top):
            return None
        P = [m[("c", ci)][1] for ci in range(len(opts))]
    return P


def _grids_for_shape(F: np.ndarray, shape: tuple[int, ...], match_tol: float, anchors: Sequence[int],
                     max_alternatives: int = MAX_ALTERNATIVES) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exact grids (node index arrays of ``shape``) from tilings, and fallback starting grids."""
    q = F.shape[0]
    sizes = list(shape)
    big = sizes[-1]
    small = sizes[:-1]
    seen: set = set()
    starts: list[np.ndarray] = []
    if any(m > MAX_ENUMERATED for m in small):
        return [], starts
    for o in anchors:
        tab = _Table(F, o, match_tol)
        cand = {m: _candidate_sets(q, o, m, tab) for m in sorted(set(small))}
        # combinations: equal sizes use combinations without repetition (order of equal factors is immaterial);
        # best fitting (smallest summed tiling cost) first
        groups = [(m, small.count(m)) for m in sorted(set(small))]
        per_group = [list(itertools.combinations(cand[m], cnt)) for m, cnt in groups]
        combos = list(itertools.islice(itertools.product(*per_group), MAX_COMBOS))
        combos.sort(key=lambda cb: sum(c for grp in cb for _, c in grp))
        partial_best: list[tuple[int, list]] = []
        found: list[tuple[float, np.ndarray]] = []
        for combo in combos:
            sets = [S for grp in combo for S, _ in grp]
            P = _product_set(tab, sets)
            if P is None:
                continue
            tiles = _tile_nodes(q, tab, P)
            if tiles is None:
                partial_best.append((0, P))
                continue
            # the tile that contains the anchor first
            tiles.sort(key=lambda t: (o not in t,))
            grid = np.stack([np.asarray(t) for t in tiles], axis=-1).reshape(tuple(small) + (big,))
            key = frozenset(frozenset(t) for t in tiles), tuple(sorted(frozenset(S) for S in map(tuple, sets)))
            if key in seen:
                continue
            seen.add(key)
            found.append((_tiling_cost(tab, tiles, P), grid))
            if len(found) >= MAX_ALTERNATIVES:
                break
        if found:
            found.sort(key=lambda t: t[0])
            return [g for _, g in found[:max_alternatives]], starts
        # fallback starting grids from the best partial tilings
        for _, P in partial_best[:2]:
            tiles, costs = _tiles(tab, P)
            used = np.zeros(q, dtype=bool)
            chosen = []
            for i in np.argsort(costs):
                t = tiles[i]
                if not used[list(t)].any():
                    used[list(t)] = True
                    chosen.append(t)
                if len(chosen) == big:
                    break
            rest = [int(v) for v in np.flatnonzero(~used)]
            cols = [list(t) for t in chosen]
            while len(cols) < big:
                cols.append([rest.pop() for _ in range(len(P))])
            starts.append(np.stack([np.asarray(t) for t in cols], axis=-1).reshape(tuple(small) + (big,)))
    starts.append(np.arange(q).reshape(shape))
    return [], starts


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
    """
    shape = grid.shape
    q = grid.size
    flat = grid.reshape(-1).copy()
    for _ in range(max_rounds if reassign else 1):
        pred = _rank1_cells(F[flat], shape)  # (cells, 4)
        if not reassign:
            break
        cost = (np.abs(F[:, None, :] - pred[None, :, :]) ** 2).sum(-1)  # (nodes, cells)
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


def _anchors(F: np.ndarray) -> list[int]:
    """Anchor nodes: the node whose features are most typical in modulus, then the next one (a fallback)."""
    mod = np.abs(F).mean(axis=1)
    order = np.argsort(np.abs(np.log(np.maximum(mod, _TINY))))
    return [int(v) for v in order[:2]]


def factor_block_shape(a: Any, b: Any, c: Any, shape: Sequence[int], match_tol: float = MATCH_TOL,
                       tol: float = FACTOR_TOL, max_alternatives: int = MAX_ALTERNATIVES,
                       _prepared=None) -> list[Factorization]:
    """Factorizations of one block over one grid ``shape`` (SPEC 8.5), best first.

    Returns the distinct exact grids found (error <= ``tol``, at most
    :data:`MAX_ALTERNATIVES`), or, if there is none, the single best grid
    found by local search (error > ``tol`` typically).  An empty list only
    when the shape's non-largest factors are too large to enumerate.
    """
    shape = tuple(int(m) for m in shape)
    x, F, t = _prepare(a, b, c) if _prepared is None else _prepared
    q = F.shape[0]
    if int(np.prod(shape)) != q or any(m < 2 for m in shape) or len(shape) < 2:
        raise ValueError(f"shape {shape} is not a factorization of the block order {q} into factors >= 2")
    shape = tuple(sorted(shape))
    anchors = _anchors(F)
    exact_grids, starts = _grids_for_shape(F, shape, match_tol, anchors[:1], max_alternatives)
    if not exact_grids and len(anchors) > 1:
        more, starts2 = _grids_for_shape(F, shape, match_tol, anchors[1:2], max_alternatives)
        exact_grids = more
        starts = starts + starts2
    out: list[Factorization] = []
    for grid in exact_grids:
        g, facs, scale, signs, err = fit_grid(x, F, grid)
        out.append(Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, True))
    if not any(f.error <= tol for f in out):
        if len(shape) == 2 and shape[0] == 2:
            starts = starts + _matching_starts(F, anchors[0])
        for grid in starts:
            g, facs, scale, signs, err = fit_grid(x, F, grid)
            out.append(Factorization(shape, g, [Factor(*f) for f in facs], scale, err, signs, t, False))
        if out:
            out = [min(out, key=lambda f: f.error)]
        return out
    out = [f for f in out if f.error <= tol]
    out.sort(key=lambda f: f.error)
    return out


def factor_block(a: Any, b: Any, c: Any, shapes: Iterable[Sequence[int]] | None = None,
                 tol: float = FACTOR_TOL, match_tol: float = MATCH_TOL) -> BlockFactorization:
    """Factor a block ``(a, b, c)`` over every shape of :func:`factor_shapes` (or the given ``shapes``).

    Returns a :class:`BlockFactorization`; ``.best`` is the finest
    factorization with relative error at most ``tol`` (else the smallest
    error found) and ``.factorable`` says whether one exists.  Blocks of
    prime order (and order 1) have no shape; blocks larger than
    :data:`MAX_ORDER` are not factored (``.skipped`` says why).
    """
    x, F, t = _prepare(a, b, c)
    q = F.shape[0]
    res = BlockFactorization(q=q, tol=float(tol))
    if q > MAX_ORDER:
        res.skipped = f"block order {q} exceeds {MAX_ORDER}"
        return res
    if (np.abs(F) == 0).any():
        # a node with a zero entry has no Kronecker structure to find; fit anyway from the identity grid
        pass
    shapes = factor_shapes(q) if shapes is None else [tuple(sorted(int(m) for m in s)) for s in shapes]
    found = False
    finer: list[Factorization] = []
    for shape in sorted(shapes, key=lambda s: (-len(s), s)):
        alts = factor_block_shape(None, None, None, shape, match_tol=match_tol, tol=tol, _prepared=(x, F, t),
                                  max_alternatives=1 if found else MAX_ALTERNATIVES)
        # A product of a finer shape is also one of this coarser shape: its merged grid is a
        # candidate, so a coarser shape never reports a larger error than a finer one.
        for fz in finer:
            for grid in _merged_grids(fz.grid, tuple(shape)):
                g, facs, scale, signs, err = fit_grid(x, F, grid)
                if not alts or err < alts[0].error:
                    exact = err <= tol
                    alts = [Factorization(tuple(shape), g, [Factor(*f) for f in facs], scale, err, signs, t, exact)] + [
                        a for a in alts if a.error <= tol]
        res.by_shape[tuple(shape)] = alts
        finer.extend(alts[:1])
        found = found or any(f.error <= tol for f in alts)
    return res


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
