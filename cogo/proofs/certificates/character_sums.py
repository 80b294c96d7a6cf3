"""The z_M certificate by Fourier inversion: character sums decided on integer point counts (SPEC 4, 5, 7.4).

:func:`cogo.proofs.certificates.mem_certificate.mem_certificate` (the reference route) computes
every potential of ``z = n^(-2/3) U_a * U_b`` as an element of ``Z[zeta_L]``:
``n^3`` products of cyclotomic integers, ``O(n^5)`` at ``n = L`` prime.  When
every row of the factors is a *character* -- ``E[p, :, j] = <., x_pj>`` for an
element ``x_pj`` of ``G``, as for z_M and every factor built from it by moving
rows -- the same conditions are decided exactly on integers in ``O(n^3)``:

* A factor's potential is a Fourier transform on ``G^3``:
  ``r(U)[k1, k2, k] = sum_j chi(k1, x0_j) chi(k2, x1_j) chi(k, x2_j) = mu_U^(k1, k2, k)``
  with ``mu_U = sum_j delta_(x0_j, x1_j, x2_j)`` (``f^(k) = sum_g f(g) chi(k, g)``).
* By multiplicativity, ``P = r(U_a) r(U_b) = nu^`` with ``nu = mu_Ua * mu_Ub``
  (convolution on ``G^3``: the ``q_a q_b`` nodes of z_M as points).
* Fourier inversion (orthogonality of characters) turns each condition into an
  identity between integer functions (``D(g1, g2, u) = nu(g1, g2, u - g1 - g2) - [u = 0]``,
  ``beta_p(g, w) = nu_p(g, g, w)`` with ``nu_p`` the convolution of the points
  ``(x_p, x_p, x_2)`` of the two factors):

  - R_g (``P[k,k,k] = n^2``, ``k != 0``)  <=>  ``sum_(g1,g2) D(g1, g2, u)`` is constant in ``u``;
  - R_c (``P[k1,k2,k] = 0`` otherwise, ``k != 0``)  <=>  ``D(g, u) - D(g, 0) - D(0, u) + D(0, 0) = 0``
    (``g = (g1, g2)``: ``D^`` vanishes off ``k = 0`` and off ``(k1 - k, k2 - k) = 0``);
  - R_* (``C_p[m, k] = n beta_p^(m, k) = 0``, ``m, k != 0``)  <=>  ``beta_p(g, w) - beta_p(g, 0) - beta_p(0, w)
    + beta_p(0, 0) = 0``;
  - R_n (``C_a[0, k] + C_b[0, k] = 0``, ``k != 0``)  <=>  ``sum_g (beta_a + beta_b)(g, w)`` is constant in ``w``.

  Each is "a function whose transform vanishes on a set of frequencies has a
  given additive form": ``f^(a, k) = 0`` for all ``a != 0, k != 0`` iff
  ``f(g, w) = f(g, 0) + f(0, w) - f(0, 0)``, and ``f^(k) = 0`` for all ``k != 0``
  iff ``f`` is constant (inversion, one variable at a time).

The premises are checked, never assumed: every row of both factors is looked
up among the columns of the group's phase table, and the table itself is
checked to be a nondegenerate bimultiplicative pairing with the trivial
character at index 0 (:func:`character_table_ok`).  Otherwise
:func:`mem_certificate_inversion` returns None and the caller takes the
reference route.  The magnitudes reported for failing conditions are
complex128 transforms of the same integer functions (reporting only: no float
decides anything).

References
----------
.. [1] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [2] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from cogo.algebra.groups import FiniteAbelianGroup
from cogo.solvers.constructions import RootOfUnityNetwork
from cogo.proofs.certificates.block_certificate import CONDITION_MONOMIALS
from cogo.proofs.certificates.mem_certificate import MemCertificate

__all__ = ["character_rows", "character_table_ok", "mem_certificate_inversion", "INVERSION_ROUTE"]

#: One line for reports: how the z_M certificate decides its conditions on this route.
INVERSION_ROUTE = ("homomorphism + character sums decided by Fourier inversion on G^3 (exact integer point counts "
                   "of the n^2 nodes)")


@lru_cache(maxsize=16)
def _table_ok(G: FiniteAbelianGroup) -> bool:
    L, A = G.exponent, G.add_table
    ph = np.asarray(G._phase, dtype=np.int64) % L
    n = G.order
    if n == 1:
        return True
    trivial = not ph[0].any() and not ph[:, 0].any() and np.array_equal(A[0], np.arange(n))
    ph = ph.astype(np.int32) if L < 2**30 else ph
    symmetric = np.array_equal(ph, ph.T)  # then multiplicativity in m gives it in k
    in_m = np.array_equal(ph[:, A], (ph[:, :, None] + ph[:, None, :]) % L)  # chi(k, m + m') = chi(k, m) chi(k, m')
    nondegenerate = bool(ph[1:].any(axis=1).all())
    return bool(trivial and symmetric and in_m and nondegenerate)


def character_table_ok(G: FiniteAbelianGroup) -> bool:
    """Whether ``chi(k, m) = zeta_L^phase[k, m]`` is a nondegenerate pairing, multiplicative in each argument.

    These are the premises of Fourier inversion on ``G`` (orthogonality: ``sum_k chi(k, m) = n [m = 0]``):
    the trivial character at index 0, a symmetric table, ``chi(k, m + m') = chi(k, m) chi(k, m')`` for all
    ``k, m, m'`` (so, by symmetry, multiplicative in ``k`` too) and, for each ``k != 0``, some ``m`` with
    ``chi(k, m) != 1``; checked on the whole table, ``O(n^3)``.

    Examples
    --------
    >>> from cogo.algebra.group_parsing import parse_group
    >>> character_table_ok(parse_group(9)), character_table_ok(parse_group("2x4"))
    (True, True)
    """
    return _table_ok(G)


def character_rows(U: RootOfUnityNetwork) -> np.ndarray | None:
    """``x[p, j]``: the element with ``E[p, :, j] = <., x[p, j]>`` (mod ``L``) for every row, or None.

    Returns
    -------
    numpy array (3, q) or None
        Element indices, or None when some row is not a character of the group.

    Examples
    --------
    >>> from cogo.solvers.constructions import mem_factors
    >>> Ua, _ = mem_factors(5)                          # u_a^j: a = conj chi(., j), b = 1, c = chi(., j)
    >>> character_rows(Ua).tolist()
    [[0, 4, 3, 2, 1], [0, 0, 0, 0, 0], [0, 1, 2, 3, 4]]
    """
    G, L = U.group, int(U.L)
    if L % G.exponent:
        return None
    ph = (np.asarray(G._phase, dtype=np.int64) * (L // G.exponent)) % L
    lookup = {np.ascontiguousarray(ph[:, m]).tobytes(): m for m in range(G.order)}
    E = np.asarray(U.E, dtype=np.int64) % L
    if E.ndim != 3 or E.shape[:2] != (3, G.order):
        return None
    x = np.empty((3, E.shape[2]), dtype=np.int64)
    for p in range(3):
        for j in range(E.shape[2]):
            m = lookup.get(np.ascontiguousarray(E[p, :, j]).tobytes())
            if m is None:
                return None
            x[p, j] = m
    return x


def _pair_points(A: np.ndarray, xa: np.ndarray, xb: np.ndarray) -> list:
    """Coordinates of the convolution's points: ``xa[c, j] + xb[c, j']`` for every pair ``(j, j')``, per coordinate."""
    return [A[xa[c][:, None], xb[c][None, :]].ravel() for c in range(len(xa))]


def _separable_defect(f: np.ndarray) -> np.ndarray:
    """``f(g, w) - f(g, 0) - f(0, w) + f(0, 0)``: zero iff ``f^`` vanishes at every ``(a != 0, k != 0)``."""
    return f - f[:, :1] - f[:1, :] + f[0, 0]


def mem_certificate_inversion(Ua: RootOfUnityNetwork, Ub: RootOfUnityNetwork) -> MemCertificate | None:
    """The certificate of :func:`cogo.proofs.certificates.mem_certificate.mem_certificate`, decided by Fourier inversion (module doc).

    Returns
    -------
    MemCertificate or None
        Per condition proven 0 or not (exactly), or None when a premise fails (some row is not a character,
        or the phase table is not a character table): then use the reference route.

    Raises
    ------
    ValueError
        The two factors live on different groups.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.solvers.constructions import RootOfUnityNetwork, mem_factors
    >>> Ua, Ub = mem_factors(7)
    >>> mem_certificate_inversion(Ua, Ub).zero                # z_M: every condition exactly 0
    {'R_g': True, 'R_c': True, 'R_n': True, 'R_*': True}
    >>> E = Ua.E.copy(); E[0, :, 0] = E[0, :, 1]              # node 0 of U_a reads a at element 1 (node 1's row)
    >>> mem_certificate_inversion(RootOfUnityNetwork(Ua.group, E, Ua.L), Ub).failing
    ['R_g', 'R_c']
    """
    G = Ua.group
    if Ub.group != G or Ua.L != Ub.L:
        raise ValueError("the two factors must live on the same group")
    xa, xb = character_rows(Ua), character_rows(Ub)
    if xa is None or xb is None or not character_table_ok(G):
        return None
    n, A = G.order, G.add_table
    g1, g2, g3 = _pair_points(A, xa, xb)
    u = A[A[g1, g2], g3]
    D = np.bincount((g1 * n + g2) * n + u, minlength=n**3).reshape(n * n, n)  # nu(g1, g2, u - g1 - g2)
    D[:, 0] -= 1  # minus [g1 + g2 + g3 = 0]: the function whose transform is n^2 [k1 = k2 = k]
    beta = {}
    for pi, p in ((0, "a"), (1, "b")):
        gp, _, w = _pair_points(A, xa[[pi, pi, 2]], xb[[pi, pi, 2]])
        beta[p] = np.bincount(gp * n + w, minlength=n * n).reshape(n, n)  # nu_p(g, g, w)
    sigma = D.sum(axis=0)
    gamma = (beta["a"] + beta["b"]).sum(axis=0)
    defect = {"R_g": sigma - sigma[0], "R_c": _separable_defect(D), "R_n": gamma - gamma[0],
              "R_*": np.stack([_separable_defect(beta["a"]), _separable_defect(beta["b"])])}
    zero = {c: not np.any(defect[c]) for c in CONDITION_MONOMIALS}
    mags = _magnitudes(G, zero, sigma, D, gamma, beta)
    details = {"L": int(Ua.L), "triples": n**3, "nodes (points of nu)": int(xa.shape[1] * xb.shape[1]),
               "factor potentials": "Fourier transforms of integer point counts on G^3, decided by inversion"}
    return MemCertificate(zero, mags, details)


def _hat(f: np.ndarray, G: FiniteAbelianGroup, axis: int) -> np.ndarray:
    """``sum_m f[..., m, ...] chi(k, m)`` along ``axis``, complex128: an unnormalized inverse FFT over the axes
    ``Z_d1 x ... x Z_dr`` (the elements are listed in that row-major order, :attr:`FiniteAbelianGroup.elements`)."""
    n, orders = G.order, tuple(int(d) for d in G.orders)
    shape = f.shape[:axis] + orders + f.shape[axis + 1:]
    axes = tuple(range(axis, axis + len(orders)))
    return (np.fft.ifftn(f.reshape(shape), axes=axes) * n).reshape(f.shape)


def _magnitudes(G: FiniteAbelianGroup, zero: dict, sigma, D, gamma, beta) -> dict:
    """Largest ``|residual| / n^2`` of each failing condition (complex128 transforms; reporting only)."""
    n = G.order
    mags = {c: 0.0 for c in zero}
    if not zero["R_g"]:
        mags["R_g"] = float(np.abs(_hat(sigma, G, 0)[1:]).max()) / n**2
    if not zero["R_c"]:
        T = D.reshape(n, n, n).astype(np.float64)
        for axis in range(3):
            T = _hat(T, G, axis)  # [k1 - k, k2 - k, k]
        T[0, 0, :] = 0  # (k1 - k, k2 - k) = 0 is R_g's
        mags["R_c"] = float(np.abs(T[:, :, 1:]).max()) / n**2
    if not zero["R_n"]:
        mags["R_n"] = n * float(np.abs(_hat(gamma, G, 0)[1:]).max()) / n**2
    if not zero["R_*"]:
        mags["R_*"] = n * max(float(np.abs(_hat(_hat(beta[p], G, 0), G, 1)[1:, 1:]).max()) for p in ("a", "b")) / n**2
    return mags
