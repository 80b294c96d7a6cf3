"""Broken z_M networks at every order: conditions and loss from integer point counts (SPEC 5, 7.4).

The negative controls of z_M (:mod:`cogo.proofs.controls.broken_constructions`, :mod:`cogo.proofs.controls.unseen_inputs`)
break z_M -- output weights doubled, node ``(0, 0)`` removed, ``b`` of one node set to ``-1`` at frequency 0 --
and must see exactly the predicted conditions fail and the predicted loss.  Built in full, z_M has ``n^2``
nodes and its exact potentials cost ``O(n^5)``; here every network is a *weighted set of character nodes*
(:class:`Points`), so that, as in :mod:`cogo.proofs.certificates.character_sums`, each potential is the Fourier transform
of an integer function on ``G^3`` divided by an integer scale, and

* the four conditions are decided by Fourier inversion on those integer functions
  (:func:`points_certificate`, the identities of :mod:`cogo.proofs.certificates.character_sums` with a scale ``S``:
  ``R_g`` reads ``nu^[k,k,k] = n^2 S``);
* the general loss of SPEC 5 (:func:`cogo.algebra.loss.fourier_loss`'s ``l_k`` summed over ``k != 0``) is a
  sum of ``|f^|^2`` over frequencies with some coordinates nonzero, which Parseval's identity
  (``sum_k |f^(k)|^2 = n sum_g |f(g)|^2``, by inclusion-exclusion over the zero coordinates) turns into sums
  of squares of integers: :func:`points_loss`, an exact Fraction.

A node whose row is a character except at frequency 0 (``b = chi(., x) - 2 delta_0``) is written with
``delta_0 = (1/n) sum_h chi(., h)``: its terms become lines and planes of points with weights ``n``, ``-2`` (and
``-4n``, ``4`` in the self-potentials), the scale multiplied by ``n`` (``n^2`` for the self-potentials).
Cost ``O(n^3)`` integers, memory a few ``n^3`` int64 arrays (16 MB each at ``n = 127``).

References
----------
.. [1] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from cogo.algebra.groups import FiniteAbelianGroup
from cogo.solvers.constructions import mem_factors
from cogo.proofs.certificates.character_sums import _magnitudes, _separable_defect, character_rows, character_table_ok
from cogo.proofs.certificates.mem_certificate import MemCertificate, character_sum_onehot

__all__ = ["Points", "mem_points", "factor_points", "rows_by_sums", "points_certificate", "points_loss", "POINTS_ROUTE"]

#: One line for reports: how the broken z_M networks are decided at every order.
POINTS_ROUTE = ("weighted character nodes: conditions by Fourier inversion, loss by Parseval on exact integer "
                "point counts (cogo.proofs.certificates.mem_points)")


@dataclass
class Points:
    """A network ``n^(-2/3) . sum_i w_i (node with character rows at g_i)`` as integer point sets on ``G^3``.

    ``r``: ``(g1, g2, g3, w)`` (four int arrays): the potential ``r[k1, k2, k]`` of the network is
    ``n^-2 / scale . sum_i w_i chi(k1, g1_i) chi(k2, g2_i) chi(k, g3_i)``; ``self_a``, ``self_b``: ``(g, w3, w)``,
    the points ``(g, g, w3)`` of the self-potentials ``r_p`` (only the diagonal of ``r_p`` enters ``C_p``), over
    ``self_scale``.
    """

    G: FiniteAbelianGroup
    r: tuple
    scale: int
    self_a: tuple
    self_b: tuple
    self_scale: int


def _dense(G: FiniteAbelianGroup, coords: tuple, w: np.ndarray) -> np.ndarray:
    """``sum_i w_i delta_(coords_i)`` as a dense int64 array on ``G^len(coords)`` (exact: one bincount per weight)."""
    n = G.order
    idx = np.zeros(len(w), dtype=np.int64)
    for c in coords:
        idx = idx * n + np.asarray(c, dtype=np.int64)
    out = np.zeros(n ** len(coords), dtype=np.int64)
    for v in np.unique(w):
        if v:
            out += int(v) * np.bincount(idx[w == v], minlength=n ** len(coords))
    return out.reshape((n,) * len(coords))


def mem_points(G: FiniteAbelianGroup, defect: str = "") -> Points | None:
    """z_M (SPEC 7.4) or one of its controls as :class:`Points`; None when z_M's factors are not characters.

    ``defect``: ``""`` (z_M), ``"doubled"`` (output weights times 2), ``"dropped"`` (without node ``(0, 0)``),
    ``"zero-frequency"`` (``b`` of ``U_b``'s node 0 at frequency 0 set to ``-1``, as
    :func:`cogo.proofs.controls.unseen_inputs.control_mem_zero_frequency` builds it).

    Examples
    --------
    >>> from cogo.algebra.group_parsing import parse_group
    >>> P = mem_points(parse_group(5), "dropped")
    >>> P.scale, int(P.r[3].sum())                       # 25 nodes, one removed
    (1, 24)
    """
    Ua, Ub = mem_factors(G)
    P = factor_points(Ua, Ub)
    if P is None:
        return None
    n, (g0, g1, g2, w) = G.order, P.r
    xb = character_rows(Ub)
    g = [g0, g1, g2]
    w = w.copy()
    if defect == "doubled":
        w = 2 * w
    elif defect == "dropped":
        w[0] = 0  # node (0, 0): every row the trivial character
    elif defect not in ("", "zero-frequency"):
        raise ValueError(f"unknown defect {defect!r}")
    if defect != "zero-frequency":
        return Points(G, (g[0], g[1], g[2], w), 1, (g[0], g[2], w), (g[1], g[2], w), 1)
    # nodes (j1, 0): b = chi(., g2) - 2 delta_0 = chi(., g2) - (2/n) sum_h chi(., h)
    nodes = np.arange(0, len(w), xb.shape[1])
    h = np.tile(np.arange(n), len(nodes))
    rep = np.repeat(nodes, n)
    r = (np.concatenate([g[0], g[0][rep]]), np.concatenate([g[1], h]), np.concatenate([g[2], g[2][rep]]),
         np.concatenate([n * w, np.full(len(rep), -2, dtype=np.int64)]))
    sa = (g[0], g[2], n * n * w)
    # b b c at (g, g, .): n^2 [own point] - 2n - 2n [the two lines meet the diagonal there] + 4 [the plane's diagonal]
    wb = n * n * w
    wb[nodes] -= 4 * n
    sb = (np.concatenate([g[1], h]), np.concatenate([g[2], g[2][rep]]),
          np.concatenate([wb, np.full(len(rep), 4, dtype=np.int64)]))
    return Points(G, r, n, sa, sb, n * n)


def rows_by_sums(U: Any) -> list | None:
    """The character each row of a root-of-unity factor is, read by exact character sums in ``Z[zeta_L]``; None
    when some row is not a character.

    The same answer as :func:`cogo.proofs.certificates.character_sums.character_rows` (the phase lookup), by another
    computation: :func:`cogo.proofs.certificates.mem_certificate.character_sum_onehot` decides that the row's
    real-space weight is one-hot at ``m``; an ``a`` or ``b`` row one-hot at ``m`` is ``conj chi(., m) = chi(., -m)``,
    a ``c`` row ``chi(., m)``.  ``O(n^2 q)`` exact sums per channel.

    >>> from cogo.algebra.group_parsing import parse_group
    >>> Ua, _ = mem_factors(parse_group(5))
    >>> [x.tolist() for x in rows_by_sums(Ua)]            # node j of U_a reads a at j: the character at -j
    [[0, 4, 3, 2, 1], [0, 0, 0, 0, 0], [0, 1, 2, 3, 4]]
    """
    A = U.group.add_table
    neg = np.argmax(A == 0, axis=1)  # -g: the one h with g + h = 0
    x = []
    for p in range(3):
        ok, where = character_sum_onehot(U, p)
        if not ok:
            return None
        m = np.asarray(where, dtype=np.int64)
        x.append(neg[m] if p < 2 else m)
    return x


def factor_points(Ua: Any, Ub: Any, by_sums: bool = False) -> Points | None:
    """``n^(-2/3) U_a * U_b`` (SPEC 7.4's product of two root-of-unity factors) as :class:`Points`, each node of
    weight 1; None when some row of a factor is not a character (or the phase table is not a character table).

    The node ``(j1, j2)`` of the product reads, in each channel ``c``, the character at ``x_a[c, j1] + x_b[c, j2]``.
    ``by_sums``: read the rows by exact character sums (:func:`rows_by_sums`) instead of the phase lookup of
    :func:`cogo.proofs.certificates.character_sums.character_rows`, so that a route built on these points shares
    nothing with the inversion certificate but the factors themselves (row 6's second z_M route).

    Examples
    --------
    >>> from cogo.algebra.group_parsing import parse_group
    >>> Ua, Ub = mem_factors(parse_group(5))
    >>> P = factor_points(Ua, Ub)
    >>> P.scale, len(P.r[3]), points_loss(P)              # z_M: 25 nodes, loss 0
    (1, 25, Fraction(0, 1))
    """
    G = Ua.group
    if Ub.group != G:
        return None
    if by_sums:
        xa, xb = rows_by_sums(Ua), rows_by_sums(Ub)
    else:
        xa, xb = character_rows(Ua), character_rows(Ub)
    if xa is None or xb is None or (not by_sums and not character_table_ok(G)):
        return None
    A = G.add_table
    g = [A[xa[c][:, None], xb[c][None, :]].ravel() for c in range(3)]  # node (j1, j2) at index j1 q_b + j2
    w = np.ones(len(g[0]), dtype=np.int64)
    return Points(G, (g[0], g[1], g[2], w), 1, (g[0], g[2], w), (g[1], g[2], w), 1)


def points_certificate(P: Points) -> MemCertificate:
    """The four conditions of SPEC 5 of a :class:`Points` network, decided exactly by Fourier inversion.

    The identities of :mod:`cogo.proofs.certificates.character_sums` with the scale: ``D(g1, g2, u) = nu(g1, g2, u - g1 - g2)
    - S [u = 0]`` (``R_g``: its sum over ``(g1, g2)`` constant in ``u``; ``R_c``: separable), ``beta_p(g, w)``
    the self-potential points (``R_*``: separable; ``R_n``: ``sum_g (beta_a + beta_b)`` constant).  The
    magnitudes of failing conditions are complex128 transforms (reporting only).

    Examples
    --------
    >>> from cogo.algebra.group_parsing import parse_group
    >>> G = parse_group(7)
    >>> [points_certificate(mem_points(G, d)).failing for d in ("", "doubled", "dropped", "zero-frequency")]
    [[], ['R_g'], ['R_g', 'R_c', 'R_n', 'R_*'], ['R_c']]
    """
    G, n, A = P.G, P.G.order, P.G.add_table
    g1, g2, g3, w = P.r
    D = _dense(G, (g1, g2, A[A[g1, g2], g3]), w).reshape(n * n, n)
    D[:, 0] -= P.scale
    beta = {p: _dense(G, pts[:2], pts[2]) for p, pts in (("a", P.self_a), ("b", P.self_b))}
    sigma = D.sum(axis=0)
    gamma = (beta["a"] + beta["b"]).sum(axis=0)
    defect = {"R_g": sigma - sigma[0], "R_c": _separable_defect(D), "R_n": gamma - gamma[0],
              "R_*": np.stack([_separable_defect(beta["a"]), _separable_defect(beta["b"])])}
    zero = {c: not np.any(v) for c, v in defect.items()}
    mags = _magnitudes(G, zero, sigma / P.scale, D / P.scale, gamma / P.self_scale,
                       {p: b / P.self_scale for p, b in beta.items()})
    return MemCertificate(zero, mags, {"route": POINTS_ROUTE, "points": int(len(w)), "scale": P.scale})


def _sq(f: np.ndarray) -> int:
    """``sum f^2`` exactly (Python integers once int64 could overflow)."""
    m = int(np.abs(f).max(initial=0))
    if m * m * max(f.size, 1) < 2**62:
        return int((f * f).sum())
    return int(sum(int(x) * int(x) for x in f.ravel().tolist()))


def _parseval_nonzero(f: np.ndarray, n: int) -> int:
    """``sum |f^(k)|^2`` over the ``k`` with every coordinate nonzero, exactly (inclusion-exclusion, Parseval)."""
    d = f.ndim
    total = 0
    for mask in range(1 << d):
        axes = tuple(a for a in range(d) if mask >> a & 1)  # these coordinates of k are 0: f summed over them
        marg = f.sum(axis=axes) if axes else f
        total += (-1) ** len(axes) * n ** (d - len(axes)) * _sq(np.asarray(marg))
    return total


def points_loss(P: Points) -> Fraction:
    """The general loss of SPEC 5 of a :class:`Points` network, exactly (module docstring).

    ``l_k = -2 Re r[k,k,k] + sum_(k1,k2 != 0) |r[k1,k2,k]|^2 + |r[0,0,k] + (C_a + C_b)[0,k]/2|^2
    + sum_(m != 0) (|r[m,0,k] + C_a[m,k]/2|^2 + |r[0,m,k] + C_b[m,k]/2|^2)`` and the loss
    ``(1/n) sum_(k != 0) l_k + 1 - 1/n`` (:func:`cogo.algebra.loss.fourier_loss`), with ``r = n^-2 nu^ / S`` and
    ``C_p = n^-2 (n / S_p) beta_p^``; each sum over ``k != 0`` is a Parseval sum of integer point counts.

    Examples
    --------
    >>> from cogo.algebra.group_parsing import parse_group
    >>> G = parse_group(5)
    >>> [points_loss(mem_points(G, d)) for d in ("", "doubled", "dropped", "zero-frequency")]
    [Fraction(0, 1), Fraction(4, 5), Fraction(24, 125), Fraction(16, 125)]
    """
    G, n, A = P.G, P.G.order, P.G.add_table
    S, Sp = P.scale, P.self_scale
    g1, g2, g3, w = P.r
    F = _dense(G, (g1, g2, g3), w)
    ba = _dense(G, P.self_a[:2], P.self_a[2])
    bb = _dense(G, P.self_b[:2], P.self_b[2])
    s = Fraction(1, n * n)
    # -2 Re sum_(k != 0) r[k,k,k]: sum_k chi(k, g1 + g2 + g3) = n [g1 + g2 + g3 = 0]
    on = A[A[g1, g2], g3] == 0
    t1 = -2 * s / S * (n * int(w[on].sum()) - int(w.sum()))
    t2 = (s / S) ** 2 * _parseval_nonzero(F, n)
    c = s / (2 * S * Sp)  # r over S and C_p / 2 over S_p on the common denominator 2 S S_p
    H0 = 2 * Sp * F.sum(axis=(0, 1)) + n * S * (ba + bb).sum(axis=0)       # r[0,0,k] + (C_a + C_b)[0,k]/2
    Ha = 2 * Sp * F.sum(axis=1) + n * S * ba                               # r[m,0,k] + C_a[m,k]/2
    Hb = 2 * Sp * F.sum(axis=0) + n * S * bb                               # r[0,m,k] + C_b[m,k]/2
    rest = _parseval_nonzero(H0, n) + _parseval_nonzero(Ha, n) + _parseval_nonzero(Hb, n)
    return (t1 + t2 + c * c * rest) / n + 1 - Fraction(1, n)
