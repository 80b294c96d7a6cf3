"""Frequency relations modulo d and character sums with d symbolic: the arithmetic of the every-order proofs.

A frequency of ``Z_d`` that a construction uses is a *linear form* in
frequency variables (``k``, ``k0``, ...) with integer coefficients: a block at
``k`` has its values at ``k`` and ``-k``, its quadratic terms meet ``2k``, ``0``
and ``-2k``, and so on (SPEC 5-6).  Two terms of the loss of SPEC 5 merge
exactly when their index forms are equal modulo ``d``, i.e. when the
difference ``L`` of the forms satisfies ``L = 0 (mod d)``.
:func:`relation_set` says for which admissible ``d`` such a relation can hold
at all (a :class:`DSet`): never, always (the forms are the same), only where
the design's constraints are broken (two blocks at one frequency pair), on a
residue class (``p | d``), or possibly everywhere (a conservative answer for
the relations whose solutions it does not analyse).

The second half is the orthogonality of characters as a rewriting rule with
``d`` a sympy symbol: ``sum_{j in Z_d} zeta_d^(j L) = d [L = 0 (mod d)]``.
:class:`Bracket` expressions (sums of ``coefficient * prod [L_i = 0]``) are
summed over a frequency variable by solving a bracket with a unit coefficient
for it, so the potentials of z_M (SPEC 7.4) and its loss come out in closed
form, and the proof does not grow with ``d``.

>>> relation_set(form(k=3)).describe()
'3 | d'
>>> relation_set(form(k=2)).kind, relation_set(form(k=1, k0=-1), distinct={("k", "k0")}).kind
('never', 'excluded')
>>> d = D
>>> e = character_sum(form(k=1, k1=-1))                  # sum_j zeta^(j (k - k1)) = d [k = k1]
>>> sum_over(e, "k1", nonzero=True).simplify({"k"}).constant()     # sum over k1 != 0 of d [k1 = k], k != 0
d

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

__all__ = ["form", "fadd", "fneg", "fscale", "fstr", "DSet", "relation_set", "prime_factors", "Bracket",
           "character_sum", "sum_over", "D", "Unresolved"]

#: The group order, a positive integer symbol.
D = sympy.Symbol("d", positive=True, integer=True)


# --------------------------------------------------------------------------- linear forms
def form(**coefs: int) -> tuple:
    """A linear form in frequency variables: a sorted tuple of ``(variable, coefficient)``, zeros dropped (``()``: zero)."""
    return tuple(sorted((v, int(c)) for v, c in coefs.items() if c))


def fadd(f: tuple, g: tuple) -> tuple:
    """``f + g``."""
    out = dict(f)
    for v, c in g:
        out[v] = out.get(v, 0) + c
    return form(**out)


def fscale(f: tuple, s: int) -> tuple:
    """``s f``."""
    return form(**{v: s * c for v, c in f})


def fneg(f: tuple) -> tuple:
    """``-f``."""
    return fscale(f, -1)


def fstr(f: tuple) -> str:
    """The form as text: ``2k - k0`` style (``0`` for the zero form)."""
    if not f:
        return "0"
    out = ""
    for v, c in f:
        sign = "-" if c < 0 else "+"
        mag = "" if abs(c) == 1 else str(abs(c))
        out += (f" {sign} " if out else ("-" if c < 0 else "")) + mag + v
    return out


def prime_factors(n: int) -> tuple:
    """The primes dividing ``|n|`` (``n != 0``), increasing."""
    n, out, p = abs(n), [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return tuple(out + ([n] if n > 1 else []))


# --------------------------------------------------------------------------- where a relation can hold
@dataclass(frozen=True)
class DSet:
    """The admissible orders ``d`` at which a relation ``L = 0 (mod d)`` can hold for some frequencies.

    ``kind``: ``always`` (``L`` is the zero form), ``never``, ``excluded`` (only when two blocks of the
    design share a frequency pair, which the design rules out), ``divisible`` (``p | d`` for some ``p`` in
    ``primes``: a union of residue classes), ``every`` (not analysed: treated as possible at every ``d``).
    """

    kind: str
    primes: tuple = ()
    why: str = ""

    def contains(self, d: int) -> bool:
        """Whether the relation can hold at order ``d`` (``excluded`` and ``never``: no)."""
        if self.kind in ("always", "every"):
            return True
        if self.kind == "divisible":
            return any(d % p == 0 for p in self.primes)
        return False

    @property
    def collision(self) -> bool:
        """A case split is needed: the relation holds on some admissible ``d`` and not identically."""
        return self.kind in ("divisible", "every")

    def describe(self) -> str:
        """``3 | d``, ``never``, ... (one line)."""
        if self.kind == "divisible":
            return " or ".join(f"{p} | d" for p in self.primes)
        return {"always": "every d (the same form)", "never": "no admissible d",
                "excluded": "no d (the design puts no two blocks at one pair)", "every": "possibly every d"}[self.kind]


def _single(c: int, odd: bool, what: str) -> DSet:
    """``c w = 0 (mod d)`` for some ``w != 0``: iff ``gcd(c, d) > 1``, i.e. a prime of ``c`` divides ``d``."""
    ps = tuple(p for p in prime_factors(c) if not (odd and p == 2))
    if not ps:
        return DSet("never", why=f"{c} {what} = 0 needs gcd({c}, d) > 1" + ("; d is odd" if odd else ""))
    return DSet("divisible", ps, why=f"{c} {what} = 0 (mod d) with {what} != 0 needs gcd({c}, d) > 1")


def relation_set(L: tuple, distinct: set | frozenset = frozenset(), odd: bool = True) -> DSet:
    """Where ``L = 0 (mod d)`` can hold, every variable a nonzero frequency, ``d`` odd (``odd=True``) or any.

    ``distinct``: pairs of variables that index different blocks of a design (positive frequencies of one
    pair each), so ``u != +-v``.  One variable: ``c v = 0`` holds for some ``v != 0`` iff ``gcd(c, d) > 1``.
    Two block variables with equal coefficients in absolute value: ``c (u +- v)`` with ``u +- v != 0``, the
    same rule for ``c``; ``c = 1`` is excluded by the design.  Anything else: ``every`` (conservative: a
    case that needs its own certificate).
    """
    if not L:
        return DSet("always", why="the two forms are the same")
    if len(L) == 1:
        (v, c), = L
        return _single(c, odd, v)
    if len(L) == 2:
        (u, cu), (v, cv) = L
        if abs(cu) == abs(cv) and ((u, v) in distinct or (v, u) in distinct):
            if abs(cu) == 1:
                return DSet("excluded", why=f"{u} = {'-' if cu == cv else '+'}{v} would put two blocks at one pair")
            w = f"({u} {'+' if cu == cv else '-'} {v})"
            return _single(abs(cu), odd, w)
    return DSet("every", why=f"{fstr(L)} = 0 is not analysed: treated as possible at every d")


# --------------------------------------------------------------------------- character sums, d symbolic
class Unresolved(ValueError):
    """A bracket the rules cannot remove (a variable only with a coefficient other than +-1)."""


def _canon(L: tuple) -> tuple:
    """``[L = 0]`` and ``[-L = 0]`` are one bracket: the form with a positive first coefficient."""
    return fneg(L) if L and L[0][1] < 0 else L


@dataclass(frozen=True)
class Bracket:
    """``sum_t coef_t * prod_{L in brackets_t} [L = 0 (mod d)]``: ``terms`` maps a frozenset of forms to a sympy coefficient."""

    terms: tuple

    @staticmethod
    def of(coef, brackets=()) -> "Bracket":
        """One term."""
        return Bracket(((frozenset(_canon(b) for b in brackets), sympy.sympify(coef)),))

    def _map(self) -> dict:
        out: dict = {}
        for bs, c in self.terms:
            out[bs] = out.get(bs, 0) + c
        return out

    @staticmethod
    def _from(m: dict) -> "Bracket":
        return Bracket(tuple((bs, sympy.expand(c)) for bs, c in m.items() if sympy.expand(c) != 0))

    def __add__(self, other: "Bracket") -> "Bracket":
        return Bracket._from(Bracket(self.terms + other.terms)._map())

    def __mul__(self, other) -> "Bracket":
        if not isinstance(other, Bracket):
            return Bracket._from({bs: c * other for bs, c in self._map().items()})
        out: dict = {}
        for b1, c1 in self.terms:
            for b2, c2 in other.terms:
                key = b1 | b2            # [L = 0]^2 = [L = 0]
                out[key] = out.get(key, 0) + c1 * c2
        return Bracket._from(out)

    __rmul__ = __mul__

    def conj(self) -> "Bracket":
        """Complex conjugate: brackets are real, the coefficients are conjugated (``d`` is real)."""
        return Bracket._from({bs: sympy.conjugate(c) for bs, c in self._map().items()})

    def abs2(self) -> "Bracket":
        """``|x|^2 = x conj(x)``."""
        return self * self.conj()

    def substitute(self, var: str, value: tuple) -> "Bracket":
        """Replace the variable ``var`` by the form ``value`` in every bracket."""
        out: dict = {}
        for bs, c in self.terms:
            key = frozenset(_canon(_subst(b, var, value)) for b in bs)
            out[key] = out.get(key, 0) + c
        return Bracket._from(out)

    def simplify(self, nonzero: set) -> "Bracket":
        """``[0 = 0] = 1``; ``[+-v = 0] = 0`` for a variable ``v`` known to be a nonzero frequency."""
        out: dict = {}
        for bs, c in self.terms:
            if any(len(b) == 1 and abs(b[0][1]) == 1 and b[0][0] in nonzero for b in bs):
                continue
            key = frozenset(b for b in bs if b)
            out[key] = out.get(key, 0) + c
        return Bracket._from(out)

    def constant(self):
        """The value when no bracket is left (a sympy expression in ``d``); :class:`Unresolved` otherwise."""
        if any(bs for bs, _ in self.terms):
            left = sorted({fstr(b) for bs, _ in self.terms for b in bs})
            raise Unresolved(f"brackets left: {', '.join(f'[{b} = 0]' for b in left)}")
        return sympy.factor(sum((c for _, c in self.terms), sympy.Integer(0)))


def _subst(L: tuple, var: str, value: tuple) -> tuple:
    c = dict(L).get(var, 0)
    rest = tuple((v, x) for v, x in L if v != var)
    return fadd(rest, fscale(value, c))


def character_sum(L: tuple) -> Bracket:
    """``sum_{j in Z_d} zeta_d^(j L)`` for a form ``L`` in the frequencies: ``d [L = 0 (mod d)]`` (orthogonality)."""
    return Bracket.of(D, [L])


def sum_over(e: Bracket, var: str, nonzero: bool = False) -> Bracket:
    """``sum_{var in Z_d} e`` (``nonzero=True``: over ``var != 0``), each bracket in ``var`` solved for it.

    A term whose brackets do not contain ``var`` gets the factor ``d`` (``d - 1`` summing over ``var != 0``,
    as the term at ``var = 0`` is subtracted).  A term with a bracket ``[+-var + R = 0]`` is the term with
    ``var = -+R`` (one solution modulo ``d``).  A bracket with ``var`` only at coefficients other than +-1
    raises :class:`Unresolved` (it has ``gcd(c, d)`` solutions or none: a case split, not done here).
    """
    out = Bracket(())
    for bs, c in e.terms:
        solvable = [b for b in bs if abs(dict(b).get(var, 0)) == 1]
        if solvable:
            b = solvable[0]
            cv = dict(b)[var]
            rest = tuple((v, x) for v, x in b if v != var)
            value = fscale(rest, -cv)      # cv * var + rest = 0  <=>  var = -cv * rest (cv = +-1)
            term = Bracket(((frozenset(x for x in bs if x != b), c),)).substitute(var, value)
        elif any(dict(b).get(var, 0) for b in bs):
            raise Unresolved(f"a bracket with {var} at a coefficient other than +-1: "
                             f"{', '.join(fstr(b) for b in bs if dict(b).get(var, 0))}")
        else:
            term = Bracket(((bs, c * D),))
        out = out + term
    if nonzero:
        out = out + e.substitute(var, ()) * -1
    return out
