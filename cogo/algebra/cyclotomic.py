"""Exact arithmetic with roots of unity: ``Z[zeta_L]`` arrays and ``Q(zeta_L)`` scalars (SPEC 2, 5, 7.4).

Two tools, one representation (integer coefficient vectors of powers of ``zeta_L = exp(2 pi i / L)``):

* :class:`Cyclotomic` -- vectorized arrays of elements of ``Z[zeta_L]`` in the
  basis ``1, zeta, ..., zeta^(phi(L)-1)`` (a basis over Q, since the cyclotomic
  polynomial ``Phi_L`` is the minimal polynomial of ``zeta``).  An element is 0
  iff its coordinate vector is 0.  Used for the character sums of z_M.
* :class:`CycNumber` -- one element of ``Q(zeta_L)`` as a scalar that the
  library's exact code paths accept as a sympy value (``sympy.sympify``,
  ``sympy.expand``, ``sympy.conjugate`` and arithmetic with sympy rationals all
  work on it).  It is stored as ``s * sum_e v[e] x^e`` in ``Q[x]/(x^L - 1)``
  (``s`` rational, ``v`` integers); the map ``x -> zeta_L`` is a ring
  homomorphism ``Q[x]/(x^L - 1) -> Q(zeta_L)``, so products and sums are done
  by cyclic convolution and an element is 0 in ``Q(zeta_L)`` iff ``v`` reduced
  modulo ``Phi_L`` is 0.  A :class:`~cogo.algebra.Network` whose entries are
  CycNumbers runs through :func:`~cogo.algebra.fourier_loss` unchanged, so the
  general loss of SPEC 5 is evaluated *exactly*, by the library's own code, for
  any group order.

From integer weights: :func:`fourier_network` (an exact network of
CycNumbers on any group, SPEC 2, gauge-equivalent to
``Network.from_weights``) and :func:`exact_real_loss` (the real-space loss of
SPEC 1, a ``Fraction``).  Exact sympy networks (e.g. the constructions of
SPEC 7) are gauge-fixed into CycNumbers by :mod:`cogo.algebra.cyc_gauge`;
subtraction, division, powers, equality and the sympy protocol are
:class:`cogo.algebra.exact_scalar.ExactScalar`'s.

References
----------
.. [1] L. C. Washington, "Introduction to Cyclotomic Fields", Springer GTM 83, 2nd ed., 1997.
.. [2] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy

from cogo.algebra.exact_scalar import ExactScalar, as_fraction
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group

__all__ = ["Cyclotomic", "cyclotomic", "CycNumber", "fourier_network", "fourier_counts", "exact_real_loss"]

_EXACT_FLOAT = 2**52  # integers below this are exact in float64, and so are sums of products staying below it
_INT64_SAFE = 2**62


class Cyclotomic:
    """Exact arithmetic in ``Z[zeta_L]``, ``zeta_L = exp(2 pi i / L)``, on arrays of elements.

    An element is an integer vector of length ``phi(L)``: its coordinates in
    the basis ``1, zeta, ..., zeta^(phi(L)-1)``.  :meth:`from_counts` maps
    multiplicities of the powers ``zeta^e``, ``e < 2L``, to that basis with a
    precomputed integer matrix (from ``sympy.cyclotomic_poly``).  Integer
    matrix products run in float64 only when a bound proves every partial sum
    an integer below 2^52 (so the result is exact); otherwise in int64 or
    Python integers.

    >>> import numpy as np
    >>> C = cyclotomic(5)                               # Z[zeta_5], basis 1, zeta, zeta^2, zeta^3
    >>> C.deg, C.from_counts(np.array([1, 1, 1, 1, 1])).tolist()   # 1 + zeta + ... + zeta^4 = 0
    (4, [0, 0, 0, 0])
    >>> z = C.from_counts(np.array([0, 1]))             # zeta
    >>> z4 = C.mul(C.mul(z, z), C.mul(z, z))
    >>> C.mul(z4, z).tolist()                           # zeta^5 = 1
    [1, 0, 0, 0]
    """

    def __init__(self, L: int):
        self.L = int(L)
        x = sympy.Symbol("x")
        phi = [int(c) for c in sympy.Poly(sympy.cyclotomic_poly(self.L, x), x).all_coeffs()[::-1]]
        self.deg = len(phi) - 1
        rows = max(2 * self.L, 2 * self.deg)
        R = []
        v = [0] * self.deg
        v[0] = 1
        for _ in range(rows):
            R.append(list(v))
            top = v[-1]
            v = [0] + v[:-1]
            v = [vi - top * phi[i] for i, vi in enumerate(v)]
        self.R = np.asarray(R, dtype=object)
        self.maxR = max(abs(int(c)) for c in self.R.ravel()) if self.R.size else 1
        self.Rf = self.R.astype(np.float64)
        self.R64 = self.R.astype(np.int64)
        self.powers = np.exp(2j * np.pi * np.arange(self.deg) / self.L)
        self.prime = self.L > 1 and bool(sympy.isprime(self.L))

    def from_counts(self, counts: np.ndarray) -> np.ndarray:
        """``counts[..., e]`` = multiplicity of ``zeta^e`` (``e < 2L``) -> basis coordinates (int64 or object)."""
        m = counts.shape[-1]
        L = self.L
        if m > L:  # zeta^L = 1: fold the powers L..2L-1 onto 0..L-1 (Phi_L divides x^L - 1)
            counts = counts.astype(np.int64 if counts.dtype != object else object)
            folded = counts[..., :L].copy()
            folded[..., :m - L] += counts[..., L:m]
            counts, m = folded, L
        if self.prime and m == L:  # Phi_p = 1 + x + ... + x^(p-1): zeta^(p-1) = -(1 + ... + zeta^(p-2))
            return counts[..., :L - 1] - counts[..., L - 1:L]
        bound = int(np.abs(counts).max(initial=0)) * m * self.maxR
        if counts.dtype != object and bound < _EXACT_FLOAT:
            out = counts.astype(np.float64) @ self.Rf[:m]
            return np.rint(out).astype(np.int64)
        if counts.dtype != object and bound < _INT64_SAFE:
            return counts.astype(np.int64) @ self.R64[:m]
        return counts.astype(object) @ self.R[:m]

    def mul(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Elementwise product of two arrays of elements (shape ``(..., deg)``).

        Rational elements (only the coordinate of 1 nonzero) multiply as integers; otherwise the
        coordinate vectors are convolved and reduced modulo ``Phi_L``.
        """
        d = self.deg
        if not np.any(A[..., 1:]) and not np.any(B[..., 1:]):
            out = np.zeros(np.broadcast_shapes(A.shape, B.shape), dtype=object if object in (A.dtype, B.dtype)
                           else np.int64)
            out[..., 0] = A[..., 0] * B[..., 0]
            return out
        big = int(np.abs(A).max(initial=0)) * int(np.abs(B).max(initial=0)) * d
        dtype = np.int64 if big * 2 * d * self.maxR < _INT64_SAFE else object
        out = np.zeros(np.broadcast_shapes(A.shape[:-1], B.shape[:-1]) + (2 * d - 1,), dtype=dtype)
        A = A.astype(dtype)
        B = B.astype(dtype)
        for i in range(d):
            out[..., i:i + d] += A[..., i:i + 1] * B
        return self.from_counts(out)

    def value(self, v: np.ndarray) -> np.ndarray:
        """Numeric value (for reporting only)."""
        return np.asarray(v, dtype=np.float64) @ self.powers if self.deg else np.zeros(v.shape[:-1])


@lru_cache(maxsize=64)
def cyclotomic(L: int) -> Cyclotomic:
    """The (cached) :class:`Cyclotomic` of order ``L``.

    Examples
    --------
    >>> cyclotomic(12) is cyclotomic(12), cyclotomic(12).deg   # phi(12) = 4
    (True, 4)
    """
    return Cyclotomic(L)


# --------------------------------------------------------------------------- scalars
def _cyc_mul(u: np.ndarray, v: np.ndarray, L: int, wide: bool) -> np.ndarray:
    """Product in ``Z[x]/(x^L - 1)`` (cyclic convolution); Python ints when ``wide``, else int64."""
    if wide:
        u, v = u.astype(object), v.astype(object)
    c = np.convolve(u, v)
    out = c[:L].copy()
    out[:L - 1] += c[L:]
    return out


def _new(L: int, v: np.ndarray, D: int, b: int) -> "CycNumber":
    x = object.__new__(CycNumber)
    x.L, x.v, x.D, x.b, x._key = L, v, D, b, None
    return x


@lru_cache(maxsize=None)
def _conj_index(L: int) -> np.ndarray:
    """``(-e) mod L`` for ``e = 0..L-1``: the coefficient permutation of ``zeta -> zeta^-1``."""
    return (-np.arange(L)) % L


def _canonical(x: "CycNumber") -> tuple:
    """``(D', c')``: the reduced coordinates ``c / D`` of ``x`` in lowest terms (``gcd(c', D') = 1``, ``D' > 0``).

    Unique for each element of ``Q(zeta_L)`` (the basis ``1, ..., zeta^(phi(L)-1)`` is a Q-basis), so two
    CycNumbers of one ``L`` are equal iff their keys are; computed once per object (values are immutable).
    """
    k = x._key
    if k is None:
        if x.b == 0:
            k = (1, ())
        else:
            red = [int(c) for c in (cyclotomic(x.L).from_counts(x.v[None, :])[0] if x.L > 1 else x.v)]
            g = math.gcd(x.D, *red)
            k = (x.D // g, tuple(c // g for c in red)) if any(red) else (1, ())
        x._key = k
    return k


class CycNumber(ExactScalar):
    """An exact element ``(1/D) sum_e v[e] zeta_L^e`` of ``Q(zeta_L)``, usable as a sympy scalar.

    ``v``: integer vector of length ``L`` (int64 while a tracked bound ``b`` on
    ``max |v|`` stays below 2^62, Python ints beyond), ``D``: a positive
    integer.  Arithmetic with ints, Fractions, sympy rationals and other
    CycNumbers of the same ``L`` is exact; ``sympy.conjugate`` maps
    ``zeta -> zeta^-1`` (complex conjugation, an automorphism of
    ``Q(zeta_L)``); ``x == y`` decides equality in ``Q(zeta_L)`` (reduction
    modulo ``Phi_L``).  Any other operand (a float, a radical, a symbol)
    raises TypeError: nothing is ever approximated.

    >>> import sympy
    >>> w = CycNumber.root(3, 1)                        # exp(2 pi i / 3) in Q(zeta_3)
    >>> w ** 3 == 1, 1 + w + w ** 2 == 0, sympy.conjugate(w) == w ** 2
    (True, True, True)
    >>> (w / 2) * 2 == w, (1 + w + w ** 2).is_zero()
    (True, True)
    """

    __slots__ = ("L", "v", "D", "b", "_key")

    def __init__(self, L: int, v: Any, s: Any = 1):
        L = int(L)
        arr = np.asarray(v)
        if arr.shape != (L,):
            raise ValueError(f"CycNumber of order {L} needs {L} coefficients, got shape {arr.shape}")
        if arr.dtype != object and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError("CycNumber coefficients must be integers")
        s = Fraction(s)
        vals = [int(x) * s.numerator for x in arr.tolist()]
        b = max((abs(x) for x in vals), default=0)
        self.L, self.D, self.b = L, s.denominator, b
        self.v = np.asarray(vals, dtype=np.int64 if b < _INT64_SAFE else object)
        self._key = None

    # -- constructors -----------------------------------------------------------
    @classmethod
    def root(cls, L: int, e: int, coeff: Any = 1) -> "CycNumber":
        """``coeff * zeta_L^e``."""
        v = np.zeros(int(L), dtype=np.int64)
        v[int(e) % int(L)] = 1
        return cls(L, v, coeff)

    @classmethod
    def rational(cls, L: int, q: Any) -> "CycNumber":
        return cls.root(L, 0, Fraction(q))

    @property
    def s(self) -> Fraction:
        return Fraction(1, self.D)

    # -- arithmetic (subtraction, division, powers, equality: ExactScalar) -------
    def _check_field(self, other: "CycNumber") -> None:
        if other.L != self.L:
            raise TypeError(f"cannot combine elements of Q(zeta_{self.L}) and Q(zeta_{other.L})")

    def _from_rational(self, q: Fraction) -> "CycNumber":
        return CycNumber.rational(self.L, q)

    def __add__(self, other: Any) -> "CycNumber":
        if type(other) is CycNumber:  # the hot path (object-array dot products): no coercion, no call
            if other.L != self.L:
                self._check_field(other)
            o = other
        else:
            o = self._coerce(other)
        if o.b == 0:
            return self
        if self.b == 0:
            return o
        if self.D == o.D:
            b = self.b + o.b
            if b < _INT64_SAFE:
                return _new(self.L, self.v + o.v, self.D, b)
            return _new(self.L, self.v.astype(object) + o.v.astype(object), self.D, b)
        g = math.gcd(self.D, o.D)
        f1, f2 = o.D // g, self.D // g
        b = self.b * f1 + o.b * f2
        if b < _INT64_SAFE and max(f1, f2) < _INT64_SAFE:
            return _new(self.L, self.v * f1 + o.v * f2, self.D * f1, b)
        return _new(self.L, self.v.astype(object) * f1 + o.v.astype(object) * f2, self.D * f1, b)

    __radd__ = __add__

    def __neg__(self) -> "CycNumber":
        return _new(self.L, -self.v, self.D, self.b)

    def __mul__(self, other: Any) -> "CycNumber":
        if isinstance(other, CycNumber):
            if other.L != self.L:
                self._check_field(other)
            if self.b == 0:
                return self
            if other.b == 0:
                return other
            b = self.b * other.b * self.L
            return _new(self.L, _cyc_mul(self.v, other.v, self.L, b >= _INT64_SAFE), self.D * other.D, b)
        q = self._factor(other)
        b = self.b * abs(q.numerator)
        v = self.v * q.numerator if b < _INT64_SAFE and abs(q.numerator) < _INT64_SAFE else self.v.astype(object) * q.numerator
        return _new(self.L, v, self.D * q.denominator, b)

    __rmul__ = __mul__

    def conjugate(self) -> "CycNumber":
        """Complex conjugate: ``zeta^e -> zeta^-e``."""
        return _new(self.L, self.v[_conj_index(self.L)], self.D, self.b)

    def evalf(self, n: int = 15, *args, **kwargs):
        z = complex(self)
        return sympy.Float(z.real, n) + sympy.I * sympy.Float(z.imag, n)

    def __complex__(self) -> complex:
        vals = np.asarray([float(x) for x in self.v.tolist()])
        return complex((vals @ np.exp(2j * np.pi * np.arange(self.L) / self.L)) / self.D)

    # exact predicates ----------------------------------------------------------
    def coordinates(self) -> tuple:
        """Exact coordinates (Fractions) in the basis ``1, zeta, ..., zeta^(phi(L)-1)`` of ``Q(zeta_L)``."""
        D, c = _canonical(self)
        deg = 1 if self.L == 1 else cyclotomic(self.L).deg
        return tuple(Fraction(x, D) for x in c) if c else (Fraction(0),) * deg

    def to_sympy(self) -> sympy.Expr:
        """The same number as a sympy expression ``sum_e c_e exp(2 pi i e / L)`` (for reports; exact).

        >>> (CycNumber.root(4, 1, 3) + 1).to_sympy()
        1 + 3*I
        """
        c = self.coordinates()
        if all(x == 0 for x in c[1:]):
            return sympy.Rational(c[0].numerator, c[0].denominator)
        z = sympy.exp(2 * sympy.pi * sympy.I / self.L)
        return sympy.Add(*[sympy.Rational(x.numerator, x.denominator) * z**e for e, x in enumerate(c) if x])

    def is_zero(self) -> bool:
        return self.b == 0 or not _canonical(self)[1]

    def to_rational(self) -> Fraction | None:
        """The value as a Fraction when it is rational, else None."""
        D, c = _canonical(self)
        if not c:
            return Fraction(0)
        return Fraction(c[0], D) if not any(c[1:]) else None

    def __eq__(self, other: Any) -> bool:
        if other is self:
            return True
        if type(other) is CycNumber and other.L == self.L:  # equal iff the canonical coordinates are
            return _canonical(self) == _canonical(other)
        return ExactScalar.__eq__(self, other)

    def __hash__(self) -> int:
        return hash((self.L, _canonical(self)))

    def __repr__(self) -> str:
        terms = [f"{int(c)}*z^{e}" for e, c in enumerate(self.v.tolist()) if c != 0]
        return f"CycNumber(L={self.L}, ({' + '.join(terms) or '0'}) / {self.D})"

    __str__ = __repr__


# --------------------------------------------------------------------------- networks
def fourier_network(Wa: Any, Wb: Any, Wc: Any, group: Any):
    """An exact network of CycNumbers with the potentials of ``Network.from_weights(Wa, Wb, Wc, group)`` (SPEC 2).

    ``Wa``, ``Wb`` (q, n) and ``Wc`` (n, q) are integer arrays.  SPEC 2 gives
    ``z[p,k,j] = lam/n sum_m W_p[j,m] chi(k,m)^(-1)`` for p = a, b and
    ``z[c,k,j] = lam/n sum_m W_c[m,j] chi(k,m)``, with ``lam`` the library's
    ``group.exact_scale``.  ``lam`` is irrational, so the network returned is the
    gauge transform ``(t a, t b, c / t^2)`` with ``t = n / lam`` of every node
    (SPEC 8.4): entries ``sum_m W chi^-1`` and ``lam^3/n^3 sum_m W chi``, all in
    ``Q(zeta_L)`` (``L`` = the group exponent).  Every potential ``r``,
    ``r_a``, ``r_b`` is a sum over nodes of a product with two input factors
    and one output factor, so each node's term is unchanged (``t^2 / t^2``), and
    so is every quantity of SPEC 5.  ``lam^3`` must be rational (it is ``2n``);
    otherwise ValueError.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from cogo.algebra import fourier_loss
    >>> W0 = np.zeros((1, 3), dtype=int)                # one dead node on Z_3: loss 1 - 1/3
    >>> fourier_loss(fourier_network(W0, W0, W0.T, 3)) == Fraction(2, 3)
    True
    """
    G, (Va, Vb, Vc), cs = fourier_counts(Wa, Wb, Wc, group)
    n, q, L = Va.shape
    z = np.empty((3, n, q), dtype=object)
    for k in range(n):
        for j in range(q):
            z[0, k, j] = CycNumber(L, Va[k, j])
            z[1, k, j] = CycNumber(L, Vb[k, j])
            z[2, k, j] = CycNumber(L, Vc[k, j], cs)
    return Network(G, z, exact=True)


def fourier_counts(Wa: Any, Wb: Any, Wc: Any, group: Any) -> tuple:
    """The gauge-fixed Fourier coordinates of :func:`fourier_network` as multiplicities of ``zeta_L^e``.

    Returns
    -------
    tuple ``(G, (Va, Vb, Vc), cs)``
        The group, integer arrays ``V[k, j, e]`` (``z[a,k,j] = sum_e Va[k,j,e] zeta^e``, the same for ``b``;
        ``z[c,k,j] = cs sum_e Vc[k,j,e] zeta^e``) and the rational output scale ``cs = lam^3 / n^3``.
    """
    G = as_group(group)
    lam3 = sympy.expand(G.exact_scale ** 3)
    if not isinstance(lam3, sympy.Rational):
        raise ValueError(f"the Fourier scale cubed is {lam3}, not rational: no exact cyclotomic form")
    L, n = G.exponent, G.order
    ph = G._phase  # chi(k, m) = zeta_L^ph[k, m]
    Wa, Wb, Wc = (np.asarray(W, dtype=np.int64) for W in (Wa, Wb, Wc))
    q = Wa.shape[0]

    def transform(W, sign):  # W: (q, n) -> V[k, j, e]
        V = np.zeros((n, q, L), dtype=np.int64)
        E = (sign * ph) % L  # [k, m]
        for j in range(q):
            np.add.at(V[:, j, :], (np.repeat(np.arange(n), n), E.ravel()), np.tile(W[j], n))
        return V

    cs = Fraction(int(lam3.p), int(lam3.q)) / n**3
    return G, (transform(Wa, -1), transform(Wb, -1), transform(Wc.T, 1)), cs


def exact_real_loss(Wa: Any, Wb: Any, Wc: Any, group: Any) -> Fraction:
    """The real-space MSE loss of SPEC 1 on all ``n^2`` pairs, exactly, for rational weights.

    ``mean over pairs of ||P(o) - P(e_c)||^2`` with ``o = W_c (W_a[:, a] + W_b[:, b])^2``.
    Weights are integers, Fractions or sympy Rationals.  With ``W_a, W_b``
    integer over a common denominator ``d_ab`` and ``W_c`` over ``d_c``,
    ``D = d_c d_ab^2`` makes ``D n (P(o) - P(e_c)) = n o' - sum(o') - D n e_c + D``
    an integer vector (``o' = D o``), so the loss is
    ``(sum of squares) / (D^2 n^4)`` exactly (integer arithmetic; no Fourier
    transform is involved).

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from cogo.solvers.constructions import z_M
    >>> Wa, Wb, Wc = z_M(3).to_weights(real=True)       # z_M (SPEC 7.4): entries 2^(-1/3) or 0
    >>> t = 2 ** (-1 / 3)                               # gauge (a, b, c) -> (a / t, b / t, c t^2): rational weights
    >>> A, B = np.rint(Wa / t).astype(int), np.rint(Wb / t).astype(int)
    >>> C = np.vectorize(lambda x: Fraction(int(x), 2))(np.rint(Wc / t))
    >>> exact_real_loss(A, B, C, 3)                     # exactly 0, not rounded
    Fraction(0, 1)
    >>> exact_real_loss(0 * A, 0 * B, 0 * C, 3)         # the zero network: 1 - 1/n
    Fraction(2, 3)
    """
    G = as_group(group)

    def as_int(Ws):
        F = [np.vectorize(lambda x: Fraction(as_fraction(x)) if as_fraction(x) is not None else _bad(x),
                          otypes=[object])(np.asarray(W, dtype=object)) if np.asarray(W).size else
             np.asarray(W, dtype=object) for W in Ws]
        den = 1
        for W in F:
            for x in W.ravel().tolist():
                den = den * x.denominator // math.gcd(den, x.denominator)
        return [np.asarray([int(x * den) for x in W.ravel().tolist()], dtype=object).reshape(W.shape)
                for W in F], den

    (Wa, Wb), dab = as_int([Wa, Wb])
    (Wc,), dc = as_int([Wc])
    D = dc * dab * dab
    wide = max([abs(int(x)) for W in (Wa, Wb, Wc) for x in W.ravel().tolist()] + [D]) > 2**12
    Wa, Wb, Wc = (W.astype(object if wide else np.int64) for W in (Wa, Wb, Wc))
    n = G.order
    total = 0
    for a in range(n):
        h = Wa[:, a][None, :] + Wb.T  # (b, q)
        o = (h * h).dot(Wc.T)  # (b, m), = D * output
        r = n * o - o.sum(axis=1, keepdims=True) + D
        r[np.arange(n), G.add_table[a]] -= D * n
        total += int((r.astype(object) ** 2).sum()) if wide or np.abs(r).max() > 2**30 else int((r * r).sum())
    return Fraction(total, D * D * n ** 4)


def _bad(x):
    raise TypeError(f"exact_real_loss takes rational weights, got {type(x).__name__} {x!r}")
