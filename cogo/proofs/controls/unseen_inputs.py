"""Negative controls of the inputs the proof machinery had never been shown (SPEC 5-7.4).

Every control of :mod:`cogo.proofs.controls.broken_constructions` hands the block certificate scalar hat values whose
cross-frequency R_c and R_* sums are 0, balanced nodes (``|a_j| = |b_j|``), rational losses, and no z_M-type
network with a defect in the potentials with a zero-frequency input; the exact zero test never met a
polynomial coefficient it cannot decide.  The controls below are those inputs, each built by hand to break
one thing, with its outcome derived by hand here (``tests/proofs/test_verify.py`` compares every closed form with
the float64 real-space loss on all pairs, code that shares nothing with the certificates).  They run in
``cogo verify`` through :data:`CONTROL_ROWS`.

Notation: ``P`` pairs ``{k, -k}`` with ``k != -k``, ``s = n - 1 - 2P`` self-conjugate frequencies, ``k1, k2``
the first two positive frequencies, ``t = 6^(-1/3)``, ``w = exp(2 pi i / 3)``.  The sound block
``x = t z_syn * z_nu(1)`` has nodes ``j = 2 j1 + j2``: ``a = t w^j1``, ``b = c = t w^j1 sigma_j2`` with
``sigma = (1, -1)``; ``abc = 1``, every other sum of SPEC 6 is 0, ``l = -1``.  A design of blocks has the loss
``(2/n) sum_{k in K+} l_k + (n - 1)/n`` (:mod:`cogo.proofs.certificates.block_certificate`), ``l = 0`` where no block is.

* **hat read per node** (``P >= 2``): ``x`` at every pair; the block at ``k1`` extends ``c`` to ``k2`` with the
  vector ``h = (h0, -h0, 0, 0, 0, 0)``, ``h0 = 3 t`` (not one value per block: the reader keeps it a vector).
  Its sums with ``c`` replaced by ``h``: ``ab = conj(a) b = a conj(b) = conj(a) conj(b) = 2 t^2 h0 = 1``
  (nodes 0, 1 have ``a = t``, ``b = +-t``), ``a^2 = b^2 = conj(a)^2 = conj(b)^2 = t^2 h0 - t^2 h0 = 0``,
  ``|a|^2 + |b|^2 = 2 t^2 (h0 - h0) = 0``.  So only R_c fails, by the four hat terms at ``k2``:
  ``l_k2 = -1 + 4 = 3``, loss ``(s + 8)/n``.  Read as one scalar ``h0``, R_c would hold and R_n fail.
* **hat on nu = 2** (``P >= 2``): the block at ``k1`` is ``t z_syn * z_nu(2)`` (``a = t w^j1 (1, 2)_j2``,
  ``b = t w^j1 (1, -2)_j2``, ``c = t w^j1 (1, -1/4)_j2``: ``abc = (1/2)(1 + 1) = 1``, every other own sum 0, as
  z_syn and z_nu each kill their half) with the scalar hat ``gamma = t`` at ``k2``.  The constant vector is
  not orthogonal to ``conj(a) b`` when ``|nu| != 1`` (SPEC 7.3): ``sum conj(a) b = sum a conj(b) = 3 t^2
  (1 - 4) = -9 t^2``, ``ab``, ``conj(a) conj(b)`` and the four squares sum to 0 over ``w^(+-2 j1)``,
  ``sum |a|^2 + |b|^2 = 30 t^2``.  With ``t^2 gamma = 1/6``: two R_c terms ``-3/2`` and ``R_n = 2 * 5 = 10``:
  ``l_k2 = -1 + 2 (9/4) + 100/4 = 57/2``, loss ``(s + 59)/n``; R_c and R_n fail.
* **unbalanced nodes**: ``4^(-1/3) z_{nu=i} * z_xi(1, +1)`` at every pair (nodes ``a = (1, 1, i, i)``,
  ``b = (1, -i, -i, -1)``, ``c = (1, i, 1, i)`` over ``4^(1/3)``) with ``a`` of nodes 0 and 2 doubled and their
  ``b`` halved: ``abc`` and the R_c sums do not move (``2 * 1/2 = 1``), each R_* sum is still a product of
  sums with the z_{nu=i} factor 0, and ``sum |a|^2 c = (4 + i + 4 + i)/4``, ``sum |b|^2 c = (1/4 + i + 1/4 +
  i)/4``: ``R_n = 2 (17/8 + i)``, ``l = -1 + |17/4 + 2 i|^2 / 4 = 289/64``, loss ``(289 P / 32 + n - 1)/n``;
  only R_n fails.  (Balanced, the two sums are equal: a defect that reads ``|a|^2`` for ``|b|^2`` shows here.)
* **irrational loss**: ``x`` with ``c`` times ``1/sqrt 2`` at every pair: ``abc = sqrt(2)/2``, every other sum
  0, ``l = -sqrt 2 + 1/2``, loss ``A - B sqrt 2`` with ``A = (n - 1 + P)/n``, ``B = 2P/n``, not rational; its
  minimal polynomial ``x^2 - 2 A x + A^2 - 2 B^2``.  Only R_g fails.
* **z_M, b offset at frequency 0** (every group): ``U_b``'s node 0 reads ``b = -1`` instead of 1 at frequency 0
  (in real space a constant ``-2/n`` on the ``b`` input of the ``n`` nodes ``(j1, 0)``, gauged as in
  :mod:`cogo.proofs.controls.broken_constructions`).  Only potentials with a zero-frequency input move: with ``z = n^(-2/3) U_a *
  U_b`` the sums over ``j1`` and ``j2`` factor, ``r[k1, 0, k] = (1/n) [k1 = k] (-1 - 1)`` for ``k != 0``, while
  ``r[k1, k2, k]`` (``k2 != 0``), ``r[k, k, k] = 1`` and every ``r_p`` at ``k != 0`` (``sum_j1 chi(k, j1) = 0``)
  are those of z_M.  So exactly R_c fails, at ``(k, 0, k)``, and the general loss of SPEC 5 gains
  ``|r[k, 0, k]|^2 = 4/n^2`` at each ``k != 0``: loss ``4 (n - 1)/n^3``.
* **zero test and route comparison, undecidable and conflicting inputs**: polynomials whose coefficients are
  undecidable (``sin^2 1 + cos^2 1 - 1``) next to zero or nonzero ones, numbers whose cube-root classes are
  zero and nonzero at once, and :func:`compare_routes` handed two certificates that disagree and two that are
  undecided: each must be reported as such (``nonzero`` decides a polynomial, ``undecided`` never reads as
  zero, a disagreement or an undecided comparison is never "agree").

>>> r = control_hat_per_node(7)
>>> r.status, r.details["nonzero_conditions"], r.details["loss"]
('CAUGHT', ['R_c'], '8/7')
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.cyc_format import format_exact, minimal_polynomial
from cogo.algebra.cyclotomic import exact_real_loss
from cogo.algebra.loss import fourier_loss, real_loss
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_syn, z_xi
from cogo.solvers import constructions
from cogo.algebra.block import Block
from cogo.solvers.constructions import RootOfUnityNetwork
from cogo.solvers.designs import abc_normalizer, BlockDesign
from cogo.analysis.verdict.network_verdict import largest_residuals
from cogo.proofs.certificates.block_certificate import block_certificate, general_loss_certificate
from cogo.proofs.controls.block_route import _numeric_block_control, _sound_block
from cogo.proofs.controls.broken_constructions import EXACT_LOSS_MAX_ORDER, equals_by_evaluation
from cogo.proofs.certificates.design_reader import design_from_network
from cogo.proofs.certificates.mem_certificate import mem_certificate
from cogo.proofs.certificates.mem_points import POINTS_ROUTE, mem_points, points_certificate, points_loss
from cogo.proofs.results import COND_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import decide_zero, is_nonzero_proven, is_zero_proven

__all__ = ["UNSEEN_CONTROLS", "run_unseen_block_control", "compare_routes", "control_mem_zero_frequency",
           "control_zero_test_unseen", "control_hat_per_node", "control_hat_nu2", "control_unbalanced",
           "control_irrational_loss"]

_T = sympy.Integer(6) ** sympy.Rational(-1, 3)


def _pc(G) -> tuple[int, int, int, int]:
    """``(n, P, s, k1)`` of the notation above."""
    P = len(G.positive_frequencies)
    return G.order, P, G.order - 1 - 2 * P, int(G.positive_frequencies[0])


def _every_pair(G, part: PartialSolution, name: str, first: Block | None = None) -> BlockDesign:
    ks = [int(k) for k in G.positive_frequencies]
    blocks = [first] + [Block(k, part) for k in ks[1:]] if first is not None else [Block(k, part) for k in ks]
    return BlockDesign(G, name, blocks, True)


def _hat_per_node(G) -> BlockDesign:
    x = _sound_block(True)
    ks = [int(k) for k in G.positive_frequencies]
    h = (3 * _T, -3 * _T) + (sympy.Integer(0),) * 4
    return _every_pair(G, x, "hat read per node", Block(ks[0], x, {ks[1]: h}))


def _hat_nu2(G) -> BlockDesign:
    ks = [int(k) for k in G.positive_frequencies]
    six = (z_syn(exact=True) * z_nu(2, exact=True)) * abc_normalizer(6, True)
    return _every_pair(G, _sound_block(True), "hat on nu = 2", Block(ks[0], six, {ks[1]: _T}))


def _unbalanced(G) -> BlockDesign:
    four = (z_nu_i(exact=True) * z_xi(1, 1, exact=True)) * abc_normalizer(4, True)
    r = [2, 1, 2, 1]
    part = PartialSolution("unbalanced", np.asarray([sympy.expand(v * f) for v, f in zip(four.a, r)], dtype=object),
                           np.asarray([sympy.expand(v / f) for v, f in zip(four.b, r)], dtype=object), four.c)
    return _every_pair(G, part, "unbalanced nodes")


def _irrational(G) -> BlockDesign:
    x = _sound_block(True)
    part = PartialSolution("c / sqrt 2", x.a, x.b, np.asarray([sympy.expand(v * sympy.sqrt(2) / 2) for v in x.c],
                                                              dtype=object))
    return _every_pair(G, part, "c / sqrt 2")


def _irrational_loss(G) -> sympy.Expr:
    n, P, _, _ = _pc(G)
    return sympy.Rational(n - 1 + P, n) - sympy.Rational(2 * P, n) * sympy.sqrt(2)


#: name -> (statement, the name of its design builder in this module (looked up at each run, so a patched builder
#: is the one run), closed-form loss (by hand, module docstring), conditions that must be nonzero (in the order
#: R_g, R_c, R_n, R_*))
UNSEEN_CONTROLS: dict = {
    "block route: hat read per node": (
        "x at every pair, c of the block at k1 extended to k2 by the vector (3t, -3t, 0, 0, 0, 0): the four hat R_c "
        "terms are 1, nothing else moves; loss (s + 8)/n", "_hat_per_node",
        lambda G: sympy.Rational(_pc(G)[2] + 8, G.order), ["R_c"]),
    "block route: hat on an order-6 block with nu = 2": (
        "t z_syn * z_nu(2) at k1 with the scalar hat t at k2: hat R_c terms -3/2 (twice), R_n 10; loss (s + 59)/n",
        "_hat_nu2", lambda G: sympy.Rational(_pc(G)[2] + 59, G.order), ["R_c", "R_n"]),
    "block route: unbalanced nodes": (
        "4^(-1/3) z_nu=i * z_xi(1,+1) with a of nodes 0, 2 doubled and b halved: R_n = 17/4 + 2i; "
        "loss (289 P/32 + n - 1)/n", "_unbalanced",
        lambda G: sympy.Rational(289 * _pc(G)[1], 32 * G.order) + sympy.Rational(G.order - 1, G.order), ["R_n"]),
    "block route: irrational loss": (
        "x with c / sqrt 2 at every pair: abc = sqrt(2)/2; loss (n - 1 + P)/n - (2P/n) sqrt 2, reported in one "
        "readable exact form with its minimal polynomial", "_irrational", _irrational_loss, ["R_g"]),
}


def compare_routes(a: Any, b: Any) -> str:
    """Compare two block certificates of one design (the ``Q(zeta_L)`` and the sympy route), exactly.

    Returns
    -------
    str
        ``"agree"`` (same zero flags, nothing undecided, losses proven equal), ``"undecided"`` (something
        the exact zero test could not decide, on either side or in the loss difference) or ``"disagree"``.

    Examples
    --------
    >>> from cogo.solvers.designs import f6_design, f46_design
    >>> from cogo.proofs.certificates.block_certificate import block_certificate
    >>> f6, f46 = f6_design(5, exact=True), f46_design(5, exact=True, corrected=False)
    >>> compare_routes(block_certificate(f6), block_certificate(f6, fast=False)), \\
    ...     compare_routes(block_certificate(f6), block_certificate(f46, fast=False))
    ('agree', 'disagree')
    """
    d = decide_zero(sympy.sympify(a.loss) - sympy.sympify(b.loss))
    if a.undecided or b.undecided or d is None:
        return "undecided"
    return "agree" if d is True and a.zero == b.zero else "disagree"


def _same_ext(read: dict, written: dict) -> bool:
    """The hat values read equal those written, exactly: a vector stays a vector of the same entries."""
    if sorted(read) != sorted(int(k) for k in written):
        return False
    for k, w in written.items():
        r = read[int(k)]
        if isinstance(w, (tuple, list, np.ndarray)) != isinstance(r, tuple):
            return False
        if isinstance(r, tuple):
            pairs = list(zip(r, w)) if len(r) == len(w) else []
        else:
            pairs = [(r, w)]
        if not pairs or not all(is_zero_proven(sympy.sympify(u) - sympy.sympify(v)) for u, v in pairs):
            return False
    return True


def _exact_block_outcome(G, d: BlockDesign, want_loss, want_nonzero: list, details: dict) -> tuple[bool, float]:
    """Reader -> both certificate routes -> exact zero test; ``details`` gets each route's outcome."""
    read, problems = design_from_network(d.to_network())
    shape_ok = (sorted((b.k, b.q) for b in read.blocks) == sorted((int(b.k), b.q) for b in d.blocks)
                and all(_same_ext(b.c_ext, o.c_ext) for b, o in zip(sorted(read.blocks, key=lambda b: b.k),
                                                                    sorted(d.blocks, key=lambda b: int(b.k)))))
    even = [] if G.is_odd else [f"{G} has even order: some k != 0 equals -k, blocks are not defined there"]
    certs = {route: block_certificate(read, fast=(route == "Q(zeta_L)")) for route in ("Q(zeta_L)", "sympy")}
    per_route = {}
    for route, c in certs.items():
        c.structure.extend(problems)
        nonzero = [cond for cond, ok in c.zero.items() if not ok]
        per_route[route] = {"nonzero": nonzero, "loss": str(c.loss), "undecided": list(c.undecided),
                            "structure": list(c.structure), "computed_by": sorted(c.routes),
                            "ok": (nonzero == want_nonzero and not c.undecided and not c.optimal
                                   and decide_zero(c.loss - want_loss) is True
                                   and equals_by_evaluation(c.loss, want_loss) and list(c.structure) == even
                                   and c.routes == {route})}
    verdict = compare_routes(certs["Q(zeta_L)"], certs["sympy"])
    details.update(loss=per_route["sympy"]["loss"], nonzero_conditions=per_route["sympy"]["nonzero"],
                   reader_problems=problems, routes=per_route, route_comparison=verdict, blocks_read=len(read.blocks),
                   hat_values_read={b.k: {k2: str(v) for k2, v in b.c_ext.items()} for b in read.blocks if b.c_ext},
                   route="Design.to_network -> design_from_network -> block_certificate on both routes (each must "
                         "compute every frequency itself) -> exact zero test; routes compared exactly")
    caught = shape_ok and not problems and verdict == "agree" and all(v["ok"] for v in per_route.values())
    return caught, max(c.largest for c in certs.values())


def _irrational_general_loss(G, d: BlockDesign, want_loss, details: dict) -> bool:
    """The general loss of SPEC 5 in ``Q(zeta_L)`` (``n <= 31`` or even ``n``): not rational, equal to the closed
    form, and reported by :func:`cogo.algebra.cyc_format.format_exact` with the minimal polynomial by hand."""
    if G.order > EXACT_LOSS_MAX_ORDER and G.is_odd:
        details["general_loss"] = f"not computed above order {EXACT_LOSS_MAX_ORDER} (block route only)"
        return True
    gl = general_loss_certificate(d.to_network())
    n, P, _, _ = _pc(G)
    A, B = Fraction(n - 1 + P, n), Fraction(2 * P, n)
    want_poly = [Fraction(1), -2 * A, A * A - 2 * B * B]
    text = format_exact(gl["value"])
    poly = minimal_polynomial(gl["value"]) if hasattr(gl["value"], "L") else None
    X = sympy.Symbol("x")
    hand = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in want_poly], X).as_expr()
    details.update(general_loss=text, minimal_polynomial=[str(c) for c in poly or []],
                   expected_minimal_polynomial=[str(c) for c in want_poly], loss=text,
                   expected_loss=f"{want_loss} (minimal polynomial {hand})")
    printed = sympy.sympify(text.split(" (minimal polynomial")[0])  # the expression printed is the loss itself
    # each comparison with the closed form twice: the exact zero test and an evaluation to 40 digits beside it
    return (gl["loss"] is None and decide_zero(gl["value"].to_sympy() - want_loss) is True and poly == want_poly
            and equals_by_evaluation(gl["value"].to_sympy(), want_loss)
            and "sqrt(2)" in text and decide_zero(printed - want_loss) is True
            and equals_by_evaluation(printed, want_loss))


def run_unseen_block_control(name: str, group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
    """Run one control of :data:`UNSEEN_CONTROLS` (``design``, an exact BlockDesign, replaces the hand-built one,
    for testing the checker).

    CAUGHT iff (exact) the reader finds the blocks and hat values that were written (no problem), both
    routes of the block certificate compute every frequency themselves and find exactly the expected
    conditions nonzero, nothing undecided, the loss equal to the closed form, and :func:`compare_routes`
    says "agree" (the irrational loss also through the general loss, see :func:`_irrational_general_loss`);
    (numeric) the float64 real-space loss matches the closed form to 1e-9 and exactly the expected
    conditions have float64 residuals above ``COND_TOL`` at the pair frequencies.

    Returns
    -------
    TheoremResult
        A negative control: ``passed`` when the outcome is the one derived by hand.
    """
    method = check_method(method)
    G = as_group(group)
    statement, build, loss_of, want_nonzero = UNSEEN_CONTROLS[name]
    want_loss = loss_of(G)
    details: dict = {"expected_loss": str(want_loss), "expected_nonzero": want_nonzero,
                     "expected_failing": want_nonzero}
    with Timer() as t:
        d = design if design is not None else globals()[build](G)
        if method == "numeric":
            caught, residual = _numeric_block_control(G, d.to_network(), None, want_loss, want_nonzero, details)
        else:
            caught, residual = _exact_block_outcome(G, d, want_loss, want_nonzero, details)
            if name == "block route: irrational loss":
                caught = _irrational_general_loss(G, d, want_loss, details) and caught
        details["failing_conditions"] = details.get("nonzero_conditions", [])
    stmt = statement + ("; CAUGHT iff the reader, both certificate routes (compared exactly) and the exact zero "
                        "test give the outcome derived by hand" if method == "exact" else
                        "; CAUGHT iff the float64 real-space loss matches the closed form to 1e-9 and exactly the "
                        "named conditions have float64 residuals above COND_TOL")
    return make_result(name, stmt, method, caught, residual, t, negative_control=True, **details)


def _unseen_fn(name: str, fname: str) -> Callable:
    def control(group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
        return run_unseen_block_control(name, group, method, design)

    control.__name__ = fname
    control.__doc__ = f"Negative control {name!r}: {UNSEEN_CONTROLS[name][0]} (module docstring)."
    return control


control_hat_per_node = _unseen_fn("block route: hat read per node", "control_hat_per_node")
control_hat_nu2 = _unseen_fn("block route: hat on an order-6 block with nu = 2", "control_hat_nu2")
control_unbalanced = _unseen_fn("block route: unbalanced nodes", "control_unbalanced")
control_irrational_loss = _unseen_fn("block route: irrational loss", "control_irrational_loss")


# =========================================================================== z_M, a defect at k2 = 0 only
_MEM_ZERO = "z_M, U_b node 0 reading b = -1 at frequency 0"
#: Up to this order the z_M control computes the exact real-space loss (n^4 work) and, up to
#: :data:`_MEM_GENERAL_MAX`, the general loss of SPEC 5 in Q(zeta_L) of the n^2-node network.
_MEM_LOSS_MAX, _MEM_GENERAL_MAX = 31, 7


def _mem_offset_factors(G) -> tuple:
    """z_M's factors, ``U_b``'s node 0 with ``b = -1`` at frequency 0 (exponents doubled when ``L`` is odd)."""
    Ua, Ub = constructions.mem_factors(G)
    L2 = math.lcm(Ua.L, 2)
    f = L2 // Ua.L
    Ea, Eb = (Ua.E * f) % L2, (Ub.E * f) % L2
    Eb[1, 0, 0] = (Eb[1, 0, 0] + L2 // 2) % L2
    return RootOfUnityNetwork(G, Ea, L2), RootOfUnityNetwork(G, Eb, L2)


def _mem_offset_weights(G, offset: bool = True) -> tuple:
    """The gauged real weights by SPEC 7.4 alone: node ``(j1, j2)`` reads ``a`` at ``j1``, ``b`` at ``j2`` (1),
    writes 1/2 at ``j1 + j2``; with ``offset``, nodes ``(j1, 0)`` get ``-2/n`` on every ``b`` input (module
    docstring); without, this is z_M itself."""
    n = G.order
    j1, j2 = np.divmod(np.arange(n * n), n)
    Wa = np.zeros((n * n, n), dtype=object)
    Wb = np.zeros((n * n, n), dtype=object)
    Wc = np.zeros((n, n * n), dtype=object)
    Wa[:] = Wb[:] = Wc[:] = Fraction(0)
    Wa[np.arange(n * n), j1] = Fraction(1)
    Wb[np.arange(n * n), j2] = Fraction(1)
    if offset:
        Wb[j2 == 0] = Wb[j2 == 0] - Fraction(2, n)
    Wc[G.add_table[j1, j2], np.arange(n * n)] = Fraction(1, 2)
    return Wa, Wb, Wc


def control_mem_zero_frequency(group: Any, method: str = "exact", factors: tuple | None = None,
                               weights: tuple | None = None) -> TheoremResult:
    """z_M whose only defect is in the potentials with a zero-frequency input (module docstring).

    Exact: row 6's z_M certificate (:func:`cogo.proofs.certificates.mem_certificate.mem_certificate`) on the factors must
    fail exactly R_c; up to order 31 the exact real-space loss of the weights of SPEC 7.4 and, up to order 7,
    the general loss of SPEC 5 of the exact network in ``Q(zeta_L)`` must be ``4 (n - 1)/n^3``.  Numeric: the
    float64 general loss (``fourier_loss``, the DC terms of SPEC 5) and real-space loss must match it to 1e-9
    and exactly R_c must exceed ``COND_TOL``.  ``factors`` replaces the defective pair, ``weights`` the rational
    weights ``(W_a, W_b, W_c)`` of the real-space losses (testing the control).

    Returns
    -------
    TheoremResult
        CAUGHT when every outcome is the one derived by hand.

    Examples
    --------
    >>> r = control_mem_zero_frequency(5)
    >>> r.status, r.details["failing_conditions"], r.details["loss"]
    ('CAUGHT', ['R_c'], '16/125')
    """
    method = check_method(method)
    G = as_group(group)
    n = G.order
    want = Fraction(4 * (n - 1), n ** 3)
    details: dict = {"expected_failing": ["R_c"], "expected_loss": str(want)}
    with Timer() as t:
        if method == "exact":
            caught, residual = _mem_zero_exact(G, factors, weights, want, details)
        else:
            caught, residual = _mem_zero_numeric(G, weights, want, details)
    return make_result(_MEM_ZERO, "z_M with b of U_b's node 0 at frequency 0 set to -1 (a constant -2/n on the b "
                       "input of the nodes (j1, 0)): only r[k, 0, k] = -2/n moves; CAUGHT iff exactly R_c fails and "
                       "the loss is 4 (n - 1)/n^3", method, caught, residual, t, negative_control=True, **details)


def _mem_zero_exact(G, factors, weights, want: Fraction, details: dict) -> tuple[bool, float]:
    n = G.order
    points = mem_points(G, "zero-frequency") if factors is None and weights is None else None
    if points is not None and n > _MEM_LOSS_MAX:  # z_M is not built: its integer point counts, O(n^3)
        cert = points_certificate(points)
        loss = points_loss(points)
        details.update(failing_conditions=cert.failing, loss=str(loss), route=POINTS_ROUTE)
        return cert.failing == ["R_c"] and loss == want, cert.largest
    Ua, Ub = factors if factors is not None else _mem_offset_factors(G)
    cert = mem_certificate(Ua, Ub)
    details["failing_conditions"] = cert.failing
    ok = cert.failing == ["R_c"] and not cert.optimal
    if n <= _MEM_LOSS_MAX:
        loss = exact_real_loss(*(weights if weights is not None else _mem_offset_weights(G)), G)
        details.update(loss=str(loss), route="row 6's z_M certificate (character sums); exact real-space loss in Q")
        ok = ok and loss == want
        if points is not None:  # the route used above this order agrees here
            agree = points_certificate(points).failing == cert.failing and points_loss(points) == loss
            details["points route agrees"] = agree
            ok = ok and agree
    else:
        details.update(loss="n/a", expected_loss="n/a", route=f"row 6's z_M certificate (character sums); the loss "
                       f"is not computed above order {_MEM_LOSS_MAX} (n^4)")
    if n <= _MEM_GENERAL_MAX:
        net = Ua.to_network(True) * Ub.to_network(True) * (sympy.Integer(n) ** sympy.Rational(-2, 3))
        gl = general_loss_certificate(net, extra_scales=(n,))
        details["general_loss"] = str(gl["loss"])
        ok = ok and gl["loss"] == want
    return ok, cert.largest


def _mem_zero_numeric(G, weights, want: Fraction, details: dict) -> tuple[bool, float]:
    points = mem_points(G, "zero-frequency") if weights is None and G.order > _MEM_LOSS_MAX else None
    if points is not None:  # z_M is not built: complex128 residuals of its point counts, the loss as a float
        res = {c: float(v) for c, v in points_certificate(points).max_abs.items()}
        failing = [c for c in ("R_g", "R_c", "R_n", "R_*") if res[c] > COND_TOL]
        loss = float(points_loss(points))
        details.update(failing_conditions=failing, largest_residuals=res, loss=loss, route=POINTS_ROUTE)
        return failing == ["R_c"] and abs(loss - float(want)) <= 1e-9 * max(1.0, float(want)), res["R_c"]
    W = [np.asarray(w, dtype=np.float64) for w in (weights if weights is not None else _mem_offset_weights(G))]
    net = Network.from_weights(*W, G)
    res = largest_residuals(net)
    failing = [c for c in ("R_g", "R_c", "R_n", "R_*") if res[c] > COND_TOL]
    real, gen = real_loss(*W, group=G), fourier_loss(net)
    tol = 1e-9 * max(1.0, float(want))
    details.update(failing_conditions=failing, largest_residuals=res, loss=real, general_loss=gen,
                   route="float64 real-space loss and general loss of SPEC 5 (fourier_loss), condition residuals")
    return failing == ["R_c"] and abs(real - float(want)) <= tol and abs(gen - float(want)) <= tol, res["R_c"]


# =========================================================================== zero test and route comparison
_ZERO_UNSEEN = "exact zero test and route comparison: undecidable and conflicting inputs"


def _unseen_zero_cases() -> list:
    """``(label, value, decision by hand)``: undecidable polynomial coefficients next to decided ones, and
    numbers whose cube-root classes are zero and nonzero at once (module docstring of :mod:`cogo.proofs.certificates.exact_zero`)."""
    x, y = sympy.symbols("x y")
    w = sympy.exp(2 * sympy.pi * sympy.I / 3)
    und = sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1  # 0, but outside the fields decided exactly
    zero3 = 1 + w + w**2
    c2, c3 = sympy.Integer(2) ** sympy.Rational(1, 3), sympy.Integer(3) ** sympy.Rational(1, 3)
    return [
        ("x (sin^2 1 + cos^2 1 - 1): its only coefficient undecidable", x * und, None),
        ("x (sin^2 1 + cos^2 1 - 1) + y (1 + w + w^2): one coefficient 0, one undecidable", x * und + y * zero3, None),
        ("x (sin^2 1 + cos^2 1 - 1) + y (2^(1/3) - 1): one undecidable, one nonzero", x * und + y * (c2 - 1), False),
        ("x (2^(1/3) - 1) + y (sin^2 1 + cos^2 1 - 1): the same, the other order", x * (c2 - 1) + y * und, False),
        ("2^(1/3) (1 + w + w^2) + 3^(1/3) (sqrt 2 - 1): class 2^(1/3) zero, class 3^(1/3) not",
         c2 * zero3 + c3 * (sympy.sqrt(2) - 1), False),
        ("3^(1/3) (sqrt 2 - 1) + 2^(1/3) (1 + w + w^2): the same, the other order", c3 * (sympy.sqrt(2) - 1) + c2 * zero3,
         False),
        ("4^(1/3) - 2^(2/3) + 3^(1/3) (1 + w + w^2): both classes zero", sympy.Integer(4) ** sympy.Rational(1, 3)
         - sympy.Integer(2) ** sympy.Rational(2, 3) + c3 * zero3, True),
        ("12^(1/3) - 2^(2/3) 3^(1/3) + 2^(1/3) - 1: class (2^(2/3) 3^(1/3)) zero, classes 2^(1/3) and 1 not",
         sympy.Integer(12) ** sympy.Rational(1, 3) - c2**2 * c3 + c2 - 1, False),
        ("2^(1/3) (1 + w + w^2) + 3^(1/3) sin 1: class 2^(1/3) zero, class 3^(1/3) undecidable",
         c2 * zero3 + c3 * sympy.sin(1), None),
    ]


def _route_cases(G) -> dict:
    """:func:`compare_routes` on conflicting and on undecidable inputs: name -> (answer, answer by hand)."""
    ks = [int(k) for k in G.positive_frequencies]
    x = _sound_block(True)
    sound = BlockDesign(G, "sound", [Block(k, x) for k in ks], True)
    rg = PartialSolution("c doubled", x.a, x.b, np.asarray([2 * v for v in x.c], dtype=object))
    broken = BlockDesign(G, "R_g", [Block(ks[0], rg)] + [Block(k, x) for k in ks[1:]], True)
    c = np.asarray([x.c[0] * (sympy.sin(1) ** 2 + sympy.cos(1) ** 2)] + list(x.c[1:]), dtype=object)
    und = BlockDesign(G, "undecided", [Block(ks[0], PartialSolution("x", x.a, x.b, c))]
                      + [Block(k, x) for k in ks[1:]], True)
    cs = {name: (block_certificate(d), block_certificate(d, fast=False))
          for name, d in (("sound", sound), ("R_g", broken), ("undecided", und))}
    return {
        "routes of the sound design": (compare_routes(*cs["sound"]), "agree"),
        "Q(zeta_L) route of the sound design vs sympy route of c doubled (conflicting)":
            (compare_routes(cs["sound"][0], cs["R_g"][1]), "disagree"),
        "sympy route of c doubled vs Q(zeta_L) route of the sound design (conflicting)":
            (compare_routes(cs["R_g"][1], cs["sound"][0]), "disagree"),
        "routes of the design with a residual sin^2 1 + cos^2 1 - 1 (undecidable)":
            (compare_routes(*cs["undecided"]), "undecided"),
        "sound design vs the undecidable one": (compare_routes(cs["sound"][0], cs["undecided"][1]), "undecided"),
    }


def control_zero_test_unseen(group: Any = None, method: str = "exact", cases: list | None = None) -> TheoremResult:
    """The exact zero test on undecidable and conflicting inputs, and the route comparison on conflicting and
    undecidable certificates (the latter on groups with a pair ``k != -k``): every answer must be the hand one.

    ``cases`` (``(label, value, True | False | None)``) replace the zero-test values, for testing the checker.

    Returns
    -------
    TheoremResult
        CAUGHT when every decision and every comparison is the one derived by hand.

    Examples
    --------
    >>> r = control_zero_test_unseen(7)
    >>> r.status, r.details["decisions"]["x (sin^2 1 + cos^2 1 - 1): its only coefficient undecidable"]
    ('CAUGHT', 'undecided')
    """
    word = {True: "zero", False: "nonzero", None: "undecided"}
    G = as_group(group) if group is not None else None
    with Timer() as t:
        got, wrong = {}, []
        for label, value, want in (_unseen_zero_cases() if cases is None else cases):
            d = decide_zero(value)
            got[label] = word.get(d, repr(d))
            if d is not want or is_zero_proven(value) is not (want is True) \
                    or is_nonzero_proven(value) is not (want is False):
                wrong.append(label)
        if cases is None and G is not None and len(G.positive_frequencies) >= 1:
            for label, (answer, want) in _route_cases(G).items():
                got[label] = answer
                if answer != want:
                    wrong.append(label)
    n = len(got)
    return make_result(_ZERO_UNSEEN, "the exact zero test on polynomials with undecidable coefficients and numbers "
                       "whose cube-root classes are zero and nonzero at once, and the comparison of the two "
                       "certificate routes on conflicting and undecidable certificates: CAUGHT iff every answer is "
                       "the hand one (undecided is never zero, never 'agree')", "exact", not wrong,
                       float(len(wrong)), t, negative_control=True, decisions=got, wrong=wrong,
                       failing_conditions=[f"{n - len(wrong)}/{n} answers as by hand"],
                       expected_failing=[f"{n}/{n} answers as by hand"], loss="n/a", expected_loss="n/a")
