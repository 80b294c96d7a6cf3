"""What the two exact scalars of ``Q(zeta_L)`` share: rational operands and the sympy scalar protocol.

:class:`cogo.algebra.cyclotomic.CycNumber` (coefficient vectors modulo ``x^L - 1``) and
:class:`cogo.algebra.modular.ModCyc` (residues modulo primes ``p = 1 (mod L)``) hold the same numbers in two
representations.  Each defines, on its own representation, ``+``, ``*``, unary ``-``, ``conjugate``,
``is_zero``, :meth:`ExactScalar._check_field` (is the other operand an element of the same field?) and
:meth:`ExactScalar._from_rational`; :class:`ExactScalar` derives from them, the same way for both, subtraction,
division by a nonzero rational, non-negative integer powers, equality (``x == y`` iff ``x - y`` is zero) and what
sympy asks of a scalar (``sympy.sympify`` returns the object itself, ``sympy.conjugate`` and ``sympy.expand``
work on it, sympy numbers defer to its reflected operators).  Any operand that is not an exact rational or an
element of the same field raises TypeError: nothing is ever approximated.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from cogo.algebra._lazy import is_sympy

__all__ = ["ExactScalar", "as_fraction"]


def as_fraction(x: Any) -> Fraction | None:
    """``x`` as a Fraction when it is an exact rational (int, numpy integer, Fraction, sympy Rational), else None.

    >>> as_fraction(3), as_fraction(Fraction(1, 2)), as_fraction(0.5)
    (Fraction(3, 1), Fraction(1, 2), None)
    """
    if isinstance(x, (bool, int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if is_sympy(x) and x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    return None


class ExactScalar:
    """The arithmetic both exact scalars of ``Q(zeta_L)`` derive from their own ``+``, ``*`` and ``is_zero``."""

    __slots__ = ()
    __sympy__ = True  # sympy.sympify returns the object itself
    _op_priority = 1000.0  # sympy numbers defer to our reflected operators
    free_symbols: frozenset = frozenset()
    is_number = True

    def _check_field(self, other: Any) -> None:
        """Raise TypeError unless ``other`` (of the same class) is an element of the same field."""
        raise NotImplementedError

    def _from_rational(self, q: Fraction) -> Any:
        """The rational ``q`` as an element of this field."""
        raise NotImplementedError

    def _coerce(self, other: Any) -> Any:
        if type(other) is type(self):
            self._check_field(other)
            return other
        q = as_fraction(other)
        if q is None:
            raise TypeError(f"{type(self).__name__}: cannot combine with {type(other).__name__} {other!r} exactly")
        return self._from_rational(q)

    def _factor(self, other: Any) -> Fraction:
        """A rational factor of a product, or TypeError."""
        q = as_fraction(other)
        if q is None:
            raise TypeError(f"{type(self).__name__}: cannot multiply by {type(other).__name__} {other!r} exactly")
        return q

    def __sub__(self, other: Any) -> Any:
        return self + (-self._coerce(other))

    def __rsub__(self, other: Any) -> Any:
        return self._coerce(other) + (-self)

    def __truediv__(self, other: Any) -> Any:
        q = as_fraction(other)
        if q is None or q == 0:
            raise TypeError(f"{type(self).__name__}: can only divide by a nonzero rational, got {other!r}")
        return self * (1 / q)

    def __pow__(self, e: int) -> Any:
        if not isinstance(e, (int, np.integer)) or e < 0:
            raise TypeError(f"{type(self).__name__}: only non-negative integer powers")
        out = self._from_rational(Fraction(1))
        for _ in range(int(e)):
            out = out * self
        return out

    # sympy protocol ------------------------------------------------------------
    def _eval_conjugate(self):
        return self.conjugate()

    def expand(self, *args, **kwargs) -> Any:
        return self

    # equality is decided (reduction in the field), never approximated ---------------
    def __eq__(self, other: Any) -> bool:
        if other is self:
            return True
        try:
            return (self - other).is_zero()
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # equality is decided, not hashed (a subclass with a canonical form defines its own)
