"""The Li^2 theorems of SPEC 9 as checks (exact and numeric), with negative controls.

Every function returns :class:`cogo.proofs.results.TheoremResult` rows;
:func:`run_li2` runs them all (``cogo verify --theory li2``).

* Theorem 2, exact (Abelian groups): ``E`` at a single-irrep vector equals
  ``E*`` exactly, computed in the cyclotomic ring ``Z[zeta_L]``
  (:class:`cogo.algebra.cyclotomic.Cyclotomic`; ``L`` = exponent of G), for every
  component.  Also ``E(a w_1 + b w_2) = E*(a^4 + b^4)`` as a quartic form
  (5 exact evaluations determine it), so a mixture of two irreps is a strict
  minimum along the great circle through the two maxima: not a local maximum.
* Theorem 2, numeric: projected gradient ascent from many random starts on the
  unit sphere; every start ends at a critical point inside one component with
  ``E = E*``, no random tangent step raises ``E``, and every component is
  reached.
* Theorem 3, numeric: nodes at the maxima, the top layer by least squares on
  the centred features, the target reconstructed.
* Lemma 1, numeric: ``G_F = 0`` at ``eta = 0`` (over-parameterized), ``G_F ~ 1/eta``
  and ``G_F ~ K^-3/2`` in the limits.

Tolerances (numeric rows) are stated in each row's ``statement``.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import sympy

from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.cyclotomic import Cyclotomic
from cogo.proofs.results import TheoremResult, Timer
from cogo.proofs.rows import Row, methods_of, skipped_rows
from cogo.li2.energy import Li2Group, ascend, energy, li2_group, random_sphere, riemannian_gradient

__all__ = ["theorem2_exact", "theorem2_numeric", "theorem3", "lemma1", "control_mixture_exact",
           "control_mixture_numeric", "control_wrong_prediction", "run_li2", "skipped_li2", "LI2_THEOREMS",
           "predicted_energy", "exact_energy_abelian", "gradient_ridge"]

#: numeric tolerances (relative to M where energies are compared)
TOL_E = 1e-9
TOL_PURITY = 1e-9
TOL_RECON = 1e-9
LEMMA1_MAX_PAIRS = 1024


def predicted_energy(comp) -> float | None:
    """SPEC 9's E* for a component (unit-norm inputs): ``M/(8 d)`` real, ``M/(16 d)`` complex pair.

    Returns
    -------
    float or None
        ``E*`` of the component (0.0 for the trivial one); None for a quaternionic irrep (no prediction).

    Examples
    --------
    >>> [predicted_energy(c) for c in li2_group("S3").components]   # trivial, real d = 1 (M/8), real d = 2 (M/16)
    [0.0, 0.75, 0.375]
    >>> predicted_energy(li2_group(5).components[1])                 # a complex pair of Z_5: M/16
    0.3125
    """
    return comp.predicted


# ------------------------------------------------------------------------- exact arithmetic (Abelian)
def _phases(G: Li2Group) -> tuple[np.ndarray, int]:
    """``p[k, g]`` with ``chi_k(g) = zeta_L^p``, and ``L`` (the exponent)."""
    A = G.abelian
    L = A.exponent
    e = A.elements
    w = np.asarray([L // d for d in A.orders], dtype=np.int64)
    return ((e[:, None, :] * e[None, :, :]) % np.asarray(A.orders) * w).sum(-1) % L, L


def _cos_vector(G: Li2Group, terms: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """``u_g = sum_i c_i (zeta^(p(k_i, g) + s_i) + zeta^-(p(k_i, g) + s_i))`` (= sum 2 c_i cos) as exponents/coefs (M, 2t)."""
    p, L = _phases(G)
    ex, co = [], []
    for c, k, s in terms:
        ph = (p[k] + s) % L
        ex += [ph, (-ph) % L]
        co += [np.full(G.order, c, dtype=np.int64)] * 2
    return np.stack(ex, 1), np.stack(co, 1)


def _rational(cyc, counts: np.ndarray) -> sympy.Rational:
    """The element ``sum_e counts[e] zeta^e`` of ``Z[zeta_L]``; it must be an integer (else ValueError)."""
    v = cyc.from_counts(np.asarray(counts)[None, :])[0]
    if np.any(np.asarray(v[1:], dtype=object) != 0):
        raise ValueError("the value is not rational")
    return sympy.Integer(int(v[0]))


def exact_energy_abelian(G: Any, u_terms, v_terms) -> sympy.Rational:
    """``E(w / ||w||)`` exactly, ``w = (u; v)`` with ``u, v`` integer combinations of ``2 cos`` of characters.

    ``u_terms = [(c, k, s), ...]`` means ``u_g = sum c (zeta_L^(<k,g>L + s) + conj)``.
    Everything is an integer vector of ``zeta``-exponent counts; only the final
    values are reduced modulo ``Phi_L`` (:class:`cogo.algebra.cyclotomic.Cyclotomic`), where
    they must be rational.  ``E = 1/2 || r ||^2 / ||w||^4`` (SPEC 9, unit-norm inputs).

    Returns
    -------
    sympy.Rational
        The exact energy of the normalized vector.

    Raises
    ------
    ValueError
        The energy does not reduce to a rational number.

    Examples
    --------
    >>> exact_energy_abelian(5, [(1, 1, 0)], [(1, 1, 1)])             # one frequency pair of Z_5: E* = M/16
    5/16
    >>> exact_energy_abelian(5, [(1, 1, 0), (1, 2, 0)], [(1, 1, 0), (1, 2, 0)])   # two mixed: E*/2, not a maximum
    5/32
    """
    G = li2_group(G)
    M = G.order
    _, L = _phases(G)
    cyc = Cyclotomic(L)
    eu, cu = _cos_vector(G, u_terms)
    ev, cv = _cos_vector(G, v_terms)
    # C[m, e]: counts of (u * v)_m = sum_g u_g v_{g^-1 m}
    h = G.ldiv  # h[g, m]
    E_ = (eu[:, None, :, None] + ev[h][:, :, None, :]) % L  # (g, m, tu, tv)
    W_ = cu[:, None, :, None] * cv[h][:, :, None, :]
    C = np.zeros((M, L), dtype=np.int64)
    m_idx = np.broadcast_to(np.arange(M)[None, :, None, None], E_.shape)
    np.add.at(C, (m_idx.ravel(), E_.ravel()), W_.ravel())
    R = M * C - C.sum(0, keepdims=True)  # M r_m
    Gram = R.astype(object).T.dot(R.astype(object)) if np.abs(R).max(initial=0) > 2**20 else R.T @ R
    e1, e2 = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
    counts = np.zeros(L, dtype=Gram.dtype)
    np.add.at(counts, ((e1 - e2) % L).ravel(), Gram.ravel())
    N = _rational(cyc, counts)  # sum_m |M r_m|^2

    def sqnorm(e, c):
        s = np.zeros(L, dtype=np.int64)
        np.add.at(s, ((e[:, :, None] + e[:, None, :]) % L).ravel(), (c[:, :, None] * c[:, None, :]).ravel())
        return _rational(cyc, s)

    nw = sqnorm(eu, cu) + sqnorm(ev, cv)
    return sympy.Rational(1, 2) * N / sympy.Integer(M) ** 2 / nw ** 2


def _component_freq(G: Li2Group, comp) -> int:
    return int(comp.irreps[0])


# ------------------------------------------------------------------------- Theorem 2, exact
def theorem2_exact(group: Any) -> TheoremResult:
    """E at a single-irrep vector equals SPEC 9's E*, exactly, for every non-trivial component (Abelian G).

    Returns
    -------
    TheoremResult
        Row 2 (exact); ``details['components']`` lists ``E`` and ``E_star`` of every component.

    Examples
    --------
    >>> r = theorem2_exact(5)
    >>> r.passed, r.method, [(c["component"], c["E"], c["E_star"]) for c in r.details["components"]]
    (True, 'exact', [('k=+-1', '5/16', '5/16'), ('k=+-2', '5/16', '5/16')])
    """
    G = li2_group(group)
    with Timer() as t:
        rows, bad = [], []
        for comp in G.components:
            if comp.kind == "trivial":
                continue
            k = _component_freq(G, comp)
            # u_g = 2 cos(2 pi <k,g>), v_h = 2 cos(2 pi <k,h> + 2 pi / L): a maximum whatever the phase of v
            shift = 0 if comp.kind == "real" else 1  # a real character's shift would change |v|
            E = exact_energy_abelian(G, [(1, k, 0)], [(1, k, shift)])
            want = sympy.Rational(G.order, 8 if comp.kind == "real" else 16)
            ok = sympy.simplify(E - want) == 0
            rows.append({"component": comp.label, "kind": comp.kind, "E": str(E), "E_star": str(want)})
            if not ok:
                bad.append(comp.label)
    return TheoremResult(
        name="2. E at each irrep's maximum = E* (Li2)", method="exact",
        statement=f"for every frequency pair / real frequency k of {G.name}, w = (u; v) with u_g = cos(2 pi <k,g>), "
                  f"v_h = cos(2 pi <k,h> + 2 pi/L) (complex pair; no shift for a real irrep), normalized to |w| = 1, has E(w) = M/16 (complex pair) or M/8 "
                  "(real irrep) exactly, computed in Z[zeta_L] (SPEC 9, unit-norm inputs)",
        passed=not bad, residual=0.0 if not bad else 1.0, seconds=t.seconds,
        details={"components": rows, "failing": bad})


# ------------------------------------------------------------------------- Theorem 2, numeric
def _ascent_run(G: Li2Group, starts: int, seed: int):
    return ascend(random_sphere(starts, G.order, seed), G)


def _default_starts(G: Li2Group) -> int:
    return int(max(128, 10 * len(G.components)))


def theorem2_numeric(group: Any, starts: int | None = None, seed: int = 0, run=None,
                     predict: Callable | None = None) -> list[TheoremResult]:
    """Projected ascent from ``starts`` random points: each ends at a single-component maximum with E*; all reached.

    Returns two rows (convergence to the predicted maxima; every component reached).
    ``predict(comp)`` gives E* (default :func:`predicted_energy`; a wrong one must fail).

    Returns
    -------
    list of TheoremResult
        Two numeric rows: convergence to the predicted maxima, and every component reached.

    Examples
    --------
    >>> rows = theorem2_numeric(5, starts=4)
    >>> [(r.method, r.passed) for r in rows]
    [('numeric', True), ('numeric', True)]
    >>> wrong = theorem2_numeric(5, starts=4, predict=lambda comp: 5 / 8)   # a wrong E* must fail
    >>> wrong[0].passed
    False
    """
    G = li2_group(group)
    predict = predict or predicted_energy
    M = G.order
    with Timer() as t:
        starts = starts or _default_starts(G)
        run = run or _ascent_run(G, starts, seed)
        mass = G.component_masses(run.W)
        dom = mass.argmax(1)
        purity = mass[np.arange(len(dom)), dom]
        U, V = run.W[:, :M], run.W[:, M:]
        half = np.abs((U * U).sum(1) - 0.5)
        preds = np.array([np.nan if predict(G.components[c]) is None else predict(G.components[c]) for c in dom])
        err = np.abs(run.E - preds) / M
        err[np.isnan(preds)] = 0.0  # quaternionic irreps: SPEC 9 predicts no value; their E is recorded below
        # second order: no random tangent step of length 1e-3 raises E
        rng = np.random.default_rng(seed + 1)
        D = rng.standard_normal(run.W.shape)
        D -= np.einsum("si,si->s", D, run.W)[:, None] * run.W
        D /= np.linalg.norm(D, axis=1, keepdims=True)
        rise = []
        for eps in (1e-3, -1e-3):
            Wp = run.W + eps * D
            Wp /= np.linalg.norm(Wp, axis=1, keepdims=True)
            rise.append(energy(Wp, G) - run.E)
        rise = np.max(rise, axis=0) / M
        ok_each = (run.converged & (1 - purity <= TOL_PURITY) & (err <= TOL_E) & (half <= 1e-6) & (rise <= 1e-12))
        counts = np.bincount(dom, minlength=len(G.components))
    nontriv = [i for i, c in enumerate(G.components) if c.kind != "trivial"]
    per_comp = [{"component": G.components[i].label, "kind": G.components[i].kind,
                 "E_star": predict(G.components[i]), "reached": int(counts[i]),
                 "E_mean": float(run.E[dom == i].mean()) if counts[i] else None} for i in range(len(G.components))]
    missing = [G.components[i].label for i in nontriv if counts[i] == 0]
    res = float(np.nanmax(np.concatenate([err, 1 - purity, half]))) if len(err) else 0.0
    r1 = TheoremResult(
        name="2. every ascent ends at a single-irrep maximum with E*", method="numeric",
        statement=f"{len(dom)} uniform random starts on the unit sphere of R^{2 * M}, projected gradient ascent "
                  f"(step 1/M, {run.steps} steps, stop at |grad_R E| <= 1e-10 M): every end point lies in one isotypic "
                  f"component (mass outside <= {TOL_PURITY:g}), has |u|^2 = |v|^2 = 1/2 (+-1e-6), |E - E*| <= {TOL_E:g} M "
                  "with E* = M/(8 d_k) real, M/(16 d_k) complex pair (quaternionic: no prediction, E recorded), and no random tangent step of 1e-3 raises E "
                  "by more than 1e-12 M (SPEC 9)",
        passed=bool(ok_each.all()), residual=res, seconds=t.seconds,
        details={"starts": len(dom), "failed_starts": int((~ok_each).sum()), "steps": run.steps,
                 "max_rise_over_M": float(rise.max()), "components": per_comp})
    r2 = TheoremResult(
        name="2. every irrep's maximum is reached from some start", method="numeric",
        statement=f"each of the {len(nontriv)} non-trivial isotypic components of {G.name} is where at least one of "
                  f"the {len(dom)} ascents ends; the trivial irrep carries no energy (Y~ is zero-mean) and is never reached",
        passed=not missing and all(counts[i] == 0 for i, c in enumerate(G.components) if c.kind == "trivial"),
        residual=float(len(missing)), seconds=0.0,
        details={"reached": {G.components[i].label: int(counts[i]) for i in range(len(G.components))},
                 "missing": missing})
    return [r1, r2]


# ------------------------------------------------------------------------- negative controls
def control_mixture_exact(group: Any) -> TheoremResult:
    """``E(a w1 + b w2) = E*(a^4 + b^4)`` exactly (two frequencies): the mixture a = b is a minimum along the circle.

    Returns
    -------
    TheoremResult
        A negative control, passed when the mixture's exact energy is ``E*/2``, below ``E*``.

    Examples
    --------
    >>> r = control_mixture_exact(5)                     # a negative control: it passes by showing the failure
    >>> r.passed, r.negative_control, r.details["E_mix"], r.details["E_star"]
    (True, True, '5/32', '5/16')
    """
    G = li2_group(group)
    with Timer() as t:
        comps = [c for c in G.components if c.kind == "complex"]
        if len(comps) < 2:
            comps = [c for c in G.components if c.kind != "trivial"]
        c1, c2 = comps[0], comps[1]
        k1, k2 = _component_freq(G, c1), _component_freq(G, c2)
        E1 = exact_energy_abelian(G, [(1, k1, 0)], [(1, k1, 0)])
        E2 = exact_energy_abelian(G, [(1, k2, 0)], [(1, k2, 0)])
        # w(a, b) = a w1 + b w2 with |w1| = |w2| (both u_g = 2 cos): E(a, b) |w(a,b)|^4 / |w1|^4 is a quartic form
        pts = [(1, 0), (0, 1), (1, 1), (1, -1), (1, 2), (2, 1), (4, 3)]
        a, b = sympy.symbols("a b")
        vals = {}
        for (x, y) in pts:
            E = exact_energy_abelian(G, [(x, k1, 0), (y, k2, 0)], [(x, k1, 0), (y, k2, 0)])
            vals[(x, y)] = E
        # E(w(x,y)/|w|) * (x^2 + y^2)^2 must equal E1 x^4 + E2 y^4 at all 7 points (a quartic form is fixed by 5)
        form = lambda x, y: E1 * x ** 4 + E2 * y ** 4
        mism = [str((x, y)) for (x, y) in pts if sympy.simplify(vals[(x, y)] * (x * x + y * y) ** 2 - form(x, y)) != 0]
        mix = vals[(1, 1)]
        moved = vals[(4, 3)]
        ascent = sympy.simplify(moved - mix)
        caught = not mism and ascent > 0
    return TheoremResult(
        name="mixture of two irreps is not a local max", method="exact", negative_control=True,
        statement=f"w_mix = (w1 + w2)/sqrt2 mixing {c1.label} and {c2.label} of {G.name}: "
                  "E(cos t w_mix + sin t (w1 - w2)/sqrt2) = E*/2 (1 + sin^2 2t) (the quartic form E*(a^4 + b^4), "
                  "fixed exactly by 7 evaluations in Z[zeta_L]); the direction (w1 - w2) raises E at second order, "
                  "e.g. E(4 w1 + 3 w2 normalized) = 337/625 E* > E*/2 = E(w_mix)",
        passed=bool(caught), residual=float(ascent), seconds=t.seconds,
        details={"E_mix": str(mix), "E_moved_4_3": str(moved), "E_star": str(E1), "mismatched_points": mism,
                 "ascent_direction": "w1 - w2", "failing_conditions": ["local maximum"] if caught else []})


def control_mixture_numeric(group: Any, run=None, seed: int = 0) -> TheoremResult:
    """Two maxima from different components, mixed: an ascent direction is exhibited and ascent leaves the mixture.

    Returns
    -------
    TheoremResult
        The numeric mixture control; ``details`` holds the energy reached by the ascent from the mixture.

    Examples
    --------
    >>> r = control_mixture_numeric(5)
    >>> r.passed, r.details["failing_conditions"], round(r.details["E_after_ascent"], 9)   # ascent reaches E* = 5/16
    (True, ['local maximum'], 0.3125)
    """
    G = li2_group(group)
    M = G.order
    with Timer() as t:
        run = run or _ascent_run(G, _default_starts(G), seed)
        dom = G.component_masses(run.W).argmax(1)
        firsts = {}
        for i, c in enumerate(dom):
            if G.components[c].kind != "trivial":
                firsts.setdefault(int(c), i)
        (c1, i1), (c2, i2) = list(firsts.items())[:2]
        w1, w2 = run.W[i1], run.W[i2]
        w = (w1 + w2) / np.linalg.norm(w1 + w2)
        d = (w1 - w2) / np.linalg.norm(w1 - w2)
        E0, g = riemannian_gradient(w, G)
        rises = {}
        for tt in (1e-2, -1e-2):
            rises[tt] = energy(math.cos(tt) * w + math.sin(tt) * d, G) - float(E0[0])
        best = max(rises.values())
        rng = np.random.default_rng(seed + 7)
        after = ascend(w[None, :] + 1e-6 * rng.standard_normal((1, 2 * M)), G)
        mass = G.component_masses(after.W)[0]
        left = float(after.E[0]) > float(E0[0]) * (1 + 1e-6) and mass.max() > 1 - 1e-6
        caught = best > 1e-10 * M and left
    return TheoremResult(
        name="mixture of two irreps is not a local max", method="numeric", negative_control=True,
        statement=f"w_mix = (w1 + w2)/|w1 + w2| for ascent end points w1 in {G.components[c1].label}, w2 in "
                  f"{G.components[c2].label}: along the geodesic toward w1 or w2 (t = +-0.01) E rises by more than "
                  "1e-10 M, and ascent from w_mix + 1e-6 noise ends in a single component at higher E",
        passed=bool(caught), residual=float(best), seconds=t.seconds,
        details={"E_mix": float(E0[0]), "grad_norm_at_mix": float(np.linalg.norm(g)), "rise": float(best),
                 "E_after_ascent": float(after.E[0]), "failing_conditions": ["local maximum"] if caught else []})


def control_wrong_prediction(group: Any, run=None, seed: int = 0) -> TheoremResult | None:
    """The convergence check with a mutated theory (E* = M/8 for every non-trivial irrep: no 1/d_k, no complex
    halving) must fail; None when that equals SPEC 9's value everywhere (only real irreps of dimension 1).

    Returns
    -------
    TheoremResult or None
        Caught when the convergence row fails under the mutated E*; None when nothing differs.

    Examples
    --------
    >>> r = control_wrong_prediction(5)                  # M/8 instead of M/16 for the complex pairs of Z_5
    >>> r.passed, r.negative_control, r.details["failing_conditions"]
    (True, True, ['E = E*'])
    >>> control_wrong_prediction(2) is None              # Z_2: one real irrep of dimension 1, nothing to mutate
    True
    """
    G = li2_group(group)
    if not any(c.kind == "complex" or (c.kind == "real" and c.dim > 1) for c in G.components):
        return None
    with Timer() as t:
        wrong = lambda c: G.order / 8.0 if c.kind in ("complex", "real") else c.predicted
        r = theorem2_numeric(G, run=run or _ascent_run(G, _default_starts(G), seed), predict=wrong)[0]
    return TheoremResult(
        name="E* = M/8 claimed for every irrep", method="numeric", negative_control=True,
        statement="the ascent check of Theorem 2 run against a wrong E* (M/8 for complex pairs and for irreps of "
                  "dimension d_k > 1 too) must fail",
        passed=not r.passed, residual=r.residual, seconds=t.seconds,
        details={"failed_starts": r.details["failed_starts"], "failing_conditions": ["E = E*"] if not r.passed else []})


# ------------------------------------------------------------------------- Theorem 3
def _abelian_nodes(G: Li2Group, drop: int | None = None) -> np.ndarray:
    """4 nodes per complex pair ((a, b) in {(1,1), (i,-i), (1,i), (i,1)}), 1 per real irrep: u = Re(a chi), v = Re(b chi)."""
    chi = G.abelian.characters
    nodes = []
    for ci, comp in enumerate(G.components):
        if comp.kind == "trivial" or ci == drop:
            continue
        x = chi[comp.irreps[0]]
        pairs = [(1, 1)] if comp.kind == "real" else [(1, 1), (1j, -1j), (1, 1j), (1j, 1)]
        for a, b in pairs:
            w = np.concatenate([(a * x).real, (b * x).real])
            nodes.append(w / np.linalg.norm(w))
    return np.asarray(nodes, dtype=np.float64).reshape(-1, 2 * G.order)   # (0, 2M) when nothing is left (Z_2)


def _features(G: Li2Group, nodes: np.ndarray) -> np.ndarray:
    """``F[(g,h), j] = sigma(x_{gh} . w_j) = (u_g + v_h)^2 / 2`` (unit-norm inputs), shape (M^2, K)."""
    M = G.order
    U, V = nodes[:, :M], nodes[:, M:]
    return (0.5 * (U.T[:, None, :] + V.T[None, :, :]) ** 2).reshape(M * M, -1)


def _target(G: Li2Group) -> np.ndarray:
    M = G.order
    Y = np.zeros((M * M, M))
    Y[np.arange(M * M), G.table.reshape(-1)] = 1.0
    return Y - Y.mean(0, keepdims=True)


def _reconstruct(G: Li2Group, nodes: np.ndarray) -> tuple[float, float]:
    F = _features(G, nodes)
    Ft = F - F.mean(0, keepdims=True)
    Yt = _target(G)
    C, *_ = np.linalg.lstsq(Ft, Yt, rcond=None)
    out = Ft @ C
    rel = float(np.linalg.norm(out - Yt) / np.linalg.norm(Yt))
    acc = float((out.argmax(1) == G.table.reshape(-1)).mean())
    return rel, acc


#: Row 3 on a group that is not Abelian: ascents started in each component ``c``, this many times SPEC 9's count
#: ``K_c = 2 sum_{k in c} m_k^2 d_k^2`` (``m_k = d_k``); random maxima at exactly ``K_c`` span nearly degenerately
#: (relative residual 3e-6 on SmallGroup(16,8)), twice it spans to 1e-15 on every group tried.
NODE_MARGIN = 2


def node_count(comp: Any) -> int:
    """SPEC 9's node count for one isotypic component: ``2 sum_{k in c} m_k^2 d_k^2`` with ``m_k = d_k``.

    Summed over the non-trivial components it is ``K = 2 sum_k d_k^4``: ``2M - 2`` for an Abelian group.

    Returns
    -------
    int
        ``2 d^4`` per irrep of the component (a complex pair holds two).

    Examples
    --------
    >>> from cogo.li2.energy import li2_group
    >>> [node_count(c) for c in li2_group("S3").components[1:]]          # sign (d = 1), the 2-dimensional irrep
    [2, 32]
    """
    return 2 * len(comp.irreps) * int(comp.dim) ** 4


def _component_nodes(G: Li2Group, seed: int, drop: int | None = None) -> np.ndarray:
    """End points of :data:`NODE_MARGIN` x :func:`node_count` ascents started in each non-trivial component."""
    M = G.order
    out = []
    for ci, comp in enumerate(G.components):
        if comp.kind == "trivial" or ci == drop:
            continue
        W0 = random_sphere(NODE_MARGIN * node_count(comp), M, seed + 7919 * (ci + 1))
        W0 = np.concatenate([W0[:, :M] @ comp.projector, W0[:, M:] @ comp.projector], axis=1)
        W0 /= np.linalg.norm(W0, axis=1, keepdims=True)
        out.append(ascend(W0, G).W)
    return np.concatenate(out) if out else np.zeros((0, 2 * M))


def _drop_control(G: Li2Group, nodes_without: Any) -> TheoremResult:
    """The reconstruction without the nodes of one component: the residual is that component's share of Y~."""
    drop = next(i for i, c in enumerate(G.components) if c.kind != "trivial")
    comp = G.components[drop]
    M = G.order
    with Timer() as t:
        nodes = nodes_without(drop)
        rel, acc = _reconstruct(G, nodes)
    # irrep k carries d_k^2/(M-1) of |Y~|^2: the missing component leaves sqrt(sum_{k in c} d_k^2 / (M-1))
    want = math.sqrt(len(comp.irreps) * comp.dim ** 2 / (M - 1))
    return TheoremResult(
        name=f"nodes missing {comp.label} cannot reconstruct", method="numeric", negative_control=True,
        statement=f"the same construction without the nodes of {comp.label}: relative residual "
                  f"sqrt(sum_k d_k^2/(M-1)) = {want:.6g} (irrep k carries d_k^2/(M-1) of |Y~|^2), not 0",
        passed=rel > 1e-3 and abs(rel - want) <= 1e-9, residual=rel, seconds=t.seconds,
        details={"nodes": len(nodes), "relative_residual": rel, "predicted": want,
                 "failing_conditions": ["reconstruction"]})


def theorem3(group: Any, run=None, seed: int = 0) -> list[TheoremResult]:
    """Nodes at the maxima span every irrep; the ridge-free top layer reconstructs Y~ exactly (numeric).

    Abelian groups: the 4 constructed nodes per complex pair, 1 per real irrep
    (``2M - 2`` for odd ``M``).  Other groups: in each non-trivial isotypic
    component ``c``, :data:`NODE_MARGIN` x :func:`node_count` projected ascents
    started from random points of that component (the ascent keeps a point in
    its component) and run to their maxima (``run``, the shared random-start
    ascent of Theorem 2, is not used: random starts reach small components
    rarely, 128 of them reconstruct SmallGroup(21,1) to 0.63 only).

    Returns
    -------
    list of TheoremResult
        Two rows: the reconstruction from nodes at the maxima, then the control without one component.

    Examples
    --------
    >>> rows = theorem3(5)
    >>> [(r.passed, r.negative_control) for r in rows], round(rows[1].residual, 6)   # sqrt(2/(M-1)) without k = +-1
    ([(True, False), (True, True)], 0.707107)
    >>> [(r.passed, r.details["nodes"]) for r in theorem3("S3")]        # 2 x (2 + 32) nodes; without the sign's
    [(True, 68), (True, 64)]
    """
    G = li2_group(group)
    M = G.order
    with Timer() as t:
        if G.abelian is not None:
            nodes = _abelian_nodes(G)
            how = ("4 nodes per complex pair, u = Re(a chi_k), v = Re(b chi_k) with (a, b) in {(1,1), (i,-i), (1,i), "
                   "(i,1)}, 1 node per real irrep")
        else:
            nodes = _component_nodes(G, seed)
            K = sum(node_count(c) for c in G.components if c.kind != "trivial")
            how = (f"in each non-trivial component c, {NODE_MARGIN} x 2 sum_(k in c) d_k^4 ascents started at random "
                   f"points of c and run to their maxima; SPEC 9's K = 2 sum_k m_k^2 d_k^2 = {K} (m_k = d_k), "
                   f"times {NODE_MARGIN}")
        rel, acc = _reconstruct(G, nodes)
    out = [TheoremResult(
        name="3. maxima nodes reconstruct the target", method="numeric",
        statement=f"{len(nodes)} nodes ({how}); F~ = centred features sigma(X w_j) over all {M * M} pairs, top layer "
                  f"C = lstsq(F~, Y~): |F~C - Y~|_F / |Y~|_F <= {TOL_RECON:g} and argmax recovers g h on every pair (SPEC 9)",
        passed=rel <= TOL_RECON and acc == 1.0, residual=rel, seconds=t.seconds,
        details={"nodes": len(nodes), "relative_residual": rel, "accuracy": acc})]
    if G.abelian is not None:
        out.append(_drop_control(G, lambda drop: _abelian_nodes(G, drop=drop)))
    else:
        out.append(_drop_control(G, lambda drop: _component_nodes(G, seed, drop=drop)))
    return out


# ------------------------------------------------------------------------- Lemma 1
def gradient_ridge(F: np.ndarray, Yt: np.ndarray, eta: float) -> np.ndarray:
    """``G_F = eta (F~F~^T + eta I)^-1 Y~Y~^T F~ (F~^T F~ + eta I)^-1`` (SPEC 9); ``eta = 0``: the limit, R C^T
    with the least-squares residual ``R = Y~ - F~ F~^+ Y~`` and ``C = F~^+ Y~``.

    Returns
    -------
    numpy.ndarray
        ``G_F``, the shape of ``F`` (pairs x nodes).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> F = rng.normal(size=(6, 8))                      # 8 nodes on 6 pairs: F~ spans every zero-mean target
    >>> Yt = rng.normal(size=(6, 2))
    >>> Yt -= Yt.mean(axis=0)
    >>> float(np.linalg.norm(gradient_ridge(F, Yt, 0.0))) < 1e-10, float(np.linalg.norm(gradient_ridge(F, Yt, 1.0))) > 0.01
    (True, True)
    """
    Ft = F - F.mean(0, keepdims=True)
    if eta == 0:
        C, *_ = np.linalg.lstsq(Ft, Yt, rcond=None)
        return (Yt - Ft @ C) @ C.T
    n = Ft.shape[0]
    A = Ft @ Ft.T + eta * np.eye(n)
    # push-through: F~ (F~^T F~ + eta)^-1 = (F~ F~^T + eta)^-1 F~
    Z = np.linalg.solve(A, Yt)
    return eta * Z @ (Yt.T @ np.linalg.solve(A, Ft))


def lemma1(group: Any, seed: int = 0) -> list[TheoremResult]:
    """Lemma 1 numerically: no feature learning at eta = 0; G_F -> 0 as eta or the width grows.

    Returns
    -------
    list of TheoremResult
        Three numeric rows: ``G_F = 0`` at ``eta = 0``, and its decay in ``eta`` and in the width.

    Examples
    --------
    >>> [r.passed for r in lemma1(5)]
    [True, True, True]
    """
    G = li2_group(group)
    M = G.order
    n = M * M
    Yt = _target(G)
    rows = []
    rng = np.random.default_rng(seed)

    def feats(K):
        return _features(G, random_sphere(K, M, int(rng.integers(2**31))))

    with Timer() as t:
        F = feats(n + 8)
        g0 = float(np.linalg.norm(gradient_ridge(F, Yt, 0.0)))
        g1 = float(np.linalg.norm(gradient_ridge(F, Yt, 1.0)))
    rows.append(TheoremResult(
        name="Lemma 1. eta = 0: no feature learning", method="numeric",
        statement=f"K = n + 8 = {n + 8} random unit nodes on all n = {n} pairs (F~ spans the zero-mean targets): "
                  f"|G_F(eta=0)|_F <= 1e-9 |G_F(eta=1)|_F (SPEC 9)",
        passed=g0 <= 1e-9 * g1, residual=g0 / g1, seconds=t.seconds, details={"G0": g0, "G1": g1}))

    with Timer() as t:
        F = feats(max(8, M))
        Ft = F - F.mean(0, keepdims=True)
        etas = [1e3, 1e4, 1e5, 1e6]
        norms, cos = [], []
        ref = Yt @ (Yt.T @ Ft)
        for eta in etas:
            Gf = gradient_ridge(F, Yt, eta)
            norms.append(float(np.linalg.norm(Gf)))
            cos.append(float((Gf * ref).sum() / (np.linalg.norm(Gf) * np.linalg.norm(ref))))
        slope = float(np.polyfit(np.log(etas), np.log(norms), 1)[0])
    rows.append(TheoremResult(
        name="Lemma 1. eta large: G_F -> 0, along Y~Y~^T F~", method="numeric",
        statement=f"K = {F.shape[1]} random nodes, eta in {etas}: log|G_F| vs log eta has slope -1 (+-0.05) and "
                  "cos(G_F, Y~Y~^T F~) >= 1 - 1e-3 at the largest eta (SPEC 9)",
        passed=abs(slope + 1) <= 0.05 and cos[-1] >= 1 - 1e-3, residual=abs(slope + 1), seconds=t.seconds,
        details={"eta": etas, "norm": norms, "cos": cos, "slope": slope}))

    with Timer() as t:
        widths = [2 * n, 4 * n, 8 * n]
        norms = [float(np.linalg.norm(gradient_ridge(feats(K), Yt, 0.1))) for K in widths]
        slope = float(np.polyfit(np.log(widths), np.log(norms), 1)[0])
        mono = all(b < a for a, b in zip(norms, norms[1:]))
    rows.append(TheoremResult(
        name="Lemma 1. width large: G_F -> 0", method="numeric",
        statement=f"eta = 0.1, K in {widths} random unit nodes: |G_F|_F strictly decreases, log-log slope -3/2 (+-0.25) "
                  "(|(F~F~^T + eta)^-1| ~ 1/K, |F~| ~ sqrt K) (SPEC 9)",
        passed=mono and abs(slope + 1.5) <= 0.25, residual=abs(slope + 1.5), seconds=t.seconds,
        details={"widths": widths, "norm": norms, "slope": slope}))
    return rows


# ------------------------------------------------------------------------- the registry
def _abelian(G: Li2Group) -> bool:
    return G.abelian is not None


def _lemma1_fits(G: Li2Group) -> bool:
    return G.order ** 2 <= LEMMA1_MAX_PAIRS


def _two_irreps(G: Li2Group) -> bool:
    return sum(c.kind != "trivial" for c in G.components) >= 2


_EXACT = (_abelian, "exact rows need an Abelian group")
_TWO = (_two_irreps, "needs two non-trivial irreps to mix")

#: Every Li^2 row, in the order ``cogo verify --theory li2`` prints them (rows of :class:`cogo.proofs.rows.Row`):
#: :func:`run_li2` and :func:`skipped_li2` are queries over it.  The numeric rows share one ascent run.
LI2_THEOREMS: tuple[Row, ...] = (
    Row(2, "E at each irrep's maximum = E*", "SPEC 9", "theorem2_exact", requires=(_EXACT,), module=__name__,
        methods=("exact",)),
    Row(2, "every ascent ends at a single-irrep maximum; every maximum reached", "SPEC 9", "theorem2_numeric",
        module=__name__, methods=("numeric",), shared=("run", "seed")),
    Row(3, "maxima nodes reconstruct the target", "SPEC 9", "theorem3", module=__name__, methods=("numeric",),
        shared=("run", "seed")),
    Row("Lemma 1", "G_F at eta = 0, eta large, width large", "SPEC 9", "lemma1",
        requires=((_lemma1_fits, f"needs M^2 <= {LEMMA1_MAX_PAIRS} pairs"),), module=__name__,
        methods=("numeric",), shared=("seed",)),
    Row("control", "mixture of two irreps is not a local max", "SPEC 9", "control_mixture_exact",
        requires=(_EXACT, _TWO), module=__name__, methods=("exact",)),
    Row("control", "mixture of two irreps is not a local max", "SPEC 9", "control_mixture_numeric",
        requires=(_TWO,), module=__name__, methods=("numeric",), shared=("run", "seed")),
    Row("control", "E* = M/8 claimed for every irrep", "SPEC 9", "control_wrong_prediction", requires=(_TWO,),
        module=__name__, methods=("numeric",), shared=("run", "seed")),
)


def skipped_li2(group: Any, method: str = "both") -> list[str]:
    """The rows of :data:`LI2_THEOREMS` that :func:`run_li2` does not run on ``group``, each with its reason.

    Returns
    -------
    list of str
        One line per row (and method) not run; empty when every row runs.

    Examples
    --------
    >>> skipped_li2(5), skipped_li2("S3")
    ([], ["2. E at each irrep's maximum = E*, exact (exact rows need an Abelian group)", 'control: mixture of two irreps is not a local max, exact (exact rows need an Abelian group)'])
    >>> skipped_li2(3, method="numeric")            # Z_3: one complex pair, nothing to mix
    ['control: mixture of two irreps is not a local max, numeric (needs two non-trivial irreps to mix)', 'control: E* = M/8 claimed for every irrep, numeric (needs two non-trivial irreps to mix)']
    """
    return skipped_rows(LI2_THEOREMS, li2_group(group), method)


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def run_li2(group: Any = 23, method: str = "both", starts: int | None = None, seed: int = 0,
            progress: Callable | None = None) -> list[TheoremResult]:
    """Every Li^2 check of SPEC 9 on ``group`` (exact, numeric or both), controls included.

    Returns
    -------
    list of TheoremResult
        The rows of :data:`LI2_THEOREMS` that apply, in its order (theorem 2, theorem 3, Lemma 1, the
        controls), ``progress(row)`` called after each.

    Examples
    --------
    >>> rows = run_li2(5, starts=8)
    >>> len(rows), all(r.passed for r in rows), sorted({r.method for r in rows})
    (11, True, ['exact', 'numeric'])
    """
    methods = methods_of(method)
    G = li2_group(group)
    out: list[TheoremResult] = []
    shared: dict[str, Any] = {"seed": seed}
    for row in LI2_THEOREMS:
        if not set(row.methods) & set(methods) or not row.applies(G):
            continue
        ascent = 0.0
        if "run" in row.shared and "run" not in shared:   # the one ascent run the numeric rows share
            with Timer() as t:
                shared["run"] = _ascent_run(G, starts or _default_starts(G), seed)
            ascent = t.seconds
        rs = row.fn(G, **row.kwargs, **{k: shared[k] for k in row.shared})
        rs = [r for r in ([rs] if isinstance(rs, TheoremResult) or rs is None else rs) if r is not None]
        if rs:
            rs[0].seconds += ascent   # the ascent's time is on the first row that needed it
        for r in rs:
            out.append(r)
            if progress is not None:
                progress(r)
    return out
