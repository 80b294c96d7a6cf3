"""Multi-modular exact arithmetic in ``Q(zeta_L)``: residues at every embedding modulo primes ``p = 1 (mod L)``.

The reference route (:mod:`cogo.algebra.cyclotomic`) multiplies two elements by
a cyclic convolution of length ``L`` (``O(L^2)``).  Here an element
``x = u / D`` (``u`` in ``Z[zeta_L]``, ``D`` a positive integer) is stored as
the images of ``u`` under the ``phi(L)`` ring homomorphisms
``Z[zeta_L] -> F_p``, ``zeta -> w^s`` (``w`` an element of order ``L`` modulo
``p``, ``s`` coprime to ``L``), for ``k`` primes ``p = 1 (mod L)``: a product
is ``phi(L) k`` multiplications modulo ``p`` (``O(L)``), complex conjugation
``zeta -> zeta^-1`` a permutation of the embeddings.

Why the answer is a proof.  ``p = 1 (mod L)`` makes ``Phi_L`` split into
distinct linear factors modulo ``p``, so ``Z[zeta_L] / p`` is ``F_p^phi(L)``
through these homomorphisms (Chinese remainder theorem; the Vandermonde matrix
of distinct points is invertible).  Each element carries a proven bound ``b``
on the 1-norm of *one* preimage ``v`` of ``u`` in ``Z[x]/(x^L - 1)``, updated by
every operation (``||v + v'|| <= ||v|| + ||v'||``, ``||v v'|| <= ||v|| ||v'||``
for the cyclic convolution).  The coordinates ``c`` of ``u`` in the basis
``1, ..., zeta^(phi(L)-1)`` are ``v`` reduced modulo ``Phi_L``, so
``|c_i| <= maxR b`` (``maxR`` the largest coefficient of the reduction
matrix; 1 for prime ``L``).  Hence:

* some residue nonzero  => ``x != 0`` (a ring homomorphism sends 0 to 0);
* every residue zero and ``maxR b < M / 2`` (``M`` the product of the primes)
  => ``c = 0 (mod M)`` with ``|c_i| < M / 2``, so ``c = 0`` and ``x = 0``;
* every residue zero but ``maxR b >= M / 2``: undecided -- :class:`ModulusTooSmall`
  is raised (never a guess); the caller retries with more primes
  (:func:`modular_field` ``bits``).

A residue that vanishes modulo small primes does not fool this: the zero test
needs every residue modulo primes whose product exceeds twice the bound.

References
----------
.. [1] J. von zur Gathen, J. Gerhard, "Modern Computer Algebra", Cambridge University Press, 3rd ed., 2013.
.. [2] L. C. Washington, "Introduction to Cyclotomic Fields", Springer GTM 83, 2nd ed., 1997.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy

from cogo.algebra.cyclotomic import cyclotomic, fourier_counts
from cogo.algebra.exact_scalar import ExactScalar
from cogo.algebra.network import Network

__all__ = ["ModularField", "modular_field", "ModCyc", "ModulusTooSmall", "fourier_network_modular",
           "DEFAULT_BITS"]

#: Default size of the modulus ``M`` (bits): row 3 of ``cogo verify`` needs 58 at order 23, 82 at order 127.
DEFAULT_BITS = 96


class ModulusTooSmall(ArithmeticError):
    """Every residue is 0 but the proven coefficient bound does not fit the modulus: zero is not proven.

    ``bits``: the size of modulus that would decide it (``modular_field(L, bits)``).
    """

    def __init__(self, message: str, bits: int):
        super().__init__(message)
        self.bits = bits


def _prime_bits(L: int) -> int:
    """Primes below ``2^bits`` keep ``L p^2`` (a dot product of length L of residues) below 2^62 in int64."""
    return max(8, min(31, (62 - math.ceil(math.log2(max(L, 2)))) // 2))


def _root_of_order(L: int, p: int) -> int:
    """An element of multiplicative order exactly ``L`` modulo the prime ``p`` (``L | p - 1``)."""
    factors = list(sympy.factorint(L)) if L > 1 else []
    for a in range(2, p):
        w = pow(a, (p - 1) // L, p)
        if all(pow(w, L // r, p) != 1 for r in factors):
            return w
    return 1  # L = 1 (p = 2 is never used: p = 1 mod L with p odd is chosen below)


class ModularField:
    """The ``phi(L)`` embeddings of ``Z[zeta_L]`` into ``F_p`` for ``k`` primes ``p = 1 (mod L)`` (module docstring).

    >>> F = modular_field(7, bits=64)
    >>> F.phi, all((p - 1) % 7 == 0 for p in F.primes), F.modulus.bit_length() >= 64
    (6, True, True)
    """

    def __init__(self, L: int, bits: int, instances: int = 1):
        self.L = L = int(L)
        self.bits, self.instances = int(bits), int(instances)
        cyc = cyclotomic(L) if L > 1 else None
        self.maxR = cyc.maxR if cyc is not None else 1
        self.units = [s for s in range(L) if math.gcd(s, L) == 1] if L > 1 else [0]
        self.phi = len(self.units)
        pb = _prime_bits(L)
        primes, t = [], ((1 << pb) - 1) // L
        while math.prod(primes).bit_length() <= bits:
            if t <= 0:
                raise ValueError(f"not enough primes p = 1 (mod {L}) below 2^{pb} for a {bits}-bit modulus")
            p = 1 + L * t
            if p % 2 == 1 and sympy.isprime(p):
                primes.append(p)
            t -= 1
        self.primes = primes
        self.modulus = math.prod(primes)
        roots = [_root_of_order(L, p) for p in primes]
        e = np.arange(L)
        # G[i, e, s] = w_i^(units[s] e) mod p_i: residues of zeta^e at every embedding
        self.G = np.stack([np.asarray([[pow(w, (u * int(ee)) % L, p) for u in self.units] for ee in e], dtype=np.int64)
                           for w, p in zip(roots, primes)])
        idx = {u: i for i, u in enumerate(self.units)}
        perm = np.asarray([idx[(-u) % L] for u in self.units], dtype=np.int64)  # zeta -> zeta^-1
        self.K = len(primes) * self.phi  # residues of one instance
        # flat residues: instance, prime, embedding
        self.conj = (np.arange(len(primes) * self.instances)[:, None] * self.phi + perm[None, :]).ravel()
        self.Pf = np.tile(np.repeat(np.asarray(primes, dtype=np.int64), self.phi), self.instances)  # their primes
        self.pmax = max(primes)
        self._inverse: dict = {}
        self._scalars: dict = {}

    def scalar(self, m: int) -> np.ndarray:
        """The integer ``m`` as flat residues (cached for small ``m``)."""
        v = self._scalars.get(m)
        if v is None:
            v = np.tile(np.repeat(np.asarray([m % p for p in self.primes], dtype=np.int64), self.phi), self.instances)
            if abs(m) < 2**20:
                self._scalars[m] = v
        return v

    def residues(self, V: np.ndarray) -> np.ndarray:
        """Integer vectors ``V[..., e]`` (multiplicities of ``zeta^e``, ``e < L``) -> residues ``(..., k, phi)``."""
        V = np.asarray(V)
        shape = V.shape[:-1]
        flat = V.reshape(-1, self.L)
        out = np.empty((flat.shape[0], len(self.primes), self.phi), dtype=np.int64)
        for i, p in enumerate(self.primes):
            red = flat % p if flat.dtype != object else np.vectorize(lambda x: int(x) % p, otypes=[np.int64])(flat)
            out[:, i, :] = (red.astype(np.int64) @ self.G[i]) % p
        return out.reshape(shape + (len(self.primes), self.phi))

    def decidable(self, bound: int) -> bool:
        """Whether a preimage 1-norm ``bound`` lets zero residues prove 0 (``maxR bound < M / 2``)."""
        return 2 * self.maxR * bound < self.modulus

    def bits_for(self, bound: int) -> int:
        """The ``bits`` of a field whose modulus decides elements of 1-norm bound ``bound``."""
        return (2 * self.maxR * bound).bit_length()

    def coordinates(self, r: np.ndarray, bound: int) -> list[int]:
        """The basis coordinates ``c`` (``|c_i| <= maxR bound``) of the element with residues ``r``, exactly.

        Solves the Vandermonde system of each prime (inverse cached), then the Chinese remainder theorem with
        the symmetric lift; raises :class:`ModulusTooSmall` when the bound does not fit the modulus.
        """
        if not self.decidable(bound):
            raise ModulusTooSmall(f"coefficient bound {bound} needs a modulus above {2 * self.maxR * bound}",
                                  self.bits_for(bound))
        M = self.modulus
        out = [0] * self.phi
        for i, p in enumerate(self.primes):
            c = [int(x) for x in (self._vandermonde_inverse(i) @ r[i]) % p] if self.phi > 1 else [int(r[i][0])]
            Mi = M // p
            f = Mi * pow(Mi, -1, p)
            out = [(o + ci * f) % M for o, ci in zip(out, c)]
        return [o - M if 2 * o > M else o for o in out]

    def _vandermonde_inverse(self, i: int) -> np.ndarray:
        """Inverse modulo ``p_i`` of ``V[s, e] = w^(units[s] e)``, ``e < phi`` (Gauss-Jordan, int64)."""
        if i not in self._inverse:
            p, n = self.primes[i], self.phi
            A = np.concatenate([self.G[i][:n].T.copy(), np.eye(n, dtype=np.int64)], axis=1)
            for col in range(n):
                piv = col + int(np.flatnonzero(A[col:, col])[0])
                A[[col, piv]] = A[[piv, col]]
                A[col] = (A[col] * pow(int(A[col, col]), -1, p)) % p
                f = A[:, col].copy()
                f[col] = 0
                A = (A - (f[:, None] * A[col][None, :]) % p) % p
            self._inverse[i] = A[:, n:]
        return self._inverse[i]


@lru_cache(maxsize=32)
def modular_field(L: int, bits: int = DEFAULT_BITS, instances: int = 1) -> ModularField:
    """The (cached) :class:`ModularField` of order ``L`` with a modulus of more than ``bits`` bits.

    ``instances > 1``: each element holds that many independent values side by side (one computation, one
    Python operation per step, for several inputs; :meth:`ModCyc.split` separates them).

    Returns
    -------
    ModularField
        Primes ``p = 1 (mod L)`` whose product exceeds ``2^bits``, with their embeddings.
    """
    return ModularField(L, bits, instances)


_LAZY = 2**62  # residues are kept unreduced while a tracked bound h on |representative| stays below this


def _new(F: ModularField, r: np.ndarray, D: int, b: int, h: int) -> "ModCyc":
    x = object.__new__(ModCyc)
    x.F, x.r, x.D, x.b, x.h = F, r, D, b, h
    return x


class ModCyc(ExactScalar):
    """An exact element ``u / D`` of ``Q(zeta_L)`` held as residues of ``u`` (module docstring); a sympy scalar.

    Same protocol as :class:`cogo.algebra.cyclotomic.CycNumber` (arithmetic with ints, Fractions, sympy
    rationals and elements of the same field; ``sympy.conjugate``; ``==`` decides equality), so a
    :class:`~cogo.algebra.Network` of ModCyc runs through :func:`~cogo.algebra.fourier_loss` unchanged.
    ``r``: one int64 residue per (prime, embedding), flattened, reduced lazily (``|r| <= h``);
    ``b``: the proven 1-norm bound of a preimage of ``u`` (module docstring).

    >>> F = modular_field(5, bits=64)
    >>> w = ModCyc.root(F, 1)                           # zeta_5
    >>> 1 + w + w**2 + w**3 + w**4 == 0, w**5 == 1, (w + 2).conjugate() * 3 == 3 * w**4 + 6
    (True, True, True)
    >>> (w / 2 + Fraction(1, 2)).coordinates()          # exact coordinates in 1, zeta, zeta^2, zeta^3
    (Fraction(1, 2), Fraction(1, 2), Fraction(0, 1), Fraction(0, 1))
    """

    __slots__ = ("F", "r", "D", "b", "h")

    @classmethod
    def from_vector(cls, F: ModularField, v: Any, s: Any = 1) -> "ModCyc":
        """``s * sum_e v[e] zeta^e`` (``v`` integers, length ``L``; ``s`` rational)."""
        v = np.asarray(v)
        s = Fraction(s)
        r = np.tile(F.residues(v).ravel(), F.instances) * F.scalar(s.numerator) % F.Pf
        return _new(F, r, s.denominator, sum(abs(int(x)) for x in v.tolist()) * abs(s.numerator), F.pmax - 1)

    @classmethod
    def root(cls, F: ModularField, e: int) -> "ModCyc":
        """``zeta_L^e``."""
        return _new(F, np.tile(F.G[:, int(e) % F.L, :].ravel(), F.instances), 1, 1, F.pmax - 1)

    @classmethod
    def rational(cls, F: ModularField, q: Any) -> "ModCyc":
        q = Fraction(q)
        return _new(F, F.scalar(q.numerator).copy(), q.denominator, abs(q.numerator), F.pmax - 1)

    # -- arithmetic (subtraction, division, powers, equality: ExactScalar) -------
    def _check_field(self, other: "ModCyc") -> None:
        if other.F is not self.F:
            raise TypeError("cannot combine residues of different modular fields")

    def _from_rational(self, q: Fraction) -> "ModCyc":
        return ModCyc.rational(self.F, q)

    def _red(self) -> np.ndarray:
        """The residues reduced into ``[0, p)`` (stored back: the value is the same)."""
        if self.h >= self.F.pmax:
            self.r, self.h = self.r % self.F.Pf, self.F.pmax - 1
        return self.r

    def __add__(self, other: Any) -> "ModCyc":
        o = other if type(other) is ModCyc and other.F is self.F else self._coerce(other)
        if o.b == 0:
            return self
        if self.b == 0:
            return o
        F = self.F
        if self.D == o.D:
            h = self.h + o.h
            if h < _LAZY:
                return _new(F, self.r + o.r, self.D, self.b + o.b, h)
            return _new(F, self._red() + o._red(), self.D, self.b + o.b, 2 * F.pmax)
        g = math.gcd(self.D, o.D)
        f1, f2 = o.D // g, self.D // g
        r = self._red() * F.scalar(f1) + o._red() * F.scalar(f2)
        return _new(F, r, self.D * f1, self.b * f1 + o.b * f2, 2 * F.pmax * F.pmax)

    __radd__ = __add__

    def __neg__(self) -> "ModCyc":
        return _new(self.F, -self.r, self.D, self.b, self.h)

    def __mul__(self, other: Any) -> "ModCyc":
        F = self.F
        if type(other) is ModCyc:
            if other.F is not F:
                self._check_field(other)
            if self.b == 0:
                return self
            if other.b == 0:
                return other
            # products of reduced residues stay below pmax^2 < 2^54: reduced only when used again (_red)
            return _new(F, self._red() * other._red(), self.D * other.D, self.b * other.b, F.pmax * F.pmax)
        q = self._factor(other)
        num = q.numerator
        if num == 1:
            return _new(F, self.r, self.D * q.denominator, self.b, self.h)
        return _new(F, self._red() * F.scalar(num), self.D * q.denominator, self.b * abs(num), F.pmax * F.pmax)

    __rmul__ = __mul__

    def conjugate(self) -> "ModCyc":
        """Complex conjugate ``zeta -> zeta^-1``: the embedding ``s`` reads the residue of ``-s``."""
        return _new(self.F, self.r[self.F.conj], self.D, self.b, self.h)

    # exact predicates ----------------------------------------------------------
    def split(self) -> tuple:
        """The values of the instances side by side (:func:`modular_field`), each a ModCyc of one instance."""
        F, K = self.F, self.F.K
        F1 = modular_field(F.L, F.bits, 1)
        return tuple(_new(F1, self.r[i * K:(i + 1) * K].copy(), self.D, self.b, self.h) for i in range(F.instances))

    def _single(self) -> None:
        if self.F.instances != 1:
            raise ValueError(f"this ModCyc holds {self.F.instances} values side by side: split() it first")

    def is_zero(self) -> bool:
        """Proven 0 (every residue 0, bound within the modulus), proven nonzero, or :class:`ModulusTooSmall`."""
        self._single()
        if self.b == 0:
            return True
        if np.any(self.r % self.F.Pf):
            return False
        if not self.F.decidable(self.b):
            raise ModulusTooSmall(f"all residues are 0 but the coefficient bound 2^{self.b.bit_length()} does "
                                  f"not fit the {self.F.modulus.bit_length()}-bit modulus", self.F.bits_for(self.b))
        return True

    def coordinates(self) -> tuple:
        """Exact coordinates (Fractions) in the basis ``1, zeta, ..., zeta^(phi(L)-1)``."""
        self._single()
        r = (self.r % self.F.Pf).reshape(len(self.F.primes), self.F.phi)
        return tuple(Fraction(c, self.D) for c in self.F.coordinates(r, self.b))

    def to_rational(self) -> Fraction | None:
        """The value as a Fraction when it is rational, else None (both proven)."""
        c = self.coordinates()
        return c[0] if not any(c[1:]) else None

    def __complex__(self) -> complex:
        c = self.coordinates()
        return complex(sum(float(x) * np.exp(2j * np.pi * e / self.F.L) for e, x in enumerate(c)))

    def __repr__(self) -> str:
        return f"ModCyc(L={self.F.L}, D={self.D}, bound 2^{self.b.bit_length()}, {len(self.F.primes)} primes)"

    __str__ = __repr__


def fourier_network_modular(Wa: Any, Wb: Any, Wc: Any, group: Any, bits: int = DEFAULT_BITS, also: tuple = ()):
    """:func:`cogo.algebra.cyclotomic.fourier_network` with :class:`ModCyc` entries (same gauge, same values).

    ``also``: further weight triples ``(Wa, Wb, Wc)`` of the same shapes, held as further instances of every
    entry (:func:`modular_field`), so that one evaluation computes all of them.

    Returns
    -------
    Network
        An exact network whose entries are ModCyc of ``modular_field(exponent, bits, 1 + len(also))``.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.algebra import fourier_loss
    >>> W0, W1 = np.zeros((1, 3), dtype=int), np.ones((1, 3), dtype=int)
    >>> fourier_loss(fourier_network_modular(W0, W0, W0.T, 3)) == Fraction(2, 3)   # a dead node: 1 - 1/3
    True
    >>> z = fourier_network_modular(W0, W0, W0.T, 3, also=[(W1, W1, W1.T)])
    >>> [x.to_rational() for x in fourier_loss(z).split()]                      # both networks at once
    [Fraction(2, 3), Fraction(2, 3)]
    """
    insts = [fourier_counts(*W, group) for W in [(Wa, Wb, Wc)] + list(also)]
    G, cs = insts[0][0], insts[0][2]
    if any(V.shape != W.shape for inst in insts for V, W in zip(inst[1], insts[0][1])):
        raise ValueError("fourier_network_modular: every weight triple needs the same shapes")
    F = modular_field(G.exponent, bits, len(insts))
    n, q = insts[0][1][0].shape[:2]
    z = np.empty((3, n, q), dtype=object)
    for pi in range(3):
        R = np.concatenate([F.residues(inst[1][pi]).reshape(n, q, -1) for inst in insts], axis=-1)
        norms = np.max([np.abs(inst[1][pi]).sum(axis=-1) for inst in insts], axis=0)
        D = 1
        if pi == 2:  # the output scale lam^3 / n^3
            R, norms, D = R * F.scalar(cs.numerator) % F.Pf, norms * abs(cs.numerator), cs.denominator
        for k in range(n):
            for j in range(q):
                z[pi, k, j] = _new(F, R[k, j], D, int(norms[k, j]), F.pmax - 1)
    return Network(G, z, exact=True)
