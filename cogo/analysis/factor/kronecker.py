"""Kronecker products over a node grid: the factors and the fit of a grid (SPEC 8.4-8.5).

A block of order ``q`` is three vectors ``(a, b, c)`` in ``C^q`` (SPEC 6).  A Kronecker product
``u (x) v`` of two partial solutions with ``q1`` and ``q2`` nodes (SPEC 3) has node ``(j1, j2)``
equal to ``(u_a[j1] v_a[j2], u_b[j1] v_b[j2], u_c[j1] v_c[j2])``: arranged on a ``q1 x q2`` grid,
each of the three vectors is a rank-1 matrix.  This module holds what a *given* grid means: the
result types (:class:`Factor`, :class:`Factorization`, :class:`BlockFactorization`), the fit of
factors to a grid (:func:`fit_grid`, with its reassignment of nodes to cells, by
:func:`cogo.analysis.factor.assignment.linear_assignment` and the rank-1 fits of :mod:`cogo.analysis.factor.lowrank`)
and the keys the canonical answer is read by (:func:`_feature_keys`; the canonical representative
itself is :mod:`cogo.analysis.factor.canonical`).  Where grids come from is :mod:`cogo.analysis.factor.tiling` and
:mod:`cogo.analysis.factor.passes`; the entry points are in :mod:`cogo.analysis.factor.factorization`.

Gauge (SPEC 8.4)
----------------
A node ``(a, b, c)`` and ``(t a, t b, c / t^2)`` (real ``t != 0``) compute the same function, so
before factoring every node is *balanced* (:func:`balance_gauge`): ``t > 0`` is chosen so that
``|t a| |t b| = |c / t^2|^2``.  Balancing is multiplicative under ``*``, so a balanced block of a
product is the product of the balanced factors.  The remaining sign ``t = -1`` is handled by
working, while a grid is searched, with the sign-invariant node *features* ``(a^2, a b, b^2, c)``
(:func:`node_features`): ``x = u (x) v`` up to per-node signs iff the features are a Kronecker
product; the per-node signs are recovered afterwards from the fitted factors.

The factors are normalized as SPEC 8.4: per factor and per ``p``, the first node (grid cell 0) is
1, and the block is ``scale_p * (u^(1) (x) ... )_p``; ``scale_a scale_b scale_c`` is the common
per-node product ``a_j b_j c_j`` (``1/q`` for the catalogue's global blocks).  The reported
*error* is ``||x - x_hat|| / ||x||`` over the ``3 q`` entries of the balanced, sign-fixed block
``x`` and its Kronecker reconstruction ``x_hat``.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] C. F. Van Loan, N. Pitsianis, "Approximation with Kronecker products", Linear Algebra for Large Scale and Real-Time Applications, 1993.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, Sequence

import numpy as np

from cogo.analysis.factor.assignment import linear_assignment
from cogo.analysis.factor.lowrank import _rank1_cells, rank1_batch
from cogo.catalogue.partial import PartialSolution

__all__ = [
    "FACTOR_TOL",
    "ERROR_DECIMALS",
    "KEY_DECIMALS",
    "Factor",
    "Factorization",
    "BlockFactorization",
    "GridFit",
    "balance_gauge",
    "node_features",
    "kron_vectors",
    "factor_shapes",
    "fit_grid",
    "fit_grids",
]


#: A factorization whose relative reconstruction error is at most this counts as exact.
FACTOR_TOL = 0.05


_TINY = 1e-300


#: Decimals to which errors are read when factorizations are ranked (float noise of 1e-16 decides nothing).
ERROR_DECIMALS = 9


#: Decimals to which feature values are read in canonical keys (node order, anchor, factor orientation).
KEY_DECIMALS = 6


# --------------------------------------------------------------------------- results
@dataclass
class Factor:
    """One Kronecker factor ``(a, b, c)`` in ``C^m``, normalized so that its first node is ``(1, 1, 1)``.

    >>> import numpy as np
    >>> from cogo.analysis.factor.factorization import factor_block
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
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
        """This factor as a :class:`cogo.catalogue.partial.PartialSolution`."""
        return PartialSolution(name, self.a.copy(), self.b.copy(), self.c.copy(), dict(params or {}))


class GridFit(NamedTuple):
    """What :func:`fit_grid` returns: a refined grid and the factors fitted on it.

    Attributes
    ----------
    grid : int array
        The grid (``grid[cell]`` = node), of the shape asked for.
    factors : list of complex arrays (3, m_i)
        The factor vectors, normalized to first node 1 (SPEC 8.4).
    scale : complex array (3,)
        ``(scale_a, scale_b, scale_c)``.
    signs : float array (q,)
        The per-node sign gauge that was fixed.
    error : float
        Relative reconstruction error of the balanced, sign-fixed block.
    """

    grid: np.ndarray
    factors: list
    scale: np.ndarray
    signs: np.ndarray
    error: float


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
        True when the grid came from an exact tiling (:mod:`cogo.analysis.factor.tiling`),
        False when it came from local search only.

    Examples
    --------
    >>> from cogo.analysis.factor.factorization import factor_block
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # z_nu=i * z_syn: a 2 x 3 Kronecker product
    >>> f = factor_block(x.a, x.b, x.c).best
    >>> f.shape, f.grid.tolist(), round(f.error, 9), f.exact_grid
    ((2, 3), [[0, 2, 1], [4, 3, 5]], 0.0, True)

    The grid is the canonical representative (:func:`cogo.analysis.factor.canonical.canonical_factorization`): the product
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

    @classmethod
    def from_fit(cls, fit: GridFit, balance: np.ndarray, exact_grid: bool,
                 shape: tuple[int, ...] | None = None) -> "Factorization":
        """The factorization of a :func:`fit_grid` result on a block balanced by ``balance``, of ``shape`` (default: the grid's)."""
        shape = tuple(fit.grid.shape) if shape is None else tuple(shape)
        return cls(shape, fit.grid, [Factor(*f) for f in fit.factors], fit.scale, fit.error, fit.signs,
                   balance, exact_grid)

    @property
    def q(self) -> int:
        return int(np.prod(self.shape))

    @cached_property
    def sort_key(self) -> tuple:
        """How factorizations are ranked: the error to :data:`ERROR_DECIMALS` decimals, then the
        canonical key of the factors (:func:`cogo.analysis.factor.canonical.canonical_factorization`), so equally good grids are
        ranked by what they are, not by float noise or the order they were found in.  Computed once (sorting
        asks for it many times): a factorization is not changed after it is built."""
        return (round(float(self.error), ERROR_DECIMALS),
                tuple(tuple(_feature_keys(f.vectors.T)) for f in self.factors))

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

    >>> from cogo.analysis.factor.factorization import factor_block
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
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

    Examples
    --------
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
    """Sign-invariant node features ``(a^2, a b, b^2, c)``, shape ``(q, 4)`` (``(..., q, 4)`` for stacked blocks).

    ``(a, b, c)`` is a Kronecker product up to per-node signs ``(-a, -b, c)``
    iff its features are a Kronecker product (channel by channel).

    Examples
    --------
    >>> import numpy as np
    >>> F = node_features(np.array([1, -1]), np.array([2, -2]), np.array([3, 3]))
    >>> F.real.tolist()                                 # (a, b, c) and (-a, -b, c) look the same
    [[1, 2, 4, 3], [1, 2, 4, 3]]
    """
    return np.stack([a * a, a * b, b * b, c], axis=-1)


def kron_vectors(factors: Sequence[np.ndarray]) -> np.ndarray:
    """Kronecker product along nodes of arrays ``(C, m_i)``: ``(C, prod m_i)``, node order row-major (SPEC 3).

    Examples
    --------
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

    Examples
    --------
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


def _rel_dist(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``||X_i - Y_j|| / max(||X_i||, ||Y_j||)`` for feature rows ``X`` (n, 4) and ``Y`` (m, 4): (n, m)."""
    nx_ = np.linalg.norm(X, axis=1)
    ny = np.linalg.norm(Y, axis=1)
    d = np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=-1)
    return d / np.maximum(np.maximum(nx_[:, None], ny[None, :]), _TINY)


def _ekey(f) -> float:
    return round(float(f.error), ERROR_DECIMALS)


def _feature_key(f: np.ndarray) -> tuple:
    """A canonical, noise-robust sort key of one node's features ``(a^2, a b, b^2, c)`` (or any complex vector).

    Per entry: the angle in degrees read in ``[0, 360)`` and the log-modulus, both rounded to
    :data:`KEY_DECIMALS` decimals (an angle within ``1e-6`` degrees of 360 reads as 0), so two
    nodes equal up to float noise get the same key and the order does not depend on node order.
    """
    return _feature_keys(np.asarray(f, dtype=np.complex128).reshape(1, -1))[0]


def _feature_keys(M: np.ndarray) -> list[tuple]:
    """:func:`_feature_key` of every row of ``M`` (n, k), computed at once (the same operations, entry by entry)."""
    f = np.asarray(M, dtype=np.complex128)
    n = f.shape[0]
    f = f.reshape(n, -1)
    mag = np.abs(f)
    out = np.empty(f.shape + (2,))  # (angle, log-modulus) per entry, rounded together
    ang, lm = out[..., 0], out[..., 1]
    np.mod(np.degrees(np.angle(f)), 360.0, out=ang)
    np.log(np.maximum(mag, _TINY), out=lm)
    np.round(out, KEY_DECIMALS, out=out)
    ang[ang >= 360.0] = 0.0
    ang[~(mag > 0)] = 0.0
    out += 0.0  # -0.0 reads as 0.0
    return [tuple(r) for r in out.reshape(n, -1).tolist()]


def fit_grid(x: np.ndarray, F: np.ndarray, grid: np.ndarray, reassign: bool = True,
             max_rounds: int = 10) -> GridFit:
    """Refine a grid and fit Kronecker factors to the balanced block ``x`` (3, q) with features ``F``.

    Alternates rank-1 fits of the feature channels with an optimal
    reassignment of nodes to cells (Hungarian algorithm), then fixes the
    per-node signs and fits each of ``a, b, c`` by a rank-1 tensor (SPEC 8.5).
    Returns ``(grid, factor_vectors, scale, signs, error)`` with
    ``factor_vectors[i]`` of shape ``(3, m_i)`` normalized to first node 1.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> X = np.stack(balance_gauge(x.a, x.b, x.c)[:3])
    >>> grid, facs, scale, signs, err = fit_grid(X, node_features(*X), np.arange(6).reshape(2, 3))
    >>> grid.tolist(), [f.shape for f in facs], round(err, 9)   # the 2 x 3 grid fits exactly
    ([[0, 1, 2], [3, 4, 5]], [(3, 2), (3, 3)], 0.0)
    """
    shape = grid.shape
    q = grid.size
    flat = grid.reshape(-1).copy()
    for _ in range(max_rounds if reassign else 0):
        pred = _rank1_cells(F[flat], shape)  # (cells, 4)
        cost = np.round((np.abs(F[:, None, :] - pred[None, :, :]) ** 2).sum(-1), ERROR_DECIMALS)  # (nodes, cells)
        col = linear_assignment(cost)
        new = np.empty(q, dtype=np.int64)
        new[col] = np.arange(q)
        if np.array_equal(new, flat):
            break
        flat = new
    return fit_grids(x, F, flat.reshape((1,) + tuple(shape)))[0]


def _kron_rows(factors: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`kron_vectors` of stacks: ``(..., m_i)`` arrays to ``(..., prod m_i)``, row-major, the same products."""
    out = factors[0]
    for f in factors[1:]:
        out = (out[..., :, None] * f[..., None, :]).reshape(out.shape[:-1] + (-1,))
    return out


def fit_grids(x: np.ndarray, F: np.ndarray, grids: np.ndarray, offsets: np.ndarray | None = None) -> list[GridFit]:
    """:func:`fit_grid` without reassignment on every grid of ``grids`` (N, *shape) of one block at once.

    Per grid: the per-node signs from the rank-1 fit of the ``a^2, ab`` feature channels, then each of ``a, b, c``
    fitted by a rank-1 tensor on the grid (SPEC 8.5); the factors normalized to their first node (or their largest
    entry when the first is 0).  The same operations as one grid at a time, stacked.  ``offsets`` (N,): ``x``, ``F``
    hold several blocks' nodes side by side and grid ``n`` covers the block starting at node ``offsets[n]``; its
    fit (grid, signs) is then that block's own, as if fitted on it alone.
    """
    grids = np.asarray(grids)
    N, shape = grids.shape[0], tuple(grids.shape[1:])
    flats = grids.reshape(N, -1)
    q = flats.shape[1]
    # signs: predicted a, b up to a common sign per node from the feature fit
    # square roots taken factor by factor (per cell they would carry arbitrary signs)
    lam, uu = rank1_batch(np.swapaxes(F[flats][:, :, :2], 1, 2).reshape((2 * N,) + shape))
    lam, uu = lam.reshape(N, 2), [u.reshape(N, 2, -1) for u in uu]
    ra = [np.sqrt(u[:, 0]) for u in uu]
    rb = [u[:, 1] / np.where(r == 0, _TINY, r) for u, r in zip(uu, ra)]
    l2 = np.sqrt(lam[:, 0])
    ahat = l2[:, None] * _kron_rows(ra)
    bhat = (lam[:, 1] / np.where(l2 != 0, l2, _TINY))[:, None] * _kron_rows(rb)
    xa, xb = x[0][flats], x[1][flats]
    score = np.real(np.conj(ahat) * xa + np.conj(bhat) * xb)
    sg = np.where(score < 0, -1.0, 1.0)
    cells = np.stack([xa * sg, xb * sg, x[2][flats]], axis=1)  # (N, 3, cells)
    lams, uss = rank1_batch(cells.reshape((3 * N,) + shape))
    scale = lams.reshape(N, 3)
    facs = []
    for u in uss:
        u = u.reshape(N, 3, -1)
        au = np.abs(u)
        first = np.abs(u[..., 0]) > 1e-12 * np.maximum(1.0, au.max(axis=-1))
        piv = np.where(first, u[..., 0], np.take_along_axis(u, au.argmax(axis=-1)[..., None], axis=-1)[..., 0])
        facs.append(u / piv[..., None])
        scale = scale * piv
    recon = scale[..., None] * _kron_rows(facs)
    nrm = [np.linalg.norm(c) for c in cells]                  # per grid, as one grid's Frobenius norm
    err = [float(np.linalg.norm(c - r) / n) if n > 0 else 0.0 for c, r, n in zip(cells, recon, nrm)]
    local = flats if offsets is None else flats - np.asarray(offsets, dtype=np.int64)[:, None]
    signs = np.empty((N, q))
    np.put_along_axis(signs, local, sg, axis=1)
    return [GridFit(local[n].reshape(shape), [f[n] for f in facs], scale[n], signs[n], err[n]) for n in range(N)]
