"""Finite Abelian groups ``Z_d1 x ... x Z_dn`` and their characters (SPEC 1-2).

Elements and frequencies of ``G = Z_d1 x ... x Z_dn`` are both indexed by the
integers ``0 .. n_G-1`` in C (row-major) order of their coordinates, as
``numpy.ravel_multi_index`` does; for the cyclic group ``Z_d`` the index is
the residue itself.  Index 0 is the identity (the zero frequency).

The character of frequency ``k`` at element ``m`` is
``chi(k, m) = exp(2 pi i sum_t k_t m_t / d_t)``; for ``Z_d`` this is
``exp(2 pi i k m / d)``, the kernel of the DFT in SPEC section 2.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
from functools import cached_property, reduce
from typing import Iterable, Sequence

import numpy as np

from cogo.algebra._lazy import lazy_module

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = ["FiniteAbelianGroup", "Cyclic", "root_of_unity"]

#: Largest group order accepted (the dense tables below are n_G x n_G).
MAX_ORDER = 4096


def root_of_unity(n: int, k: int) -> sympy.Expr:
    """Exact ``exp(2 pi i k / n)`` as a sympy number.

    Where the value has a closed form in radicals that sympy evaluates
    (``n`` dividing 8 or 12) it is returned as ``cos + i sin`` in radicals, so
    that ``sympy.expand`` alone decides identities between such numbers;
    otherwise the exponential form is returned.

    Examples
    --------
    >>> root_of_unity(4, 1), root_of_unity(3, 1)
    (I, -1/2 + sqrt(3)*I/2)
    >>> root_of_unity(5, 2)
    exp(4*I*pi/5)
    >>> sympy.expand(root_of_unity(12, 5) ** 12)   # r^n = 1, decided by expand alone
    1
    """
    k %= n
    frac = sympy.Rational(k, n)
    if 24 % n == 0 or 8 % n == 0:
        return sympy.expand(sympy.cos(2 * sympy.pi * frac) + sympy.I * sympy.sin(2 * sympy.pi * frac))
    return sympy.exp(2 * sympy.pi * sympy.I * frac)


class FiniteAbelianGroup:
    """The group ``Z_d1 x ... x Z_dn`` with its frequency tables and DFT.

    Parameters
    ----------
    orders : sequence of int
        The cyclic factors ``d_1, ..., d_n``, each at least 2.

    Examples
    --------
    >>> G = FiniteAbelianGroup((3, 5))
    >>> G.order, G.is_odd, str(G)
    (15, True, 'Z_3 x Z_5')
    """

    def __init__(self, orders: Iterable[int]):
        orders = tuple(orders)
        if not orders:
            raise ValueError("a group needs at least one cyclic factor")
        for d in orders:
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
                raise ValueError(f"group factor orders must be integers, got {d!r}")
            if d < 2:
                raise ValueError(f"group factor orders must be >= 2, got {d}")
        self.orders: tuple[int, ...] = tuple(int(d) for d in orders)
        self.order: int = int(np.prod(self.orders))
        if self.order > MAX_ORDER:
            raise ValueError(f"group order {self.order} exceeds the supported maximum {MAX_ORDER}")

    # -- identity -------------------------------------------------------
    def __repr__(self) -> str:
        if len(self.orders) == 1:
            return f"Cyclic({self.orders[0]})"
        return f"FiniteAbelianGroup({self.orders})"

    def __str__(self) -> str:
        return " x ".join(f"Z_{d}" for d in self.orders)

    @property
    def label(self) -> str:
        """Compact name as used on the command line: ``'23'`` or ``'3x5'``."""
        return "x".join(str(d) for d in self.orders)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FiniteAbelianGroup) and self.orders == other.orders

    def __hash__(self) -> int:
        return hash(("FiniteAbelianGroup", self.orders))

    def __len__(self) -> int:
        return self.order

    @property
    def n(self) -> int:
        """``n_G``, the number of elements (alias of :attr:`order`)."""
        return self.order

    @property
    def is_cyclic(self) -> bool:
        """True when the group is written with a single factor ``Z_d``."""
        return len(self.orders) == 1

    @property
    def is_odd(self) -> bool:
        """True when ``n_G`` is odd, i.e. no frequency except 0 equals its negative."""
        return self.order % 2 == 1

    @property
    def exponent(self) -> int:
        """Least common multiple of the factor orders."""
        return reduce(lambda x, y: x * y // math.gcd(x, y), self.orders, 1)

    @property
    def scale(self) -> float:
        """The Fourier scale ``lam = (2 n_G)^(1/3)`` of SPEC 2."""
        return float((2.0 * self.order) ** (1.0 / 3.0))

    @property
    def exact_scale(self) -> sympy.Expr:
        """``lam = (2 n_G)^(1/3)`` as an exact sympy number."""
        return sympy.cbrt(sympy.Integer(2 * self.order))

    def require_odd(self, what: str = "this operation") -> None:
        """Raise ValueError unless the group order is odd."""
        if not self.is_odd:
            raise ValueError(
                f"{what} needs a group of odd order (every k != 0 distinct from -k); "
                f"{self} has order {self.order}"
            )

    # -- coordinates ----------------------------------------------------
    @cached_property
    def elements(self) -> np.ndarray:
        """Coordinates of every element, shape ``(n_G, len(orders))``, in row-major (C) order of the coordinates.

        So a function on the group, reshaped to ``orders``, is an array on ``Z_d1 x ... x Z_dn`` and
        :func:`numpy.fft.fftn` over those axes is its Fourier transform up to conjugation and scale.
        """
        grids = np.indices(self.orders).reshape(len(self.orders), -1).T
        return np.ascontiguousarray(grids.astype(np.int64))

    def index(self, k: int | Sequence[int]) -> int:
        """Index of an element/frequency given as an int (residue or index) or coordinates."""
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if self.is_cyclic:
                return int(k) % self.order
            if not 0 <= int(k) < self.order:
                raise ValueError(f"frequency index {k} out of range for {self} (0..{self.order - 1})")
            return int(k)
        coords = tuple(int(c) for c in k)  # type: ignore[union-attr]
        if len(coords) != len(self.orders):
            raise ValueError(f"frequency {coords} has {len(coords)} coordinates; {self} needs {len(self.orders)}")
        coords = tuple(c % d for c, d in zip(coords, self.orders))
        return int(np.ravel_multi_index(coords, self.orders))

    def coords(self, k: int) -> tuple[int, ...]:
        """Coordinates of the element with index ``k``."""
        return tuple(int(c) for c in self.elements[k])

    # -- tables ---------------------------------------------------------
    @cached_property
    def neg(self) -> np.ndarray:
        """``neg[k]`` is the index of ``-k``; shape ``(n_G,)``."""
        e = (-self.elements) % np.asarray(self.orders)
        return np.ravel_multi_index(tuple(e.T), self.orders).astype(np.int64)

    @cached_property
    def add_table(self) -> np.ndarray:
        """``add_table[k1, k2]`` is the index of ``k1 + k2``; shape ``(n_G, n_G)``."""
        e = self.elements
        s = (e[:, None, :] + e[None, :, :]) % np.asarray(self.orders)
        return np.ravel_multi_index(tuple(np.moveaxis(s, -1, 0)), self.orders).astype(np.int64)

    # -- the group protocol (cogo.algebra.protocol.Group) ------------------
    @property
    def table(self) -> np.ndarray:
        """``table[g, h]`` is the index of ``g + h`` (the protocol's name for :attr:`add_table`)."""
        return self.add_table

    @property
    def identity(self) -> int:
        """The index of ``0``."""
        return 0

    @property
    def inverse(self) -> np.ndarray:
        """``inverse[g]`` is the index of ``-g`` (the protocol's name for :attr:`neg`)."""
        return self.neg

    #: ``Z_d1 x ... x Z_dn`` is Abelian.
    is_abelian = True

    @property
    def as_product(self) -> "FiniteAbelianGroup":
        """The group itself: its coordinates ``Z_d1 x ... x Z_dn`` (the protocol's ``as_product``, SPEC 1-2)."""
        return self

    @cached_property
    def sub_table(self) -> np.ndarray:
        """``sub_table[m, k]`` is the index of ``m - k``; shape ``(n_G, n_G)``."""
        return self.add_table[:, self.neg]

    @cached_property
    def positive_frequencies(self) -> np.ndarray:
        """One representative of each pair ``{k, -k}``, ``k != 0``, ``k != -k``.

        For odd ``Z_d`` this is ``1 .. (d-1)/2``; in general the smaller index of
        each pair, sorted.
        """
        k = np.arange(self.order)
        return k[(k != 0) & (k < self.neg)]

    @cached_property
    def _phase(self) -> np.ndarray:
        """``<k, m>`` as an integer multiple of ``1/exponent``, reduced mod exponent."""
        L = self.exponent
        e = self.elements
        w = np.asarray([L // d for d in self.orders], dtype=np.int64)
        return ((e[:, None, :] * e[None, :, :]) % np.asarray(self.orders) * w).sum(-1) % L

    @cached_property
    def characters(self) -> np.ndarray:
        """``chi[k, m] = exp(2 pi i <k, m>)``, complex128, shape ``(n_G, n_G)``."""
        return np.exp(2j * np.pi * self._phase / self.exponent)

    def exact_characters(self) -> np.ndarray:
        """``chi[k, m]`` as exact sympy roots of unity (object array)."""
        L = self.exponent
        cache = {t: root_of_unity(L, t) for t in np.unique(self._phase).tolist()}
        out = np.empty((self.order, self.order), dtype=object)
        for (i, j), t in np.ndenumerate(self._phase):
            out[i, j] = cache[int(t)]
        return out


def Cyclic(d: int) -> FiniteAbelianGroup:
    """The cyclic group ``Z_d`` (modular addition mod ``d``).

    Examples
    --------
    >>> G = Cyclic(5)
    >>> str(G), G.order, int(G.add_table[3, 4])   # 3 + 4 = 2 in Z_5
    ('Z_5', 5, 2)
    """

    return FiniteAbelianGroup((d,))


