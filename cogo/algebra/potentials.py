"""Sum potentials ``r`` and ``r_p`` (SPEC 4) and the per-block monomial sums (SPEC 6).

    r[k1, k2, k](z)   = sum_j z[a, k1, j] z[b, k2, j] z[c, k, j]
    r_p[k1, k2, k](z) = sum_j z[p, k1, j] z[p, k2, j] z[c, k, j],   p in {a, b}

Each is a ring homomorphism Z -> C: ``r(1) = 1``, ``r(z1 + z2) = r(z1) + r(z2)``,
``r(z1 * z2) = r(z1) r(z2)``.

Whole tensors are computed as one matrix product over nodes (numeric) or
with object-array broadcasting (exact); there is no Python loop over
frequency triples.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cogo.algebra._lazy import is_sympy, lazy_module
from cogo.algebra.network import Network, is_exact_entry

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = [
    "potential",
    "potentials",
    "self_potentials",
    "self_potential_sums",
    "MONOMIALS",
    "block_sums",
    "block_sums_many",
]


def _p_index(p: str) -> int:
    if p not in ("a", "b"):
        raise ValueError(f"self potentials exist for p in ('a', 'b'); got {p!r}")
    return 0 if p == "a" else 1


def _expand(x: np.ndarray) -> np.ndarray:
    return np.vectorize(sympy.expand, otypes=[object])(x) if x.size else x


def potential(z: Network, k1: Any, k2: Any, k: Any, p: str | None = None):
    """One sum potential: ``r[k1, k2, k](z)``, or ``r_p[k1, k2, k](z)`` when ``p`` is 'a' or 'b'.

    Frequencies are indices, residues (cyclic groups) or coordinate tuples.
    Returns a complex (numeric) or an expanded sympy expression (exact).

    Returns
    -------
    complex or sympy.Expr
        The potential (complex for a numeric network, an expanded expression for an exact one).

    Examples
    --------
    >>> from cogo.algebra import Network
    >>> from cogo.solvers.constructions import z_F6
    >>> potential(Network.one(5), 1, 2, 3)          # r(1) = 1 at every triple
    (1+0j)
    >>> z = z_F6(5, exact=True)                     # SPEC 7.1: R_g and R_c hold exactly
    >>> potential(z, 1, 1, 1), potential(z, 1, 1, 2), potential(z, 1, 1, 2, p="a")
    (1, 0, 0)
    """
    G = z.group
    i1, i2, i = G.index(k1), G.index(k2), G.index(k)
    if p is None:
        x, y = z.a[i1], z.b[i2]
    else:
        zp = z.z[_p_index(p)]
        x, y = zp[i1], zp[i2]
    terms = x * y * z.c[i]
    if z.exact:
        return sympy.expand(sum(terms.tolist(), sympy.Integer(0)))
    return complex(terms.sum())


def _triple(x: np.ndarray, y: np.ndarray, w: np.ndarray, exact: bool) -> np.ndarray:
    """``T[k1, k2, k] = sum_j x[k1, j] y[k2, j] w[k, j]``."""
    n, q = x.shape
    if exact:
        if q == 0:
            return np.full((n, n, n), sympy.Integer(0), dtype=object)
        t = (x[:, None, None, :] * y[None, :, None, :] * w[None, None, :, :]).sum(axis=-1)
        return _expand(t)
    xy = (x[:, None, :] * y[None, :, :]).reshape(n * n, q)
    return (xy @ w.T).reshape(n, n, n)


def potentials(z: Network) -> np.ndarray:
    """The whole tensor ``r[k1, k2, k]``, shape ``(n_G, n_G, n_G)`` (object dtype for an exact network).

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.solvers.constructions import z_F6, z_M
    >>> r = potentials(z_F6(5, exact=True))         # exactly the triples (k, k, k), k != 0, are nonzero
    >>> [idx for idx, v in np.ndenumerate(r) if v != 0]
    [(1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)]
    >>> z1, z2 = z_F6(5), z_M(5)                    # r(z1 * z2) = r(z1) r(z2)  (SPEC 4)
    >>> bool(np.abs(potentials(z1 * z2) - potentials(z1) * potentials(z2)).max() < 1e-12)
    True
    """
    return _triple(z.a, z.b, z.c, z.exact)


def self_potentials(z: Network, p: str) -> np.ndarray:
    """The whole tensor ``r_p[k1, k2, k]`` for ``p`` in ('a', 'b'), shape ``(n_G, n_G, n_G)``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> ra = self_potentials(z_F6(5, exact=True), "a")
    >>> ra.shape, all(v == 0 for v in ra.ravel())   # z_F6: every r_a vanishes
    ((5, 5, 5), True)
    """
    zp = z.z[_p_index(p)]
    return _triple(zp, zp, z.c, z.exact)


def self_potential_sums(z: Network, p: str, rows: Any = None) -> np.ndarray:
    """``C_p[m, k] = sum_k' r_p[k', m - k', k]``, shape ``(n_G, n_G)`` (the R_n and R_* sums, SPEC 5).

    Computed without the full tensor: ``S_p[m, j] = sum_k' z[p,k',j] z[p,m-k',j]``
    (a group convolution over frequencies), then ``C_p = S_p z[c]^T``.  ``rows``: only the rows ``m`` listed
    (an exact network's sums are then computed for those alone: its scalars can be large, e.g. the residues of
    :mod:`cogo.algebra.modular`, so callers stream the rows to bound memory).

    Examples
    --------
    >>> from cogo.algebra import Network
    >>> from cogo.solvers.constructions import z_F6
    >>> C = self_potential_sums(Network.one(5), "a")  # r_a(1) = 1 at all 5 pairs (k', -k')
    >>> C.shape, round(float(C[0, 1].real), 12)
    ((5, 5), 5.0)
    >>> all(v == 0 for v in self_potential_sums(z_F6(5, exact=True), "a").ravel())  # R_n, R_* hold
    True
    """
    zp = z.z[_p_index(p)]
    G = z.group
    if not z.exact:
        # Convolution over frequencies is a pointwise square in real space:
        # with x = F^T z_p (so W_p = x / lam), S_p = (1/n) conj(F) (x o x).
        F = G.characters
        x = F.T @ zp
        S = (np.conj(F) @ (x * x)) / G.order
        return (S if rows is None else S[rows]) @ z.c.T
    ms = np.arange(G.order) if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
    if zp.dtype == object:  # exact scalars: one m at a time, so only (n, q) products are alive at once
        S = np.empty((len(ms), zp.shape[1]), dtype=object)
        for i, m in enumerate(ms):
            S[i] = (zp * zp[G.sub_table[m]]).sum(axis=0)  # sum_k' z[p, k', j] z[p, m - k', j]
        if z.exact:
            return _expand(S.dot(z.c.T)) if S.size else np.full((len(ms), G.order), sympy.Integer(0), dtype=object)
        return S @ z.c.T
    if rows is not None:
        return self_potential_sums(z, p)[ms]
    else:
        shifted = zp[G.sub_table]  # [m, k', j] = z[p, m - k', j]
        S = (zp[None, :, :] * shifted).sum(axis=1)
    if z.exact:
        return _expand(S.dot(z.c.T)) if S.size else np.full((G.order, G.order), sympy.Integer(0), dtype=object)
    return S @ z.c.T


#: The eleven monomial sums of a block (SPEC 6), in this order, with the
#: condition each belongs to.  Each is ``sum_j f(a_j, b_j, c_j)``.
MONOMIALS: dict[str, str] = {
    "abc": "R_g",
    "conj(a) b c": "R_c",
    "a conj(b) c": "R_c",
    "a b conj(c)": "R_c",
    "conj(a) conj(b) c": "R_c",
    "|a|^2 c": "R_n",
    "|b|^2 c": "R_n",
    "a^2 c": "R_*",
    "b^2 c": "R_*",
    "conj(a)^2 c": "R_*",
    "conj(b)^2 c": "R_*",
}


def block_sums(a: Any, b: Any, c: Any, conj=None) -> dict[str, Any]:
    """The eleven monomial sums of a block ``(a, b, c)`` (SPEC 6), keyed as :data:`MONOMIALS`.

    Vectors are numeric (complex128 results) or sympy (exact, expanded
    results).  ``conj`` overrides complex conjugation for exact entries, e.g.
    to impose ``conj(nu) = 1/nu`` on a unit-modulus symbol.
    Also returns the key ``"|a|^2 c + |b|^2 c"``, the R_n sum.

    Examples
    --------
    >>> from cogo.algebra import root_of_unity
    >>> w = root_of_unity(3, 1)
    >>> x = [1, w, w**2]                            # z_syn (SPEC 7): a = b = c = (1, w, w^2)
    >>> s = block_sums(x, x, x)
    >>> s["abc"], s["conj(a) b c"], s["a^2 c"], s["|a|^2 c + |b|^2 c"]
    (3, 0, 3, 0)
    >>> MONOMIALS["a^2 c"]                          # the condition each sum belongs to
    'R_*'
    """

    kinds = {_entry_kind(v) for v in (a, b, c)}
    vecs = [np.asarray(v, dtype=np.complex128 if kinds == {"numeric"} else object).reshape(-1) for v in (a, b, c)]
    if not (len(vecs[0]) == len(vecs[1]) == len(vecs[2])):
        raise ValueError(f"block vectors must have equal lengths; got {[len(v) for v in vecs]}")
    exact = any(v.dtype == object for v in vecs)
    if exact and "sympy" not in kinds:
        # other exact numbers (CycNumber, Formal, Fraction): their own arithmetic, never a float
        cj = conj or (lambda x: x.conjugate())
        ca, cb, cc = (np.asarray([cj(x) for x in v], dtype=object) for v in vecs)

        def tot(arr):
            return sum(arr.tolist()[1:], arr.tolist()[0]) if arr.size else 0

        def expand(x):
            return x
    elif exact:
        vecs = [np.asarray([sympy.sympify(x) for x in v], dtype=object) for v in vecs]
        cj = conj or sympy.conjugate
        ca, cb, cc = (np.asarray([cj(x) for x in v], dtype=object) for v in vecs)

        def tot(arr):
            return sympy.expand(sum(arr.tolist(), sympy.Integer(0)))

        expand = sympy.expand
    else:  # numeric: the batched sums of one block
        return {k: complex(v[0]) for k, v in block_sums_many(*(v[None] for v in vecs)).items()}
    out = _monomial_sums(*vecs, ca, cb, cc, tot)
    out["|a|^2 c + |b|^2 c"] = expand(out["|a|^2 c"] + out["|b|^2 c"])
    return out


def _monomial_sums(A: Any, B: Any, C: Any, ca: Any, cb: Any, cc: Any, tot: Any) -> dict:
    """The eleven sums of :data:`MONOMIALS`, each ``tot`` of its elementwise product (``ca``: conj(A), ...)."""
    return {
        "abc": tot(A * B * C),
        "conj(a) b c": tot(ca * B * C),
        "a conj(b) c": tot(A * cb * C),
        "a b conj(c)": tot(A * B * cc),
        "conj(a) conj(b) c": tot(ca * cb * C),
        "|a|^2 c": tot(A * ca * C),
        "|b|^2 c": tot(B * cb * C),
        "a^2 c": tot(A * A * C),
        "b^2 c": tot(B * B * C),
        "conj(a)^2 c": tot(ca * ca * C),
        "conj(b)^2 c": tot(cb * cb * C),
    }


def block_sums_many(A: Any, B: Any, C: Any) -> dict[str, np.ndarray]:
    """:func:`block_sums` of many numeric blocks of one order at once: block ``i`` is row ``i`` of ``A``, ``B``, ``C``
    (N, m); each sum is an (N,) complex array (the same operations, row by row, as one block alone)."""
    A, B, C = (np.asarray(v, dtype=np.complex128) for v in (A, B, C))
    if A.ndim != 2 or B.shape != A.shape or C.shape != A.shape:
        raise ValueError(f"blocks are rows of three arrays of one shape (N, m); got {A.shape}, {B.shape}, {C.shape}")
    out = _monomial_sums(A, B, C, np.conj(A), np.conj(B), np.conj(C), lambda arr: arr.sum(axis=1))
    out["|a|^2 c + |b|^2 c"] = out["|a|^2 c"] + out["|b|^2 c"]
    return out


def _entry_kind(v: Any) -> str:
    """``'numeric'`` (plain numbers only), ``'sympy'`` (some sympy entry) or ``'exact'`` (other exact numbers)."""
    if isinstance(v, np.ndarray) and v.dtype != object:
        return "numeric"
    arr = np.asarray(v, dtype=object).reshape(-1)
    if not any(is_exact_entry(x) for x in arr):
        return "numeric"
    return "sympy" if any(is_sympy(x) for x in arr) else "exact"
