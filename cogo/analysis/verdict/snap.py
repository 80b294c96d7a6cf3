"""The nearest certified global optimizer of a trained network, and how far the network is from it.

A trained network is never exactly a construction of SPEC 7: its weights carry optimizer noise,
rounding and dead nodes.  :func:`snap_network` takes the block reading of
:func:`cogo.analysis.classify.read_network` (every block's catalogue type and nearest parameters, fitted by
:func:`cogo.analysis.verdict.nearest.nearest_family`) and puts each block *on* its family's exact constraint set:

* the family's product (``z_nu * z_syn``, ``z_nu=i * z_syn,ab``, ``z_nu=i * z_xi``) with unit-circle
  parameters and the family's normalization ``m^(-1/3)`` (``abc = 1``);
* channel phases ``(alpha, beta, 1 / (alpha beta))`` on ``(a, b, c)``: they multiply every sum of SPEC 6 by
  a unit and keep ``abc``, so they keep a block optimal (a trained block has arbitrary phases);
* the parameters, phases, node order and per-node signs chosen to bring the block nearest the trained one
  (a local polish of the classifier's fit, started from every point of the fit's parameter orbit);
* order-4 blocks get the hat of SPEC 7.3, split over the order-6 blocks as the trained output weights at the
  order-4 frequencies are (:func:`_hat`; trained networks spread it);
* dead nodes, zero-frequency nodes and nodes of no block are dropped.

Distance.  Every node's full Fourier vector ``(a, b, c)`` (all ``n`` frequencies) is balanced
(``(t a, t b, c / t^2)``, ``t = (||c|| / sqrt(||a|| ||b||))^(1/3)``: the per-node gauge of SPEC 8.4 undone);
a trained node ``x`` and its snapped counterpart ``y`` differ by ``min_s ||x - (s y_a, s y_b, y_c)||``
(``s = +-1``: the sign flip ``(-a, -b, c)``); a dropped node by ``||x||``.  The distance of a block (of the network) is
``sqrt(sum of squared node differences / sum of ||x||^2)`` over its nodes (over all nodes): relative, and
invariant under node order, signs and the per-node gauge.  It is 0 exactly when the trained network *is* the
snapped one up to these symmetries.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from cogo.algebra.block import Block
from cogo.algebra.network import Network
from cogo.analysis.factor.kronecker import balance_gauge, node_features
from cogo.analysis.verdict.nearest import _perms, order_misfits
from cogo.catalogue import partial as P
from cogo.catalogue.constructions import CONSTRUCTIONS
from cogo.solvers.constructions import z_M
from cogo.solvers.designs import BlockDesign, abc_normalizer

__all__ = ["SNAP_TYPES", "SnappedBlock", "Snap", "snap_network", "attach_snap", "unit_point", "unit_t", "unit_from_t",
           "exact_part", "in_order"]

#: The block types a global optimizer is made of (SPEC 7.1-7.3), with the construction whose family
#: certificate covers them (the records' ``snap_types``, :mod:`cogo.catalogue.constructions`) (:func:`cogo.proofs.theorems.optimality.family_certificate`).
SNAP_TYPES = {t: c.name for c in CONSTRUCTIONS for t in c.snap_types}
#: Parameter orbits of the classifier's folded parameters (degrees): ``(period, mirror)`` per type.
_ORBITS = {"z_nu * z_syn": (60.0, True), "z_nu=i * z_xi": (90.0, False), "z_nu=i * z_syn,ab": (90.0, False)}
#: Rational points of the unit circle: ``t = tan(angle / 2)`` to this denominator (angle error ~ 1e-12 rad).
DENOMINATOR = 10 ** 6


def unit_point(degrees: float, exact: bool = False) -> Any:
    """The point ``exp(i angle)`` of the unit circle, exactly a rational point when ``exact``.

    Exact: ``((1 - t^2) + 2 t i) / (1 + t^2)`` with ``t`` the fraction nearest ``tan(angle / 2)`` of
    denominator at most :data:`DENOMINATOR` (angles beyond 90 degrees from 0 are ``-`` the point 180 degrees
    away, so ``|t| <= 1``).

    Returns
    -------
    complex or sympy.Expr
        ``exp(i angle)`` (float) or an exact point of modulus exactly 1 within ~1e-12 of it.

    Examples
    --------
    >>> u = unit_point(30.0, exact=True)
    >>> bool(abs(complex(u) - unit_point(30.0)) < 1e-11), (u * u.conjugate()).expand()
    (True, 1)
    """
    rad = math.radians(float(degrees))
    if not exact:
        return complex(np.exp(1j * rad))
    return unit_from_t(*unit_t(degrees))


def unit_t(degrees: float) -> tuple[int, Fraction]:
    """``(sign, t)`` of the exact rational point :func:`unit_point` gives for ``degrees`` (``|t| <= 1``).

    >>> unit_t(0.0), unit_t(180.0)
    ((1, Fraction(0, 1)), (-1, Fraction(0, 1)))
    """
    rad = math.remainder(math.radians(float(degrees)), 2 * math.pi)
    sign = 1
    if abs(rad) > math.pi / 2:
        rad, sign = rad - math.copysign(math.pi, rad), -1
    return sign, Fraction(math.tan(rad / 2)).limit_denominator(DENOMINATOR)


def unit_from_t(sign: int, t: Fraction) -> Any:
    """The exact point ``sign ((1 - t^2) + 2 t i) / (1 + t^2)`` of the unit circle (sympy)."""
    import sympy  # late: sympy

    T = sympy.Rational(t.numerator, t.denominator)
    return int(sign) * ((1 - T ** 2) + 2 * T * sympy.I) / (1 + T ** 2)


def _build(typ: str, units: tuple, exact: bool) -> Any:
    """The normalized product of a type at unit parameters ``units`` (``m^(-1/3)`` times the catalogue form)."""
    if typ == "z_nu * z_syn":
        part, m = P.z_nu(units[0], exact=exact) * P.z_syn(exact=exact), 6
    elif typ == "z_nu=i * z_syn,ab":
        part, m = P.z_nu_i(exact=exact) * P.z_syn_ab(units[0], units[1], exact=exact), 6
    else:
        part, m = P.z_nu_i(exact=exact) * P.z_xi(units[0], 1, exact=exact), 4
    return part * abc_normalizer(m, exact)


def _phased(part: Any, al: Any, be: Any) -> Any:
    """``(alpha a, beta b, c / (alpha beta))`` of a partial solution (exact entries stay exact)."""
    if part.exact:
        import sympy  # late: sympy

        ga = sympy.conjugate(al) * sympy.conjugate(be)   # 1 / (alpha beta) on the unit circle
        vecs = [np.array([sympy.expand(e * s) for e in v], dtype=object)
                for v, s in ((part.a, al), (part.b, be), (part.c, ga))]
    else:
        vecs = [part.a * al, part.b * be, part.c / (al * be)]
    return P.PartialSolution(part.name, *vecs, params=dict(part.params))


@dataclass
class SnappedBlock:
    """One block of the trained network and its snapped form (module docstring).

    ``degrees``: the family's parameters and the channel phases ``phase_a``, ``phase_b`` (degrees) of the
    snapped block; ``nodes``: the trained nodes, in the order matched to the form's nodes; ``signs``: the
    per-node signs; ``reason``: why the block was not snapped (None when it was).
    """

    k: int
    order: int
    type: str | None
    nodes: list
    degrees: dict = field(default_factory=dict)
    signs: list = field(default_factory=list)
    reason: str | None = None
    distance: float | None = None
    part: Any = None
    #: trained node ``nodes[j]`` is node ``perm[j]`` of the form
    perm: list = field(default_factory=list)

    @property
    def snapped(self) -> bool:
        return self.reason is None

    def to_dict(self) -> dict:
        return {"k": self.k, "order": self.order, "type": self.type, "snapped": self.snapped,
                "distance": None if self.distance is None else float(self.distance),
                "parameters_degrees": {k: float(v) for k, v in self.degrees.items()}, "reason": self.reason}


@dataclass
class Snap:
    """The snapped network of a trained one (module docstring)."""

    blocks: list
    reasons: list
    distance: float
    #: the hat of SPEC 7.3: per carrier block ``k_B`` (a ``z_nu * z_syn`` block), ``{k: gamma}`` (numeric)
    hat: dict = field(default_factory=dict)
    network: Any = None
    node_map: list = field(default_factory=list)
    #: ``"blocks"`` (SPEC 7.1-7.3, per-frequency blocks) or ``"z_M"`` (z_M of SPEC 7.4, node by node)
    kind: str = "blocks"

    @property
    def complete(self) -> bool:
        """Every frequency has a snapped block, and every order-4 block its hat: a candidate optimizer."""
        return not self.reasons

    def design(self, G: Any) -> BlockDesign:
        """The snapped network as a numeric :class:`BlockDesign` (blocks only; the exact one:
        :func:`cogo.analysis.verdict.snap_record.exact_design`)."""
        if self.kind != "blocks":
            raise ValueError("a z_M snap has no block design (its certificate is z_M's)")
        return _design(G, self.blocks, self.hat)


def _orbit(typ: str, deg: dict) -> list[tuple]:
    """Every parameter tuple (degrees) the classifier's folded representative stands for."""
    period, mirror = _ORBITS[typ]
    if typ == "z_nu=i * z_syn,ab":
        A, B = deg["alpha"], deg["beta"]
        base = [(A, B), (B - A, -A), (-B, A - B)]
        shifts = [i * period for i in range(int(round(360 / period)))]
        return [(a + s1, b + s2) for a, b in base for s1 in shifts for s2 in shifts]
    t = next(iter(deg.values()))
    signs = (1, -1) if mirror else (1,)
    return [(s * t + j * period,) for s in signs for j in range(int(round(360 / period)))]


def _balanced(a: Any, b: Any, c: Any) -> np.ndarray:
    """(m, 3) balanced node vectors at one frequency."""
    return np.stack(balance_gauge(a, b, c)[:3], axis=1)


def _perm_costs(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``C[..., j, l] = min_s ||x_j - (s y_a, s y_b, y_c)_l||^2`` for node vectors ``X`` (..., m, 3), ``Y`` (..., m, 3).

    ``s = +-1`` is the sign flip ``(-a, -b, c)`` of SPEC 8.4 (it changes nothing the network computes).
    """
    xx = (np.abs(X) ** 2).sum(axis=-1)
    yy = (np.abs(Y) ** 2).sum(axis=-1)
    ab = (np.conj(X[..., :2]) @ np.swapaxes(Y[..., :2], -1, -2)).real
    cc = (np.conj(X[..., 2:]) @ np.swapaxes(Y[..., 2:], -1, -2)).real
    return xx[..., :, None] + yy[..., None, :] - 2 * cc - 2 * np.abs(ab)


def _best_perm(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per cost matrix ``C[b]`` (m, m): the node order of least total cost (the first on ties) and that cost."""
    m = C.shape[1]
    perms = _perms(m)
    tot = C[:, np.arange(m)[None, :], perms].sum(axis=2)
    i = np.argmin(tot, axis=1)
    return perms[i], tot[np.arange(len(C)), i]  # a copy: perms is the shared cache


#: Node orders (best by the feature misfit) and phase grid (degrees) tried per orbit point by :func:`_starts`.
_START_PERMS = 6
_START_ORBIT = 8
_PHASES = np.deg2rad(np.arange(0.0, 360.0, 12.0))
_PA, _PB = (x.reshape(-1) for x in np.meshgrid(_PHASES, _PHASES, indexing="ij"))
#: ``_SUM[i_a, i_b]``: the grid index of ``phase_a + phase_b`` (the grid divides 360 degrees)
_SUM = np.add.outer(np.arange(len(_PHASES)), np.arange(len(_PHASES))) % len(_PHASES)


def _phase_grid_costs(X: np.ndarray, Ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate ``Ys[i]`` (m, 3) matched node by node to ``X[i]`` (m, 3): the least cost over a grid of channel phases.

    The grid is uniform, so ``phase_a + phase_b`` is again a grid phase: the cost at ``(i_a, i_b)`` is
    ``sum_j |P_a[i_a, j] + P_b[i_b, j]| + P_c[i_a + i_b, j]`` from three ``(grid, m)`` tables (no complex products
    per grid point), the first sum node by node over the whole grid of a few candidates at once (they stay in
    cache).  Returns the costs ``(N,)`` and the flat grid indices ``(N,)`` of the phases ``(phase_a, phase_b)``
    reaching them (the first on ties, as :func:`numpy.argmin`).
    """
    costs, at = np.empty(len(Ys)), np.empty(len(Ys), dtype=np.int64)
    g, m = len(_PHASES), Ys.shape[1]
    u = np.exp(1j * _PHASES)[None, :, None]
    step = 64                                                           # candidates per pass: 2 x 460 KiB of floats
    ab, tmp = np.empty((g, g, step)), np.empty((g, g, step))
    for s in range(0, len(Ys), step):
        Xs, Yc = X[s:s + step], Ys[s:s + step]
        n = len(Yc)
        M = np.conj(Xs) * Yc                                            # (n, m, 3)
        Pa = np.ascontiguousarray((u * M[:, None, :, 0]).real.transpose(2, 1, 0))[:, :, None, :]   # (m, g, 1, n)
        Pb = np.ascontiguousarray((u * M[:, None, :, 1]).real.transpose(2, 1, 0))[:, None, :, :]   # (m, 1, g, n)
        Pc = (np.conj(u) * M[:, None, :, 2]).real                       # (n, g, m)
        o, t = ab[:, :, :n], tmp[:, :, :n]
        np.abs(np.add(Pa[0], Pb[0], out=o), out=o)                      # (g, g, n): the part the sign flips
        for j in range(1, m):
            o += np.abs(np.add(Pa[j], Pb[j], out=t), out=t)
        o += Pc.sum(axis=2)[:, _SUM].transpose(1, 2, 0)
        o *= 2
        nrm = (np.abs(Xs) ** 2).sum(axis=(1, 2)) + (np.abs(Yc) ** 2).sum(axis=(1, 2))
        cost = np.subtract(nrm, o, out=o).reshape(g * g, n)            # ||x||^2 + ||y||^2 - 2 (ab + cc)
        i = cost.argmin(axis=0)
        costs[s:s + n], at[s:s + n] = cost[i, np.arange(n)], i
    return costs, at


def _starts(X: np.ndarray, typ: str, degs: list) -> list[tuple]:
    """Per block ``X[b]`` (m, 3) of one type: the orbit point, node order and channel phases nearest it, on a coarse grid.

    Per orbit point of the classifier's parameters ``degs[b]``, the node orders that fit the sign-invariant
    features best (:func:`cogo.analysis.verdict.nearest.order_misfits`, one free complex scale per channel
    as the classifier's fit), then a grid of channel phases with the true node distance
    (:func:`_phase_grid_costs`); every block, orbit point and order at once.  Returns ``(orbit point, node
    order, phase_a, phase_b)`` per block.
    """
    B, m = X.shape[:2]
    perms = _perms(m)
    orbits = [_orbit(typ, d) for d in degs]
    T = len(orbits[0])
    Ys = _forms(typ, np.array(orbits, dtype=float).reshape(B * T, -1)).reshape(B, T, 3, m).transpose(0, 1, 3, 2)
    F = node_features(X[..., 0], X[..., 1], X[..., 2])                 # (B, m, 4)
    G = node_features(Ys[..., 0], Ys[..., 1], Ys[..., 2])              # (B, T, m, 4)
    val, top = order_misfits(F, G, smallest=_START_PERMS)              # (B, T, 6): the best node orders
    by = np.argsort(val, axis=2, kind="stable")
    top, lead = np.take_along_axis(top, by, axis=2), np.take_along_axis(val, by[:, :, :1], axis=2)[:, :, 0]
    pts = np.argsort(lead, axis=1, kind="stable")[:, :_START_ORBIT]  # the orbit points whose features fit best
    K = pts.shape[1] * top.shape[2]
    ct = np.repeat(pts, top.shape[2], axis=1)                         # (B, K): candidates' orbit points
    ci = np.take_along_axis(top, pts[:, :, None], axis=1).reshape(B, K)  # (B, K): and node orders
    Y = Ys[np.arange(B)[:, None, None], ct[:, :, None], perms[ci]]    # (B, K, m, 3): matched form nodes
    # the form's symmetries repeat candidates (orbit points and orders giving the same matched nodes, about
    # half of them): each is scored once, at its first place (a later copy could not win the tie-break below)
    first = _first_places(Y)
    owner, ct, ci = first // K, ct.reshape(-1)[first], ci.reshape(-1)[first]
    costs, at = _phase_grid_costs(X[owner], Y.reshape(B * K, m, 3)[first])
    ends, costs, out = np.searchsorted(owner, np.arange(1, B + 1)).tolist(), costs.tolist(), []
    w = 0
    for b in range(B):
        best, start = costs[w], w                                       # a block's candidates in order
        for j in range(start + 1, ends[b]):
            if costs[j] < best - 1e-12:
                best, w = costs[j], j
        out.append((orbits[b][ct[w]], perms[ci[w]], math.degrees(_PA[at[w]]), math.degrees(_PB[at[w]])))
        w = ends[b]
    return out


def _first_places(Y: np.ndarray) -> np.ndarray:
    """The first place of every distinct candidate per block: flat indices ``b K + j`` (increasing) into ``Y`` (B, K, ...).

    Candidates are equal when their values rounded to 12 decimals are (``-0.0`` as ``0.0``, as in
    :func:`numpy.unique`): all blocks at once, as one sort of the rounded rows' bytes, each row led by its block.
    """
    B, K = Y.shape[:2]
    R = np.ascontiguousarray(np.round(Y, 12) + 0.0).reshape(B * K, -1).view(np.uint8)
    lead = np.repeat(np.arange(B, dtype=">i8"), K).view(np.uint8).reshape(B * K, 8)   # big-endian: sorts by block
    keys = np.ascontiguousarray(np.concatenate([lead, R], axis=1)).view(np.dtype((np.void, 8 + R.shape[1])))
    return np.sort(np.unique(keys.reshape(-1), return_index=True)[1])


#: Exponents ``-4..4`` per parameter: every catalogue form is a trigonometric polynomial of degree at most 2 in
#: its unit parameters (``nu``, ``nu^-2``; ``alpha``, ``1/(alpha w^2)``, ...), checked when first built.
_TRIG = 9
_EXPONENTS = np.fft.fftfreq(_TRIG, 1.0 / _TRIG)                                # exponent of each DFT index
_POLYS: dict = {}


def _form_poly(typ: str) -> tuple[int, np.ndarray]:
    """``(nparams, coef)``: the normalized form of ``typ`` as ``sum_e coef[e] exp(i e theta)`` per parameter.

    The coefficients are the DFT of :data:`_TRIG` samples per parameter of the catalogue product (:func:`_build`),
    so nothing about the forms is written twice; they are checked against the product at random parameters
    (1e-12) before use, so a form that is not such a polynomial stops the snap instead of being misread.
    """
    if typ not in _POLYS:
        npar = 2 if typ == "z_nu=i * z_syn,ab" else 1
        ang = 360.0 * np.arange(_TRIG) / _TRIG
        grid = np.stack([g.reshape(-1) for g in np.meshgrid(*([ang] * npar), indexing="ij")], axis=1)

        def product(params):
            part = _build(typ, tuple(unit_point(x) for x in params), False)
            return np.stack([part.a, part.b, part.c]).astype(np.complex128)

        samples = np.stack([product(p) for p in grid]).reshape((_TRIG,) * npar + (3, -1))
        coef = np.fft.fftn(samples, axes=tuple(range(npar))) / _TRIG ** npar
        _POLYS[typ] = (npar, coef)
        check = np.random.default_rng(0).uniform(0.0, 360.0, size=(4, npar))
        err = np.abs(_forms(typ, check) - np.stack([product(p) for p in check])).max()
        if not err <= 1e-12:
            del _POLYS[typ]
            raise RuntimeError(f"the form {typ} is not a trigonometric polynomial of degree <= {_TRIG // 2} in its "
                               f"parameters (error {err:.3g}): the snap cannot evaluate it")
    return _POLYS[typ]


def _forms(typ: str, params: np.ndarray) -> np.ndarray:
    """(B, 3, m) vectors of the normalized form at ``params`` (B, nparams) degrees, all at once.

    At unit parameters the forms are balanced already (every node has ``|a| = |b| = |c|``; the balance ``t`` is 1
    to 2e-16), and unit channel phases keep them so.
    """
    npar, coef = _form_poly(typ)
    E = np.exp(1j * np.deg2rad(np.asarray(params, dtype=float))[:, :, None] * _EXPONENTS)   # (B, nparams, _TRIG)
    if npar == 1:
        return np.einsum("bp,pxm->bxm", E[:, 0], coef)
    return np.einsum("bp,bq,pqxm->bxm", E[:, 0], E[:, 1], coef)


def _models(typ: str, V: np.ndarray, nparams: int, forms: np.ndarray | None = None) -> np.ndarray:
    """(B, m, 3) balanced node vectors of the snapped forms at ``V`` (B, parameters + (phase_a, phase_b)) degrees.

    ``forms``: :func:`_forms` at ``V``'s parameters when the caller has them (the same numbers).
    """
    F = _forms(typ, V[:, :nparams]) if forms is None else forms
    ph = np.empty((len(V), 3, 1), dtype=complex)
    ph[:, 0, 0], ph[:, 1, 0] = np.exp(1j * np.deg2rad(V[:, nparams])), np.exp(1j * np.deg2rad(V[:, nparams + 1]))
    ph[:, 2, 0] = 1.0 / (ph[:, 0, 0] * ph[:, 1, 0])
    return (F * ph).transpose(0, 2, 1)


def _residuals(X: np.ndarray, typ: str, V: np.ndarray, P: np.ndarray, nparams: int,
               forms: np.ndarray | None = None) -> np.ndarray:
    """(B, 6m) real residuals ``x_j - s_j y_j`` of blocks ``X`` (B, m, 3) against the forms at ``V``, node order ``P``.

    The sign ``s_j`` (the flip ``(-a, -b, c)``) is the nearer one per node.
    """
    Y = _models(typ, V, nparams, forms)[np.arange(len(P))[:, None], P]
    signs = np.ones(Y.shape, dtype=float)
    signs[..., :2] = np.where((np.conj(X[..., :2]) * Y[..., :2]).sum(axis=2).real < 0, -1.0, 1.0)[..., None]
    d = (X - signs * Y).reshape(len(X), -1)
    return np.concatenate([d.real, d.imag], axis=1)


def _costs(X: np.ndarray, typ: str, V: np.ndarray, P: np.ndarray, nparams: int,
           forms: np.ndarray | None = None) -> np.ndarray:
    """Per block ``sum_j min_s ||x_j - (s y_a, s y_b, y_c)_j||^2``, as differences (no cancellation)."""
    r = _residuals(X, typ, V, P, nparams, forms)
    return np.einsum("bi,bi->b", r, r)


def _pattern_search(X: np.ndarray, typ: str, V: np.ndarray, P: np.ndarray, nparams: int) -> np.ndarray:
    """Coordinate pattern search (steps 4 to 0.5 degrees), every block at once, each on its own path.

    Per block: try ``+-step`` along each coordinate in turn, keep a move that lowers the cost; halve the step
    after a sweep without a move; stop below 0.25 degrees (Gauss-Newton converges quadratically from there).
    """
    V = V.copy()
    best = _costs(X, typ, V, P, nparams)
    step = np.full(len(V), 4.0)
    active = np.flatnonzero(step > 0.25)
    while active.size:
        moved = np.zeros(len(V), dtype=bool)
        Xa, Pa, forms = X[active], P[active], None
        for i in range(V.shape[1]):
            if i == nparams:  # the phases move from here on: the forms stay
                forms = _forms(typ, V[active, :nparams])
            for sgn in (1.0, -1.0):
                W = V[active]
                W[:, i] += sgn * step[active]
                c = _costs(Xa, typ, W, Pa, nparams, forms)
                better = c < best[active]
                V[active[better]], best[active[better]] = W[better], c[better]
                moved[active[better]] = True
        step[active[~moved[active]]] /= 2
        active = np.flatnonzero(step > 0.25)
    return V


def _gauss_newton(X: np.ndarray, typ: str, V: np.ndarray, P: np.ndarray, nparams: int) -> np.ndarray:
    """Gauss-Newton steps (finite-difference Jacobian in degrees) per block, while they lower its cost (<= 12)."""
    V = V.copy()
    r = _residuals(X, typ, V, P, nparams)
    active = np.arange(len(V))
    h = 1e-6
    for _ in range(12):
        if not active.size:
            break
        Xa, Pa, Va, ra = X[active], P[active], V[active], r[active]
        k = V.shape[1]                                                  # every coordinate's step at once
        Vh = (Va[None] + h * np.eye(k)[:, None, :]).reshape(-1, k)
        rh = _residuals(np.tile(Xa, (k, 1, 1)), typ, Vh, np.tile(Pa, (k, 1)), nparams).reshape(k, len(Va), -1)
        J = ((rh - ra) / h).transpose(1, 2, 0)
        # the least-squares steps of every block at once: the minimum-norm solution, singular values below
        # eps max(J.shape) of the largest dropped (numpy.linalg.lstsq's rcond=None, one block at a time)
        step = -(np.linalg.pinv(J, rcond=np.finfo(float).eps * max(J.shape[1:])) @ ra[:, :, None])[:, :, 0]
        W = Va + step
        rw = _residuals(Xa, typ, W, Pa, nparams)
        better = np.einsum("bi,bi->b", rw, rw) < np.einsum("bi,bi->b", ra, ra)
        V[active[better]], r[active[better]] = W[better], rw[better]
        keep = better & (np.max(np.abs(step), axis=1) >= 1e-11)
        active = active[keep]
    return V


def _polish(X: np.ndarray, typ: str, V0: np.ndarray, P0: np.ndarray, nparams: int) -> tuple[np.ndarray, np.ndarray]:
    """Pattern search over parameters and phases (degrees), then Gauss-Newton; node orders re-chosen at the end.

    ``X`` (B, m, 3): blocks of one type; ``V0`` (B, nparams + 2) start points; ``P0`` (B, m) node orders.  A block
    whose best node order changed is polished again from where it stopped (at most three rounds).
    """
    V, P = np.array(V0, dtype=float), np.array(P0)
    todo = np.arange(len(V))
    for _ in range(3):
        Vt = _gauss_newton(X[todo], typ, _pattern_search(X[todo], typ, V[todo], P[todo], nparams), P[todo], nparams)
        V[todo] = Vt
        cost = _costs(X[todo], typ, Vt, P[todo], nparams)
        Y = _models(typ, Vt, nparams)
        new, c_new = _best_perm(_perm_costs(X[todo], Y))
        again = ~((new == P[todo]).all(axis=1) | (c_new >= cost * (1 - 1e-9)))
        P[todo[again]] = new[again]
        todo = todo[again]
        if not todo.size:
            break
    return V, P


def _prepare(Xfull: np.ndarray, k: int, rep: Any) -> tuple[SnappedBlock, tuple | None]:
    """A block of the reading (``rep``: a :class:`cogo.analysis.report.network_report.BlockReport`) and its snap job.

    The job is ``(the block's vectors (3, m), the reading's parameters in degrees)`` for :func:`_snap_blocks`,
    None when the block is not snapped (the reason is recorded).
    """
    near = rep.nearest or {}
    typ = near.get("type")
    sb = SnappedBlock(int(rep.k), int(rep.order), typ, list(rep.nodes))
    if rep.kind == "self-conjugate":
        sb.reason = "a self-conjugate frequency (k = -k): no construction of SPEC 7 has a block there"
        return sb, None
    if typ not in SNAP_TYPES:
        sb.reason = (f"order {rep.order}, read as {rep.type}: no catalogue family of a global optimizer "
                     f"(SPEC 7.1-7.3 blocks are {', '.join(SNAP_TYPES)})")
        return sb, None
    return sb, (Xfull[:, k, rep.nodes], (near.get("params") or [{}])[0].get("degrees", {}))


def _snap_blocks(Z: np.ndarray, reps: list) -> list[SnappedBlock]:
    """Snap every block of a reading: the start and the polish of all blocks of one type at once."""
    blocks, jobs = [], {}
    for rep in reps:
        sb, job = _prepare(Z, rep.k, rep)
        if job is not None:
            jobs.setdefault(sb.type, []).append((len(blocks), job))
        blocks.append(sb)
    for typ, js in jobs.items():
        R = np.stack([job[0] for _, job in js])                         # (B, 3, m)
        X = _balanced(*R.transpose(1, 0, 2).reshape(3, -1)).reshape(len(R), R.shape[2], 3)  # every node at once
        starts = _starts(X, typ, [job[1] for _, job in js])
        nparams = len(starts[0][0])
        V, P = _polish(X, typ, np.array([(*t0, pa, pb) for t0, _, pa, pb in starts]),
                       np.stack([perm for _, perm, _, _ in starts]), nparams)
        names = ("alpha", "beta") if typ == "z_nu=i * z_syn,ab" else (("nu",) if typ == "z_nu * z_syn" else ("xi",))
        for (i, _), v, perm in zip(js, V, P):
            sb, v = blocks[i], [float(x) for x in v]
            sb.degrees = {**dict(zip(names, v[:nparams])), "phase_a": v[nparams], "phase_b": v[nparams + 1]}
            part = _phased(_build(typ, tuple(unit_point(x) for x in v[:nparams]), False),
                           unit_point(v[nparams]), unit_point(v[nparams + 1]))
            sb.perm = [int(i) for i in perm]
            sb.part = in_order(part, sb.perm)  # the form's nodes in the trained block's order
    return blocks


def in_order(part: Any, perm: list) -> Any:
    """The partial solution with its nodes in the order ``perm`` (node ``j`` is the form's node ``perm[j]``)."""
    return P.PartialSolution(part.name, part.a[perm], part.b[perm], part.c[perm], dict(part.params))


def exact_part(typ: str, units: dict) -> Any:
    """The exact form of ``typ`` at the exact unit points ``units`` (its parameters, then ``phase_a``, ``phase_b``)."""
    names = [k for k in units if not k.startswith("phase")]
    part = _build(typ, tuple(units[k] for k in names), True)
    return _phased(part, units["phase_a"], units["phase_b"])


def _design(G: Any, blocks: list, hat: dict) -> BlockDesign:
    """The snapped blocks as a numeric design; ``hat``: per carrier block ``k_B``, ``{k: gamma}`` (SPEC 7.3).

    The exact design is the snap's exact record's (:mod:`cogo.analysis.verdict.snap_record`), the one a snapped file carries.
    """
    out = [Block(sb.k, sb.part, dict(hat.get(sb.k, {}))) for sb in blocks if sb.snapped]
    return BlockDesign(G, "snapped", out, False)


def _hat(Z: np.ndarray, blocks: list) -> dict:
    """The hat of SPEC 7.3 split over every snapped order-6 block, nearest the trained output weights.

    A constant output vector on the six nodes of a ``z_nu * z_syn`` block (``|nu| = 1``, SPEC 7.3) -- and,
    measured, of a ``z_nu=i * z_syn,ab`` block (unit parameters; the exact certificate of every snapped network
    decides) -- at another frequency touches no condition but R_n there, so the order-4 block at ``k`` is corrected by any ``gamma_B`` with
    ``sum_B gamma_B D_B = -rn_k``.  Among those, the ones nearest the trained nodes' output weights at ``k``
    (balanced, least squares with the constraint: a closed form).  Returns ``{k_B: {k: gamma}}``.
    """
    fours = [sb for sb in blocks if sb.snapped and sb.type == "z_nu=i * z_xi"]
    sixes = [sb for sb in blocks if sb.snapped and sb.type in ("z_nu * z_syn", "z_nu=i * z_syn,ab")]
    if not fours or not sixes:
        return {}
    geo = []
    for sb in sixes:
        t = balance_gauge(Z[0, sb.k, sb.nodes], Z[1, sb.k, sb.nodes], Z[2, sb.k, sb.nodes])[3]
        u = 1.0 / balance_gauge(sb.part.a, sb.part.b, sb.part.c)[3] ** 2
        geo.append((t, u, float(np.sum(np.abs(sb.part.a) ** 2 + np.abs(sb.part.b) ** 2))))
    out: dict = {sb.k: {} for sb in sixes}
    u6, t6 = np.stack([u for _, u, _ in geo]), np.stack([t for t, _, _ in geo])          # (sixes, 6)
    uu = (u6 * u6).sum(axis=1)
    U, D = uu.tolist(), [d for _, _, d in geo]
    zc = Z[2][np.array([f.k for f in fours])[:, None, None], np.array([sb.nodes for sb in sixes])[None]]
    G0 = ((u6 * zc / t6 ** 2).sum(axis=2) / uu).tolist()                # (fours, sixes): every block's own fit
    for f, g0 in zip(fours, G0):
        p = f.part
        R = -complex(np.sum((np.abs(p.a) ** 2 + np.abs(p.b) ** 2) * p.c))
        lam = (R - sum(d * g for d, g in zip(D, g0))) / sum(d * d / uu for d, uu in zip(D, U))
        for sb, g, d, uu in zip(sixes, g0, D, U):
            out[sb.k][f.k] = g + lam * d / uu
    return out


def _full_balanced(Z: np.ndarray) -> np.ndarray:
    """(q, 3n) balanced full node vectors of a (3, n, q) Fourier network (per-node gauge undone)."""
    na, nb, nc = (np.linalg.norm(Z[p], axis=0) for p in range(3))
    ok = (na > 0) & (nb > 0) & (nc > 0)
    t = np.ones(Z.shape[2])
    t[ok] = np.cbrt(nc[ok] / np.sqrt(na[ok] * nb[ok]))
    n = Z.shape[1]
    out = np.empty((3 * n, Z.shape[2]), dtype=complex)                 # (3n, q)
    np.multiply(Z[0], t, out=out[:n])
    np.multiply(Z[1], t, out=out[n:2 * n])
    np.divide(Z[2], t ** 2, out=out[2 * n:])
    return out.T


def snap_network(Wa: Any, Wb: Any, Wc: Any, group: Any, report: Any, z: np.ndarray | None = None) -> Snap:
    """The nearest certified global optimizer of a network and the distance to it (module docstring).

    ``report``: the block reading of the same weights (:func:`cogo.analysis.classify.read_network`); ``z``: their
    Fourier coordinates (:meth:`cogo.algebra.Network.from_weights`) when already computed.

    Returns
    -------
    Snap
        The snapped blocks (with their parameters and distances), the reasons the network cannot be snapped
        to an optimizer (empty when it can), the network distance, the hat carrier and the numeric snapped
        network (None when incomplete).

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F6
    >>> W = z_F6(7, nu=unit_point(10.0)).to_weights(real=True)
    >>> s = snap_network(*W, 7, read_network(*W, group=7, with_verdict=False))
    >>> s.complete, s.distance < 1e-9, sorted(round(b.degrees["nu"] % 60, 6) for b in s.blocks)[0] in (10.0, 50.0)
    (True, True, True)
    """
    G = report.group
    Z = Network.from_weights(Wa, Wb, Wc, G).z if z is None else z
    blocks = _snap_blocks(Z, report.blocks)
    reasons = [f"k={sb.k}: {sb.reason}" for sb in blocks if not sb.snapped]
    have = {sb.k for sb in blocks}
    missing = [int(k) for k in np.unique(np.minimum(np.arange(G.order), G.neg)) if k != 0 and int(k) not in have]
    if missing:
        reasons.append(f"no block at frequencies {missing} (R_g fails there: r_kkk = 0)")
    hat = _hat(Z, blocks)
    if any(sb.snapped and sb.type == "z_nu=i * z_xi" for sb in blocks) and not hat:
        reasons.append("order-4 blocks z_nu=i * z_xi need the hat of a z_nu * z_syn block (SPEC 7.3); "
                       "the network has none")
    design = _design(G, blocks, hat)
    net = design.to_network() if design.blocks else None
    Y = net.z if net is not None else np.zeros((3, G.order, 0), dtype=complex)
    node_map = [-1] * Z.shape[2]
    off = 0
    for sb in blocks:
        if sb.snapped:
            for i, j in enumerate(sb.nodes):
                node_map[j] = off + i
            off += sb.order
    diff, norm = _node_distances(Z, Y, node_map)
    for sb in blocks:
        den = float(norm[sb.nodes].sum())
        sb.distance = math.sqrt(float(diff[sb.nodes].sum()) / den) if den > 0 else None
    total = float(norm.sum())
    dist = math.sqrt(float(diff.sum()) / total) if total > 0 else math.inf
    snap = Snap(blocks, reasons, dist, hat, net if not reasons else None, node_map)
    if reasons:  # not made of blocks: perfect memorization (SPEC 7.4), node by node?
        mem = _snap_memorization(Wa, Wb, Wc, G, Z, blocks)
        if mem is not None and mem.distance < dist:
            return mem
    return snap


def _node_distances(Z: np.ndarray, Ys: np.ndarray, node_map: list) -> tuple[np.ndarray, np.ndarray]:
    """Squared distance of every trained node to its snapped node (module docstring), and its squared norm.

    64 trained nodes at a time (their balanced vectors and their snapped nodes', in cache: no (q, 3n) array).
    """
    n, q = Z.shape[1], Z.shape[2]
    diff, norm = np.empty(q), np.empty(q)
    nm = np.asarray(node_map, dtype=np.int64).reshape(-1)
    for s in range(0, q, 64):
        X = _full_balanced(Z[:, :, s:s + 64])                          # (c, 3n)
        sq = np.abs(X)
        norm[s:s + 64] = np.square(sq, out=sq).sum(axis=1)
        diff[s:s + 64] = norm[s:s + 64]
        J = np.flatnonzero(nm[s:s + 64] >= 0)
        if not J.size or not Ys.shape[2]:
            continue
        Xs, Ys_ = X[J], _full_balanced(Ys[:, :, nm[s + J]])            # min over the sign flip (-a, -b, c),
        sg = np.where(np.einsum("ij,ij->i", np.conj(Ys_[:, :2 * n]), Xs[:, :2 * n]).real >= 0, 1.0, -1.0)
        d = Xs - np.concatenate([sg[:, None] * Ys_[:, :2 * n], Ys_[:, 2 * n:]], axis=1)   # as a difference
        diff[s + J] = (np.abs(d) ** 2).sum(axis=1)
    return diff, norm


def _snap_memorization(Wa: Any, Wb: Any, Wc: Any, G: Any, Z: np.ndarray, blocks: list) -> Snap | None:
    """z_M (SPEC 7.4) matched node by node: node ``j`` to ``(argmax |W_a[j]|, argmax |W_b[j]|)``, or None.

    Only when the ``n^2`` largest nodes hit every pair ``(j1, j2)`` once (the structure of z_M); the rest are
    dropped.  Its certificate is z_M's (:func:`cogo.proofs.theorems.optimality.optimality` with ``"z_M"``).
    """
    n = G.order
    Wa, Wb = np.asarray(Wa, dtype=np.float64), np.asarray(Wb, dtype=np.float64)
    mass = np.linalg.norm(Z.reshape(-1, Z.shape[2]), axis=0)
    top = np.argsort(-mass, kind="stable")[:n * n]
    pairs = np.argmax(np.abs(Wa[top]), axis=1) * n + np.argmax(np.abs(Wb[top]), axis=1)
    if len(top) < n * n or len(set(pairs.tolist())) != n * n:
        return None
    node_map = [-1] * Z.shape[2]
    for j, l in zip(top, pairs):
        node_map[int(j)] = int(l)
    net = z_M(G)
    diff, norm = _node_distances(Z, net.z, node_map)
    total = float(norm.sum())
    dist = math.sqrt(float(diff.sum()) / total) if total > 0 else math.inf
    mem = [SnappedBlock(b.k, b.order, "z_M (node by node)", list(b.nodes)) for b in blocks]
    for sb in mem:
        den = float(norm[sb.nodes].sum())
        sb.distance = math.sqrt(float(diff[sb.nodes].sum()) / den) if den > 0 else None
    return Snap(mem, [], dist, {}, net, node_map, kind="z_M")


def attach_snap(report: Any, Wa: Any, Wb: Any, Wc: Any, z: np.ndarray | None = None) -> Snap:
    """Snap the network of a block reading and record it there: ``report.snap``, each block's ``distance``.

    ``z``: the weights' Fourier coordinates when already computed (as :func:`snap_network`).

    ``cogo classify`` and ``cogo verify --checkpoint`` both read these: one reading, one distance per block.

    Returns
    -------
    Snap
        :func:`snap_network` of the weights (all nodes, as read from the file) and the reading.
    """
    snap = snap_network(Wa, Wb, Wc, report.group, report, z)
    report.snap = snap
    for b, sb in zip(report.blocks, snap.blocks):
        b.distance = sb.distance
    return snap
