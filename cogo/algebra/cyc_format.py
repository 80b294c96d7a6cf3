"""One readable exact form of an element of ``Q(zeta_L)``: reduced expression, minimal polynomial, value (SPEC 5).

An exact loss computed in ``Q(zeta_L)`` (:class:`cogo.algebra.cyclotomic.CycNumber`) is rational for every
construction of SPEC 7, but not for every network: a block whose output weights carry ``sqrt 2`` has the loss
``A - B sqrt 2``.  Its ``repr`` is the unreduced vector of ``Q[x]/(x^L - 1)`` (``CycNumber(L=24, (20901888*z^0
+ ...) / 20901888)``); :func:`format_exact` writes instead

* the rational number itself when it is rational;
* otherwise the element reduced modulo ``Phi_L`` and written with cosines and sines of ``2 pi e / L`` (sympy
  turns those of ``L`` = 3, 4, 6, 8, 12, 24 into radicals, so a real element of ``Q(zeta_24)`` reads as
  ``33/23 - 22*sqrt(2)/23``), its minimal polynomial over Q -- the product of ``x - sigma(v)`` over the distinct
  Galois conjugates ``sigma_a : zeta -> zeta^a`` (``gcd(a, L) = 1``), computed exactly -- and a float64 value.

The minimal polynomial is exact and independent of how sympy writes the expression: two readers agree on the
number if they agree on the polynomial and on which real root it is.

>>> from cogo.algebra.cyclotomic import CycNumber
>>> r2 = CycNumber.root(8, 1) + CycNumber.root(8, -1)               # sqrt 2 in Q(zeta_8)
>>> format_exact(CycNumber.rational(8, 3) / 2), format_exact(1 - r2)
('3/2', '1 - sqrt(2) (minimal polynomial x**2 - 2*x - 1; approx. -0.414213562373095)')
>>> minimal_polynomial(1 - r2)                                      # x^2 - 2 x - 1, highest degree first
[Fraction(1, 1), Fraction(-2, 1), Fraction(-1, 1)]
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from cogo.algebra.cyclotomic import CycNumber

__all__ = ["galois_conjugates", "minimal_polynomial", "format_exact"]

_X = sympy.Symbol("x")


def _sigma(x: CycNumber, a: int) -> CycNumber:
    """``sigma_a(x)``: the automorphism ``zeta_L -> zeta_L^a`` of ``Q(zeta_L)`` (``gcd(a, L) = 1``)."""
    L = x.L
    v = [0] * L
    for e, c in enumerate(x.v.tolist()):
        if c:
            v[(a * e) % L] += int(c)
    return CycNumber(L, np.asarray(v, dtype=object), Fraction(1, x.D))


def galois_conjugates(x: CycNumber) -> list:
    """The distinct images of ``x`` under ``Gal(Q(zeta_L)/Q)`` (``x`` itself first), decided exactly.

    Returns
    -------
    list of CycNumber
        One entry per distinct conjugate; their number is the degree of ``x`` over Q.

    Examples
    --------
    >>> len(galois_conjugates(CycNumber.root(7, 1))), len(galois_conjugates(CycNumber.rational(7, 5)))
    (6, 1)
    """
    out: list = []
    for a in range(1, max(x.L, 2)):
        if math.gcd(a, x.L) != 1:
            continue
        y = _sigma(x, a)
        if not any(y == z for z in out):
            out.append(y)
    return out or [x]


def minimal_polynomial(x: CycNumber) -> list:
    """The monic minimal polynomial of ``x`` over Q, coefficients highest degree first (exact Fractions).

    ``prod (X - y)`` over the distinct Galois conjugates ``y`` of ``x``: its coefficients are fixed by the
    Galois group, hence rational (checked: a ValueError otherwise, which would be a defect of the arithmetic).

    Raises
    ------
    ValueError
        A coefficient is not rational.

    Examples
    --------
    >>> minimal_polynomial(CycNumber.root(3, 1))                 # w: x^2 + x + 1
    [Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)]
    """
    poly = [CycNumber.rational(x.L, 1)]  # highest degree first
    for y in galois_conjugates(x):
        nxt = poly + [CycNumber.rational(x.L, 0)]
        for i, c in enumerate(poly):
            nxt[i + 1] = nxt[i + 1] - c * y
        poly = nxt
    out = [c.to_rational() for c in poly]
    if any(c is None for c in out):
        raise ValueError("minimal_polynomial: a coefficient is not rational")
    return out


def _trig(coeffs: Any, L: int) -> sympy.Expr:
    """``sum_e coeffs[e] (cos + i sin)(2 pi e / L)``, expanded by sympy (exact)."""
    terms = []
    for e, c in enumerate(coeffs):
        if c:
            ang = 2 * sympy.pi * sympy.Rational(e, L)
            terms.append(sympy.Rational(c.numerator, c.denominator) * (sympy.cos(ang) + sympy.I * sympy.sin(ang)))
    return sympy.expand(sympy.Add(*terms))


def _readable(x: CycNumber) -> sympy.Expr:
    """The shorter of ``x`` in the basis ``1, ..., zeta^(phi(L)-1)`` (reduced modulo ``Phi_L``) and in its stored
    powers ``zeta^0 .. zeta^(L-1)``, each written with cosines and sines (both exact; the reduced one is
    canonical, the stored one can be shorter: ``zeta_7 + zeta_7^6 = 2 cos(2 pi/7)``)."""
    reduced = _trig(x.coordinates(), x.L)
    stored = _trig([Fraction(int(c), x.D) for c in x.v.tolist()], x.L)
    return min((reduced, stored), key=lambda e: len(str(e)))


def format_exact(x: Any) -> str:
    """One readable exact form of a number: the rational itself, or (module docstring) the reduced expression,
    its minimal polynomial over Q and its value.

    ``x`` is a :class:`CycNumber`, a ``Fraction``, an ``int`` or a sympy number (a non-rational sympy
    number is printed as sympy writes it, with its value).

    Returns
    -------
    str
        ``"p/q"``, or ``"<expression> (minimal polynomial <poly>; approx. <value>)"``.

    Examples
    --------
    >>> format_exact(Fraction(66, 23)), format_exact(sympy.Rational(1, 2) - sympy.sqrt(2))
    ('66/23', '1/2 - sqrt(2) (approx. -0.914213562373095)')
    """
    if isinstance(x, (int, Fraction)):
        return str(Fraction(x))
    if isinstance(x, CycNumber):
        q = x.to_rational()
        if q is not None:
            return str(q)
        poly = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in minimal_polynomial(x)], _X)
        e = _readable(x)  # the value below from it, to 30 digits: no cancellation in an unreduced vector
        return f"{e} (minimal polynomial {poly.as_expr()}; approx. {_value(complex(sympy.N(e, 30)), x == x.conjugate())})"
    e = sympy.sympify(x)
    if isinstance(e, sympy.Rational):
        return str(e)
    return f"{e} (approx. {_value(complex(sympy.N(e, 30)), e.is_real is True)})"


def _value(z: complex, real: bool) -> str:
    """``z`` to 15 significant digits (its real part when the number is real, decided exactly by the caller)."""
    return f"{z.real:.15g}" if real else f"{z.real:.15g}{z.imag:+.15g}j"
