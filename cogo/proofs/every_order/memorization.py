"""z_M (SPEC 7.4) optimal for every order ``d >= 2``: its general loss by character sums with ``d`` symbolic.

Node ``(j1, j2)`` of ``z_M = d^(-2/3) . U_a * U_b`` has entries
``zeta_d^(alpha_p k j1 + beta_p k j2)`` in layer ``p``; the exponents
``alpha = (-1, 0, 1)`` and ``beta = (0, -1, 1)`` are read off the library's
factors :func:`cogo.solvers.constructions.mem_factors` (checked at every
``k, j`` for ``d = 3..9``, where the coefficients -1, 0, 1 differ) and the scale off :func:`~cogo.solvers.constructions.z_M`
(``d = 2, 3, 4``, entry by entry).  A potential is then a product of two
character sums, ``d^(-2) sum_{j1} zeta^(j1 L1) sum_{j2} zeta^(j2 L2) = d^(-2) d [L1 = 0] d [L2 = 0]``,
with ``L1, L2`` linear forms in its frequencies: ``r[k1, k2, k] = [k1 = k][k2 = k]``,
``r_p[k1, k2, k] = d^(-1) [k1 + k2 = k][k = 0]``.  Every sum of the general
loss of SPEC 5 (over ``k1, k2 != 0``, ``k'``, ``m != 0``) is taken by the rules
of :mod:`cogo.proofs.every_order.collisions`, so ``l_k`` comes out in closed form in ``d``
for every ``k != 0`` (here ``-1``) and the loss ``((d - 1) l_k)/d + 1 - 1/d`` is 0.

The controls use the same computation on broken versions: the output weights
doubled (every potential doubled: ``l_k = -4 + 4 = 0``, loss ``(d - 1)/d``) and
node ``(0, 0)`` removed (every potential minus ``d^(-2)``: loss
``(d - 1)(d + 7)/(2 d^3)``, derived by hand in :mod:`cogo.proofs.controls.broken_constructions`).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import numpy as np
import sympy

from cogo.algebra.groups import root_of_unity
from cogo.solvers import constructions as C
from cogo.proofs.every_order.collisions import D, Bracket, Unresolved, character_sum, fadd, fscale, form, fstr, sum_over
from cogo.proofs.certificates.exact_zero import decide_zero

__all__ = ["mem_exponents", "mem_loss", "MEM_CONTROLS", "FIT_ORDERS"]

#: Orders at which the exponents of the library's factors are read and checked.
FIT_ORDERS = tuple(range(3, 10))
#: The z_M controls: name -> (output scale, node (0, 0) removed, hand-derived loss for every d >= 2).
MEM_CONTROLS = {
    "z_M, output weights doubled": (2, False, (D - 1) / D),
    "z_M without node (0, 0)": (1, True, (D - 1) * (D + 7) / (2 * D ** 3)),
}


def _fit(E: np.ndarray, d: int) -> int | None:
    """The ``t`` with ``E[k, j] = t k j (mod d)`` for every ``k, j`` (as ``-1, 0, 1, ...``), or None."""
    k, j = np.meshgrid(np.arange(d), np.arange(d), indexing="ij")
    for t in range(d):
        if np.array_equal(E % d, (t * k * j) % d):
            return t if 2 * t < d else t - d
    return None


def mem_exponents() -> tuple:
    """The exponents ``(alpha, beta)`` of z_M's nodes, read off :func:`mem_factors` at :data:`FIT_ORDERS`.

    Returns
    -------
    alpha, beta : tuple of int
        Per layer ``(a, b, c)``, the coefficient of ``k j1`` (``U_a``) and ``k j2`` (``U_b``); and a list of
        problems (an order where the factors are not of this form, or the coefficients change with ``d``).
    """
    seen: dict = {}
    problems = []
    for d in FIT_ORDERS:
        for name, U in zip(("U_a", "U_b"), C.mem_factors(d)):
            ts = tuple(_fit(U.E[p], d) for p in range(3))
            if None in ts:
                problems.append(f"d = {d}: {name} is not zeta^(t k j) in every layer")
            seen.setdefault(name, set()).add(ts)
    if any(len(v) != 1 for v in seen.values()):
        problems.append(f"the exponents change with d: {seen}")
    alpha, beta = (next(iter(seen[n])) for n in ("U_a", "U_b"))
    for d in (2, 3, 4):
        z = C.z_M(d, exact=True).z
        s = sympy.Integer(d) ** sympy.Rational(-2, 3)
        for p in range(3):
            for k in range(d):
                for j1 in range(d):
                    for j2 in range(d):
                        e = (alpha[p] * k * j1 + beta[p] * k * j2) % d
                        if decide_zero(z[p, k, j1 * d + j2] - s * root_of_unity(d, e)) is not True:
                            problems.append(f"d = {d}: z_M entry ({p}, {k}, {j1}, {j2}) is not d^(-2/3) zeta^{e}")
    return alpha, beta, problems[:5]


def _potential(alpha, beta, layers: tuple, f1: tuple, f2: tuple, fk: tuple, scale, drop: bool) -> Bracket:
    """``sum_{j1, j2}`` of the node products in ``layers`` at ``(f1, f2, fk)``: ``scale d^(-2) d[L1] d[L2]``."""
    p1, p2 = layers
    L1 = fadd(fadd(fscale(f1, alpha[p1]), fscale(f2, alpha[p2])), fscale(fk, alpha[2]))
    L2 = fadd(fadd(fscale(f1, beta[p1]), fscale(f2, beta[p2])), fscale(fk, beta[2]))
    r = character_sum(L1) * character_sum(L2) * (scale * D ** -2)
    if drop:   # node (0, 0): every entry d^(-2/3), each potential d^(-2)
        r = r + Bracket.of(-scale * D ** -2)
    return r


def mem_loss(scale=1, drop: bool = False, exponents: tuple | None = None) -> dict:
    """The general loss of SPEC 5 of z_M (``scale``: output weights times it; ``drop``: without node (0, 0)).

    Returns
    -------
    dict
        ``l_k`` (the same at every ``k != 0``, a sympy expression in ``d``), ``loss`` and the brackets the sums
        left before ``k != 0`` removed them; or ``error`` when a sum could not be taken by the rules
        (:class:`~cogo.proofs.every_order.collisions.Unresolved`).
    """
    alpha, beta = exponents if exponents is not None else mem_exponents()[:2]
    k, z = form(k=1), ()
    half = sympy.Rational(1, 2)

    def pot(layers, f1, f2):
        return _potential(alpha, beta, layers, f1, f2, k, scale, drop)

    try:
        rkkk = pot((0, 1), k, k)
        lk = (rkkk + rkkk.conj()) * -1
        lk = lk + sum_over(sum_over(pot((0, 1), form(k1=1), form(k2=1)).abs2(), "k1", True), "k2", True)
        kp, mkp = form(kp=1), fadd(form(m=1), form(kp=-1))
        selfs = [sum_over(pot((p, p), kp, fscale(kp, -1)), "kp") for p in (0, 1)]
        lk = lk + (pot((0, 1), z, z) + (selfs[0] + selfs[1]) * half).abs2()
        for p, (f1, f2) in ((0, (form(m=1), z)), (1, (z, form(m=1)))):
            inner = pot((0, 1), f1, f2) + sum_over(pot((p, p), kp, mkp), "kp") * half
            lk = lk + sum_over(inner.abs2(), "m", True)
        left = sorted({fstr(b) for bs, _ in lk.terms for b in bs if b})   # relations the sums leave: [k = 0]
        lk = lk.simplify({"k"}).constant()
    except Unresolved as exc:
        return {"error": str(exc)}
    return {"l_k": sympy.factor(lk), "loss": sympy.factor(sympy.simplify((D - 1) * lk / D + 1 - 1 / D)),
            "brackets left by the sums": [f"[{b} = 0]: 0 as k != 0" for b in left]}
