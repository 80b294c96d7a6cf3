"""Any finite group, given by its Cayley table (SPEC 9).

A :class:`FiniteGroup` of order ``M`` holds its elements as the integers
``0 .. M-1`` and its multiplication as the Cayley table
``table[g, h] = index of g*h`` (int64, ``M x M``).  It is built

* from a table (:meth:`FiniteGroup.from_table`), checked against the group
  axioms: a malformed table raises :class:`cogo.runtime.errors.CogoError` naming the
  axiom that fails (closure, identity, inverses, associativity);
* from a JSON file (:meth:`FiniteGroup.from_cayley_json`): ``{"name": "...",
  "table": [[...], ...]}`` or a bare list of rows; optional ``"elements"``
  (names of the elements);
* from a sympy ``PermutationGroup`` (:meth:`FiniteGroup.from_permutation_group`);
* by name (:func:`named_group`): ``S<n>``, ``A<n>``, ``D<n>`` (dihedral of
  order ``2n``), ``Q8``/``Q<2^k>`` (generalized quaternion), ``Dic<n>``
  (dicyclic of order ``4n``), ``Z<n>``/``C<n>`` (cyclic) and direct products
  written with ``x`` (``S3x3``, ``Q8x2``, ``S3xS3``).

Every constructor knows the order before it allocates anything of size
``M^2`` and refuses orders above :data:`cogo.algebra.groups.MAX_ORDER`.

The training task on a finite group is ``c = a * b`` (SPEC 1 with the Cayley
table in place of ``a + b``): :attr:`FiniteGroup.add_table` is the Cayley
table, so the trainer treats both group kinds alike.  Index 0 is the
identity for every group built here (tables given by the user keep their own
numbering; :attr:`FiniteGroup.identity` says which index it is).

References
----------
.. [1] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [2] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import re
from functools import cached_property, reduce
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo.algebra.groups import MAX_ORDER, FiniteAbelianGroup
from cogo.runtime.errors import CogoError

__all__ = ["FiniteGroup", "named_group", "NotAbelianError", "direct_product",
           "NAMED_GROUPS_HELP", "is_builtin_name"]

#: Largest Cayley-table JSON file read (bytes): a 4096 x 4096 table of short integers.
MAX_JSON_BYTES = 8 * MAX_ORDER * MAX_ORDER

NAMED_GROUPS_HELP = ("an order like 23, a product like 3x5, a name (S3, S4, A4, A5, D5, Q8, Dic3, Z6) "
                     "or a product with cyclic or named factors (S3x3, Q8x2), a Cayley-table .json file, "
                     "or SmallGroup(n,i) from GAP's library (the gap extra)")

# groups built from tables given at run time, by label, so that as_group(label) finds them again
_REGISTRY: dict[str, "FiniteGroup"] = {}


class NotAbelianError(CogoError, AttributeError):
    """An Abelian-only operation was given a group defined by its Cayley table (one line, like every CogoError).

    >>> named_group("S3").characters
    Traceback (most recent call last):
    ...
    cogo.algebra.finite_groups.NotAbelianError: this operation needs an Abelian group ... S3 (order 6) is not Abelian ...
    """


def _refuse_order(order: int, what: str) -> None:
    if order > MAX_ORDER:
        raise CogoError(f"{what} has order {order}, above the supported maximum {MAX_ORDER} "
                        f"(its Cayley table alone would need {order * order * 8 / 2**20:.0f} MiB)")


class FiniteGroup:
    """A finite group given by its Cayley table (SPEC 9).

    Attributes
    ----------
    order : int
        ``M = |G|``.
    table : ndarray (M, M) int64
        ``table[g, h]`` is the index of ``g * h``.
    inverse : ndarray (M,) int64
        ``inverse[g]`` is the index of ``g^-1``.
    identity : int
        Index of the identity.
    label : str
        Name used on the command line and in checkpoints (``'S3'``, ``'S3x3'``).
    element_names : list of str
        A printable name per element.

    Notes
    -----
    Attributes that only ``Z_d1 x ... x Z_dn`` has (``neg``, ``characters``,
    ``orders``, ...) raise :class:`NotAbelianError` (a one-line
    :class:`CogoError`), so Abelian-only code refuses a table group cleanly.

    Use the constructors (:meth:`from_table`, :meth:`from_cayley_json`,
    :meth:`from_permutation_group`, :func:`named_group`); the plain
    constructor trusts its input and is for internal use.

    Examples
    --------
    >>> G = FiniteGroup.from_table([[0, 1, 2], [1, 2, 0], [2, 0, 1]], label="C3")
    >>> G.order, G.is_abelian, G.identity, G.inverse.tolist()
    (3, True, 0, [0, 2, 1])
    >>> S3 = named_group("S3")                      # g h != h g for some pair
    >>> S3.is_abelian, S3.multiply(1, 2), S3.multiply(2, 1)
    (False, 4, 3)
    """

    def __init__(self, table: np.ndarray, label: str, elements: Sequence[str] | None = None,
                 identity: int | None = None, inverse: np.ndarray | None = None):
        self.table = np.ascontiguousarray(table, dtype=np.int64)
        self.table.setflags(write=False)
        self.order = int(self.table.shape[0])
        self.label = str(label)
        self.identity = int(identity) if identity is not None else int(np.flatnonzero(
            (self.table == np.arange(self.order)[None, :]).all(1))[0])
        if inverse is None:
            inverse = np.argmax(self.table == self.identity, axis=1)
        self.inverse = np.ascontiguousarray(inverse, dtype=np.int64)
        self.inverse.setflags(write=False)
        self.element_names = list(elements) if elements is not None else [f"g{i}" for i in range(self.order)]

    #: attributes of :class:`FiniteAbelianGroup` that only make sense for ``Z_d1 x ... x Z_dn``
    _ABELIAN_ONLY = frozenset({"orders", "is_cyclic", "scale", "exact_scale", "elements", "neg", "sub_table",
                               "positive_frequencies", "characters", "exact_characters", "index", "coords",
                               "_phase"})

    def __getattr__(self, name: str) -> Any:
        # only reached for missing attributes: Abelian-only code given a table group fails in one line
        if name in FiniteGroup._ABELIAN_ONLY:
            raise NotAbelianError(
                f"this operation needs an Abelian group Z_d1 x ... x Z_dn (an order like 23 or a product like 3x5); "
                f"{self.label} (order {self.order}) is "
                + ("Abelian but given by a table" if self.is_abelian else "not Abelian")
                + " (non-Abelian groups support train and classify; SPEC 9)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- constructors -----------------------------------------------------------
    @classmethod
    def from_table(cls, table: Any, label: str = "G", elements: Sequence[str] | None = None,
                   register: bool = False) -> "FiniteGroup":
        """Check the group axioms on a Cayley table and build the group.

        ``table[g][h]`` must be the index (``0 .. M-1``) of ``g*h``.  Raises
        :class:`CogoError` naming the first axiom that fails: *closure* (an
        entry outside ``0 .. M-1``, or a non-square or non-integer table),
        *identity*, *inverses* or *associativity* (checked on all triples
        ``(x, s, y)`` with ``s`` in a generating set, which suffices by
        Light's argument: the elements ``s`` with ``(x s) y = x (s y)`` for
        all ``x, y`` are closed under the product).  ``register=True`` makes
        :func:`cogo.algebra.group_parsing.parse_group` find the group by ``label``.

        >>> FiniteGroup.from_table([[0, 1], [1, 0]], label="C2").order
        2
        >>> FiniteGroup.from_table([[0, 1], [1, 1]])
        Traceback (most recent call last):
        ...
        cogo.runtime.errors.CogoError: Cayley table of 'G' fails the inverse axiom: element 1 has no h with ...
        """
        arr = np.asarray(table)
        if arr.dtype == object or arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
            raise CogoError(f"Cayley table of {label!r} is not a group table: expected a square M x M array of "
                            f"integers, got shape {arr.shape}")
        M = arr.shape[0]
        _refuse_order(M, f"Cayley table of {label!r}")
        if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise CogoError(f"Cayley table of {label!r} fails closure: entries must be integers 0..{M - 1}")
        if np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise CogoError(f"Cayley table of {label!r} fails closure: entries must be integers 0..{M - 1}")
        t = arr.astype(np.int64)
        bad = np.argwhere((t < 0) | (t >= M))
        if len(bad):
            g, h = (int(v) for v in bad[0])
            raise CogoError(f"Cayley table of {label!r} fails closure: {g}*{h} = {int(t[g, h])} is not an element "
                            f"0..{M - 1}")
        ar = np.arange(M)
        ids = np.flatnonzero((t == ar[None, :]).all(1) & (t == ar[:, None]).all(0))
        if len(ids) == 0:
            raise CogoError(f"Cayley table of {label!r} fails the identity axiom: no element e with e*g = g*e = g "
                            "for every g")
        e = int(ids[0])
        right = t == e
        inv = np.argmax(right, axis=1)
        has = right.any(1)
        ok = has & (t[inv, ar] == e)
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            raise CogoError(f"Cayley table of {label!r} fails the inverse axiom: element {g} has no h with "
                            f"{g}*h = h*{g} = identity ({e})")
        _check_associative(t, e, label)
        G = cls(t, label, elements=elements, identity=e, inverse=inv)
        if register:
            _register(G)
        return G

    @classmethod
    def from_cayley_json(cls, path: str | os.PathLike, label: str | None = None) -> "FiniteGroup":
        """Read a Cayley table from JSON: ``{"name": ..., "table": [[...]], "elements": [...]}`` or a list of rows.

        The file size is checked before it is read; the table then goes
        through :meth:`from_table`.  The group is registered under its label
        (``name``, else the file's stem) so that ``as_group(label)`` finds it.

        >>> import json, os, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, "klein.json")
        ...     with open(path, "w") as f:
        ...         json.dump({"name": "V4doc", "table": [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]]}, f)
        ...     V = FiniteGroup.from_cayley_json(path)
        >>> V.label, V.order, V.exponent, V.is_abelian
        ('V4doc', 4, 2, True)
        """
        p = Path(path)
        if not p.is_file():
            raise CogoError(f"{p}: no such Cayley-table file")
        size = p.stat().st_size
        if size > MAX_JSON_BYTES:
            raise CogoError(f"{p}: Cayley-table file of {size} bytes exceeds the {MAX_JSON_BYTES}-byte limit "
                            f"(groups up to order {MAX_ORDER})")
        try:
            data = json.loads(p.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CogoError(f"{p}: not a readable JSON file ({type(exc).__name__}: {str(exc)[:120]})") from None
        elements = None
        name = None
        if isinstance(data, dict):
            if "table" not in data:
                raise CogoError(f"{p}: JSON object lacks a 'table' entry (list of rows of element indices)")
            name, elements, rows = data.get("name"), data.get("elements"), data["table"]
        else:
            rows = data
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise CogoError(f"{p}: 'table' must be a list of rows of element indices")
        M = len(rows)
        _refuse_order(M, f"{p}")
        if any(len(r) != M for r in rows) or not all(
                isinstance(v, int) and not isinstance(v, bool) for r in rows for v in r):
            raise CogoError(f"Cayley table in {p} is not a group table: expected {M} rows of {M} integers each")
        if elements is not None and (not isinstance(elements, list) or len(elements) != M):
            raise CogoError(f"{p}: 'elements' must list {M} element names")
        lab = str(label or name or p.stem)
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", lab):
            raise CogoError(f"{p}: group name {lab!r} may contain only letters, digits and _.+-")
        if is_builtin_name(lab):  # the table is the group; its name is a label and may not pass for another group
            raise CogoError(f"{p}: the table's name {lab!r} is the name of a built-in group; a Cayley table's name "
                            f"is only a label: rename it (e.g. {lab}_table)")
        return cls.from_table(np.asarray(rows, dtype=np.int64), lab,
                              elements=[str(e) for e in elements] if elements else None, register=True)

    @classmethod
    def from_permutation_group(cls, pg: Any, label: str | None = None) -> "FiniteGroup":
        """The group of a sympy ``PermutationGroup``; ``table[i, j]`` = index of ``p_i * p_j`` (sympy's product).

        The order is checked (``pg.order()``) before any element is listed.
        Element 0 is the identity; the others follow sympy's element order, sorted.

        >>> from sympy.combinatorics.named_groups import SymmetricGroup
        >>> G = FiniteGroup.from_permutation_group(SymmetricGroup(3), label="S3perm")
        >>> G.order, G.is_abelian, G.identity
        (6, False, 0)
        """
        try:
            order = int(pg.order())
            degree = int(pg.degree)
        except AttributeError:
            raise CogoError(f"expected a sympy PermutationGroup, got {type(pg).__name__}") from None
        lab = label or f"Perm{order}"
        _refuse_order(order, f"permutation group {lab}")
        perms = sorted((tuple(p.array_form) + tuple(range(len(p.array_form), degree)) for p in pg.elements))
        ident = tuple(range(degree))
        perms.remove(ident)
        perms.insert(0, ident)
        # sympy: (p*q)(i) = q(p(i))  ->  array (p*q)[i] = q[p[i]]
        P = np.asarray(perms, dtype=np.int64)
        return _from_perm_arrays(P, lab, sympy_order=True)

    @classmethod
    def from_abelian(cls, G: FiniteAbelianGroup) -> "FiniteGroup":
        """The Abelian group ``Z_d1 x ... x Z_dn`` as a Cayley table (same element indices).

        >>> from cogo.algebra.groups import FiniteAbelianGroup
        >>> G = FiniteGroup.from_abelian(FiniteAbelianGroup((2, 3)))
        >>> G.label, G.order, G.element_names[:3], G.is_abelian
        ('2x3', 6, ['0,0', '0,1', '0,2'], True)
        """
        return cls(G.add_table, G.label, elements=[",".join(map(str, G.coords(k))) for k in range(G.order)],
                   identity=0, inverse=G.neg)

    # -- identity ------------------------------------------------------------
    def __repr__(self) -> str:
        return f"FiniteGroup({self.label!r}, order={self.order})"

    def __str__(self) -> str:
        return self.label

    def __len__(self) -> int:
        return self.order

    @cached_property
    def _key(self) -> tuple:
        return (self.order, self.identity, self.table.tobytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FiniteGroup) and self._key == other._key

    def __hash__(self) -> int:
        return hash(("FiniteGroup", self._key))

    @property
    def n(self) -> int:
        """``n_G = M``, the number of elements (alias of :attr:`order`)."""
        return self.order

    @property
    def add_table(self) -> np.ndarray:
        """The Cayley table: the training target is ``c = table[a, b]`` (SPEC 1 with ``a*b`` for ``a+b``)."""
        return self.table

    @cached_property
    def is_abelian(self) -> bool:
        return bool(np.array_equal(self.table, self.table.T))

    #: No ``Z_d1 x ... x Z_dn`` coordinates (the protocol's ``as_product``): a group given by its table, even an
    #: Abelian one, is read by its irreps (SPEC 9); write an Abelian group as a product (``3x5``) for SPEC 3-8.
    as_product = None

    @property
    def is_odd(self) -> bool:
        return self.order % 2 == 1

    def require_odd(self, what: str = "this operation") -> None:
        """Raise CogoError: the constructions of SPEC 7 need an Abelian group of odd order."""
        raise CogoError(f"{what} needs an Abelian group of odd order (Z_d1 x ... x Z_dn); {self.label} "
                        f"(order {self.order}) is {'Abelian but given by a table' if self.is_abelian else 'not Abelian'}")

    def require_abelian(self, what: str = "this operation") -> None:
        """Raise CogoError (one line) naming the requirement: an Abelian group written as Z_d1 x ... x Z_dn."""
        raise CogoError(f"{what} needs an Abelian group Z_d1 x ... x Z_dn (an order like 23 or a product like "
                        f"3x5); {self.label} (order {self.order}) is "
                        f"{'given by a table' if self.is_abelian else 'not Abelian'}")

    @cached_property
    def element_orders(self) -> np.ndarray:
        """``element_orders[g]`` = smallest ``s >= 1`` with ``g^s = e``; shape ``(M,)``."""
        M = self.order
        out = np.zeros(M, dtype=np.int64)
        cur = np.arange(M)
        for s in range(1, M + 1):
            done = (cur == self.identity) & (out == 0)
            out[done] = s
            if (out > 0).all():
                break
            cur = self.table[cur, np.arange(M)]
        return out

    @cached_property
    def exponent(self) -> int:
        return int(reduce(lambda x, y: x * y // math.gcd(x, y), self.element_orders.tolist(), 1))

    def multiply(self, g: int, h: int) -> int:
        return int(self.table[g, h])

    @cached_property
    def invariant_factors(self) -> tuple[int, ...] | None:
        """For an Abelian group: ``(d_1, ..., d_n)`` with ``d_1 | d_2 | ... | d_n`` and ``G = Z_d1 x ... x Z_dn``.

        None for a non-Abelian group (and for the trivial group).  Computed from
        element orders alone: for each prime ``p`` the number of elements of order
        dividing ``p^j`` is ``p^(sum_i min(lambda_i, j))``, which determines the
        partition ``lambda`` of the p-part (structure theorem of finite Abelian groups).

        >>> FiniteGroup.from_table([[(a + b) % 6 for b in range(6)] for a in range(6)], "c6").invariant_factors
        (6,)
        >>> K = [[a ^ b for b in range(4)] for a in range(4)]                     # Klein four-group
        >>> FiniteGroup.from_table(K, "v4").invariant_factors, named_group("S3").invariant_factors
        ((2, 2), None)
        """
        if not self.is_abelian or self.order < 2:
            return None
        M, orders = self.order, self.element_orders
        parts: list[list[int]] = []
        m, p = M, 2
        while m > 1:
            if m % p:
                p += 1
                continue
            e = 0
            while m % p == 0:
                m //= p
                e += 1
            s_prev, at_least = 0, []
            for j in range(1, e + 1):
                n_j = int(np.sum((p ** j) % orders == 0))                      # elements with g^(p^j) = e
                s_j = round(math.log(n_j, p))
                at_least.append(s_j - s_prev)                                  # parts of size >= j
                s_prev = s_j
            lam = [sum(1 for c in at_least if c > i) for i in range(at_least[0] if at_least else 0)]
            parts.append([p ** x for x in lam])                                # descending prime powers
        n = max(len(x) for x in parts)
        factors = [1] * n
        for x in parts:
            for i, q in enumerate(x):
                factors[n - 1 - i] *= q
        return tuple(factors)

    def abelian_isomorphism(self, seed: int = 0, tries: int = 2000) -> np.ndarray | None:
        """For an Abelian table: ``phi`` with ``phi[g]`` = the index in :meth:`as_abelian` of table element ``g``.

        ``phi`` is a bijection and a homomorphism, ``phi[table[g, h]] = A.add_table[phi[g], phi[h]]``:
        it maps the table's numbering to the product's (which training and classification use
        once the table is read as the product).  Found by drawing elements ``g_i`` of order
        ``d_i`` (the invariant factors) at random until ``(c_1, ..., c_n) -> sum c_i g_i`` is
        onto; None for a non-Abelian group.

        >>> K = FiniteGroup.from_table([[a ^ b for b in range(4)] for a in range(4)], "v4")
        >>> phi = K.abelian_isomorphism(); A = K.as_abelian()
        >>> bool((phi[K.table] == A.add_table[phi[:, None], phi[None, :]]).all()), sorted(phi.tolist())
        (True, [0, 1, 2, 3])
        """
        A = self.as_abelian()
        if A is None:
            return None
        M, t, e = self.order, self.table, self.identity
        orders = self.element_orders
        by_order = {d: np.flatnonzero(orders == d) for d in set(A.orders)}
        rng = np.random.default_rng(seed)
        coords = A.elements                                      # (M, n) in the product's index order
        for _ in range(tries):
            gens = [int(rng.choice(by_order[d])) for d in A.orders]
            # element of the table at product index k: sum_i coords[k, i] * g_i, built factor by factor
            img = np.full(M, e, dtype=np.int64)
            for i, g in enumerate(gens):
                powers = np.empty(A.orders[i], dtype=np.int64)
                powers[0] = e
                for c in range(1, A.orders[i]):
                    powers[c] = t[powers[c - 1], g]
                img = t[img, powers[coords[:, i]]]
            if len(np.unique(img)) == M:                         # onto, so an isomorphism
                phi = np.empty(M, dtype=np.int64)
                phi[img] = np.arange(M)
                return phi
        raise CogoError(f"no isomorphism of {self.label} onto {A} found in {tries} random tries")  # pragma: no cover

    def as_abelian(self) -> FiniteAbelianGroup | None:
        """The Abelian group ``Z_d1 x ... x Z_dn`` (invariant factors) isomorphic to this table, or None.

        The element numbering becomes that of :class:`cogo.algebra.groups.FiniteAbelianGroup`
        (coordinates in C order); the group is the same up to isomorphism.
        """
        f = self.invariant_factors
        return FiniteAbelianGroup(f) if f else None


# ------------------------------------------------------------------------- helpers
def is_builtin_name(label: str) -> bool:
    """True when ``label`` names a built-in group (``23``, ``3x5``, ``S3``, ``Z6``, ``Q8x2``, ...).

    Examples
    --------
    >>> is_builtin_name("S3"), is_builtin_name("3x5"), is_builtin_name("F21"), is_builtin_name("myZ6")
    (True, True, False, False)
    """
    toks = _split_product(str(label).strip())
    return bool(toks) and all(t.isdigit() or _NAME_RE.match(t) for t in toks)


def _register(G: FiniteGroup) -> None:
    old = _REGISTRY.get(G.label)
    if old is not None and old != G:
        raise CogoError(f"two different groups carry the name {G.label!r}; rename one")
    _REGISTRY[G.label] = G


def registered_table(label: str) -> FiniteGroup | None:
    """The table-given group registered under ``label``, if any."""
    return _REGISTRY.get(label)


def _check_associative(t: np.ndarray, e: int, label: str) -> None:
    """Light's test: ``(x s) y == x (s y)`` for all ``x, y`` and ``s`` in a generating set (CogoError if not)."""
    M = t.shape[0]
    gens: list[int] = []
    reached = np.zeros(M, dtype=bool)
    reached[e] = True
    while not reached.all():
        s = int(np.flatnonzero(~reached)[0])
        gens.append(s)
        # closure of {e} under right multiplication by the generators
        frontier = np.flatnonzero(reached)
        while len(frontier):
            nxt = t[np.ix_(frontier, np.asarray(gens))].ravel()
            nxt = np.unique(nxt[~reached[nxt]])
            reached[nxt] = True
            frontier = nxt
    for s in gens:
        lhs = t[t[:, s], :]                 # (x s) y, rows x, columns y
        rhs = t[:, t[s, :]]                 # x (s y)
        bad = np.argwhere(lhs != rhs)
        if len(bad):
            x, y = (int(v) for v in bad[0])
            raise CogoError(f"Cayley table of {label!r} fails associativity: ({x}*{s})*{y} = {int(lhs[x, y])} but "
                            f"{x}*({s}*{y}) = {int(rhs[x, y])}")


def _table_from_perms(P: np.ndarray, first_then_second: bool) -> np.ndarray:
    """Cayley table of the permutations ``P`` (rows, a closed set): product ``P[i] * P[j]``.

    ``first_then_second=True``: apply ``P[i]`` first, ``(p*q)[k] = q[p[k]]`` (sympy);
    otherwise composition ``(p o q)[k] = p[q[k]]``.
    """
    M, n = P.shape
    base = n ** np.arange(n, dtype=np.int64)
    codes = P @ base
    order = np.argsort(codes)
    sorted_codes = codes[order]
    if first_then_second:
        prod = np.take_along_axis(np.broadcast_to(P[None, :, :], (M, M, n)), np.broadcast_to(P[:, None, :], (M, M, n)),
                                  axis=2)
    else:
        prod = np.take_along_axis(np.broadcast_to(P[:, None, :], (M, M, n)), np.broadcast_to(P[None, :, :], (M, M, n)),
                                  axis=2)
    pc = prod @ base
    idx = np.searchsorted(sorted_codes, pc)
    idx = np.minimum(idx, M - 1)
    if not np.array_equal(sorted_codes[idx], pc):
        raise CogoError("the permutations do not form a group (a product falls outside the set)")
    return order[idx]


def _from_perm_arrays(P: np.ndarray, label: str, sympy_order: bool = False) -> FiniteGroup:
    t = _table_from_perms(P, first_then_second=sympy_order)
    names = ["(" + " ".join(map(str, p)) + ")" for p in P.tolist()]
    return FiniteGroup(t, label, elements=names, identity=0)


def _symmetric(n: int, alternating: bool = False) -> FiniteGroup:
    label = f"{'A' if alternating else 'S'}{n}"
    order = math.factorial(n) // (2 if alternating and n >= 2 else 1)
    _refuse_order(order, label)
    perms = list(itertools.permutations(range(n)))
    if alternating:
        def parity(p):
            s, seen = 0, [False] * n
            for i in range(n):
                if not seen[i]:
                    j, L = i, 0
                    while not seen[j]:
                        seen[j] = True
                        j = p[j]
                        L += 1
                    s += L - 1
            return s % 2
        perms = [p for p in perms if parity(p) == 0]
    P = np.asarray(perms, dtype=np.int64).reshape(len(perms), n)
    return _from_perm_arrays(P, label)


def _dihedral(n: int) -> FiniteGroup:
    """``D_n`` of order ``2n``: element ``r^i s^j`` has index ``i + n j``; ``s r s = r^-1``."""
    _refuse_order(2 * n, f"D{n}")
    i = np.arange(2 * n) % n
    j = np.arange(2 * n) // n
    I1, J1 = i[:, None], j[:, None]
    I2, J2 = i[None, :], j[None, :]
    # r^i1 s^j1 r^i2 s^j2 = r^(i1 + (-1)^j1 i2) s^(j1 + j2)
    ii = (I1 + np.where(J1 == 1, -I2, I2)) % n
    jj = (J1 + J2) % 2
    names = [("r" + str(a) if a else "e") if b == 0 else f"r{a}s" if a else "s" for a, b in zip(i, j)]
    return FiniteGroup(ii + n * jj, f"D{n}", elements=names, identity=0)


def _dicyclic(n: int, label: str | None = None) -> FiniteGroup:
    """``Dic_n`` of order ``4n``: ``<a, x | a^2n = 1, x^2 = a^n, x a x^-1 = a^-1>``; index of ``a^i x^j`` is ``i + 2n j``."""
    m = 2 * n
    lab = label or f"Dic{n}"
    _refuse_order(2 * m, lab)
    i = np.arange(2 * m) % m
    j = np.arange(2 * m) // m
    I1, J1 = i[:, None], j[:, None]
    I2, J2 = i[None, :], j[None, :]
    ii = I1 + np.where(J1 == 1, -I2, I2)
    jj = J1 + J2
    ii = np.where(jj == 2, ii + n, ii) % m
    jj = jj % 2
    names = [("a" + str(a) if a else "e") if b == 0 else f"a{a}x" if a else "x" for a, b in zip(i, j)]
    return FiniteGroup(ii + m * jj, lab, elements=names, identity=0)


def direct_product(G: FiniteGroup, H: FiniteGroup, label: str | None = None) -> FiniteGroup:
    """``G x H``: element ``(g, h)`` has index ``g |H| + h``.

    Examples
    --------
    >>> G = direct_product(named_group("S3"), named_group("Z2"))
    >>> G.label, G.order, G.is_abelian, G.element_names[1]
    ('S3xZ2', 12, False, '((0 1 2),1)')
    """
    M1, M2 = G.order, H.order
    _refuse_order(M1 * M2, label or f"{G.label}x{H.label}")
    t = (G.table[:, None, :, None] * M2 + H.table[None, :, None, :]).reshape(M1 * M2, M1 * M2)
    names = [f"({a},{b})" for a in G.element_names for b in H.element_names]
    return FiniteGroup(t, label or f"{G.label}x{H.label}", elements=names,
                       identity=G.identity * M2 + H.identity)


def _cyclic(n: int) -> FiniteGroup:
    _refuse_order(n, f"Z{n}")
    a = np.arange(n)
    return FiniteGroup((a[:, None] + a[None, :]) % n, f"Z{n}", elements=[str(k) for k in a], identity=0)


_NAME_RE = re.compile(r"^(S|A|D|Q|Dic|Z|C)(\d+)$")


def _factor_order(tok: str) -> int:
    """Order of one factor, computed without building it (for the size check)."""
    if tok.isdigit():
        return int(tok)
    m = _NAME_RE.match(tok)
    if not m:
        raise CogoError(f"cannot parse group: unknown name {tok!r}; expected {NAMED_GROUPS_HELP}")
    kind, n = m.group(1), int(m.group(2))
    if kind == "S":
        return math.factorial(min(n, 20))
    if kind == "A":
        return max(math.factorial(min(n, 20)) // 2, 1)
    if kind == "D":
        return 2 * n
    if kind == "Q":
        return n
    if kind == "Dic":
        return 4 * n
    return n


def _named_factor(tok: str) -> FiniteGroup:
    if tok.isdigit():
        n = int(tok)
        if n < 2:
            raise CogoError(f"cyclic factor orders must be >= 2, got {n}")
        return _cyclic(n)
    kind, n = _NAME_RE.match(tok).group(1), int(_NAME_RE.match(tok).group(2))  # type: ignore[union-attr]
    if kind == "S":
        if n < 2:
            raise CogoError(f"S{n}: symmetric groups need n >= 2")
        return _symmetric(n)
    if kind == "A":
        if n < 3:
            raise CogoError(f"A{n}: alternating groups need n >= 3")
        return _symmetric(n, alternating=True)
    if kind == "D":
        if n < 2:
            raise CogoError(f"D{n}: dihedral groups D_n (order 2n) need n >= 2")
        return _dihedral(n)
    if kind == "Q":
        if n < 8 or n & (n - 1):
            raise CogoError(f"Q{n}: generalized quaternion groups need an order 2^k >= 8 (Q8, Q16, ...)")
        return _dicyclic(n // 4, label=f"Q{n}")
    if kind == "Dic":
        if n < 2:
            raise CogoError(f"Dic{n}: dicyclic groups Dic_n (order 4n) need n >= 2")
        return _dicyclic(n)
    if n < 2:
        raise CogoError(f"{tok}: cyclic groups need order >= 2")
    return _cyclic(n)


def _split_product(spec: str) -> list[str]:
    # 'x' separates factors; 'Dic' contains no x, so a plain split is safe
    return [t.strip() for t in re.split(r"[xX*]", spec)]


def named_group(name: str) -> FiniteGroup:
    """A group by name: ``S3``, ``S4``, ``A4``, ``A5``, ``D5``, ``Q8``, ``Dic3``, ``Z6`` and products ``S3x3``.

    Factors are separated by ``x`` (or ``*``); a bare integer ``n`` is ``Z_n``.
    The order is computed and checked before anything is built.

    Examples
    --------
    >>> [(g, named_group(g).order, named_group(g).exponent) for g in ("S3", "D5", "Q8", "S3x3")]
    [('S3', 6, 6), ('D5', 10, 10), ('Q8', 8, 4), ('S3x3', 18, 6)]
    """
    spec = str(name).strip()
    toks = _split_product(spec)
    if not toks or any(not t for t in toks):
        raise CogoError(f"cannot parse group {name!r}: expected {NAMED_GROUPS_HELP}")
    order = 1
    for t in toks:
        order *= _factor_order(t)
        _refuse_order(order, f"group {spec}")
    G = _named_factor(toks[0])
    for t in toks[1:]:
        G = direct_product(G, _named_factor(t))
    G.label = "x".join(toks)
    return G


