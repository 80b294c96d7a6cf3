"""The exact zero test of the proof machinery: zero, nonzero or undecided, never a numeric shortcut (SPEC 5-7).

Every "this residual is 0" and "this residual is not 0" of :mod:`cogo.proofs`
is decided here, by exact algebra only:

1. ``sympy.expand`` gives the literal 0: **zero**.
2. A number without free symbols is split into its product terms
   ``q * prod_p p^(e_p) * (root of unity)`` (``q`` rational).  Each term's
   cube-root part ``r = prod_p p^(f_p)`` (``f_p`` the part of ``e_p`` in
   ``{1/3, 2/3}``) is set aside and the rest is converted exactly into
   ``Q(zeta_L)`` (:class:`cogo.algebra.cyclotomic.CycNumber`, reduction
   modulo the cyclotomic polynomial ``Phi_L``; ``L`` a multiple of 3, square
   roots of 2 and 3 written as ``zeta_8 + zeta_8^-1`` and ``zeta_12 + zeta_12^-1``).
   The distinct cube-root monomials ``r`` are linearly independent over
   ``Q(zeta_L)`` (Kummer theory: ``Q(zeta_L)`` contains the cube roots of
   unity, and no nontrivial ``prod_p p^(f_p)`` lies in the Abelian field
   ``Q(zeta_L)``, because ``Q(p^(1/3) ...)`` is not normal over Q), so the
   number is 0 iff the ``Q(zeta_L)`` coefficient of every ``r`` is 0:
   **zero** or **nonzero**, exactly.
3. An expression with free symbols is a polynomial (Laurent, with rational
   powers of positive symbols) in independent indeterminates: it is grouped by
   monomial, and it is zero iff every coefficient is (each decided by 2);
   nonzero as soon as one coefficient is proven nonzero.
4. Anything else (a coefficient outside these fields -- ``sin(1)``, ``e``,
   ``sqrt(5)`` --, or a term that does not parse): **undecided**.  Undecided is
   never read as zero *or* as nonzero; a certificate with an undecided residual
   is not a PASS (:class:`cogo.proofs.certificates.block_certificate.BlockCertificate`).

>>> import sympy
>>> decide_zero(sympy.sqrt(2) * sympy.sqrt(3) - sympy.sqrt(6)), decide_zero(sympy.sqrt(2) - 1)
(True, False)
>>> decide_zero(sympy.exp(2 * sympy.pi * sympy.I / 7) ** 7 - 1)     # reduction modulo Phi_7... in Q(zeta_21)
True
>>> decide_zero(sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1) is None   # true, but not decided exactly here
True

References
----------
.. [1] L. C. Washington, "Introduction to Cyclotomic Fields", Springer GTM 83, 2nd ed., 1997.
.. [2] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import sympy

from cogo.algebra.cyc_gauge import _factor_exponents, _parse_terms, _term_to_cyc, entries_order

__all__ = ["decide_zero", "is_zero_proven", "is_nonzero_proven", "ZERO_TEST_ROUTE"]

#: One line for reports: how zero is decided.
ZERO_TEST_ROUTE = ("exact: expand; numbers by reduction modulo Phi_L in Q(zeta_L) per cube-root monomial "
                   "(Kummer independence); polynomials coefficient by coefficient; otherwise undecided")

_THIRDS = (Fraction(1, 3), Fraction(2, 3))


def _decide_constant(e: sympy.Expr) -> bool | None:
    terms = _parse_terms(e)
    if terms is None:
        return None
    L = math.lcm(entries_order([e]), 3)
    groups: dict = {}
    for term in terms:
        acc: dict = {}
        for base, ex in term[1]:
            if base is sympy.I or base == -1 or base is sympy.E:
                continue
            if not (isinstance(base, sympy.Rational) and isinstance(ex, sympy.Rational)):
                return None
            _factor_exponents(base, Fraction(int(ex.p), int(ex.q)), acc)
        key = tuple(sorted((p, f - math.floor(f)) for p, f in acc.items() if f - math.floor(f) in _THIRDS))
        c = _term_to_cyc(term, {p: -fr for p, fr in key}, L)
        if c is None:
            return None
        groups[key] = groups[key] + c if key in groups else c
    return all(v.is_zero() for v in groups.values()) if groups else True


def _decide_polynomial(e: sympy.Expr) -> bool | None:
    syms = tuple(e.free_symbols)
    coeffs: dict = {}
    for term in sympy.Add.make_args(e):
        const, mono = term.as_independent(*syms, as_Add=False)
        coeffs[mono] = coeffs.get(mono, sympy.Integer(0)) + const
    out: bool | None = True
    for c in coeffs.values():
        d = decide_zero(c)
        if d is False:
            return False
        if d is None:
            out = None
    return out


def decide_zero(x: Any) -> bool | None:
    """Exactly: True if ``x`` is 0, False if it is not, None when undecided (module docstring).

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Integer(6) ** sympy.Rational(-1, 3)
    >>> decide_zero(6 * t**3 - 1), decide_zero(t - sympy.Integer(2) ** sympy.Rational(-1, 3))
    (True, False)
    >>> x = sympy.Symbol("x")
    >>> decide_zero((x + 1) ** 2 - x**2 - 2 * x - 1), decide_zero(sympy.sqrt(2) * x - x)
    (True, False)
    """
    if hasattr(x, "is_zero") and callable(x.is_zero):  # CycNumber: exact reduction modulo Phi_L
        return bool(x.is_zero())
    if isinstance(x, (int, Fraction)):
        return x == 0
    if hasattr(x, "t") and hasattr(x, "const") and not isinstance(x, sympy.Basic):  # cogo.proofs.certificates.formal.Formal
        return x == 0
    e = sympy.expand(sympy.sympify(x))
    if e == 0:
        return True
    if e.free_symbols:
        return _decide_polynomial(e)
    return _decide_constant(e)


def is_zero_proven(x: Any) -> bool:
    """``decide_zero(x) is True``: proven exactly 0 (undecided is not zero).

    Examples
    --------
    >>> import sympy
    >>> is_zero_proven(sympy.Integer(0)), is_zero_proven(sympy.sin(1) - sympy.sin(1) + sympy.E - sympy.E)
    (True, True)
    """
    return decide_zero(x) is True


def is_nonzero_proven(x: Any) -> bool:
    """``decide_zero(x) is False``: proven exactly nonzero (undecided is not nonzero either).

    Examples
    --------
    >>> import sympy
    >>> is_nonzero_proven(sympy.Integer(2) ** sympy.Rational(1, 3) - 1), is_nonzero_proven(sympy.E - 2)
    (True, False)
    """
    return decide_zero(x) is False
