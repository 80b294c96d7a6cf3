"""The MSE loss in real space (SPEC 1) and in Fourier coordinates (SPEC 5).

Real space, per pair ``(a, b)`` with answer ``c = a + b``::

    ||P(o) - P(e_c)||^2 = ||P(o)||^2 - 2 P(o)[c] + 1 - 1/n_G,   P(x) = x - mean(x)

Fourier coordinates, for any weights (the general form, DC terms included)::

    loss(z) = (1/n) sum_{k != 0} l_k(z) + 1 - 1/n
    l_k = -2 Re r[k,k,k] + sum_{k1,k2 != 0} |r[k1,k2,k]|^2
          + | r[0,0,k] + 1/2 sum_p C_p[0,k] |^2
          + sum_{m != 0} ( |r[m,0,k] + 1/2 C_a[m,k]|^2 + |r[0,m,k] + 1/2 C_b[m,k]|^2 )

with ``C_p[m, k] = sum_k' r_p[k', m - k', k]``.  The published zero-mean form
(:func:`published_loss`) drops the ``r`` terms with a 0 index; it is wrong for
weights with nonzero mean.  Neither form builds the ``n^3`` potential tensor:
the ``sum |r|^2`` term is a Gram-matrix contraction over node pairs.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from cogo.algebra._lazy import lazy_module
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import as_group
from cogo.algebra.network import Network, _conj, is_zero_exact
from cogo.algebra.potentials import potentials, self_potential_sums

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = ["fourier_loss", "published_loss", "real_loss", "real_loss_by_frequency", "per_frequency_loss", "Conditions", "condition_residuals"]


def _expand1(e: Any) -> Any:
    """``sympy.expand(e)`` through the entry's own ``expand`` (sympy's is the same; CycNumber and the modular
    scalars of :mod:`cogo.algebra.modular` return themselves), without sympy's dispatch per entry."""
    f = getattr(e, "expand", None)
    return f() if f is not None else sympy.expand(e)


def _abs2(x: np.ndarray, exact: bool) -> np.ndarray:
    if exact:  # e.conjugate() is sympy.conjugate(e) for sympy values, zeta -> zeta^-1 for exact scalars
        return np.vectorize(lambda e: _expand1(e * e.conjugate()), otypes=[object])(x) if x.size else x
    return (x * np.conj(x)).real


def _loss_terms(z: Network, published: bool = False) -> np.ndarray:
    """``l_k`` for every frequency index k (entry 0 is unused and set to 0)."""
    exact = z.exact
    n = z.n
    za, zb, zc = z.a, z.b, z.c
    nz = np.arange(1, n)
    # -2 Re r[k,k,k]
    rkkk = (za * zb * zc).sum(axis=1)
    # sum_{k1, k2 != 0} |r[k1,k2,k]|^2 = zc[k] (Ga o Gb) zc[k]^H over node pairs
    Ga = za[nz].T.dot(_conj(za[nz]))
    Gb = zb[nz].T.dot(_conj(zb[nz]))
    M = Ga * Gb
    sq = (zc.dot(M) * _conj(zc)).sum(axis=1)
    half = sympy.Rational(1, 2) if exact else 0.5
    # exact scalars can be large (the residues of cogo.algebra.modular): an exact network's sums over m != 0 stream
    # in rows (_star_streamed), so no (n, n) array of them is ever alive; row m = 0 is kept (the same sums, exactly)
    streamed = bool(exact and za.dtype == object)
    Ca = self_potential_sums(z, "a", [0] if streamed else None)
    Cb = self_potential_sums(z, "b", [0] if streamed else None)
    if published:
        quarter = sympy.Rational(1, 4) if exact else 0.25
        dc = quarter * _abs2(Ca[0] + Cb[0], exact)
        star = _star_streamed(z, published, half) if streamed else \
            quarter * (_abs2(Ca[nz], exact).sum(axis=0) + _abs2(Cb[nz], exact).sum(axis=0))
    else:
        r00k = zc.dot(za[0] * zb[0])  # r[0,0,k]
        dc = _abs2(r00k + half * (Ca[0] + Cb[0]), exact)
        if streamed:
            star = _star_streamed(z, published, half)
        else:
            rm0k = (za[nz] * zb[0][None, :]).dot(zc.T)  # r[m,0,k], m != 0
            r0mk = (za[0][None, :] * zb[nz]).dot(zc.T)  # r[0,m,k]
            star = _abs2(rm0k + half * Ca[nz], exact).sum(axis=0) + _abs2(r0mk + half * Cb[nz], exact).sum(axis=0)
    if exact:
        re2 = np.vectorize(lambda e: _expand1(e + e.conjugate()), otypes=[object])(rkkk)
        lk = -re2 + sq + dc + star
        lk = np.vectorize(_expand1, otypes=[object])(lk)
        lk[0] = sympy.Integer(0)
        return lk
    lk = -2.0 * rkkk.real + sq.real + dc + star
    lk[0] = 0.0
    return lk


def _star_streamed(z: Network, published: bool, half: Any, rows: int = 8) -> np.ndarray:
    """The R_* sum of :func:`_loss_terms` (over ``m != 0``) of an exact network, its ``m`` sums taken ``rows`` rows
    at a time (memory ``O(rows n)`` scalars instead of ``O(n^2)``)."""
    n = z.n
    za, zb, zc = z.a, z.b, z.c
    star = None
    for s in range(1, n, rows):
        ms = np.arange(s, min(n, s + rows))
        Ca, Cb = self_potential_sums(z, "a", ms), self_potential_sums(z, "b", ms)
        if published:
            part = sympy.Rational(1, 4) * (_abs2(Ca, True).sum(axis=0) + _abs2(Cb, True).sum(axis=0))
        else:
            rm0k = (za[ms] * zb[0][None, :]).dot(zc.T)  # r[m,0,k]
            r0mk = (za[0][None, :] * zb[ms]).dot(zc.T)  # r[0,m,k]
            part = _abs2(rm0k + half * Ca, True).sum(axis=0) + _abs2(r0mk + half * Cb, True).sum(axis=0)
        star = part if star is None else star + part
    return np.zeros(n, dtype=object) if star is None else star


def per_frequency_loss(z: Network) -> np.ndarray:
    """``l_k(z)`` of SPEC 5 for every frequency index (index 0 holds 0; sympy numbers for an exact network).

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> per_frequency_loss(z_F6(5, exact=True)).tolist()   # l_k = -1 at each k != 0: loss 4/5 - 4/5 = 0
    [0, -1, -1, -1, -1]
    """
    return _loss_terms(z)


def fourier_loss(z: Network) -> Any:
    """The exact MSE loss on all ``n_G^2`` pairs from Fourier coordinates (SPEC 5, general form).

    Valid for any weights, including nonzero-mean inputs.  Returns a float
    (numeric networks) or an expanded sympy expression (exact networks).
    The loss is a mean of squared norms, so it is never negative; the float
    sum of its terms can fall below 0 by round-off (about ``-4e-16`` for
    ``z_F6(23)``), and the float result is clipped at 0: a global optimizer
    reads ``0.0``, never a negative loss.  The exact result is never clipped
    (it is exactly 0 at an exact optimum).

    Returns
    -------
    float or sympy.Expr
        The loss (a float ``>= 0`` for a numeric network, an expanded expression for an exact one).

    Examples
    --------
    >>> from cogo.algebra import Network
    >>> from cogo.solvers.constructions import z_F6, z_F46
    >>> fourier_loss(z_F6(5, exact=True))                  # an exact global optimum (SPEC 7.1)
    0
    >>> fourier_loss(Network.zero(5, exact=True))          # the zero network: 1 - 1/n
    4/5
    >>> fourier_loss(z_F46(7, corrected=False, exact=True))  # SPEC 7.3 without the hat: 2 (d - 3) / d
    8/7
    >>> fourier_loss(z_F6(23))                             # float: round-off below 0 is clipped
    0.0
    """
    lk = _loss_terms(z)
    n = z.n
    if z.exact:
        return sympy.expand(sum(lk.tolist(), sympy.Integer(0)) / n + 1 - sympy.Rational(1, n))
    return max(0.0, float(lk.sum() / n + 1.0 - 1.0 / n))  # a sum of squares: a negative float is round-off


def published_loss(z: Network) -> Any:
    """The published zero-mean form of the loss (SPEC 5).

    Equal to :func:`fourier_loss` when ``z[a,0,:] = z[b,0,:] = 0`` and wrong
    otherwise; kept so that tests can show the difference.  A float or an expression, as :func:`fourier_loss`.

    Examples
    --------
    >>> from cogo.algebra import Network, fourier_loss
    >>> one = Network.one(5, exact=True)                   # z[a, 0] != 0: inputs with nonzero mean
    >>> fourier_loss(one), published_loss(one)             # the published form is wrong here
    (596/5, 72)
    """
    lk = _loss_terms(z, published=True)
    n = z.n
    if z.exact:
        return sympy.expand(sum(lk.tolist(), sympy.Integer(0)) / n + 1 - sympy.Rational(1, n))
    return float(lk.sum() / n + 1.0 - 1.0 / n)


def _as_float(W: Any, name: str) -> np.ndarray:
    torch = sys.modules.get("torch")      # a tensor exists only if torch is imported; never import it here
    if torch is not None and isinstance(W, torch.Tensor):
        W = W.detach().cpu().to(torch.float64).numpy()
    arr = np.asarray(W)
    if arr.dtype == object or np.iscomplexobj(arr):
        raise ValueError(f"{name}: real_loss takes real numeric weights")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return arr


def real_loss(Wa: Any, Wb: Any, Wc: Any, pairs: Any = None, group: Any = None,
              chunk_elements: int = 1 << 23) -> float:
    """The MSE loss of SPEC 1 computed in real space, in float64.

    The sum of the squared residuals ``||P(o) - P(e_c)||^2`` is accumulated
    directly, so an exact optimizer's loss is at rounding level squared
    (about 1e-30), never negative.

    ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q).  ``pairs``: None for all
    ``n_G^2`` pairs, an integer array of pair indices ``a * n_G + b``, or an
    array of shape (P, 2) of ``(a, b)``.  Inputs are gathered (columns of
    ``Wa``, ``Wb``), never multiplied by one-hot vectors.  Pairs are processed
    in chunks of about ``chunk_elements`` hidden activations.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.solvers.constructions import z_M
    >>> Wa, Wb, Wc = z_M(5).to_weights(real=True)           # perfect memorization (SPEC 7.4)
    >>> real_loss(Wa, Wb, Wc, group=5) < 1e-20
    True
    >>> q0 = np.zeros((1, 5))                               # the zero network: 1 - 1/n on every pair
    >>> round(real_loss(q0, q0, q0.T), 12), round(real_loss(q0, q0, q0.T, pairs=[[1, 2], [3, 4]]), 12)
    (0.8, 0.8)
    """
    Wa, Wb, Wc = _as_float(Wa, "Wa"), _as_float(Wb, "Wb"), _as_float(Wc, "Wc")
    if Wa.ndim != 2 or Wb.shape != Wa.shape or Wc.shape != Wa.shape[::-1]:
        raise ValueError(f"weights must have shapes (q, n), (q, n), (n, q); got {Wa.shape}, {Wb.shape}, {Wc.shape}")
    q, n = Wa.shape
    G: FiniteAbelianGroup = as_group(group if group is not None else n)
    if G.order != n:
        raise ValueError(f"weights have {n} columns but {G} has order {G.order}")
    if pairs is None:
        A, B = np.divmod(np.arange(n * n), n)
    else:
        P = np.asarray(pairs)
        if not np.issubdtype(P.dtype, np.integer):
            raise ValueError("pairs must be integers")
        if P.ndim == 1:
            if P.size and (P.min() < 0 or P.max() >= n * n):
                raise ValueError(f"pair indices must lie in 0..{n * n - 1}")
            A, B = np.divmod(P, n)
        elif P.ndim == 2 and P.shape[1] == 2:
            if P.size and (P.min() < 0 or P.max() >= n):
                raise ValueError(f"pair elements must lie in 0..{n - 1}")
            A, B = P[:, 0], P[:, 1]
        else:
            raise ValueError(f"pairs must be shape (P,) or (P, 2); got {P.shape}")
    if len(A) == 0:
        raise ValueError("real_loss needs at least one pair")
    total = 0.0
    for r in _residual_chunks(Wa, Wb, Wc, G, A, B, chunk_elements):
        total += float(np.einsum("ij,ij->", r, r))
    return total / len(A)


def _residual_chunks(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any, A: np.ndarray, B: np.ndarray,
                     chunk_elements: int):
    """The residuals ``P(o) - P(e_c)`` of the pairs ``(A, B)``, (P, n) rows a chunk at a time (:func:`real_loss`)."""
    q, n = Wa.shape
    C = G.add_table[A, B]
    WaT, WbT = Wa.T, Wb.T  # (n, q): row gather
    step = max(1, chunk_elements // max(q, n, 1))  # h is (P, q) and o is (P, n): both bounded
    for s in range(0, len(A), step):
        h = WaT[A[s:s + step]] + WbT[B[s:s + step]]
        o = (h * h) @ Wc.T  # (P, n)
        # residual P(o) - P(e_c), summed squared directly (not the expanded form, whose
        # cancellation would floor the accuracy near 1e-16 for an exact optimizer)
        r = o - o.mean(axis=1, keepdims=True) + 1.0 / n
        rows = np.arange(len(r))
        r[rows, C[s:s + step]] -= 1.0
        yield r


def real_loss_by_frequency(Wa: Any, Wb: Any, Wc: Any, group: Any = None, chunk_elements: int = 1 << 23) -> np.ndarray:
    """The part of :func:`real_loss` (all pairs) carried by each output frequency ``k``: ``(n_G,)`` float64.

    The residual of every pair, ``r = P(o) - P(e_c)`` (the vector :func:`real_loss` squares), is written in the
    characters of the group (an FFT over each cyclic factor; the frequency index ``k`` of an element of the
    product is row-major in the factors' indices, as the group's elements are): by Parseval
    ``sum_m r_m^2 = (1 / n) sum_k |r_hat_k|^2``, so entry ``k`` is ``sum_{a, b} |r_hat_k(a, b)|^2 / n^3`` and the
    entries sum to the loss (to rounding).  Entry 0 is 0 up to rounding (``P`` removes the mean); for real weights
    entries ``k`` and ``-k`` are equal.  In SPEC 5's terms entry ``k != 0`` is ``(l_k + 1) / n``
    (:func:`per_frequency_loss`): what the network gets wrong at output frequency ``k``.  Cost: that of
    :func:`real_loss` plus ``O(n^3 log n)``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> W = z_F46(7, corrected=False).to_weights(real=True)     # order-4 blocks at k = 2, 3 without the hat
    >>> [round(float(x) * 7, 9) for x in real_loss_by_frequency(*W, group=7)]   # 2 (d - 3) / d on k = +-2, +-3
    [0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 0.0]
    """
    Wa, Wb, Wc = _as_float(Wa, "Wa"), _as_float(Wb, "Wb"), _as_float(Wc, "Wc")
    if Wa.ndim != 2 or Wb.shape != Wa.shape or Wc.shape != Wa.shape[::-1]:
        raise ValueError(f"weights must have shapes (q, n), (q, n), (n, q); got {Wa.shape}, {Wb.shape}, {Wc.shape}")
    n = Wa.shape[1]
    G: FiniteAbelianGroup = as_group(group if group is not None else n)
    if G.order != n or getattr(G, "abelian", G) is None:
        raise ValueError(f"weights have {n} columns; {G} is not an Abelian group of that order")
    axes = tuple(int(d) for d in G.orders)
    A, B = np.divmod(np.arange(n * n), n)
    out = np.zeros(n)
    for r in _residual_chunks(Wa, Wb, Wc, G, A, B, chunk_elements):
        R = np.fft.fftn(r.reshape((len(r),) + axes), axes=tuple(range(1, len(axes) + 1)))
        out += np.square(np.abs(R)).reshape(len(r), n).sum(axis=0)
    return out / float(n) ** 3


# --------------------------------------------------------------------------- conditions
@dataclass
class Conditions:
    """Residuals of the sufficient conditions of SPEC 5, for every ``k != 0``.

    Attributes (frequency index 0 and excluded entries hold 0):

    - ``R_g[k] = r[k,k,k] - 1``
    - ``R_c[k1,k2,k] = r[k1,k2,k]`` for ``(k1, k2) != (k, k)``
    - ``R_n[k] = sum_p sum_k' r_p[k', -k', k]``
    - ``R_star[p, m, k] = sum_k' r_p[k', m - k', k]`` for ``m != 0``, p in (a, b)

    >>> from cogo.solvers.constructions import z_F46
    >>> res = condition_residuals(z_F46(7, corrected=False))   # order-4 blocks without the hat: R_n fails (SPEC 7.3)
    >>> res.holds()
    {'R_g': True, 'R_c': True, 'R_n': False, 'R_*': True}
    >>> round(res.max_abs()["R_g"], 9)
    0.0
    """

    R_g: np.ndarray
    R_c: np.ndarray
    R_n: np.ndarray
    R_star: np.ndarray
    exact: bool

    def as_dict(self) -> dict[str, np.ndarray]:
        return {"R_g": self.R_g, "R_c": self.R_c, "R_n": self.R_n, "R_*": self.R_star}

    def max_abs(self) -> dict[str, float]:
        """Largest absolute residual of each condition (exact entries evaluated)."""
        out = {}
        for name, arr in self.as_dict().items():
            if self.exact:
                vals = [abs(complex(sympy.N(e))) for e in arr.ravel()] or [0.0]
                out[name] = float(max(vals))
            else:
                out[name] = float(np.abs(arr).max(initial=0.0))
        return out

    def exactly_zero(self) -> dict[str, bool]:
        """Exact networks: whether every residual of each condition is proven exactly 0."""
        if not self.exact:
            raise ValueError("exactly_zero() needs an exact network; use max_abs() for numeric ones")
        return {name: all(is_zero_exact(e) for e in arr.ravel()) for name, arr in self.as_dict().items()}

    def holds(self, tol: float = 1e-9) -> dict[str, bool]:
        """Whether each condition holds (exact: proven 0; numeric: ``max |residual| <= tol``)."""
        if self.exact:
            return self.exactly_zero()
        return {name: v <= tol for name, v in self.max_abs().items()}


def condition_residuals(z: Network) -> Conditions:
    """Residuals of R_g, R_c, R_n, R_* (SPEC 5) for every frequency ``k != 0``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> condition_residuals(z_F6(5, exact=True)).exactly_zero()   # proven 0, not rounded
    {'R_g': True, 'R_c': True, 'R_n': True, 'R_*': True}
    """

    n = z.n
    exact = z.exact
    zero = sympy.Integer(0) if exact else 0.0
    r = potentials(z)
    k = np.arange(n)
    Rg = r[k, k, k] - (sympy.Integer(1) if exact else 1.0)
    Rg[0] = zero
    Rc = r.copy()
    Rc[k, k, k] = zero
    Rc[:, :, 0] = zero
    Ca, Cb = self_potential_sums(z, "a"), self_potential_sums(z, "b")
    Rn = Ca[0] + Cb[0]
    Rn[0] = zero
    Rs = np.stack([Ca, Cb])
    Rs[:, 0, :] = zero
    Rs[:, :, 0] = zero
    if exact:
        ex = np.vectorize(sympy.expand, otypes=[object])
        Rg, Rn, Rs = ex(Rg), ex(Rn), ex(Rs)
    return Conditions(Rg, Rc, Rn, Rs, exact)
