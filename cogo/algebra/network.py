"""Networks as elements of the semiring Z of SPEC 3, in Fourier coordinates (SPEC 2).

A :class:`Network` over a group G wraps the array ``z`` of shape ``(3, n_G, q)``:
``z[p, k, j]`` for ``p`` in (a, b, c) = (0, 1, 2), frequency index ``k`` and
hidden node ``j``.  Entries are either numeric (numpy ``complex128``; torch
tensors are converted) or exact (a numpy object array of sympy expressions).

``+`` concatenates nodes, ``*`` is the Kronecker product along nodes (node
order ``j = j1 * q2 + j2``), a scalar times a network scales every entry.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import numbers
import sys
from typing import Any, Sequence

import numpy as np

from cogo.algebra._lazy import is_sympy, lazy_module
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import Group, GroupLike, as_group, require_group

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")
nx = lazy_module("networkx")

__all__ = ["Network", "is_zero_exact", "to_exact_array", "is_exact_entry", "PLAIN_NUMBERS"]

P_INDEX = {"a": 0, "b": 1, "c": 2}


# --------------------------------------------------------------------------- exact helpers
def is_zero_exact(expr: Any) -> bool:
    """Decide ``expr == 0`` exactly.

    ``sympy.expand`` decides every polynomial identity in symbols and in
    radicals (the roots of unity cogo uses are in radical form, see
    :func:`cogo.algebra.groups.root_of_unity`).  Failing that, a number with
    no free symbols is evaluated to 50 digits: a value clearly away from 0 is
    nonzero; otherwise ``sympy.simplify`` must prove it 0.  Anything unproven
    counts as nonzero, so this never reports a false zero.

    Examples
    --------
    >>> from cogo.algebra import root_of_unity
    >>> w = root_of_unity(3, 1)
    >>> is_zero_exact(1 + w + w**2)          # the cube roots of unity sum to 0
    True
    >>> is_zero_exact(sympy.sqrt(2) - sympy.Rational(14142, 10000))
    False
    """
    e = sympy.expand(sympy.sympify(expr))
    if e == 0:
        return True
    if not e.free_symbols:
        val = complex(e.evalf(50))
        if abs(val) > 1e-30:
            return False
    s = sympy.simplify(e)
    if s == 0:
        return True
    return bool(s.equals(0)) if not s.free_symbols else False


#: Entries a numeric (complex128) network takes; any other entry (sympy, CycNumber, a formal
#: polynomial, Fraction) is exact and is never cast to a float.
PLAIN_NUMBERS = (int, float, complex, np.number)


def is_exact_entry(x: Any) -> bool:
    """True for an entry that must stay exact: anything but a plain int, float, complex or numpy number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> is_exact_entry(0.5), is_exact_entry(np.float32(1)), is_exact_entry(Fraction(1, 2))
    (False, False, True)
    """
    return not isinstance(x, PLAIN_NUMBERS) or is_sympy(x)


def to_exact_array(x: Any) -> np.ndarray:
    """An object array of sympy expressions with the shape of ``x``.

    Python ints, Fractions and sympy numbers/symbols are kept exact; floats are
    rejected, because an exact network built from floats is not exact.

    Examples
    --------
    >>> from fractions import Fraction
    >>> to_exact_array([1, Fraction(1, 2)]).tolist()
    [1, 1/2]
    >>> to_exact_array([0.5])
    Traceback (most recent call last):
    ...
    ValueError: exact networks take exact entries (int, Rational, sympy); got float 0.5
    """

    arr = np.asarray(x, dtype=object)
    out = arr.reshape(-1).copy()     # a sympy entry is kept as it is (sympify(v) is v): only the others convert
    basic, sympify = sympy.Basic, sympy.sympify
    for i in [i for i, v in enumerate(out.tolist()) if not isinstance(v, basic)]:
        v = out[i]
        if isinstance(v, (float, complex, np.floating, np.complexfloating)):
            raise ValueError(f"exact networks take exact entries (int, Rational, sympy); got float {v!r}")
        out[i] = sympify(v)
    return out.reshape(arr.shape)


def _conj(x: np.ndarray) -> np.ndarray:
    if x.dtype == object:
        return np.vectorize(sympy.conjugate, otypes=[object])(x) if x.size else x.copy()
    return np.conj(x)


def _as_numeric(x: Any, name: str) -> np.ndarray:
    torch = sys.modules.get("torch")      # a tensor exists only if torch is imported; never import it here
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().cpu()
        x = x.numpy() if not x.is_complex() else x.to(torch.complex128).numpy()
    arr = np.asarray(x)
    if arr.dtype == object:
        raise ValueError(f"{name}: object arrays are exact; pass exact=True")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name}: expected numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.complex128)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return arr


# --------------------------------------------------------------------------- Network
class Network:
    """An element of the semiring of networks over a fixed group (SPEC 3).

    Parameters
    ----------
    group : FiniteAbelianGroup or spec
        The group G (``23``, ``'3x5'``, ``Cyclic(23)``...).
    z : array-like, shape (3, n_G, q)
        Fourier coordinates (SPEC 2).  numpy/torch numbers become complex128;
        pass ``exact=True`` (or an object array) for sympy entries.
    exact : bool, optional
        Force exact (sympy) entries.  Default: exact iff ``z`` is an object array.

    Examples
    --------
    >>> from cogo.algebra import Network
    >>> one = Network.one(5)
    >>> (one + one).q, (one * one).q
    (2, 1)
    """

    __array_priority__ = 1000  # so that numpy scalars defer to Network.__rmul__

    def __init__(self, group: GroupLike, z: Any, exact: bool | None = None):
        self.group: FiniteAbelianGroup = as_group(group)
        if exact is None:
            exact = isinstance(z, np.ndarray) and z.dtype == object
        self.exact: bool = bool(exact)
        arr = to_exact_array(z) if self.exact else _as_numeric(z, "network entries")
        if arr.ndim != 3 or arr.shape[0] != 3 or arr.shape[1] != self.group.order:
            raise ValueError(
                f"network array must have shape (3, n_G={self.group.order}, q) for {self.group}; got {arr.shape}"
            )
        self.z: np.ndarray = arr

    # -- basic properties ---------------------------------------------------
    @property
    def q(self) -> int:
        """Number of hidden nodes."""
        return self.z.shape[2]

    @property
    def n(self) -> int:
        """Group order n_G."""
        return self.group.order

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.z.shape  # type: ignore[return-value]

    def __len__(self) -> int:
        return self.q

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "complex128"
        return f"Network(group={self.group}, q={self.q}, {kind})"

    @property
    def a(self) -> np.ndarray:
        """``z[a]``, shape (n_G, q)."""
        return self.z[0]

    @property
    def b(self) -> np.ndarray:
        """``z[b]``, shape (n_G, q)."""
        return self.z[1]

    @property
    def c(self) -> np.ndarray:
        """``z[c]``, shape (n_G, q)."""
        return self.z[2]

    def copy(self) -> "Network":
        return Network(self.group, self.z.copy(), exact=self.exact)

    # -- constructors -------------------------------------------------------
    @classmethod
    def zero(cls, group: Any, exact: bool = False) -> "Network":
        """The additive identity ``0``: no nodes."""
        G = as_group(group)
        return cls(G, np.zeros((3, G.order, 0), dtype=object if exact else np.complex128), exact=exact)

    @classmethod
    def one(cls, group: Any, exact: bool = False) -> "Network":
        """The multiplicative identity ``1``: one node with ``z[p, k] = 1`` for all p, k."""
        G = as_group(group)
        if exact:
            return cls(G, np.full((3, G.order, 1), sympy.Integer(1), dtype=object), exact=True)
        return cls(G, np.ones((3, G.order, 1), dtype=np.complex128))

    @classmethod
    def block(cls, group: Any, k: Any, a: Sequence, b: Sequence, c: Sequence, exact: bool | None = None) -> "Network":
        """The per-frequency block of SPEC 6.

        Nodes ``j`` have values ``(a_j, b_j, c_j)`` at frequency ``k``, their
        conjugates at ``-k`` and 0 elsewhere.  ``k`` is a frequency index, a
        residue (cyclic groups) or coordinates; it must satisfy ``k != -k``.
        Exactness follows the entries (any entry that :func:`is_exact_entry`
        calls exact makes the block exact) unless ``exact`` is given.
        """
        G = as_group(group)
        ki = G.index(k)
        if ki == G.neg[ki]:
            raise ValueError(f"a block needs k != -k; frequency {G.coords(ki)} of {G} equals its negative")
        cols = [np.asarray(v, dtype=object).reshape(-1) for v in (a, b, c)]
        q = len(cols[0])
        if any(len(v) != q for v in cols):
            raise ValueError(f"block vectors must have equal lengths; got {[len(v) for v in cols]}")
        if exact is None:
            exact = any(is_exact_entry(x) for v in cols for x in v)
        if exact:
            vals = to_exact_array(np.stack(cols))
            z = np.full((3, G.order, q), sympy.Integer(0), dtype=object)
        else:
            vals = _as_numeric(np.stack(cols).astype(np.complex128), "block entries")
            z = np.zeros((3, G.order, q), dtype=np.complex128)
        z[:, ki, :] = vals
        z[:, G.neg[ki], :] = _conj(vals)
        return cls(G, z, exact=exact)

    @classmethod
    def selector(cls, group: Any, k: Any, exact: bool = False) -> "Network":
        """The selector ``y_k`` (SPEC 6): one node with value 1 at ``+-k``, 0 elsewhere."""
        one = sympy.Integer(1) if exact else 1.0
        return cls.block(group, k, [one], [one], [one], exact=exact)

    @classmethod
    def from_weights(cls, Wa: Any, Wb: Any, Wc: Any, group: GroupLike | None = None) -> "Network":
        """Fourier coordinates of real-space weights (SPEC 2, scale ``lam = (2 n_G)^(1/3)``).

        ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q).  numpy arrays or torch tensors
        give a numeric network; object arrays of sympy numbers give an exact one.
        ``group`` defaults to ``Z_n`` with n the number of columns of ``Wa``.
        """
        exact = all(isinstance(W, np.ndarray) and W.dtype == object for W in (Wa, Wb, Wc))
        if exact:
            Wa, Wb, Wc = (to_exact_array(W) for W in (Wa, Wb, Wc))
        else:
            Wa, Wb, Wc = (_as_numeric(W, name) for W, name in zip((Wa, Wb, Wc), ("Wa", "Wb", "Wc")))
        if Wa.ndim != 2 or Wb.shape != Wa.shape or Wc.shape != Wa.shape[::-1]:
            raise ValueError(
                f"weights must have shapes (q, n), (q, n), (n, q); got {Wa.shape}, {Wb.shape}, {Wc.shape}"
            )
        G = as_group(group if group is not None else Wa.shape[1])
        if G.order != Wa.shape[1]:
            raise ValueError(f"weights have {Wa.shape[1]} columns but {G} has order {G.order}")
        if exact:
            F = G.exact_characters()
            lam = G.exact_scale
            s = lam / G.order
            Fc = _conj(F)
            za = Fc.dot(Wa.T) * s
            zb = Fc.dot(Wb.T) * s
            zc = F.dot(Wc) * s
            z = np.stack([za, zb, zc]).astype(object)
            z = np.vectorize(sympy.expand, otypes=[object])(z) if z.size else z
            return cls(G, z, exact=True)
        F = G.characters
        s = G.scale / G.order
        # each coordinate is a sum of n_G weights times characters of modulus 1: at most n_G max|W|.  Weights that
        # large are refused before the products, which would overflow (never a RuntimeWarning, never inf computed)
        big = max((float(np.abs(W).max()) for W in (Wa, Wb, Wc) if W.size), default=0.0)
        if big > np.finfo(np.float64).max / (4.0 * G.order):
            raise ValueError("network entries: contains NaN or infinite values (the weights are too large: "
                             f"|W| up to {big:.3g} over {G.order} elements)")
        z = np.empty((3, G.order, Wa.shape[0]), dtype=np.complex128)   # the products written in place
        Fc = np.conj(F)
        np.matmul(Fc, Wa.T, out=z[0])
        np.matmul(Fc, Wb.T, out=z[1])
        np.matmul(F, Wc, out=z[2])
        z *= s
        if not np.isfinite(z).all():
            raise ValueError("network entries: contains NaN or infinite values (the weights are too large)")
        return cls._of_checked(G, z)  # z is new and checked: not copied again (3 n q complex numbers)

    @classmethod
    def _of_checked(cls, group: Group, z: np.ndarray) -> "Network":
        """A numeric network on ``z`` itself (no copy): for ``z`` (3, n_G, q) complex128, finite, that no one else
        will change (a new array, or the entries of another network)."""
        net = cls.__new__(cls)
        net.group, net.exact, net.z = require_group(group, "Network._of_checked"), False, z
        return net

    def to_weights(self, real: bool = True, tol: float = 1e-9):
        """Real-space weights ``(Wa, Wb, Wc)`` (SPEC 2 inverse).

        With ``real=True`` (default) the network must be real (Hermitian,
        :meth:`is_real`) and float64 arrays are returned; ``real=False``
        returns the complex arrays.  Exact networks give object arrays.
        """
        G = self.group
        if self.exact:
            F = G.exact_characters()
            inv = 1 / G.exact_scale
            Wa = (F.T.dot(self.a) * inv).T
            Wb = (F.T.dot(self.b) * inv).T
            Wc = _conj(F).T.dot(self.c) * inv
            out = [np.vectorize(lambda e: sympy.expand(e, complex=real), otypes=[object])(W) if W.size else W
                   for W in (Wa, Wb, Wc)]
            if real and not self.is_real():
                raise ValueError("network is not real (Hermitian symmetry fails); use to_weights(real=False)")
            return tuple(out)
        F = G.characters
        inv = 1.0 / G.scale
        Wa = (F.T @ self.a).T * inv
        Wb = (F.T @ self.b).T * inv
        Wc = np.conj(F).T @ self.c * inv
        if not real:
            return Wa, Wb, Wc
        scale = max(1.0, float(np.abs(self.z).max(initial=0.0)))
        worst = max(float(np.abs(W.imag).max(initial=0.0)) for W in (Wa, Wb, Wc))
        if worst > tol * scale:
            raise ValueError(
                f"network is not real: imaginary part {worst:.3g} in real space exceeds tol {tol:g}; "
                "use to_weights(real=False)"
            )
        return Wa.real.copy(), Wb.real.copy(), Wc.real.copy()

    # -- predicates ---------------------------------------------------------
    def is_real(self, tol: float = 1e-9) -> bool:
        """Hermitian symmetry ``z[p, -k, j] = conj(z[p, k, j])`` (real weights), SPEC 2.

        Numeric: to ``tol`` relative to the largest entry.  Exact: proven with
        :func:`is_zero_exact`.
        """
        other = _conj(self.z[:, self.group.neg, :])
        if self.exact:
            return all(is_zero_exact(x - y) for x, y in zip(self.z.ravel(), other.ravel()))
        scale = max(1.0, float(np.abs(self.z).max(initial=0.0)))
        return bool(np.abs(self.z - other).max(initial=0.0) <= tol * scale)

    def node_norms(self) -> np.ndarray:
        """Largest ``|z[p, k, j]|`` over p and k for each node (float; exact networks are evaluated)."""
        z = self.to_numeric().z if self.exact else self.z
        return np.abs(z).max(axis=(0, 1), initial=0.0)

    def drop_zero_nodes(self, tol: float = 0.0) -> "Network":
        """Remove nodes whose entries are all zero (``|z| <= tol`` numerically; exactly 0 if exact).

        Zero nodes do not change the network's function (SPEC 3).
        """
        if self.exact:
            keep = [j for j in range(self.q) if not all(is_zero_exact(x) for x in self.z[:, :, j].ravel())]
        else:
            keep = np.flatnonzero(np.abs(self.z).max(axis=(0, 1), initial=0.0) > tol).tolist()
        return Network(self.group, self.z[:, :, keep], exact=self.exact)

    def equals(self, other: "Network", tol: float = 1e-9, drop_zero: bool = False) -> bool:
        """Equality modulo a permutation of hidden nodes (SPEC 3).

        Two networks are equal when some bijection of their nodes matches every
        node's ``3 x n_G`` entries: to ``tol`` (absolute, per entry) for
        numeric networks, exactly for exact ones.  The bijection is found as a
        perfect matching of the bipartite "nodes are equal" graph (networkx
        Hopcroft-Karp), so no node order is enumerated.  ``drop_zero=True``
        first removes zero nodes from both sides.
        """
        self._check_compatible(other, "compare")
        x, y = (self.drop_zero_nodes(), other.drop_zero_nodes()) if drop_zero else (self, other)
        if x.q != y.q:
            return False
        if x.q == 0:
            return True
        if x.exact or y.exact:
            X, Y = x._exact_z(), y._exact_z()
            close = np.array([[all(is_zero_exact(u - v) for u, v in zip(X[:, :, i].ravel(), Y[:, :, j].ravel()))
                               for j in range(y.q)] for i in range(x.q)])
        else:
            A = x.z.reshape(-1, x.q).T
            B = y.z.reshape(-1, y.q).T
            close = np.abs(A[:, None, :] - B[None, :, :]).max(axis=2) <= tol
        return _has_perfect_matching(close)

    def _exact_z(self) -> np.ndarray:
        return self.z if self.exact else to_exact_array(np.vectorize(sympy.nsimplify, otypes=[object])(self.z))

    # -- conversions ----------------------------------------------------------
    def to_numeric(self) -> "Network":
        """A complex128 copy (exact entries evaluated to double precision)."""
        if not self.exact:
            return self.copy()
        # each distinct entry evaluated once (a construction's entries are a few values and many exact zeros:
        # z_F6 at order 127 has 144 018 entries and 7 distinct ones); the same value as evaluating every entry
        flat, cache = self.z.ravel(), {}
        vals = np.empty(flat.shape, dtype=np.complex128)
        for i, e in enumerate(flat):
            v = cache.get(e)
            if v is None:
                v = cache[e] = complex(sympy.N(e, 30))
            vals[i] = v
        return Network(self.group, vals.reshape(self.z.shape))

    def to_torch(self, dtype=None, device=None):
        """The array ``z`` as a torch complex tensor (numeric networks only)."""
        import torch  # late: torch

        if self.exact:
            raise ValueError("exact networks have no torch form; call to_numeric() first")
        return torch.as_tensor(self.z, dtype=dtype or torch.complex128, device=device)

    def simplify(self) -> "Network":
        """Exact networks: every entry passed through ``sympy.expand`` (numeric: a copy)."""
        if not self.exact:
            return self.copy()
        return Network(self.group, np.vectorize(sympy.expand, otypes=[object])(self.z), exact=True)

    # -- semiring operations (SPEC 3) -------------------------------------------
    def _check_compatible(self, other: Any, op: str) -> None:
        if not isinstance(other, Network):
            raise ValueError(f"cannot {op} a Network and a {type(other).__name__}")
        if other.group != self.group:
            raise ValueError(f"cannot {op} networks over different groups: {self.group} and {other.group}")
        if other.exact != self.exact:
            raise ValueError(
                f"cannot {op} an exact and a numeric network; convert with to_numeric() first"
            )

    def __add__(self, other: Any) -> "Network":
        """``z1 + z2``: concatenate hidden nodes (q1 + q2 nodes)."""
        if not isinstance(other, Network):
            return NotImplemented
        self._check_compatible(other, "add")
        return Network(self.group, np.concatenate([self.z, other.z], axis=2), exact=self.exact)

    def __mul__(self, other: Any) -> "Network":
        """``z1 * z2``: Kronecker product along nodes, node ``(j1, j2) -> j1*q2 + j2``; or scalar times network."""
        if isinstance(other, Network):
            self._check_compatible(other, "multiply")
            q1, q2 = self.q, other.q
            prod = self.z[:, :, :, None] * other.z[:, :, None, :]
            return Network(self.group, prod.reshape(3, self.n, q1 * q2), exact=self.exact)
        return self._scale(other)

    def __rmul__(self, other: Any) -> "Network":
        if isinstance(other, Network):  # pragma: no cover - handled by __mul__
            return other.__mul__(self)
        return self._scale(other)

    def __neg__(self) -> "Network":
        return self._scale(-1)

    def _scale(self, s: Any) -> "Network":
        """``s . z``: every entry times ``s``; each potential scales by ``s^3`` (SPEC 3)."""
        if self.exact:
            if isinstance(s, (float, complex, np.floating, np.complexfloating)):
                raise ValueError(f"scaling an exact network by float {s!r} would lose exactness; use a sympy number")
            try:
                s = sympy.sympify(s)
            except (sympy.SympifyError, TypeError):
                return NotImplemented
            return Network(self.group, self.z * s, exact=True)
        if is_sympy(s):
            s = complex(sympy.N(s))
        if not isinstance(s, numbers.Number):
            return NotImplemented
        if not np.isfinite(complex(s)):
            raise ValueError(f"scalar {s!r} is not finite")
        return Network(self.group, self.z * complex(s))

    def __pow__(self, e: int) -> "Network":
        """``z ** e``: the ``e``-fold Kronecker product (``z ** 0`` is ``1``)."""
        if not isinstance(e, (int, np.integer)) or e < 0:
            raise ValueError(f"networks have non-negative integer powers only; got {e!r}")
        out = Network.one(self.group, exact=self.exact)
        for _ in range(int(e)):
            out = out * self
        return out

    def permute(self, perm: Sequence[int]) -> "Network":
        """The same network with nodes reordered: node ``i`` of the result is node ``perm[i]``."""
        perm = np.asarray(perm, dtype=np.int64)
        if sorted(perm.tolist()) != list(range(self.q)):
            raise ValueError(f"not a permutation of {self.q} nodes: {perm.tolist()}")
        return Network(self.group, self.z[:, :, perm], exact=self.exact)

    def nodes(self, idx: Sequence[int]) -> "Network":
        """The sub-network on the given nodes."""
        return Network(self.group, self.z[:, :, list(idx)], exact=self.exact)

    @staticmethod
    def sum(nets: Sequence["Network"]) -> "Network":
        """``z_1 + ... + z_m`` (concatenation); at least one network is required."""
        nets = list(nets)
        if not nets:
            raise ValueError("Network.sum needs at least one network (the group is otherwise unknown)")
        out = nets[0]
        for x in nets[1:]:
            out = out + x
        return out


def _has_perfect_matching(close: np.ndarray) -> bool:
    n = close.shape[0]
    if not (close.any(axis=1).all() and close.any(axis=0).all()):
        return False
    g = nx.Graph()
    left = [("l", i) for i in range(n)]
    g.add_nodes_from(left, bipartite=0)
    g.add_nodes_from((("r", j) for j in range(n)), bipartite=1)
    g.add_edges_from((("l", i), ("r", j)) for i, j in zip(*np.nonzero(close)))
    m = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
    return len(m) == 2 * n
