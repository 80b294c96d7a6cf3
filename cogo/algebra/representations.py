"""Representation theory of a finite group, computed from its Cayley table (SPEC 9).

Conventions (``M = |G|``, ``r`` classes, ``K = r`` irreducible characters):

* Conjugacy classes are listed identity class first; ``class_of[g]`` is the
  class of element ``g``.
* The character table ``values[k, j] = chi_k(g_j)`` (``g_j`` a representative of
  class ``j``) is computed Burnside-Dixon style: the class-multiplication
  coefficients ``c[i, j, l] = #{(x, y) : x in C_i, y in C_j, x y = z}``
  (``z`` fixed in ``C_l``) make matrices ``A_i[j, l] = c[i, j, l]`` whose
  common right eigenvectors are the central characters
  ``omega_k(C_l) = |C_l| chi_k(g_l) / chi_k(1)``; one random combination of
  the ``A_i`` separates them.  The degrees follow from
  ``sum_l |C_l| |chi(g_l)|^2 = M``.
* Cleaning to exact values: ``chi_k(g)`` is a sum of ``o``-th roots of unity
  (``o`` the order of ``g``); their multiplicities
  ``m_t = (1/o) sum_s chi_k(g^s) zeta_o^(-t s)`` are non-negative integers,
  so they are rounded (checked to ``1e-6``) and the character is recomputed
  as ``sum_t m_t zeta_o^t``: exact as a sympy number
  (:meth:`CharacterTable.exact_values`), and to machine precision as a float.
* Frobenius-Schur indicator ``nu_k = (1/M) sum_g chi_k(g^2)``: 1 real,
  0 complex, -1 quaternionic.
* Irreducibles are ordered trivial first, then by dimension, then by
  indicator (real, complex, quaternionic), then by character values.
* The right regular representation ``(R_g f)(x) = f(x g)``; the isotypic
  projector ``P_k = (d_k / M) sum_g conj(chi_k(g)) R_g``, i.e.
  ``P_k[x, y] = (d_k / M) conj(chi_k(x^-1 y))``; its image is spanned by the
  matrix coefficients ``x -> rho_k(x)_{ij}`` (dimension ``d_k^2``).
* One unitary irrep per class: the image of ``P_k`` is ``d_k`` copies of
  ``rho_k`` under ``R``; a random Hermitian element of the left action (which
  commutes with ``R``; real symmetric when ``nu_k = 1``, so that real
  irreps get real orthogonal matrices) acts on it as ``1 (x) B`` with ``B``
  generic, and one eigenspace is one irreducible copy, spanned by an
  orthonormal ``U`` (``M x d_k``); ``rho_k(g) = U^* R_g U``.
* Group Fourier transform (the sign of SPEC 2 for ``Z_n``, no scale):
  ``w_hat(rho_k) = sum_g w(g) conj(rho_k(g))`` (entrywise conjugate), so that
  ``w = sum_k (d_k / M) sum_ij w_hat_ij rho_k(.)_ij`` and
  ``||P_k w||^2 = (d_k / M) ||w_hat(rho_k)||_F^2`` (Plancherel).

For :class:`cogo.algebra.groups.FiniteAbelianGroup` every class is one
element and the irreducibles are the frequencies in index order (irrep ``k``
is frequency ``k``, ``d_k = 1``, ``chi_k(m) = exp(2 pi i <k, m>)``).

References
----------
.. [1] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [2] J. D. Dixon, "High speed computation of group characters", Numerische Mathematik 10, 1967.
.. [3] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra._lazy import lazy_module
from cogo.algebra.finite_groups import FiniteGroup
from cogo.algebra.group_parsing import as_finite_group
from cogo.algebra.groups import FiniteAbelianGroup, root_of_unity
from cogo.algebra.group_parsing import as_group
from cogo.runtime.errors import CogoError

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = ["CharacterTable", "Irrep", "conjugacy_classes", "character_table", "irreps", "isotypic_projectors",
           "group_fourier", "group_fourier_inverse", "isotypic_energy", "theorem3_nodes", "MAX_PROJECTOR_BYTES"]

#: Largest memory the stacked isotypic projectors (K x M x M complex) may take.
MAX_PROJECTOR_BYTES = 2 * 2**30
#: Tolerance for rounding the eigenvalue multiplicities, degrees and indicators to integers.
ROUND_TOL = 1e-6


def _group(G: Any) -> FiniteGroup | FiniteAbelianGroup:
    if isinstance(G, (FiniteGroup, FiniteAbelianGroup)):
        return G
    return as_group(G)


# ------------------------------------------------------------------------- classes
def conjugacy_classes(G: Any) -> list[np.ndarray]:
    """The conjugacy classes of ``G`` as sorted index arrays, identity class first (SPEC 9).

    Classes are ordered by (element order, size, smallest element).

    Examples
    --------
    >>> [c.tolist() for c in conjugacy_classes("S3")]   # identity, 3 transpositions, 2 three-cycles
    [[0], [1, 2, 5], [3, 4]]
    """
    return list(_classes(_group(G))[0])


@lru_cache(maxsize=32)
def _classes(G: FiniteGroup | FiniteAbelianGroup) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    if isinstance(G, FiniteAbelianGroup):
        cls = tuple(np.asarray([m], dtype=np.int64) for m in range(G.order))
        return cls, np.arange(G.order, dtype=np.int64)
    t, inv, M = G.table, G.inverse, G.order
    # conj[x, g] = x g x^-1; label of g's class = smallest conjugate
    conj = t[t, inv[:, None]]
    lab = conj.min(axis=0)
    reps, class_of = np.unique(lab, return_inverse=True)
    members = [np.flatnonzero(class_of == c) for c in range(len(reps))]
    orders = G.element_orders
    key = sorted(range(len(reps)), key=lambda c: (int(orders[members[c][0]]), len(members[c]), int(members[c][0])))
    members = [members[c] for c in key]
    class_of = np.empty(M, dtype=np.int64)
    for c, mem in enumerate(members):
        class_of[mem] = c
    return tuple(members), class_of


# ------------------------------------------------------------------------- characters
@dataclass
class CharacterTable:
    """The character table of a finite group (SPEC 9), rows = irreducibles, columns = classes.

    ``values[k, j] = chi_k(g_j)`` (complex128, cleaned; see the module docstring),
    ``dims[k] = d_k``, ``indicators[k]`` (Frobenius-Schur), ``conjugate[k]``
    (index of the conjugate character), ``classes`` (index arrays),
    ``class_of`` (M,), ``class_sizes``, ``class_orders`` (order of the elements
    of each class), ``multiplicities[k][j]`` (dict ``t -> m_t``: ``chi_k(g_j) =
    sum_t m_t exp(2 pi i t / o_j)``).

    >>> ct = character_table("S3")
    >>> ct.dims.tolist(), ct.class_sizes.tolist(), ct.kind(2)   # sum of d_k^2 = 1 + 1 + 4 = |S3|
    ([1, 1, 2], [1, 3, 2], 'real')
    >>> ct.exact_values()
    Matrix([
    [1,  1,  1],
    [1, -1,  1],
    [2,  0, -1]])
    """

    group: Any
    classes: list
    class_of: np.ndarray
    class_sizes: np.ndarray
    class_orders: np.ndarray
    values: np.ndarray
    dims: np.ndarray
    indicators: np.ndarray
    conjugate: np.ndarray
    multiplicities: list = field(repr=False, default_factory=list)

    @property
    def order(self) -> int:
        return int(self.class_sizes.sum())

    def __len__(self) -> int:
        return len(self.dims)

    def character(self, k: int) -> np.ndarray:
        """``chi_k(g)`` for every element ``g``, shape ``(M,)``."""
        return self.values[k, self.class_of]

    @property
    def characters(self) -> np.ndarray:
        """``chi[k, g]`` for every irreducible and element, shape ``(K, M)``."""
        return self.values[:, self.class_of]

    def exact_values(self) -> sympy.Matrix:
        """The table as exact sympy numbers ``sum_t m_t zeta_o^t`` (real ones rewritten with cosines and simplified)."""
        K, r = self.values.shape
        out = sympy.zeros(K, r)
        cache: dict = {}
        for k in range(K):
            for j in range(r):
                o = int(self.class_orders[j])
                key = (o, tuple(sorted(self.multiplicities[k][j].items())))
                if key not in cache:
                    expr = sympy.Add(*[m * root_of_unity(o, t) for t, m in key[1]])
                    expr = sympy.expand(expr)
                    if not expr.is_number or not expr.is_Rational:
                        if abs(self.values[k, j].imag) < 1e-9 and 24 % o != 0:
                            expr = sympy.nsimplify(sympy.simplify(expr.rewrite(sympy.cos)))
                    cache[key] = expr
                out[k, j] = cache[key]
        return out

    def kind(self, k: int) -> str:
        """``'real'``, ``'complex'`` or ``'quaternionic'`` (Frobenius-Schur indicator 1, 0, -1)."""
        return {1: "real", 0: "complex", -1: "quaternionic"}[int(self.indicators[k])]


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def character_table(G: Any) -> CharacterTable:
    """The character table of ``G`` (Burnside-Dixon, cleaned to exact values; SPEC 9).

    Works for :class:`FiniteGroup` and :class:`FiniteAbelianGroup` (frequencies).

    Examples
    --------
    >>> character_table(3).exact_values()              # Z_3: chi_k(m) = w^(k m), w = exp(2 pi i / 3)
    Matrix([
    [1,                   1,                   1],
    [1, -1/2 + sqrt(3)*I/2, -1/2 - sqrt(3)*I/2],
    [1, -1/2 - sqrt(3)*I/2, -1/2 + sqrt(3)*I/2]])
    >>> character_table("Q8").indicators.tolist()      # the 2-dimensional irrep of Q8 is quaternionic
    [1, 1, 1, 1, -1]
    """
    return _character_table(_group(G))


@lru_cache(maxsize=32)
def _character_table(G: FiniteGroup | FiniteAbelianGroup) -> CharacterTable:
    classes, class_of = _classes(G)
    r = len(classes)
    M = G.order
    sizes = np.asarray([len(c) for c in classes], dtype=np.int64)
    if isinstance(G, FiniteAbelianGroup):
        FG = as_finite_group(G)
        orders = FG.element_orders
        vals = G.characters.copy()                                   # frequency k, element m
        dims = np.ones(M, dtype=np.int64)
        ind = np.where(G.neg == np.arange(M), 1, 0).astype(np.int64)
        conj = G.neg.astype(np.int64).copy()
        mult = _multiplicities(FG, classes, class_of, vals, orders)
        return CharacterTable(G, list(classes), class_of, sizes, orders.copy(), vals, dims, ind, conj, mult)
    t, inv = G.table, G.inverse
    reps = np.asarray([c[0] for c in classes])
    # c[i, j, l] = #{x in C_i : x^-1 z in C_j}, z = rep of C_l
    c = np.zeros((r, r, r))
    ci = class_of
    for l_, z in enumerate(reps):
        cj = class_of[t[inv, z]]
        np.add.at(c[:, :, l_], (ci, cj), 1.0)
    rng = np.random.default_rng(12345)
    values = None
    for attempt in range(8):
        coef = rng.standard_normal(r) + 1j * rng.standard_normal(r)
        A = np.tensordot(coef, c, axes=(0, 0))                        # (r, r): A[j, l]
        ev, V = np.linalg.eig(A)
        gaps = np.abs(ev[:, None] - ev[None, :])
        np.fill_diagonal(gaps, np.inf)
        if r > 1 and gaps.min() < 1e-6 * max(1.0, np.abs(ev).max()):
            continue
        W = V / V[0:1, :]                                             # omega(C_0 = {e}) = 1
        deg2 = M / np.sum(np.abs(W) ** 2 / sizes[:, None], axis=0)
        d = np.sqrt(deg2)
        if np.any(np.abs(d - np.round(d)) > 1e-4):
            continue
        d = np.round(d)
        values = (d[None, :] * W / sizes[:, None]).T                 # (K, r)
        break
    if values is None:  # pragma: no cover - needs 8 unlucky random draws
        raise RuntimeError(f"character table of {G}: class sums could not be diagonalized")
    orders = G.element_orders[reps]
    mult = _multiplicities(G, classes, class_of, values, G.element_orders)
    # recompute from the integer multiplicities: exact up to rounding of exp
    clean = np.zeros_like(values)
    for k in range(r):
        for j in range(r):
            o = int(orders[j])
            clean[k, j] = sum(m * np.exp(2j * np.pi * tt / o) for tt, m in mult[k][j].items())
    dims = np.round(clean[:, 0].real).astype(np.int64)
    sq = class_of[t[np.arange(M), np.arange(M)]]
    ind_f = clean[:, sq].sum(axis=1) / M
    ind = np.round(ind_f.real).astype(np.int64)
    if np.any(np.abs(ind_f - ind) > ROUND_TOL) or np.any(np.abs(ind) > 1):  # pragma: no cover
        raise RuntimeError(f"character table of {G}: Frobenius-Schur indicators are not -1, 0, 1")
    # order: trivial first, then dimension, indicator (1, 0, -1), then values
    key = [(0 if np.allclose(clean[k], 1) else 1, int(dims[k]), -int(ind[k]),
            tuple(np.round(-clean[k].real, 6)), tuple(np.round(-clean[k].imag, 6))) for k in range(r)]
    perm = sorted(range(r), key=lambda k: key[k])
    clean, dims, ind = clean[perm], dims[perm], ind[perm]
    mult = [mult[k] for k in perm]
    conj = np.asarray([int(np.argmin(np.abs(clean - np.conj(clean[k])).sum(1))) for k in range(r)])
    return CharacterTable(G, list(classes), class_of, sizes, orders.astype(np.int64), clean, dims, ind, conj, mult)


def _multiplicities(G: FiniteGroup, classes, class_of: np.ndarray, values: np.ndarray,
                    element_orders: np.ndarray) -> list:
    """``m[k][j] = {t: m_t}``, the multiplicity of ``exp(2 pi i t / o)`` among the eigenvalues of ``rho_k(g_j)``."""
    K, r = values.shape
    out: list = [[None] * r for _ in range(K)]
    t = G.table
    for j, cl in enumerate(classes):
        g = int(cl[0])
        o = int(element_orders[g])
        pw = [G.identity]
        for _ in range(o - 1):
            pw.append(int(t[pw[-1], g]))
        X = values[:, class_of[np.asarray(pw)]]                       # chi_k(g^s), (K, o)
        s = np.arange(o)
        F = np.exp(-2j * np.pi * np.outer(s, s) / o) / o              # [s, t]
        m = X @ F                                                     # (K, o): m_t
        mi = np.round(m.real)
        if np.abs(m - mi).max() > ROUND_TOL * max(1, o) * 100 or (mi < 0).any():
            raise RuntimeError(f"character table of {G}: eigenvalue multiplicities are not integers "
                               f"(deviation {np.abs(m - mi).max():.2e})")
        for k in range(K):
            out[k][j] = {int(tt): int(mi[k, tt]) for tt in range(o) if mi[k, tt] != 0}
    return out


# ------------------------------------------------------------------------- irreps
@dataclass
class Irrep:
    """One irreducible unitary representation ``rho_k`` (SPEC 9).

    ``dim`` = ``d_k``; ``indicator`` 1 real, 0 complex, -1 quaternionic;
    ``character`` (M,) = ``chi_k(g)``; ``matrices`` (M, d, d) = ``rho_k(g)``
    (unitary; real orthogonal when ``indicator == 1``); ``index`` = row of the
    character table; ``conjugate`` = index of the conjugate irrep.

    >>> import numpy as np
    >>> from cogo.algebra.finite_groups import named_group
    >>> G = named_group("S3")
    >>> rho = irreps(G)[2]                              # the 2-dimensional irrep of S3
    >>> rho.dim, rho.kind, bool(np.allclose(rho.matrices[1] @ rho.matrices[3], rho.matrices[G.multiply(1, 3)]))
    (2, 'real', True)
    """

    dim: int
    indicator: int
    character: np.ndarray
    matrices: np.ndarray
    index: int = 0
    conjugate: int = 0

    @property
    def kind(self) -> str:
        return {1: "real", 0: "complex", -1: "quaternionic"}[int(self.indicator)]


def _check_projector_memory(G, K: int) -> None:
    M = G.order
    need = K * M * M * 16
    if need > MAX_PROJECTOR_BYTES:
        raise CogoError(f"the {K} isotypic projectors of {G} (order {M}) would need {need / 2**30:.1f} GiB, above "
                        f"the {MAX_PROJECTOR_BYTES / 2**30:.0f} GiB limit")


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def isotypic_projectors(G: Any) -> np.ndarray:
    """``P[k] = (d_k / M) sum_g conj(chi_k(g)) R_g`` with ``(R_g f)(x) = f(x g)``; shape ``(K, M, M)`` complex (SPEC 9).

    ``P[k][x, y] = (d_k / M) conj(chi_k(x^-1 y))``.  Hermitian, idempotent,
    mutually orthogonal, summing to the identity; ``trace P[k] = d_k^2``.
    The size is checked before allocating (CogoError above :data:`MAX_PROJECTOR_BYTES`).

    Examples
    --------
    >>> import numpy as np
    >>> P = isotypic_projectors("S3")
    >>> P.shape, [round(float(np.trace(p).real), 9) for p in P]   # trace P_k = d_k^2
    ((3, 6, 6), [1.0, 1.0, 4.0])
    >>> bool(np.allclose(P.sum(axis=0), np.eye(6))), bool(np.allclose(P[2] @ P[2], P[2]))
    (True, True)
    """
    G = _group(G)
    ct = character_table(G)
    _check_projector_memory(G, len(ct))
    return _projectors(G).copy()


@lru_cache(maxsize=8)
def _projectors(G) -> np.ndarray:
    ct = character_table(G)
    FG = as_finite_group(G)
    xinv_y = FG.table[FG.inverse[:, None], np.arange(FG.order)[None, :]]        # x^-1 y
    cls = ct.class_of[xinv_y]                                                   # (M, M)
    coef = np.conj(ct.values) * (ct.dims / FG.order)[:, None]                  # (K, r)
    return coef[:, cls]


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def irreps(G: Any, seed: int = 0) -> list[Irrep]:
    """One unitary irreducible representation per character, trivial first (SPEC 9; construction in the module docstring).

    ``seed`` fixes the random element used to split each isotypic component
    (another seed gives an equivalent representation).

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.algebra.finite_groups import named_group
    >>> G = named_group("S3")
    >>> reps = irreps(G)
    >>> [(R.dim, R.kind) for R in reps]
    [(1, 'real'), (1, 'real'), (2, 'real')]
    >>> R = reps[2]                                     # a homomorphism: rho(g) rho(h) = rho(g h)
    >>> all(np.allclose(R.matrices[g] @ R.matrices[h], R.matrices[G.multiply(g, h)]) for g in range(6) for h in range(6))
    True
    """
    return list(_irreps(_group(G), int(seed)))


@lru_cache(maxsize=8)
def _irreps(G, seed: int) -> tuple:
    ct = character_table(G)
    M = G.order
    if isinstance(G, FiniteAbelianGroup):
        chi = ct.values
        return tuple(Irrep(1, int(ct.indicators[k]), chi[k].copy(), chi[k].reshape(M, 1, 1).copy(), k,
                           int(ct.conjugate[k])) for k in range(M))
    _check_projector_memory(G, len(ct))
    P = _projectors(G)
    t, inv = G.table, G.inverse
    rng = np.random.default_rng(seed)
    out = []
    left_idx = t[:, inv]                      # [x, y] -> x y^-1 : (L_c)[x, y] = c(x y^-1)
    for k in range(len(ct)):
        d = int(ct.dims[k])
        real = int(ct.indicators[k]) == 1
        Pk = P[k].real if real else P[k]
        w, Q = np.linalg.eigh(Pk)
        Q = Q[:, w > 0.5]                                                     # (M, d^2)
        if Q.shape[1] != d * d:  # pragma: no cover
            raise RuntimeError(f"isotypic component {k} of {G} has dimension {Q.shape[1]}, expected {d * d}")
        U = None
        for _ in range(8):
            if d == 1:
                U = Q
                break
            c = rng.standard_normal(M) if real else rng.standard_normal(M) + 1j * rng.standard_normal(M)
            c = (c + np.conj(c[inv])) / 2                                     # c(h^-1) = conj(c(h)): Hermitian
            H = np.conj(Q.T) @ (c[left_idx] @ Q)
            H = (H + np.conj(H.T)) / 2
            ev, V = np.linalg.eigh(H)
            if ev[d] - ev[d - 1] > 1e-6 * max(1.0, np.abs(ev).max()):
                U = Q @ V[:, :d]
                break
        if U is None:  # pragma: no cover
            raise RuntimeError(f"irrep {k} of {G}: could not split the isotypic component")
        # rho(g)_{ij} = sum_x conj(U[x, i]) U[x g, j]
        mats = np.einsum("xi,xgj->gij", np.conj(U), U[t])
        if real:
            mats = mats.real
        out.append(Irrep(d, int(ct.indicators[k]), ct.character(k).copy(), mats, k, int(ct.conjugate[k])))
    return tuple(out)


# ------------------------------------------------------------------------- Fourier
def group_fourier(G: Any, w: Any, reps: list[Irrep] | None = None) -> list[np.ndarray]:
    """``w_hat(rho_k) = sum_g w[g] conj(rho_k(g))`` for every irrep ``k`` (SPEC 9; SPEC 2's sign, no scale).

    ``w`` has shape ``(M,)`` or ``(M, ...)``; entry ``k`` of the result has
    shape ``(d_k, d_k)`` or ``(d_k, d_k, ...)``.

    Returns
    -------
    list of complex arrays
        The transform at every irrep, shape ``(d_k, d_k)`` (or ``(d_k, d_k, ...)``).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.arange(6.0)
    >>> w_hat = group_fourier("S3", w)
    >>> [c.shape for c in w_hat]
    [(1, 1), (1, 1), (2, 2)]
    >>> dims = [1, 1, 2]                                # Plancherel: sum_k (d_k / M) ||w_hat_k||_F^2 = ||w||^2
    >>> round(sum(d / 6 * float(np.linalg.norm(c)) ** 2 for d, c in zip(dims, w_hat)), 9), float(w @ w)
    (55.0, 55.0)
    """
    G = _group(G)
    reps = irreps(G) if reps is None else reps
    w = np.asarray(w)
    if w.shape[:1] != (G.order,):
        raise CogoError(f"group_fourier: w must have {G.order} rows (one per element of {G}), got shape {w.shape}")
    return [np.tensordot(np.conj(R.matrices), w, axes=(0, 0)) for R in reps]


def group_fourier_inverse(G: Any, coeffs: list, reps: list[Irrep] | None = None) -> np.ndarray:
    """``w(g) = sum_k (d_k / M) sum_ij w_hat_k[i, j] rho_k(g)_{ij}``, inverse of :func:`group_fourier`.

    Returns
    -------
    array
        The function ``w`` on the group, shape ``(M,)`` (or ``(M, ...)``).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.arange(6.0)
    >>> bool(np.allclose(group_fourier_inverse("S3", group_fourier("S3", w)), w))
    True
    """
    G = _group(G)
    reps = irreps(G) if reps is None else reps
    M = G.order
    return sum(R.dim / M * np.tensordot(R.matrices, c, axes=([1, 2], [0, 1])) for R, c in zip(reps, coeffs))


def isotypic_energy(G: Any, W: Any) -> np.ndarray:
    """``E[k, j] = ||P_k W[:, j]||^2``, the energy of column ``j`` of ``W`` (M, q) in irrep ``k``; shape ``(K, q)``.

    Computed from the characters without forming the projectors:
    ``||P_k w||^2 = <w, P_k w> = (d_k / M) sum_{x,y} w(x) conj(chi_k(x^-1 y)) w(y)`` (real ``w``).
    The energies of each column sum to ``||W[:, j]||^2``.

    Examples
    --------
    >>> import numpy as np
    >>> E = isotypic_energy("S3", np.arange(6.0))      # one column: energy per irrep of S3
    >>> [round(float(e), 9) for e in E[:, 0]], round(float(E.sum()), 9)   # sums to ||w||^2 = 55
    ([37.5, 0.166666667, 17.333333333], 55.0)
    """
    G = _group(G)
    W = np.asarray(W, dtype=np.float64)
    if W.ndim == 1:
        W = W[:, None]
    ct = character_table(G)
    FG = as_finite_group(G)
    M = G.order
    if W.shape[0] != M:
        raise CogoError(f"isotypic_energy: W must have {M} rows, got shape {W.shape}")
    # autocorrelation a_j(g) = sum_x w(x) w(x g)  ->  ||P_k w||^2 = (d_k/M) sum_g conj(chi_k(g)) a(g)
    xg = FG.table                                                   # [x, g] -> x g
    a = np.einsum("xj,xgj->gj", W, W[xg])                           # (M, q)
    E = (ct.dims[:, None] / M) * (np.conj(ct.characters) @ a)
    return E.real


def theorem3_nodes(G: Any, m: dict | None = None) -> dict:
    """Nodes that suffice by Theorem 3 of the scaling-law work (SPEC 9): ``K = 2 sum_k m_k^2 d_k^2``, nontrivial ``k``.

    ``m`` maps irrep index to ``m_k`` (default 1 for every irrep); with all
    ``m_k = 1`` this is ``2 (M - 1)``, i.e. ``2|G| - 2`` for Abelian groups.
    Returns ``{"total": K, "per_irrep": [2 m_k^2 d_k^2, ...]}`` (0 for the trivial irrep).

    Returns
    -------
    dict
        ``{"total": K, "per_irrep": [...]}``: the node count that suffices, in all and per irrep.

    Examples
    --------
    >>> theorem3_nodes("S3")                           # irreps of dimension 1, 1, 2
    {'total': 10, 'per_irrep': [0, 2, 8]}
    >>> theorem3_nodes(5)["total"]                     # Z_5: 2 |G| - 2
    8
    """

    ct = character_table(_group(G))
    m = m or {}
    per = [0 if k == 0 else 2 * int(m.get(k, 1)) ** 2 * int(ct.dims[k]) ** 2 for k in range(len(ct))]
    return {"total": int(sum(per)), "per_irrep": per}
