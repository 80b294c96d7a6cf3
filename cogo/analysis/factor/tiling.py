"""Where exact grids come from: the tiling search over a block's distinct nodes (SPEC 8.5).

The search finds the node grids on which a block is *exactly* (within :data:`MATCH_TOL`) a
Kronecker product of factors of :data:`PEEL_SIZES` nodes, without enumerating node orders:

1. *Repeated nodes* (:func:`_clusters`).  Nodes whose features agree within :data:`CLUSTER_TOL`
   (relative) are one *cluster*; the block is a multiset ``mu`` of ``C <= q`` distinct features
   (``z_syn * z_syn`` is 3 features 3 times).  ``O(q^2)``.
2. *Multiplication table* (:func:`_product_table`).  With an anchor cluster ``o`` (the most typical
   modulus) at the origin of the grid, every factor is a set ``A_i`` of feature ratios containing 1
   and the block is ``o A_1 ... A_k``; ``T[x, y]`` is the cluster closest to ``g_x g_y / g_o``
   (relative distance at most ``match_tol``, else none).  ``O(C^3)``, vectorized.
3. *Factor sets* (:func:`_peel_candidates`, :func:`_solve_tiling`).  A candidate set of ``p``
   clusters through the anchor is kept when the block is a union of its translates ``x A``: the
   multiplicities ``beta`` solve ``M beta = mu`` in non-negative integers (least squares first: its
   minimum-norm solution spreads ``beta`` over repeated nodes; then a greedy exact cover).
   ``O(C^3)`` per candidate, at most :data:`SEARCH_BUDGET` candidates per block.
4. *Assembly* (:meth:`TilingSearch.grids`).  The kept sets are multiplied greedily while the
   product stays within the multiset; a product covering part of the block, ``P``, leaves one more
   factor: the bases ``R`` with ``R P`` = the block (one more tiling).  Alternative grids start the
   greedy product at different kept sets.

:func:`_matching_starts` gives tolerance-free starting grids of shape ``(2, q/2)`` for blocks a few
percent off a product, which the tiling (with its match tolerance) misses.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from cogo.analysis.factor.kronecker import _TINY, ERROR_DECIMALS, _feature_keys, _rel_dist

__all__ = ["MATCH_TOL", "CLUSTER_TOL", "PEEL_SIZES", "SEARCH_BUDGET", "TilingSearch"]


#: Relative feature distance below which two nodes are matched in the multiplication table.
MATCH_TOL = 0.1


#: Factor sizes peeled off a block (the catalogue's factors have 2 and 3 nodes).
PEEL_SIZES = (2, 3)
#: Most candidate factor sets (each one ``O(C^3)`` solve) tried per block.
SEARCH_BUDGET = 4000
#: Relative feature distance below which nodes are treated as one repeated node.
CLUSTER_TOL = 0.05


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
    np.add.at(M, (rows[X].reshape(-1), np.repeat(np.arange(len(X)), rows.shape[1])), 1.0)
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


class TilingSearch:
    """The factor-set search over the clusters of one block (module docstring, steps 1-4).

    ``grids(max_alternatives)`` gives the exact grids (axes sorted by size), best first;
    ``translate_grids(sets)`` the 2-factor grids of given kept sets; ``budget`` counts the
    candidate sets solved and ``untried`` holds the kept sets no assembly started from.
    """

    def __init__(self, F: np.ndarray, match_tol: float, budget: int):
        self.label, self.G = _clusters(F, CLUSTER_TOL)
        self.mu = np.bincount(self.label, minlength=len(self.G)).astype(np.int64)
        mod = np.abs(self.G).mean(axis=1)
        # anchor preference: the most typical modulus, read to 1e-6 so float noise (1e-16 from a real checkpoint)
        # does not pick it; ties by the canonical key of the features (_feature_key), not by node order
        dev = np.round(np.abs(np.log(np.maximum(mod, _TINY))), 6)
        keys = _feature_keys(self.G)
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
    import networkx as nx  # late: networkx (only when a matching is needed)

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


