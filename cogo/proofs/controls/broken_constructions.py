"""Negative controls on broken constructions: the conditions that fail and the closed-form loss (SPEC 5-7).

The other negative controls break the proof machinery: :mod:`cogo.proofs.controls.block_route` (the reader and
the block certificate), :mod:`cogo.proofs.controls.exact_tools` (the exact zero test, the formal indeterminates),
:mod:`cogo.proofs.controls.theorem_rows` (the theorem rows handed broken objects) and :mod:`cogo.proofs.controls.unseen_inputs`;
every control is a row of :data:`cogo.proofs.registry.CONTROL_ROWS`.

A control names the conditions of SPEC 5 that must fail and the exact loss
the broken network must have.  The expected loss is a closed form in the
group order ``n`` derived by hand below (never computed by the code under
test; the tests compare each closed form with the float64 real-space loss).
A control is reported CAUGHT only when

* the set of failing conditions equals the expected set (largest residual of
  each condition from :func:`cogo.analysis.verdict.network_verdict.largest_residuals`, float64,
  failing above 1e-9), and
* the loss equals the expected value: exactly (``method='exact'``: the general
  loss of SPEC 5 computed by :func:`cogo.algebra.fourier_loss` in exact
  ``Q(zeta_L)`` arithmetic, :func:`cogo.proofs.certificates.block_certificate.general_loss_certificate`;
  above order :data:`EXACT_LOSS_MAX_ORDER` the exact block certificate for odd
  groups) or to relative 1e-9 (``method='numeric'``: the real-space loss of
  the real weights on all pairs, :func:`cogo.algebra.real_loss`).

Closed forms (``P`` = number of pairs ``{k, -k}`` with ``k != -k``, ``s`` =
number of self-conjugate frequencies ``k = -k != 0``; ``2P + s = n - 1``).
A frequency without a block has ``l_k = 0`` (every potential at ``k`` is 0).

* ``z_nu blocks``: ``2^(-1/3) . z_nu(1)`` at every k of a pair.  Block sums:
  ``abc = 1``; ``conj(a) b c = a conj(b) c = conj(a) conj(b) c = 1`` (R_c);
  R_n and R_* sums 0.  ``l_k = -2 + 1 + 3 = 2``; loss ``(4P + n - 1)/n``
  (odd n: ``3 (n-1)/n``).  Fails R_c, and R_g when ``s > 0``.
* ``order-4 blocks, no hat``: ``4^(-1/3) . (z_{nu=i} * z_xi(1, +1))`` at every k of a pair.
  ``abc = 1``, R_c and R_* sums 0, R_n sum ``2 (1 + i)``: ``l_k = -1 + |2(1+i)|^2/4 = 1``;
  loss ``(2P + n - 1)/n``.  Fails R_n, and R_g when ``s > 0``.
* ``z_F4/6 without hat`` (odd n >= 5): the order-6 block at ``k0`` (``l = -1``) and
  order-4 blocks elsewhere (``l = 1``): loss ``(-2 + (n-3) + n - 1)/n = 2 (n-3)/n``.  Fails R_n.
* ``perturbed z_F6`` (odd n): the output weight of node 0 of the block at the first
  frequency times 11/10.  Node 0 of ``6^(-1/3) z_syn * z_nu`` has
  ``a = b = c = 6^(-1/3)``, so each of its monomials is 1/6 and every monomial
  sum of the block moves by ``e = 1/60``: ``abc = 1 + e``, three R_c entries
  ``e``, R_n ``2 (2e)``, four R_* entries ``e``; ``l_k = -1 + e^2 (1 + 3 + 4 + 1)
  = -1 + 9 e^2`` at ``+-k``: loss ``18 e^2 / n = 1 / (200 n)``.  Fails all four.

Example: the six controls, each caught with its closed form (n = 7: ``3 (n-1)/n``,
``(2P + n - 1)/n``, ``2 (n-3)/n``, ``1/(200 n)``; n = 3: ``(n-1)/n``, ``(n-1)(n+7)/(2 n^3)``).

>>> rows = [f(7) for f in (control_z_nu_blocks, control_order4_blocks, control_uncorrected_f46, control_perturbed_f6)]
>>> [(r.passed, r.details["failing_conditions"], r.details["loss"]) for r in rows]
[(True, ['R_c'], '18/7'), (True, ['R_n'], '12/7'), (True, ['R_n'], '8/7'), (True, ['R_g', 'R_c', 'R_n', 'R_*'], '1/1400')]
>>> [(r.passed, r.details["loss"]) for r in (control_mem_doubled(3), control_mem_dropped(3))]
[(True, '2/3'), (True, '10/27')]

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import re
import time
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.cyclotomic import exact_real_loss
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.loss import real_loss
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_xi
from cogo.solvers import constructions
from cogo.algebra.block import Block
from cogo.solvers.constructions import RootOfUnityNetwork
from cogo.solvers.designs import abc_normalizer, BlockDesign
from cogo.analysis.verdict.network_verdict import largest_residuals
from cogo.proofs.certificates.block_certificate import block_certificate, general_loss_certificate
from cogo.proofs.certificates.mem_certificate import character_sum_onehot
from cogo.proofs.certificates.mem_points import POINTS_ROUTE, mem_points, points_certificate, points_loss
from cogo.proofs.results import COND_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import decide_zero
from cogo.solvers import designs

__all__ = ["equals_by_evaluation", "CONTROLS", "run_control", "EXACT_LOSS_MAX_ORDER", "MEM_CONTROL_MAX_ORDER", "control_name", "control_z_nu_blocks",
           "control_order4_blocks", "control_uncorrected_f46", "control_perturbed_f6", "control_mem_doubled",
           "control_mem_dropped", "MemControl"]

#: Up to this order the exact loss of a control is the general loss in Q(zeta_L); above, odd groups use
#: the block certificate and even groups the general loss all the same (the controls are sparse).
EXACT_LOSS_MAX_ORDER = 31
CONDITIONS = ("R_g", "R_c", "R_n", "R_*")


def equals_by_evaluation(x: Any, want: Any, digits: int = 40) -> bool:
    """``x`` (an exact expression from the code under test) and the hand-derived ``want`` agree to ``10^-(digits-10)``
    when both are evaluated to ``digits`` significant digits (sympy's ``N``; never the project's zero test), a check
    beside :func:`cogo.proofs.certificates.exact_zero.decide_zero` so that an expected value cannot be matched by the zero test alone.

    >>> equals_by_evaluation(sympy.Rational(1, 3) + sympy.sqrt(2) - sympy.sqrt(2), Fraction(1, 3))
    True
    >>> equals_by_evaluation(sympy.Rational(1, 3) + sympy.Rational(1, 10**25), Fraction(1, 3))
    False
    """
    to = (lambda v: sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sympy.sympify(v))
    diff = sympy.N(to(x) - to(want), digits)
    scale = max(1.0, abs(complex(sympy.N(to(want), 17))))
    return bool(abs(complex(diff)) <= scale * 10.0 ** (10 - digits))


def _counts(G: FiniteAbelianGroup) -> tuple[int, int]:
    P = len(G.positive_frequencies)
    return P, G.order - 1 - 2 * P


def _design_all(G: FiniteAbelianGroup, part: PartialSolution, name: str, exact: bool) -> BlockDesign:
    return BlockDesign(G, name, [Block(int(k), part) for k in G.positive_frequencies], exact)


# --------------------------------------------------------------------------- the controls
def _z_nu_blocks(G, exact):
    return _design_all(G, z_nu(1, exact=exact) * abc_normalizer(2, exact), "z_nu blocks", exact)


def _z_nu_expect(G):
    P, s = _counts(G)
    return Fraction(4 * P + G.order - 1, G.order), ["R_g", "R_c"] if s else ["R_c"]


def _order4(G, exact):
    return _design_all(G, (z_nu_i(exact=exact) * z_xi(1, 1, exact=exact)) * abc_normalizer(4, exact),
                       "order-4 blocks without hat", exact)


def _order4_expect(G):
    P, s = _counts(G)
    return Fraction(2 * P + G.order - 1, G.order), ["R_g", "R_n"] if s else ["R_n"]


def _uncorrected(G, exact):
    return designs.f46_design(G, exact=exact, corrected=False)


def _uncorrected_expect(G):
    return Fraction(2 * (G.order - 3), G.order), ["R_n"]


def _perturbed(G, exact):
    d = designs.f6_design(G, exact=exact)
    blk = d.blocks[0]
    c = blk.part.c.copy()
    c[0] = sympy.expand(c[0] * sympy.Rational(11, 10)) if exact else c[0] * 1.1
    part = PartialSolution(blk.part.name + " (perturbed)", blk.part.a, blk.part.b, c, dict(blk.part.params))
    return BlockDesign(G, "z_F6 (perturbed)", [Block(blk.k, part, dict(blk.c_ext))] + list(d.blocks[1:]), exact)


def _perturbed_expect(G):
    return Fraction(1, 200 * G.order), list(CONDITIONS)


class MemControl:
    """A broken z_M: ``modify(Wa, Wb, Wc)`` acts on real weights (node-major) after the gauge of the docstring.

    >>> tripled = MemControl("W_c tripled", lambda Wa, Wb, Wc: (Wa, Wb, 3 * Wc))
    >>> r = control_mem_doubled(3, design=tripled)         # not the predicted broken object: loss 8/3, not 2/3
    >>> r.passed, r.details["loss"], r.details["expected_loss"]
    (False, '8/3', '2/3')
    """

    def __init__(self, name: str, modify):
        self.name, self.modify = name, modify

    def numeric(self, G: FiniteAbelianGroup):
        """The library's numeric z_M, modified on its real weights (float64), as a numeric network."""
        Wa, Wb, Wc = self.modify(*constructions.z_M(G).to_weights(real=True))
        return Network.from_weights(Wa, Wb, Wc, G)

    def exact_weights(self, G: FiniteAbelianGroup):
        """Rational weights of the broken network (gauged z_M, one-hot positions from exact character sums)."""
        Ua, Ub = constructions.mem_factors(G)
        n = G.order
        E = (Ua.E[:, :, :, None] + Ub.E[:, :, None, :]).reshape(3, n, -1)
        prod = RootOfUnityNetwork(G, E, Ua.L)
        found = [character_sum_onehot(prod, p) for p in range(3)]
        if not all(ok for ok, _ in found):
            return None
        q = E.shape[2]
        W = [np.zeros((q, n), dtype=object) for _ in range(3)]
        for p, (_, where) in enumerate(found):
            W[p][:] = 0
            W[p][np.arange(q), where] = Fraction(1, 2) if p == 2 else 1
        return self.modify(W[0], W[1], W[2].T.copy())


def _double_c(Wa, Wb, Wc):
    return Wa, Wb, Wc * 2


def _drop_node0(Wa, Wb, Wc):
    return Wa[1:], Wb[1:], Wc[:, 1:]


#: The z_M controls build z_M in full (n^2 nodes; their cost grows as n^4) up to this order; above it they
#: run on z_M's integer point counts (:mod:`cogo.proofs.certificates.mem_points`: conditions by Fourier inversion, the loss by
#: Parseval, O(n^3)), so they run at every order.
MEM_CONTROL_MAX_ORDER = 31
#: The defect of each z_M control, as :func:`cogo.proofs.certificates.mem_points.mem_points` names it.
_MEM_DEFECT = {"z_M, output weights doubled": "doubled", "z_M without node (0, 0)": "dropped"}


def _mem_applies(G: FiniteAbelianGroup) -> bool:
    return True


_MEM_WHY = "runs at every order"
NEEDS_PAIR = "needs a frequency pair k != -k"


def _mem_doubled_expect(G):
    return Fraction(G.order - 1, G.order), ["R_g"]


def _mem_dropped_expect(G):
    n = G.order
    return Fraction((n - 1) * (n + 7), 2 * n ** 3), list(CONDITIONS)


#: name -> (statement, builder (group, exact) of a BlockDesign or a MemControl, expected (loss, failing),
#: applies(group), the reason printed when it does not apply)
CONTROLS: dict = {
    "z_nu blocks": ("blocks 2^(-1/3).z_nu(1) at every frequency pair: R_c fails (and R_g at self-conjugate "
                    "frequencies); loss (4P + n - 1)/n", _z_nu_blocks, _z_nu_expect,
                    lambda G: len(G.positive_frequencies) >= 1, NEEDS_PAIR),
    "order-4 blocks without hat": ("blocks 4^(-1/3).(z_nu=i * z_xi(1,+1)) at every frequency pair: R_n fails "
                                   "(and R_g at self-conjugate frequencies); loss (2P + n - 1)/n", _order4,
                                   _order4_expect, lambda G: len(G.positive_frequencies) >= 1, NEEDS_PAIR),
    "z_F4/6 without hat correction": ("z_F4/6 without the hat correction (SPEC 7.3): R_n fails; loss 2(n-3)/n",
                                      _uncorrected, _uncorrected_expect,
                                      lambda G: G.is_odd and len(G.positive_frequencies) >= 2,
                                      "needs odd order and two frequency pairs: z_F4/6 is its base"),
    "perturbed z_F6": ("z_F6 with c of node 0 of the first block times 11/10: all four conditions fail; "
                       "loss 1/(200 n)", _perturbed, _perturbed_expect, lambda G: G.is_odd,
                       "needs odd order: z_F6 is its base"),
    "z_M, output weights doubled": ("z_M with W_c doubled: every potential doubles, R_g fails; loss (n-1)/n",
                                    lambda G, exact: MemControl("z_M, output weights doubled", _double_c),
                                    _mem_doubled_expect, _mem_applies, _MEM_WHY),
    "z_M without node (0, 0)": ("z_M without its node (0, 0): all four conditions fail; loss (n-1)(n+7)/(2 n^3)",
                                lambda G, exact: MemControl("z_M without node (0, 0)", _drop_node0),
                                _mem_dropped_expect, _mem_applies, _MEM_WHY),
}


def run_control(name: str, group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
    """Run one control of :data:`CONTROLS` (``design``, a BlockDesign or a :class:`MemControl`, replaces the
    broken object, for testing the checker).

    Returns
    -------
    TheoremResult
        A negative control (``negative_control=True``): ``passed`` when exactly the predicted conditions
        fail and the loss is the closed form (exactly, or to 1e-9 with ``method='numeric'``); the
        expected and found loss and failing conditions are in ``details``.

    Examples
    --------
    >>> r = run_control("perturbed z_F6", 7)
    >>> r.passed, r.negative_control, r.details["failing_conditions"], r.details["loss"]   # caught: loss 1/(200 n)
    (True, True, ['R_g', 'R_c', 'R_n', 'R_*'], '1/1400')
    """
    method = check_method(method)
    G = as_group(group)
    statement, build, expect = CONTROLS[name][:3]
    exact = method == "exact"
    want_loss, want_fail = expect(G)
    details: dict = {"expected_loss": str(want_loss), "expected_failing": want_fail}
    with Timer() as t:
        d = design if design is not None else build(G, exact)
        mem = isinstance(d, MemControl)
        points = (mem_points(G, _MEM_DEFECT[name]) if mem and design is None and name in _MEM_DEFECT
                  and G.order > MEM_CONTROL_MAX_ORDER else None)
        if points is not None:  # z_M is not built: its integer point counts (cogo.proofs.certificates.mem_points)
            return _mem_points_control(name, statement, G, points, method, want_loss, want_fail, details, t)
        net = d.numeric(G) if mem else d.to_network()
        num = net.to_numeric() if net.exact else net
        res = largest_residuals(num)
        failing = [c for c in CONDITIONS if res[c] > COND_TOL]
        if exact and mem:
            W = d.exact_weights(G)
            loss = exact_real_loss(*W, G) if W is not None else None
            loss_ok = loss is not None and loss == want_loss
            details.update(loss=str(loss), route="real-space loss of SPEC 1 in Q of the gauged rational weights "
                                                 "(one-hot positions of z_M by exact character sums)")
        elif exact:
            if G.order <= EXACT_LOSS_MAX_ORDER or not G.is_odd:
                cert = general_loss_certificate(net)
                loss = cert["loss"]
                route = f"general loss of SPEC 5 (fourier_loss) in exact Q(zeta_{cert['L']})"
                loss_ok = loss is not None and loss == want_loss   # two rationals, compared exactly
            else:
                bc = block_certificate(d)
                # the value found is reported, never the closed form; both the exact zero test and an evaluation
                # to 40 digits (independent of it) must find it equal to the closed form
                loss = bc.loss
                loss_ok = (decide_zero(bc.loss - sympy.Rational(want_loss.numerator, want_loss.denominator)) is True
                           and equals_by_evaluation(bc.loss, want_loss))
                route = "exact block certificate (blocks read from the design)"
            details.update(loss=str(loss), route=route)
        else:
            loss = real_loss(*num.to_weights(real=True), group=G)
            loss_ok = abs(loss - float(want_loss)) <= 1e-9 * max(1.0, float(want_loss))
            details.update(loss=loss, route="real-space loss of the real weights on all pairs (float64)")
        caught = loss_ok and sorted(failing) == sorted(want_fail)
        details.update(failing_conditions=failing, largest_residuals=res, loss_matches=bool(loss_ok),
                       conditions_match=sorted(failing) == sorted(want_fail), nodes=int(net.q))
        residual = max((res[c] for c in failing), default=0.0)
    stmt = statement + ("; CAUGHT iff exactly the named conditions fail (float64 residuals > 1e-9) and the loss "
                        + ("equals the closed form exactly" if exact else "matches the closed form to 1e-9"))
    return make_result(name, stmt, method, caught, residual, t, negative_control=True, **details)


def _mem_points_control(name: str, statement: str, G: FiniteAbelianGroup, points: Any, method: str, want_loss: Any,
                        want_fail: list, details: dict, t: Any) -> TheoremResult:
    """A z_M control above :data:`MEM_CONTROL_MAX_ORDER`: the same verdict from the network's integer point counts.

    Exact: the failing conditions decided by Fourier inversion and the general loss of SPEC 5 by Parseval, both
    on integers (:mod:`cogo.proofs.certificates.mem_points`); numeric: the conditions whose complex128 residual exceeds
    ``COND_TOL`` and that loss as a float, to 1e-9.
    """
    exact = method == "exact"
    cert = points_certificate(points)
    res = {c: float(cert.max_abs[c]) for c in CONDITIONS}
    failing = cert.failing if exact else [c for c in CONDITIONS if res[c] > COND_TOL]
    loss = points_loss(points)
    loss_ok = loss == want_loss if exact else abs(float(loss) - float(want_loss)) <= 1e-9 * max(1.0, float(want_loss))
    caught = loss_ok and sorted(failing) == sorted(want_fail)
    details.update(loss=str(loss) if exact else float(loss), route=POINTS_ROUTE, failing_conditions=failing,
                   largest_residuals=res, loss_matches=bool(loss_ok),
                   conditions_match=sorted(failing) == sorted(want_fail),
                   nodes=int(np.count_nonzero(points.r[3][: G.order ** 2])))
    residual = max((res[c] for c in failing), default=0.0)
    stmt = statement + ("; CAUGHT iff exactly the named conditions fail ("
                        + ("decided exactly" if exact else "complex128 residuals > 1e-9") + ") and the loss "
                        + ("equals the closed form exactly" if exact else "matches the closed form to 1e-9"))
    t.seconds = time.perf_counter() - t.t0  # called inside run_control's Timer block
    return make_result(name, stmt, method, caught, residual, t, negative_control=True, **details)


def control_name(name: str) -> str:
    """The function name of a control made by :func:`_control`: ``control_`` and ``name`` in identifier letters.

    >>> control_name("block route: R_g only")
    'control_block_route_R_g_only'
    """
    return "control_" + re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z]", "_", name)).strip("_")


def _control(name: str, run: Callable[..., TheoremResult], doc: str) -> Callable:
    """The control function :func:`control_name` that calls ``run(name, group, method, design)``."""
    def control(group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
        return run(name, group, method, design)

    control.__name__ = control_name(name)
    control.__doc__ = doc
    return control


def _fn(name: str) -> Callable:
    return _control(name, run_control, f"Negative control {name!r}: {CONTROLS[name][0]} (see the module docstring).")


control_z_nu_blocks = _fn("z_nu blocks")
control_order4_blocks = _fn("order-4 blocks without hat")
control_uncorrected_f46 = _fn("z_F4/6 without hat correction")
control_perturbed_f6 = _fn("perturbed z_F6")
control_mem_doubled = _fn("z_M, output weights doubled")
control_mem_dropped = _fn("z_M without node (0, 0)")
