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

Conversions: :func:`fourier_network` (integer real weights -> an exact
network of CycNumbers on any group, SPEC 2, gauge-equivalent to
``Network.from_weights``), :func:`cyc_network` (an exact sympy network whose
entries are ``Q(zeta_24)`` or root-of-unity multiples of per-node real
radicals, e.g. the constructions of SPEC 7, gauge-fixed to CycNumbers), and
:func:`exact_real_loss` (the real-space loss of SPEC 1 of integer weights, a
``Fraction``).

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

__all__ = ["Cyclotomic", "cyclotomic", "CycNumber", "fourier_network", "fourier_counts", "cyc_network", "gauge_fix_nodes",
           "entries_order", "exact_real_loss", "gauge_scales", "clear_caches"]

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

    Returns
    -------
    Cyclotomic
        The field ``Q(zeta_L)`` (cached per ``L``).

    Examples
    --------
    >>> cyclotomic(12) is cyclotomic(12), cyclotomic(12).deg   # phi(12) = 4
    (True, 4)
    """
    return Cyclotomic(L)


# --------------------------------------------------------------------------- scalars
def _rational(x: Any) -> Fraction | None:
    """``x`` as a Fraction when it is an exact rational (int, Fraction, sympy Rational), else None."""
    if isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    return None


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


class CycNumber:
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
    __sympy__ = True  # sympy.sympify returns the object itself
    _op_priority = 1000.0  # sympy numbers defer to our reflected operators
    free_symbols: frozenset = frozenset()
    is_number = True

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

    # -- arithmetic -------------------------------------------------------------
    def _coerce(self, other: Any) -> "CycNumber":
        if isinstance(other, CycNumber):
            if other.L != self.L:
                raise TypeError(f"cannot combine elements of Q(zeta_{self.L}) and Q(zeta_{other.L})")
            return other
        q = _rational(other)
        if q is None:
            raise TypeError(f"CycNumber: cannot combine with {type(other).__name__} {other!r} exactly")
        return CycNumber.rational(self.L, q)

    def __add__(self, other: Any) -> "CycNumber":
        if type(other) is CycNumber:  # the hot path (object-array dot products): no coercion
            if other.L != self.L:
                raise TypeError(f"cannot combine elements of Q(zeta_{self.L}) and Q(zeta_{other.L})")
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

    def __sub__(self, other: Any) -> "CycNumber":
        return self + (-self._coerce(other))

    def __rsub__(self, other: Any) -> "CycNumber":
        return self._coerce(other) + (-self)

    def __mul__(self, other: Any) -> "CycNumber":
        if isinstance(other, CycNumber):
            if other.L != self.L:
                raise TypeError(f"cannot combine elements of Q(zeta_{self.L}) and Q(zeta_{other.L})")
            if self.b == 0:
                return self
            if other.b == 0:
                return other
            b = self.b * other.b * self.L
            return _new(self.L, _cyc_mul(self.v, other.v, self.L, b >= _INT64_SAFE), self.D * other.D, b)
        q = _rational(other)
        if q is None:
            raise TypeError(f"CycNumber: cannot multiply by {type(other).__name__} {other!r} exactly")
        b = self.b * abs(q.numerator)
        v = self.v * q.numerator if b < _INT64_SAFE and abs(q.numerator) < _INT64_SAFE else self.v.astype(object) * q.numerator
        return _new(self.L, v, self.D * q.denominator, b)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "CycNumber":
        q = _rational(other)
        if q is None or q == 0:
            raise TypeError(f"CycNumber: can only divide by a nonzero rational, got {other!r}")
        return self * (1 / q)

    def __pow__(self, e: int) -> "CycNumber":
        if not isinstance(e, (int, np.integer)) or e < 0:
            raise TypeError("CycNumber: only non-negative integer powers")
        out = CycNumber.rational(self.L, 1)
        for _ in range(int(e)):
            out = out * self
        return out

    def conjugate(self) -> "CycNumber":
        """Complex conjugate: ``zeta^e -> zeta^-e``."""
        return _new(self.L, self.v[_conj_index(self.L)], self.D, self.b)

    # sympy protocol ------------------------------------------------------------
    def _eval_conjugate(self):
        return self.conjugate()

    def expand(self, *args, **kwargs) -> "CycNumber":
        return self

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
        try:
            return (self - other).is_zero()
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

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

    Returns
    -------
    Network
        An exact network whose entries are CycNumbers of ``Q(zeta_L)``.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> from cogo.algebra import fourier_loss
    >>> W0 = np.zeros((1, 3), dtype=int)                # one dead node on Z_3: loss 1 - 1/3
    >>> fourier_loss(fourier_network(W0, W0, W0.T, 3)) == Fraction(2, 3)
    True
    """
    from cogo.algebra.network import Network

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
    from cogo.algebra.spec import parse_group

    G = parse_group(group)
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

    Returns
    -------
    fractions.Fraction
        The loss, exactly.

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
    from cogo.algebra.spec import parse_group

    G = parse_group(group)

    def as_int(Ws):
        F = [np.vectorize(lambda x: Fraction(_rational(x)) if _rational(x) is not None else _bad(x),
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


# --------------------------------------------------------------------------- sympy -> CycNumber
_SQRT_ROOTS = {2: (8, 1), 3: (12, 1)}  # sqrt(2) = z8 + z8^-1, sqrt(3) = z12 + z12^-1


def _factor_exponents(base: sympy.Rational, ex: Fraction, acc: dict) -> None:
    for p, m in sympy.factorint(int(base.p)).items():
        acc[p] = acc.get(p, Fraction(0)) + m * ex
    for p, m in sympy.factorint(int(base.q)).items():
        acc[p] = acc.get(p, Fraction(0)) - m * ex


@lru_cache(maxsize=65536)
def _parse_terms(expr: Any) -> tuple | None:
    """``expand(expr)`` as ``((coeff, ((base, exponent), ...)), ...)``, one entry per nonzero product term.

    The part of :func:`_to_cyc` that does not depend on the gauge shift or ``L`` (a pure function of an
    immutable sympy value), so the candidate gauges of :func:`cyc_network` expand each entry once.  None
    when a term's coefficient is not rational.
    """
    e = sympy.expand(sympy.sympify(expr))
    out = []
    for term in sympy.Add.make_args(e):
        if term == 0:
            continue
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(coeff, sympy.Rational):
            return None
        out.append((coeff, tuple(rest.as_powers_dict().items())))
    return tuple(out)


def _term_to_cyc(term: tuple, shift: dict, L: int) -> CycNumber | None:
    """One parsed product term ``q * prod p^(e_p) * I^j * exp(2 pi i r)`` (see :func:`_parse_terms`) times
    ``prod p^(shift_p)`` in Q(zeta_L), or None."""
    coeff, powers = term
    exps = dict(shift)
    out = CycNumber.rational(L, Fraction(int(coeff.p), int(coeff.q)))
    for base, ex in powers:
        if base is sympy.I or base == -1:  # I^j, or (-1)^r = zeta_2^r
            r = sympy.Rational(ex) * (sympy.Rational(1, 4) if base is sympy.I else sympy.Rational(1, 2))
            if not isinstance(r, sympy.Rational) or (L * r).q != 1:
                return None
            out = out * CycNumber.root(L, int(L * r))
        elif base is sympy.E:
            r = sympy.nsimplify(ex / (2 * sympy.pi * sympy.I))
            if not isinstance(r, sympy.Rational) or (L * r).q != 1:
                return None
            out = out * CycNumber.root(L, int(L * r))
        elif isinstance(base, sympy.Rational) and isinstance(ex, sympy.Rational):
            _factor_exponents(base, Fraction(int(ex.p), int(ex.q)), exps)
        else:
            return None
    for p, e in exps.items():
        if e == 0:
            continue
        whole = math.floor(e)
        frac = e - whole
        out = out * (Fraction(p) ** whole)
        if frac == Fraction(1, 2) and p in _SQRT_ROOTS:
            m, _ = _SQRT_ROOTS[p]
            out = out * (CycNumber.root(L, L // m) + CycNumber.root(L, -(L // m)))
        elif frac != 0:
            return None
    return out


def _to_cyc(expr: Any, shift: dict, L: int) -> CycNumber | None:
    terms = _parse_terms(sympy.sympify(expr))
    if terms is None:
        return None
    total = CycNumber.rational(L, 0)
    for term in terms:
        t = _term_to_cyc(term, shift, L)
        if t is None:
            return None
        total = total + t
    return total


def _root_orders(z: np.ndarray) -> int:
    """The smallest ``L`` used: lcm of 4 (if ``I`` occurs), 8 / 12 (if sqrt 2 / sqrt 3 occur) and the
    orders of the roots of unity written ``exp(2 pi i r)`` in the entries."""
    L = 1
    for e in {sympy.sympify(x) for x in z.ravel()}:
        L = math.lcm(L, _entry_order(e))
    return max(L, 4) if L % 4 else L


@lru_cache(maxsize=65536)
def _entry_order(e: sympy.Expr) -> int:
    """The ``L`` of :func:`_root_orders` for one entry (a pure function of an immutable sympy value)."""
    L = 1

    def lcm(a, b):
        return a * b // math.gcd(a, b)

    if e.has(sympy.I):
        L = lcm(L, 4)
    for a in e.atoms(sympy.exp):
        r = sympy.nsimplify(a.args[0] / (2 * sympy.pi * sympy.I))
        if isinstance(r, sympy.Rational):
            L = lcm(L, int(r.q))
    for pw in e.atoms(sympy.Pow):
        if isinstance(pw.base, sympy.Rational) and isinstance(pw.exp, sympy.Rational) and pw.exp.q % 2 == 0:
            primes = set(sympy.factorint(int(pw.base.p))) | set(sympy.factorint(int(pw.base.q)))
            if 2 in primes:
                L = lcm(L, 8)
            if 3 in primes:
                L = lcm(L, 12)
    return L


def gauge_scales(max_m: int = 12, extra: tuple = ()) -> list:
    """Candidate node scales ``t = m^(-1/3)`` (and ``t = m^(-2/3)`` for ``m`` in ``extra``) as prime-exponent dicts.

    Returns
    -------
    list of (str, dict)
        Per candidate scale its name and its prime-exponent dict.

    Examples
    --------
    >>> gauge_scales(3)
    [('1^(-1/3)', {}), ('2^(-1/3)', {2: Fraction(-1, 3)}), ('3^(-1/3)', {3: Fraction(-1, 3)})]
    >>> gauge_scales(1, extra=(4,))[-1]                 # 4^(-2/3) = 2^(-4/3)
    ('4^(-2/3)', {2: Fraction(-4, 3)})
    """
    out = []
    for m in range(1, max_m + 1):
        d: dict = {}
        _factor_exponents(sympy.Integer(m), Fraction(-1, 3), d)
        out.append((f"{m}^(-1/3)", d))
    for m in extra:
        d = {}
        _factor_exponents(sympy.Integer(m), Fraction(-2, 3), d)
        out.append((f"{m}^(-2/3)", d))
    return out


@lru_cache(maxsize=1)
def _node_gauges() -> tuple:
    """``(up, key of up, down, key of down)`` for every scale of ``gauge_scales()``: divide inputs, multiply outputs."""
    out = []
    for _, t in gauge_scales():
        up = {p: -e for p, e in t.items()}
        down = {p: 2 * e for p, e in t.items()}
        out.append((up, tuple(sorted(up.items())), down, tuple(sorted(down.items()))))
    return tuple(out)


#: ``(sympy entry, gauge shift, L) -> CycNumber or None`` (:func:`_to_cyc`, a pure function of its immutable
#: arguments), shared across networks: the seeded constructions of every order repeat the blocks of smaller
#: orders.  Cleared when it outgrows ``_TO_CYC_CACHE_MAX`` entries, and by :func:`clear_caches`.
_TO_CYC_CACHE: dict = {}
_TO_CYC_CACHE_MAX = 200_000


def clear_caches() -> None:
    """Forget the cached sympy -> CycNumber conversions (benchmarks time cold runs with it).

    >>> clear_caches(); len(_TO_CYC_CACHE)
    0
    """
    _TO_CYC_CACHE.clear()
    _parse_terms.cache_clear()
    _entry_order.cache_clear()


def entries_order(values: Any) -> int:
    """The ``L`` that :func:`cyc_network` would use for these sympy entries (see ``_root_orders``).

    Returns
    -------
    int
        The order ``L`` of the cyclotomic field that holds the entries.

    Examples
    --------
    >>> import sympy
    >>> entries_order([sympy.I, sympy.sqrt(3) / 2]), entries_order([1])
    (12, 4)
    """
    return _root_orders(np.asarray(list(values), dtype=object))


def gauge_fix_nodes(a: Any, b: Any, cols: tuple = (), L: int | None = None) -> tuple | None:
    """Per node ``j``, ``(a_j / t_j, b_j / t_j, w_j t_j^2 for w in cols)`` as CycNumbers of ``Q(zeta_L)``, exactly.

    ``t_j`` is the first of ``m^(-1/3)``, ``m = 1..12`` (:func:`gauge_scales`)
    for which every one of the node's values converts exactly (as in
    :func:`cyc_network`).  Any sum over nodes of ``x_j y_j w_j`` with ``x, y``
    among ``a, b, conj(a), conj(b)`` and ``w`` one output value (or its
    conjugate) is unchanged by the gauge, since ``t_j`` is real and positive
    (``t t t^-2 = 1``, SPEC 8.4): so the monomial sums of SPEC 6 of a block are
    computed exactly from the returned values.  ``L`` defaults to
    :func:`entries_order` of all the values.  Returns ``(L, A, B, [W, ...])``
    (lists of CycNumbers), or None when some node fits no candidate (nothing
    is approximated; callers then use sympy).

    Returns
    -------
    tuple or None
        The gauge-fixed nodes, or None when some node has no exact form in ``Q(zeta_L)``.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Integer(6) ** sympy.Rational(-1, 3)
    >>> L, A, B, (C,) = gauge_fix_nodes([t, t * sympy.I], [t, -t], [[t, t * sympy.I]])
    >>> L, A[1] == CycNumber.root(4, 1), C[0] == sympy.Rational(1, 6)
    (4, True, True)
    >>> gauge_fix_nodes([sympy.sqrt(5)], [1]) is None     # sqrt 5 is no m^(-1/3) multiple of Q(zeta_4)
    True
    """
    a = [sympy.sympify(x) for x in a]
    b = [sympy.sympify(x) for x in b]
    cols = [[sympy.sympify(x) for x in w] for w in cols]
    if any(len(w) != len(a) for w in cols) or len(b) != len(a):
        raise ValueError("gauge_fix_nodes: every vector needs one value per node")
    if L is None:
        L = entries_order(a + b + [x for w in cols for x in w])
    if len(_TO_CYC_CACHE) > _TO_CYC_CACHE_MAX:
        _TO_CYC_CACHE.clear()
    cache = _TO_CYC_CACHE

    def conv(e, sh, key_sh):
        key = (e, key_sh, L)
        if key not in cache:
            cache[key] = _to_cyc(e, sh, L)
        return cache[key]

    A, B, W = [], [], [[] for _ in cols]
    for j in range(len(a)):
        for up, ku, down, kd in _node_gauges():
            vals = [conv(a[j], up, ku), conv(b[j], up, ku)]
            if any(v is None for v in vals):
                continue
            vals += [conv(w[j], down, kd) for w in cols]
            if any(v is None for v in vals):
                continue
            A.append(vals[0])
            B.append(vals[1])
            for i in range(len(cols)):
                W[i].append(vals[2 + i])
            break
        else:
            return None
    return L, A, B, W


def cyc_network(net, extra_scales: tuple = ()):
    """Gauge-fix an exact sympy network into CycNumbers, node by node (SPEC 8.4).

    Each node ``j`` is written ``(t_j u_a, t_j u_b, t_j^-2 u_c)`` with ``u`` in
    ``Q(zeta_L)`` (``L`` = lcm of 24 and the orders of the roots of unity in
    the entries) and ``t_j`` the first of ``m^(-1/3)``, ``m = 1..12`` (then
    ``m^(-2/3)`` for ``m`` in ``extra_scales``) for which every entry of the
    node converts exactly; the returned network holds ``(u_a, u_b, u_c)``.
    Every potential term of the node is multiplied by ``t_j^2 t_j^-2 = 1``,
    so all potentials (and the loss of SPEC 5) are those of ``net``; the
    real-space function is unchanged as well.  Raises ValueError when a node
    fits no candidate (nothing is approximated).  Returns ``(network, scales)``.

    Returns
    -------
    tuple ``(Network, scales)``
        The gauge-fixed exact network of CycNumbers and the scale ``t_j`` chosen per node.

    Examples
    --------
    >>> from cogo.algebra import fourier_loss
    >>> from cogo.solvers.constructions import z_F6
    >>> net, scales = cyc_network(z_F6(5, exact=True))  # 12 nodes, each 6^(-1/3) times Q(zeta_12) entries
    >>> len(scales), scales[0], fourier_loss(net) == 0   # the loss of SPEC 5, exactly 0
    (12, '6^(-1/3)', True)
    """

    from cogo.algebra.network import Network

    if not net.exact:
        raise ValueError("cyc_network needs an exact network")
    L = _root_orders(net.z)
    cands = gauge_scales(extra=extra_scales)
    z = np.empty(net.z.shape, dtype=object)
    scales = []
    if len(_TO_CYC_CACHE) > _TO_CYC_CACHE_MAX:
        _TO_CYC_CACHE.clear()
    cache = _TO_CYC_CACHE
    for j in range(net.q):
        for name, t in cands:
            up = {p: -e for p, e in t.items()}  # divide a, b by t
            down = {p: 2 * e for p, e in t.items()}  # multiply c by t^2
            col = np.empty((3, net.n), dtype=object)
            ok = True
            for p in range(3):
                sh = down if p == 2 else up
                key_sh = tuple(sorted(sh.items()))
                for k in range(net.n):
                    e = net.z[p, k, j]
                    key = (e, key_sh, L)
                    if key not in cache:
                        cache[key] = _to_cyc(e, sh, L)
                    c = cache[key]
                    if c is None:
                        ok = False
                        break
                    col[p, k] = c
                if not ok:
                    break
            if ok:
                z[:, :, j] = col
                scales.append(name)
                break
        else:
            raise ValueError(f"node {j}: no gauge m^(-1/3) (m <= 12) puts its entries in Q(zeta_{L})")
    return Network(net.group, z, exact=True), scales
