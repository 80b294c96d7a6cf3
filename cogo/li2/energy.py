"""The energy landscape of independent feature learning (SPEC 9, Li^2).

Setting (SPEC 9).  ``G`` is a finite group of order ``M`` given by its Cayley
table (``table[g, h]`` = index of ``g h``).  Over all ``n = M^2`` pairs
``(g, h)`` the input is ``x = (e_g ; e_h) / sqrt(2)`` (one-hot pair scaled to
unit norm, see *Normalization* below), a hidden node has weights
``w = (u ; v)`` in ``R^{2M}``, ``sigma(t) = t^2`` and the target is the one-hot
of ``g h`` made zero-mean over the samples, ``Y~ = P Y`` with
``P = I - 1 1^T / n``.  The energy of one node is

    E(w) = 1/2 || Y~^T sigma(X w) ||^2 .

Closed form (used by the fast code, checked against the literal definition in
the tests).  ``(Y^T sigma(Xw))_k = 1/2 sum_{gh=k} (u_g + v_h)^2
= 1/2 (|u|^2 + |v|^2) + (u * v)_k`` with the group convolution
``(u * v)_k = sum_{gh = k} u_g v_h``; every class ``k`` has ``M`` pairs, so
``Y~^T f`` is ``Y^T f`` centred over the classes, the constant drops and

    E(w) = 1/2 || r ||^2,    r = (u * v) - mean(u * v),
    dE/du_g = sum_h r_{gh} v_h,    dE/dv_h = sum_g r_{gh} u_g .

``E`` is homogeneous of degree 4, so on the unit sphere the Riemannian
gradient is ``grad E - 4 E w``.

Normalization.  With the inputs scaled to unit norm (above), the maxima on
``||w|| = 1`` are exactly SPEC 9's values: ``M / (8 d_k)`` for a real irrep,
``M / (16 d_k)`` for a pair of complex conjugate irreps (Z_M, M odd:
``M / 16``).  With the raw one-hot pairs ``x = (e_g ; e_h)`` every value is 4
times larger (``E`` has degree 4 in ``x``): ``M / (2 d_k)`` and ``M / (4 d_k)``.
``INPUT_SCALE`` fixes the convention; :func:`energy_literal` takes it as an
argument so both can be checked.

Components.  ``R^M`` splits into isotypic components, one per real irrep
(Frobenius-Schur indicator 1) and one per pair of complex conjugate irreps
(indicator 0); quaternionic irreps (indicator -1) are their own component but
SPEC 9 predicts no value for them.  The orthogonal projector of a component is
the real part of ``sum_k P_k`` with ``P_k = (d_k / M) sum_g conj(chi_k(g)) R_g``
over its irreps (SPEC 9).  The trivial irrep carries no energy (``r`` is
centred).

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
.. [2] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from cogo.runtime.errors import CogoError
from cogo.algebra import representations
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import group_from_spec, as_group

__all__ = [
    "INPUT_SCALE",
    "Li2Group",
    "Component",
    "li2_group",
    "energy",
    "energy_and_gradient",
    "energy_literal",
    "riemannian_gradient",
    "ascend",
    "AscentResult",
    "random_sphere",
]

#: Each input pair ``(e_g ; e_h)`` is multiplied by this (unit-norm inputs): SPEC 9's E* values hold.
INPUT_SCALE = 1.0 / math.sqrt(2.0)

_ABELIAN_RE = re.compile(r"^\s*\d+\s*(?:[xX*]\s*\d+\s*)*$")


@dataclass
class Component:
    """One isotypic component of ``R^M`` (SPEC 9): a real irrep, a complex-conjugate pair or a quaternionic irrep.

    ``projector`` is the real orthogonal projector ``(M, M)``; ``predicted`` the
    maximum of ``E`` on the unit sphere for ``u, v`` in this component
    (``M/(8 d)`` real, ``M/(16 d)`` complex pair, 0 trivial, None quaternionic).

    >>> [(c.label, c.kind, c.dim, c.predicted) for c in li2_group("S3").components]   # E* = M/(8 d) for real irreps
    [('rho0 (d=1)', 'trivial', 1, 0.0), ('rho1 (d=1)', 'real', 1, 0.75), ('rho2 (d=2)', 'real', 2, 0.375)]
    """

    label: str
    kind: str  # 'trivial', 'real', 'complex', 'quaternionic'
    dim: int  # d_k of each irrep in it
    irreps: tuple[int, ...]
    projector: np.ndarray
    predicted: float | None

    @property
    def rank(self) -> int:
        return int(round(float(np.trace(self.projector))))


@dataclass
class Li2Group:
    """A finite group as the energy needs it: order, Cayley table, name, isotypic components.

    >>> G = li2_group(5)
    >>> G.order, G.name, [c.label for c in G.components]
    (5, 'Z_5', ['k=0', 'k=+-1', 'k=+-2'])
    """

    label: str
    name: str
    order: int
    table: np.ndarray
    as_product: Any = None  # the FiniteAbelianGroup, when the group is one
    finite: Any = None  # the cogo.algebra.finite_groups.FiniteGroup, when given by name
    _components: list | None = field(default=None, repr=False)

    # -- the group protocol (cogo.algebra.protocol.Group) ------------------
    @cached_property
    def identity(self) -> int:
        """The index of the identity (the row of the table that is the identity map)."""
        return int(np.flatnonzero((self.table == np.arange(self.order)[None, :]).all(1))[0])

    @cached_property
    def inverse(self) -> np.ndarray:
        """``inverse[g]``: the index of ``g^-1``."""
        return np.argmax(self.table == self.identity, axis=1).astype(np.int64)

    @cached_property
    def is_abelian(self) -> bool:
        return bool(np.array_equal(self.table, self.table.T))

    @cached_property
    def ldiv(self) -> np.ndarray:
        """``ldiv[g, k]`` = index of ``g^{-1} k``, so ``(u * v)_k = sum_g u_g v_{ldiv[g, k]}``."""
        M = self.order
        out = np.empty((M, M), dtype=np.int64)
        rows = np.arange(M)[:, None]
        out[rows, self.table] = np.arange(M)[None, :]
        return out

    @cached_property
    def fft_layout(self) -> tuple[tuple[int, ...], np.ndarray | None] | None:
        """For an Abelian group ``Z_d1 x ... x Z_dn``: ``(orders, pos)`` with ``pos[i]`` the row-major position of
        element ``i`` in an array of shape ``orders`` (None when the elements are already in that order);
        None for other groups (no FFT path)."""
        if self.as_product is None:
            return None
        orders = tuple(int(d) for d in self.as_product.orders)
        pos = np.ravel_multi_index(tuple(np.asarray(self.as_product.elements).T), orders)
        return orders, (None if np.array_equal(pos, np.arange(self.order)) else pos)

    @cached_property
    def components(self) -> list[Component]:
        return _components(self)

    def component_masses(self, W: np.ndarray) -> np.ndarray:
        """``mass[s, c] = |Q_c u_s|^2 + |Q_c v_s|^2`` for rows ``W[s] = (u_s; v_s)``; shape (S, #components)."""
        W = np.atleast_2d(W)
        M = self.order
        U, V = W[:, :M], W[:, M:]
        out = np.empty((W.shape[0], len(self.components)))
        for i, c in enumerate(self.components):
            out[:, i] = np.einsum("sg,sg->s", U @ c.projector, U) + np.einsum("sg,sg->s", V @ c.projector, V)
        return out


def li2_group(spec: Any) -> Li2Group:
    """The group named by ``spec``: an order or product (``'23'``, ``'3x5'``, Abelian) or a name such as ``'S3'``.

    Non-Abelian names need :mod:`cogo.algebra.finite_groups` (issue 12); without it a
    :class:`CogoError` says so.

    Raises
    ------
    CogoError
        One line: an unknown group, or an Abelian group of order above 512.

    Examples
    --------
    >>> li2_group("3x5").order, li2_group("S3").name
    (15, 'S3')
    """
    if isinstance(spec, Li2Group):
        return spec
    if isinstance(spec, FiniteAbelianGroup) or isinstance(spec, (int, np.integer)) or (
            isinstance(spec, str) and _ABELIAN_RE.match(spec)):
        try:
            A = as_group(spec)
        except ValueError as exc:
            raise CogoError(str(exc)) from None
        if A.order > 512:
            raise CogoError(f"group order {A.order} is too large for the energy checks (at most 512)")
        return Li2Group(label=A.label, name=str(A), order=A.order, table=np.asarray(A.add_table), as_product=A)
    if not isinstance(spec, str):
        G = spec  # a FiniteGroup-like object
    else:
        try:
            G = group_from_spec(spec)  # a table's name is only its label
        except CogoError:
            raise
        except (ValueError, KeyError) as exc:
            raise CogoError(f"unknown group {spec!r} ({' '.join(str(exc).split())})") from None
    if isinstance(G, FiniteAbelianGroup):  # an Abelian Cayley table: its product of cyclic groups
        return li2_group(G)
    table = np.asarray(G.table, dtype=np.int64)
    label = str(getattr(G, "label", spec))
    return Li2Group(label=label, name=label, order=int(G.order), table=table, finite=G)


def _components(G: Li2Group) -> list[Component]:
    M = G.order
    comps: list[Component] = []
    if G.as_product is not None:
        A = G.as_product
        chi = A.characters  # chi[k, m]
        neg = A.neg
        seen = set()
        for k in range(M):
            if k in seen:
                continue
            members = (k,) if neg[k] == k else (k, int(neg[k]))
            seen.update(members)
            # P_k[g, h] = (1/M) conj(chi_k(g)) chi_k(h)  (projector onto the span of chi_k as a function)
            Q = sum(np.outer(chi[j].conj(), chi[j]) for j in members).real / M
            if k == 0:
                kind, pred, lab = "trivial", 0.0, "k=0"
            elif len(members) == 1:
                kind, pred, lab = "real", M / 8.0, f"k={A.coords(k) if not A.is_cyclic else k}"
            else:
                kind, pred = "complex", M / 16.0
                lab = f"k=+-{A.coords(k) if not A.is_cyclic else k}"
            comps.append(Component(lab, kind, 1, members, Q, pred))
        return comps
    irr = representations.irreps(G.finite)
    P = representations.isotypic_projectors(G.finite)   # P[k] = (d_k/M) sum_g conj(chi_k(g)) R_g, one per irrep (SPEC 9)
    used = set()
    for i, rho in enumerate(irr):
        if i in used:
            continue
        chi = np.asarray(rho.character, dtype=complex)
        d = int(rho.dim)
        ind = int(rho.indicator)
        members = [i]
        if ind == 0:
            for j in range(i + 1, len(irr)):
                if j not in used and np.allclose(np.asarray(irr[j].character), chi.conj(), atol=1e-9):
                    members.append(j)
                    break
        used.update(members)
        Q = P[members].sum(axis=0).real   # a complex-conjugate pair: the real projector onto both
        trivial = d == 1 and np.allclose(chi, 1.0)
        if trivial:
            kind, pred = "trivial", 0.0
        elif ind == 1:
            kind, pred = "real", M / (8.0 * d)
        elif ind == 0:
            kind, pred = "complex", M / (16.0 * d)
        else:
            kind, pred = "quaternionic", None
        lab = "+".join(getattr(irr[j], "name", None) or f"rho{j}" for j in members) + f" (d={d})"
        comps.append(Component(lab, kind, d, tuple(members), Q, pred))
    return comps


# ----------------------------------------------------------------------------------- the energy
def _split(W: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray, bool]:
    W = np.asarray(W, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    if W.shape[-1] != 2 * M:
        raise ValueError(f"w must have 2M = {2 * M} entries, got {W.shape[-1]}")
    return W[:, :M], W[:, M:], single


def _residual(G: Li2Group, U: np.ndarray, V: np.ndarray) -> np.ndarray:
    c = np.einsum("sg,sgk->sk", U, V[:, G.ldiv])  # (u * v)_k
    return c - c.mean(axis=1, keepdims=True)


def _to_grid(G: Li2Group, X: np.ndarray) -> np.ndarray:
    orders, pos = G.fft_layout
    if pos is not None:
        Y = np.empty_like(X)
        Y[:, pos] = X
        X = Y
    return X.reshape((X.shape[0],) + orders)


def _from_grid(G: Li2Group, Y: np.ndarray) -> np.ndarray:
    orders, pos = G.fft_layout
    Y = Y.reshape(Y.shape[0], -1)
    return Y if pos is None else Y[:, pos]


def _fft_energy_and_gradient(G: Li2Group, U: np.ndarray, V: np.ndarray, grad: bool = True):
    """Abelian groups, by the convolution theorem (SPEC 9 with SPEC 2's Fourier transform): with
    ``^`` the DFT on ``Z_d1 x ... x Z_dn``, ``(u * v)^ = u^ v^``, and the gradient's correlations
    ``sum_h r_{g+h} v_h`` have transform ``r^ conj(v^)`` (``v`` real).  O(S M log M) instead of O(S M^2)."""
    orders, _ = G.fft_layout
    axes = tuple(range(1, len(orders) + 1))
    Uh = np.fft.rfftn(_to_grid(G, U), axes=axes)
    Vh = np.fft.rfftn(_to_grid(G, V), axes=axes)
    c = np.fft.irfftn(Uh * Vh, s=orders, axes=axes)
    r = c - c.mean(axis=axes, keepdims=True)
    E = 0.5 * np.einsum("si,si->s", r.reshape(len(r), -1), r.reshape(len(r), -1))
    if not grad:
        return E, None
    Rh = np.fft.rfftn(r, axes=axes)
    dU = _from_grid(G, np.fft.irfftn(Rh * Vh.conj(), s=orders, axes=axes))
    dV = _from_grid(G, np.fft.irfftn(Rh * Uh.conj(), s=orders, axes=axes))
    return E, np.concatenate([dU, dV], axis=1)


#: ``method`` of :func:`energy` / :func:`energy_and_gradient`: 'auto' (FFT for Abelian groups), 'fft', 'table'.
METHODS = ("auto", "fft", "table")


def _use_fft(G: Li2Group, method: str) -> bool:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "fft" and G.fft_layout is None:
        raise ValueError(f"the FFT path needs an Abelian group; {G.name} is not")
    return method == "fft" or (method == "auto" and G.fft_layout is not None)


def energy(W: np.ndarray, group: Any, method: str = "auto") -> np.ndarray | float:
    """``E(w) = 1/2 || r ||^2`` (SPEC 9, unit-norm inputs) for one ``w`` (2M,) or rows ``W`` (S, 2M).

    ``method``: 'table' sums over the Cayley table (any group, O(S M^2)); 'fft' uses the
    convolution theorem (Abelian groups, O(S M log M)); 'auto' (default) the FFT when it can.

    Returns
    -------
    numpy.ndarray or float
        ``E`` of each row (S,), or a float for one ``w``.

    Examples
    --------
    >>> import numpy as np
    >>> c = li2_group(5).components[1]                   # the frequency pair k = +-1 of Z_5
    >>> u = c.projector[:, 0]
    >>> w = np.concatenate([u, u]) / np.linalg.norm(np.concatenate([u, u]))
    >>> round(float(energy(w, 5)), 12), round(float(energy(w, 5, method="table")), 12), c.predicted   # E = M/16
    (0.3125, 0.3125, 0.3125)
    """
    G = li2_group(group)
    U, V, single = _split(W, G.order)
    if _use_fft(G, method):
        E, _ = _fft_energy_and_gradient(G, U, V, grad=False)
    else:
        r = _residual(G, U, V)
        E = 0.5 * np.einsum("sk,sk->s", r, r)
    return float(E[0]) if single else E


def energy_and_gradient(W: np.ndarray, group: Any, method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """``E`` (S,) and its Euclidean gradient (S, 2M) for rows ``W`` (SPEC 9; formulas in the module docstring;
    ``method`` as in :func:`energy`).

    Returns
    -------
    E : numpy.ndarray
        The energy of each row, shape (S,).
    grad : numpy.ndarray
        ``(dE/du ; dE/dv)`` of each row, shape (S, 2M).

    Examples
    --------
    >>> import numpy as np
    >>> W = random_sphere(3, 5, seed=0)
    >>> E, grad = energy_and_gradient(W, 5)
    >>> E.shape, grad.shape, bool(np.allclose(E, energy(W, 5)))
    ((3,), (3, 10), True)
    >>> eps, d = 1e-6, random_sphere(1, 5, seed=1)[0]    # the gradient is the derivative of E
    >>> bool(abs((energy(W[0] + eps * d, 5) - energy(W[0] - eps * d, 5)) / (2 * eps) - grad[0] @ d) < 1e-6)
    True
    """
    G = li2_group(group)
    U, V, _ = _split(W, G.order)
    if _use_fft(G, method):
        return _fft_energy_and_gradient(G, U, V)
    r = _residual(G, U, V)
    E = 0.5 * np.einsum("sk,sk->s", r, r)
    Rt = r[:, G.table]  # Rt[s, g, h] = r[s, g h]
    dU = np.einsum("sgh,sh->sg", Rt, V)
    dV = np.einsum("sgh,sg->sh", Rt, U)
    return E, np.concatenate([dU, dV], axis=1)


def riemannian_gradient(W: np.ndarray, group: Any, method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """``E`` and the gradient projected on the tangent space of the unit sphere, ``grad E - <grad E, w> w``.

    Returns
    -------
    E : numpy.ndarray
        Shape (S,), as :func:`energy_and_gradient`.
    grad_R : numpy.ndarray
        The tangent part of the gradient at each row, shape (S, 2M).

    Examples
    --------
    >>> import numpy as np
    >>> W = random_sphere(2, 5, seed=0)
    >>> E, g = riemannian_gradient(W, 5)
    >>> bool(np.allclose((g * W).sum(axis=1), 0))        # tangent to the sphere
    True
    """
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    E, g = energy_and_gradient(W, group, method)
    return E, g - np.einsum("si,si->s", g, W)[:, None] * W


def energy_literal(w: np.ndarray, group: Any, input_scale: float = INPUT_SCALE) -> float:
    """``1/2 || Y~^T sigma(X w) ||^2`` built literally: X (M^2, 2M), Y (M^2, M), P = I - 11^T/M^2 (SPEC 9).

    The reference definition (dense, for small groups); ``input_scale`` multiplies every
    input pair (``1/sqrt(2)``: unit-norm inputs, SPEC 9's values; ``1``: raw one-hot pairs).

    Examples
    --------
    >>> import numpy as np
    >>> w = random_sphere(1, 5, seed=2)[0]
    >>> bool(abs(energy_literal(w, 5) - energy(w, 5)) < 1e-12)   # the dense definition agrees with the FFT
    True
    """
    G = li2_group(group)
    M = G.order
    g, h = np.divmod(np.arange(M * M), M)
    X = np.zeros((M * M, 2 * M))
    X[np.arange(M * M), g] = input_scale
    X[np.arange(M * M), M + h] = input_scale
    Y = np.zeros((M * M, M))
    Y[np.arange(M * M), G.table[g, h]] = 1.0
    Yt = Y - Y.mean(axis=0, keepdims=True)  # P Y
    f = (X @ np.asarray(w, dtype=np.float64)) ** 2
    z = Yt.T @ f
    return 0.5 * float(z @ z)


# ----------------------------------------------------------------------------------- ascent
def random_sphere(S: int, M: int, seed: int) -> np.ndarray:
    """``S`` points uniform on the unit sphere of ``R^{2M}``, rows of an (S, 2M) array (numpy Generator seeded with ``seed``).

    Examples
    --------
    >>> import numpy as np
    >>> W = random_sphere(4, 5, seed=0)
    >>> W.shape, bool(np.allclose(np.linalg.norm(W, axis=1), 1)), bool((W == random_sphere(4, 5, seed=0)).all())
    ((4, 10), True, True)
    """
    W = np.random.default_rng(seed).standard_normal((S, 2 * M))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


@dataclass
class AscentResult:
    """Projected gradient ascent from ``S`` starts: final points, energies, Riemannian gradient norms, steps.

    >>> res = ascend(random_sphere(4, 5, seed=0), 5)
    >>> res.W.shape, bool(res.converged.all()), [round(float(e), 9) for e in res.E]   # every start ends at E* = 5/16
    ((4, 10), True, [0.3125, 0.3125, 0.3125, 0.3125])
    """

    W: np.ndarray
    E: np.ndarray
    grad_norm: np.ndarray
    steps: int
    converged: np.ndarray


def ascend(W0: np.ndarray, group: Any, lr: float | None = None, max_steps: int = 20000,
           tol: float = 1e-10, method: str = "auto", component: int | None = None) -> AscentResult:
    """Projected gradient ascent of ``E`` on the unit sphere, all rows of ``W0`` at once (SPEC 9).

    ``w <- (w + lr * grad_R E(w)) / ||.||`` with the Riemannian gradient; the step is
    ``lr = 1 / M`` by default (the gradient is O(M)).  A row stops moving once
    ``||grad_R E|| <= tol * M``; the loop ends when every row has.  ``method``: as in
    :func:`energy` (the FFT for Abelian groups by default).

    ``component``: the index in ``G.components`` of a non-trivial isotypic component holding every row's ``u``
    and ``v`` (a ValueError otherwise).  The same steps then run in the component's Fourier coordinates
    (:func:`_ascend_in_component`: ``d x d`` matrices, O(d^3) per row and step instead of O(M^2)), and the
    full-space loop above takes over from their end points: the stop rule and the returned ``E``, gradient norms
    and ``converged`` are always those of the full-space energy.

    Returns
    -------
    AscentResult
        Final rows ``W``, their energies ``E``, Riemannian gradient norms, the steps taken (both loops) and which
        rows converged.

    Examples
    --------
    >>> res = ascend(random_sphere(8, 6, seed=0), "S3")
    >>> bool(res.converged.all()), {round(float(e), 6) for e in res.E} <= {0.375, 0.75}   # E* = M/(8 d): rho2, rho1
    (True, True)
    >>> G = li2_group("S3"); P = G.components[2].projector               # starts in the 2-dimensional irrep
    >>> W0 = random_sphere(4, 6, seed=0); W0 = np.concatenate([W0[:, :6] @ P, W0[:, 6:] @ P], axis=1)
    >>> res = ascend(W0, G, component=2)
    >>> bool(res.converged.all()), [round(float(e), 9) for e in res.E]      # E* = M/(8 d) = 6/16
    (True, [0.375, 0.375, 0.375, 0.375])
    """
    G = li2_group(group)
    M = G.order
    W = np.array(np.atleast_2d(W0), dtype=np.float64)
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    lr = 1.0 / M if lr is None else float(lr)
    steps = 0
    if component is not None:
        W, steps = _ascend_in_component(W, G, component, lr, max_steps, tol * M)
    active = np.ones(W.shape[0], dtype=bool)
    while steps < max_steps and active.any():
        idx = np.flatnonzero(active)
        _, g = riemannian_gradient(W[idx], G, method)
        done = np.linalg.norm(g, axis=1) <= tol * M
        move = idx[~done]
        active[idx[done]] = False
        if move.size:
            Wm = W[move] + lr * g[~done]
            W[move] = Wm / np.linalg.norm(Wm, axis=1, keepdims=True)
        steps += 1
    E_fin, g = riemannian_gradient(W, G, method)
    gn = np.linalg.norm(g, axis=1)
    return AscentResult(W, E_fin, gn, steps, gn <= tol * M * (1 + 1e-9))


def _dot(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``Re tr(X_s^H Y_s)`` for stacks of matrices (S, d, d): the real inner product of the coordinates."""
    return np.einsum("sij,sij->s", X.conj(), Y).real


def _fourier_gradient(A: np.ndarray, B: np.ndarray, kappa: float) -> tuple[np.ndarray, np.ndarray]:
    """The gradient of ``E = ||A B||_F^2 / (2 kappa)`` in the coordinates of :func:`_ascend_in_component`:
    ``((A B) B^H / kappa, A^H (A B) / kappa)`` for stacks (S, d, d)."""
    P = A @ B
    return P @ B.conj().swapaxes(1, 2) / kappa, A.conj().swapaxes(1, 2) @ P / kappa


def _ascend_in_component(W: np.ndarray, G: Li2Group, ci: int, lr: float, max_steps: int,
                         tol_abs: float) -> tuple[np.ndarray, int]:
    """The ascent of :func:`ascend` for rows in component ``ci``, in its Fourier coordinates (SPEC 9).

    With ``rho`` the component's first irrep, ``m = 2`` for a complex pair (else 1) and ``kappa = m d / M``,
    ``A = sqrt(kappa) u^(rho)`` (:func:`cogo.algebra.representations.group_fourier`) is an isometry of the
    component onto its image (Plancherel), ``(u * v)^ = u^ v^`` and ``r = u * v`` (centred: ``rho`` is not
    trivial), so ``E = ||A B||_F^2 / (2 kappa)`` with gradients ``(A B) B^H / kappa`` and ``A^H (A B) / kappa``:
    the steps of the full space, O(d^3) each.  The rows are mapped there and back
    (:func:`cogo.algebra.representations.group_fourier_inverse`); a row that does not come back (more than 1e-9
    off) is not in the component: ValueError.

    Returns
    -------
    tuple
        The end points (S, 2M) and the steps taken.
    """
    M = G.order
    comp = G.components[ci]
    if comp.kind == "trivial":
        raise ValueError("the trivial component carries no energy: nothing to ascend")
    grp = G.finite if G.as_product is None else G.as_product
    reps = [representations.irreps(grp)[comp.irreps[0]]]
    m = 2 if comp.kind == "complex" else 1
    kappa = m * comp.dim / M
    s = math.sqrt(kappa)

    def to(X):
        return s * np.moveaxis(representations.group_fourier(grp, X.T, reps)[0], -1, 0)

    def back(A):
        return m / s * representations.group_fourier_inverse(grp, [np.moveaxis(A, 0, -1)], reps).real.T

    A, B = to(W[:, :M]), to(W[:, M:])
    off = np.abs(np.concatenate([back(A), back(B)], axis=1) - W).max(initial=0.0)
    if off > 1e-9:
        raise ValueError(f"the rows are not in component {comp.label} of {G.name} ({off:.2e} off)")
    active = np.ones(len(A), dtype=bool)
    steps = 0
    while steps < max_steps and active.any():
        idx = np.flatnonzero(active)
        a, b = A[idx], B[idx]
        ga, gb = _fourier_gradient(a, b, kappa)
        radial = _dot(ga, a) + _dot(gb, b)                              # <grad E, w> (= 4 E)
        ga -= radial[:, None, None] * a
        gb -= radial[:, None, None] * b
        done = np.sqrt(_dot(ga, ga) + _dot(gb, gb)) <= tol_abs
        mv = ~done
        a, b = a[mv] + lr * ga[mv], b[mv] + lr * gb[mv]
        nrm = np.sqrt(_dot(a, a) + _dot(b, b))[:, None, None]
        A[idx[mv]], B[idx[mv]] = a / nrm, b / nrm
        active[idx[done]] = False
        steps += 1
    return np.concatenate([back(A), back(B)], axis=1), steps
