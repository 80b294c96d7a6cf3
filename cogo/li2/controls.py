"""Negative controls of the Li^2 checks (SPEC 9): a mixture of two irreps is not a maximum, and a wrong
prediction of ``E*`` is caught.

Each is a row of :data:`cogo.li2.theorems.LI2_THEOREMS`; :func:`cogo.li2.theorems.run_li2` runs them with the
theorems.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

from cogo.proofs.results import TheoremResult, Timer
from cogo.li2.energy import ascend, energy, li2_group, riemannian_gradient
from cogo.li2.theorems import _ascent_run, _component_freq, _default_starts, exact_energy_abelian, theorem2_numeric

__all__ = ["control_mixture_exact", "control_mixture_numeric", "control_wrong_prediction"]


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
