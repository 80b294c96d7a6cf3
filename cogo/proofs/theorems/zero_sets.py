"""Theorems 4-5 (SPEC 6-7): monomial sums compose, and the membership table of the catalogue factors.

A theorem function of the registry (:mod:`cogo.proofs.registry` states the contract every row keeps).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import sympy

import cogo.catalogue as catalogue
from cogo.algebra.potentials import MONOMIALS
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_syn, z_syn_ab, z_xi
from cogo.solvers.designs import _unit_point
from cogo.proofs.certificates.block_certificate import ZeroTest
from cogo.proofs.results import NUM_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import is_nonzero_proven
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)

__all__ = ["composition", "membership_table", "construction_blocks", "MONOMIAL_NAMES", "TABLE_SUMS"]


# --------------------------------------------------------------------------- 4. composition
MONOMIAL_NAMES = tuple(MONOMIALS)


def _concat(x: PartialSolution, y: PartialSolution) -> PartialSolution:
    return PartialSolution(f"{x.name} + {y.name}", *(np.concatenate([u, v]) for u, v in
                                                      ((x.a, y.a), (x.b, y.b), (x.c, y.c))))


def _catalogue_instances(exact: bool, rng) -> list:
    """The five factors of SPEC 7 (z_xi with both signs), parameters on the unit circle (z_nu also off it)."""
    if exact:
        u = [_unit_point(rng) for _ in range(5)]
        two = sympy.Integer(2)
    else:
        u = [complex(np.exp(1j * rng.uniform(-np.pi, np.pi))) for _ in range(5)]
        two = 2.0 * np.exp(1j * rng.uniform(-np.pi, np.pi))
    return [z_syn(exact=exact), z_syn_ab(u[0], u[1], exact=exact), z_nu(u[2], exact=exact), z_nu(two, exact=exact),
            z_nu_i(exact=exact), z_xi(u[3], 1, exact=exact), z_xi(u[4], -1, exact=exact)]


def _composition_generic(Z: ZeroTest) -> dict:
    """Row 4, exact: ``m(x*y) = m(x) m(y)`` and ``m(x+y) = m(x) + m(y)`` for 2-node x, y of independent symbols."""
    syms = {v: sympy.symbols(f"{v}1:3") for v in ("xa", "xb", "xc", "ya", "yb", "yc")}
    bars = {s: sympy.Symbol(f"{s.name}_bar") for group_ in syms.values() for s in group_}
    repl = {sympy.conjugate(s): b for s, b in bars.items()}

    def cj(e):
        return sympy.expand(sympy.conjugate(e).subs(repl))

    arr = {k: np.asarray(v, dtype=object) for k, v in syms.items()}
    gx = PartialSolution("x", arr["xa"], arr["xb"], arr["xc"])
    gy = PartialSolution("y", arr["ya"], arr["yb"], arr["yc"])
    sx, sy = gx.sums(conj=cj), gy.sums(conj=cj)
    sxy, sxpy = (gx * gy).sums(conj=cj), _concat(gx, gy).sums(conj=cj)
    return {"generic: m(x*y) = m(x) m(y) for all 11 monomials": all(Z(sxy[m] - sx[m] * sy[m]) for m in MONOMIAL_NAMES),
            "generic: m(x+y) = m(x) + m(y) for all 11 monomials": all(Z(sxpy[m] - sx[m] - sy[m])
                                                                      for m in MONOMIAL_NAMES)}


def _composition_pairs(facs: list, exact: bool, Z: ZeroTest, vanishes) -> tuple[dict, float]:
    """Row 4 on every ordered pair of catalogue factors: sums compose, zero sets give unions and intersections."""
    sums = [f.sums() for f in facs]
    zsets = [{m for m in MONOMIAL_NAMES if vanishes(s[m])} for s in sums]
    mult_ok = add_ok = union_ok = inter_ok = True
    worst = 0.0
    for i, x in enumerate(facs):
        for j, y in enumerate(facs):
            sp = (x * y).sums()
            ss = _concat(x, y).sums()
            for m in MONOMIAL_NAMES:
                dm = sp[m] - sums[i][m] * sums[j][m]
                da = ss[m] - sums[i][m] - sums[j][m]
                if exact:
                    mult_ok &= Z(dm)
                    add_ok &= Z(da)
                else:
                    sc = max(1.0, abs(sums[i][m]) * abs(sums[j][m]))
                    worst = max(worst, abs(dm) / sc, abs(da) / sc)
                    mult_ok &= abs(dm) / sc <= NUM_TOL
                    add_ok &= abs(da) / sc <= NUM_TOL
            zp = {m for m in MONOMIAL_NAMES if vanishes(sp[m])}
            zs = {m for m in MONOMIAL_NAMES if vanishes(ss[m])}
            union_ok &= (zsets[i] | zsets[j]) <= zp
            inter_ok &= (zsets[i] & zsets[j]) <= zs
    return {"catalogue pairs: m(x*y) = m(x) m(y)": bool(mult_ok),
            "catalogue pairs: m(x+y) = m(x) + m(y)": bool(add_ok),
            "catalogue pairs: Z(x*y) contains Z(x) | Z(y)": bool(union_ok),
            "catalogue pairs: Z(x+y) contains Z(x) & Z(y)": bool(inter_ok)}, worst


def _rn_counterexample(exact: bool, vanishes) -> bool:
    """R_n is a sum of two monomials, not inherited: x with |a|^2c = 1, |b|^2c = -1 and y with 1, 2 (by hand)."""
    one, zero_ = (sympy.Integer(1), sympy.Integer(0)) if exact else (1.0, 0.0)
    r2 = sympy.sqrt(2) if exact else np.sqrt(2.0)
    vec = (lambda v: np.asarray(v, dtype=object)) if exact else (lambda v: np.asarray(v, dtype=np.complex128))
    cx = PartialSolution("x", vec([one, zero_]), vec([zero_, one]), vec([one, -one]))
    cy = PartialSolution("y", vec([one]), vec([r2]), vec([one]))
    rn = lambda s: s["|a|^2 c + |b|^2 c"]  # noqa: E731
    rx, ry, rxy = rn(cx.sums()), rn(cy.sums()), rn((cx * cy).sums())
    return bool(vanishes(rx) and not vanishes(ry) and not vanishes(rxy))


def composition(group: Any = None, method: str = "exact", seed: int = 0) -> TheoremResult:
    """Theorem 4 (SPEC 6): monomial sums compose.

    For each of the eleven monomial sums ``m``: ``m(x * y) = m(x) m(y)`` and
    ``m(x + y) = m(x) + m(y)``; hence the zero set of a product contains the
    union of its factors' zero sets, and a sum keeps their intersection.
    Exact: a symbolic proof for generic 2-node partial solutions (entries and
    their conjugates independent symbols), then every ordered pair of
    catalogue factors with exact unit-circle parameters.  Numeric: the same
    pairs with random parameters, tolerance 1e-10.  The R_n sum (two
    monomials) is not inherited in general; a counterexample is recorded.
    ``group`` is unused (block sums do not depend on the group).

    Returns
    -------
    TheoremResult
        Row 4 (method ``exact-instances`` or ``numeric``), the same for every group.

    Examples
    --------
    >>> r = composition(method="numeric")                   # the exact proof takes about 2 s
    >>> r.name, r.passed
    ('4. composition of zero sets', True)
    """
    method = check_method(method)
    rng = np.random.default_rng(seed)
    exact = method == "exact"
    Z = ZeroTest()

    def vanishes(v):
        return is_zero_exact(v) if exact else abs(v) <= NUM_TOL

    with Timer() as t:
        checks = _composition_generic(Z) if exact else {}
        facs = _catalogue_instances(exact, rng)
        pairs, worst = _composition_pairs(facs, exact, Z, vanishes)
        checks.update(pairs)
        checks["R_n sum not inherited (counterexample: R_n(x)=0, R_n(x*y)=-1)"] = _rn_counterexample(exact, vanishes)
        passed = all(checks.values())
        if exact:
            worst = Z.worst
    stmt = ("Each of the 11 monomial sums is multiplicative under * and additive under +: the zero set of a product "
            "contains the union of its factors' zero sets, a sum keeps their intersection"
            + ("" if exact else "; complex128, relative tolerance 1e-10"))
    if exact:
        stmt += ("; proven symbolically for 2-node x, y with independent symbolic entries and conjugates, checked "
                 "on every ordered pair of catalogue factors with exact unit-circle parameters (instances)")
    return make_result("4. composition of zero sets", stmt, "exact-instances" if exact else method, passed, worst, t,
                       checks=checks, factors=[f.name for f in facs])


# --------------------------------------------------------------------------- 5. membership table
_RC = ["conj(a) b c", "a conj(b) c", "a b conj(c)", "conj(a) conj(b) c"]
_RS = ["a^2 c", "b^2 c", "conj(a)^2 c", "conj(b)^2 c"]
_RN = "|a|^2 c + |b|^2 c"
#: The sums of the membership table: the eleven monomials of SPEC 6 and the R_n sum.
TABLE_SUMS = MONOMIAL_NAMES + (_RN,)


def construction_blocks() -> dict:
    """The catalogue products a construction of SPEC 7 uses, and the sums each must make vanish.

    ``{label: (roles, needed sums)}`` from the catalogue registry (:class:`cogo.catalogue.Product`:
    ``construction`` and ``needs``); by composition (row 4) a product's zero set contains the union of
    its factors' zero sets.

    Returns
    -------
    dict
        ``label -> (roles, needed sums)`` for every product a construction uses.

    Examples
    --------
    >>> construction_blocks()["z_F6 block z_syn * z_nu (7.1)"][0]
    ('z_nu', 'z_syn')
    """
    return {p.construction: (tuple(p.roles), list(p.needs)) for p in catalogue.products() if p.construction}


def _catalogue_factors(method: str, rng) -> list:
    """(row name, family name, partial solution, conj, witness points) of every registered family.

    Each family's rows come from :class:`cogo.catalogue.Family` ``rows``.  Exact: symbolic
    parameters (alpha, beta, xi on the unit circle via ``conj(x) = 1/x``; nu any nonzero number
    with an independent conjugate ``nu_bar``); ``points`` are the substitutions tried as witnesses
    that a sum is not identically 0.  Numeric: random parameters.
    """
    return [(row, fam.name, part, conj, points) for fam in catalogue.families() if fam.rows is not None
            for row, part, conj, points in fam.rows(method, rng)]


def _decide(value, points: list) -> tuple[str, Any]:
    """``("zero", None)`` if proven identically 0, ``("nonzero", witness)`` if nonzero at an admissible point
    (exact), ``("undecided", None)`` otherwise."""
    if is_zero_exact(value):
        return "zero", None
    for pt in points:
        v = sympy.expand(sympy.sympify(value).subs(pt)) if pt else value
        if not v.free_symbols and is_nonzero_proven(v):
            return "nonzero", {str(k): str(x) for k, x in pt.items()}
    return "undecided", None


def membership_table(group: Any = None, method: str = "exact", seed: int = 0,
                     factors: list | None = None) -> TheoremResult:
    """Theorem 5 (SPEC 7 table): the membership table of the catalogue factors, derived from cogo.catalogue.partial.

    For each factor built by :mod:`cogo.catalogue.partial` (the one definition
    of the catalogue forms) the eleven monomial sums of SPEC 6 and the R_n
    sum are computed; each is proven identically 0 for every admissible
    parameter value, or shown not identically 0 by an exact witness (a
    parameter point where it is nonzero).  The derived zero sets are reported
    (``details['computed']``, with the values of the other sums) and must
    give what the constructions of SPEC 7 use: by composition (row 4) the zero
    set of a product contains the union of its factors', so
    ``Z(z_syn) | Z(z_nu)`` and ``Z(z_nu=i) | Z(z_syn,ab)`` must contain every
    sum but ``abc``, and ``Z(z_nu=i) | Z(z_xi)`` every R_c and R_* sum
    (:func:`construction_blocks`).  Exact: symbolic parameters (alpha, beta,
    xi on the unit circle via ``conj(x) = 1/x``; nu a general nonzero symbol
    with an independent conjugate), so each entry holds for every parameter
    value.  Numeric: random parameters, a sum counts as vanishing below 1e-10.
    ``factors`` (a list like :func:`_catalogue_factors`') replaces the catalogue
    (for testing the checker).  SPEC 7's printed table is compared with the
    derived one in the tests, not restated here.

    Returns
    -------
    TheoremResult
        Row 5; the derived zero sets are in ``details['computed']``.

    Examples
    --------
    >>> r = membership_table()
    >>> r.method, r.passed
    ('exact', True)
    """
    method = check_method(method)
    rng = np.random.default_rng(seed)
    exact = method == "exact"
    rows = factors if factors is not None else _catalogue_factors(method, rng)
    checks: dict = {}
    computed: dict = {}
    zero_sets: dict = {}
    with Timer() as t:
        for name, form, part, conj, points in rows:
            S = part.sums(conj=conj)
            vanish, values, undecided = [], {}, []
            for m in TABLE_SUMS:
                if exact:
                    verdict, witness = _decide(S[m], points)
                else:
                    verdict, witness = ("zero", None) if abs(S[m]) <= NUM_TOL else ("nonzero", None)
                if verdict == "zero":
                    vanish.append(m)
                else:
                    values[m] = str(S[m]) if exact else complex(S[m])
                    if verdict == "undecided":
                        undecided.append(m)
            checks[f"{name}: every sum decided"] = not undecided
            computed[name] = {"nodes": part.q, "vanishing": vanish, "values": values}
            zero_sets.setdefault(form, []).append(set(vanish))
        for label, (forms, need) in construction_blocks().items():
            if not all(f in zero_sets for f in forms):
                continue
            # every row of a form must do (z_xi: both signs)
            union_ok = all(set(need) <= (z1 | z2) for z1 in zero_sets[forms[0]] for z2 in zero_sets[forms[1]])
            checks[f"{label}: union of the factors' zero sets contains the sums it needs"] = bool(union_ok)
        passed = all(checks.values())
    stmt = ("The membership table of the catalogue factors of cogo.catalogue.partial (z_syn, z_syn,ab, z_nu, z_nu=i, "
            "z_xi with both signs): each of the 11 monomial sums and the R_n sum "
            + ("proven identically 0 for all admissible parameter values (symbolic) or shown not identically 0 by "
               "an exact parameter point" if exact else "vanishing below 1e-10 or not, at random parameters")
            + "; the zero sets contain what the constructions use: Z(z_syn)|Z(z_nu) and Z(z_nu=i)|Z(z_syn,ab) all "
            "sums but abc, Z(z_nu=i)|Z(z_xi) every R_c and R_* sum")
    return make_result("5. membership table of SPEC 7", stmt, method, passed, 0.0 if passed else 1.0, t,
                       checks=checks, computed=computed)
