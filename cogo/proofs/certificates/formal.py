"""Formal polynomials: independent indeterminates that the library's exact code paths accept (SPEC 3-4 proofs).

A :class:`Formal` is an element of the polynomial ring ``Z[t_1, t_2, ...]`` in
independent indeterminates (and their formal conjugates).  It plays the part
of a sympy symbol in the library's exact code paths -- :class:`cogo.algebra.Network`
arithmetic, :func:`cogo.algebra.potentials`, :func:`cogo.algebra.self_potentials`
-- through the same protocol as :class:`cogo.algebra.cyclotomic.CycNumber`
(``sympy.sympify`` returns it, ``sympy.expand`` is the identity, ``sympy.conjugate``
conjugates), so a network whose entries are independent indeterminates
runs through the library unchanged, and an identity between the results is a
polynomial identity decided exactly (two polynomials are equal iff their
coefficient dictionaries are).

Why not sympy symbols: the whole ``n^3`` potential tensor of a symbolic
network at n = 23 takes about 8 s with sympy (one ``expand`` per entry); with
this ring it is a few tenths of a second, so the homomorphism of SPEC 4 can be
checked on the library's code at every frequency triple.

Representation: indeterminate number ``i`` is the ``i``-th prime (its
conjugate another prime), a monomial is the product of the primes of its
factors (unique factorization makes this injective), a polynomial is a dict
``{monomial: integer coefficient}`` without zero coefficients.  Monomial
codes of products of a few entries can also be formed with numpy integers
(:meth:`FormalVariables.codes`), which gives an independent, vectorized
statement of what a sum over nodes of products of entries must be.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group

__all__ = ["Formal", "FormalVariables", "formal_network"]


def _coeff(x: Any) -> int | None:
    """``x`` as a Python int when it is an exact integer (int, sympy Integer, integral Fraction), else None."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, sympy.Integer):
        return int(x)
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x.numerator)
    return None


def _accumulate(out: dict, m: Any, c: Any) -> None:
    """``out[m] += c``, dropping the monomial ``m`` when its coefficient cancels to 0."""
    v = out.get(m, 0) + c
    if v:
        out[m] = v
    else:
        out.pop(m, None)


class Formal:
    """A polynomial with integer coefficients in independent indeterminates, usable as a sympy scalar.

    ``t``: dict ``{monomial code: coefficient}`` (see the module docstring).
    Arithmetic with ints, sympy Integers and other Formals is exact; with
    anything else the operators return NotImplemented (so ``Formal * network``
    is the network's scalar multiplication, and a float raises TypeError).

    >>> import sympy
    >>> _, (x, y) = FormalVariables().new((2,))
    >>> (x + y) ** 2 == x * x + 2 * x * y + y * y, x * y == y * x, x == y   # decided on coefficient dictionaries
    (True, True, False)
    >>> sympy.conjugate(x) == x, sympy.conjugate(sympy.conjugate(x)) == x
    (False, True)
    """

    __slots__ = ("t",)
    __sympy__ = True  # sympy.sympify returns the object itself
    _op_priority = 1000.0  # sympy numbers defer to our reflected operators
    free_symbols: frozenset = frozenset()
    is_number = True
    #: conjugate prime of each prime used by an indeterminate (filled by FormalVariables)
    _CONJ: dict = {}

    def __init__(self, t: dict):
        self.t = t

    @classmethod
    def const(cls, c: int) -> "Formal":
        return cls({1: int(c)} if c else {})

    def _coerce(self, other: Any) -> "Formal":
        if isinstance(other, Formal):
            return other
        c = _coeff(other)
        if c is None:
            raise TypeError(f"Formal: cannot combine with {type(other).__name__} {other!r} exactly")
        return Formal.const(c)

    def __add__(self, other: Any) -> "Formal":
        try:
            o = self._coerce(other)
        except TypeError:
            return NotImplemented
        if not o.t:
            return self
        if not self.t:
            return o
        out = dict(self.t)
        for m, c in o.t.items():
            _accumulate(out, m, c)
        return Formal(out)

    __radd__ = __add__

    def __neg__(self) -> "Formal":
        return Formal({m: -c for m, c in self.t.items()})

    def __sub__(self, other: Any) -> "Formal":
        return self + (-self._coerce(other))

    def __rsub__(self, other: Any) -> "Formal":
        return self._coerce(other) + (-self)

    def __mul__(self, other: Any) -> "Formal":
        try:
            o = self._coerce(other)
        except TypeError:
            return NotImplemented
        if len(self.t) == 1 and len(o.t) == 1:
            (m1, c1), = self.t.items()
            (m2, c2), = o.t.items()
            return Formal({m1 * m2: c1 * c2})
        out: dict = {}
        for m1, c1 in self.t.items():
            for m2, c2 in o.t.items():
                _accumulate(out, m1 * m2, c1 * c2)
        return Formal(out)

    __rmul__ = __mul__

    def __pow__(self, e: int) -> "Formal":
        if not isinstance(e, (int, np.integer)) or e < 0:
            raise TypeError("Formal: only non-negative integer powers")
        out = Formal.const(1)
        for _ in range(int(e)):
            out = out * self
        return out

    def conjugate(self) -> "Formal":
        """Formal complex conjugation: each indeterminate to its conjugate indeterminate, coefficients kept."""
        out: dict = {}
        for m, c in self.t.items():
            cm = 1
            for p, e in sympy.factorint(m).items():
                cm *= self._CONJ[int(p)] ** int(e)
            out[cm] = c
        return Formal(out)

    # sympy protocol ------------------------------------------------------------
    def _eval_conjugate(self):
        return self.conjugate()

    def expand(self, *args, **kwargs) -> "Formal":
        return self

    def __eq__(self, other: Any) -> bool:
        try:
            return self.t == self._coerce(other).t
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(frozenset(self.t.items()))

    def __repr__(self) -> str:
        return f"Formal({len(self.t)} terms)"


class FormalVariables:
    """A supply of independent indeterminates (distinct primes; each with a distinct conjugate prime).

    >>> V = FormalVariables()
    >>> codes, values = V.new((3,))
    >>> codes.tolist(), values[0] * values[1] == values[1] * values[0]   # primes; conjugates take other primes
    ([2, 5, 11], True)
    """

    def __init__(self):
        self._next = 2

    def _prime(self) -> int:
        p = int(sympy.nextprime(self._next - 1))
        self._next = p + 1
        return p

    def new(self, shape: tuple, real: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, values)``: an int64 array of fresh primes and the object array of the Formals they name.

        ``real=True``: real indeterminates (each its own conjugate).
        """
        size = int(np.prod(shape))
        codes = np.empty(size, dtype=np.int64)
        vals = np.empty(size, dtype=object)
        for i in range(size):
            p = self._prime()
            pc = p if real else self._prime()
            Formal._CONJ[p], Formal._CONJ[pc] = pc, p
            codes[i] = p
            vals[i] = Formal({p: 1})
        return codes.reshape(shape), vals.reshape(shape)


def formal_network(group: Any, q: int, variables: FormalVariables):
    """A network over ``group`` with ``q`` nodes whose ``3 n q`` entries are independent indeterminates.

    Returns
    -------
    network : Network
        Exact, ``3 x n x q`` independent indeterminates.
    codes : numpy.ndarray
        Shape ``(3, n, q)``: ``codes[p, k, j]`` is the prime naming entry ``z[p, k, j]``.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.algebra import potentials
    >>> net, codes = formal_network(5, 2, FormalVariables())
    >>> net, codes.shape
    (Network(group=Z_5, q=2, exact), (3, 5, 2))
    >>> r, rr = potentials(net), potentials(net * net)      # r(x * x) = r(x)^2 as a polynomial identity
    >>> all(u == v * v for u, v in zip(rr.ravel(), r.ravel()))
    True
    """
    G = as_group(group)
    codes, vals = variables.new((3, G.order, q))
    return Network(G, vals, exact=True), codes
