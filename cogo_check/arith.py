"""Exact arithmetic of the checker: Q(zeta_L) in reduced coordinates, and the group Z_d1 x ... x Z_dr.

An element of Q(zeta_L) is a tuple of phi(L) Fractions, its coordinates in the basis 1, zeta, ...,
zeta^(phi(L)-1) of Q(zeta_L) = Q[x]/(Phi_L).  Phi_L is computed here from x^L - 1 = prod_{d | L} Phi_d
by exact integer polynomial division, so a coordinate tuple is unique: an element is 0 iff every
coordinate is 0 (no bound, no modulus, no floating point).  Standard library only.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache


def _divexact(a: list, b: list) -> list:
    """a / b for integer polynomials (lowest degree first), b monic; raises if the remainder is not 0."""
    a = list(a)
    out = [0] * (len(a) - len(b) + 1)
    for i in range(len(out) - 1, -1, -1):
        c = a[i + len(b) - 1]
        out[i] = c
        for t, bt in enumerate(b):
            a[i + t] -= c * bt
    if any(a):
        raise ArithmeticError("inexact polynomial division")
    return out


@lru_cache(maxsize=None)
def cyclotomic_poly(L: int) -> tuple:
    """Phi_L, lowest degree first: (x^L - 1) divided by Phi_d for every proper divisor d of L."""
    p = [-1] + [0] * (L - 1) + [1]
    for d in range(1, L):
        if L % d == 0:
            p = _divexact(p, list(cyclotomic_poly(d)))
    return tuple(p)


class Field:
    """Q(zeta_L): elements are tuples of phi(L) Fractions (coordinates modulo Phi_L)."""

    def __init__(self, L: int):
        if L < 1:
            raise ValueError(f"bad cyclotomic order {L}")
        self.L = L
        phi = cyclotomic_poly(L)
        self.deg = len(phi) - 1
        # red[e] = x^e mod Phi_L, for 0 <= e < max(L, 2 deg - 1)
        red, cur = [], [1] + [0] * (self.deg - 1)
        for _ in range(max(L, 2 * self.deg)):
            red.append(tuple(cur))
            top = cur[-1]
            cur = [0] + cur[:-1]
            cur = [c - top * phi[i] for i, c in enumerate(cur)]
        self.red = red
        self.zero = tuple(Fraction(0) for _ in range(self.deg))
        self.one = self.rational(1)

    def rational(self, q) -> tuple:
        return (Fraction(q),) + self.zero[1:]

    def sparse(self, den: int, terms: list) -> tuple:
        """(1/den) sum c zeta^e for the pairs [e, c] (integers); den a positive integer."""
        if not (isinstance(den, int) and den > 0):
            raise ValueError(f"bad denominator {den!r}")
        acc = [0] * self.deg
        for e, c in terms:
            if not (isinstance(e, int) and isinstance(c, int)):
                raise ValueError("exponents and coefficients must be integers")
            for i, r in enumerate(self.red[e % self.L]):
                acc[i] += c * r
        return tuple(Fraction(a, den) for a in acc)

    def add(self, x: tuple, y: tuple) -> tuple:
        return tuple(a + b for a, b in zip(x, y))

    def sub(self, x: tuple, y: tuple) -> tuple:
        return tuple(a - b for a, b in zip(x, y))

    def scale(self, x: tuple, q) -> tuple:
        return tuple(a * q for a in x)

    def mul(self, x: tuple, y: tuple) -> tuple:
        d = self.deg
        prod = [0] * (2 * d - 1)
        for i, a in enumerate(x):
            if a:
                for j, b in enumerate(y):
                    if b:
                        prod[i + j] += a * b
        out = prod[:d]
        for e in range(d, 2 * d - 1):
            if prod[e]:
                for i, r in enumerate(self.red[e]):
                    if r:
                        out[i] += prod[e] * r
        return tuple(Fraction(v) for v in out)

    def conj(self, x: tuple) -> tuple:
        """Complex conjugation: zeta -> zeta^-1."""
        acc = [Fraction(0)] * self.deg
        for i, a in enumerate(x):
            if a:
                for t, r in enumerate(self.red[(-i) % self.L]):
                    if r:
                        acc[t] += a * r
        return tuple(acc)

    def abs2(self, x: tuple) -> tuple:
        return self.mul(x, self.conj(x))

    def is_zero(self, x: tuple) -> bool:
        return not any(x)

    def as_rational(self, x: tuple):
        """The Fraction x, or None when x is not rational."""
        return x[0] if not any(x[1:]) else None

    def text(self, x: tuple) -> str:
        q = self.as_rational(x)
        if q is not None:
            return str(q)
        return " + ".join(f"({c})*z{self.L}^{i}" for i, c in enumerate(x) if c)


class Group:
    """Z_d1 x ... x Z_dr: elements are tuples, addition componentwise modulo d_i."""

    def __init__(self, factors: list):
        if not factors or not all(isinstance(d, int) and d >= 1 for d in factors):
            raise ValueError(f"bad group factors {factors!r}")
        self.factors = tuple(factors)
        self.order = 1
        for d in factors:
            self.order *= d
        self.elements = [tuple(t) for t in itertools.product(*(range(d) for d in factors))]
        self.zero = tuple(0 for _ in factors)

    def elem(self, x) -> tuple:
        t = tuple(x)
        if len(t) != len(self.factors) or not all(isinstance(v, int) and 0 <= v < d for v, d in zip(t, self.factors)):
            raise ValueError(f"{x!r} is not an element of Z_{' x Z_'.join(map(str, self.factors))}")
        return t

    def add(self, x: tuple, y: tuple) -> tuple:
        return tuple((a + b) % d for a, b, d in zip(x, y, self.factors))

    def neg(self, x: tuple) -> tuple:
        return tuple((-a) % d for a, d in zip(x, self.factors))

    def pairs(self) -> int:
        """P: the number of pairs {k, -k} with k != -k."""
        return sum(1 for k in self.elements if k != self.neg(k)) // 2
