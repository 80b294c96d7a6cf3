"""Frequency-agnostic partial solutions: the factors of the catalogue (SPEC 7).

A :class:`PartialSolution` is a triple of vectors ``(a, b, c)`` in ``C^q``;
placed at a frequency ``k`` (values at ``k``, conjugates at ``-k``) it is the
block ``y_k * x`` of SPEC 6.  Multiplication is the Kronecker product of the
vectors (node ``(j1, j2) -> j1 * q2 + j2``), so a block of a product is the
product of the blocks.  Entries are complex128 or exact sympy numbers.

With ``w = exp(2 pi i / 3)`` (SPEC 7 table):

=================  =====  ==================================================
name               nodes  (a; b; c)
=================  =====  ==================================================
z_syn              3      (1,w,w^2); (1,w,w^2); (1,w,w^2)
z_syn,ab(al,be)    3      c=(1,w,w^2), a=(1, al w, be w^2), b_j = 1/(a_j c_j)
z_nu(nu)           2      (1,nu); (1,-nu); (1,-nu^-2)
z_nu=i             2      (1,i); (1,-i); (1,1)
z_xi(xi,s)         2      (1,xi); (1,-s i conj(xi)); (1, s i)
=================  =====  ==================================================

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cogo.algebra._lazy import is_sympy, lazy_module
from cogo.algebra.groups import root_of_unity
from cogo.algebra.network import Network, is_exact_entry
from cogo.algebra.potentials import block_sums

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = ["unit_conjugate", "PartialSolution", "z_syn", "z_syn_ab", "z_nu", "z_nu_i", "z_xi", "omega", "clear_caches"]


def omega(exact: bool = False):
    """``w = exp(2 pi i / 3)``: exact (radicals) or complex128."""
    return root_of_unity(3, 1) if exact else np.exp(2j * np.pi / 3)


def unit_conjugate(*symbols: sympy.Symbol):
    """A conjugation for exact expressions in which each given symbol lies on the unit circle.

    ``conj(x) = 1/x`` for each symbol, so identities that need ``|x| = 1``
    become polynomial (Laurent) identities that ``sympy.expand`` decides.
    Pass it as ``conj=`` to :func:`cogo.algebra.block_sums`.

    Returns
    -------
    callable
        ``conj(expr)``: ``sympy.conjugate`` of ``expr`` with ``conj(x)`` replaced by ``1/x`` for each symbol.

    Examples
    --------
    >>> import sympy
    >>> nu = sympy.Symbol("nu")
    >>> unit_conjugate(nu)(2 * nu)
    2/nu
    """
    repl = {sympy.conjugate(x): 1 / x for x in symbols}

    def conj(e):
        return sympy.expand(sympy.conjugate(e).subs(repl))

    return conj


def _is_exact(*vals: Any) -> bool:
    return any(is_exact_entry(v) for v in vals)


def _check_param(name: str, v: Any, exact: bool, nonzero: bool = True):
    if exact:
        if isinstance(v, (float, complex, np.floating, np.complexfloating)) or (
                is_sympy(v) and v.has(sympy.Float)):
            raise ValueError(f"{name}={v!r} is a float; exact partial solutions take exact numbers or symbols")
        v = v.to_sympy() if hasattr(v, "to_sympy") else sympy.sympify(v)   # a CycNumber: its sympy value
        if nonzero and v == 0:
            raise ValueError(f"{name} must be nonzero")
        return v
    if is_sympy(v):
        v = complex(sympy.N(v))
    v = complex(v)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if nonzero and v == 0:
        raise ValueError(f"{name} must be nonzero")
    return v


@dataclass
class PartialSolution:
    """A frequency-agnostic partial solution ``(a, b, c)`` with its catalogue name and parameters."""

    name: str
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        self.exact = any(v.dtype == object for v in (self.a, self.b, self.c))
        if not (len(self.a) == len(self.b) == len(self.c)):
            raise ValueError("partial-solution vectors must have equal lengths")

    @property
    def q(self) -> int:
        return len(self.a)

    def __repr__(self) -> str:
        ps = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"PartialSolution({self.name}{'(' + ps + ')' if ps else ''}, q={self.q})"

    def __mul__(self, other: Any) -> "PartialSolution":
        """Kronecker product of the vectors; or a scalar times every entry (``s . x``)."""
        if isinstance(other, PartialSolution):
            if other.exact != self.exact:
                raise ValueError("cannot multiply an exact and a numeric partial solution")
            kron = [np.asarray((u[:, None] * v[None, :]).reshape(-1), dtype=u.dtype)
                    for u, v in ((self.a, other.a), (self.b, other.b), (self.c, other.c))]
            params = {**{f"{self.name}.{k}": v for k, v in self.params.items()},
                      **{f"{other.name}.{k}": v for k, v in other.params.items()}}
            return PartialSolution(f"{self.name} * {other.name}", *kron, params=params)
        if self.exact:
            s = sympy.sympify(other)
            a, b, c = (_objects([_scaled(e, s) for e in v]) for v in (self.a, self.b, self.c))
            return PartialSolution(self.name, a, b, c, dict(self.params))
        s = complex(other)
        return PartialSolution(self.name, self.a * s, self.b * s, self.c * s, dict(self.params))

    __rmul__ = __mul__

    def block(self, group: Any, k: Any) -> Network:
        """This partial solution placed at frequency ``k``: the block ``y_k * x`` of SPEC 6."""
        return Network.block(group, k, self.a, self.b, self.c, exact=self.exact)

    def sums(self, conj=None) -> dict[str, Any]:
        """The eleven monomial sums (SPEC 6) of this partial solution."""
        return block_sums(self.a, self.b, self.c, conj=conj)

    def to_numeric(self) -> "PartialSolution":
        if not self.exact:
            return self
        f = np.vectorize(lambda e: complex(sympy.N(e, 30)), otypes=[np.complex128])
        return PartialSolution(self.name, f(self.a), f(self.b), f(self.c), dict(self.params))


# --------------------------------------------------------------------------- exact entries, memoized by value
#: ``expand(radsimp(v))`` and ``expand(e * s)`` by value: pure functions of immutable sympy
#: values, so a memo returns exactly what the call would (the seeded parameters of the
#: constructions recur at every group order).  Only these scalar steps are memoized, never a
#: product of partial solutions or a block.  Each memo is emptied when it reaches _MEMO_MAX
#: entries, and by :func:`clear_caches`.
_CANONICAL: dict = {}
_SCALED: dict = {}
_MEMO_MAX = 1 << 15


def clear_caches() -> None:
    """Forget the memoized canonical forms and scalar products of exact entries (benchmarks time cold runs)."""
    _CANONICAL.clear()
    _SCALED.clear()


def _memo_put(memo: dict, key, value):
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = value
    return value


def _canonical(v):
    """``sympy.expand(sympy.radsimp(v))`` (a rational number is its own canonical form)."""
    v = sympy.sympify(v)
    if v.is_Rational:
        return v
    out = _CANONICAL.get(v)
    return out if out is not None else _memo_put(_CANONICAL, v, sympy.expand(sympy.radsimp(v)))


def _scaled(e, s):
    """``sympy.expand(e * s)`` for exact ``e`` and ``s``."""
    key = (e, s)
    out = _SCALED.get(key)
    return out if out is not None else _memo_put(_SCALED, key, sympy.expand(e * s))


def _objects(vals: list) -> np.ndarray:
    """A 1-d object array holding ``vals`` as they are."""
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def _vec(vals, exact: bool) -> np.ndarray:
    if exact:
        return _objects([_canonical(v) for v in vals])
    return np.asarray([complex(v) for v in vals], dtype=np.complex128)


def z_syn(exact: bool = False) -> PartialSolution:
    """``z_syn``: 3 nodes, ``a = b = c = (1, w, w^2)`` (SPEC 7).

    Examples
    --------
    >>> S = z_syn(exact=True).sums()
    >>> S["abc"], S["a^2 c"], S["conj(a) b c"], S["|a|^2 c + |b|^2 c"]
    (3, 3, 0, 0)
    """
    w = omega(exact)
    v = [1, w, w**2]
    return PartialSolution("z_syn", _vec(v, exact), _vec(v, exact), _vec(v, exact))


def z_syn_ab(alpha: Any = 1, beta: Any = 1, exact: bool | None = None) -> PartialSolution:
    """``z_syn,ab(alpha, beta)``: ``c = (1, w, w^2)``, ``a = (1, alpha w, beta w^2)``, ``b_j = 1/(a_j c_j)`` (SPEC 7).

    The catalogue takes ``|alpha| = |beta| = 1``; other values are accepted.

    Returns
    -------
    PartialSolution
        Three nodes; their entries are exact for ``exact=True``, and for ``exact=None`` when ``alpha`` or ``beta`` is.

    Examples
    --------
    >>> S = z_syn_ab(1, 1, exact=True).sums()
    >>> S["abc"], S["a b conj(c)"], S["|a|^2 c + |b|^2 c"]
    (3, 0, 0)
    """
    exact = _is_exact(alpha, beta) if exact is None else exact
    alpha, beta = _check_param("alpha", alpha, exact), _check_param("beta", beta, exact)
    w = omega(exact)
    one = sympy.Integer(1) if exact else 1.0
    c = [one, w, w**2]
    a = [one, alpha * w, beta * w**2]
    b = [1 / (x * y) for x, y in zip(a, c)]
    return PartialSolution("z_syn,ab", _vec(a, exact), _vec(b, exact), _vec(c, exact),
                           params={"alpha": alpha, "beta": beta})


def z_nu(nu: Any = 1, exact: bool | None = None) -> PartialSolution:
    """``z_nu(nu)``: 2 nodes, ``(1, nu); (1, -nu); (1, -nu^-2)``, any nonzero ``nu`` (SPEC 7).

    Returns
    -------
    PartialSolution
        The nodes as ``a``, ``b``, ``c`` vectors; sympy entries when ``exact=True`` or, by default, when ``nu`` is.

    Examples
    --------
    >>> import sympy
    >>> S = z_nu(sympy.Symbol("nu")).sums()
    >>> S["abc"], S["a^2 c"], S["b^2 c"]
    (2, 0, 0)
    """
    exact = _is_exact(nu) if exact is None else exact
    nu = _check_param("nu", nu, exact)
    return PartialSolution("z_nu", _vec([1, nu], exact), _vec([1, -nu], exact), _vec([1, -nu**-2], exact),
                           params={"nu": nu})


def z_nu_i(exact: bool = False) -> PartialSolution:
    """``z_{nu=i}``: 2 nodes, ``(1, i); (1, -i); (1, 1)`` (SPEC 7).

    Examples
    --------
    >>> S = z_nu_i(exact=True).sums()
    >>> S["abc"], S["conj(a) b c"], S["a^2 c"], S["|a|^2 c + |b|^2 c"]
    (2, 0, 0, 4)
    """
    i = sympy.I if exact else 1j
    return PartialSolution("z_nu=i", _vec([1, i], exact), _vec([1, -i], exact), _vec([1, 1], exact))


def z_xi(xi: Any = 1, s: int = 1, exact: bool | None = None) -> PartialSolution:
    """``z_xi(xi, s)``: 2 nodes, ``(1, xi); (1, -s i conj(xi)); (1, s i)``, ``s = +-1`` (SPEC 7).

    The catalogue takes ``|xi| = 1``.  For an exact symbol ``xi`` the entry
    ``conj(xi)`` is written ``1/xi`` (the unit-circle constraint), so that
    identities are polynomial in ``xi``.

    Returns
    -------
    PartialSolution
        Two nodes, exact if ``xi`` is a sympy value (``exact=None``) or ``exact=True``.

    Examples
    --------
    >>> import sympy
    >>> S = z_xi(sympy.Symbol("xi"), s=1).sums(conj=unit_conjugate(sympy.Symbol("xi")))
    >>> S["abc"], S["a b conj(c)"], S["|a|^2 c + |b|^2 c"]
    (2, 0, 2 + 2*I)
    """
    if s not in (1, -1):
        raise ValueError(f"s must be +1 or -1, got {s!r}")
    exact = _is_exact(xi) if exact is None else exact
    xi = _check_param("xi", xi, exact)
    if exact:
        i = sympy.I
        cxi = 1 / xi if isinstance(xi, sympy.Symbol) else sympy.conjugate(xi)
    else:
        i = 1j
        cxi = np.conj(xi)
    return PartialSolution("z_xi", _vec([1, xi], exact), _vec([1, -s * i * cxi], exact), _vec([1, s * i], exact),
                           params={"xi": xi, "s": int(s)})
