"""Negative controls of the block route: hand-built blocks through the design reader and both certificate routes.

Each control breaks exactly one condition of SPEC 5 (or one premise of the block route) and must be caught by
:func:`cogo.proofs.certificates.design_reader.design_from_network`, :func:`cogo.proofs.certificates.block_certificate.block_certificate` on both
of its routes and the exact zero test, with the outcome derived by hand below.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.loss import condition_residuals, real_loss
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_syn, z_xi
from cogo.algebra.block import Block
from cogo.solvers.designs import abc_normalizer, BlockDesign
from cogo.proofs.certificates.block_certificate import block_certificate
from cogo.proofs.controls.broken_constructions import _control, _counts, equals_by_evaluation
from cogo.proofs.certificates.design_reader import design_from_network
from cogo.proofs.results import COND_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import decide_zero
from cogo.solvers import designs

__all__ = ["BLOCK_CONTROLS", "run_block_control"]


# =========================================================================== block-route controls
# Controls of the proof machinery itself: each network below is built by hand to violate exactly one
# condition (or one premise of the block route), and goes through everything an exact certificate of the
# block route uses -- Design.to_network, the design reader with its exact support and Hermitian checks
# (design_from_network), the block certificate on BOTH routes (Q(zeta_L) and sympy; they must agree) and
# the exact zero test (cogo.proofs.certificates.exact_zero).  The expected outcome is derived by hand (closed forms below, in
# P = number of pairs {k, -k} with k != -k, s = n - 1 - 2P self-conjugate frequencies); tests/proofs/test_verify.py
# compares every closed form with the float64 real-space loss on all pairs, which shares no code with the
# block certificate.  Loss of blocks at every pair (module docstring of cogo.proofs.certificates.block_certificate):
# (2/n) sum_pairs l_k + (n - 1)/n with l_k = -2 Re(abc) + |abc|^2 + sum |R_c|^2 + |R_n|^2/4 + sum |R_*|^2/4.
#
# x = 6^(-1/3) z_syn * z_nu(1) (sums multiply under *; z_syn kills every sum but abc, a^2 c, b^2 c and z_nu
# kills a^2 c, b^2 c): abc = 1, every other sum 0, l_k = -1: the sound block.
#
# * R_g only: x with c doubled: abc = 2, every other sum 0: l_k = -4 + 4 = 0, loss (n-1)/n.
# * R_c only: 4^(-1/3) z_nu(1) * z_xi(1, +1): nodes a = (1, 1, 1, 1), b = (1, -i, -1, i), c = (1, i, -1, -i)
#   over 4: abc = (1 + 1 + 1 + 1)/4 = 1; conj(a) b c = abc = 1 (a real); a conj(b) c = (1 - 1 + 1 - 1)/4 = 0;
#   a b conj(c) = 0; conj(a) conj(b) c = 0; R_n = 2 (sum c)/4 = 0; a^2 c = sum c = 0, b^2 c = (1 - i - 1 + i)/4
#   = 0, likewise the conjugates.  l_k = -2 + 1 + 1 = 0: loss (n-1)/n (on Z_35: 34/35, the audit's case).
# * R_n only: 4^(-1/3) z_nu=i * z_xi(1, +1): abc = 1, R_c, R_* sums 0, R_n sum 2 (1 + i)
#   (cogo.proofs.controls.broken_constructions module docstring): l_k = -1 + 8/4 = 1: loss (2P + n - 1)/n.
# * R_* only: 3^(-1/3) z_syn: a = b = c = (1, w, w^2)/3^(1/3): abc = 3/3 = 1, a^2 c = b^2 c = 1,
#   conj(a) b c = (1 + w + w^2)/3 = 0 and likewise every R_c sum, R_n = 2 (sum c)/3... = 0,
#   conj(a)^2 c = conj(b)^2 c = (1 + w^-1 + w^-2)/3 = 0: l_k = -1 + (1 + 1)/4 = -1/2: loss (n - 1 - P)/n.
# * Hermitian symmetry broken: sound blocks x at every pair, then c of node 2 (c = w 6^(-1/3), not real) at -k1
#   (k1 the first positive frequency) set to its value at +k1 instead of the conjugate: the reader must report
#   exactly "Hermitian symmetry fails at p=c, k=k1', node 2"
#   (k1' = min(k1, -k1)); the blocks read at +k are sound: every condition 0, loss s/n; not certified.
# * node outside its pair: sound blocks x at every pair plus one node with a = 1 at +-k1, b = 1 at frequency
#   0, c = 1 at +-k1: the reader must report exactly "node q: inputs supported on frequencies
#   [0, k1, -k1 sorted], ..." and drop it; the rest is sound: loss s/n; not certified.
# For even groups block_certificate adds its own problem ("even order"), expected as well.
# * exact zero test: values whose decision is known by hand (module docstring of cogo.proofs.certificates.exact_zero).

def _sound_block(exact: bool = True) -> PartialSolution:
    return (z_syn(exact=exact) * z_nu(1, exact=exact)) * abc_normalizer(6, exact)


def _rg_only(exact=True):
    x = _sound_block(exact)
    return PartialSolution("R_g only: c doubled", x.a, x.b, np.asarray([2 * v for v in x.c], dtype=object)
                           if exact else 2 * x.c)


def _rc_only(exact=True):
    return (z_nu(1, exact=exact) * z_xi(1, 1, exact=exact)) * abc_normalizer(4, exact)


def _rn_only(exact=True):
    return (z_nu_i(exact=exact) * z_xi(1, 1, exact=exact)) * abc_normalizer(4, exact)


def _rs_only(exact=True):
    return z_syn(exact=exact) * abc_normalizer(3, exact)


def _hand_loss(G, l_k: Fraction) -> Fraction:
    """``(2/n) P l_k + (n - 1)/n``: blocks with ``l_k`` at every pair, ``l = 0`` at self-conjugate frequencies."""
    P, _ = _counts(G)
    return 2 * P * l_k / G.order + Fraction(G.order - 1, G.order)


#: name -> (statement, block builder, l_k per pair (by hand), conditions the block certificate must find
#: nonzero, reader problem (None: none), applies)
BLOCK_CONTROLS: dict = {
    "block route: R_g only": ("blocks 6^(-1/3) z_syn * z_nu(1) with c doubled: abc = 2, only R_g fails; loss (n-1)/n",
                              _rg_only, Fraction(0), ["R_g"], None),
    "block route: R_c only": ("blocks 4^(-1/3) z_nu(1) * z_xi(1,+1): every sum of SPEC 6 but conj(a) b c = 1; "
                              "only R_c fails; loss (n-1)/n", _rc_only, Fraction(0), ["R_c"], None),
    "block route: R_n only": ("blocks 4^(-1/3) z_nu=i * z_xi(1,+1): only R_n fails; loss (2P + n - 1)/n",
                              _rn_only, Fraction(1), ["R_n"], None),
    "block route: R_* only": ("blocks 3^(-1/3) z_syn: a^2 c = b^2 c = 1, only R_* fails; loss (n - 1 - P)/n",
                              _rs_only, Fraction(-1, 2), ["R_*"], None),
    "block route: hat gamma tripled": ("z_F4/6 with every hat value gamma_k tripled: R_n at each order-4 frequency is "
                                       "-2 times its uncorrected value 2 (1 + s i), nothing else changes (the hat's "
                                       "R_c, R_* sums are 0): l_k = -1 + 4 * 2 = 7 there, -1 at k0; loss 8(n-3)/n "
                                       "(without the hat: 2(n-3)/n)", None,
                                       lambda G: Fraction(8 * (G.order - 3), G.order), ["R_n"], None),
    "block route: Hermitian symmetry broken": ("sound blocks, c of node 2 at -k1 equal to its value at k1 (not "
                                               "its conjugate): the reader reports exactly that entry; not certified", _sound_block, Fraction(-1), [],
                                               "hermitian"),
    "block route: node outside its pair": ("sound blocks plus a node with a at +-k1 and b at 0: the reader "
                                           "reports exactly that node; not certified", _sound_block, Fraction(-1),
                                           [], "support"),
}


def _block_control_network(G, name: str, design: Any = None):
    """The exact network of a block control and the reader problem expected (by hand)."""
    _, build, _, _, kind = BLOCK_CONTROLS[name]
    if design is None and build is None:  # the hat control: z_F4/6 with its hat values gamma_k tripled
        f = designs.f46_design(G, exact=True)
        blocks = [Block(b.k, b.part, {k2: sympy.expand(3 * g) for k2, g in b.c_ext.items()}) for b in f.blocks]
        d = BlockDesign(G, name, blocks, True)
    elif design is None:
        part = build(True)
        d = BlockDesign(G, name, [Block(int(k), part) for k in G.positive_frequencies], True)
    else:
        d = design
    net = d.to_network()
    k1 = int(G.positive_frequencies[0])
    k1n = int(G.neg[k1])
    expected_problems: list = []
    if kind == "hermitian":
        # node 2 of 6^(-1/3) z_syn * z_nu(1) is (z_syn node 1, z_nu node 0): c = w 6^(-1/3), not real; its entry at
        # -k1 is set to the entry at +k1 itself instead of its conjugate
        z = net.z.copy()
        z[2, k1n, 2] = z[2, k1, 2]
        net = Network(G, z, exact=True)
        expected_problems = [f"Hermitian symmetry fails at p=c, k={min(k1, k1n)}, node 2"]
    elif kind == "support":
        extra = np.full((3, G.order, 1), sympy.Integer(0), dtype=object)
        extra[0, k1, 0] = extra[0, k1n, 0] = sympy.Integer(1)
        extra[1, 0, 0] = sympy.Integer(1)
        extra[2, k1, 0] = extra[2, k1n, 0] = sympy.Integer(1)
        net = Network(G, np.concatenate([net.z, extra], axis=2), exact=True)
        expected_problems = [f"node {d.q}: inputs supported on frequencies {sorted({0, k1, k1n})}, "
                             "not on one pair k, -k (k != 0)"]
    return d, net, expected_problems


def _numeric_block_control(G, net, kind, want_loss: Fraction, want_nonzero: list, details: dict) -> tuple:
    """The numeric outcome of a block control: ``(caught, residual)``; ``details`` gets the loss and conditions.

    The float64 real-space loss of the real weights on all pairs must match the closed form to 1e-9 and,
    for the controls without a reader problem, the conditions whose float64 residual exceeds
    :data:`COND_TOL` at the pair frequencies (``k != -k``; the blocks live there) must be exactly the ones
    the control breaks.  The Hermitian control builds a network that is not real: its numeric outcome is
    that it is not real.
    """
    num = net.to_numeric() if net.exact else net
    if kind == "hermitian":
        details.update(loss=float("nan"), route="the network is not real (no real weights)")
        return not num.is_real(), 0.0
    loss = real_loss(*num.to_weights(real=True), group=G)
    caught = abs(loss - float(want_loss)) <= 1e-9 * max(1.0, abs(float(want_loss)))
    details.update(loss=loss, route="real-space loss of the real weights on all pairs (float64)")
    if kind is None:
        pairs = np.array([int(k) != int(G.neg[k]) for k in range(G.order)])
        worst = {cond: float(np.abs(arr[..., pairs]).max(initial=0.0))
                 for cond, arr in condition_residuals(num).as_dict().items()}
        nonzero = [cond for cond, v in worst.items() if v > COND_TOL]
        details.update(nonzero_conditions=nonzero, condition_residuals=worst,
                       route=details["route"] + " and the float64 condition residuals at the pairs")
        caught = caught and nonzero == want_nonzero
    return caught, abs(loss)


def run_block_control(name: str, group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
    """Run one control of :data:`BLOCK_CONTROLS` through the reader and both certificate routes
    (``design``, an exact BlockDesign, replaces the hand-built one, for testing the checker).

    CAUGHT iff (exact) the design read off the network has one block of the
    right size at every pair, the reader reports exactly the expected problem,
    both routes of :func:`cogo.proofs.certificates.block_certificate.block_certificate` find
    exactly the expected conditions nonzero (proven, nothing undecided), the
    exact loss equals the closed form on both routes, the routes agree, and
    neither certifies the network; (numeric) the float64 real-space loss on all
    pairs matches the closed form to 1e-9 and exactly the expected conditions
    have float64 residuals above ``COND_TOL`` at the pair frequencies
    (:func:`_numeric_block_control`).

    >>> r = run_block_control("block route: R_c only", 35)      # the audit's Z_35 block: loss 34/35, R_c only
    >>> r.passed, r.details["loss"], r.details["nonzero_conditions"]
    (True, '34/35', ['R_c'])
    """
    method = check_method(method)
    G = as_group(group)
    statement, build, l_k, want_nonzero, kind = BLOCK_CONTROLS[name]
    want_loss = l_k(G) if callable(l_k) else _hand_loss(G, l_k)
    details: dict = {"expected_loss": str(want_loss), "expected_nonzero": want_nonzero}
    with Timer() as t:
        d, net, want_problems = _block_control_network(G, name, design)
        if method == "numeric":
            caught, residual = _numeric_block_control(G, net, kind, want_loss, want_nonzero, details)
        else:
            read, problems = design_from_network(net)
            P, _ = _counts(G)
            shape_ok = (sorted(b.k for b in read.blocks) == sorted(int(k) for k in G.positive_frequencies)
                        and sorted(b.q for b in read.blocks) == sorted(b.q for b in d.blocks) and len(read.blocks) == P)
            certs = {route: block_certificate(read, fast=(route == "Q(zeta_L)"))
                     for route in ("Q(zeta_L)", "sympy")}
            even = [] if G.is_odd else [f"{G} has even order: some k != 0 equals -k, blocks are not defined there"]
            per_route = {}
            for route, c in certs.items():
                c.structure.extend(problems)  # as in optimality(): the reader's problems belong to the certificate
                nonzero = [cond for cond, ok in c.zero.items() if not ok]
                loss_ok = (decide_zero(c.loss - sympy.Rational(want_loss.numerator, want_loss.denominator)) is True
                           and equals_by_evaluation(c.loss, want_loss))  # beside the zero test: an evaluation to 40 digits
                per_route[route] = {"nonzero": nonzero, "loss": str(c.loss), "undecided": list(c.undecided),
                                    "structure": list(c.structure), "certified": c.optimal,
                                    "computed_by": sorted(c.routes),
                                    "ok": (nonzero == want_nonzero and loss_ok and not c.undecided
                                           and (c.routes == {"sympy"} if route == "sympy" else bool(c.routes))
                                           and list(c.structure) == even + want_problems and not c.optimal)}
            a, b = certs["Q(zeta_L)"], certs["sympy"]
            agree = a.zero == b.zero and decide_zero(a.loss - b.loss) is True
            caught = shape_ok and problems == want_problems and agree and all(v["ok"] for v in per_route.values())
            details.update(loss=per_route["sympy"]["loss"], nonzero_conditions=per_route["sympy"]["nonzero"],
                           reader_problems=problems, expected_reader_problems=want_problems,
                           routes=per_route, routes_agree=bool(agree), blocks_read=len(read.blocks),
                           route="Design.to_network -> design_from_network (exact supports, Hermitian check) -> "
                                 "block_certificate on both routes (Q(zeta_L) and sympy) -> exact zero test")
            residual = max(a.largest, b.largest)
        details["failing_conditions"] = details.get("nonzero_conditions", []) + (
            ["structure (reader)"] if details.get("reader_problems") else [])
        details["expected_failing"] = want_nonzero + (["structure (reader)"] if kind else [])
    stmt = statement + ("; CAUGHT iff the reader, both certificate routes (agreeing) and the exact zero test give "
                        "exactly the outcome derived by hand" if method == "exact"
                        else "; CAUGHT iff the float64 real-space loss matches the closed form to 1e-9 and exactly "
                             "the conditions it breaks have float64 residuals above COND_TOL")
    return make_result(name, stmt, method, caught, residual, t, negative_control=True, **details)



def _block_fn(name: str) -> Callable:
    return _control(name, run_block_control,
                    f"Block-route control {name!r}: {BLOCK_CONTROLS[name][0]} (see run_block_control).")


_BLOCK_ALL = [_block_fn(name) for name in BLOCK_CONTROLS]
globals().update({f.__name__: f for f in _BLOCK_ALL})   # each by its name: control_block_route_...
