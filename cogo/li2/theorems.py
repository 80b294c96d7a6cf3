"""The Li^2 theorems of SPEC 9 as checks (exact and numeric), with negative controls.

Every function returns :class:`cogo.proofs.results.TheoremResult` rows; every row (these, Theorem 3 of
:mod:`cogo.li2.reconstruction` and the negative controls of :mod:`cogo.li2.controls`) is in :data:`LI2_THEOREMS`,
and :func:`run_li2` runs them all (``cogo verify --theory li2``).

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
* Theorem 3, numeric (:mod:`cogo.li2.reconstruction`): nodes at the maxima, the top layer by least squares on
  the centred features, the target reconstructed.
* Lemma 1, numeric: ``G_F = 0`` at ``eta = 0`` (over-parameterized), ``G_F ~ 1/eta``
  and ``G_F ~ K^-3/2`` in the limits.

Tolerances (numeric rows) are stated in each row's ``statement``.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import sympy

from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.cyclotomic import Cyclotomic
from cogo.proofs.results import TheoremResult, Timer
from cogo.proofs.rows import Row, methods_of, skipped_rows
from cogo.li2.energy import Li2Group, ascend, energy, li2_group, random_sphere

__all__ = ["theorem2_exact", "theorem2_numeric", "lemma1", "run_li2", "skipped_li2", "LI2_THEOREMS", "predicted_energy",
           "exact_energy_abelian", "gradient_ridge"]

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
    A = G.as_product
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


# ------------------------------------------------------------------------- features and target (Theorem 3, Lemma 1)
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
    return G.as_product is not None


def _lemma1_fits(G: Li2Group) -> bool:
    return G.order ** 2 <= LEMMA1_MAX_PAIRS


def _two_irreps(G: Li2Group) -> bool:
    return sum(c.kind != "trivial" for c in G.components) >= 2


_EXACT = (_abelian, "exact rows need an Abelian group")
_TWO = (_two_irreps, "needs two non-trivial irreps to mix")
_CONTROLS = "cogo.li2.controls"   # the negative controls; Theorem 3 is cogo.li2.reconstruction

#: Every Li^2 row, in the order ``cogo verify --theory li2`` prints them (rows of :class:`cogo.proofs.rows.Row`):
#: :func:`run_li2` and :func:`skipped_li2` are queries over it.  The numeric rows share one ascent run.
LI2_THEOREMS: tuple[Row, ...] = (
    Row(2, "E at each irrep's maximum = E*", "SPEC 9", "theorem2_exact", requires=(_EXACT,), module=__name__,
        methods=("exact",)),
    Row(2, "every ascent ends at a single-irrep maximum; every maximum reached", "SPEC 9", "theorem2_numeric",
        module=__name__, methods=("numeric",), shared=("run", "seed")),
    Row(3, "maxima nodes reconstruct the target", "SPEC 9", "theorem3", module="cogo.li2.reconstruction",
        methods=("numeric",),
        shared=("run", "seed")),
    Row("Lemma 1", "G_F at eta = 0, eta large, width large", "SPEC 9", "lemma1",
        requires=((_lemma1_fits, f"needs M^2 <= {LEMMA1_MAX_PAIRS} pairs"),), module=__name__,
        methods=("numeric",), shared=("seed",)),
    Row("control", "mixture of two irreps is not a local max", "SPEC 9", "control_mixture_exact",
        requires=(_EXACT, _TWO), module=_CONTROLS, methods=("exact",)),
    Row("control", "mixture of two irreps is not a local max", "SPEC 9", "control_mixture_numeric",
        requires=(_TWO,), module=_CONTROLS, methods=("numeric",), shared=("run", "seed")),
    Row("control", "E* = M/8 claimed for every irrep", "SPEC 9", "control_wrong_prediction", requires=(_TWO,),
        module=_CONTROLS, methods=("numeric",), shared=("run", "seed")),
)


def skipped_li2(group: Any, method: str = "both") -> list[str]:
    """The rows of :data:`LI2_THEOREMS` that :func:`run_li2` does not run on ``group``, each with its reason.

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
