"""Negative controls: broken networks that must fail exactly as predicted (SPEC 5-7).

A control names the conditions of SPEC 5 that must fail and the exact loss
the broken network must have.  The expected loss is a closed form in the
group order ``n`` derived by hand below (never computed by the code under
test; the tests compare each closed form with the float64 real-space loss).
A control is reported CAUGHT only when

* the set of failing conditions equals the expected set (largest residual of
  each condition from :func:`cogo.analysis.optimality.largest_residuals`, float64,
  failing above 1e-9), and
* the loss equals the expected value: exactly (``method='exact'``: the general
  loss of SPEC 5 computed by :func:`cogo.algebra.fourier_loss` in exact
  ``Q(zeta_L)`` arithmetic, :func:`cogo.proofs.certificates.general_loss_certificate`;
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
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.groups import FiniteAbelianGroup

from cogo.algebra.spec import parse_group
from cogo.algebra.loss import real_loss
from cogo.algebra.block import Block
from cogo.solvers.designs import BlockDesign, abc_normalizer
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_xi
from cogo.proofs.results import COND_TOL, METHODS, TheoremResult, Timer, check_method, make_result
from cogo.proofs.rows import Row

__all__ = ["CONTROLS", "controls_for", "run_control", "EXACT_LOSS_MAX_ORDER", "control_z_nu_blocks",
           "control_order4_blocks", "control_uncorrected_f46", "control_perturbed_f6", "control_mem_doubled",
           "control_mem_dropped", "control_mem_node_counts", "control_mem_certificate", "control_membership", "MemControl"]

#: Up to this order the exact loss of a control is the general loss in Q(zeta_L); above, odd groups use
#: the block certificate and even groups the general loss all the same (the controls are sparse).
EXACT_LOSS_MAX_ORDER = 31
CONDITIONS = ("R_g", "R_c", "R_n", "R_*")


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
    from cogo.solvers.designs import f46_design

    return f46_design(G, exact=exact, corrected=False)


def _uncorrected_expect(G):
    return Fraction(2 * (G.order - 3), G.order), ["R_n"]


def _perturbed(G, exact):
    from cogo.solvers.designs import f6_design

    d = f6_design(G, exact=exact)
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
        from cogo.algebra.network import Network
        from cogo.solvers.constructions import z_M

        Wa, Wb, Wc = self.modify(*z_M(G).to_weights(real=True))
        return Network.from_weights(Wa, Wb, Wc, G)

    def exact_weights(self, G: FiniteAbelianGroup):
        """Rational weights of the broken network (gauged z_M, one-hot positions from exact character sums)."""
        from cogo.solvers.constructions import RootOfUnityNetwork, mem_factors
        from cogo.proofs.certificates import character_sum_onehot

        Ua, Ub = mem_factors(G)
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


#: The z_M controls run on every group up to this order (their cost grows as n^4) and on every group
#: without a frequency pair k != -k (Z_2, Z_2 x Z_2, ...), where no block control exists.
MEM_CONTROL_MAX_ORDER = 31


def _mem_applies(G: FiniteAbelianGroup) -> bool:
    return G.order <= MEM_CONTROL_MAX_ORDER or len(G.positive_frequencies) == 0


_MEM_WHY = f"needs order <= {MEM_CONTROL_MAX_ORDER} or no pair k != -k: z_M is built in full, with n^2 nodes"
_NEEDS_PAIR = "needs a frequency pair k != -k"


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
                    lambda G: len(G.positive_frequencies) >= 1, _NEEDS_PAIR),
    "order-4 blocks without hat": ("blocks 4^(-1/3).(z_nu=i * z_xi(1,+1)) at every frequency pair: R_n fails "
                                   "(and R_g at self-conjugate frequencies); loss (2P + n - 1)/n", _order4,
                                   _order4_expect, lambda G: len(G.positive_frequencies) >= 1, _NEEDS_PAIR),
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

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.

    Examples
    --------
    >>> r = run_control("perturbed z_F6", 7)
    >>> r.passed, r.negative_control, r.details["failing_conditions"], r.details["loss"]   # caught: loss 1/(200 n)
    (True, True, ['R_g', 'R_c', 'R_n', 'R_*'], '1/1400')
    """
    from cogo.analysis.optimality import largest_residuals

    method = check_method(method)
    G = parse_group(group)
    statement, build, expect = CONTROLS[name][:3]
    exact = method == "exact"
    want_loss, want_fail = expect(G)
    details: dict = {"expected_loss": str(want_loss), "expected_failing": want_fail}
    with Timer() as t:
        d = design if design is not None else build(G, exact)
        mem = isinstance(d, MemControl)
        net = d.numeric(G) if mem else d.to_network()
        num = net.to_numeric() if net.exact else net
        res = largest_residuals(num)
        failing = [c for c in CONDITIONS if res[c] > COND_TOL]
        if exact and mem:
            from cogo.algebra.cyclotomic import exact_real_loss

            W = d.exact_weights(G)
            loss = exact_real_loss(*W, G) if W is not None else None
            loss_ok = loss is not None and loss == want_loss
            details.update(loss=str(loss), route="real-space loss of SPEC 1 in Q of the gauged rational weights "
                                                 "(one-hot positions of z_M by exact character sums)")
        elif exact:
            if G.order <= EXACT_LOSS_MAX_ORDER or not G.is_odd:
                from cogo.proofs.certificates import general_loss_certificate

                cert = general_loss_certificate(net)
                loss = cert["loss"]
                route = f"general loss of SPEC 5 (fourier_loss) in exact Q(zeta_{cert['L']})"
            else:
                from cogo.proofs.certificates import block_certificate

                from cogo.proofs.zero import decide_zero

                bc = block_certificate(d)
                same = decide_zero(bc.loss - sympy.Rational(want_loss.numerator, want_loss.denominator)) is True
                loss = want_loss if same else bc.loss  # exactly the closed form, or the exact value found
                route = "exact block certificate (blocks read from the design)"
            loss_ok = loss is not None and loss == want_loss
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


def _control(name: str, run: Callable[..., TheoremResult], doc: str) -> Callable:
    """The control function ``control_<name>`` that calls ``run(name, group, method, design)``."""
    def control(group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
        return run(name, group, method, design)

    control.__name__ = "control_" + re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z]", "_", name)).strip("_")
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
_ALL = [control_z_nu_blocks, control_order4_blocks, control_uncorrected_f46, control_perturbed_f6,
        control_mem_doubled, control_mem_dropped]


def controls_for(group: Any, with_kwargs: bool = False) -> list:
    """The control functions that apply to the group (at least two for every group): a query over
    :data:`CONTROL_ROWS`.

    Groups with a pair ``k != -k`` get the block controls; the two z_M controls
    run up to order :data:`MEM_CONTROL_MAX_ORDER` and on every group where each
    nonzero frequency is self-conjugate (Z_2, Z_2 x Z_2, ...).

    Returns
    -------
    list
        The control functions, or ``(function, kwargs)`` pairs with ``with_kwargs=True`` (``kwargs``
        ``{"methods": ("exact",)}`` for a control with no numeric form).

    Examples
    --------
    >>> [f.__name__ for f in controls_for(2)][2:7]         # Z_2: no pair k != -k: the z_M controls, then
    ['control_exact_zero_test', 'control_formal', 'control_mem_node_counts', 'control_mem_certificate', 'control_membership']
    >>> len(controls_for(7))          # 6 + 7 block-route + zero test + formal + two z_M rows + row 5 + rows 6, 7, 8, + 6
    27
    >>> [f.__name__ for f in controls_for(2)][7:]          # and those of cogo.proofs.controls_unseen
    ['control_mem_zero_frequency', 'control_zero_test_unseen']
    """
    G = parse_group(group)
    out = [(row.fn, {} if row.methods == METHODS else {"methods": row.methods})
           for row in CONTROL_ROWS if row.applies(G)]
    return out if with_kwargs else [fn for fn, _ in out]


# =========================================================================== block-route controls
# Controls of the proof machinery itself: each network below is built by hand to violate exactly one
# condition (or one premise of the block route), and goes through everything an exact certificate of the
# block route uses -- Design.to_network, the design reader with its exact support and Hermitian checks
# (design_from_network), the block certificate on BOTH routes (Q(zeta_L) and sympy; they must agree) and
# the exact zero test (cogo.proofs.zero).  The expected outcome is derived by hand (closed forms below, in
# P = number of pairs {k, -k} with k != -k, s = n - 1 - 2P self-conjugate frequencies); tests/test_verify.py
# compares every closed form with the float64 real-space loss on all pairs, which shares no code with the
# block certificate.  Loss of blocks at every pair (module docstring of cogo.proofs.certificates):
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
#   (cogo.proofs.controls module docstring): l_k = -1 + 8/4 = 1: loss (2P + n - 1)/n.
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
# * exact zero test: values whose decision is known by hand (module docstring of cogo.proofs.zero).

def _sound_block(exact: bool = True) -> PartialSolution:
    from cogo.catalogue.partial import z_syn

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
    from cogo.catalogue.partial import z_syn

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
    from cogo.algebra.network import Network

    _, build, _, _, kind = BLOCK_CONTROLS[name]
    if design is None and build is None:  # the hat control: z_F4/6 with its hat values gamma_k tripled
        from cogo.solvers.designs import f46_design

        f = f46_design(G, exact=True)
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
    from cogo.algebra.loss import condition_residuals

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
    both routes of :func:`cogo.proofs.certificates.block_certificate` find
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
    from cogo.proofs.certificates import block_certificate, design_from_network
    from cogo.proofs.zero import decide_zero

    method = check_method(method)
    G = parse_group(group)
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
                loss_ok = decide_zero(c.loss - sympy.Rational(want_loss.numerator, want_loss.denominator)) is True
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


#: Values whose exact decision is known by hand (zero / nonzero / undecided), as cogo.proofs.zero specifies.
def _zero_cases() -> list:
    w3 = sympy.exp(2 * sympy.pi * sympy.I / 3)
    w23 = [sympy.exp(2 * sympy.pi * sympy.I * j / 23) for j in range(23)]
    c2, c3 = sympy.Integer(2) ** sympy.Rational(1, 3), sympy.Integer(3) ** sympy.Rational(1, 3)
    return [
        ("1 + w + w^2 (w = exp(2 pi i/3))", 1 + w3 + w3**2, True),
        ("sum of the 23rd roots of unity", sympy.Add(*w23), True),
        ("2^(1/3) 3^(1/3) - 6^(1/3)", c2 * c3 - sympy.Integer(6) ** sympy.Rational(1, 3), True),
        ("(1 + i)^2 - 2 i", sympy.expand((1 + sympy.I) ** 2) - 2 * sympy.I, True),
        ("(sqrt(2) - 1)^100 (about 4e-39)", sympy.expand((sympy.sqrt(2) - 1) ** 100), False),
        ("2^(1/3) - 1259921049894873164767210607278228350570/10^39",
         c2 - sympy.Rational(1259921049894873164767210607278228350570, 10**39), False),
        ("4^(-1/3) - 2^(-2/3) + 10^-40", sympy.Integer(4) ** sympy.Rational(-1, 3)
         - sympy.Integer(2) ** sympy.Rational(-2, 3) + sympy.Rational(1, 10**40), False),
        ("conj(w23) - w23^22 (w23 = exp(2 pi i/23))", sympy.conjugate(w23[1]) - w23[1] ** 22, True),
        ("2^(1/3) - 3^(1/3) (distinct cube-root monomials)", c2 - c3, False),
        ("x (1 + w + w^2) + y (x, y indeterminates)", sympy.Symbol("x") * (1 + w3 + w3**2) + sympy.Symbol("y"), False),
        ("x (1 + w + w^2) + y (1 - w^3)", sympy.Symbol("x") * (1 + w3 + w3**2) + sympy.Symbol("y") * (1 - w3**3), True),
        ("sin(1)^2 + cos(1)^2 - 1 (true, not decidable by exact algebra here)",
         sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1, None),
        ("e - 2718281828459045235360287471352662497757/10^39 (transcendental)",
         sympy.E - sympy.Rational(2718281828459045235360287471352662497757, 10**39), None),
    ]


def run_zero_control(group: Any = None, method: str = "exact", cases: list | None = None) -> TheoremResult:
    """The exact zero test on values decided by hand: zero, nonzero (down to 1e-40) and undecided.

    ``cases`` (``(label, value, True | False | None)``) replace the built-in ones, for testing the checker.

    >>> r = run_zero_control()
    >>> r.passed, r.details["decisions"]["sin(1)^2 + cos(1)^2 - 1 (true, not decidable by exact algebra here)"]
    (True, 'undecided')
    """
    from cogo.proofs.zero import decide_zero

    method = check_method(method)
    name = "exact zero test"
    word = {True: "zero", False: "nonzero", None: "undecided"}
    with Timer() as t:
        got, wrong = {}, []
        from cogo.proofs.zero import is_nonzero_proven, is_zero_proven

        for label, value, want in (_zero_cases() if cases is None else cases):
            d = decide_zero(value)
            got[label] = word.get(d, repr(d))
            if d is not want or is_zero_proven(value) is not (want is True) \
                    or is_nonzero_proven(value) is not (want is False):
                wrong.append(label)
        G = parse_group(group) if group is not None else None
        if cases is None and G is not None and len(G.positive_frequencies) >= 1:
            # a block certificate with an undecided residual: sound blocks at every pair, c of node 0 of the
            # first times sin(1)^2 + cos(1)^2 (= 1, outside the fields decided exactly): "undecided", never certified
            from cogo.proofs.certificates import block_certificate

            x = _sound_block(True)
            c = np.asarray([x.c[0] * (sympy.sin(1) ** 2 + sympy.cos(1) ** 2)] + list(x.c[1:]), dtype=object)
            ks = [int(k) for k in G.positive_frequencies]
            d = BlockDesign(G, "undecided", [Block(ks[0], PartialSolution("x", x.a, x.b, c))]
                            + [Block(k, x) for k in ks[1:]], True)
            label = "block certificate with an undecided residual"
            for fast in (True, False):
                bc = block_certificate(d, fast=fast)
                want = "undecided" if G.is_odd else "refuted"  # even order: a structure problem refutes it
                got[f"{label} ({'Q(zeta_L)' if fast else 'sympy'} route)"] = bc.status
                if bc.status != want or bc.optimal or not bc.undecided:
                    wrong.append(label)
        caught = not wrong
    stmt = ("the exact zero test decides 13 values known by hand (zero after reduction in Q(zeta_L) or of cube "
            "roots, nonzero down to 1e-40, distinct cube-root monomials, polynomials in indeterminates, undecided "
            "transcendental ones) and a block certificate with an undecided residual: every decision must be the "
            "hand one (a numeric shortcut or an undecided read as zero is caught)")
    return make_result(name, stmt, "exact", caught, float(len(wrong)), t, negative_control=True, decisions=got,
                       wrong=wrong, failing_conditions=[f"{len(got) - len(wrong)}/{len(got)} decisions as by hand"],
                       expected_failing=[f"{len(got)}/{len(got)} decisions as by hand"], loss="n/a",
                       expected_loss="n/a")


def _block_fn(name: str) -> Callable:
    return _control(name, run_block_control,
                    f"Block-route control {name!r}: {BLOCK_CONTROLS[name][0]} (see run_block_control).")


_BLOCK_ALL = [_block_fn(name) for name in BLOCK_CONTROLS]
globals().update({f.__name__: f for f in _BLOCK_ALL})   # each by its name: control_block_route_...


def _zero_fn(group: Any, method: str = "exact") -> TheoremResult:
    return run_zero_control(group, method)


_zero_fn.__name__ = "control_exact_zero_test"


# =========================================================================== consistency-row controls
# The node-count row (7) and the Occam row (8) handed a broken object, with the outcome derived by hand:
# * node counts: z_F6 without its node 0 (a node of the block at the first frequency): 3(n-1) - 1 nodes, 5 at that
#   frequency: the z_F6 entry of the row fails, the other constructions pass.
# * Occam: z' = z_F6 with c of its first block doubled (abc = 2 there): z' is not optimal (R_g), not balanced
#   (||c||^2 of that block is 4 times ||a||^2), the prefactor identity and ||y*z'||^2 = 2^(1/3) ||z'||^2 (a
#   property of the Kronecker product, true for every z') still hold.
_NODE_CONTROL = "node counts: z_F6 without node 0"
_OCCAM_CONTROL = "Occam: z' with c of one block doubled"


def control_node_counts(group: Any, method: str = "exact", nets: dict | None = None) -> TheoremResult:
    """The node-count row handed z_F6 without node 0: must fail for z_F6 only (see above).

    >>> r = control_node_counts(7)
    >>> r.status, r.details["constructions"]["z_F6"]
    ('CAUGHT', False)
    """
    from cogo.algebra.network import Network
    from cogo.solvers.constructions import z_F6
    from cogo.proofs.theorems import node_counts

    method = check_method(method)
    G = parse_group(group)
    with Timer() as t:
        if nets is None:
            net = z_F6(G, exact=method == "exact")
            nets = {"f6": Network(G, net.z[:, :, 1:], exact=net.exact)}
        r = node_counts(G, method, nets=nets)
        v = r.details["constructions"]
        others = [ok for name, ok in v.items() if name != "z_F6" and not name.startswith("z_F6:")]
        caught = not r.passed and v.get("z_F6") is False and all(others)
    return make_result(_NODE_CONTROL, "the node-count row handed z_F6 without node 0 (3(n-1) - 1 nodes, 5 at the "
                       "first frequency): CAUGHT iff the z_F6 entry fails and every other construction passes",
                       method, caught, 0.0, t, negative_control=True, constructions=v,
                       failing_conditions=sorted(k for k, ok in v.items() if not ok), expected_failing=["z_F6"],
                       loss="n/a", expected_loss="n/a")


# * node counts of z_M (exact): the row is handed z_M's factors with one defect each, derived by hand.
#   - U_a without its last node: U_a * U_b has n (n - 1) nodes, not n^2 (every node is still one-hot, at the right
#     places), so only the count fails;
#   - U_a with node 0's a row replaced by node 1's: every node is still one-hot and there are n^2 nodes, but node
#     (0, j2) has a at 1 instead of 0 (it is no longer the network of SPEC 7.4: its output c sits at j2, not 1 + j2),
#     so only the positions fail;
#   - U_a with node 0's c row replaced by node 1's (a and b rows untouched): n^2 nodes, a and b one-hot at the right
#     places, but node (0, j2) has c = chi(k, 1 + j2) instead of chi(k, j2) = chi(k, 0 + j2): its output one-hot sits
#     at 1 + j2, not at j1 + j2 = j2, so only the c positions fail (the product route's c one-hot positions and the
#     route above order 31's check c(U_a) + c(U_b) = phase of j1 + j2 must both refuse it).
#   Each is CAUGHT iff the row's z_M entry fails; other constructions are not run by the control.
_MEM_COUNT_CONTROL = "node counts: z_M with one defective factor node"


def control_mem_node_counts(group: Any, method: str = "exact", factors: list | None = None) -> TheoremResult:
    """The node-count row handed z_M's factors with a node dropped, then with a node's a, then c, one-hot moved.

    ``factors`` (a list of ``(label, (U_a, U_b))``) replaces the three defective pairs (testing the control).

    Returns
    -------
    TheoremResult
        CAUGHT when the node-count row rejects every defective z_M (``details["z_M entry"]`` per defect).

    Examples
    --------
    >>> r = control_mem_node_counts(5)
    >>> r.status, sorted(r.details["z_M entry"].values())
    ('CAUGHT', [False, False, False])
    >>> sorted(r.details["z_M entry"])[0]
    "U_a node 0's a row moved to node 1's"
    """
    from cogo.solvers.constructions import RootOfUnityNetwork, mem_factors
    from cogo.proofs.theorems import node_counts

    G = parse_group(group)
    with Timer() as t:
        if factors is None:
            Ua, Ub = mem_factors(G)
            dropped = RootOfUnityNetwork(G, Ua.E[:, :, :-1], Ua.L)
            E = Ua.E.copy()
            E[0, :, 0] = E[0, :, 1]  # node 0's a row is node 1's: one-hot at 1
            moved = RootOfUnityNetwork(G, E, Ua.L)
            E = Ua.E.copy()
            E[2, :, 0] = E[2, :, 1]  # node 0's c row is node 1's: node (0, j2) outputs at 1 + j2
            moved_c = RootOfUnityNetwork(G, E, Ua.L)
            factors = [("U_a without its last node", (dropped, Ub)), ("U_a node 0's a row moved to node 1's", (moved, Ub)),
                       ("U_a node 0's c row moved to node 1's", (moved_c, Ub))]
        entry = {}
        for label, pair in factors:
            r = node_counts(G, "exact", mem=pair)
            entry[label] = bool(r.details["constructions"]["z_M"])
        caught = not any(entry.values())
    return make_result(_MEM_COUNT_CONTROL, "the node-count row handed z_M's factors with one defect each (U_a "
                       "without its last node: n(n-1) nodes; node 0's a row, then its c row, moved to node 1's: a "
                       "one-hot at the wrong place): CAUGHT iff the row's z_M entry fails every time", "exact", caught,
                       0.0, t,
                       negative_control=True, **{"z_M entry": entry},
                       failing_conditions=sorted(k for k, ok in entry.items() if not ok),
                       expected_failing=sorted(entry), loss="n/a", expected_loss="n/a")


# * the z_M certificate (row 6's homomorphism route, every order) handed z_M with U_a's node 0 reading a at element 1
#   (its c row unchanged): by hand, the n nodes (0, j2) contribute conj chi(k, 1) instead of 1 to
#   r[k,k,k] = n^-2 sum_{j1,j2} conj chi(k,j1) conj chi(k,j2) chi(k,j1+j2), so r[k,k,k] = 1 + (conj chi(k,1) - 1)/n
#   != 1 wherever chi(k, 1) != 1: R_g fails and the network is not optimal (pairs (0, j2) lost their node).
_MEM_CERT_CONTROL = "optimality row: z_M with node 0 of U_a reading a at 1"


def control_mem_certificate(group: Any, method: str = "exact", factors: tuple | None = None) -> TheoremResult:
    """Row 6's z_M certificate handed a network that is not z_M (see above): CAUGHT iff not optimal, R_g failing.

    ``factors`` (``(U_a, U_b)``) replaces the defective pair (testing the control).

    Returns
    -------
    TheoremResult
        Its status is CAUGHT when the certificate says the network is not optimal and R_g is among the
        failing conditions.

    Examples
    --------
    >>> r = control_mem_certificate(5)
    >>> r.status, "R_g" in r.details["failing_conditions"]
    ('CAUGHT', True)
    """
    from cogo.solvers.constructions import RootOfUnityNetwork, mem_factors
    from cogo.proofs.theorems import optimality

    G = parse_group(group)
    with Timer() as t:
        if factors is None:
            Ua, Ub = mem_factors(G)
            E = Ua.E.copy()
            E[0, :, 0] = E[0, :, 1]
            factors = (RootOfUnityNetwork(G, E, Ua.L), Ub)
        r = optimality(G, "mem", "exact", factors=factors)
        failing = list(r.details.get("failing_conditions", []))
        agree = r.details.get("routes agree", True)  # up to order 31 the row decides z_M by two routes
        caught = not r.passed and "R_g" in failing and agree
    return make_result(_MEM_CERT_CONTROL, "the z_M certificate (homomorphism route) handed U_a * U_b with node 0 of "
                       "U_a reading a at element 1: by hand r[k,k,k] = 1 + (conj chi(k,1) - 1)/n, so CAUGHT iff the "
                       "row fails with R_g among its failing conditions (and, up to order 31, its Fourier-inversion "
                       "and Z[zeta_L] routes agree)", "exact", caught, 0.0, t, routes_agree=agree,
                       negative_control=True, failing_conditions=failing, expected_failing=["R_g (at least)"],
                       loss="n/a", expected_loss="n/a")


# * the membership table (row 5) handed the catalogue with z_nu's second c entry doubled: by hand
#   sum a^2 c = 1 * 1 + nu^2 * (-2 nu^-2) = -1 (was 0), and z_syn's a^2 c is 3, so the union Z(z_syn) | Z(z_nu) no
#   longer contains a^2 c: exactly the 7.1 union check fails (Z(z_nu=i) | Z(z_syn,ab) and Z(z_nu=i) | Z(z_xi) do not
#   involve z_nu); every sum is still decided.
_MEMBERSHIP_CONTROL = "membership row: z_nu with its second c doubled"
_MEMBERSHIP_FAILS = ["z_F6 block z_syn * z_nu (7.1): union of the factors' zero sets contains the sums it needs"]


def control_membership(group: Any, method: str = "exact", factors: list | None = None) -> TheoremResult:
    """Row 5 handed a wrong catalogue (see above): CAUGHT iff exactly the 7.1 union check fails.

    ``factors`` (rows as :func:`cogo.proofs.theorems.membership_table` takes them) replaces the broken catalogue.

    Returns
    -------
    TheoremResult
        Row 5's outcome on the wrong catalogue; the control is caught if, and only if, the 7.1 union check
        alone fails.

    Examples
    --------
    >>> control_membership(7, "numeric").status
    'CAUGHT'
    """
    import numpy as np

    from cogo.catalogue.partial import PartialSolution
    from cogo.proofs.theorems import _catalogue_factors, membership_table

    method = check_method(method)
    G = parse_group(group)
    with Timer() as t:
        if factors is None:
            factors = []
            for name, form, part, conj, points in _catalogue_factors(method, np.random.default_rng(0)):
                if form == "z_nu":
                    c = part.c.copy()
                    c[1] = c[1] * 2
                    part = PartialSolution(part.name, part.a, part.b, c, part.params)
                factors.append((name, form, part, conj, points))
        r = membership_table(G, method, factors=factors)
        failing = sorted(k for k, ok in r.details["checks"].items() if not ok)
        caught = failing == _MEMBERSHIP_FAILS
    return make_result(_MEMBERSHIP_CONTROL, "the membership table handed the catalogue with z_nu's second c entry "
                       "doubled (a^2 c = -1, by hand): CAUGHT iff exactly the union check of the z_F6 block "
                       "z_syn * z_nu fails", method, caught, 0.0, t, negative_control=True,
                       failing_conditions=failing, expected_failing=_MEMBERSHIP_FAILS, loss="n/a",
                       expected_loss="n/a")


def control_occam(group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
    """The Occam row handed z' = z_F6 with c of its first block doubled (exact; see above).

    >>> r = control_occam(7)
    >>> r.status, sorted(k for k, ok in r.details["checks"].items() if not ok)
    ('CAUGHT', ["z' = z_F6 certified optimal (exact loss 0)", "z' balanced (exact)"])
    """
    from cogo.solvers.designs import f6_design
    from cogo.proofs.theorems import occam

    method = check_method(method)
    G = parse_group(group)
    with Timer() as t:
        if design is None:
            d = f6_design(G, exact=True)
            blk = d.blocks[0]
            part = PartialSolution(blk.part.name + " (c doubled)", blk.part.a, blk.part.b,
                                   np.asarray([2 * v for v in blk.part.c], dtype=object))
            design = BlockDesign(G, "z_F6, c of one block doubled", [Block(blk.k, part)] + list(d.blocks[1:]), True)
        r = occam(G, "exact", zprime_design=design)
        checks = r.details["checks"]
        want_false = {"z' = z_F6 certified optimal (exact loss 0)", "z' balanced (exact)"}
        caught = (not r.passed and {k for k, ok in checks.items() if not ok} == want_false and len(checks) == 4)
    return make_result(_OCCAM_CONTROL, "the Occam row handed z' = z_F6 with c of one block doubled: CAUGHT iff "
                       "exactly 'z' optimal' and 'z' balanced' fail (the prefactor identity and the norm ratio "
                       "2^(1/3) hold for every z')", "exact", caught, 0.0, t, negative_control=True, checks=checks,
                       failing_conditions=sorted(k for k, ok in checks.items() if not ok),
                       expected_failing=sorted(want_false), loss="n/a", expected_loss="n/a")


# =========================================================================== formal indeterminates
def control_formal(group: Any = None, method: str = "exact") -> TheoremResult:
    """The formal indeterminates of rows 1-2 (:mod:`cogo.proofs.formal`) on identities decided by hand.

    Fresh complex indeterminates ``x, y`` and a real ``r``: distinct (``x != y``, ``x y != x^2``), conjugation
    an involution that moves complex ones and fixes real ones (``conj x != x``, ``conj conj x = x``,
    ``conj r = r``), ``(x + y)^2 = x^2 + 2 x y + y^2 != x^2 + y^2``, ``x (y + 1) - x y - x = 0``,
    ``conj(x y) = conj x conj y`` and ``x conj(x) != x^2``.  CAUGHT iff every answer is the hand one (a
    defect that merges indeterminates or breaks conjugation or the ring operations is caught).

    >>> control_formal().status
    'CAUGHT'
    """
    from cogo.proofs.formal import FormalVariables

    with Timer() as t:
        V = FormalVariables()
        _, xs = V.new((2,))
        _, rs = V.new((1,), real=True)
        x, y, r = xs[0], xs[1], rs[0]
        cases = {
            "x != y": (x == y, False),
            "x y != x^2": (x * y == x * x, False),
            "conj x != x": (x.conjugate() == x, False),
            "conj conj x = x": (x.conjugate().conjugate() == x, True),
            "conj r = r (real)": (r.conjugate() == r, True),
            "(x + y)^2 = x^2 + 2 x y + y^2": ((x + y) ** 2 == x * x + 2 * x * y + y * y, True),
            "(x + y)^2 != x^2 + y^2": ((x + y) ** 2 == x * x + y * y, False),
            "x (y + 1) - x y - x = 0": (x * (y + 1) - x * y - x == 0, True),
            "conj(x y) = conj x conj y": ((x * y).conjugate() == x.conjugate() * y.conjugate(), True),
            "x conj(x) != x^2": (x * x.conjugate() == x * x, False),
        }
        wrong = [k for k, (got, want) in cases.items() if bool(got) is not want]
    return make_result("formal indeterminates", "10 identities and non-identities of fresh formal indeterminates, "
                       "decided by hand: CAUGHT iff every answer is the hand one", "exact", not wrong,
                       float(len(wrong)), t, negative_control=True, wrong=wrong,
                       failing_conditions=[f"{len(cases) - len(wrong)}/{len(cases)} answers as by hand"],
                       expected_failing=[f"{len(cases)}/{len(cases)} answers as by hand"], loss="n/a",
                       expected_loss="n/a")


# =========================================================================== the optimality row itself
def control_optimality_row(group: Any, method: str = "exact", net: Any = None) -> TheoremResult:
    """Row 6 handed z_F6 with c of its first block doubled (odd groups): it must FAIL with the exact loss 2/n.

    By hand: that block has abc = 2 and every other sum 0, so l_k = -4 + 4 = 0 instead of -1 at one pair; the
    loss of SPEC 5 goes from 0 to (2/n)(0 - (-1)) = 2/n.  The row's own route is used (the general loss up to
    order 31, the block route above), so a row that certifies something else (another construction, or a
    cached result) is caught.

    >>> r = control_optimality_row(7)
    >>> r.status, r.details["loss"]
    ('CAUGHT', '2/7')
    """
    from cogo.solvers.designs import f6_design
    from cogo.proofs.theorems import optimality

    method = check_method(method)
    G = parse_group(group)
    want = Fraction(2, G.order)
    with Timer() as t:
        if net is None:
            d = f6_design(G, exact=True)
            blk = d.blocks[0]
            part = PartialSolution("c doubled", blk.part.a, blk.part.b, np.asarray([2 * v for v in blk.part.c],
                                                                                   dtype=object))
            net = BlockDesign(G, "z_F6, c of one block doubled", [Block(blk.k, part)] + list(d.blocks[1:]),
                              True).to_network()
        if method == "exact":
            r = optimality(G, "f6", "exact", net=net)
            got = r.details.get("loss_exact")
            from cogo.proofs.zero import decide_zero

            loss_ok = got is not None and decide_zero(sympy.sympify(got) - sympy.Rational(2, G.order)) is True
        else:
            r = optimality(G, "f6", "numeric", net=net.to_numeric())
            got = r.details["real_space_loss"].get("given")
            loss_ok = got is not None and abs(got - float(want)) <= 1e-9
        caught = not r.passed and loss_ok
    return make_result("optimality row: z_F6 with c of one block doubled", "row 6 handed z_F6 with c of its first "
                       "block doubled: CAUGHT iff it fails with the loss 2/n derived by hand", method, caught, 0.0, t,
                       negative_control=True, loss=str(got), expected_loss=str(want),
                       failing_conditions=["row 6 fails" if not r.passed else "row 6 passes"],
                       expected_failing=["row 6 fails"])


# =========================================================================== the registry of the controls
_PAIR = (lambda G: len(G.positive_frequencies) >= 1, _NEEDS_PAIR)
_ODD = (lambda G: bool(G.is_odd), "needs odd order: z_F6 is its base")
_ODD_TWO_PAIRS = (lambda G: G.is_odd and len(G.positive_frequencies) >= 2,
                  "needs odd order and two frequency pairs: z_F4/6 is its base")
_TWO_PAIRS = (lambda G: len(G.positive_frequencies) >= 2, "needs two frequency pairs k != -k: its hat reaches a second")


def _unseen(name: str, body: str, requires: tuple, methods: tuple = METHODS, section: str = "SPEC 6-7.3") -> Row:
    """A row of :mod:`cogo.proofs.controls_unseen` (the inputs the proof machinery had never been shown)."""
    return Row("control", name, section, body, requires=requires, module="cogo.proofs.controls_unseen",
               methods=methods)


def _attr(fn: Callable) -> str:
    """The name this module binds ``fn`` to (a row looks its body up by name, so a patched control is run)."""
    return next(k for k, v in globals().items() if v is fn and k.startswith("control_"))


def _row(name: str, body: str, requires: tuple, methods: tuple = METHODS, section: str = "SPEC 6-7") -> Row:
    return Row("control", name, section, body, requires=requires, module=__name__, methods=methods)


#: Every negative control, in the order ``cogo verify`` runs them (rows of :class:`cogo.proofs.rows.Row`):
#: :func:`controls_for` and :func:`cogo.proofs.registry.skipped` are queries over it.
CONTROL_ROWS: tuple[Row, ...] = (
    *(_row(name, _attr(fn), ((CONTROLS[name][3], CONTROLS[name][4]),)) for fn, name in zip(_ALL, CONTROLS)),
    *(_row(name, fn.__name__, (_PAIR,) if BLOCK_CONTROLS[name][1] is not None else (_PAIR, _ODD_TWO_PAIRS),
           METHODS if BLOCK_CONTROLS[name][4] is None else ("exact",))
      for fn, name in zip(_BLOCK_ALL, BLOCK_CONTROLS)),
    _row("exact zero test", "_zero_fn", (), ("exact",), "SPEC 7"),
    _row("formal indeterminates", "control_formal", (), ("exact",), "SPEC 3-4"),
    _row(_MEM_COUNT_CONTROL, "control_mem_node_counts", (), ("exact",), "SPEC 7.4"),
    _row(_MEM_CERT_CONTROL, "control_mem_certificate", (), ("exact",), "SPEC 7.4"),
    _row(_MEMBERSHIP_CONTROL, "control_membership", (), METHODS, "SPEC 7"),
    _row("optimality row: z_F6 with c of one block doubled", "control_optimality_row", (_ODD,), METHODS, "SPEC 7.1"),
    _row(_NODE_CONTROL, "control_node_counts", (_ODD,), METHODS, "SPEC 7"),
    _row(_OCCAM_CONTROL, "control_occam", (_ODD,), ("exact",), "SPEC 7"),
    _unseen("block route: hat read per node", "control_hat_per_node", (_PAIR, _TWO_PAIRS)),
    _unseen("block route: hat on an order-6 block with nu = 2", "control_hat_nu2", (_PAIR, _TWO_PAIRS)),
    _unseen("block route: unbalanced nodes", "control_unbalanced", (_PAIR,)),
    _unseen("block route: irrational loss", "control_irrational_loss", (_PAIR,), section="SPEC 5-6"),
    _unseen("z_M, U_b node 0 reading b = -1 at frequency 0", "control_mem_zero_frequency", (), section="SPEC 5, 7.4"),
    _unseen("exact zero test and route comparison: undecidable and conflicting inputs", "control_zero_test_unseen",
            (), ("exact",), "SPEC 5-7"),
)
