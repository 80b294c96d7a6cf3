"""Negative controls of the exact tools: the exact zero test and the formal indeterminates, on values decided by hand.

:mod:`cogo.proofs.certificates.exact_zero` must decide zero, nonzero (down to 1e-40) and undecided exactly as by hand, and the
indeterminates of :mod:`cogo.proofs.certificates.formal` (rows 1-2) must keep the identities and non-identities decided by hand.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution
from cogo.algebra.block import Block
from cogo.algebra.network import Network
from cogo.solvers import constructions
from cogo.solvers.designs import BlockDesign, _is_unit, f6ab_design
from cogo.proofs.certificates.block_certificate import block_certificate
from cogo.proofs.controls.block_route import _sound_block
from cogo.proofs.certificates.formal import FormalVariables
from cogo.proofs.results import TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import decide_zero, is_nonzero_proven, is_zero_proven

__all__ = ["run_zero_control", "control_exact_zero_test", "control_formal", "control_equality", "EQUALITY_CONTROL"]


#: Values whose exact decision is known by hand (zero / nonzero / undecided), as cogo.proofs.certificates.exact_zero specifies.
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


def _modular_cases() -> list:
    """The modular zero test (:mod:`cogo.algebra.modular`) at its margin, each answer by hand.

    With ``M`` the field's modulus (the product of its primes) and ``maxR`` its reduction bound, an element whose
    proven 1-norm bound is ``b`` is decided from zero residues iff ``2 maxR b < M`` (the symmetric lift of its
    coordinates ``|c_i| <= maxR b``).  So ``b0 = (M - 1) // (2 maxR)`` is the largest bound decided and ``b0 + 1``
    the smallest refused.  The integer ``M`` itself (built five ways: a rational, a sum of four quarters, products
    ``p_1 (M / p_1)`` of two elements and of an element and an integer, ``M zeta`` from a vector) is nonzero with
    every residue 0 and bound exactly ``M``: it must be undecided (ModulusTooSmall), never zero; a bound tracked
    several times too small would call it zero.
    """
    from cogo.algebra.modular import ModCyc, ModulusTooSmall, modular_field  # late: the modular route

    out = []
    for L in (7, 15):
        F = modular_field(L, bits=64)
        M, p1 = F.modulus, F.primes[0]
        b0 = (M - 1) // (2 * F.maxR)
        out.append((f"L = {L}: bound (M - 1) // (2 maxR) decided", F.decidable(b0), True))
        out.append((f"L = {L}: bound (M - 1) // (2 maxR) + 1 refused", F.decidable(b0 + 1), False))
        built = {"M as a rational": lambda: ModCyc.rational(F, M),
                 "M as a sum 3 (M//4) + (M - 3 (M//4))": lambda: (ModCyc.rational(F, M // 4) + ModCyc.rational(F, M // 4)
                                                                + ModCyc.rational(F, M // 4)
                                                                + ModCyc.rational(F, M - 3 * (M // 4))),
                 "M as a product p_1 (M / p_1)": lambda: ModCyc.rational(F, p1) * ModCyc.rational(F, M // p1),
                 "M as p_1 times the integer M / p_1": lambda: ModCyc.rational(F, p1) * (M // p1),
                 "M zeta as a vector": lambda: ModCyc.from_vector(F, [0, M] + [0] * (L - 2))}
        for label, make in built.items():
            try:
                got = make().is_zero()
            except ModulusTooSmall:
                got = None
            out.append((f"L = {L}: {label} (nonzero, every residue 0): undecided", got, None))
        out.append((f"L = {L}: M - 1 (a residue nonzero): nonzero", ModCyc.rational(F, M - 1).is_zero(), False))
    return out


def run_zero_control(group: Any = None, method: str = "exact", cases: list | None = None) -> TheoremResult:
    """The exact zero test on values decided by hand: zero, nonzero (down to 1e-40) and undecided.

    ``cases`` (``(label, value, True | False | None)``) replace the built-in ones, for testing the checker.

    >>> r = run_zero_control()
    >>> r.passed, r.details["decisions"]["sin(1)^2 + cos(1)^2 - 1 (true, not decidable by exact algebra here)"]
    (True, 'undecided')
    """
    method = check_method(method)
    name = "exact zero test"
    word = {True: "zero", False: "nonzero", None: "undecided"}
    with Timer() as t:
        got, wrong = {}, []
        for label, value, want in (_zero_cases() if cases is None else cases):
            d = decide_zero(value)
            got[label] = word.get(d, repr(d))
            if d is not want or is_zero_proven(value) is not (want is True) \
                    or is_nonzero_proven(value) is not (want is False):
                wrong.append(label)
        if cases is None:   # the modular route's zero test at its margin (_modular_cases)
            word_m = {True: "zero/decided", False: "nonzero/refused", None: "undecided"}
            for label, d, want in _modular_cases():
                got[label] = word_m.get(d, repr(d))
                if d is not want:
                    wrong.append(label)
        G = as_group(group) if group is not None else None
        if cases is None and G is not None and len(G.positive_frequencies) >= 1:
            # a block certificate with an undecided residual: sound blocks at every pair, c of node 0 of the
            # first times sin(1)^2 + cos(1)^2 (= 1, outside the fields decided exactly): "undecided", never certified
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
            "transcendental ones), the modular zero test at its margin (bounds (M - 1)//(2 maxR) decided, one more "
            "refused; the nonzero integer M with every residue 0 undecided, built five ways; L = 7, 15) and a block "
            "certificate with an undecided residual: every decision must be the "
            "hand one (a numeric shortcut or an undecided read as zero is caught)")
    return make_result(name, stmt, "exact", caught, float(len(wrong)), t, negative_control=True, decisions=got,
                       wrong=wrong, failing_conditions=[f"{len(got) - len(wrong)}/{len(got)} decisions as by hand"],
                       expected_failing=[f"{len(got)}/{len(got)} decisions as by hand"], loss="n/a",
                       expected_loss="n/a")



def control_exact_zero_test(group: Any, method: str = "exact") -> TheoremResult:
    """The control row of :func:`run_zero_control` (its built-in cases)."""
    return run_zero_control(group, method)


# =========================================================================== exact equality, the unit circle
EQUALITY_CONTROL = "exact equality: Network.equals and the unit-circle check"


def _rejects(fn) -> bool:
    """True when ``fn()`` raises ValueError (a one-line refusal)."""
    try:
        fn()
    except ValueError:
        return True
    return False


def _equality_cases() -> list:
    """``(label, answer, answer by hand)``: :meth:`cogo.algebra.network.Network.equals` (exact networks exactly, no
    tolerance; numeric ones to ``tol = 1e-9`` absolute per entry) and the designs' unit-circle check (exact entries
    exactly; floats to ``| |v| - 1 | <= 1e-9``).

    ``z`` = z_F6 on Z_5 (entries of modulus ``6^(-1/3) ~ 0.55``): ``z`` with one entry times ``1 + 10^-7`` (exactly
    the rational ``(10^7 + 1)/10^7``) is a different exact network; in float64 that entry moves by ``5.5e-8 > 1e-9``,
    so the numeric networks differ too; times ``1 + 10^-12`` it moves by ``5.5e-13 <= 1e-9``: equal numerically.
    Node order does not matter (SPEC 3).  ``(3 + 4 i)/5`` is on the unit circle exactly, ``(10^7 + 1)/10^7`` is not;
    the floats ``1 + 10^-7`` and ``1 + 10^-12`` are off by ``10^-7 > 1e-9`` and ``10^-12 <= 1e-9``.
    """
    e = sympy.Rational(10**7 + 1, 10**7)
    Z5 = as_group(5)  # the cases' group, parsed once
    zx, zn = constructions.z_F6(Z5, exact=True), constructions.z_F6(Z5)
    bent = zx.z.copy()
    bent[0, 1, 0] = sympy.expand(bent[0, 1, 0] * e)
    flip = zx.z[:, :, ::-1].copy()

    def scaled(f):
        w = zn.z.copy()
        w[0, 1, 0] *= f
        return Network(zn.group, w)

    k = int(zn.group.positive_frequencies[0])
    return [
        ("exact z vs exact z, nodes reversed", zx.equals(Network(zx.group, flip, exact=True)), True),
        ("exact z vs exact z with one entry times (10^7 + 1)/10^7", zx.equals(Network(zx.group, bent, exact=True)),
         False),
        ("numeric z vs z with one entry times 1 + 1e-7 (tol 1e-9)", zn.equals(scaled(1 + 1e-7)), False),
        ("numeric z vs z with one entry times 1 + 1e-12 (tol 1e-9)", zn.equals(scaled(1 + 1e-12)), True),
        ("unit circle, exact (3 + 4i)/5", _is_unit(sympy.Rational(3, 5) + sympy.Rational(4, 5) * sympy.I, True), True),
        ("unit circle, exact (10^7 + 1)/10^7", _is_unit(e, True), False),
        ("unit circle, float 1 + 1e-7", _is_unit(1 + 1e-7, False), False),
        ("unit circle, float 1 + 1e-12", _is_unit(1 + 1e-12, False), True),
        ("f6ab_design refuses alpha = 1 + 1e-7 (float)", _rejects(lambda: f6ab_design(Z5, alpha={k: 1 + 1e-7})), True),
        ("f6ab_design refuses alpha = (10^7 + 1)/10^7 (exact)",
         _rejects(lambda: f6ab_design(Z5, alpha={k: e}, exact=True)), True),
    ]


def control_equality(group: Any = None, method: str = "exact", cases: list | None = None) -> TheoremResult:
    """Exact equality of networks and the unit-circle check on inputs decided by hand (:func:`_equality_cases`).

    ``cases`` (``(label, answer, want)``) replace the built-in ones, for testing the checker.

    >>> control_equality().status
    'CAUGHT'
    """
    check_method(method)
    with Timer() as t:
        rows = _equality_cases() if cases is None else cases
        got = {label: bool(a) for label, a, _ in rows}
        wrong = [label for label, a, want in rows if bool(a) is not want]
    return make_result(EQUALITY_CONTROL, "Network.equals (exact networks: exactly, no tolerance; numeric: 1e-9 "
                       "absolute) and the unit-circle check (exact entries exactly, floats to 1e-9) on 10 inputs "
                       "decided by hand: a relative error of 1e-7 is never equal or on the circle", "exact",
                       not wrong, float(len(wrong)), t, negative_control=True, answers=got, wrong=wrong,
                       failing_conditions=[f"{len(rows) - len(wrong)}/{len(rows)} answers as by hand"],
                       expected_failing=[f"{len(rows)}/{len(rows)} answers as by hand"], loss="n/a",
                       expected_loss="n/a")


# =========================================================================== formal indeterminates
def control_formal(group: Any = None, method: str = "exact") -> TheoremResult:
    """The formal indeterminates of rows 1-2 (:mod:`cogo.proofs.certificates.formal`) on identities decided by hand.

    Fresh complex indeterminates ``x, y`` and a real ``r``: distinct (``x != y``, ``x y != x^2``), conjugation
    an involution that moves complex ones and fixes real ones (``conj x != x``, ``conj conj x = x``,
    ``conj r = r``), ``(x + y)^2 = x^2 + 2 x y + y^2 != x^2 + y^2``, ``x (y + 1) - x y - x = 0``,
    ``conj(x y) = conj x conj y`` and ``x conj(x) != x^2``.  CAUGHT iff every answer is the hand one (a
    defect that merges indeterminates or breaks conjugation or the ring operations is caught).

    >>> control_formal().status
    'CAUGHT'
    """
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
