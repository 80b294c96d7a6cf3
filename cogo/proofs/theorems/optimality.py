"""Theorem 6 (SPEC 7.1-7.4): every construction is a global optimizer (loss exactly 0).

A theorem function of the registry (:mod:`cogo.proofs.registry` states the contract every row keeps).

The exact tools are :mod:`cogo.proofs.certificates.block_certificate`, :mod:`cogo.proofs.certificates.mem_certificate` and
:mod:`cogo.algebra.cyclotomic`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any

import sympy

from cogo.algebra.cyc_format import format_exact
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.loss import condition_residuals, real_loss
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.constructions import CHARACTER_SUMS, FAMILY, resolve
from cogo.catalogue.constructions import construction as record
from cogo.catalogue.partial import unit_conjugate, z_nu, z_nu_i, z_syn, z_syn_ab, z_xi
from cogo.solvers import constructions as C
from cogo.solvers.designs import abc_normalizer, BlockDesign
from cogo.proofs.certificates.block_certificate import (CONDITION_MONOMIALS, CONST_MONOMIALS, block_certificate, constant_vector_sums,
                                      general_loss_certificate)
from cogo.proofs.certificates.block_certificate import clear_caches as clear_certificate_caches
from cogo.proofs.certificates.character_sums import INVERSION_ROUTE, mem_certificate_inversion
from cogo.proofs.certificates.design_reader import design_from_network
from cogo.proofs.certificates.mem_certificate import mem_certificate
from cogo.proofs.certificates.mem_points import factor_points, points_certificate, points_loss
from cogo.proofs.results import LOSS_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.theorems.zero_sets import MONOMIAL_NAMES
from cogo.proofs.certificates.exact_zero import is_nonzero_proven
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)

__all__ = ["optimality", "family_certificate", "FAMILY_STATEMENTS", "GENERAL_LOSS_MAX_ORDER", "clear_caches"]


# --------------------------------------------------------------------------- 6. global optimality


#: The sums of SPEC 6 the family certificates name, by condition (:data:`cogo.proofs.certificates.block_certificate.CONDITION_MONOMIALS`).
_RC, _RS, (_RN,) = CONDITION_MONOMIALS["R_c"], CONDITION_MONOMIALS["R_*"], CONDITION_MONOMIALS["R_n"]
_FAMILY_CACHE: dict = {}
#: What the family certificate of each construction must prove (written from SPEC 7.1-7.3, not by the code that
#: proves it): row 6 fails when the certificate returns other statements (e.g. another construction's).
FAMILY_STATEMENTS = {
    "z_F6": ("abc = 1", "all other sums 0 (any nu != 0)"),
    "z_F6_ab": ("abc = 1", "all other sums 0 (|alpha| = |beta| = 1)"),
    "z_F46": tuple(f"order-4 block s={s}: {x}" for s in ("+1", "-1")
                 for x in ("abc = 1", "R_c, R_* sums 0", "R_n sum = 1 + s i"))
    + ("order-6 block (|nu|=1): constant-vector sums 0", "order-6 block: sum |a|^2 + |b|^2 = 12 * 6^(-2/3)",
       "order-6 block with nu=2: sum conj(a) b != 0 (hat needs |nu|=1)"),
}


def family_certificate(kind: str) -> dict:
    """Symbolic proof that the block family of a construction is optimal for every admissible parameter.

    ``z_F6``: ``6^(-1/3) . (z_syn * z_nu(nu))`` for every nonzero ``nu``
    (independent conjugate): all eleven sums vanish except ``abc = 1``.
    ``z_F6_ab``: ``6^(-1/3) . (z_{nu=i} * z_syn,ab(alpha, beta))``, ``|alpha| = |beta| = 1``.
    ``z_F46``: the order-4 block ``4^(-1/3) . (z_{nu=i} * z_xi(xi, s))``
    (``|xi| = 1``, both signs) satisfies everything but R_n, whose sum is
    ``1 + s i``; the six nodes of the order-6 block (``|nu| = 1``) have every
    constant-vector sum 0 (SPEC 7.3), so ``gamma_k`` cancels R_n and
    touches nothing else; and for ``|nu| != 1`` (``nu = 2``) the sum
    ``sum_j conj(a_j) b_j`` is not 0.

    Returns
    -------
    dict
        Statement to bool: each symbolic identity of the family, True when proven.

    Examples
    --------
    >>> family_certificate("z_F6")                          # for every nonzero nu, symbolically
    {'abc = 1': True, 'all other sums 0 (any nu != 0)': True}
    """
    if kind in _FAMILY_CACHE:
        return _FAMILY_CACHE[kind]
    six, four = abc_normalizer(6, exact=True), abc_normalizer(4, exact=True)
    out: dict = {}
    if kind == "z_F6":
        nu, nub = sympy.symbols("nu nu_bar")

        def cj(e):
            return sympy.expand(sympy.conjugate(e).subs({sympy.conjugate(nu): nub}))

        S = ((z_syn(exact=True) * z_nu(nu)) * six).sums(conj=cj)
        out["abc = 1"] = is_zero_exact(S["abc"] - 1)
        out["all other sums 0 (any nu != 0)"] = all(is_zero_exact(S[m]) for m in MONOMIAL_NAMES[1:]) and \
            is_zero_exact(S[_RN])
    elif kind == "z_F6_ab":
        al, be = sympy.symbols("alpha beta")
        S = ((z_nu_i(exact=True) * z_syn_ab(al, be)) * six).sums(conj=unit_conjugate(al, be))
        out["abc = 1"] = is_zero_exact(S["abc"] - 1)
        out["all other sums 0 (|alpha| = |beta| = 1)"] = all(is_zero_exact(S[m]) for m in MONOMIAL_NAMES[1:]) and \
            is_zero_exact(S[_RN])
    elif kind == "z_F46":
        xi, nu = sympy.symbols("xi nu")
        for s in (1, -1):
            S = ((z_nu_i(exact=True) * z_xi(xi, s)) * four).sums(conj=unit_conjugate(xi))
            out[f"order-4 block s={s:+d}: abc = 1"] = is_zero_exact(S["abc"] - 1)
            out[f"order-4 block s={s:+d}: R_c, R_* sums 0"] = all(is_zero_exact(S[m]) for m in _RC + _RS)
            out[f"order-4 block s={s:+d}: R_n sum = 1 + s i"] = is_zero_exact(S[_RN] - (1 + s * sympy.I))
        sixb = (z_syn(exact=True) * z_nu(nu)) * six
        V = constant_vector_sums(sixb, conj=unit_conjugate(nu))
        out["order-6 block (|nu|=1): constant-vector sums 0"] = all(
            is_zero_exact(V[m]) for m in CONST_MONOMIALS["R_c"] + CONST_MONOMIALS["R_*"])
        out["order-6 block: sum |a|^2 + |b|^2 = 12 * 6^(-2/3)"] = is_zero_exact(
            V["|a|^2 + |b|^2"] - 12 * sympy.Integer(6) ** sympy.Rational(-2, 3))
        V2 = constant_vector_sums((z_syn(exact=True) * z_nu(2, exact=True)) * six)
        out["order-6 block with nu=2: sum conj(a) b != 0 (hat needs |nu|=1)"] = is_nonzero_proven(V2["conj(a) b"])
    _FAMILY_CACHE[kind] = out
    return out


#: Up to this order (and above it with ``full_loss=True``) the exact optimality of a block construction is
#: the library's general loss of the actual network in exact Q(zeta_L) arithmetic; above, the block route.
GENERAL_LOSS_MAX_ORDER = 31
#: z_M has n^2 dense nodes: its general loss is computed exactly up to this order, the character-sum
#: certificate (homomorphism route) is used for every order.
MEM_GENERAL_LOSS_MAX_ORDER = 5


#: Up to this order the z_M certificate by Fourier inversion is cross-checked, condition by condition, against the
#: reference route (character sums in Z[zeta_L], ``O(n^5)``); above it, against the exact loss of SPEC 5 by
#: Parseval on integer point counts (:func:`cogo.proofs.certificates.mem_points.points_loss`, ``O(n^3)``).  A disagreement
#: fails the row.
MEM_CROSSCHECK_MAX_ORDER = 31


def _mem_certificate(G: FiniteAbelianGroup, Ua: Any, Ub: Any, details: dict, reference: tuple | None = None) -> tuple:
    """``(certificate, routes agree, route)`` of z_M's factors: Fourier inversion where every row is a character
    (:mod:`cogo.proofs.certificates.character_sums`), with a second route beside it (character sums up to order 31, the exact
    loss by Parseval above); where a row is not a character, the reference route alone.

    ``reference`` (``(U_a, U_b)``, a control's) replaces the factors the reference route reads: the routes then
    disagree, and the row must fail."""
    cert = mem_certificate_inversion(Ua, Ub)
    if cert is None:
        return mem_certificate(Ua, Ub), True, "homomorphism + exact character sums in Z[zeta_L]"
    route = INVERSION_ROUTE
    agree = True
    read = reference if reference is not None else (Ua, Ub)
    if G.order <= MEM_CROSSCHECK_MAX_ORDER:
        ref = mem_certificate(*read)
        agree = ref.zero == cert.zero
        details["routes agree"] = agree
        if not agree:
            details["reference route failing_conditions"] = ref.failing
        route += "; the same conditions as character sums in Z[zeta_L]: " + ("agree" if agree else "DISAGREE")
        return cert, agree, route
    # above order 31 (character sums cost O(n^5)): the exact loss of SPEC 5 by Parseval on integer point counts
    # (cogo.proofs.certificates.mem_points, O(n^3)), 0 exactly when every condition holds; the factors' rows read by
    # exact character sums (O(n^2 q)), so this route shares nothing with the inversion certificate but the factors
    P = factor_points(*read, by_sums=True)  # the rows read by exact character sums, not the phase lookup
    loss = points_loss(P) if P is not None else None
    agree = loss is not None and (loss == 0) == cert.optimal
    details["routes agree"] = agree
    details["reference route loss"] = str(loss)
    if not agree:
        details["reference route failing_conditions"] = points_certificate(P).failing if P is not None else []
    route += ("; the exact loss by Parseval on integer point counts, 0 exactly when the conditions hold: "
              + ("agree" if agree else "DISAGREE"))
    return cert, agree, route


def _optimality_mem(G: FiniteAbelianGroup, factors: tuple | None, full_loss: bool, details: dict,
                    reference: tuple | None = None) -> tuple:
    """Row 6, exact, z_M: the character-sum certificate, and the general loss of the exact network for small n."""
    Ua, Ub = factors if factors is not None else C.mem_factors(G)
    cert, agree, route = _mem_certificate(G, Ua, Ub, details, reference)
    passed, residual = cert.optimal and agree, cert.largest
    details.update(failing_conditions=cert.failing, max_abs=cert.max_abs, **cert.details)
    if G.order <= MEM_GENERAL_LOSS_MAX_ORDER or full_loss:
        nt = Ua.to_network(True) * Ub.to_network(True) * (sympy.Integer(G.order) ** sympy.Rational(-2, 3)) \
            if factors is not None else C.z_M(G, exact=True)
        gl = general_loss_certificate(nt, extra_scales=(G.order,))
        details["general_loss"] = str(gl["loss"])
        passed = passed and gl["loss"] == 0
        route += f"; general loss of SPEC 5 of the exact network in Q(zeta_{gl['L']}) = {gl['loss']}"
    return passed, residual, route


def _optimality_network(G: FiniteAbelianGroup, nt: Network, label: str, full_loss: bool, details: dict) -> tuple:
    """Row 6, exact, an actual network: the general loss in ``Q(zeta_L)``, or above order 31 the block route."""
    residual = 0.0
    if G.order <= GENERAL_LOSS_MAX_ORDER or full_loss or not G.is_odd:
        try:
            gl = general_loss_certificate(nt, extra_scales=(G.order,))
            passed = gl["loss"] == 0
            details.update(loss_exact=format_exact(gl["loss"] if gl["loss"] is not None else gl["value"]),
                           gauge=gl["scales"], L=gl["L"])
            if not passed:
                residual = abs(complex(gl["value"]))
        except ValueError as exc:
            passed, residual = False, float("inf")
            details["error"] = str(exc)
        return passed, residual, f"general loss of SPEC 5 (fourier_loss) of the actual network ({label}) in exact Q(zeta_L)"
    d, problems = design_from_network(nt)
    cert = block_certificate(d)
    cert.structure.extend(problems)
    details.update(failing_conditions=cert.failing, loss_exact=format_exact(cert.loss), structure=cert.structure,
                   max_abs=cert.max_abs, block_types=cert.per_block_type)
    return cert.optimal, cert.largest, (f"block route on the actual network ({label}): exact supports checked "
                                        "(blocks do not interact), exact block certificate")


def _optimality_numeric(G: FiniteAbelianGroup, rec: Any, net: Network | None, seed: int | None,
                        details: dict) -> tuple:
    """Row 6, numeric: the real-space loss of the real weights (default parameters and those of ``seed``)."""
    build = resolve(rec.builder)
    nets = [("given", net)] if net is not None else \
        [("default", build(G))] + ([(f"seed {seed}", build(G, seed=seed))] if rec.design and seed is not None else [])
    losses, reals, conds = {}, {}, {}
    for label, nt in nets:
        nt = nt.to_numeric() if nt.exact else nt
        reals[label] = nt.is_real()
        losses[label] = real_loss(*nt.to_weights(real=True), group=G) if reals[label] else float("inf")
        if G.order ** 3 * nt.q <= 2 * 10**7:  # the dense residual tensors are n^3 x q
            conds[label] = condition_residuals(nt).max_abs()
    residual = max(losses.values())
    details.update(real_space_loss=losses, real_weights=reals, condition_max_abs=conds,
                   nodes={label: nt.q for label, nt in nets})
    return all(reals.values()) and residual < LOSS_TOL, residual


def optimality(group: Any, construction: str = "z_F6", method: str = "exact", net: Network | None = None,
               design: BlockDesign | None = None, factors: tuple | None = None, seed: int | None = 1,
               full_loss: bool = False, reference_factors: tuple | None = None) -> TheoremResult:
    """Theorem 6 (SPEC 7.1-7.4): global optimality (loss exactly 0) of a construction on the group named.

    Exact, block constructions (z_F6, z_F6_ab, z_F46; :mod:`cogo.catalogue.constructions`): the actual network built by
    :mod:`cogo.solvers.constructions` with the parameters drawn from ``seed``
    (exact rational points of the unit circle).  For ``n <= 31``
    (:data:`GENERAL_LOSS_MAX_ORDER`, or any ``n`` with ``full_loss=True``)
    its loss is computed by the library's general loss :func:`fourier_loss`
    in exact ``Q(zeta_L)`` arithmetic (:func:`general_loss_certificate`) and
    must be exactly 0.  Above, the block route: the blocks are read off the
    network itself with the exact support of every node checked
    (:func:`design_from_network`: the premise of the block-independence lemma,
    see :mod:`cogo.proofs.certificates.block_certificate`), and :func:`block_certificate` proves
    every condition residual 0 and the loss 0.  Exact, z_M: the
    character-sum certificate (homomorphism route) for every ``n``, decided by
    Fourier inversion on integer point counts
    (:func:`cogo.proofs.certificates.character_sums.mem_certificate_inversion`; up to order 31
    also by :func:`mem_certificate` in ``Z[zeta_L]``, and the two must agree), and
    the general loss of the exact network for ``n <= 5``.
    Numeric: the real weights (default parameters and those of ``seed``) have
    real-space loss below 1e-20 on all pairs.

    ``net`` (an exact network for ``exact``, any network for ``numeric``),
    ``design`` or ``factors`` (z_M's ``(U_a, U_b)``) replace the construction; ``reference_factors`` replaces
    what z_M's reference route alone reads (a control: routes that disagree fail the row).

    Returns
    -------
    TheoremResult
        Row 6 for ``construction``: ``passed`` when the loss is proven exactly 0 (or, numerically,
        below 1e-20); the exact route taken is ``details['route']``.

    Examples
    --------
    >>> r = optimality(7, "z_F46")                          # z_F4/6 on Z_7: the general loss, exactly 0
    >>> r.name, r.method, r.passed, r.residual
    ('6. optimality of z_F4/6 with the hat correction', 'exact', True, 0.0)
    >>> optimality(3, "z_M").passed                         # z_M: the character-sum certificate
    True
    """
    method = check_method(method)
    G = as_group(group)
    rec = record(construction)   # ValueError naming the construction for an unknown name or an old spelling
    title = rec.title
    details: dict = {"construction": title, "group": G.label}
    route = ""
    with Timer() as t:
        if method == "exact":
            if rec.certificate == CHARACTER_SUMS and net is None and design is None:
                passed, residual, route = _optimality_mem(G, factors, full_loss, details, reference_factors)
            else:
                if net is not None:
                    nt, label = net, "given network"
                elif design is not None:
                    nt, label = design.to_network(), "given design"
                else:
                    build = resolve(rec.builder)
                    nt = build(G, seed=seed, exact=True) if rec.design else build(G, exact=True)
                    label = f"seed {seed}" if seed is not None else "default parameters"
                details["parameters"] = label
                passed, residual, route = _optimality_network(G, nt, label, full_loss, details)
                if rec.certificate == FAMILY and net is None and design is None:
                    fam = family_certificate(rec.name)
                    details["family (every parameter value)"] = fam
                    passed = passed and all(fam.values()) and tuple(fam) == FAMILY_STATEMENTS[rec.name]
            details["route"] = route
        else:
            passed, residual = _optimality_numeric(G, rec, net, seed, details)
    stmt = (f"{title} is a global optimizer on {G}: "
            + (f"exact loss 0 by {route}" if method == "exact"
               else "its real weights (default parameters and seed {seed}) have real-space loss < 1e-20 on all "
                    "pairs (float64)"))
    return make_result(f"6. optimality of {title.split(' (')[0]}", stmt, method, passed, residual, t, **details)




def clear_caches() -> None:
    """Forget cached block sums and family certificates (benchmarks call this to time cold runs)."""
    clear_certificate_caches()
    _FAMILY_CACHE.clear()
